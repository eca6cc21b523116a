"""Built-in engine, worker side: the compiled counter of start constellations (numba; imported only when asked).

Counts the same completions as ``constellations.count_completions``, over the
same columns and masks (``constellations.fill_lines``, compiled from that
source), with the masked level-by-level search of ``bitboard_kernel``
(``count_levels``: the columns' gaps jump the pre-placed ones).

Constellations that a rotation fixes (a few in a hundred) have each completion
checked against the rotations, by a plain depth-first search that keeps the
board. Compiled once per machine and cached on disk (``kernel_cache``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nqueens_plugins.builtin.engines import bitboard_kernel, constellations
from nqueens_plugins.builtin.engines.kernel_cache import compiled

_fill_lines = compiled(constellations.fill_lines)
_rotations_fixing = compiled(constellations.rotations_fixing)


@compiled
def _count_by_rotations(
    n: int, i: int, j: int, k: int, l: int, levels: int, lines: np.ndarray, allowed: np.ndarray
) -> tuple[int, int, int]:
    """(completions fixed by no rotation, by the half turn only, by the quarter turn), depth first."""
    last = n - 1
    full = (1 << n) - 1
    queens = np.zeros(n, dtype=np.int64)
    queens[0] = i
    queens[last] = j
    queens[k] = 0
    queens[l] = last
    placed = np.zeros(levels + 1, dtype=np.int64)  # the bit of each searched column's queen
    free_stack = np.zeros(levels + 1, dtype=np.int64)
    rows_stack = np.zeros(levels + 1, dtype=np.int64)
    down_stack = np.zeros(levels + 1, dtype=np.int64)
    up_stack = np.zeros(levels + 1, dtype=np.int64)
    counted = np.zeros(5, dtype=np.int64)  # by how many rotations fix the completion: 1, 2 or 4
    if levels == 0:  # the border queens are the whole board
        counted[_rotations_fixing(n, queens)] += 1
        return counted[1], counted[2], counted[4]
    free_stack[0] = allowed[0]
    depth = 0
    while depth >= 0:
        free = free_stack[depth]
        if free == 0:
            depth -= 1
            continue
        bit = free & -free
        free_stack[depth] = free ^ bit
        placed[depth] = bit
        if depth == levels - 1:
            for level in range(levels):
                row = 0
                rest = placed[level]
                while rest > 1:
                    rest >>= 1
                    row += 1
                queens[lines[level]] = row
            counted[_rotations_fixing(n, queens)] += 1
            continue
        gap = lines[depth + 1] - lines[depth]
        rows = rows_stack[depth] | bit
        down = ((down_stack[depth] | bit) << gap) & full
        up = (up_stack[depth] | bit) >> gap
        depth += 1
        rows_stack[depth] = rows
        down_stack[depth] = down
        up_stack[depth] = up
        free_stack[depth] = allowed[depth] & ~(rows | down | up)
    return counted[1], counted[2], counted[4]


@compiled
def _count_table(n: int, table: np.ndarray) -> tuple[int, int, int]:
    """(c2, c4, c8) over the rows (i, j, k, l, |H|) of ``table``."""
    lines = np.zeros(n, dtype=np.int64)
    allowed = np.zeros(n, dtype=np.int64)
    open_rows = np.zeros(n + 2, dtype=np.uint64)
    gaps = np.zeros(n + 2, dtype=np.uint64)
    scratch = bitboard_kernel.new_scratch(n)
    empty = (np.uint64(0), np.uint64(0), np.uint64(0))
    c2 = 0
    c4 = 0
    c8 = 0
    for index in range(table.shape[0]):
        i, j, k, l, stabilizer = table[index, 0], table[index, 1], table[index, 2], table[index, 3], table[index, 4]
        levels = _fill_lines(n, i, j, k, l, lines, allowed)
        if stabilizer == 1 and levels >= 3:
            for level in range(levels):
                open_rows[level] = np.uint64(allowed[level])
                gaps[level] = np.uint64(lines[level + 1] - lines[level]) if level + 1 < levels else np.uint64(0)
            c8 += bitboard_kernel.count_levels(levels, open_rows, gaps, empty, scratch)
            continue
        plain, half_turn, quarter_turn = _count_by_rotations(n, i, j, k, l, levels, lines, allowed)
        c2 += quarter_turn * 4 // stabilizer
        c4 += half_turn * 2 // stabilizer
        c8 += plain // stabilizer
    return c2, c4, c8


def count(n: int, chosen: Sequence[constellations.Constellation]) -> tuple[int, int, int]:
    """(c2, c4, c8) below the given constellations, compiled."""
    table = np.array(chosen, dtype=np.int64).reshape(len(chosen), 5)
    c2, c4, c8 = _count_table(n, table)
    return int(c2), int(c4), int(c8)
