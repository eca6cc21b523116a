"""Built-in engine, worker side: counting by joining half boards, the plan (geometry, tasks, pieces, memory).

The board is cut into a left and a right half of ``h = n // 2`` columns each
(odd n: the middle column between them). A solution's left half puts its h
queens on some set R of rows; its right half on the other rows. So the count is,
summed over R, the number of pairs (left half board on rows R, right half board
on the rest) whose queens share no diagonal: two half boards are compatible
exactly when their sets of occupied diagonals are disjoint (rows and columns
are apart by construction). Only the diagonals both halves can reach matter:
``WIDTH = 2h - 1`` of each direction, packed into one word per half board
(``compact``), so a pair is tested by one AND. The engines (``join_python``,
``join_kernel``) build each side's half boards by joining a top and a bottom
quarter board (precomputed once per n, ``quadrants``) and count the pairs.

Odd n: the middle column's queen, on row ``a``, is placed first; each ``a`` is
a count of its own (the halves avoid row a and the queen's two diagonals), and
the middle row needs nothing special (its queen is in one of the halves, or is
the middle column's own). The join is not redone per pair of middle queens, as
the middle row's queen is just one of a half board's.

Symmetries (which halve the rows sets and shrink the lists, weights making up):

* even n: the row reflection maps R to its reverse (count R <= reverse(R), twice
  when smaller). The two main diagonals each hold at most one queen, left or
  right; the half turn and the transpose swap those sides independently, so the
  left half boards with a queen on a main diagonal are dropped and a right half
  board counts 2 for each main diagonal it occupies (``weight_of``).
* odd n: the row reflection maps a to n-1-a (count a <= h, twice below h), the
  column reflection swaps the halves for a given a (count one of R and its
  complement); for the centre (a = h) both hold at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np


@dataclass(frozen=True)
class Geometry:
    """Where the halves and quarters of an n x n board lie, and how a half board's diagonals are packed."""

    n: int

    @property
    def half(self) -> int:
        """Columns in each half (and rows in the bottom quarters)."""
        return self.n // 2

    @property
    def top(self) -> int:
        """Rows in the top quarters: the middle row of an odd board goes with them."""
        return self.n - self.n // 2

    @property
    def shift(self) -> int:
        """The first diagonal both halves reach (either direction, numbered 0..2n-2)."""
        return self.n - self.half

    @property
    def width(self) -> int:
        """Diagonals of one direction both halves reach."""
        return max(0, 2 * self.half - 1)

    @property
    def bits(self) -> int:
        """Bits of a packed half board: both directions."""
        return 2 * self.width

    def quadrants(self) -> tuple[tuple[int, int, int, int], ...]:
        """(first row, rows, first column, columns) of the top left, bottom left, top right, bottom right quarters."""
        n, half, top = self.n, self.half, self.top
        return ((0, top, 0, half), (top, n - top, 0, half), (0, top, n - half, half), (top, n - top, n - half, half))

    def compact(self, up: int, down: int) -> int:
        """A half board's diagonals (bit d of ``up``: row + column = d; of ``down``: row - column + n - 1 = d)
        packed to the ones both halves reach: ``down``'s above ``up``'s."""
        mask = (1 << self.width) - 1
        return ((up >> self.shift) & mask) | (((down >> self.shift) & mask) << self.width)

    def main_bits(self) -> int:
        """The packed bits of the two main diagonals (row + column = n-1 and row = column)."""
        position = self.n - 1 - self.shift
        return (1 << position) | (1 << (position + self.width))


def weight_of(geometry: Geometry, packed: int) -> int:
    """A right half board's weight for an even n: 2 for each main diagonal it occupies (module docstring)."""
    position = geometry.n - 1 - geometry.shift
    return 1 << (((packed >> position) & 1) + ((packed >> (position + geometry.width)) & 1))


@dataclass(frozen=True)
class Task:
    """One rows set to join: the left half's rows ``rows`` (a bit per row), the middle column's queen's
    row ``middle`` (-1 for an even n) and how many rows sets (and middle rows) this one stands for."""

    middle: int
    rows: int
    weight: int


def reverse(n: int, rows: np.ndarray) -> np.ndarray:
    """Row sets (bit masks) reflected top to bottom."""
    mirrored = np.zeros_like(rows)
    for row in range(n):
        mirrored |= ((rows >> row) & 1) << (n - 1 - row)
    return mirrored


def row_sets(n: int, size: int) -> np.ndarray:
    """Every set of ``size`` of the n rows, as bit masks, in increasing order (the same every run)."""
    every = np.arange(1 << n, dtype=np.int64)
    return every[np.bitwise_count(every) == size]


@cache
def tasks(n: int) -> tuple[Task, ...]:
    """The rows sets to join, one per class of the symmetries used (module docstring), with weights."""
    half = n // 2
    everything = (1 << n) - 1
    candidates = row_sets(n, half)
    found: list[tuple[int, int, int]] = []
    if n % 2 == 0:
        mirrored = reverse(n, candidates)
        kept = candidates <= mirrored
        weights = np.where(candidates[kept] == mirrored[kept], 1, 2)
        found += zip([-1] * int(kept.sum()), candidates[kept].tolist(), weights.tolist(), strict=True)
        return tuple(Task(*task) for task in found)
    for middle in range(half + 1):
        rows = candidates[(candidates >> middle) & 1 == 0]
        other = (everything & ~(1 << middle)) & ~rows
        if middle < half:  # the column reflection pairs rows with other; the row reflection gives a twin
            kept = rows < other
            weights = np.full(int(kept.sum()), 4)
        else:  # the centre: both reflections keep it
            orbit = np.stack([rows, other, reverse(n, rows), reverse(n, other)])
            kept = rows == orbit.min(axis=0)
            ordered = np.sort(orbit[:, kept], axis=0)
            weights = 1 + (np.diff(ordered, axis=0) != 0).sum(axis=0)
        found += zip([middle] * int(kept.sum()), rows[kept].tolist(), weights.tolist(), strict=True)
    return tuple(Task(*task) for task in found)


def forbidden(n: int, middle: int) -> tuple[int, int]:
    """The diagonals (up, down) no half board may take: the middle column's queen's, if any."""
    if middle < 0:
        return 0, 0
    column = n // 2
    return 1 << (middle + column), 1 << (middle - column + n - 1)


@dataclass(frozen=True)
class Piece:
    """Some tasks of a count, counted as one unit; ``index`` is its place in the split (the same every run)."""

    index: int
    tasks: tuple[Task, ...]


@dataclass(frozen=True)
class Turns:
    """The piece of a split ``--unique`` count that counts the solutions a half and a quarter turn leave
    unchanged (``join_symmetric``): what Burnside's lemma adds to the pieces' solutions."""


def pieces(n: int, parts: int) -> list[Piece]:
    """The tasks dealt into ``parts`` interleaved pieces: neighbouring tasks cost alike, so each piece
    gets a like mix and the pieces take about as long."""
    everything = tasks(n)
    parts = max(1, min(parts, len(everything)))
    return [Piece(index, everything[index::parts]) for index in range(parts)]


# Partial placements (any number of queens) in a top and in a bottom quarter, counted by
# ``join_kernel._walk_quarter`` for n <= 22; beyond, each grows about 3.3x per step of n.
QUARTER_ENTRIES = {
    2: (2, 2), 3: (3, 2), 4: (5, 5), 5: (9, 5), 6: (18, 18), 7: (37, 18), 8: (87, 87), 9: (185, 87),
    10: (462, 462), 11: (1039, 462), 12: (2635, 2635), 13: (6335, 2635), 14: (16870, 16870),
    15: (42807, 16870), 16: (118969, 118969), 17: (316395, 118969), 18: (915442, 915442),
    19: (2524999, 915442), 20: (7535369, 7535369), 21: (21637115, 7535369), 22: (66807234, 66807234),
}  # fmt: skip
ENTRY_BYTES = 24  # two diagonal words per placement and the two packed into one
PYTHON_ENTRY_BYTES = 160  # the pure-Python engine's: a tuple of two integers in a list in a dict
OFFSET_BYTES = 8  # one offset per (rows, columns) key of a quarter
WORKING_BYTES = 64 << 20  # the half boards of one rows set, the tables, numpy and the kernels: measured below this


def quarter_entries(n: int) -> tuple[int, int]:
    """Placements in a top and in a bottom quarter (``QUARTER_ENTRIES``, extrapolated past n = 22)."""
    if n in QUARTER_ENTRIES:
        return QUARTER_ENTRIES[n]
    if n < 2:
        return 1, 1
    top, bottom = QUARTER_ENTRIES[22]
    growth = 3.3 ** (n - 22)
    return int(top * growth), int(bottom * growth)


def memory_bytes(n: int, kernel: str = "numba") -> int:
    """About the peak memory of a count of n by joining: the four quarters' placements (two of each kind),
    their offsets over every (rows, columns) key, the left quarters' filtered copies (even n), the rest;
    ``kernel`` "python": the pure-Python engine's dictionaries instead."""
    top, bottom = quarter_entries(n)
    if kernel == "python":
        return 2 * (top + bottom) * PYTHON_ENTRY_BYTES + WORKING_BYTES
    entries = 2 * (top + bottom) + (top + bottom if n % 2 == 0 else 0)
    keys = sum((1 << (rows + columns)) + 1 for _, rows, _, columns in Geometry(n).quadrants())
    keys += keys // 2 if n % 2 == 0 else 0
    return entries * ENTRY_BYTES + keys * OFFSET_BYTES + WORKING_BYTES


def allowed_memory() -> int | None:
    """Bytes this process may still allocate: what its data limit (``--memory``: ``RLIMIT_DATA``) leaves,
    else what the machine has available; None where neither can be read."""
    from nqueens_plugins.core.solver import available_memory

    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_DATA)[0]
        if soft != resource.RLIM_INFINITY:
            with open("/proc/self/status", encoding="ascii") as status:
                used = next((int(line.split()[1]) * 1024 for line in status if line.startswith("VmData:")), 0)
            return max(0, soft - used)
    except (ImportError, OSError, ValueError):
        pass
    return available_memory()


def memory_refusal(n: int, kernel: str = "numba", memory: int | None = None) -> str | None:
    """The one-line refusal of a count needing more than it may take, or None when it fits: more than
    ``memory`` bytes (a run's ``--memory``) or than this process may still take (``allowed_memory``)."""
    needed, here = memory_bytes(n, kernel), allowed_memory()
    limits = [(here, "this machine has available")] if here is not None else []
    limits += [(memory, "--memory allows")] if memory is not None else []
    allowed, where = min(limits, default=(None, ""))
    if allowed is None or needed <= allowed:
        return None
    return (
        f"bitboard[method=join] needs about {needed / 2**30:.1f} GiB for n = {n}, more than the "
        f"{allowed / 2**30:.2f} GiB {where}; bitboard[method=constellations] counts it in little memory"
    )
