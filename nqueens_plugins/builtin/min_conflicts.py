"""Min-conflicts (Minton, Johnston, Philips and Laird, 1990/1992).

Start from a full board; then, repeatedly, pick a random conflicted queen and
move it to a row of its column attacked by the fewest other queens, breaking
ties at random (the current row counts too, so a step may leave the queen where
it is). Solved when no queen is attacked; gives up after ``max_steps``
(default 100 000). Incomplete: n = 2 and 3 end in ``gave-up``.

Initial board (option ``init``):

* ``random`` (default, as in the seed tutorial): a uniformly random row per column.
* ``greedy``: column by column, each queen tries up to ``greedy_tries`` random
  rows not yet used and takes the first one no placed queen attacks, else the
  least attacked of those tried (the conflict-free start of Sosič and Gu; Minton
  et al. report about 50 repairs after such a start for a million queens). It
  is what makes n = 10^5 .. 10^6 reachable; from a random start each of the
  ~n repairs costs O(n).

Counts: one **iteration** is one repair step (a conflicted queen chosen and
given its best row). One **move** is one queen placed or moved: the n initial
placements, then each repair that changes a row. Counters:
``initial_conflicts`` (attacked queens on the initial board) and ``stuck``.

Speed: the line counts are kept incrementally; the best row of a column is a
vectorised sum of three slices of those counts (O(n) numpy work, no Python
loop over rows). The attacked queens are kept in a set that is updated by each
move (only a move onto an attacked square creates conflicts, and then the
queens it attacks are found with one vectorised comparison per line), so the
board is never rescanned.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from nqueens_plugins.builtin.board import ConflictBoard, numpy_rng
from nqueens_plugins.hookspecs import hookimpl
from nqueens_plugins.problem import Budget, Outcome, Problem, Status
from nqueens_plugins.solver import Option, Solver

if TYPE_CHECKING:
    from nqueens_plugins.registry import SolverRegister

CHECK_EVERY = 64  # repair steps between clock reads


def greedy_board(problem: Problem, rng: random.Random, tries: int) -> np.ndarray:
    """Place free queens column by column on unused rows that nothing attacks, if found in ``tries``."""
    n = problem.n
    queens = [0] * n
    diagonals = [0] * (2 * n - 1)
    anti = [0] * (2 * n - 1)
    used = set()
    for column, row in problem.fixed.items():
        queens[column] = row
        diagonals[row + column] += 1
        anti[row - column + n - 1] += 1
        used.add(row)
    unused = [r for r in range(n) if r not in used]
    draw = rng.random
    shift = n - 1
    for column in range(n):
        if column in problem.fixed:
            continue
        best_index, best_attacks = 0, sys.maxsize
        for _ in range(tries):
            index = int(draw() * len(unused))
            row = unused[index]
            attacks = diagonals[row + column] + anti[row - column + shift]
            if attacks < best_attacks:
                best_index, best_attacks = index, attacks
                if attacks == 0:
                    break
        row = unused[best_index]
        unused[best_index] = unused[-1]
        unused.pop()
        queens[column] = row
        diagonals[row + column] += 1
        anti[row - column + shift] += 1
    return np.array(queens, dtype=np.int64)


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
    summary = "Moves a random attacked queen to the row of its column with fewest attacks."
    max_n = 20_000_000
    bytes_per_queen = 200  # peak resident bytes per queen; measured 139 at n = 10^6 with init=greedy
    options = (
        Option("init", str, "random", "initial board", choices=("random", "greedy")),
        Option("greedy_tries", int, 32, "random rows a queen tries with init=greedy", minimum=1),
        Option("max_steps", int, None, "repair steps before giving up; none means max(1000, 100 n)", minimum=0),
    )

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        n = problem.n
        generator = numpy_rng(rng)
        if options["init"] == "greedy":
            board = ConflictBoard(n, greedy_board(problem, rng, options["greedy_tries"]), problem.fixed)
        else:
            board = ConflictBoard.random(problem, generator)
        fixed = problem.fixed
        moves = len(board.free_columns)
        steps = 0
        max_steps = options["max_steps"] if options["max_steps"] is not None else max(1000, 100 * n)
        step_cap = max_steps
        if budget.iterations is not None:
            step_cap = min(step_cap, budget.iterations)
        conflicted = ConflictedQueens(board.conflicted_columns())
        initial_conflicts = len(conflicted)
        # Attacked queens whose current row is their only best row since the last move.
        # When every attacked queen is pinned, no step can ever move a queen again.
        pinned: set[int] = set()

        def outcome(status: Status, stuck: bool = False) -> Outcome:
            counters = {"initial_conflicts": initial_conflicts, "stuck": int(stuck)}
            return Outcome(status, board.queens, steps, moves, counters)

        while conflicted:
            position = int(generator.integers(len(conflicted)))
            column = conflicted.items[position]
            if board.attacks(column, int(board.queens[column])) == 0:
                conflicted.remove_at(position)
                continue
            if steps >= step_cap:
                return outcome(Status.GAVE_UP if steps >= max_steps else Status.TIMED_OUT)
            if steps % CHECK_EVERY == 0 and budget.out_of_time():
                return outcome(Status.TIMED_OUT)
            attacks = board.column_attacks(column)
            fewest = attacks.min()
            ties = np.flatnonzero(attacks == fewest)
            row = int(ties[generator.integers(len(ties))])
            steps += 1
            if row != board.queens[column]:
                board.move(column, row)
                moves += 1
                pinned.clear()
                if fewest > 0:
                    for other in board.attackers(column).tolist():
                        if other not in fixed:
                            conflicted.add(other)
            elif len(ties) == 1 and column not in pinned:
                pinned.add(column)
                if all(c in pinned or board.attacks(c, int(board.queens[c])) == 0 for c in conflicted.items):
                    return outcome(Status.GAVE_UP, stuck=True)
        return outcome(Status.SOLVED)


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(MinConflicts())
