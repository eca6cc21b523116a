"""Built-in plugin, worker side: min-conflicts (Minton, Johnston, Philips and Laird, 1990/1992).

Start from a full board; then, repeatedly, pick a random conflicted queen and
move it to a row of its column attacked by the fewest other queens, breaking
ties at random (the current row counts too, so a step may leave the queen where
it is). Solved when no queen is attacked; gives up after ``max_steps``
(default max(1000, 100 n)) or at once when provably stuck (every attacked
queen on the only best row of its column). Incomplete: n = 2 and 3, and every
unsatisfiable instance, end in ``gave-up``.

On a plain board that is the whole method, as the seed tutorial has it. On an
instance with fixed queens or blocked squares, pure min-conflicts stalls on
one board too often to be useful (3 of 10 seeds of an easy n = 12 board with two
fixed queens), so there two classic remedies are on by default: ``noise``
(a random-walk step, as in WalkSAT: with that probability the chosen queen
goes to a random open row instead of its best) and ``restarts`` (a fresh board
after ``max_steps`` steps or when stuck). Both are options everywhere.

Initial board (option ``init``):

* ``random`` (default): a uniformly random row per column, as in the seed tutorial.
* ``minton``: the greedy start of Minton et al.: column by column (the fixed
  queens first), each free queen on a row of its column with the fewest
  conflicts with the queens already placed, over every open row, ties broken
  at random (``minton_board``: exactly that, drawing rows before it scans them). This is
  the setting that reproduces their "about 50 repairs, independent of n"
  (10^2 to 10^6 queens): measured here, mean repairs 48.0, 52.5, 51.1, 54.8
  and 44.8 at n = 10^2, 10^3, 10^4, 10^5 and 10^6 (1,000, 500, 200, 40 and 20
  runs, every one solved and verified; each 99 % interval holds 50)
  (``benchmarks/literature.py``, its output in ``benchmarks/results/literature.txt``).
  A run at 10^6, start and verification included, took 2.9 s on a quiet
  2-core AMD EPYC (mean of 20; ``sosic-gu`` 3.1 s in the same run).
* ``sosic-gu``: each queen tries up to ``greedy_tries`` random unused rows and
  takes the first one no placed queen attacks, else the least attacked of those
  tried (the conflict-free start of Sosič and Gu). It does not reproduce
  Minton's figure: it leaves more queens attacked as n grows (about 1,160 at
  10^6, against about 12 from ``minton``), and the repairs grow with them:
  56, 70, 95, 195 and 758 at the same sizes and seeds.
* ``greedy``: ``sosic-gu`` under the name it had before both existed, kept
  meaning the same so that a recorded ``init=greedy`` run replays the same
  board from its seed (and the large-board figures measured with it still hold).

Either greedy start is what makes n = 10^5 .. 10^6 reachable: from a random
start each of the ~n repairs costs O(n). The default is chosen by measurement
(1,000 runs at n = 8, 500 at 16, 300 at 32, 100 at 100, 20 at 1,000): at the
tutorial's sizes the three starts are alike (n = 8: 943, 944 and 938 of 1,000
solved from random, minton and sosic-gu; n = 16: 492, 493, 494 of 500), and
from n = 32 ``minton`` needs the fewest repair steps (53 against 61 and 91 at
n = 32; 57 against 68 and 691 at n = 1,000). So ``random`` stays the default,
the seed tutorial's method (every default here reproduces its tutorial), and
``minton`` is the start to choose from n = 32 up (at 10^6 its start takes 1.1
to 1.2 times as long as ``sosic-gu``'s, and its ~50 repairs save the ~750 of
``sosic-gu``: a whole run is no slower).

Counts: one **iteration** is one repair step (a conflicted queen chosen and
given its best row, or a random one on a noise step; the queen may stay where
it is). One **move** is one queen placed or moved: the free queens of each
board (the start's placements, whichever ``init``: n on a plain board), then
each repair that changes a row. So the start is counted in moves only, and the
repairs after it (Minton's figure) are ``moves`` minus the free queens times
the boards (``moves - n`` on a plain board, which never restarts by default):
the counter ``steps``, the textbooks' step count that the comparison table shows
when solved and when stuck. Counters: ``steps``, ``initial_conflicts``
(attacked queens on the first board), ``stuck``
(the last board was provably stuck), ``restarts`` and ``noise_steps``.

Speed: the line counts are kept incrementally; the best row of a column is a
vectorised sum of three slices of those counts (O(n) numpy work, no Python
loop over rows). The attacked queens are kept in a set that is updated by each
move (only a move onto an attacked square creates conflicts, and then the
queens it attacks are found with one vectorised comparison per line), so the
board is never rescanned.

Memory: the board is ``lean_board.LeanBoard`` (int32 queens, one byte per
line) and the greedy starts work in int32 rows and byte counters (12 bytes a
queen for ``sosic-gu``, 13 for ``minton``, which also counts rows), so a run
peaks at about 13 to 14 bytes a queen above the imports, verification included
(10^7 queens, ``large_boards.solve_apart``: 12.9 with ``init=greedy``, 13.8
with ``init=minton``). A run from a random start
also keeps every attacked queen in a Python list and dict, about 110 bytes each
(measured): a greedy start is the one for millions of queens.
"""

from __future__ import annotations

import random
import sys
from array import array
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from nqueens_plugins.builtin.engines import lean_board
from nqueens_plugins.builtin.engines.board import numpy_rng, open_rows_of
from nqueens_plugins.builtin.engines.lean_board import LeanBoard
from nqueens_plugins.core.hookspecs import hookimpl
from nqueens_plugins.core.problem import Budget, Outcome, Problem, Status
from nqueens_plugins.core.solver import Option, Solver

if TYPE_CHECKING:
    from nqueens_plugins.core.hookspecs import SolverRegister

CHECK_EVERY = 64  # repair steps between clock reads
# Defaults on instances with fixed queens or blocked squares (chosen in benchmarks/hard_instances.py);
# plain boards keep the tutorial's method: no noise, no restarts.
INSTANCE_NOISE = 0.05
INSTANCE_RESTARTS = 100
# Initial boards: "greedy" is Sosič and Gu's start under its old name, kept so that a recorded
# min-conflicts[init=greedy] run replays the same (see the module docstring).
INITS = ("random", "minton", "sosic-gu", "greedy")


def greedy_board(
    problem: Problem, rng: random.Random, tries: int, open_rows: Mapping[int, np.ndarray] | None = None
) -> np.ndarray:
    """Place free queens column by column on unused rows that nothing attacks, if found in ``tries``.

    A queen never takes a blocked square: in a column with blocked squares the
    rows drawn must be open, and if none of the draws is, the queen takes a
    random open row (used or not).

    Lean: int32 rows (``array``), one byte per diagonal. The diagonal counts
    saturate at 255; they only rank the rows a queen tries, and the board counts
    its lines afresh. Returns int32 queens, sharing the ``array``'s memory.
    """
    open_rows = open_rows or {}
    n = problem.n
    used = set(problem.fixed.values())
    # First, while nothing else is allocated: the array grows as it is filled.
    unused = array("i", (r for r in range(n) if r not in used) if used else range(n))
    queens = array("i", bytes(4 * n))
    diagonals = bytearray(2 * n - 1)
    anti = bytearray(2 * n - 1)
    shift = n - 1
    for column, row in problem.fixed.items():
        queens[column] = row
        diagonals[row + column] = min(255, diagonals[row + column] + 1)
        anti[row - column + shift] = min(255, anti[row - column + shift] + 1)
    draw = rng.random
    for column in range(n):
        if column in problem.fixed:
            continue
        best_index, best_attacks = -1, sys.maxsize
        allowed = open_rows.get(column)
        allowed_set = None if allowed is None else set(allowed.tolist())
        for _ in range(tries if unused else 0):
            index = int(draw() * len(unused))
            row = unused[index]
            if allowed_set is not None and row not in allowed_set:
                continue
            attacks = diagonals[row + column] + anti[row - column + shift]
            if attacks < best_attacks:
                best_index, best_attacks = index, attacks
                if attacks == 0:
                    break
        if best_index < 0:
            row = int(allowed[int(draw() * len(allowed))]) if allowed is not None else int(draw() * n)
        else:
            row = unused[best_index]
            unused[best_index] = unused[-1]
            unused.pop()
        queens[column] = row
        d, a = row + column, row - column + shift
        if diagonals[d] < 255:
            diagonals[d] += 1
        if anti[a] < 255:
            anti[a] += 1
    return np.frombuffer(queens, dtype=np.int32)


# Minton's start: the random unused rows a queen draws before it scans the unused rows, at least
# MINTON_TRIES and one for every ROWS_A_DRAW unused rows (a draw in Python costs about what a
# vectorised look at 16 to 20 rows does, measured), so that a scan never costs much more than the draws.
MINTON_TRIES = 32
ROWS_A_DRAW = 16


def minton_board(problem: Problem, rng: random.Random, open_rows: Mapping[int, np.ndarray] | None = None) -> np.ndarray:
    """Minton's greedy start: column by column, each free queen on a row of its column with the
    fewest conflicts with the queens already placed (the fixed queens, then the columns before it),
    over every open row, ties broken at random.

    Exactly that, and fast: a row no placed queen attacks is an unused row with both diagonals
    empty, so the queen draws random unused rows (``MINTON_TRIES``, or more where a scan would cost
    more) and takes the first such row (rejection sampling: uniform among the unattacked rows);
    failing that, it scans the unused rows (O(len(unused)), vectorised) and draws among the
    unattacked ones; only when there is none does it scan every open row of its column
    (``least_attacked_row``, O(n) vectorised) for the fewest attacks, ties drawn uniformly. Each
    branch draws uniformly among the same rows, so the boards come with the probabilities a scan of
    every row of every column would give them (``tests/test_min_conflicts_start.py`` checks both).
    Measured at n = 10^6 (seed 1): 29 scans of the unused rows and 8 full scans, the rest draws;
    the start takes 1.1 to 1.2 times as long as Sosič and Gu's 32 tries.

    Lean: int32 rows (``array``) and one byte per row and diagonal, 13 bytes a queen, and scans in
    blocks of ``lean_board.BLOCK`` rows (14.6 bytes a queen at peak at 10^6, tracemalloc). A count
    saturates at 255: counts only rank rows, and on a plain board a queen goes where at most 2
    queens attack (the attacks on a column's squares average under 3 a row), so only a blocked
    instance with 255 queens on one line could reach it. Rows a full scan takes stay in ``unused``
    until drawn, then are dropped. Returns int32 queens, sharing the ``array``'s memory.
    """
    open_rows = open_rows or {}
    n = problem.n
    shift = n - 1
    used = set(problem.fixed.values())
    unused = array("i", (r for r in range(n) if r not in used) if used else range(n))
    queens = array("i", bytes(4 * n))
    rows, diagonals, anti = lines = bytearray(n), bytearray(2 * n - 1), bytearray(2 * n - 1)
    fixed = problem.fixed
    for column, row in fixed.items():  # there before any queen is placed
        queens[column] = row
        count_queen(lines, column, row)
    blocked = problem.blocked
    draw = rng.random
    for column in range(n):
        if fixed and column in fixed:
            continue
        row = -1
        for _ in range(max(MINTON_TRIES, len(unused) // ROWS_A_DRAW)):  # inline: the usual case
            if not unused:
                break
            index = int(draw() * len(unused))
            candidate = unused[index]
            if rows[candidate]:  # a row a full scan took: drop it, draw again
                unused[index] = unused[-1]
                unused.pop()
            elif (
                not diagonals[candidate + column]
                and not anti[candidate - column + shift]
                and not (blocked and (column, candidate) in blocked)
            ):
                row = candidate
                unused[index] = unused[-1]
                unused.pop()
                break
        if row >= 0:  # unattacked: every count was 0
            queens[column] = row
            rows[row] = 1
            diagonals[row + column] = 1
            anti[row - column + shift] = 1
            continue
        allowed = open_rows.get(column)
        row = unattacked_unused_row(column, unused, lines, allowed, draw)
        if row < 0:
            row = least_attacked_row(column, lines, allowed, draw)
        queens[column] = row
        count_queen(lines, column, row)
    return np.frombuffer(queens, dtype=np.int32)


def count_queen(lines: tuple[bytearray, bytearray, bytearray], column: int, row: int) -> None:
    """Count a queen on its row, diagonal and anti-diagonal (saturating at 255)."""
    rows, diagonals, anti = lines
    d, a = row + column, row - column + len(rows) - 1
    if rows[row] < 255:
        rows[row] += 1
    if diagonals[d] < 255:
        diagonals[d] += 1
    if anti[a] < 255:
        anti[a] += 1


def unattacked_unused_row(
    column: int,
    unused: array[int],
    lines: tuple[bytearray, bytearray, bytearray],
    allowed: np.ndarray | None,
    draw: Callable[[], float],
) -> int:
    """A row of ``column`` that no placed queen attacks, drawn uniformly from them (and removed from
    ``unused``), or -1 when there is none: a vectorised scan of the unused rows (O(len(unused))), in
    blocks of ``lean_board.BLOCK`` rows (temporaries of a few MiB)."""
    if not unused:
        return -1
    rows, diagonals, anti = (np.frombuffer(counts, dtype=np.uint8) for counts in lines)
    shift = len(rows) - 1
    found = []
    block = lean_board.BLOCK
    for start in range(0, len(unused), block):
        candidates = np.frombuffer(unused, dtype=np.int32)[start : start + block]  # int32: n < 2^30 (max_n)
        free = (rows[candidates] == 0) & (diagonals[candidates + column] == 0)
        free &= anti[candidates - column + shift] == 0
        if allowed is not None:
            free &= np.isin(candidates, allowed)
        found.append(np.flatnonzero(free) + start)
    del candidates  # a view of ``unused``, which cannot shrink while it is held
    positions = np.concatenate(found)
    if not len(positions):
        return -1
    index = int(positions[int(draw() * len(positions))])
    row = unused[index]
    unused[index] = unused[-1]
    unused.pop()
    return row


def least_attacked_row(
    column: int, lines: tuple[bytearray, bytearray, bytearray], allowed: np.ndarray | None, draw: Callable[[], float]
) -> int:
    """A row drawn uniformly from the open rows of ``column`` that the fewest placed queens attack.

    Every row is scanned, in blocks of ``lean_board.BLOCK`` rows, twice at most: once to find the
    fewest attacks and how many rows of each block have them, and once more in the block where the
    drawn tie falls. The ties are never gathered: late in the start a third of a million-queen column
    can tie, and their indices would cost more memory than the whole board."""
    rows, diagonals, anti = (np.frombuffer(counts, dtype=np.uint8) for counts in lines)
    n = len(rows)
    if allowed is not None:  # open rows only: index them (a blocked instance's column)
        counts = np.add(rows[allowed], diagonals[allowed + column], dtype=np.int16)
        counts += anti[allowed - column + (n - 1)]
        ties = allowed[counts == counts.min()]
        return int(ties[int(draw() * len(ties))])

    def block_counts(start: int) -> np.ndarray:
        stop = min(n, start + lean_board.BLOCK)
        counts = np.add(rows[start:stop], diagonals[column + start : column + stop], dtype=np.int16)
        counts += anti[n - 1 - column + start : n - 1 - column + stop]
        return counts

    fewest = sys.maxsize
    tied_blocks: list[tuple[int, int]] = []  # (first row, rows with the fewest attacks) of each block
    for start in range(0, n, lean_board.BLOCK):
        counts = block_counts(start)
        least = int(counts.min())
        if least < fewest:
            fewest, tied_blocks = least, []
        if least == fewest:
            tied_blocks.append((start, int(np.count_nonzero(counts == least))))
    chosen = int(draw() * sum(tied for _, tied in tied_blocks))
    for start, tied in tied_blocks:
        if chosen < tied:
            return start + int(np.flatnonzero(block_counts(start) == fewest)[chosen])
        chosen -= tied
    raise AssertionError("a drawn tie lies in a block")


class ConflictedQueens:
    """The queens that may be attacked: a list for uniform draws plus an index for O(1) removal.

    Invariant: every attacked free queen is in the set (stale entries are dropped
    when drawn). A move to an unattacked square creates no conflict; a move to
    an attacked one adds the queens it now attacks.
    """

    def __init__(self, columns: np.ndarray) -> None:
        self.items: list[int] = columns.tolist()
        self.index = {column: i for i, column in enumerate(self.items)}

    def __len__(self) -> int:
        return len(self.items)

    def add(self, column: int) -> None:
        if column not in self.index:
            self.index[column] = len(self.items)
            self.items.append(column)

    def remove_at(self, position: int) -> None:
        removed = self.items[position]
        last = self.items.pop()
        del self.index[removed]
        if removed != last:
            self.items[position] = last
            self.index[last] = position


class MinConflicts(Solver):
    name = "min-conflicts"
    family = "local search"
    runs_on = "python and numpy"
    traces = True
    summary = "Moves a random attacked queen to the row of its column with fewest attacks."
    supports_blocked = True
    max_n = 20_000_000
    # Peak resident bytes a queen with init=greedy, verification included, with headroom over
    # what benchmarks/large_boards.py measures (the README has the figure).
    bytes_per_queen = 16
    options = (
        Option(
            "init",
            str,
            "random",
            "initial board: random rows, Minton's greedy start, or Sosič and Gu's (greedy: the same as sosic-gu)",
            choices=INITS,
        ),
        Option("greedy_tries", int, 32, "random rows a queen tries with init=sosic-gu (or greedy)", minimum=1),
        Option(
            "max_steps", int, None, "repair steps per board before giving up; none means max(1000, 100 n)", minimum=0
        ),
        Option(
            "noise",
            float,
            None,
            "chance a step moves the queen to a random open row; "
            f"none means 0 on a plain board, {INSTANCE_NOISE} on an instance",
            minimum=0.0,
            maximum=1.0,
        ),
        Option(
            "restarts",
            int,
            None,
            "fresh boards after max_steps or when stuck; "
            f"none means 0 on a plain board, {INSTANCE_RESTARTS} on an instance",
            minimum=0,
        ),
    )

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        n = problem.n
        plain = problem.is_plain
        noise = options["noise"] if options["noise"] is not None else (0.0 if plain else INSTANCE_NOISE)
        restarts_allowed = (
            options["restarts"] if options["restarts"] is not None else (0 if plain else INSTANCE_RESTARTS)
        )
        max_steps = options["max_steps"] if options["max_steps"] is not None else max(1000, 100 * n)
        if problem.contradiction() is not None:
            counters = {"steps": 0, "initial_conflicts": 0, "stuck": 0, "restarts": 0, "noise_steps": 0}
            return Outcome(Status.GAVE_UP, None, 0, 0, counters)
        generator = numpy_rng(rng)
        open_rows = open_rows_of(problem)
        fixed = problem.fixed
        steps = moves = restarts = noise_steps = 0
        placed = 0  # queens placed by starts (moves that are not repairs)
        initial_conflicts = 0
        board: LeanBoard | None = None
        stuck = False

        def outcome(status: Status) -> Outcome:
            counters = {
                "steps": moves - placed,  # Minton's repairs: queens moved after the start
                "initial_conflicts": initial_conflicts,
                "stuck": int(stuck),
                "restarts": restarts,
                "noise_steps": noise_steps,
            }
            return Outcome(status, None if board is None else board.queens, steps, moves, counters)

        while True:
            board = None  # a restart never holds two boards
            if options["init"] in ("sosic-gu", "greedy"):
                board = LeanBoard(
                    n, greedy_board(problem, rng, options["greedy_tries"], open_rows), fixed, open_rows, budget.trace
                )
            elif options["init"] == "minton":
                board = LeanBoard(n, minton_board(problem, rng, open_rows), fixed, open_rows, budget.trace)
            else:
                board = LeanBoard.random(problem, generator, open_rows, budget.trace)
            moves += board.free_count
            placed += board.free_count
            conflicted = ConflictedQueens(board.conflicted_columns())
            if restarts == 0:
                initial_conflicts = len(conflicted)
            board_steps = 0
            stuck = False
            # Attacked queens whose current row is their only best row since the last move.
            # When every attacked queen is pinned (and there is no noise), no step can move a queen again.
            pinned: set[int] = set()
            while conflicted:
                position = int(generator.integers(len(conflicted)))
                column = conflicted.items[position]
                if board.attacks(column, int(board.queens[column])) == 0:
                    conflicted.remove_at(position)
                    continue
                if board_steps >= max_steps:
                    break
                if budget.iterations is not None and steps >= budget.iterations:
                    return outcome(Status.TIMED_OUT)
                if steps % CHECK_EVERY == 0 and budget.out_of_time():
                    return outcome(Status.TIMED_OUT)
                if noise and generator.random() < noise:
                    rows = open_rows.get(column)
                    row = int(generator.integers(n)) if rows is None else int(rows[generator.integers(len(rows))])
                    fewest, ties = board.attacks(column, row), None  # an open row: no penalty
                    noise_steps += 1
                else:
                    fewest, ties = board.best_rows(column)
                    row = int(ties[generator.integers(len(ties))])
                steps += 1
                board_steps += 1
                if row != board.queens[column]:
                    board.move(column, row)
                    moves += 1
                    pinned.clear()
                    if fewest > 0:
                        for other in board.attackers(column).tolist():
                            if other not in fixed:
                                conflicted.add(other)
                elif not noise and ties is not None and len(ties) == 1 and column not in pinned:
                    pinned.add(column)
                    if all(c in pinned or board.attacks(c, int(board.queens[c])) == 0 for c in conflicted.items):
                        stuck = True
                        break
            else:
                return outcome(Status.SOLVED)
            if restarts >= restarts_allowed:
                return outcome(Status.GAVE_UP)
            restarts += 1


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(MinConflicts())
