"""Built-in engine, worker side: the compiled counter by joining half boards (numba; imported only when asked).

Counts what ``join_python`` counts, over the same plan (``join_plan``):

* the quarters' placements are enumerated once per process and n (``prepared``):
  the left ones by search, the right ones as their mirror images, each in one
  array sorted by its (rows, columns) key with offsets over every key, so the
  placements on given rows and columns are one slice; for an even n the left
  ones lose their queens on the main diagonals (``join_plan``'s weights);
* per task, the left and the right half boards are joined from a top and a
  bottom quarter slice on complementary columns (``_half_boards``), packed to
  the diagonals both halves reach;
* the smaller side is bit-sliced in groups of 512 or 1024 boards (a 64 x 64 bit
  transpose per 64 boards), and for every 6 diagonal bits the ORs of the
  slices of each subset of them are tabled, so one board of the other side is
  tested against a whole group by one table row per chunk, ORed and popcounted
  in vector registers (``join_bits``): about 0.01 ns a pair here. A group's
  tables take 24 KiB (512) or 48 KiB (1024) and stay in the first- or
  second-level cache while the other side's boards run past them: 6 rows of
  16 words a test beat 7 rows of 5-bit chunks (28 KiB) by 6 to 15 % (n = 18);
* a task of many pairs (``SPLIT_FROM``: n = 20 and up) first buckets both sides
  by up to six diagonal bits chosen for it (the most often taken on both sides),
  and tests a sliced bucket only against the query buckets with none of its
  bits: a third of the pairs at n = 20 (``_match``);
* ``turn_fixed`` counts the solutions a half or a quarter turn leaves unchanged,
  for ``--unique`` (``join_symmetric``).

Compiled once per machine and cached on disk, in the user's cache folder (``kernel_cache``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from nqueens_plugins.builtin.engines.join_bits import (
    clashes8,
    clashes16,
    or_row8,
    or_row16,
    popcount,
    trailing_zeros,
)
from nqueens_plugins.builtin.engines.join_plan import Geometry, Task
from nqueens_plugins.builtin.engines.kernel_cache import compiled

CHUNK_BITS = 6  # diagonal bits per table of a group of 512 (64 rows of 8 words: 4 KiB)
WIDE_CHUNK_BITS = 6  # of a group of 1024 (64 rows of 16 words: 8 KiB; 5 bits measured slower)
Tables = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # a quarter: offsets, up, down, packed
Buffers = tuple[np.ndarray, np.ndarray, np.ndarray]  # _match's scratch: a block to transpose, slices, tables
WIDE_FROM = 640  # sliced boards from which a bucket's groups are of 1024 (fewer than that would leave them empty)
SPLIT_BITS = 6  # most diagonal bits a task's two sides are bucketed by (``_match``)
SAMPLE = 256  # boards of each side whose diagonals choose those bits
SPLIT_FROM = 1 << 26  # pairs from which a task is bucketed: below, choosing and sorting cost more than they save
GROUP_COST = 300  # building a group's tables, in queries' worth of table rows (``_best_split``'s model)


@compiled
def _walk_quarter(
    n: int,
    first_row: int,
    rows: int,
    first_column: int,
    columns: int,
    fill: bool,
    cursor: np.ndarray,
    up_out: np.ndarray,
    down_out: np.ndarray,
) -> int:
    """Every placement of non-attacking queens in a quarter, depth first over its columns (each empty
    or holding a queen). ``fill`` false: counts them by key in ``cursor[key + 1]``; true: writes each at
    ``cursor[key]`` (the key's offset, moved on). Returns how many there are."""
    option = np.zeros(columns + 1, dtype=np.int64)  # at each column: 0 = leave empty, 1 + r = queen on row r
    taken = np.zeros(columns + 1, dtype=np.int64)
    used = np.zeros(columns + 1, dtype=np.int64)
    ups = np.zeros(columns + 1, dtype=np.uint64)
    downs = np.zeros(columns + 1, dtype=np.uint64)
    one = np.uint64(1)
    found = 0
    level = 0
    while level >= 0:
        if level == columns:
            key = (taken[level] << columns) | used[level]
            if fill:
                up_out[cursor[key]] = ups[level]
                down_out[cursor[key]] = downs[level]
                cursor[key] += 1
            else:
                cursor[key + 1] += 1
            found += 1
            level -= 1
            continue
        choice = option[level]
        if choice > rows:
            level -= 1
            continue
        option[level] = choice + 1
        child = level + 1
        if choice == 0:
            taken[child], used[child], ups[child], downs[child] = taken[level], used[level], ups[level], downs[level]
        else:
            row = choice - 1
            if (taken[level] >> row) & 1:
                continue
            board_row = first_row + row
            board_column = first_column + level
            up = one << np.uint64(board_row + board_column)
            down = one << np.uint64(board_row - board_column + n - 1)
            if (ups[level] & up) | (downs[level] & down):
                continue
            taken[child] = taken[level] | (1 << row)
            used[child] = used[level] | (1 << level)
            ups[child] = ups[level] | up
            downs[child] = downs[level] | down
        option[child] = 0
        level = child
    return found


@dataclass(frozen=True)
class Quarter:
    """A quarter's placements: those with key (rows << columns | columns taken) are ``up[offsets[key]:
    offsets[key + 1]]`` (and ``down``), the diagonals they take."""

    offsets: np.ndarray
    up: np.ndarray
    down: np.ndarray

    def tables(self, geometry: Geometry) -> Tables:
        """What the kernel takes: offsets, up, down and the diagonals packed (``Geometry.compact``)."""
        mask = np.uint64((1 << geometry.width) - 1)
        shift, width = np.uint64(geometry.shift), np.uint64(geometry.width)
        packed = ((self.up >> shift) & mask) | (((self.down >> shift) & mask) << width)
        return self.offsets, self.up, self.down, packed


def quarter(n: int, first_row: int, rows: int, first_column: int, columns: int) -> Quarter:
    """A quarter's placements, counted by key and then written in key order."""
    offsets = np.zeros((1 << (rows + columns)) + 1, dtype=np.int64)
    empty = np.zeros(0, dtype=np.uint64)
    total = _walk_quarter(n, first_row, rows, first_column, columns, False, offsets, empty, empty)
    np.cumsum(offsets, out=offsets)
    up, down = np.empty(total, dtype=np.uint64), np.empty(total, dtype=np.uint64)
    _walk_quarter(n, first_row, rows, first_column, columns, True, offsets[:-1].copy(), up, down)
    return Quarter(offsets, up, down)


def quarters(n: int) -> list[Quarter]:
    """The top left, bottom left, top right and bottom right quarters: the left ones by search, the right
    ones as their mirror images (the column reflection), which costs a tenth of searching them."""
    top_left, bottom_left = (quarter(n, *where) for where in Geometry(n).quadrants()[:2])
    half = n // 2
    return [top_left, bottom_left, reshaped(top_left, half, True, -1, -1), reshaped(bottom_left, half, True, -1, -1)]


@compiled
def _reshape(
    offsets: np.ndarray, up: np.ndarray, down: np.ndarray, columns: int, reflect: bool, drop: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A quarter's placements, less those on diagonal ``drop[0]`` (up) or ``drop[1]`` (down) (-1: none),
    and, if ``reflect``, mirrored to the other half (columns c to n-1-c: the column bits reversed, the
    two directions of diagonals swapped); sorted by key again (a counting sort)."""
    keys = offsets.shape[0] - 1
    one = np.uint64(1)
    drop_up = (one << np.uint64(drop[0])) if drop[0] >= 0 else np.uint64(0)
    drop_down = (one << np.uint64(drop[1])) if drop[1] >= 0 else np.uint64(0)
    column_mask = (1 << columns) - 1
    new_key = np.empty(keys, dtype=np.int64)
    for key in range(keys):
        used = key & column_mask
        if reflect:
            mirrored = 0
            for column in range(columns):
                if (used >> column) & 1:
                    mirrored |= 1 << (columns - 1 - column)
            used = mirrored
        new_key[key] = (key & ~column_mask) | used
    placed = np.zeros(keys + 1, dtype=np.int64)
    for key in range(keys):
        for entry in range(offsets[key], offsets[key + 1]):
            if not ((up[entry] & drop_up) | (down[entry] & drop_down)):
                placed[new_key[key] + 1] += 1
    for key in range(keys):
        placed[key + 1] += placed[key]
    new_up = np.empty(placed[keys], dtype=np.uint64)
    new_down = np.empty(placed[keys], dtype=np.uint64)
    cursor = placed[:-1].copy()
    for key in range(keys):
        target = new_key[key]
        for entry in range(offsets[key], offsets[key + 1]):
            if not ((up[entry] & drop_up) | (down[entry] & drop_down)):
                at = cursor[target]
                new_up[at], new_down[at] = (down[entry], up[entry]) if reflect else (up[entry], down[entry])
                cursor[target] = at + 1
    return placed, new_up, new_down


def reshaped(table: Quarter, columns: int, reflect: bool, drop_up: int, drop_down: int) -> Quarter:
    """``_reshape`` of a quarter of ``columns`` columns."""
    return Quarter(*_reshape(table.offsets, table.up, table.down, columns, reflect, (drop_up, drop_down)))


@compiled
def _half_boards(
    rows: int,
    top: int,
    half: int,
    upper: Tables,
    lower: Tables,
    avoid: tuple[np.uint64, np.uint64],
    out: np.ndarray,
) -> np.ndarray:
    """The packed diagonals of the half boards on ``rows``, joined from the ``upper`` and ``lower`` quarters
    (offsets, up and down) on complementary columns, avoiding ``avoid``'s diagonals: ``out[1:out[0] + 1]``
    (``out`` itself, or a larger array when it was too small)."""
    top_offsets, top_up, top_down, top_packed = upper
    bottom_offsets, bottom_up, bottom_down, bottom_packed = lower
    avoid_up, avoid_down = avoid
    top_rows = rows & ((1 << top) - 1)
    bottom_rows = rows >> top
    queens = int(popcount(np.uint64(top_rows)))  # type: ignore[call-arg]  # numba passes the typing context
    every_column = (1 << half) - 1
    count = 0
    columns = (1 << queens) - 1  # the column sets of ``queens`` columns, in increasing order (Gosper's)
    while columns <= every_column:
        key = (top_rows << half) | columns
        other = (bottom_rows << half) | (every_column ^ columns)
        columns = _next_subset(columns)
        low_start, low_end = bottom_offsets[other], bottom_offsets[other + 1]
        if low_start == low_end:
            continue
        first, last = top_offsets[key], top_offsets[key + 1]
        if count + (last - first) * (low_end - low_start) + 1 > out.shape[0]:  # room for every pair
            larger = np.empty(2 * out.shape[0] + (last - first) * (low_end - low_start), dtype=np.uint64)
            for copied in range(count + 1):  # a loop: a slice assignment compiles a broadcast check and its message
                larger[copied] = out[copied]
            out = larger
        for i in range(first, last):
            up = top_up[i]
            down = top_down[i]
            if (up & avoid_up) | (down & avoid_down):
                continue
            up_blocked = up | avoid_up
            down_blocked = down | avoid_down
            packed = top_packed[i]
            # Without a branch (half the pairs clash, unpredictably), and indexed by unsigned integers: numba
            # checks every signed index for a negative one to wrap around, which made this loop 1.5x slower.
            at = np.uint64(count + 1)
            for step in range(low_end - low_start):
                j = np.uint64(low_start + step)
                clash = (up_blocked & bottom_up[j]) | (down_blocked & bottom_down[j])
                out[at] = packed | bottom_packed[j]
                at += np.uint64(clash == 0)
            count = np.int64(at) - 1
    out[0] = np.uint64(count)
    return out


@compiled
def _next_subset(subset: int) -> int:
    """The next larger set with as many members (Gosper's hack); 0 stays 0 past the end (the caller
    stops at its universe: an empty set has no successor, so it returns a value above any universe)."""
    if subset == 0:
        return 1 << 62
    lowest = subset & -subset
    ripple = subset + lowest
    return (((ripple ^ subset) >> 2) // lowest) | ripple


@compiled
def _swap_round(block: np.ndarray, span: int, mask: np.uint64) -> None:
    """One round of the transpose: the ``mask`` bits of each row swapped with the bits ``span`` to their
    left in the row ``span`` below (rows in runs of ``span``, which the compiler vectorizes)."""
    shift = np.uint64(span)
    for base in range(0, 64, 2 * span):
        for row in range(base, base + span):
            swapped = ((block[row] >> shift) ^ block[row + span]) & mask
            block[row] ^= swapped << shift
            block[row + span] ^= swapped


@compiled
def _transpose(block: np.ndarray) -> None:
    """A 64 x 64 bit matrix transposed in place (bit j of word i to bit i of word j), in six rounds of
    block swaps (Hacker's Delight 7-3): 10x faster than setting the bits of 64 boards one by one."""
    _swap_round(block, 32, np.uint64(0x00000000FFFFFFFF))
    _swap_round(block, 16, np.uint64(0x0000FFFF0000FFFF))
    _swap_round(block, 8, np.uint64(0x00FF00FF00FF00FF))
    _swap_round(block, 4, np.uint64(0x0F0F0F0F0F0F0F0F))
    _swap_round(block, 2, np.uint64(0x3333333333333333))
    _swap_round(block, 1, np.uint64(0x5555555555555555))


@compiled
def _fill_tables(
    boards: np.ndarray,
    start: int,
    size: int,
    shape: tuple[int, int, int],
    block: np.ndarray,
    slices: np.ndarray,
    tables: np.ndarray,
    base: int,
) -> None:
    """The tables of one group, at ``tables[base:]``: boards ``start .. start + size`` bit-sliced (bit b
    of board j is bit j of slice b), then for each chunk of ``chunk_bits`` diagonal bits the ORs of its
    bits' slices over every subset (row ``chunk * entries + subset``, ``words`` words each), where
    ``shape`` is (words, chunk_bits, chunks). Slots past ``size`` clash with everything."""
    words, chunk_bits, chunks = shape
    entries = 1 << chunk_bits
    one = np.uint64(1)
    sliced = chunks * chunk_bits
    for word in range(words):
        first = word * 64
        if first >= size:  # an empty word: nothing to transpose
            for bit in range(sliced):
                slices[bit * words + word] = 0
        else:
            for slot in range(64):
                block[slot] = boards[start + first + slot + 1] if first + slot < size else np.uint64(0)
            _transpose(block)
            for bit in range(sliced):
                slices[bit * words + word] = block[bit] if bit < 64 else np.uint64(0)
        if size >= first + 64:
            tables[base + word] = 0
        elif size <= first:
            tables[base + word] = ~np.uint64(0)
        else:
            tables[base + word] = ~((one << np.uint64(size - first)) - one)
    for chunk in range(chunks):
        row_zero = base + chunk * entries * words
        if chunk > 0:
            tables[row_zero : row_zero + words] = 0
        for entry in range(1, entries):
            previous = row_zero + (entry & (entry - 1)) * words
            lowest = int(trailing_zeros(np.uint64(entry)))  # type: ignore[call-arg]
            position = (chunk * chunk_bits + lowest) * words
            if words == 16:
                or_row16(tables, row_zero + entry * words, tables, previous, slices, position)
            else:
                or_row8(tables, row_zero + entry * words, tables, previous, slices, position)


@compiled
def _split_bits(sliced: np.ndarray, queries: np.ndarray, bits: int) -> np.ndarray:
    """``SPLIT_BITS`` diagonal bits to bucket both sides by, the likeliest to clash first: those most
    often taken on both sides (counted on at most ``SAMPLE`` boards of each); bit 63, never taken,
    where fewer are taken on both sides."""
    counts = np.zeros(128, dtype=np.int64)  # sliced's bits, then the queries'
    for side in range(2):
        boards = sliced if side == 0 else queries
        size = int(boards[0])
        step = max(1, size // SAMPLE)
        for index in range(0, size, step):
            word = boards[index + 1]
            while word:
                counts[64 * side + int(trailing_zeros(word))] += 1  # type: ignore[call-arg]
                word &= word - np.uint64(1)
    score = counts[:bits] * counts[64 : 64 + bits]
    chosen = np.full(SPLIT_BITS, 63, dtype=np.uint64)
    for found in range(SPLIT_BITS):
        best = np.argmax(score)
        if score[best] <= 0:
            break
        chosen[found] = best
        score[best] = -1
    return chosen


@compiled
def _codes(boards: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """Each board's ``chosen`` bits as a number (bit i: ``chosen[i]``), for its bucket."""
    one = np.uint64(1)
    c0, c1, c2, c3, c4, c5 = chosen[0], chosen[1], chosen[2], chosen[3], chosen[4], chosen[5]
    size = np.int64(boards[0])
    codes = np.empty(size, dtype=np.uint8)
    for index in range(size):
        board = boards[index + 1]
        code = ((board >> c0) & one) | ((board >> c1) & one) << one | ((board >> c2) & one) << np.uint64(2)
        code |= ((board >> c3) & one) << np.uint64(3) | ((board >> c4) & one) << np.uint64(4)
        codes[index] = code | ((board >> c5) & one) << np.uint64(5)
    return codes


@compiled
def _best_split(left_codes: np.ndarray, right_codes: np.ndarray) -> int:
    """How many of the chosen bits to bucket by (0 to all): the fewest table rows read, groups' tables
    built included (``GROUP_COST`` queries' worth each), by this task's own bucket sizes."""
    full = 1 << SPLIT_BITS
    left, right = np.zeros(full, dtype=np.int64), np.zeros(full, dtype=np.int64)
    for code in left_codes:
        left[code] += 1
    for code in right_codes:
        right[code] += 1
    best, best_cost = 0, np.inf
    for split in range(SPLIT_BITS + 1):
        mask = (1 << split) - 1
        lefts, within = np.zeros(1 << split, dtype=np.int64), np.zeros(1 << split, dtype=np.int64)
        for code in range(full):
            lefts[code & mask] += left[code]
            within[code & mask] += right[code]
        for bit in range(split):  # within[x]: the queries whose bucket is a subset of x
            for x in range(1 << split):
                if (x >> bit) & 1:
                    within[x] += within[x ^ (1 << bit)]
        cost = 0.0
        for a in range(1 << split):
            if lefts[a] == 0:
                continue
            group = 1024 if lefts[a] > WIDE_FROM else 512
            groups = (lefts[a] + group - 1) // group
            cost += groups * (GROUP_COST + within[mask ^ a]) * (group // 512)
        if cost < best_cost:
            best, best_cost = split, cost
    return best


@compiled
def _sorted_by_bucket(boards: np.ndarray, codes: np.ndarray, split: int) -> tuple[np.ndarray, np.ndarray]:
    """The boards in bucket order (``sorted[1:]``, the first slot kept for ``_fill_tables``' layout) and
    the offsets of the buckets in it (0-based, over ``1 << split`` buckets: a code's low ``split`` bits)."""
    mask = np.int64((1 << split) - 1)
    size = codes.shape[0]
    offsets = np.zeros((1 << split) + 1, dtype=np.int64)
    for index in range(size):
        offsets[np.int64(codes[index]) & mask] += 1
    total = 0
    for bucket in range((1 << split) + 1):
        count, offsets[bucket] = offsets[bucket], total
        total += count
    cursor = offsets.copy()
    ordered = np.empty(size + 1, dtype=np.uint64)
    ordered[0] = boards[0]
    for index in range(size):
        which = np.int64(codes[index]) & mask
        ordered[cursor[which] + 1] = boards[index + 1]
        cursor[which] += 1
    return ordered, offsets


@compiled
def _match(
    sliced: np.ndarray,
    queries: np.ndarray,
    weights: tuple[int, int, bool],
    bits: int,
    buffers: Buffers,
    split_from: int = SPLIT_FROM,
) -> int:
    """Compatible pairs of ``sliced[1:sliced[0] + 1]`` and ``queries[1:queries[0] + 1]``, each counted 2 for
    each main diagonal (``weights``: their bits) its query takes, when ``weights[2]`` (even n).

    Both sides are first bucketed by a few diagonal bits (``_split_bits``, ``_best_split``): a sliced
    board of bucket a can only fit a query of a bucket b with no bit of a, so only those are tested
    (at n = 20 about a quarter of the pairs). In each bucket, groups of 1024 sliced boards (16 words)
    where there are that many, else of 512. Tasks of fewer pairs than ``split_from`` are not bucketed:
    at n = 18 it saves nothing."""
    block, slices, tables = buffers
    ordered, asked, split = sliced, queries, 0
    offsets = np.array([0, np.int64(sliced[0])])
    asked_offsets = np.array([0, np.int64(queries[0])])
    if np.int64(sliced[0]) * np.int64(queries[0]) >= split_from:
        chosen = _split_bits(sliced, queries, bits)
        left_codes, right_codes = _codes(sliced, chosen), _codes(queries, chosen)
        split = _best_split(left_codes, right_codes)
        if split > 0:
            ordered, offsets = _sorted_by_bucket(sliced, left_codes, split)
            asked, asked_offsets = _sorted_by_bucket(queries, right_codes, split)
    one = np.uint64(1)
    first_main, second_main, weighted = np.uint64(weights[0]), np.uint64(weights[1]), weights[2]
    total = 0
    for a in range(1 << split):
        first, last = offsets[a], offsets[a + 1]
        wide = last - first > WIDE_FROM
        words = 16 if wide else 8
        chunk_bits = WIDE_CHUNK_BITS if wide else CHUNK_BITS
        group = 64 * words
        chunks = (bits + chunk_bits - 1) // chunk_bits
        for start in range(first, last, group):
            size = min(group, last - start)
            _fill_tables(ordered, start, size, (words, chunk_bits, chunks), block, slices, tables, 0)
            for b in range(1 << split):
                if a & b:
                    continue
                first_asked = asked_offsets[b] + 1
                for step in range(asked_offsets[b + 1] - asked_offsets[b]):
                    packed = asked[np.uint64(first_asked + step)]  # unsigned: no wrap-around check
                    if wide:
                        found = group - clashes16(tables, packed, chunks, chunk_bits)
                    else:
                        found = group - clashes8(tables, packed, chunks, chunk_bits)
                    if weighted:
                        found <<= ((packed >> first_main) & one) + ((packed >> second_main) & one)
                    total += found
    return total


def new_buffers(bits: int) -> Buffers:
    """The scratch arrays of ``_match``: a 64-word block to transpose, the slices, the tables (the larger
    of the two group sizes' needs)."""
    most = 0
    for words, chunk_bits in ((8, CHUNK_BITS), (16, WIDE_CHUNK_BITS)):
        chunks = (bits + chunk_bits - 1) // chunk_bits
        most = max(most, chunks * (1 << chunk_bits) * words)
    return np.zeros(64, np.uint64), np.zeros(80 * 16, np.uint64), np.zeros(most, np.uint64)


@compiled
def _count_tasks(
    n: int,
    geometry: tuple[int, int, int, int],
    main: tuple[int, int],
    tables: tuple[Tables, Tables, Tables, Tables],
    chosen: np.ndarray,
    buffers: Buffers,
) -> int:
    """The weighted solutions of the tasks (rows of ``chosen``: middle row or -1, left rows, weight).
    For an even n, ``tables``' left quarters hold no queen on a main diagonal (``join_plan``)."""
    top, half, _shift, width = geometry
    top_left, bottom_left, top_right, bottom_right = tables
    every_row = (1 << n) - 1
    left = np.empty(1024, dtype=np.uint64)
    right = np.empty(1024, dtype=np.uint64)
    total = 0
    for index in range(chosen.shape[0]):
        middle, rows, weight = chosen[index, 0], chosen[index, 1], chosen[index, 2]
        if middle < 0:
            avoid = (np.uint64(0), np.uint64(0))
            other = every_row & ~rows
        else:
            avoid = (np.uint64(1) << np.uint64(middle + half), np.uint64(1) << np.uint64(middle - half + n - 1))
            other = every_row & ~rows & ~(1 << middle)
        left = _half_boards(rows, top, half, top_left, bottom_left, avoid, left)
        if left[0] == 0:
            continue
        right = _half_boards(other, top, half, top_right, bottom_right, avoid, right)
        if right[0] == 0:
            continue
        if middle < 0 or left[0] <= right[0]:
            weights = (main[0], main[1], middle < 0)
            total += weight * _match(left, right, weights, 2 * width, buffers)
        else:  # odd n: no weights, and slicing a board costs more than testing one: slice the smaller side
            # the weights typed as the even case's (int64, int64, bool): one compile of _match, not two (2 s)
            total += weight * _match(right, left, (main[0] & 0, main[1] & 0, middle < 0), 2 * width, buffers)
    return total


@compiled
def turn_fixed(n: int, turns: int) -> int:
    """``join_symmetric.fixed_python``, compiled: a depth-first search with explicit stacks (a level per orbit placed)."""
    full = (np.int64(1) << n) - 1
    rows = np.zeros(n + 1, dtype=np.int64)
    columns = np.zeros(n + 1, dtype=np.int64)
    ups = np.zeros(n + 1, dtype=np.int64)
    downs = np.zeros(n + 1, dtype=np.int64)
    row_of = np.zeros(n + 1, dtype=np.int64)
    next_column = np.zeros(n + 1, dtype=np.int64)
    one = np.int64(1)
    total = 0
    level = 0
    while level >= 0:
        if rows[level] == full:
            total += 1
            level -= 1
            continue
        column = next_column[level]
        if column >= n:
            level -= 1
            continue
        next_column[level] = column + 1
        row = row_of[level]
        taken, used, up, down = rows[level], columns[level], ups[level], downs[level]
        r, c = row, column
        fits = True
        while True:
            row_bit, column_bit = one << r, one << c
            up_bit, down_bit = one << (r + c), one << (r - c + n - 1)
            if (taken & row_bit) | (used & column_bit) | (up & up_bit) | (down & down_bit):
                fits = False
                break
            taken, used, up, down = taken | row_bit, used | column_bit, up | up_bit, down | down_bit
            for _ in range(turns):
                r, c = c, n - 1 - r
            if r == row and c == column:
                break
        if not fits:
            continue
        level += 1
        rows[level], columns[level], ups[level], downs[level] = taken, used, up, down
        free = ~taken & full
        row_of[level] = 0
        while free and not (free >> row_of[level]) & one:
            row_of[level] += 1
        next_column[level] = 0
    return total


@functools.cache
def prepared(n: int) -> tuple[Tables, Tables, Tables, Tables]:
    """The quarters this process counts n with (built once per process and n): for an even n, the left ones
    without their queens on the main diagonals (the top left's row = column, the bottom left's row + column
    = n - 1), whose half boards the right's weights stand for."""
    top_left, bottom_left, top_right, bottom_right = quarters(n)
    if n % 2 == 0:
        half = n // 2
        top_left, bottom_left = (
            reshaped(top_left, half, False, -1, n - 1),
            reshaped(bottom_left, half, False, n - 1, -1),
        )
    geometry = Geometry(n)
    return tuple(table.tables(geometry) for table in (top_left, bottom_left, top_right, bottom_right))  # type: ignore[return-value]


def count(n: int, chosen: Sequence[Task]) -> int:
    """The weighted solutions of ``chosen``, compiled."""
    if n == 1:
        return sum(task.weight for task in chosen)
    geometry = Geometry(n)
    packed = prepared(n)
    rows = np.array([(t.middle, t.rows, t.weight) for t in chosen], dtype=np.int64).reshape(len(chosen), 3)
    position = n - 1 - geometry.shift
    main = (position, position + geometry.width)
    shape = (geometry.top, geometry.half, geometry.shift, geometry.width)
    return int(_count_tasks(n, shape, main, packed, rows, new_buffers(geometry.bits)))
