"""The verifier: one planted error of each kind, and the published counts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nqueens_plugins.builtin.construction import construct
from nqueens_plugins.core.problem import Count, Outcome, Problem, Status
from nqueens_plugins.core.verify import A000170, A002562, board_error, known_count, verify_count, verify_outcome

GOOD_8 = [0, 4, 7, 5, 2, 6, 1, 3]


def solved(queens: object) -> Outcome:
    return Outcome(Status.SOLVED, queens)  # type: ignore[arg-type]


def test_a_valid_board_passes() -> None:
    assert verify_outcome(Problem(8), solved(GOOD_8)).verified is True
    assert verify_outcome(Problem(8), solved(np.array(GOOD_8, dtype=np.int32))).verified is True


@pytest.mark.parametrize(
    "queens, reason",
    [
        (GOOD_8[:7], "expected 8 queens"),
        (GOOD_8 + [1], "expected 8 queens"),
        ([0, 4, 7, 5, 2, 6, 1, 8], "off the board"),
        ([0, 4, 7, 5, 2, 6, 1, -1], "off the board"),
        ([0, 4, 7, 5, 2, 6, 1, 1], "columns 6 and 7 share the row=1"),
        ([2, 4, 7, 5, 0, 6, 1, 3], "share the diagonal row-column="),  # only a falling-diagonal clash
        ([0, 4, 7, 5, 2, 6, 3, 1], "share the diagonal row+column="),  # only rising-diagonal clashes
        ([0, 4, 7, 5, 2, 6, 1, 3.5], "integers"),
        (["a"] * 8, "integers"),
        ([[0]] * 8, "flat"),
        (None, "gives no queens"),
    ],
)
def test_planted_errors_are_rejected_with_a_reason(queens: object, reason: str) -> None:
    verdict = verify_outcome(Problem(8), solved(queens))
    assert verdict.verified is False
    assert reason in (verdict.reason or "")


def test_fixed_queens_must_stay() -> None:
    verdict = verify_outcome(Problem(8, {0: 1}), solved(GOOD_8))
    assert verdict.verified is False and "fixed queen of column 0" in (verdict.reason or "")
    assert verify_outcome(Problem(8, {0: 0, 1: 4}), solved(GOOD_8)).verified is True


def test_no_solution_claims() -> None:
    assert verify_outcome(Problem(3), Outcome(Status.NO_SOLUTION), complete=True).verified is True
    assert verify_outcome(Problem(8), Outcome(Status.NO_SOLUTION), complete=True).verified is False
    assert verify_outcome(Problem(3), Outcome(Status.NO_SOLUTION), complete=False).verified is False
    # A completion instance cannot be settled in O(n): left to cross-check, said so.
    verdict = verify_outcome(Problem(8, {0: 0}), Outcome(Status.NO_SOLUTION), complete=True)
    assert verdict.verified is None and "cross-check" in (verdict.reason or "")


def test_non_claims_and_garbage() -> None:
    assert verify_outcome(Problem(8), Outcome(Status.GAVE_UP, [0] * 8)).verified is None
    assert verify_outcome(Problem(8), "solved").verified is False  # type: ignore[arg-type]
    assert verify_outcome(Problem(8), Outcome("won", GOOD_8)).verified is False  # type: ignore[arg-type]
    assert verify_outcome(Problem(8), Outcome(Status.SOLVED, GOOD_8, iterations=-1)).verified is False


def test_counts_against_oeis() -> None:
    assert verify_count(Problem(8), Count(Status.SOLVED, 92)).verified is True
    assert verify_count(Problem(8), Count(Status.SOLVED, 12, unique=True)).verified is True
    wrong = verify_count(Problem(8), Count(Status.SOLVED, 91))
    assert wrong.verified is False and "A000170 gives 92" in (wrong.reason or "")
    assert verify_count(Problem(8), Count(Status.TIMED_OUT, 50)).verified is None
    assert verify_count(Problem(30), Count(Status.SOLVED, 1)).verified is None


def test_oeis_tables() -> None:
    assert len(A000170) == len(A002562) == 28
    assert known_count(26) == 22317699616364044  # CSPLib's table drops a digit here
    assert known_count(27, unique=True) == 29363495934315694
    # Every class has at most 8 members, so the unique count is at least an eighth.
    assert all(8 * u >= a >= u for a, u in zip(A000170[1:], A002562[1:]))


def test_large_board_is_checked_in_numpy() -> None:
    board = construct(200_003)
    assert board is not None and board_error(200_003, board) is None
    broken = board.copy()
    broken[[10, 11]] = broken[[11, 10]]
    assert board_error(200_003, broken) is not None


def brute_force_error_free(n: int, queens: list[int], blocked: set[tuple[int, int]]) -> bool:
    """A solution by the definition, pair by pair: no two queens on a row or diagonal, none on a blocked square."""
    pairs = ((a, b) for a in range(n) for b in range(a + 1, n))
    attacks = any(queens[a] == queens[b] or abs(queens[a] - queens[b]) == b - a for a, b in pairs)
    return not attacks and not any((c, r) in blocked for c, r in enumerate(queens))


@given(st.data())
def test_the_verifier_agrees_with_brute_force_on_blocked_boards(data: st.DataObject) -> None:
    """Both ways of matching blocked squares (a set looked up queen by queen, squares matched as an array)
    give the brute force's answer and the same reason."""
    n = data.draw(st.integers(1, 7))
    queens = data.draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n))
    squares = st.tuples(st.integers(-1, n), st.integers(0, n - 1))
    blocked = data.draw(st.sets(squares, max_size=2 * n))
    as_set, as_list = board_error(n, queens, None, frozenset(blocked)), board_error(n, queens, None, list(blocked))
    assert as_set == as_list
    assert (as_set is None) == brute_force_error_free(n, queens, blocked)
