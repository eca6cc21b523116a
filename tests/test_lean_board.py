"""min-conflicts' lean board (``builtin/lean_board.py``): its counts, scans and guards against brute force."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nqueens_plugins as nq
from nqueens_plugins.builtin.engines import lean_board
from nqueens_plugins.builtin.engines.board import FORBIDDEN
from nqueens_plugins.builtin.engines.lean_board import LeanBoard
from nqueens_plugins.builtin.min_conflicts import greedy_board
from nqueens_plugins.core.problem import Problem


def attackers_by_hand(queens: list[int], column: int) -> list[int]:
    row = queens[column]
    return sorted(c for c, r in enumerate(queens) if c != column and (r == row or abs(r - row) == abs(c - column)))


def attacks_by_hand(queens: list[int], column: int, row: int) -> int:
    return sum(1 for c, r in enumerate(queens) if c != column and (r == row or abs(r - row) == abs(c - column)))


@st.composite
def boards_and_moves(draw: st.DrawFn) -> tuple[int, list[int], list[tuple[int, int]], int]:
    n = draw(st.integers(1, 14))
    queens = draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n))
    moves = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=12))
    block = draw(st.sampled_from([1, 2, 3, 5, 1 << 18]))
    return n, queens, moves, block


@settings(max_examples=300, deadline=None)
@given(boards_and_moves())
def test_counts_scans_and_best_rows_agree_with_brute_force(
    case: tuple[int, list[int], list[tuple[int, int]], int],
) -> None:
    n, queens, moves, block = case
    saved = lean_board.BLOCK
    lean_board.BLOCK = block  # every scan in blocks of this many columns or rows
    try:
        board = LeanBoard(n, np.array(queens, dtype=np.int32), {})
        for column, row in moves:
            board.move(column, row)
            queens[column] = row
        assert board.queens.tolist() == queens
        for column in range(n):
            assert sorted(board.attackers(column).tolist()) == attackers_by_hand(queens, column)
            by_row = [attacks_by_hand(queens, column, row) for row in range(n)]
            fewest, ties = board.best_rows(column)
            assert fewest == min(by_row)
            assert ties.tolist() == [row for row in range(n) if by_row[row] == fewest]
            assert board.attacks(column, queens[column]) == by_row[queens[column]]
        assert board.conflicted_columns().tolist() == [c for c in range(n) if attackers_by_hand(queens, c)]
    finally:
        lean_board.BLOCK = saved


def test_blocked_squares_are_never_a_best_row() -> None:
    n = 6
    open_rows = {2: np.array([0, 5])}
    board = LeanBoard(n, np.zeros(n, dtype=np.int32), {}, open_rows)
    fewest, ties = board.best_rows(2)
    assert set(ties.tolist()) <= {0, 5} and fewest < FORBIDDEN


def test_a_line_with_more_queens_than_a_byte_counts_is_counted_in_int32() -> None:
    n = 300  # every queen on row 0: 300 on one line
    board = LeanBoard(n, np.zeros(n, dtype=np.int32), {})
    assert board.rows.dtype == np.int32 and int(board.rows[0]) == n
    assert board.attacks(5, 0) == n - 1


def test_a_move_that_would_wrap_a_byte_widens_the_counters() -> None:
    n = 300
    queens = np.array([0] * 255 + list(range(1, 46)), dtype=np.int32)  # 255 queens on row 0: one byte's limit
    board = LeanBoard(n, queens, {})
    assert board.rows.dtype == np.uint8 and int(board.rows[0]) == 255
    board.move(299, 0)
    assert board.rows.dtype == np.int32 and int(board.rows[0]) == 256
    assert board.attacks(0, 0) == 255


@pytest.mark.parametrize("spec", ["min-conflicts", "min-conflicts[init=greedy]", "min-conflicts[noise=0.2]"])
def test_a_run_does_not_depend_on_the_block_size(spec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def runs() -> list[tuple]:
        found = []
        for seed in range(4):
            for n, fixed, blocked in ((13, {}, []), (40, {}, []), (12, {0: 1}, [(3, 3), (3, 4), (4, 5)])):
                result = nq.solve(spec, n, limits=nq.Limits(seed=seed), fixed=fixed, blocked=blocked, isolate=False)
                found.append(
                    (
                        result.status,
                        result.iterations,
                        result.moves,
                        None if result.queens is None else result.queens.tolist(),
                    )
                )
        return found

    whole = runs()
    monkeypatch.setattr(lean_board, "BLOCK", 3)
    assert runs() == whole


def test_the_greedy_start_is_int32_and_places_free_queens_on_distinct_rows() -> None:
    problem = Problem(2000, fixed={7: 3})
    queens = greedy_board(problem, random.Random(1), 32)
    assert queens.dtype == np.int32 and queens[7] == 3
    assert len(set(queens.tolist())) == 2000  # every free queen took an unused row
