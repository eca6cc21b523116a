"""Built-in engine, worker side: the compiled counters of ``bitboard`` (numba; imported only when asked).

``count_levels`` is the search both masked counts and start constellations
(``constellation_kernel``) run: columns filled one after another, each with a
mask of the rows it may take, the diagonals shifted by the gap to the next
filled column. It goes level by level rather than depth first: the nodes of a
level are kept in an array and expanded together into the next level's array,
up to ``CAPACITY`` at a time (then the next level is finished before the rest
of this one is taken up, so memory stays bounded and the arrays stay in
cache). Expanding a node writes each child and advances the output by 0 or 1
(whether the child's column and the column after it still have an open row),
so the hot loop has no branch but the one over the node's open rows; the last
two columns are counted in closed form; indices and masks are unsigned, which
spares numba its negative-index checks. Measured on the same pieces
(``benchmarks/counting.py``), this is the fastest of the depth-first and
level-by-level forms tried.

Compiled once per machine and cached on disk, in the user's cache folder (``kernel_cache``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nqueens_plugins.builtin.engines import symmetry_count
from nqueens_plugins.builtin.engines.kernel_cache import compiled

CAPACITY = 1024  # nodes per level expanded at a time: the arrays fit the L2 cache at n = 28


@compiled
def count_levels(
    levels: int,
    allowed: np.ndarray,
    gaps: np.ndarray,
    root: tuple[np.uint64, np.uint64, np.uint64],
    scratch: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> int:
    """Completions of ``levels`` >= 3 columns: ``allowed[s]`` the rows column s may take, ``gaps[s]`` the
    distance to the next column, ``root`` the rows taken and the two diagonals at column 0 (uint64).

    ``scratch`` is ``new_scratch``'s: a node is its queens' rows, the two
    diagonals and its own column's open rows (four flat arrays, level ``s`` in
    slots ``s * CAPACITY ...``; flat arrays index fastest), then each level's
    size and read position.
    """
    taken, down, up, free_rows, counts, read = scratch
    zero = np.uint64(0)
    one = np.uint64(1)
    capacity = np.uint64(CAPACITY)
    closing = np.uint64(levels - 3)  # nodes here have the last two columns counted in closed form
    found = zero
    taken[0], down[0], up[0] = root
    free_rows[0] = allowed[0] & ~(root[0] | root[1] | root[2])
    counts[0] = one  # level 0 holds the root
    read[0] = zero
    level = zero
    while True:
        start = read[level]
        end = counts[level]
        if start == end:
            if level == zero:
                break
            level -= one
            continue
        child = level + one
        gap = gaps[level]
        open_child = allowed[child]
        gap_after = gaps[child]
        open_after = allowed[child + one]
        reach = gap + gap_after  # from this column to the one after the child's
        offset = level * capacity
        if level == closing:
            for slot in range(offset + start, offset + end):
                rows = taken[slot]
                left = down[slot]
                right = up[slot]
                free = free_rows[slot]
                child_open = open_child & ~(rows | (left << gap) | (right >> gap))
                after_open = open_after & ~(rows | (left << reach) | (right >> reach))
                while free:
                    bit = free & (zero - free)
                    free ^= bit
                    here = child_open & ~(bit | (bit << gap) | (bit >> gap))
                    there = after_open & ~(bit | (bit << reach) | (bit >> reach))
                    # Two rows are left for the last two columns: each open row of the next column
                    # completes a solution if the last column's row is open and no diagonal joins them.
                    first = here & (zero - here)
                    second = here ^ first
                    found += np.uint64(
                        (there & ~(first | (first << gap_after) | (first >> gap_after)) != zero) & (first != zero)
                    )
                    found += np.uint64(
                        (there & ~(second | (second << gap_after) | (second >> gap_after)) != zero) & (second != zero)
                    )
            read[level] = end
            continue
        output = child * capacity
        # a node here has at most (levels - level) children: stop before the child level could overflow
        limit = output + capacity - (np.uint64(levels) - level)
        slot = offset + start
        last_slot = offset + end
        while slot < last_slot and output <= limit:
            rows = taken[slot]
            left = down[slot]
            right = up[slot]
            free = free_rows[slot]
            child_open = open_child & ~(rows | (left << gap) | (right >> gap))
            after_open = open_after & ~(rows | (left << reach) | (right >> reach))
            while free:
                bit = free & (zero - free)
                free ^= bit
                opened = child_open & ~(bit | (bit << gap) | (bit >> gap))
                ahead = after_open & ~(bit | (bit << reach) | (bit >> reach))
                taken[output] = rows | bit
                down[output] = (left | bit) << gap
                up[output] = (right | bit) >> gap
                free_rows[output] = opened
                output += np.uint64((opened != zero) & (ahead != zero))
            slot += one
        read[level] = slot - offset
        counts[child] = output - child * capacity
        read[child] = zero
        level = child
    return int(found)


@compiled
def new_scratch(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The working arrays of ``count_levels`` for up to n levels (left unset: only what is written is read)."""
    slots = (n + 1) * CAPACITY
    return (
        np.empty(slots, dtype=np.uint64),
        np.empty(slots, dtype=np.uint64),
        np.empty(slots, dtype=np.uint64),
        np.empty(slots, dtype=np.uint64),
        np.zeros(n + 1, dtype=np.uint64),
        np.zeros(n + 1, dtype=np.uint64),
    )


@compiled
def _count_few(n: int, allowed: np.ndarray, rows: int, diagonals: int, anti: int, column: int) -> int:
    """Completions from ``column`` when fewer than three columns are left: plain depth first."""
    if column >= n:
        return 1
    full = (1 << n) - 1
    total = 0
    first = allowed[column] & ~(rows | diagonals | anti) & full
    while first:
        bit = first & -first
        first ^= bit
        if column == n - 1:
            total += 1
            continue
        taken = rows | bit
        down = ((diagonals | bit) << 1) & full
        up = (anti | bit) >> 1
        second = allowed[column + 1] & ~(taken | down | up) & full
        if column + 1 == n - 1:
            total += second != 0
            continue
        while second:
            other = second & -second
            second ^= other
            third = allowed[column + 2] & ~(taken | other | ((down | other) << 1) | ((up | other) >> 1)) & full
            total += third != 0
    return total


@compiled
def _count_tasks(n: int, allowed: np.ndarray, table: np.ndarray) -> int:
    """Sum of weight x completions over the rows (rows, diagonals, anti, column, weight) of ``table``."""
    scratch = new_scratch(n)
    open_rows = np.zeros(n + 2, dtype=np.uint64)  # from the task's column on
    gaps = np.ones(n + 2, dtype=np.uint64)
    total = 0
    for index in range(table.shape[0]):
        rows, diagonals, anti, column, weight = (
            table[index, 0],
            table[index, 1],
            table[index, 2],
            table[index, 3],
            table[index, 4],
        )
        if n - column >= 3:
            for level in range(n - column):
                open_rows[level] = np.uint64(allowed[column + level])
            root = (np.uint64(rows), np.uint64(diagonals), np.uint64(anti))
            found = count_levels(n - column, open_rows, gaps, root, scratch)
        else:
            found = _count_few(n, allowed, rows, diagonals, anti, column)
        total += weight * found
    return total


def count_tasks(n: int, allowed: Sequence[int], tasks: Sequence[tuple[int, ...]]) -> int:
    """Sum of weight x completions over ``bitboard.split``'s tasks (rows, diagonals, anti, column, weight, ...),
    in one compiled call."""
    if not tasks:
        return 0
    table = np.array([task[:5] for task in tasks], dtype=np.int64).reshape(len(tasks), 5)
    return int(_count_tasks(n, np.asarray(allowed, dtype=np.int64), table))


def count(n: int, allowed: Sequence[int] | np.ndarray, rows: int, diagonals: int, anti: int, column: int) -> int:
    """Completions of one partial board (``allowed`` may already be an int64 array)."""
    table = np.array([[rows, diagonals, anti, column, 1]], dtype=np.int64)
    return int(_count_tasks(n, np.asarray(allowed, dtype=np.int64), table))


# --- one count per class of the eight symmetries (symmetry_count.py) -----------

_count_subtrees = compiled(symmetry_count.count_subtrees)


def count_classes(n: int, trees: Sequence[symmetry_count.Subtree]) -> tuple[int, int, int]:
    """(c2, c4, c8) over the given subtrees, compiled."""
    table = np.array([tree.row_of(n) for tree in trees], dtype=np.int64).reshape(len(trees), symmetry_count.FIELDS + n)
    board, lefts, downs, rights, frees, rules = (np.zeros(n, dtype=np.int64) for _ in range(6))
    c2, c4, c8 = _count_subtrees(n, table, board, lefts, downs, rights, frees, rules, np.uint64)
    return int(c2), int(c4), int(c8)
