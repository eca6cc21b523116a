"""Built-in engine, worker side: the solutions a quarter or a half turn leaves unchanged, for ``--unique`` by joining.

Joining half boards counts solutions, not classes. Burnside's lemma gives the
classes from the solutions each symmetry of the square leaves unchanged, averaged
over the eight: for n > 1 the four reflections fix no solution (a reflection
in a side's middle would put two queens on one row or column; one in a
diagonal, a queen and its image on one diagonal, or every queen on the main
one), so

    classes = (solutions + fixed by the half turn + 2 * fixed by a quarter turn) / 8

(the two quarter turns fix the same solutions). A solution fixed by a turn is
fixed by the queens of part of its rows: each queen placed brings its images
under the turn (two for the half turn, four for the quarter turn, the centre
square its own), so the search places a half or a quarter of the queens and
checks the images with them. Milliseconds beside the join at n = 16 and about
a second at n = 21 (compiled: ``join_kernel.turn_fixed``).
"""

from __future__ import annotations

HALF_TURN, QUARTER_TURN = 2, 1  # quarter turns per step of an orbit: (r, c) -> (c, n-1-r) once or twice


def fixed_python(n: int, turns: int) -> int:
    """Solutions of n left unchanged by ``turns`` quarter turns (``HALF_TURN`` or ``QUARTER_TURN``), by a
    plain recursion over the lowest row without a queen yet."""
    full = (1 << n) - 1

    def orbit_masks(row: int, column: int, rows: int, columns: int, up: int, down: int) -> tuple[int, ...] | None:
        r, c = row, column
        while True:
            row_bit, column_bit = 1 << r, 1 << c
            up_bit, down_bit = 1 << (r + c), 1 << (r - c + n - 1)
            if rows & row_bit or columns & column_bit or up & up_bit or down & down_bit:
                return None
            rows, columns, up, down = rows | row_bit, columns | column_bit, up | up_bit, down | down_bit
            for _ in range(turns):
                r, c = c, n - 1 - r
            if (r, c) == (row, column):
                return rows, columns, up, down

    def place(rows: int, columns: int, up: int, down: int) -> int:
        if rows == full:
            return 1
        row = ((rows + 1) & ~rows).bit_length() - 1  # the lowest row without a queen
        total = 0
        for column in range(n):
            placed = orbit_masks(row, column, rows, columns, up, down)
            if placed is not None:
                total += place(*placed)
        return total

    return place(0, 0, 0, 0)


def burnside_fixed(n: int, kernel: str) -> tuple[int, int]:
    """(solutions fixed by the half turn, by a quarter turn) of n, with ``kernel`` "numba" or "python"."""
    if kernel == "numba":  # imported only here: numba is loaded only when asked for
        from nqueens_plugins.builtin.engines.join_kernel import turn_fixed

        return int(turn_fixed(n, HALF_TURN)), int(turn_fixed(n, QUARTER_TURN))
    return fixed_python(n, HALF_TURN), fixed_python(n, QUARTER_TURN)


def classes(n: int, solutions: int, half_turn: int, quarter_turn: int) -> int:
    """Classes of the eight symmetries (A002562), by Burnside's lemma (module docstring); n = 1 has one."""
    if n == 1:
        return solutions
    return (solutions + half_turn + 2 * quarter_turn) // 8
