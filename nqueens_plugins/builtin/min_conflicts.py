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

* ``random`` (default, as in the seed tutorial): a uniformly random row per column.
* ``greedy``: column by column, each queen tries up to ``greedy_tries`` random
  rows not yet used and takes the first one no placed queen attacks, else the
  least attacked of those tried (the conflict-free start of Sosič and Gu; Minton
  et al. report about 50 repairs after such a start for a million queens). It
  is what makes n = 10^5 .. 10^6 reachable; from a random start each of the
  ~n repairs costs O(n).

Counts: one **iteration** is one repair step (a conflicted queen chosen and
given its best row, or a random one on a noise step). One **move** is one
queen placed or moved: the free queens of each board, then each repair that
changes a row. Counters: ``initial_conflicts`` (attacked queens on the first
board), ``stuck`` (the last board was provably stuck), ``restarts`` and
``noise_steps``.

Speed: the line counts are kept incrementally; the best row of a column is a
vectorised sum of three slices of those counts (O(n) numpy work, no Python
loop over rows). The attacked queens are kept in a set that is updated by each
move (only a move onto an attacked square creates conflicts, and then the
queens it attacks are found with one vectorised comparison per line), so the
board is never rescanned.

Memory: the board is ``lean_board.LeanBoard`` (int32 queens, one byte per
line) and the greedy start works in int32 rows and byte counters, so a run
peaks at about 12 bytes a queen, verification included (10^7 queens:
``benchmarks/large_boards.py``). A run from a random start also keeps every
attacked queen in a Python list and dict, about 110 bytes each (measured): the greedy start
is the one for millions of queens.
"""

from __future__ import annotations

import random
import sys
from array import array
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

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
        Option("init", str, "random", "initial board", choices=("random", "greedy")),
        Option("greedy_tries", int, 32, "random rows a queen tries with init=greedy", minimum=1),
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
            return Outcome(
                Status.GAVE_UP, None, 0, 0, {"initial_conflicts": 0, "stuck": 0, "restarts": 0, "noise_steps": 0}
            )
        generator = numpy_rng(rng)
        open_rows = open_rows_of(problem)
        fixed = problem.fixed
        steps = moves = restarts = noise_steps = 0
        initial_conflicts = 0
        board: LeanBoard | None = None
        stuck = False

        def outcome(status: Status) -> Outcome:
            counters = {
                "initial_conflicts": initial_conflicts,
                "stuck": int(stuck),
                "restarts": restarts,
                "noise_steps": noise_steps,
            }
            return Outcome(status, None if board is None else board.queens, steps, moves, counters)

        while True:
            board = None  # a restart never holds two boards
            if options["init"] == "greedy":
                board = LeanBoard(
                    n, greedy_board(problem, rng, options["greedy_tries"], open_rows), fixed, open_rows, budget.trace
                )
            else:
                board = LeanBoard.random(problem, generator, open_rows, budget.trace)
            moves += board.free_count
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
