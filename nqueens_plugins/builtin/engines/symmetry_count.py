"""Built-in engine, worker side: plain boards counted once per class of the eight symmetries (Takaken).

A plain n x n board has eight symmetries (four rotations, each with or without
a reflection). Most solutions have eight distinct images, a few have four (they
are their own 180-degree rotation) or two (their own 90-degree rotation). This
search places queens row by row with bit masks, like ``bitboard``, but
restricts the first rows so that, as far as the first rows can tell, only one
image of each class is generated; at a leaf, a short comparison (``check``
below) decides whether the solution found is its class's representative, and
which of the three class sizes it has. Summing ``2*c2 + 4*c4 + 8*c8`` gives
every solution (OEIS A000170), ``c2 + c4 + c8`` the classes (A002562), from one
search about half the size of the mirror-only one.

The method is Takaken's (Kenji Takahashi's ``NQueen`` program, widely
republished), in two families of subtrees:

* *corner*: the queen of row 0 in column 0. Then no solution is its own
  90- or 180-degree image, so every solution stands for 8; the queen of row 1 is
  at column ``bound1`` and rows below ``bound1`` may not use column 1 (that
  would be the diagonal reflection of a board already counted).
* *side*: the queen of row 0 at column ``bound1`` (``1 <= bound1 < n/2``), and no
  queen in a corner. Rows above ``bound1`` and below ``bound2 = n-1-bound1``
  keep out of the two outer columns; row ``bound2`` must take one of them if
  possible; the last row may not use ``lastmask``'s columns. A leaf is then
  compared with its rotations.

Rows here are the other projects' rows; since the square's symmetries map
solutions to solutions, the counts are those of ``queens[c] = r``.

``count_subtrees`` is one function for both engines: plain Python runs it as is
(with lists), and ``bitboard_kernel`` compiles this very source with numba
(with numpy arrays), so it calls no other function.
``subtrees`` deals the search into independent pieces for worker processes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

CORNER = 1
SIDE = 0
MIN_N = 6  # smaller boards are counted by bitboard's general search
FIELDS = 10  # a table row: the ten numbers of Subtree.row_of, then the board


@dataclass(frozen=True)
class Subtree:
    """A partial board from which ``count_subtree`` counts: rows ``0..row-1`` placed.

    ``board[y]`` is the bit of row y's queen. ``left``, ``down``, ``right`` are the
    columns attacked in row ``row``; the rest are the restrictions of its family.
    """

    corner: int
    bound1: int
    bound2: int
    lastmask: int
    endbit: int
    row: int
    left: int
    down: int
    right: int
    board: tuple[int, ...]

    def row_of(self, n: int) -> list[int]:
        """This subtree as one row of ``count_subtrees``' table: the fields, its row's open columns, the board."""
        fields = [
            self.corner,
            self.bound1,
            self.bound2,
            self.lastmask,
            self.endbit,
            self.row,
            self.left,
            self.down,
            self.right,
            self.free(n),
        ]
        return fields + list(self.board) + [0] * (n - len(self.board))

    def free(self, n: int) -> int:
        """The open columns of row ``row`` under the family's rules (as ``count_subtree`` applies them)."""
        mask = (1 << n) - 1
        sidemask = (1 << (n - 1)) | 1
        y = self.row
        free = mask & ~(self.left | self.down | self.right)
        if self.corner == CORNER:
            if y < self.bound1:
                free &= ~2
        elif y < self.bound1:
            free &= ~sidemask
        elif y == self.bound2:
            if self.down & sidemask == 0:
                free = 0
            elif self.down & sidemask != sidemask:
                free &= sidemask
        return free


def count_subtrees(
    n: int,
    table: Any,
    board: Any,
    lefts: Any,
    downs: Any,
    rights: Any,
    frees: Any,
    rules: Any,
    row_number: Callable[[int], Any],
) -> tuple[int, int, int]:
    """Classes of size 2, 4 and 8 below the subtrees of ``table`` (rows of ``Subtree.row_of``).

    Plain Python runs this with lists; ``bitboard_kernel`` compiles this very
    source with numba, with int64 arrays. ``board`` and the stacks ``lefts``,
    ``downs``, ``rights``, ``frees`` (n entries each) and ``rules`` (each
    row's columns under its family's rule) are scratch: the search is a loop
    over an explicit stack, not recursion. ``row_number`` is ``int`` in Python
    and ``np.uint64`` compiled: unsigned stack indices spare numba its
    negative-index checks.

    Each node's children are found before it is pushed, and a child is pushed
    only if it has an open column and the row after it still has one (it would
    not be, were the child's own queen also left out). The order of the tests
    below is the fastest of those tried (``benchmarks/counting.py``).
    """
    last = n - 1
    mask = (1 << n) - 1
    topbit = 1 << last
    sidemask = topbit | 1
    one = row_number(1)
    last_row = row_number(last)
    c2 = 0
    c4 = 0
    c8 = 0
    for index in range(len(table)):
        tree = table[index]
        corner = tree[0]
        bound1 = tree[1]
        bound2 = row_number(tree[2])  # 0 in the corner family: no row tests it
        lastmask = tree[3]
        endbit = tree[4]
        row = row_number(tree[5])
        for y in range(row):
            board[y] = tree[FIELDS + y]
        lefts[row] = tree[6]
        downs[row] = tree[7]
        rights[row] = tree[8]
        frees[row] = tree[9]
        keep_out = 2 if corner == CORNER else sidemask  # rows above bound1 keep out of these columns
        for y in range(n):
            rules[y] = mask & ~keep_out if y < bound1 else mask
        depth = row
        while True:
            free = frees[depth]
            if free == 0:
                if depth == row:
                    break
                depth -= one
                continue
            bit = free & -free
            frees[depth] = free ^ bit
            board[depth] = bit
            new_left = (lefts[depth] | bit) << 1  # bits past n never reach an open column
            new_down = downs[depth] | bit
            new_right = (rights[depth] | bit) >> 1
            y = depth + one
            free = rules[y] & ~(new_left | new_down | new_right)
            if y < last_row and ~new_down & ~((new_left << 1) | (new_right >> 1)) & mask == 0:
                free = 0  # row y + 1 is closed even before row y's queen
            if y == bound2:  # row bound2 must take an outer column if one is left
                if new_down & sidemask == 0:
                    free = 0
                elif new_down & sidemask != sidemask:
                    free &= sidemask
            if y == last_row:  # its one open column, if any, completes a solution
                if free == 0 or free & lastmask != 0:
                    continue
                if corner == CORNER:  # no corner solution is its own rotation: each stands for 8
                    c8 += 1
                    continue
                board[last] = free
                # Is this board its class's representative, and how large is the class?
                kind = 8
                if board[bound2] == 1:  # compare with its 90-degree rotation
                    own = 1
                    pattern = 2
                    while own <= last:
                        bit = 1
                        you = last
                        while board[you] != pattern and board[own] >= bit:
                            bit <<= 1
                            you -= 1
                        if board[own] > bit:
                            kind = 0
                            break
                        if board[own] < bit:
                            break
                        own += 1
                        pattern <<= 1
                    if kind != 0 and own > last:
                        kind = 2
                if kind == 8 and board[last] == endbit:  # with its 180-degree rotation
                    own = 1
                    you = last - 1
                    while own <= last:
                        bit = 1
                        pattern = topbit
                        while pattern != board[you] and board[own] >= bit:
                            bit <<= 1
                            pattern >>= 1
                        if board[own] > bit:
                            kind = 0
                            break
                        if board[own] < bit:
                            break
                        own += 1
                        you -= 1
                    if kind != 0 and own > last:
                        kind = 4
                if kind == 8 and board[bound1] == topbit:  # with its 270-degree rotation
                    own = 1
                    pattern = topbit >> 1
                    while own <= last:
                        bit = 1
                        you = 0
                        while board[you] != pattern and board[own] >= bit:
                            bit <<= 1
                            you += 1
                        if board[own] > bit:
                            kind = 0
                            break
                        if board[own] < bit:
                            break
                        own += 1
                        pattern >>= 1
                if kind == 2:
                    c2 += 1
                elif kind == 4:
                    c4 += 1
                elif kind == 8:
                    c8 += 1
                continue
            if free != 0:
                depth = y
                lefts[y] = new_left
                downs[y] = new_down
                rights[y] = new_right
                frees[y] = free
    return c2, c4, c8


def first_subtrees(n: int) -> Iterator[Subtree]:
    """The search's top: one subtree per corner ``bound1`` and per side ``bound1`` (n >= 4)."""
    last = n - 1
    topbit = 1 << last
    for bound1 in range(2, last):
        bit = 1 << bound1
        board = (1, bit)
        yield Subtree(CORNER, bound1, 0, 0, 0, 2, ((2 | bit) << 1) & ((1 << n) - 1), 1 | bit, bit >> 1, board)
    lastmask = topbit | 1
    endbit = topbit >> 1
    bound1, bound2 = 1, n - 2
    while bound1 < bound2:
        bit = 1 << bound1
        yield Subtree(SIDE, bound1, bound2, lastmask, endbit, 1, bit << 1, bit, bit >> 1, (bit,))
        lastmask |= lastmask >> 1 | lastmask << 1
        endbit >>= 1
        bound1 += 1
        bound2 -= 1


def children(n: int, tree: Subtree) -> Iterator[Subtree]:
    """The subtrees one row deeper."""
    mask = (1 << n) - 1
    free = tree.free(n)
    while free:
        bit = free & -free
        free ^= bit
        yield Subtree(
            tree.corner,
            tree.bound1,
            tree.bound2,
            tree.lastmask,
            tree.endbit,
            tree.row + 1,
            ((tree.left | bit) << 1) & mask,
            tree.down | bit,
            (tree.right | bit) >> 1,
            tree.board + (bit,),
        )


def subtrees(n: int, depth: int) -> list[Subtree]:
    """Independent subtrees with rows ``0..depth-1`` placed (never past row n - 3; n >= 6)."""
    found: list[Subtree] = []
    stop = min(depth, n - 3)

    def descend(tree: Subtree) -> None:
        if tree.row >= stop:
            found.append(tree)
            return
        for child in children(n, tree):
            descend(child)

    for tree in first_subtrees(n):
        descend(tree)
    return found


def count_python(n: int, trees: list[Subtree]) -> tuple[int, int, int]:
    """(c2, c4, c8) over the given subtrees, in plain Python."""
    table = [tree.row_of(n) for tree in trees]
    board, lefts, downs, rights, frees, rules = ([0] * n for _ in range(6))
    return count_subtrees(n, table, board, lefts, downs, rights, frees, rules, int)
