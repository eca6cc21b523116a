"""Counting by start constellations (engines/constellations.py and its kernel), and the masked kernel.

The generator is held against brute force: every solution of a small board is
listed, its border read off, and each must fall in exactly one generated class
with the right weight; the counts (both engines) against OEIS; the pieces of a
split count against the whole.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nqueens_plugins as nq
from nqueens_plugins.builtin.bitboard import Bitboard, count_python, split, symmetries
from nqueens_plugins.builtin.engines import bitboard_kernel, constellation_kernel, constellations
from nqueens_plugins.core.problem import Budget, Problem, Status
from nqueens_plugins.core.verify import known_count


def every_solution(n: int) -> list[tuple[int, ...]]:
    """Every board (queens[c] = r), mirror images included: the plain recursion, no symmetry used."""
    found: list[tuple[int, ...]] = []

    def place(queens: list[int]) -> None:
        column = len(queens)
        if column == n:
            found.append(tuple(queens))
            return
        for row in range(n):
            if all(row != other and abs(row - other) != column - at for at, other in enumerate(queens)):
                place([*queens, row])

    place([])
    return found


def border_of(queens: tuple[int, ...]) -> tuple[int, int, int, int]:
    """(row of column 0's queen, of column n-1's, column of row 0's queen, of row n-1's)."""
    n = len(queens)
    return queens[0], queens[n - 1], queens.index(0), queens.index(n - 1)


def classes_by_canonical_forms(boards: list[tuple[int, ...]]) -> tuple[int, int, int]:
    sizes: Counter[int] = Counter()
    for board in boards:
        images = set(symmetries(board))
        if board == min(images):
            sizes[len(images)] += 1
    return sizes[2], sizes[4], sizes[8]


@pytest.mark.parametrize("n", range(4, 11))
def test_every_solution_falls_in_exactly_one_class_with_its_weight(n: int) -> None:
    boards = every_solution(n)
    generated = constellations.generate(n)
    class_of = {}  # every image of a generated constellation -> that constellation
    for constellation in generated:
        border, stabilizer = constellation[:4], constellation[4]
        assert border not in constellations.images(n, border)[1::2]  # |H| holds rotations only
        images = set(constellations.images(n, border))
        assert stabilizer == 8 // len(images) and stabilizer in (1, 2, 4)
        assert all(constellations.is_valid(n, image) for image in images)
        for image in images:
            assert class_of.setdefault(image, constellation) == constellation  # no two share a class
    by_border = Counter(border_of(board) for board in boards)
    assert all(constellations.is_valid(n, border) and border in class_of for border in by_border)
    for constellation in generated:
        border, stabilizer = constellation[:4], constellation[4]
        in_class = sum(by_border[image] for image in set(constellations.images(n, border)))
        # the searched image holds 1/(8/|H|) of its class's solutions: the weight makes up the rest
        assert in_class == 8 // stabilizer * by_border[border]
        assert constellations.count_completions(n, *border) == by_border[border]
        assert sorted(constellations.completions(n, *border)) == sorted(
            list(board) for board in boards if border_of(board) == border
        )
    assert sum(by_border.values()) == known_count(n)
    if n >= constellations.MIN_N:
        expected = classes_by_canonical_forms(boards)
        assert constellations.count_python(n, generated) == expected
        assert constellation_kernel.count(n, generated) == expected


@pytest.mark.parametrize("n", range(4, 11))
def test_the_border_tuples_are_the_symmetries_of_the_board(n: int) -> None:
    """``images`` does to a border what the eight symmetries do to the board it belongs to."""
    for board in every_solution(n):
        assert {border_of(image) for image in symmetries(board)} == set(constellations.images(n, border_of(board)))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(4, 13).flatmap(lambda n: st.tuples(st.just(n), *[st.integers(0, n - 1)] * 4)))
def test_validity_is_the_same_for_every_image_and_no_reflection_fixes_a_border(
    case: tuple[int, int, int, int, int],
) -> None:
    n, border = case[0], case[1:]
    valid = constellations.is_valid(n, border)
    images = constellations.images(n, border)
    assert all(constellations.is_valid(n, image) == valid for image in images)
    if valid:  # images[1::2] are the four reflections: |H| counts rotations only (classes_of relies on it)
        assert border not in images[1::2]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(6, 11).flatmap(lambda n: st.tuples(st.just(n), st.sampled_from(constellations.generate(n)))))
def test_a_constellation_counts_the_same_in_every_orientation_and_engine(case: tuple[int, tuple[int, ...]]) -> None:
    n, constellation = case
    border = constellation[:4]
    found = {constellations.count_completions(n, *image) for image in constellations.images(n, border)}
    assert len(found) == 1
    if constellation[4] == 1:
        assert constellation_kernel.count(n, [constellation]) == (0, 0, found.pop())


@pytest.mark.parametrize("n", range(6, 14))
def test_both_engines_count_oeis_whole_and_by_class(n: int) -> None:
    generated = constellations.generate(n)
    compiled = constellation_kernel.count(n, generated)
    assert compiled == constellations.count_python(n, generated)
    c2, c4, c8 = compiled
    assert (2 * c2 + 4 * c4 + 8 * c8, c2 + c4 + c8) == (known_count(n), known_count(n, unique=True))


@pytest.mark.parametrize("kernel", ["python", "numba"])
@pytest.mark.parametrize("method", ["constellations", "takaken"])
def test_both_methods_agree_with_oeis_through_the_solver(kernel: str, method: str) -> None:
    for n in (6, 7, 11, 13):
        for unique in (False, True):
            result = nq.count(f"bitboard[kernel={kernel},method={method},workers=1]", n, unique=unique)
            assert result.verified is True, (n, unique, result.solutions)
    counters = nq.count(f"bitboard[kernel={kernel},method={method}]", 12).counters
    assert ("constellations" in counters) == (method == "constellations")


def test_auto_takes_constellations_from_the_cut_over_and_takaken_below() -> None:
    assert "subtrees" in nq.count("bitboard", 13).counters
    whole = nq.count("bitboard", 14)
    assert whole.verified is True and whole.iterations == whole.counters["constellations"] == 1632
    assert (whole.counters["classes_4"], whole.counters["classes_8"]) == (105, 45647)


@pytest.mark.parametrize("kernel", ["python", "numba"])
def test_the_pieces_are_stable_and_add_up_to_the_count(kernel: str) -> None:
    solver, problem = Bitboard(), Problem(14)
    options = {"kernel": kernel, "workers": 1, "method": "auto"}
    parts = solver.count_parts(problem, options, False)
    assert parts is not None and parts == solver.count_parts(problem, options, False)
    assert repr(parts) == repr(solver.count_parts(problem, dict(options, kernel="numba"), True))  # engine-free
    assert [part.index for part in parts] == list(range(len(parts))) and len(parts) == 64
    dealt = [constellation for part in parts for constellation in part.constellations]
    assert sorted(dealt) == sorted(constellations.generate(14))  # each constellation once
    if kernel == "python":
        parts = parts[:3]  # pure Python takes seconds for all of n = 14: a few pieces against the kernel
    counted = [solver.count_part(problem, Budget(None), options, unique, part) for part in parts for unique in (0, 1)]
    whole, unique = (sum(c.solutions for c in counted[start::2]) for start in (0, 1))
    if kernel == "numba":
        assert (whole, unique) == (known_count(14), known_count(14, unique=True))
        assert sum(c.iterations for c in counted[::2]) == len(dealt)
    else:
        compiled = [solver.count_part(problem, Budget(None), dict(options, kernel="numba"), 0, p) for p in parts]
        assert whole == sum(c.solutions for c in compiled)


def test_a_piece_stops_between_constellations_when_its_budget_is_out() -> None:
    solver, problem = Bitboard(), Problem(14)
    options = {"kernel": "numba", "workers": 1, "method": "auto"}
    (part, *_) = solver.count_parts(problem, options, False) or []
    stopped = solver.count_part(problem, Budget(0.0), options, False, part)
    assert stopped.status == Status.TIMED_OUT and stopped.iterations == 0 and stopped.solutions == 0


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.integers(4, 10).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=2 * n),
            st.integers(0, n),
        )
    )
)
def test_the_masked_kernel_counts_what_the_python_search_counts(case: tuple[int, set[tuple[int, int]], int]) -> None:
    """Blocked squares and any split depth (pieces that start in the last columns included)."""
    n, blocked, depth = case
    problem = Problem(n, blocked=frozenset(blocked))
    tasks = split(problem, depth)
    allowed = list(problem.allowed_rows)
    expected = sum(task[4] * count_python(n, allowed, *task[:4]) for task in tasks)
    assert bitboard_kernel.count_tasks(n, allowed, tasks) == expected
    if tasks:
        first = tasks[0]
        assert bitboard_kernel.count(n, allowed, *first[:4]) == count_python(n, allowed, *first[:4])


def placements_of_the_search(n: int) -> int:
    """Every queen the constellation search places, counted exactly (the figure ``sample_nodes`` estimates)."""
    return sum(placements_below(n, *border) for *border, _ in constellations.generate(n))


def placements_below(n: int, i: int, j: int, k: int, l: int) -> int:
    lines, allowed = constellations.search_lines(n, i, j, k, l)
    full = (1 << n) - 1

    def place(level: int, rows: int, down: int, up: int) -> int:
        free = allowed[level] & ~(rows | down | up)
        placed = free.bit_count()
        if level + 1 < len(lines):
            gap = lines[level + 1] - lines[level]
            while free:
                bit = free & -free
                free ^= bit
                placed += place(level + 1, rows | bit, ((down | bit) << gap) & full, (up | bit) >> gap)
        return placed

    return place(0, 0, 0, 0) if lines else 0


@pytest.mark.parametrize("n", [10, 12])
def test_sampling_estimates_the_size_of_the_search(n: int) -> None:
    exact = placements_of_the_search(n)
    assert abs(constellations.sample_nodes(n) - exact) / exact < 0.05  # the seed is fixed: no chance in this
    assert constellations.sample_nodes(n, seed=1) != constellations.sample_nodes(n, seed=2)  # it does sample


def test_a_count_beyond_reach_is_estimated_not_started(monkeypatch: pytest.MonkeyPatch) -> None:
    from nqueens_plugins.builtin import bitboard

    assert 0 < bitboard.seconds_per_node("python") < 1e-3  # measured here: about 1e-6, 1e-3 under no load
    monkeypatch.setattr(bitboard, "seconds_per_node", lambda kernel: 4.4e-9)  # numba, one EPYC core
    solver = Bitboard()
    # constellations' estimate (method=auto joins half boards at n = 20; test_join_count estimates that)
    options = {o.name: o.default for o in solver.options} | {"workers": 2, "method": "constellations"}
    seconds_at_20, seconds_at_40 = (solver.count_seconds(Problem(n), options) for n in (20, 40))
    assert seconds_at_20 == pytest.approx(constellations.sample_nodes(20) * 4.4e-9 / 2)
    assert 20 * 60 < seconds_at_20 < 30 * 60  # n = 20 took 25 minutes on two such cores
    assert seconds_at_40 / (365 * 86400) > 1e10  # years
    assert solver.count_seconds(Problem(20, blocked={(0, 0)}), options) is None
