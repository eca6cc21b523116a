"""Core layer, any process (the judge runs it on the parent side): the verifier that trusts no solver.

It trusts nothing a solver says and imports nothing of the project but the data
contract. A board is checked in O(n) with numpy counts (a 10^7-queen board takes
a fraction of a second; a Python set per line would take seconds). Claims that
cannot be checked on the board itself are checked against known facts:

* no-solution on a plain board is true exactly for n = 2 and 3 (every n >= 4
  has the explicit construction);
* solution counts against OEIS A000170 (all solutions) and A002562 (solutions
  up to rotation and reflection), n = 1..27.

A no-solution claim for a completion or blocked instance is accepted here only
when the instance is contradictory on its face (fixed queens attacking each
other or standing on a blocked square, a whole row or column blocked), or when
the caller knows the published answer (``published``: the CSPLib sets' results,
looked up by ``formats.published``), which it must then agree with. Otherwise
deciding it is NP-complete: it is reported as unchecked here and settled by
``nqueens cross-check`` against at least two complete solvers. The same facts
hold counts to account: a finished count of 0 where solutions are known to
exist is rejected, as is a positive count of an instance known to have none.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from nqueens_plugins.core.problem import SOLVER_STATUSES, Count, Outcome, Problem, Status

# OEIS A000170, n = 1..27 (index 0 is n = 0). Taken from OEIS itself: CSPLib's
# table drops a digit at n = 26.
A000170: tuple[int, ...] = (
    1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184,
    14772512, 95815104, 666090624, 4968057848, 39029188884, 314666222712,
    2691008701644, 24233937684440, 227514171973736, 2207893435808352,
    22317699616364044, 234907967154122528,
)  # fmt: skip

# OEIS A002562, n = 1..27: solutions counted once per class of rotations and reflections.
A002562: tuple[int, ...] = (
    1, 1, 0, 0, 1, 2, 1, 6, 12, 46, 92, 341, 1787, 9233, 45752, 285053, 1846955,
    11977939, 83263591, 621012754, 4878666808, 39333324973, 336376244042,
    3029242658210, 28439272956934, 275986683743434, 2789712466510289,
    29363495934315694,
)  # fmt: skip


def known_count(n: int, unique: bool = False) -> int | None:
    """The published number of solutions for an n x n board, or None beyond the table."""
    table = A002562 if unique else A000170
    return table[n] if 1 <= n < len(table) else None


@dataclass(frozen=True)
class Verdict:
    """``verified`` is True (the claim holds), False (it does not) or None (nothing to check)."""

    verified: bool | None
    reason: str | None = None

    @property
    def rejected(self) -> bool:
        return self.verified is False


ACCEPTED = Verdict(True)


def board_error(
    n: int,
    queens: Sequence[int] | np.ndarray,
    fixed: dict[int, int] | None = None,
    blocked: Iterable[tuple[int, int]] = (),
) -> str | None:
    """Why ``queens`` is not a solution of the n x n board with ``fixed`` queens and
    ``blocked`` (column, row) squares, or None."""
    try:
        board = np.asarray(queens)
    except Exception:  # noqa: BLE001 - garbage in gets a reason, not a traceback
        return "queens is not a sequence of integers"
    if board.ndim != 1:
        return "queens must be a flat sequence, one row per column"
    if len(board) != n:
        return f"expected {n} queens (one per column), got {len(board)}"
    if n == 0:
        return None
    if board.dtype.kind not in "iu":
        if board.dtype.kind == "f" and np.all(np.isfinite(board)) and np.all(board == np.round(board)):
            board = board.astype(np.int64)
        elif board.dtype == object and all(isinstance(r, (int, np.integer)) and not isinstance(r, bool) for r in board):
            if any(not 0 <= int(r) < n for r in board):  # Python ints too large for int64 included
                column = next(c for c, r in enumerate(board) if not 0 <= int(r) < n)
                return f"queen of column {column} is in row {int(board[column])}, off the board"
            board = board.astype(np.int64)
        else:
            return "queens must be integers"
    low, high = int(board.min()), int(board.max())
    if low < 0 or high >= n:
        column = int(np.flatnonzero((board < 0) | (board >= n))[0])
        return f"queen of column {column} is in row {int(board[column])}, off the board"
    for column, row in (fixed or {}).items():
        if int(board[column]) != row:
            return f"fixed queen of column {column} must stay in row {row}, found row {int(board[column])}"
    hit = first_on_blocked(board, blocked)
    if hit is not None:
        column, row = hit
        return f"queen of column {column} stands on the blocked square {column}:{row}"
    seen = np.zeros(2 * n - 1, dtype=bool)  # one byte per line: the only array the size of the board
    for label, sign, offset in (("row", 0, 0), ("diagonal row+column", 1, 0), ("diagonal row-column", -1, n - 1)):
        seen[:] = False
        for start, line in lines(board, sign, offset):
            seen[line] = True
        if np.count_nonzero(seen) < n:  # n queens on fewer than n lines: two share one
            first, second, index = first_shared(board, sign, offset, seen)
            return f"queens of columns {first} and {second} share the {label}={index - offset}"
    return None


def first_on_blocked(board: np.ndarray, blocked: Iterable[tuple[int, int]]) -> tuple[int, int] | None:
    """The leftmost queen standing on a blocked square, or None. A set at least as large as the board
    (a published instance blocks hundreds of squares of a 28 x 28 board) is looked up queen by queen, in
    n lookups; otherwise the squares are sorted and matched as one array, in O(k log k) for k squares."""
    if isinstance(blocked, (set, frozenset)) and len(blocked) >= len(board):
        return next(((c, r) for c, r in enumerate(board.tolist()) if (c, r) in blocked), None)
    squares = np.asarray(sorted(blocked), dtype=np.int64).reshape(-1, 2)
    squares = squares[(squares[:, 0] >= 0) & (squares[:, 0] < len(board))]
    hit = np.flatnonzero(board[squares[:, 0]] == squares[:, 1])
    return (int(squares[hit[0], 0]), int(squares[hit[0], 1])) if len(hit) else None


LINE_BLOCK = 1 << 20  # queens per block: the temporaries stay a few MiB whatever n is


def lines(board: np.ndarray, sign: int, offset: int) -> Iterable[tuple[int, np.ndarray]]:
    """(first column, line index of each queen) block by block: row (sign 0), row+column (1), row-column (-1)."""
    for start in range(0, len(board), LINE_BLOCK):
        line = board[start : start + LINE_BLOCK].astype(np.int64)
        if sign:
            line += sign * np.arange(start, start + len(line), dtype=np.int64) + offset
        yield start, line


def first_shared(board: np.ndarray, sign: int, offset: int, seen: np.ndarray) -> tuple[int, int, int]:
    """The first column whose queen shares a line with an earlier one, that earlier one, and the line."""
    seen[:] = False
    for start, line in lines(board, sign, offset):
        repeats = np.ones(len(line), dtype=bool)
        repeats[np.unique(line, return_index=True)[1]] = False  # a value's later positions in this block
        repeats |= seen[line]  # or a value met in an earlier block
        if repeats.any():
            second = start + int(np.flatnonzero(repeats)[0])
            index = int(line[second - start])
            for first_start, first_line in lines(board, sign, offset):
                hits = np.flatnonzero(first_line == index)
                if len(hits):
                    return first_start + int(hits[0]), second, index
        seen[line] = True
    raise AssertionError("no two queens share a line")  # only called when two do


def verify_outcome(
    problem: Problem, outcome: Outcome, complete: bool = False, published: bool | None = None
) -> Verdict:
    """Check what ``outcome`` claims about ``problem``.

    ``complete`` says whether the solver claims to be complete; only such a
    solver may answer no-solution. ``published`` is the instance's published
    answer (True: it has a solution; False: it has none), if there is one.
    """
    if not isinstance(outcome, Outcome):
        return Verdict(False, f"solver returned {type(outcome).__name__}, not an Outcome")
    try:
        status = Status(outcome.status)
    except ValueError:
        return Verdict(False, f"unknown status {outcome.status!r}")
    if status not in SOLVER_STATUSES:
        return Verdict(False, f"a solver may not answer {status}; that is the host's verdict")
    for field_name in ("iterations", "moves"):
        value = getattr(outcome, field_name)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            return Verdict(False, f"{field_name} must be a count, got {value!r}")
    if status is Status.SOLVED:
        if outcome.queens is None:
            return Verdict(False, "claims solved but gives no queens")
        error = board_error(problem.n, outcome.queens, dict(problem.fixed), problem.blocked)
        return Verdict(False, error) if error else ACCEPTED
    if status is Status.NO_SOLUTION:
        if not complete:
            return Verdict(False, "claims no-solution but the solver is not complete")
        if instance_contradiction(problem) is not None:
            return ACCEPTED  # the instance is impossible on its face
        if problem.is_plain:
            if problem.n in (2, 3):
                return ACCEPTED
            return Verdict(False, f"claims no-solution, but n = {problem.n} has solutions")
        if published is not None:
            return published_verdict(published)
        return Verdict(None, "no-solution for this instance is settled by cross-check")
    return Verdict(None)  # gave-up and timed-out claim nothing


def published_verdict(satisfiable: bool) -> Verdict:
    """A no-solution claim (or a count of 0) held against the instance's published answer."""
    if satisfiable:
        return Verdict(False, "claims no solution, but the published answer is that one exists")
    return Verdict(True, "agrees with the published answer: no solution")


def verify_count(problem: Problem, count: Count, published: bool | None = None) -> Verdict:
    """Check a finished count against OEIS (plain boards with n <= 27), else against what is known:
    every plain board from n = 4 has solutions; ``published`` is the instance's published answer."""
    if not isinstance(count, Count):
        return Verdict(False, f"solver returned {type(count).__name__}, not a Count")
    if isinstance(count.solutions, bool) or not isinstance(count.solutions, (int, np.integer)) or count.solutions < 0:
        return Verdict(False, f"count must be a non-negative integer, got {count.solutions!r}")
    try:
        status = Status(count.status)
    except ValueError:
        return Verdict(False, f"unknown status {count.status!r}")
    if status not in (Status.SOLVED, Status.TIMED_OUT):
        return Verdict(False, f"a count ends solved (finished) or timed-out, not {status}")
    if status is not Status.SOLVED:
        return Verdict(None, "the count did not finish")
    if not problem.is_plain:
        if instance_contradiction(problem) is not None:
            return (
                ACCEPTED
                if int(count.solutions) == 0
                else Verdict(False, f"counted {int(count.solutions):,} solutions of an impossible instance")
            )
        if published is not None and (int(count.solutions) == 0) != (not published):
            return Verdict(
                False,
                f"counted {int(count.solutions):,} solutions, but the published answer is that "
                + ("some exist" if published else "none exists"),
            )
        return Verdict(None, "counts of completion and blocked instances are settled by cross-check")
    expected = known_count(problem.n, count.unique)
    if expected is None and int(count.solutions) == 0 and problem.n >= 4:
        return Verdict(False, f"counted no solutions, but n = {problem.n} has solutions (n >= 4 always has)")
    if expected is None:
        return Verdict(None, f"no published count for n = {problem.n}")
    if int(count.solutions) != expected:
        sequence = "A002562" if count.unique else "A000170"
        return Verdict(
            False, f"counted {int(count.solutions):,}, but {sequence} gives {expected:,} for n = {problem.n}"
        )
    return ACCEPTED


def instance_contradiction(problem: Problem) -> str | None:
    """Why ``problem`` has no solution on its face, or None. Written apart from
    ``Problem.contradiction`` (which solvers use), so the two check each other."""
    n = problem.n
    fixed = dict(problem.fixed)
    attack = fixed_queens_error(n, fixed)
    if attack is not None:
        return attack
    on_blocked = [f"{c}:{r}" for c, r in fixed.items() if (c, r) in problem.blocked]
    if on_blocked:
        return f"fixed queen {on_blocked[0]} stands on a blocked square"
    if problem.blocked:
        open_squares = np.ones((n, n), dtype=bool)  # [column, row]
        squares = np.asarray(sorted(problem.blocked), dtype=np.int64).reshape(-1, 2)
        open_squares[squares[:, 0], squares[:, 1]] = False
        for column, row in fixed.items():
            open_squares[column, :] = False
            open_squares[column, row] = True
        for axis, line in ((1, "column"), (0, "row")):
            empty = np.flatnonzero(~open_squares.any(axis=axis))
            if len(empty):
                return f"every square of {line} {int(empty[0])} is blocked"
    return None


def fixed_queens_error(n: int, fixed: dict[int, int]) -> str | None:
    """Why the pre-placed queens are impossible on their own (off board, attacking), or None."""
    for column, row in fixed.items():
        if not (0 <= column < n and 0 <= row < n):
            return f"fixed queen {column}:{row} is off the {n}x{n} board"
    seen_rows: dict[int, int] = {}
    seen_diagonals: dict[int, int] = {}
    seen_anti: dict[int, int] = {}
    for column, row in sorted(fixed.items()):
        for seen, key in ((seen_rows, row), (seen_diagonals, row + column), (seen_anti, row - column)):
            if key in seen:
                other = seen[key]
                return f"fixed queens {other}:{fixed[other]} and {column}:{row} attack each other"
            seen[key] = column
    return None
