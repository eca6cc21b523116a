"""Counting by joining half boards (bitboard method=join): OEIS, brute force, both engines, pieces, memory."""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest

import nqueens_plugins as nq
from nqueens_plugins.builtin import bitboard
from nqueens_plugins.builtin.engines import join_kernel, join_plan, join_python, join_symmetric
from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import Budget, Problem, Status
from nqueens_plugins.core.verify import A000170, A002562

BITBOARD = bitboard.Bitboard()
OPTIONS = {"kernel": "auto", "workers": 1, "method": "join"}


def solutions(n: int) -> list[tuple[int, ...]]:
    """Every solution (queens[column] = row), by trying every permutation: the slowest, surest count."""
    return [
        rows
        for rows in itertools.permutations(range(n))
        if len({r + c for c, r in enumerate(rows)}) == n and len({r - c for c, r in enumerate(rows)}) == n
    ]


def test_the_compiled_engine_matches_oeis() -> None:
    for n in range(1, 15):
        assert join_kernel.count(n, join_plan.tasks(n)) == A000170[n], n


def test_the_pure_python_engine_matches_oeis() -> None:
    for n in range(1, 11):
        assert join_python.count(n, join_plan.tasks(n)) == A000170[n], n


@pytest.mark.parametrize("n", [7, 8])
def test_each_rows_set_counts_what_brute_force_finds_for_it(n: int) -> None:
    """Task by task, against the solutions themselves: the left half's rows (and the middle column's
    queen), and for an even n the rule of the main diagonals (no left queen on one, a right board
    counting 2 per main diagonal it takes) that the weights of the symmetries rest on."""
    half = n // 2
    by_task: dict[tuple[int, int], int] = {}
    for queens in solutions(n):
        rows = sum(1 << queens[column] for column in range(half))
        middle = queens[half] if n % 2 else -1
        if n % 2 == 0:
            left_main = any(queens[c] == c or queens[c] + c == n - 1 for c in range(half))
            if left_main:
                continue
            right_main = sum(queens[c] == c or queens[c] + c == n - 1 for c in range(half, n))
            weight = 1 << right_main
        else:
            weight = 1
        by_task[(middle, rows)] = by_task.get((middle, rows), 0) + weight
    quarters = join_python.quarters(n)
    for task in join_plan.tasks(n):
        expected = by_task.get((task.middle, task.rows), 0)
        assert join_python.count_task(n, quarters, task) == expected, task
        assert join_kernel.count(n, [join_plan.Task(task.middle, task.rows, 1)]) == expected, task


@pytest.mark.parametrize("n", [9, 10, 11])
def test_both_engines_agree_task_by_task(n: int) -> None:
    quarters = join_python.quarters(n)
    for task in join_plan.tasks(n):
        alone = join_plan.Task(task.middle, task.rows, 1)
        assert join_kernel.count(n, [alone]) == join_python.count_task(n, quarters, task), task


@pytest.mark.parametrize("n", [8, 9, 12, 13])
def test_the_symmetries_cover_every_rows_set_once(n: int) -> None:
    """The weights add up to every rows set (even n) or every middle row and rows set (odd n)."""
    half = n // 2
    weights = sum(task.weight for task in join_plan.tasks(n))
    assert weights == (comb(n, half) if n % 2 == 0 else n * comb(n - 1, half))


def test_the_transpose_that_slices_boards_is_a_transpose() -> None:
    block = np.random.default_rng(7).integers(0, 2**63, 64, dtype=np.int64).astype(np.uint64)
    turned = block.copy()
    join_kernel._transpose(turned)
    for i, j in itertools.product(range(64), repeat=2):
        assert (int(turned[j]) >> i) & 1 == (int(block[i]) >> j) & 1


@pytest.mark.parametrize("kernel", ["python", "numba"])
def test_the_method_counts_every_n_to_oeis(kernel: str) -> None:
    for n in range(1, 13 if kernel == "numba" else 11):
        result = nq.count(f"bitboard[method=join,kernel={kernel},workers=1]", n, isolate=False)
        assert result.verified is True and result.solutions == A000170[n], n
        assert result.counters["row_sets"] == len(join_plan.tasks(n))


def test_auto_joins_from_its_cut_over_with_or_without_unique() -> None:
    auto = {"method": "auto"}
    assert bitboard.way_of(Problem(bitboard.JOIN_FROM), auto) == "join"
    assert bitboard.way_of(Problem(bitboard.JOIN_FROM - 1), auto) == "constellations"
    assert bitboard.way_of(Problem(bitboard.JOIN_UNTIL + 1), auto) == "constellations"
    assert bitboard.way_of(Problem(bitboard.JOIN_FROM), auto, unique=True) == "join"
    assert bitboard.way_of(Problem(bitboard.JOIN_FROM - 1), auto, unique=True) == "constellations"


def brute_fixed(n: int, turns: int) -> int:
    """Solutions that ``turns`` quarter turns ((row, column) -> (column, n-1-row)) map onto themselves."""
    found = 0
    for queens in solutions(n):
        cells = {(r, c) for c, r in enumerate(queens)}
        turned = cells
        for _ in range(turns):
            turned = {(c, n - 1 - r) for r, c in turned}
        found += turned == cells
    return found


@pytest.mark.parametrize("n", [4, 5, 8, 9])
def test_the_turns_fixed_solutions_match_brute_force(n: int) -> None:
    for turns in (join_symmetric.HALF_TURN, join_symmetric.QUARTER_TURN):
        expected = brute_fixed(n, turns)
        assert join_symmetric.fixed_python(n, turns) == expected, turns
        assert join_kernel.turn_fixed(n, turns) == expected, turns


@pytest.mark.parametrize("kernel", ["python", "numba"])
def test_unique_by_joining_matches_a002562(kernel: str) -> None:
    for n in range(1, 13 if kernel == "numba" else 11):
        result = nq.count(f"bitboard[method=join,kernel={kernel},workers=1]", n, unique=True, isolate=False)
        assert result.verified is True and result.solutions == A002562[n], n
        if n >= 6:  # joined (below, canonical forms: a handful of solutions)
            assert "row_sets" in result.counters and "classes_8" not in result.counters
    counters = nq.count("bitboard[method=join,workers=1]", 12, unique=True, isolate=False).counters
    assert (counters["fixed_half_turn"], counters["fixed_quarter_turn"]) == (80, 8)


def test_unique_pieces_are_shares_of_burnside_and_add_up_to_a002562(tmp_path) -> None:
    """Split (--out), the row sets' pieces and the turns' piece add up to 8 times the classes."""
    problem = Problem(12)
    parts = BITBOARD.count_parts(problem, OPTIONS, True)
    assert parts is not None and parts[-1] == join_plan.Turns() and len(parts) == bitboard.PARTS + 1
    counted = [BITBOARD.count_part(problem, Budget(), OPTIONS, True, part) for part in parts]
    assert all(c.counters[bitboard.BURNSIDE_GROUP_ORDER] == 8 for c in counted)
    assert sum(c.solutions for c in counted[:-1]) == A000170[12]
    assert sum(c.solutions for c in counted) == 8 * A002562[12]
    out = tmp_path / "n12-unique.jsonl"
    result = nq.count("bitboard[method=join,kernel=python]", 12, unique=True, out=out)
    assert result.verified is True and result.solutions == A002562[12]
    again = nq.count("bitboard[method=join,kernel=python]", 12, unique=True, out=out, resume=True)
    assert again.solutions == A002562[12] and again.counters["parts_resumed"] == bitboard.PARTS + 1


def test_pieces_add_up_to_the_count_and_are_the_same_every_run() -> None:
    problem = Problem(13)
    parts = BITBOARD.count_parts(problem, OPTIONS, False)
    assert parts is not None and len(parts) == bitboard.PARTS
    assert parts == BITBOARD.count_parts(problem, OPTIONS, False)
    covered = sorted((task.middle, task.rows) for part in parts for task in part.tasks)
    assert covered == sorted((task.middle, task.rows) for task in join_plan.tasks(13))
    total = 0
    for part in parts:
        counted = BITBOARD.count_part(problem, Budget(), OPTIONS, False, part)
        assert counted.status is Status.SOLVED
        total += counted.solutions
    assert total == A000170[13]


def test_a_piece_out_of_time_is_a_lower_bound() -> None:
    part = BITBOARD.count_parts(Problem(13), OPTIONS, False)[0]
    counted = BITBOARD.count_part(Problem(13), Budget(seconds=0.0), OPTIONS, False, part)
    assert counted.status is Status.TIMED_OUT and counted.iterations < len(part.tasks)


def test_a_count_past_the_memory_allowed_is_refused_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(join_plan, "allowed_memory", lambda: 1 << 20)
    for attempt in (
        lambda: BITBOARD.count(Problem(12), Budget(), OPTIONS, False),
        lambda: BITBOARD.count_parts(Problem(12), OPTIONS, False),
        lambda: BITBOARD.count_seconds(Problem(12), OPTIONS),
    ):
        with pytest.raises(BadInput, match=r"needs about .* GiB for n = 12.*method=constellations"):
            attempt()
    # the other methods still count in that little memory
    constellations = dict(OPTIONS, method="constellations", kernel="python")
    assert BITBOARD.count(Problem(10), Budget(), constellations, False).solutions == A000170[10]


def test_memory_grows_with_n_and_stays_within_two_gib_at_20() -> None:
    sizes = [join_plan.memory_bytes(n) for n in range(12, 26)]
    assert sizes == sorted(sizes)
    assert join_plan.memory_bytes(20) <= 2 << 30 < join_plan.memory_bytes(22)


def test_a_count_kept_piece_by_piece_resumes_to_the_oeis_total(tmp_path) -> None:
    """--out keeps every piece of a join; --resume of the finished file counts nothing again."""
    out = tmp_path / "n12.jsonl"
    spec = "bitboard[method=join,kernel=python]"  # workers that need not load numba: a quicker test
    first = nq.count(spec, 12, out=out)
    assert first.verified is True and first.counters["parts"] == bitboard.PARTS
    again = nq.count(spec, 12, out=out, resume=True)
    assert again.solutions == A000170[12] and again.counters["parts_resumed"] == bitboard.PARTS


def test_the_command_refuses_a_join_past_its_memory_as_bad_input(run_cli) -> None:
    """Refused in the parent before any worker starts: one line, exit 2 (not a worker's error, exit 1)."""
    code, out, err = run_cli("count", "-s", "bitboard[method=join]", "-n", "16", "--memory", "50M")
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.strip().count("\n") == 0
    assert "needs about 0.1 GiB for n = 16" in err and "0.05 GiB --memory allows" in err
    assert "bitboard[method=constellations]" in err


def test_the_api_refuses_it_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_work(*arguments: object) -> None:
        raise AssertionError("the count started")

    monkeypatch.setattr(bitboard.Bitboard, "count", no_work)
    with pytest.raises(BadInput, match=r"needs about .* GiB for n = 16, more than the 0\.05 GiB --memory allows"):
        nq.count("bitboard[method=join]", 16, limits=nq.Limits(memory="50M"))
    with pytest.raises(BadInput, match=r"more than the 0\.05 GiB --memory allows"):
        nq.count("bitboard", 18, limits=nq.Limits(memory="50M"))  # auto joins there
    monkeypatch.setattr(join_plan, "allowed_memory", lambda: 1 << 20)  # the machine's, without --memory
    with pytest.raises(BadInput, match=r"this machine has available; bitboard\[method=constellations\]"):
        nq.count("bitboard[method=join]", 12, isolate=False)
    assert BITBOARD.count_precheck(Problem(12), dict(OPTIONS, method="constellations"), False) is None


@pytest.mark.parametrize("weighted", [False, True])
def test_bucketed_matching_counts_every_disjoint_pair(weighted: bool) -> None:
    """Forced to bucket (by the diagonal bits both sides take most), the match still counts every pair
    of boards with no bit in common, weighted 2 per main-diagonal bit of the query where asked."""
    rng = np.random.default_rng(5)
    bits = 30

    def boards(count: int) -> np.ndarray:
        taken = rng.random((count, bits)) < rng.uniform(0.1, 0.5, bits)  # some bits far likelier than others
        words = (taken * (1 << np.arange(bits, dtype=np.int64))).sum(axis=1).astype(np.uint64)
        return np.concatenate([[np.uint64(count)], words]).astype(np.uint64)

    sliced, queries = boards(1500), boards(700)
    fits = (sliced[1:, None] & queries[None, 1:]) == 0
    main = (3, 17)
    weight = np.ones(700, dtype=np.int64)
    if weighted:
        weight = 1 << (((queries[1:] >> np.uint64(3)) & np.uint64(1)) + ((queries[1:] >> np.uint64(17)) & np.uint64(1)))
    expected = int((fits * weight.astype(np.int64)[None, :]).sum())
    buffers = join_kernel.new_buffers(bits)
    for split_from in (0, join_kernel.SPLIT_FROM):  # bucketed, and not
        found = join_kernel._match(sliced, queries, (*main, weighted), bits, buffers, split_from)
        assert found == expected, split_from
    chosen = join_kernel._split_bits(sliced, queries, bits)
    codes = join_kernel._codes(sliced, chosen), join_kernel._codes(queries, chosen)
    assert join_kernel._best_split(*codes) > 0  # it did bucket
