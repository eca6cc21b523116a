"""nqueens count and nqueens cross-check: exact counts against OEIS, solvers against each other."""

from __future__ import annotations

import json

import pytest

import nqueens_plugins as nq
from nqueens_plugins.builtin.bitboard import split
from nqueens_plugins.core.verify import known_count
from nqueens_plugins.formats.inputs import make_problem


def test_count_command_matches_oeis(run_cli) -> None:
    code, out, _ = run_cli("count", "-n", "10")
    assert code == 0 and "724" in out and "A000170" in out
    code, out, _ = run_cli("count", "-n", "10", "--unique", "--json")
    record = json.loads(out)
    assert code == 0 and record["solutions"] == 92 and record["verified"] is True


@pytest.mark.parametrize("kernel", ["python", "numba"])
def test_bitboard_kernels_agree_with_oeis(kernel: str) -> None:
    for n in (1, 2, 3, 4, 5, 6, 11, 12):
        result = nq.count(f"bitboard[kernel={kernel},workers=1]", n)
        assert result.verified is True, (n, result.solutions)


def test_counting_across_processes() -> None:
    result = nq.count("bitboard[kernel=python,workers=2]", 12)
    assert result.verified is True and result.counters["workers"] == 2


def test_mirror_split_halves_the_work() -> None:
    for n in (8, 9):
        tasks = split(make_problem(n), 3)
        assert all(weight == 2 for *_, weight, _ in tasks)
        first_rows = {prefix[0] for *_, prefix in tasks}
        assert max(first_rows) <= n // 2  # only the top half (and the middle row, for odd n) is searched


def test_count_timeout_gives_a_lower_bound(run_cli) -> None:
    code, out, _ = run_cli("count", "-s", "backtracking", "-n", "16", "--timeout", "0.3")
    assert code == 1 and "timed-out: a lower bound" in out


def test_count_cut_short_says_how_long_the_whole_would_take(run_cli) -> None:
    # n = 24 is refused without a limit; with one it runs, and says before and after how long the
    # whole count would take (bitboard's estimate), since no piece finishes to give a pace.
    code, out, err = run_cli("count", "-n", "24", "--timeout", "0.5")
    assert code == 1 and "timed-out: a lower bound" in out
    assert "the whole count would take about" in out and "(the solver's estimate)" in out
    assert "would take about" in err and "counting for 0.5 s" in err
    # A solver with no estimate says nothing of the kind, rather than a made-up figure.
    code, out, err = run_cli("count", "-s", "bitset-mrv", "-n", "20", "--timeout", "0.5")
    assert code == 1 and "would take" not in out + err


def test_count_seconds_refuses_what_count_refuses() -> None:
    from nqueens_plugins import BadInput, api

    with pytest.raises(BadInput, match="cannot count"):
        api.count_seconds("min-conflicts", 8)
    assert api.count_seconds("bitboard", 8, blocked="0:0") is None  # an instance's time is the instance's
    assert api.count_seconds("bitboard", 24) > 3600  # n = 24 takes months here: hours at least on any machine


def test_wrong_count_exits_three(run_cli, fake_distribution) -> None:
    fake_distribution("nqueens-hostile", {"hostile": "hostile_solvers"}, {})
    code, out, _ = run_cli("count", "-s", "hostile-no-solution", "-n", "8")
    assert code == 3 and "WRONG" in out and "A000170 gives 92" in out


@pytest.mark.parametrize(
    "args, words",
    [
        (["count", "-s", "min-conflicts", "-n", "8"], "cannot count"),
        (["count", "-s", "backtracking", "-n", "8", "--unique"], "up to symmetry"),
        (["count", "-n", "8", "--unique", "--fixed", "0:0"], "plain boards"),
        (["count", "-n", "21"], "would take about"),
        (["count", "-n", "63", "--timeout", "5"], "up to 62"),
    ],
)
def test_count_bad_input(run_cli, args: list[str], words: str) -> None:
    code, _, err = run_cli(*args)
    assert code == 2 and words in err and err.count("\n") == 1


def test_cross_check_agrees(run_cli) -> None:
    code, out, err = run_cli(
        "cross-check", "-n", "1..7", "-s", "backtracking,forward-checking,bitboard,min-conflicts,construction", "--json"
    )
    checks = json.loads(out)
    assert code == 0, err
    assert all(c["agrees"] for c in checks)
    assert {c["task"] for c in checks} == {"count", "solve"}
    assert {c["n"] for c in checks} == set(range(1, 8))


def test_cross_check_catches_a_liar(run_cli, fake_distribution) -> None:
    fake_distribution("nqueens-hostile", {"hostile": "hostile_solvers"}, {})
    code, _out, err = run_cli("cross-check", "-n", "4..6", "-s", "backtracking,hostile-no-solution")
    assert code == 1
    assert "disagreement" in err and "hostile-no-solution" in err


# --- the symmetric counter (symmetry_count.py) ----------------------------------


def classes_by_canonical_forms(n: int) -> tuple[int, int, int]:
    """(classes with 2, 4, 8 distinct images), by listing every solution and its 8 images: the slow truth."""
    from nqueens_plugins.builtin.bitboard import solutions, symmetries

    problem = make_problem(n)
    sizes = [0, 0, 0]
    for board in solutions(problem, split(problem, 0)):
        images = set(symmetries(board))
        if board == min(images):
            sizes[{2: 0, 4: 1, 8: 2}[len(images)]] += 1
    return sizes[0], sizes[1], sizes[2]


@pytest.mark.parametrize("n", range(6, 11))
def test_symmetric_counter_finds_each_class_once_with_its_size(n: int) -> None:
    from nqueens_plugins.builtin.engines import symmetry_count

    for depth in (1, 2, 4):  # how deep the search is split must not change anything
        assert symmetry_count.count_python(n, symmetry_count.subtrees(n, depth)) == classes_by_canonical_forms(n)


def test_compiled_symmetric_counter_is_the_same_source_and_agrees() -> None:
    from nqueens_plugins.builtin.engines import bitboard_kernel, symmetry_count

    assert bitboard_kernel._count_subtrees.py_func is symmetry_count.count_subtrees
    for n in (6, 9, 12):
        trees = symmetry_count.subtrees(n, 3)
        assert bitboard_kernel.count_classes(n, trees) == symmetry_count.count_python(n, trees)
    for n in (13, 14):  # past the brute-force checks: against OEIS, whole and by class
        c2, c4, c8 = bitboard_kernel.count_classes(n, symmetry_count.subtrees(n, 4))
        assert (2 * c2 + 4 * c4 + 8 * c8, c2 + c4 + c8) == (known_count(n), known_count(n, unique=True))


@pytest.mark.parametrize("kernel", ["python", "numba"])
def test_unique_counts_come_from_the_kernel_and_match_oeis(kernel: str) -> None:
    for n in range(1, 13):
        result = nq.count(f"bitboard[kernel={kernel}]", n, unique=True)
        assert result.verified is True, (n, result.solutions)
    whole = nq.count(f"bitboard[kernel={kernel}]", 12)
    unique = nq.count(f"bitboard[kernel={kernel}]", 12, unique=True)
    c2, c4, c8 = (whole.counters[f"classes_{k}"] for k in (2, 4, 8))
    assert (2 * c2 + 4 * c4 + 8 * c8, c2 + c4 + c8) == (whole.solutions, unique.solutions) == (14200, 1787)


def test_unique_counts_split_into_pieces_add_up(run_cli) -> None:
    code, out, err = run_cli("count", "-n", "13", "--unique", "--progress", "--json")
    record = json.loads(out)
    assert code == 0 and record["solutions"] == 9233 and record["verified"] is True, err
    assert record["counters"]["parts"] == 64 and record["counters"]["classes_8"] == 9197
