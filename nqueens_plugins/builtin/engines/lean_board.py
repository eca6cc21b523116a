"""Built-in engine, worker side: the min-conflicts board, ``ConflictBoard``'s counts in about 9 bytes a queen.

Min-conflicts is the local search that reaches a million queens and more (with
``init=greedy``), so its board is kept small: int32 queens and one byte per
line (queens per row, per diagonal ``r + c`` and per anti-diagonal
``r - c + n - 1``), 4 + 1 + 2 + 2 bytes a queen, and no temporary the size of
the board wider than two bytes an entry. Lines are scanned in blocks of
``BLOCK`` columns where a vectorised comparison needs indices.

A one-byte counter never wraps: when a move would put a 256th queen on a line
the counters are widened to int32 first (no run ever seen here has come near
it; the guard is there so that none can count wrong). The hill climbers keep
``ConflictBoard``: they score whole columns of moves with int64 arithmetic at
small n, where its cached index vectors pay.

The arithmetic is the same as ``ConflictBoard``'s, draw for draw: a run of
min-conflicts on this board is the run it was on that one.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from nqueens_plugins.builtin.engines.board import blocked_penalties, place_given
from nqueens_plugins.core.problem import Problem, Trace

BLOCK = 1 << 18  # columns per block where a line is scanned with index arithmetic (temporaries of a few MiB)
NARROW = np.uint8
NARROW_LIMIT = 255


class LeanBoard:
    """A full board (queens[c] = r, int32) with one-byte line counts, updated on every move."""

    def __init__(
        self,
        n: int,
        queens: np.ndarray,
        fixed: Mapping[int, int],
        open_rows: Mapping[int, np.ndarray] | None = None,
        trace: Trace | None = None,
    ) -> None:
        self.n = n
        self.queens = queens if queens.dtype == np.int32 and queens.flags.writeable else queens.astype(np.int32)
        self.trace = trace  # told of this board and of every move (None: not traced)
        if trace is not None:
            trace.board(self.queens)
        self.fixed_columns = np.array(sorted(fixed), dtype=np.int64)
        self.free_count = n - len(fixed)
        self.forbidden = blocked_penalties(n, open_rows or {})
        self.rows, self.diagonals, self.anti = self.count_lines(NARROW)
        self.may_wrap = n > NARROW_LIMIT  # a line holds at most n queens

    @classmethod
    def random(
        cls,
        problem: Problem,
        generator: np.random.Generator,
        open_rows: Mapping[int, np.ndarray] | None = None,
        trace: Trace | None = None,
    ) -> LeanBoard:
        """Each free column gets a uniformly random open row; fixed queens stand where given.

        The rows are drawn in blocks (int64 draws, as ``ConflictBoard.random`` makes them in
        one call: the same numbers) and stored as int32.
        """
        n = problem.n
        queens = np.empty(n, dtype=np.int32)
        for start in range(0, n, BLOCK):
            queens[start : start + BLOCK] = generator.integers(0, n, size=min(BLOCK, n - start))
        open_rows = place_given(queens, problem, generator, open_rows)
        return cls(n, queens, problem.fixed, open_rows, trace)

    def count_lines(self, dtype: type) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Queens per row, diagonal and anti-diagonal, counted in blocks.

        A one-byte count past 255 wraps, and then its family's total falls short of n:
        the lines are then counted again in int32.
        """
        n = self.n
        rows: np.ndarray
        diagonals: np.ndarray
        anti: np.ndarray
        if n <= BLOCK:  # one block: bincount is the fastest count, and its int64 temporaries are small
            columns = np.arange(n)
            rows = np.bincount(self.queens, minlength=n).astype(dtype)
            diagonals = np.bincount(self.queens + columns, minlength=2 * n - 1).astype(dtype)
            anti = np.bincount(self.queens - columns + (n - 1), minlength=2 * n - 1).astype(dtype)
        else:
            rows = np.zeros(n, dtype=dtype)
            diagonals = np.zeros(2 * n - 1, dtype=dtype)
            anti = np.zeros(2 * n - 1, dtype=dtype)
            for start in range(0, n, BLOCK):
                block = self.queens[start : start + BLOCK].astype(np.int64)
                columns = np.arange(start, start + len(block), dtype=np.int64)
                np.add.at(rows, block, 1)
                np.add.at(diagonals, block + columns, 1)
                np.add.at(anti, block - columns + (n - 1), 1)
        if dtype is NARROW:
            for counts in (rows, diagonals, anti):
                if int(counts.sum(dtype=np.int64)) != n:
                    return self.count_lines(np.int32)
        return rows, diagonals, anti

    def attacks(self, column: int, row: int) -> int:
        """Queens other than column's own that attack square (column, row)."""
        n = self.n
        here = int(self.rows[row]) + int(self.diagonals[row + column]) + int(self.anti[row - column + n - 1])
        return here - 3 if self.queens[column] == row else here

    def best_rows(self, column: int) -> tuple[int, np.ndarray]:
        """The fewest attacks on a square of ``column`` by the other queens, and the rows that have
        them (ascending), scanned in blocks of rows. Blocked squares carry ``FORBIDDEN``."""
        n = self.n
        own = int(self.queens[column])
        penalty = self.forbidden.get(column)
        if n <= BLOCK:  # the usual case, without the blocks' bookkeeping
            counts = self.column_counts(column, 0, n, penalty)
            counts[own] -= 3
            fewest = counts.min()
            return int(fewest), (counts == fewest).nonzero()[0]
        least_so_far = None
        ties: list[np.ndarray] = []
        for start in range(0, n, BLOCK):
            stop = min(n, start + BLOCK)
            counts = self.column_counts(column, start, stop, penalty)
            if start <= own < stop:
                counts[own - start] -= 3
            least = int(counts.min())
            if least_so_far is None or least < least_so_far:
                least_so_far, ties = least, []
            if least == least_so_far:
                ties.append(np.flatnonzero(counts == least) + start)
        assert least_so_far is not None
        return least_so_far, np.concatenate(ties)

    def column_counts(self, column: int, start: int, stop: int, penalty: np.ndarray | None) -> np.ndarray:
        """Queens on the lines through the squares of rows [start, stop) of ``column``, own queen
        included; int16 while the counts are bytes, int64 with the blocked squares' penalty."""
        n = self.n
        wide = np.int16 if penalty is None and self.rows.dtype == NARROW else np.int64
        counts = np.add(self.rows[start:stop], self.diagonals[column + start : column + stop], dtype=wide)
        counts += self.anti[n - 1 - column + start : n - 1 - column + stop]
        if penalty is not None:
            counts += penalty[start:stop]
        return counts

    def move(self, column: int, row: int) -> None:
        """Move column's queen to ``row``, updating the six counts."""
        n = self.n
        old = int(self.queens[column])
        if old == row:
            return
        d, a = row + column, row - column + n - 1
        if self.may_wrap and max(self.rows[row], self.diagonals[d], self.anti[a]) >= NARROW_LIMIT:
            self.rows, self.diagonals, self.anti = (
                counts.astype(np.int32) for counts in (self.rows, self.diagonals, self.anti)
            )
            self.may_wrap = False
        self.rows[old] -= 1
        self.diagonals[old + column] -= 1
        self.anti[old - column + n - 1] -= 1
        self.rows[row] += 1
        self.diagonals[d] += 1
        self.anti[a] += 1
        self.queens[column] = row
        if self.trace is not None:
            self.trace.move(column, row)

    def attackers(self, column: int) -> np.ndarray:
        """Columns of the queens that attack column's queen (O(n), lines with company only)."""
        n, row = self.n, int(self.queens[column])
        found = []
        if self.rows[row] > 1:
            found.append(self.on_line(0, n, row, 0))
        diagonal = row + column  # queens[c] == diagonal - c, for c in the diagonal's columns
        if self.diagonals[diagonal] > 1:
            found.append(self.on_line(max(0, diagonal - n + 1), min(n - 1, diagonal) + 1, diagonal, -1))
        offset = row - column  # queens[c] == offset + c
        if self.anti[offset + n - 1] > 1:
            found.append(self.on_line(max(0, -offset), min(n - 1, n - 1 - offset) + 1, offset, 1))
        if not found:
            return np.empty(0, dtype=np.int64)
        columns = np.concatenate(found)
        return columns[columns != column]

    def on_line(self, start: int, stop: int, base: int, slope: int) -> np.ndarray:
        """Columns c in [start, stop) with queens[c] == base + slope * c, scanned in blocks."""
        found = []
        for low in range(start, stop, BLOCK):
            high = min(stop, low + BLOCK)
            line = base if slope == 0 else np.arange(base + slope * low, base + slope * high, slope, dtype=np.int64)
            found.append((self.queens[low:high] == line).nonzero()[0] + low)
        return found[0] if len(found) == 1 else np.concatenate(found)

    def conflicted_columns(self) -> np.ndarray:
        """Free columns whose queen is attacked by another queen."""
        n = self.n
        found = []
        for start in range(0, n, BLOCK):
            rows = self.queens[start : start + BLOCK].astype(np.int64)
            columns = np.arange(start, start + len(rows), dtype=np.int64)
            attacked = (
                self.rows[rows].astype(np.int64) + self.diagonals[rows + columns] + self.anti[rows - columns + (n - 1)]
            )
            found.append(columns[attacked > 3])
        conflicted = np.concatenate(found)
        if len(self.fixed_columns):
            conflicted = conflicted[~np.isin(conflicted, self.fixed_columns)]
        return conflicted
