"""Built-in engine, worker side: counting by joining half boards, in pure Python (no numba needed).

The same plan as the compiled counter (``join_plan``: the same tasks, quarters
and packing) and the same bit-slicing, with Python's integers as the words: the
left half boards of a task become one integer per diagonal bit (bit j set when
board j takes it), so one right half board is tested against all of them by
ORing the integers of its diagonals (tabled 8 diagonals at a time) and counting
the bits (``int.bit_count``): a few C-speed operations instead of a Python loop
over the pairs. Slower than
the compiled counter by two orders of magnitude, but it needs nothing installed
and checks the compiled counter at small n.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from nqueens_plugins.builtin.engines.join_plan import Geometry, Task, forbidden, weight_of

# rows taken -> columns taken -> [(up, down) diagonals] of the placements on them
Quarter = dict[int, dict[int, list[tuple[int, int]]]]


def quarter(n: int, first_row: int, rows: int, first_column: int, columns: int) -> Quarter:
    """Every placement of non-attacking queens in a quarter (any number of them, at most one per row and
    column), by the rows and columns it takes (bits relative to the quarter), with its diagonals."""
    found: Quarter = {}

    def place(column: int, taken: int, used: int, up: int, down: int) -> None:
        if column == columns:
            found.setdefault(taken, {}).setdefault(used, []).append((up, down))
            return
        place(column + 1, taken, used, up, down)  # no queen in this column
        board_column = first_column + column
        for row in range(rows):
            if taken >> row & 1:
                continue
            board_row = first_row + row
            u, d = 1 << (board_row + board_column), 1 << (board_row - board_column + n - 1)
            if not (up & u or down & d):
                place(column + 1, taken | 1 << row, used | 1 << column, up | u, down | d)

    place(0, 0, 0, 0, 0)
    return found


def quarters(n: int) -> list[Quarter]:
    """The top left, bottom left, top right and bottom right quarters' placements."""
    return [quarter(n, *where) for where in Geometry(n).quadrants()]


def half_boards(
    geometry: Geometry, top: Quarter, bottom: Quarter, rows: int, avoid_up: int, avoid_down: int
) -> Iterator[int]:
    """The packed diagonals of every half board on ``rows``: a top and a bottom quarter board on
    complementary columns that attack no diagonal of each other's, nor one of ``avoid_*``."""
    every_column = (1 << geometry.half) - 1
    lower = bottom.get(rows >> geometry.top, {})
    for columns, upper in top.get(rows & ((1 << geometry.top) - 1), {}).items():
        below = lower.get(every_column ^ columns, ())
        for up, down in upper:
            if up & avoid_up or down & avoid_down:
                continue
            for low_up, low_down in below:
                if (up | avoid_up) & low_up or (down | avoid_down) & low_down:
                    continue
                yield geometry.compact(up | low_up, down | low_down)


CHUNK = 8  # diagonal bits looked up at once: a table of 256 ORs per chunk, one lookup per 8 bits of a query


def sliced(boards: list[int], bits: int) -> list[int]:
    """The boards bit-sliced: integer b has bit j set when board j takes packed diagonal b."""
    slices = [0] * bits
    for index, packed in enumerate(boards):
        while packed:
            lowest = packed & -packed
            slices[lowest.bit_length() - 1] |= 1 << index
            packed ^= lowest
    return slices


def tables_of(slices: list[int]) -> list[list[int]]:
    """For each ``CHUNK`` diagonal bits, the ORs of their slices over every subset of them."""
    tables = []
    for first in range(0, len(slices), CHUNK):
        table = [0] * (1 << CHUNK)
        for entry in range(1, 1 << CHUNK):
            lowest = entry & -entry
            position = first + lowest.bit_length() - 1
            table[entry] = table[entry ^ lowest] | (slices[position] if position < len(slices) else 0)
        tables.append(table)
    return tables


def count_task(n: int, tables: list[Quarter], task: Task) -> int:
    """The solutions ``task`` stands for, unweighted: compatible pairs of half boards (with the right
    half's weights of an even n)."""
    geometry = Geometry(n)
    every_row = (1 << n) - 1
    avoid_up, avoid_down = forbidden(n, task.middle)
    right_rows = every_row & ~task.rows & ~(1 << task.middle if task.middle >= 0 else 0)
    main = geometry.main_bits() if task.middle < 0 else 0
    left = [p for p in half_boards(geometry, tables[0], tables[1], task.rows, avoid_up, avoid_down) if not p & main]
    if not left:
        return 0
    chunks = list(enumerate(tables_of(sliced(left, geometry.bits))))
    mask = (1 << CHUNK) - 1
    total = 0
    for packed in half_boards(geometry, tables[2], tables[3], right_rows, avoid_up, avoid_down):
        clashes = 0
        for index, table in chunks:
            clashes |= table[(packed >> (index * CHUNK)) & mask]
        found = len(left) - clashes.bit_count()
        total += found * weight_of(geometry, packed) if main else found
    return total


def count(n: int, chosen: Iterable[Task], tables: list[Quarter] | None = None) -> int:
    """The solutions the tasks stand for, weighted."""
    if n == 1:
        return sum(task.weight for task in chosen)
    tables = tables if tables is not None else quarters(n)
    return sum(task.weight * count_task(n, tables, task) for task in chosen)
