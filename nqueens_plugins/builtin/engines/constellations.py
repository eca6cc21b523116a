"""Built-in engine, worker side: counting by start constellations (the border first), in pure Python.

Every solution has exactly one queen on each of the board's four border lines:
column 0 (its queen on row ``i``), column n-1 (row ``j``), row 0 (in column
``k``) and row n-1 (in column ``l``); a queen in a corner stands on two of them
(``i = k = 0`` for the corner at row 0, column 0). The tuple ``(i, j, k, l)``
is the solution's *start constellation*. The eight symmetries of the square map
solutions to solutions and constellations to constellations, so it is enough to
count the completions of one constellation per class (``generate``) and weight
each by the size of its class, 8 / |H| where H is the group of symmetries that
fix it (|H| is 1, 2 or 4: the rotations that fix it; no reflection fixes
one, as the tests check). This is Preußer and Engelhardt's method behind the n = 27 record (the
Q27 project), also used by NQueensFAF.

A solution fixed by a rotation has a constellation fixed by it, so only the few
constellations with |H| > 1 can hold solutions whose classes have fewer than
eight boards; their completions are checked one by one (``classes_of``). One
pass thus gives the total (OEIS A000170) and the classes (A002562).

A constellation's completions are searched column by column over columns
1..n-2, jumping columns ``k`` and ``l`` (their queens are placed), with the
rows the four border queens take or attack left out of each column beforehand
(``fill_lines``). Which of the eight images of a class is searched does not
change the count but does change the time: ``orient`` picks the image with the
column n-1 queen nearest row 0 and then the row n-1 queen farthest right,
measured to search about a third fewer nodes than the first image.

This module is the pure-Python engine (a recursion, CPython's fastest form);
``constellation_kernel`` is the compiled one and compiles ``fill_lines`` from
here, so both search the same columns under the same masks.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

MIN_N = 6  # smaller boards are counted by bitboard's other searches
Constellation = tuple[int, int, int, int, int]  # i, j, k, l as searched, then |H|


@dataclass(frozen=True)
class Piece:
    """Some constellations of a count, counted as one task. ``index`` is the piece's place in the split,
    which is the same for the same n in every run (``pieces``)."""

    index: int
    constellations: tuple[Constellation, ...]


def images(n: int, border: tuple[int, int, int, int]) -> list[tuple[int, int, int, int]]:
    """The images of ``border`` under the eight symmetries (some equal when a symmetry fixes it)."""
    last = n - 1
    found = []
    current = border
    for _ in range(4):
        i, j, k, l = current
        found.append(current)
        found.append((j, i, last - k, last - l))  # the reflection that swaps columns 0 and n-1
        current = (last - k, last - l, j, i)  # a quarter turn
    return found


def is_valid(n: int, border: tuple[int, int, int, int]) -> bool:
    """Whether the border queens (one per border line; a corner queen serves two) attack no other.

    The queens stand at (row, column) (i, 0), (j, n-1), (0, k) and (n-1, l); each
    pair is either one corner queen or two queens on no common line.
    """
    i, j, k, l = border
    last = n - 1
    return (
        (i == 0 and k == 0 or i != 0 and k != 0 and i != k)  # column 0's and row 0's queens
        and (i == last and l == 0 or i != last and l != 0 and last - i != l)  # column 0's and row n-1's
        and (j == 0 and k == last or j != 0 and k != last and j != last - k)  # column n-1's and row 0's
        and (j == last and l == last or j != last and l != last and j != l)  # column n-1's and row n-1's
        and i != j
        and abs(i - j) != last  # column 0's and column n-1's
        and k != l
        and abs(k - l) != last  # row 0's and row n-1's
    )


def orient(n: int, border: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The image of ``border`` to search (see the module's docstring): smallest ``j``, then largest ``l``."""
    return min(set(images(n, border)), key=lambda image: (image[1], -image[3], image))


@functools.cache
def generate(n: int) -> tuple[Constellation, ...]:
    """One constellation per class of the eight symmetries, oriented for the search, with |H|.

    The representative of a class is its smallest image; the smallest image has
    the smallest ``i`` of all the values an image's ``i`` can take, which bounds
    the loops. The order is the representatives' order: the same in every run.
    """
    last = n - 1
    found: list[Constellation] = []
    for i in range(last // 2 + 1):
        for j in range(i, last - i + 1):
            for k in range(i, last - i + 1):
                for l in range(i, last - i + 1):
                    border = (i, j, k, l)
                    if is_valid(n, border):
                        seen = images(n, border)
                        if border == min(seen):
                            found.append((*orient(n, border), 8 // len(set(seen))))
    return tuple(found)


def pieces(n: int, parts: int) -> list[Piece]:
    """The constellations dealt into ``parts`` pieces, interleaved so that each gets a like mix
    (neighbouring constellations cost alike)."""
    everything = generate(n)
    parts = max(1, min(parts, len(everything)))
    return [Piece(index, everything[index::parts]) for index in range(parts)]


def fill_lines(n: int, i: int, j: int, k: int, l: int, lines: Any, allowed: Any) -> int:
    """The columns the search fills, in order (``lines``), and the rows each may take (``allowed``,
    a bit per row): those no border queen takes or attacks. Returns how many columns that is.

    Written for both engines: plain Python passes lists, ``constellation_kernel``
    compiles this source with numba and passes int64 arrays.
    """
    last = n - 1
    full = (1 << n) - 1
    count = 0
    for column in range(1, last):
        if column == k or column == l:
            continue
        taken = 1 | (1 << last) | (1 << i) | (1 << j)
        if i + column <= last:
            taken |= 1 << (i + column)
        if i - column >= 0:
            taken |= 1 << (i - column)
        distance = last - column  # from column n-1, whose queen is on row j
        if j + distance <= last:
            taken |= 1 << (j + distance)
        if j - distance >= 0:
            taken |= 1 << (j - distance)
        taken |= 1 << abs(column - k)  # the diagonals of the row 0 queen
        taken |= 1 << (last - abs(column - l))  # and of the row n-1 queen
        lines[count] = column
        allowed[count] = full & ~taken
        count += 1
    return count


def classes_of(stabilizer: int, plain: int, half_turn: int, quarter_turn: int) -> tuple[int, int, int]:
    """(c2, c4, c8) from one constellation's completions: ``plain`` fixed by no rotation, ``half_turn``
    by the half turn only, ``quarter_turn`` by the quarter turn. A class whose boards are each fixed by
    s rotations has 8 / s boards, and |H| / s of them are completions of this very constellation."""
    return quarter_turn * 4 // stabilizer, half_turn * 2 // stabilizer, plain // stabilizer


def rotations_fixing(n: int, queens: Any) -> int:
    """4 if the quarter turn fixes the board (queens[c] = r), 2 if only the half turn does, else 1.
    (Also compiled by ``constellation_kernel``, hence the plain loops.)"""
    last = n - 1
    for column in range(n):
        if queens[last - column] != last - queens[column]:
            return 1
    for column in range(n):
        if queens[queens[column]] != last - column:
            return 2
    return 4


def count_python(n: int, constellations: Sequence[Constellation]) -> tuple[int, int, int]:
    """(c2, c4, c8) below ``constellations``, by plain recursion."""
    c2 = c4 = c8 = 0
    for i, j, k, l, stabilizer in constellations:
        if stabilizer == 1:
            c8 += count_completions(n, i, j, k, l)
        else:
            by_rotations = {1: 0, 2: 0, 4: 0}
            for queens in completions(n, i, j, k, l):
                by_rotations[rotations_fixing(n, queens)] += 1
            two, four, eight = classes_of(stabilizer, by_rotations[1], by_rotations[2], by_rotations[4])
            c2, c4, c8 = c2 + two, c4 + four, c8 + eight
    return c2, c4, c8


def search_lines(n: int, i: int, j: int, k: int, l: int) -> tuple[list[int], list[int]]:
    """``fill_lines`` as two lists."""
    lines, allowed = [0] * n, [0] * n
    count = fill_lines(n, i, j, k, l, lines, allowed)
    return lines[:count], allowed[:count]


def count_completions(n: int, i: int, j: int, k: int, l: int) -> int:
    """The solutions with this start constellation (the diagonals shift by the gap between searched columns)."""
    lines, allowed = search_lines(n, i, j, k, l)
    if not lines:
        return 1
    full = (1 << n) - 1
    last = len(lines) - 1
    gaps = [after - before for before, after in itertools.pairwise(lines)]

    def place(level: int, rows: int, down: int, up: int) -> int:
        free = allowed[level] & ~(rows | down | up)
        gap = gaps[level]
        following = level + 1
        total = 0
        if following == last:  # the last column's queen: one open row or none
            closing = allowed[last]
            while free:
                bit = free & -free
                free ^= bit
                if closing & ~(rows | bit | ((down | bit) << gap) | ((up | bit) >> gap)):
                    total += 1
            return total
        while free:
            bit = free & -free
            free ^= bit
            total += place(following, rows | bit, ((down | bit) << gap) & full, (up | bit) >> gap)
        return total

    if last == 0:
        return 1 if allowed[0] else 0
    return place(0, 0, 0, 0)


def sample_nodes(n: int, dives: int = 4000, seed: int = 0) -> float:
    """About how many queens the search places below all of n's constellations: Knuth's estimator
    (Math. Comp. 29, 1975), from ``dives`` random paths down the searches (fixed ``seed``: the same
    figure in every run).

    A path starts at a constellation drawn at random and goes down one open row at
    a time, drawn at random; the products of the numbers of open rows met on the
    way, summed, are an unbiased estimate of that search's size. Measured against
    the exact figure: within 3 % at n = 14 and 16 with the default dives.
    This is how ``bitboard`` tells how long a count would take at any n, n = 40
    included, without counting it.
    """
    everything = generate(n)
    if not everything:
        return 0.0
    rng = random.Random(seed)
    lines, allowed = [0] * n, [0] * n
    full = (1 << n) - 1
    total = 0
    for _ in range(dives):
        i, j, k, l, _stabilizer = everything[rng.randrange(len(everything))]
        levels = fill_lines(n, i, j, k, l, lines, allowed)
        rows = down = up = 0
        paths = 1
        for level in range(levels):
            free = allowed[level] & ~(rows | down | up)
            width = free.bit_count()
            if width == 0:
                break
            paths *= width
            total += paths
            if level + 1 < levels:
                bit = 1 << _nth_bit(free, rng.randrange(width))
                gap = lines[level + 1] - lines[level]
                rows, down, up = rows | bit, ((down | bit) << gap) & full, (up | bit) >> gap
    return total / dives * len(everything)


def _nth_bit(mask: int, index: int) -> int:
    """The position of the ``index``-th set bit of ``mask``, from the lowest."""
    for _ in range(index):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


def completions(n: int, i: int, j: int, k: int, l: int) -> Iterator[list[int]]:
    """Each solution with this start constellation, as queens[c] = r."""
    lines, allowed = search_lines(n, i, j, k, l)
    queens = [0] * n
    queens[0], queens[n - 1], queens[k], queens[l] = i, j, 0, n - 1
    full = (1 << n) - 1

    def place(level: int, rows: int, down: int, up: int) -> Iterator[list[int]]:
        if level == len(lines):
            yield list(queens)
            return
        free = allowed[level] & ~(rows | down | up)
        gap = lines[level + 1] - lines[level] if level + 1 < len(lines) else 0
        while free:
            bit = free & -free
            free ^= bit
            queens[lines[level]] = bit.bit_length() - 1
            yield from place(level + 1, rows | bit, ((down | bit) << gap) & full, (up | bit) >> gap)

    yield from place(0, 0, 0, 0)
