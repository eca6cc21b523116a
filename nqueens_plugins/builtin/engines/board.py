"""Built-in engine, worker side: incremental conflict counts shared by the local-search methods.

A board keeps one queen per column (``queens[c] = r``) and three count arrays:
queens per row, per diagonal (index ``r + c``) and per anti-diagonal (index
``r - c + n - 1``). Moving a queen updates six counts, so the number of queens
attacking any square is three look-ups: scoring a neighbour is O(1), never a
re-score of the board. The cost the methods minimise is the number of attacking
pairs, sum over lines of k(k-1)/2, and it is kept up to date on every move.

For vectorised scoring, the attack counts of every square of column ``c`` are
three contiguous slices: ``rows + diagonals[c:c+n] + anti[n-1-c:2n-1-c]``.

Blocked squares (Blocked n-Queens, excluded diagonals) are never a queen's
place: random boards draw from each column's open rows, and every score of a
blocked square carries ``FORBIDDEN``, so no method ever chooses one.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from nqueens_plugins.core.problem import Problem, Trace

FORBIDDEN = 1 << 40  # added to the attack count of a blocked square: never the least attacked


def open_rows_of(problem: Problem) -> dict[int, np.ndarray]:
    """For each free column that has blocked squares, the rows still open in it."""
    blocked_in: dict[int, list[int]] = {}
    for column, row in problem.blocked:
        if column not in problem.fixed:
            blocked_in.setdefault(column, []).append(row)
    rows = np.arange(problem.n)
    return {column: np.setdiff1d(rows, blocked) for column, blocked in blocked_in.items()}


def blocked_penalties(n: int, open_rows: Mapping[int, np.ndarray]) -> dict[int, np.ndarray]:
    """For each column with blocked squares: FORBIDDEN on its blocked rows, 0 on its open ones."""
    penalties = {}
    for column, rows in open_rows.items():
        penalty = np.full(n, FORBIDDEN, dtype=np.int64)
        penalty[rows] = 0
        penalties[column] = penalty
    return penalties


def place_given(
    queens: np.ndarray, problem: Problem, generator: np.random.Generator, open_rows: Mapping[int, np.ndarray] | None
) -> Mapping[int, np.ndarray]:
    """Finish a random board: columns with blocked squares redraw among their open rows, fixed
    queens stand where given. Returns ``open_rows`` (computed here if None)."""
    if open_rows is None:
        open_rows = open_rows_of(problem) if problem.blocked else {}
    for column, rows in open_rows.items():
        queens[column] = rows[generator.integers(len(rows))]
    for column, row in problem.fixed.items():
        queens[column] = row
    return open_rows


def line_counts(n: int, placed: Iterable[tuple[int, int]]) -> tuple[list[int], list[int], list[int]]:
    """Queens per row, per diagonal (``r + c``) and per anti-diagonal (``r - c + n - 1``).

    ``placed`` yields (column, row) pairs. Plain lists, for the methods whose
    inner loop is pure Python (list indexing is faster there than numpy's).
    """
    rows = [0] * n
    diagonals = [0] * (2 * n - 1)
    anti = [0] * (2 * n - 1)
    for column, row in placed:
        rows[row] += 1
        diagonals[row + column] += 1
        anti[row - column + n - 1] += 1
    return rows, diagonals, anti


def line_count_arrays(queens: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``line_counts`` of a full board (queens[c] = r) as int64 numpy arrays."""
    n = len(queens)
    columns = np.arange(n)
    rows = np.bincount(queens, minlength=n).astype(np.int64)
    diagonals = np.bincount(queens + columns, minlength=2 * n - 1).astype(np.int64)
    anti = np.bincount(queens - columns + n - 1, minlength=2 * n - 1).astype(np.int64)
    return rows, diagonals, anti


def attacking_pairs(*lines: Sequence[int] | np.ndarray) -> int:
    """Attacking pairs on families of lines holding k queens each: the sum of k(k-1)/2."""
    return sum(pairs(np.asarray(counts)) for counts in lines)


def numpy_rng(rng: random.Random) -> np.random.Generator:
    """A numpy generator drawn from the host's rng, so runs stay reproducible."""
    return np.random.default_rng(rng.getrandbits(64))


class ConflictBoard:
    """A full board with incremental row and diagonal counts (numpy arrays)."""

    def __init__(
        self,
        n: int,
        queens: np.ndarray,
        fixed: Mapping[int, int],
        open_rows: Mapping[int, np.ndarray] | None = None,
        trace: Trace | None = None,
    ) -> None:
        self.n = n
        self.queens = np.asarray(queens, dtype=np.int64).copy()
        self.trace = trace  # told of this board and of every move (None: not traced)
        if trace is not None:
            trace.board(self.queens)
        self.fixed = dict(fixed)
        self.open_rows = dict(open_rows or {})  # only the free columns that have blocked squares
        self.forbidden = blocked_penalties(n, self.open_rows)
        self.free_columns = np.array([c for c in range(n) if c not in self.fixed], dtype=np.int64)
        self.rows, self.diagonals, self.anti = line_count_arrays(self.queens)
        self.cost = attacking_pairs(self.rows, self.diagonals, self.anti)
        columns = np.arange(n)
        # Each queen's diagonal and anti-diagonal index, kept so that the queens on a
        # line can be found with one vectorised comparison (see attackers()).
        self.queen_diagonals = self.queens + columns
        self.queen_anti = self.queens - columns + n - 1

    @classmethod
    def random(
        cls,
        problem: Problem,
        generator: np.random.Generator,
        open_rows: Mapping[int, np.ndarray] | None = None,
        trace: Trace | None = None,
    ) -> ConflictBoard:
        """Each free column gets a uniformly random open row; fixed queens stand where given.

        ``open_rows`` (from ``open_rows_of(problem)``) can be passed in by a
        caller that restarts often, so it is computed once per run.
        """
        queens = generator.integers(0, problem.n, size=problem.n)
        open_rows = place_given(queens, problem, generator, open_rows)
        return cls(problem.n, queens, problem.fixed, open_rows, trace)

    def attacks(self, column: int, row: int) -> int:
        """Queens other than column's own that attack square (column, row)."""
        n = self.n
        here = int(self.rows[row] + self.diagonals[row + column] + self.anti[row - column + n - 1])
        return here - 3 if self.queens[column] == row else here

    def column_attacks(self, column: int) -> np.ndarray:
        """Attacks on every square of ``column`` by the other queens (vector of n)."""
        n = self.n
        counts = self.rows + self.diagonals[column : column + n] + self.anti[n - 1 - column : 2 * n - 1 - column]
        counts[self.queens[column]] -= 3
        penalty = self.forbidden.get(column)
        if penalty is not None:
            counts += penalty
        return counts

    def move(self, column: int, row: int) -> None:
        """Move column's queen to ``row``, updating the six counts and the cost."""
        n = self.n
        old = int(self.queens[column])
        if old == row:
            return
        # Cost change: leaving old lines loses (k-1) pairs each, joining new lines adds k each.
        self.cost -= int(self.rows[old] + self.diagonals[old + column] + self.anti[old - column + n - 1]) - 3
        self.rows[old] -= 1
        self.diagonals[old + column] -= 1
        self.anti[old - column + n - 1] -= 1
        self.cost += int(self.rows[row] + self.diagonals[row + column] + self.anti[row - column + n - 1])
        self.rows[row] += 1
        self.diagonals[row + column] += 1
        self.anti[row - column + n - 1] += 1
        self.queens[column] = row
        self.queen_diagonals[column] = row + column
        self.queen_anti[column] = row - column + n - 1
        if self.trace is not None:
            self.trace.move(column, row)

    def attackers(self, column: int) -> np.ndarray:
        """Columns of the queens that attack column's queen (O(n) vectorised, lines with company only)."""
        n, row = self.n, int(self.queens[column])
        found = []
        if self.rows[row] > 1:
            found.append(np.flatnonzero(self.queens == row))
        if self.diagonals[row + column] > 1:
            found.append(np.flatnonzero(self.queen_diagonals == row + column))
        if self.anti[row - column + n - 1] > 1:
            found.append(np.flatnonzero(self.queen_anti == row - column + n - 1))
        if not found:
            return np.empty(0, dtype=np.int64)
        columns = np.concatenate(found)
        return columns[columns != column]

    def conflicted_columns(self) -> np.ndarray:
        """Free columns whose queen is attacked by another queen."""
        n, q, free = self.n, self.queens, self.free_columns
        rows = q[free]
        attacked = self.rows[rows] + self.diagonals[rows + free] + self.anti[rows - free + n - 1] - 3
        return free[attacked > 0]


def pairs(counts: np.ndarray) -> int:
    """Attacking pairs on a family of lines with ``counts`` queens each."""
    return int((counts * (counts - 1) // 2).sum())
