"""Results layer, any process: the features of an instance that a selector learns from, computed by the host from the board alone.

What makes an instance hard for one method and easy for another, as far as the
board shows it before any solver runs: its size, how much of it is taken away
(fixed queens, blocked squares, whole diagonals excluded, as a ratio to n, the
Excluded Diagonals family's parameter), how unevenly (the open squares of the
emptiest line), and what a short propagation pass leaves: every square a fixed
queen attacks removed, then every row or column with one open square left given
its queen, until nothing is forced (the reasoning of bitset-mrv's first steps,
and of unit propagation on the canonical CNF). A pass that empties a line proves
the instance has no solution before any search.

Every feature is a finite float, scaled to be comparable across sizes (a ratio
to n or n^2), so a nearest-neighbour selector can use them as they are. Boards
over ``PROPAGATED_UP_TO`` get the cheap features only (the pass's are 0).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

__all__ = ["FEATURE_NAMES", "PROPAGATED_UP_TO", "features"]

PROPAGATED_UP_TO = 2048  # n: the pass holds an n x n board (4 MiB at this size)

FEATURE_NAMES = (
    "n",
    "fixed / n",
    "blocked / n^2",
    "excluded diagonals / n",
    "open squares of the emptiest line / n",
    "queens forced by propagation / n",
    "open squares left by propagation / n^2",
    "dead end by propagation",
)


def features(n: int, fixed: Mapping[int, int], blocked: Iterable[tuple[int, int]]) -> tuple[float, ...]:
    """The instance's features, in ``FEATURE_NAMES`` order."""
    squares = list(blocked)
    size = float(n)
    base = [size, len(fixed) / size, len(squares) / size**2]
    if n > PROPAGATED_UP_TO:
        return (*base, 0.0, 1.0, len(fixed) / size, 1.0, 0.0)
    open_squares = np.ones((n, n), dtype=bool)  # [column, row]
    for column, row in squares:
        if 0 <= column < n and 0 <= row < n:
            open_squares[column, row] = False
    excluded = excluded_diagonals(open_squares)
    emptiest = min(int(open_squares.sum(axis=0).min()), int(open_squares.sum(axis=1).min()))
    forced, left, dead = propagate(open_squares, fixed)
    return (*base, excluded / size, emptiest / size, forced / size, left / size**2, float(dead))


def excluded_diagonals(open_squares: np.ndarray) -> int:
    """Diagonals (both directions, of two squares or more) with no open square."""
    n = len(open_squares)
    flipped = open_squares[:, ::-1]
    return sum(
        int(not board.diagonal(offset).any()) for board in (open_squares, flipped) for offset in range(-(n - 2), n - 1)
    )


def propagate(open_squares: np.ndarray, fixed: Mapping[int, int]) -> tuple[int, int, bool]:
    """Place the fixed queens, then every queen a line with one open square forces, each removing what it
    attacks; (queens placed, open squares left on the lines still empty, whether a line was emptied)."""
    n = len(open_squares)
    board = open_squares.copy()
    placed_columns = np.zeros(n, dtype=bool)
    placed_rows = np.zeros(n, dtype=bool)
    columns, rows = np.indices((n, n))

    def place(column: int, row: int) -> None:
        attacked = (
            (columns == column) | (rows == row) | (columns - rows == column - row) | (columns + rows == column + row)
        )
        board[attacked] = False
        placed_columns[column] = placed_rows[row] = True

    for column, row in fixed.items():
        if not (0 <= column < n and 0 <= row < n) or not board[column, row]:
            return len(fixed), 0, True  # a fixed queen on a blocked or attacked square
        place(column, row)
    placed = len(fixed)
    while True:
        per_column = np.where(placed_columns, -1, board.sum(axis=1))
        per_row = np.where(placed_rows, -1, board.sum(axis=0))
        if (per_column == 0).any() or (per_row == 0).any():
            return placed, int(board.sum()), True
        singles = np.flatnonzero(per_column == 1)
        if len(singles):
            column = int(singles[0])
            place(column, int(np.flatnonzero(board[column])[0]))
        else:
            singles = np.flatnonzero(per_row == 1)
            if not len(singles):
                return placed, int(board.sum()), False
            row = int(singles[0])
            place(int(np.flatnonzero(board[:, row])[0]), row)
        placed += 1
