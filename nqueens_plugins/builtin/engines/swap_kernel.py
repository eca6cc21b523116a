"""Built-in engine, worker side: the inner loops of ``swap-search``, one source for two engines.

Written in the subset of Python that numba compiles: integer arithmetic,
indexing, ``np.random``. With numba installed (``pip install
'nqueens-plugins[fast]'``) ``COMPILED`` holds machine-code versions (cached on
disk after the first compilation); without it, or with ``kernel=python``, the
very same functions run as plain Python on lists. Imported only when
swap-search runs, so that listing plugins never pays for numba.

Board state: ``queens`` is a permutation (``queens[c]`` = row), so rows never
clash; ``diagonals[r + c]`` and ``anti[r - c + n - 1]`` count queens per
diagonal, and ``collisions`` = sum over diagonals of k(k-1)/2.

Lean: compiled, ``queens`` is int32 and the diagonal counters are int8 (one
byte per diagonal, 8 bytes per queen in all; signed, so that sums and
differences of counters stay signed in compiled code). A counter never wraps:
``place_counters`` gives up (returns -1, and the solver restarts) rather than
count a 127th queen on a diagonal, and ``SAFE_COLLISIONS`` bounds what the final
search may start from (below it no diagonal holds 126 queens, and a swap adds
at most two to one diagonal before it is kept or undone; kept swaps only lower
the total).
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from numba import njit
    from numba.extending import register_jitable
except ImportError:  # the pure-Python engine needs neither
    njit = None  # type: ignore[assignment]

    def register_jitable(function: Any) -> Any:  # type: ignore[no-redef]
        return function


COUNTER_LIMIT = 127  # int8
SAFE_COLLISIONS = 126 * 125 // 2  # collisions of 126 queens on one diagonal
DRAWS_AHEAD = 16  # random numbers drawn before they are used (a power of two), so that their squares can be prefetched
ROWS_AHEAD = 8  # the initial search prefetches the row drawn this many draws ahead
BITS_AHEAD = 4  # and the diagonal bits of the row drawn this many draws ahead


def prefetch(array: Any, index: int) -> None:
    """Ask the processor to start loading ``array[index]`` into its cache; compiled, one instruction
    that never waits (``llvm.prefetch``); in plain Python, nothing."""


if njit is not None:
    from nqueens_plugins.builtin.engines.prefetch import compiled_prefetch

    compiled_prefetch(prefetch)


@register_jitable
def shift(diagonals: Any, anti: Any, n: int, column: int, row: int, step: int) -> int:
    """Add (step = 1) or remove (step = -1) a queen's diagonal counts; returns the change in collisions."""
    d = row + column
    a = row - column + n - 1
    if step > 0:
        change = int(diagonals[d]) + int(anti[a])  # pairs formed with the queens already there
        diagonals[d] += 1
        anti[a] += 1
    else:
        diagonals[d] -= 1
        anti[a] -= 1
        change = -(int(diagonals[d]) + int(anti[a]))  # pairs lost with the queens that remain
    return change


def seed_generator(seed: int) -> None:
    np.random.seed(seed)


def initial_search(queens: Any, taken: Any, taken_anti: Any, n: int, tail: int, tries: int, ahead: Any) -> int:
    """Sosič and Gu's initial search: queens 0 .. n-tail-1 in turn take a random row among
    those still free on which no placed queen attacks them, drawing up to ``tries`` times (a
    queen that finds none keeps the last free row drawn and is left to the final search);
    the last ``tail`` queens take the free rows left over, in random order.

    ``queens`` must hold a permutation on entry. Which diagonals hold a queen is
    kept in ``taken`` and ``taken_anti``, bit sets of 64 diagonals a word (zeros on
    entry): an eighth of a byte a diagonal, so that they stay in the processor's
    cache where byte counters would not; ``place_counters`` counts afterwards.
    Returns how many queens were placed conflict-free.

    On a large board each draw is a few cache misses in a row (the row drawn, then
    its two diagonal bits), so the draws are made ``DRAWS_AHEAD`` early into the
    ring ``ahead`` and the squares they will probably touch are prefetched: the
    square of a draw k ahead is guessed as the first draw of column + k, which is
    never more than k places off. The numbers, and so the board, are those drawn
    one at a time: draws are made in the same order, and never more than the
    columns left will use (each uses at least one).
    """
    wrap = DRAWS_AHEAD - 1
    drawn = 0
    used = 0
    while drawn < DRAWS_AHEAD and drawn < n:
        ahead[drawn] = np.random.random()
        drawn += 1
    placed = 0
    for column in range(n):
        greedy = column < n - tail
        for attempt in range(tries if greedy else 1):
            draw = ahead[used & wrap]
            used += 1
            if drawn - used < n - column - 1:
                ahead[drawn & wrap] = np.random.random()
                drawn += 1
            guess = column + ROWS_AHEAD
            if used + ROWS_AHEAD <= drawn and guess < n:
                prefetch(queens, guess + int(ahead[(used + ROWS_AHEAD - 1) & wrap] * (n - guess)))
            guess = column + BITS_AHEAD
            if used + BITS_AHEAD <= drawn and guess < n:
                row = queens[guess + int(ahead[(used + BITS_AHEAD - 1) & wrap] * (n - guess))]
                prefetch(taken, (row + guess) >> 6)
                prefetch(taken_anti, (row - guess + n - 1) >> 6)
            other = column + int(draw * (n - column))
            row = queens[other]
            d = row + column
            a = row - column + n - 1
            free = ((taken[d >> 6] >> (d & 63)) & 1) == 0 and ((taken_anti[a >> 6] >> (a & 63)) & 1) == 0
            if free or not greedy or attempt == tries - 1:
                queens[other] = queens[column]
                queens[column] = row
                taken[d >> 6] |= 1 << (d & 63)
                taken_anti[a >> 6] |= 1 << (a & 63)
                placed += free
                break
    return placed


def place_counters(queens: Any, diagonals: Any, anti: Any, n: int) -> int:
    """Fill the diagonal counters (zeros on entry) from the board; returns the collisions, or -1
    if a diagonal would hold ``COUNTER_LIMIT`` queens (the board is then unusable)."""
    collisions = 0
    for column in range(n):
        row = queens[column]
        d = row + column
        a = row - column + n - 1
        if diagonals[d] == COUNTER_LIMIT - 1 or anti[a] == COUNTER_LIMIT - 1:
            return -1
        collisions += int(diagonals[d]) + int(anti[a])  # pairs formed with the queens already counted
        diagonals[d] += 1
        anti[a] += 1
    return collisions


def bit_words(n: int) -> int:
    """Words of 64 bits for a bit set of the 2n - 1 diagonals."""
    return (2 * n - 1 + 63) // 64


@register_jitable
def attacked(queens: Any, diagonals: Any, anti: Any, n: int, column: int) -> bool:
    row = queens[column]
    return int(diagonals[row + column]) + int(anti[row - column + n - 1]) > 2


def final_search(queens: Any, diagonals: Any, anti: Any, n: int, collisions: int, attempts: int) -> Any:
    """Sosič and Gu's final search: for each attacked queen, swap it with random partners,
    keeping a swap only if it lowers the collisions, until the queen is free; rescan the
    board and repeat, for at most ``attempts`` swap attempts.

    Returns (collisions, swaps kept, attempts made).
    """
    swaps = 0
    made = 0
    while collisions > 0 and made < attempts:
        for column in range(n):
            if collisions == 0 or made >= attempts:
                break
            while made < attempts and attacked(queens, diagonals, anti, n, column):
                other = int(np.random.random() * n)
                made += 1
                if other == column:
                    continue
                row, other_row = queens[column], queens[other]
                change = shift(diagonals, anti, n, column, row, -1)
                change += shift(diagonals, anti, n, other, other_row, -1)
                change += shift(diagonals, anti, n, column, other_row, 1)
                change += shift(diagonals, anti, n, other, row, 1)
                if change < 0:
                    queens[column] = other_row
                    queens[other] = row
                    collisions += change
                    swaps += 1
                else:  # undo
                    shift(diagonals, anti, n, column, other_row, -1)
                    shift(diagonals, anti, n, other, row, -1)
                    shift(diagonals, anti, n, column, row, 1)
                    shift(diagonals, anti, n, other, other_row, 1)
    return collisions, swaps, made


if njit is not None:
    from nqueens_plugins.builtin.engines.kernel_cache import compiled as _compile

    COMPILED: dict[str, Any] | None = {
        "seed_generator": _compile(seed_generator),
        "initial_search": _compile(initial_search),
        "place_counters": _compile(place_counters),
        "final_search": _compile(final_search),
    }
else:
    COMPILED = None

PYTHON: dict[str, Any] = {
    "seed_generator": seed_generator,
    "initial_search": initial_search,
    "place_counters": place_counters,
    "final_search": final_search,
}
