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
placements, then each repair that changes a row. Counters: ``initial_conflicts``
(conflicted queens after the initial board) and ``rescans``.

Speed: the row attack counts are kept incrementally; the best row of a column
is found by a vectorised sum of three slices of those counts (O(n) numpy work,
no Python loop over rows). For n > ``EXACT_SCAN_LIMIT`` the conflicted queens
are listed once and drawn from that list until it is used up (queens found
no longer attacked are dropped, then the board is rescanned), instead of a
full scan before every step.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Mapping
from typing import Any

import numpy as np

from nqueens_plugins.builtin.board import ConflictBoard, numpy_rng
from nqueens_plugins.hookspecs import hookimpl
from nqueens_plugins.problem import Budget, Outcome, Problem, Status
from nqueens_plugins.solver import Option, Solver

EXACT_SCAN_LIMIT = 1000
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


class MinConflicts(Solver):
    name = "min-conflicts"
    summary = "Moves a random attacked queen to the row of its column with fewest attacks."
    max_n = 20_000_000
    options = (
        Option("init", str, "random", "initial board", choices=("random", "greedy")),
        Option("greedy_tries", int, 32, "random rows a queen tries with init=greedy", minimum=1),
        Option("max_steps", int, 100_000, "repair steps before giving up", minimum=0),
    )

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        n = problem.n
        generator = numpy_rng(rng)
        if options["init"] == "greedy":
            board = ConflictBoard(n, greedy_board(problem, rng, options["greedy_tries"]), problem.fixed)
        else:
            board = ConflictBoard.random(problem, generator)
        moves = len(board.free_columns)
        steps = rescans = 0
        step_cap = options["max_steps"]
        if budget.iterations is not None:
            step_cap = min(step_cap, budget.iterations)
        candidates: list[int] = board.conflicted_columns().tolist()
        initial_conflicts = len(candidates)

        def outcome(status: Status) -> Outcome:
            counters = {"initial_conflicts": initial_conflicts, "rescans": rescans}
            return Outcome(status, board.queens, steps, moves, counters)

        while True:
            if n <= EXACT_SCAN_LIMIT and steps:
                candidates = board.conflicted_columns().tolist()
            column = -1
            while candidates:
                index = int(generator.integers(len(candidates)))
                column = candidates[index]
                if board.attacks(column, int(board.queens[column])) > 0:
                    break
                candidates[index] = candidates[-1]
                candidates.pop()
                column = -1
            if column < 0:
                candidates = board.conflicted_columns().tolist()
                rescans += 1
                if not candidates:
                    return outcome(Status.SOLVED)
                continue
            if steps >= step_cap:
                status = Status.GAVE_UP if steps >= options["max_steps"] else Status.TIMED_OUT
                return outcome(status)
            if steps % CHECK_EVERY == 0 and budget.out_of_time():
                return outcome(Status.TIMED_OUT)
            attacks = board.column_attacks(column)
            ties = np.flatnonzero(attacks == attacks.min())
            row = int(ties[generator.integers(len(ties))])
            steps += 1
            if row != board.queens[column]:
                board.move(column, row)
                moves += 1


@hookimpl
def nqueens_register_solvers(register) -> None:  # type: ignore[no-untyped-def]
    register(MinConflicts())
