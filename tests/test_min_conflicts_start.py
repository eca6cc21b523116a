"""Minton's greedy start of min-conflicts (``init=minton``), against a brute-force scan of every row.

The start is fast because it samples rows before it scans them; these tests hold it to the
definition: each free queen, in column order after the fixed queens, on a row of its column that
the fewest already placed queens attack, over every open row, ties broken at random.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nqueens_plugins as nq
from nqueens_plugins.builtin import min_conflicts
from nqueens_plugins.builtin.engines import lean_board
from nqueens_plugins.builtin.engines.board import open_rows_of
from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import Problem


def attacks(placed: dict[int, int], column: int, row: int) -> int:
    """Queens of ``placed`` on the row or a diagonal of square (column, row), counted one by one."""
    return sum(r == row or abs(r - row) == abs(c - column) for c, r in placed.items())


def least_attacked(problem: Problem, placed: dict[int, int], column: int) -> list[int]:
    """The open rows of ``column`` that the fewest queens of ``placed`` attack (brute force)."""
    rows = [r for r in range(problem.n) if (column, r) not in problem.blocked]
    fewest = min(attacks(placed, column, r) for r in rows)
    return [r for r in rows if attacks(placed, column, r) == fewest]


def start(problem: Problem, seed: int, open_rows: dict[int, np.ndarray] | None = None) -> list[int]:
    open_rows = open_rows_of(problem) if open_rows is None else open_rows
    return min_conflicts.minton_board(problem, random.Random(seed), open_rows).tolist()


@st.composite
def instances(draw: st.DrawFn) -> Problem:
    """Small boards, some with fixed queens (attacking each other or not) and blocked squares, every
    column keeping an open row."""
    n = draw(st.integers(1, 11))
    columns = st.integers(0, n - 1)
    fixed = draw(st.dictionaries(columns, columns, max_size=min(3, n)))
    blocked = draw(st.sets(st.tuples(columns, columns), max_size=2 * n))
    blocked = {(c, r) for c, r in blocked if c not in fixed}
    for column in range(n):  # keep one open row in each column
        blocked.discard((column, column))
    return Problem(n, fixed=fixed, blocked=frozenset(blocked))


@settings(max_examples=150, deadline=None)
@given(instances(), st.integers(0, 2**32 - 1), st.sampled_from([0, 1, 32]), st.sampled_from([3, 1 << 18]))
def test_each_queen_takes_a_least_attacked_row_given_the_queens_before_it(
    problem: Problem, seed: int, tries: int, block: int
) -> None:
    # tries=0 sends every queen to the scans; a block of 3 rows splits the full scan into pieces
    with mock.patch.object(min_conflicts, "MINTON_TRIES", tries), mock.patch.object(lean_board, "BLOCK", block):
        queens = start(problem, seed)
    placed = dict(problem.fixed)
    assert all(queens[c] == r for c, r in problem.fixed.items())
    for column in range(problem.n):
        if column in problem.fixed:
            continue
        assert queens[column] in least_attacked(problem, placed, column), (column, queens, placed)
        placed[column] = queens[column]


def exact_distribution(problem: Problem) -> dict[tuple[int, ...], Fraction]:
    """Every board the definition can give, with its probability: the tree of least-attacked rows,
    each tie an equal share."""
    boards: dict[tuple[int, ...], Fraction] = {}

    def grow(placed: dict[int, int], column: int, chance: Fraction) -> None:
        while column < problem.n and column in problem.fixed:
            column += 1
        if column == problem.n:
            board = tuple(placed[c] for c in range(problem.n))
            boards[board] = boards.get(board, Fraction(0)) + chance
            return
        rows = least_attacked(problem, placed, column)
        for row in rows:
            grow({**placed, column: row}, column + 1, chance / len(rows))

    grow(dict(problem.fixed), 0, Fraction(1))
    return boards


@pytest.mark.parametrize(
    "problem",
    [Problem(6), Problem(5, fixed={2: 1}, blocked=frozenset({(0, 0), (0, 4), (3, 3), (4, 1)}))],
    ids=["plain 6", "5 with a fixed queen and blocked squares"],
)
def test_ties_are_broken_uniformly_at_random(problem: Problem) -> None:
    """The boards drawn follow the definition's own distribution: each within 5 standard errors of its
    exact probability (a start that favoured low rows, or sampled ties unevenly, would not)."""
    exact = exact_distribution(problem)
    draws = 4000
    open_rows = open_rows_of(problem)
    seen = Counter(tuple(start(problem, seed, open_rows)) for seed in range(draws))
    assert set(seen) <= set(exact)
    for board, chance in exact.items():
        p = float(chance)
        assert abs(seen[board] - p * draws) <= 5 * (p * (1 - p) * draws) ** 0.5 + 1, (board, seen[board], p * draws)


@pytest.mark.parametrize("n", [8, 50, 2000])
def test_a_run_from_minton_s_start_solves_and_is_verified(n: int) -> None:
    solved = [
        nq.solve("min-conflicts[init=minton]", n, limits=nq.Limits(seed=seed), isolate=False) for seed in range(3)
    ]
    assert any(result.solved for result in solved)
    for result in solved:
        assert result.status in ("solved", "gave-up")
        if result.solved:
            assert result.verified is True
            # the start's placements are moves, not iterations: every repair that moved a queen is one of both
            assert n <= result.moves <= n + result.iterations


def test_an_instance_with_fixed_queens_and_blocked_squares_is_solved_from_minton_s_start() -> None:
    result = nq.solve(
        "min-conflicts[init=minton]",
        12,
        limits=nq.Limits(seed=1),
        fixed={0: 2, 5: 9},
        blocked=[(3, 3), (4, 4)],
        isolate=False,
    )
    assert result.solved and result.verified is True
    assert result.queens is not None and result.queens[0] == 2 and result.queens[5] == 9
    assert result.queens[3] != 3 and result.queens[4] != 4


def test_greedy_is_sosic_and_gu_s_start_under_its_old_name() -> None:
    runs = {
        init: nq.solve(f"min-conflicts[init={init}]", 500, limits=nq.Limits(seed=4), isolate=False)
        for init in ("greedy", "sosic-gu", "minton")
    }
    boards = {init: [] if r.queens is None else r.queens.tolist() for init, r in runs.items()}
    same = [
        (runs[init].iterations, runs[init].moves, runs[init].counters, boards[init]) for init in ("greedy", "sosic-gu")
    ]
    assert same[0] == same[1] and boards["greedy"]
    assert boards["minton"] != boards["greedy"]


@pytest.mark.parametrize("init", ["minton", "sosic-gu", "greedy", "random"])
def test_the_init_option_takes_each_start(init: str) -> None:
    assert nq.solve(f"min-conflicts[init={init}]", 30, limits=nq.Limits(seed=0), isolate=False).solved


def test_an_unknown_start_is_refused_in_one_line_naming_the_choices() -> None:
    with pytest.raises(BadInput) as refused:
        nq.solve("min-conflicts[init=minton-greedy]", 8, isolate=False)
    message = str(refused.value)
    assert "\n" not in message and "minton" in message and "sosic-gu" in message
