"""Built-in engine, worker side: the compiled subtree counter of ``bitboard`` (numba; imported only when asked).

The same bit-mask search as ``bitboard.count_python``, written as a loop over an
explicit stack so numba can compile it to machine code. Compiled once per
machine and cached on disk (``cache=True``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np

from nqueens_plugins.builtin.engines import symmetry_count


@numba.njit(cache=True, nogil=True)
def _count(n: int, allowed: np.ndarray, rows: int, diagonals: int, anti: int, column: int) -> int:
    full = (np.int64(1) << n) - 1
    if column >= n:
        return 1
    free_stack = np.zeros(n + 1, dtype=np.int64)
    rows_stack = np.zeros(n + 1, dtype=np.int64)
    diagonal_stack = np.zeros(n + 1, dtype=np.int64)
    anti_stack = np.zeros(n + 1, dtype=np.int64)
    rows_stack[column] = rows
    diagonal_stack[column] = diagonals
    anti_stack[column] = anti
    free_stack[column] = allowed[column] & ~(rows | diagonals | anti) & full
    last = n - 1
    total = 0
    depth = column
    while depth >= column:
        free = free_stack[depth]
        if free == 0:
            depth -= 1
            continue
        bit = free & -free
        free_stack[depth] = free ^ bit
        if depth == last:
            total += 1
            continue
        r = rows_stack[depth] | bit
        d = ((diagonal_stack[depth] | bit) << 1) & full
        a = (anti_stack[depth] | bit) >> 1
        depth += 1
        rows_stack[depth] = r
        diagonal_stack[depth] = d
        anti_stack[depth] = a
        free_stack[depth] = allowed[depth] & ~(r | d | a) & full
    return total


def count(n: int, allowed: Sequence[int] | np.ndarray, rows: int, diagonals: int, anti: int, column: int) -> int:
    """``allowed`` may already be an int64 array (then it is not copied again)."""
    return int(_count(n, np.asarray(allowed, dtype=np.int64), rows, diagonals, anti, column))


# --- one count per class of the eight symmetries (symmetry_count.py) -----------

_count_subtrees = numba.njit(cache=True, nogil=True)(symmetry_count.count_subtrees)


def count_classes(n: int, trees: Sequence[symmetry_count.Subtree]) -> tuple[int, int, int]:
    """(c2, c4, c8) over the given subtrees, compiled."""
    table = np.array([tree.row_of(n) for tree in trees], dtype=np.int64).reshape(len(trees), symmetry_count.FIELDS + n)
    board, lefts, downs, rights, frees, rules = (np.zeros(n, dtype=np.int64) for _ in range(6))
    c2, c4, c8 = _count_subtrees(n, table, board, lefts, downs, rights, frees, rules, np.uint64)
    return int(c2), int(c4), int(c8)
