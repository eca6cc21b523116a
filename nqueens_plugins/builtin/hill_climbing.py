"""Built-in plugin, worker side: steepest-ascent, random-neighbour, random-restart, first-choice hill climbing.

All four start from a random board (one queen per column, any row) and move one
queen within its column; the cost is the number of attacking pairs, and a state
is solved at cost 0. They are incomplete: none can prove that a board has no
solution, so n = 2 and 3 (and any unsatisfiable instance) end in ``gave-up``.
Fixed queens never move; a blocked square is never a candidate row. On hard
instances plain steepest ascent stalls at once: ``random-restart`` (or
``steepest-ascent[sideways=S,restarts=R]``) is the member of the family that
is useful there.

* ``steepest-ascent`` scores all n(n-1) single-queen moves and takes the best,
  breaking ties at random. By default it stops at the first state no move
  improves (a local minimum or a plateau): that is the method. ``sideways``
  allows that many consecutive equal-cost moves; ``restarts`` allows that many
  fresh random boards once stuck.
* ``random-neighbour`` is steepest ascent that, on a plateau, jumps to a random
  equal-cost neighbour, at most ``sideways`` = 100 times in a row.
* ``random-restart`` is steepest ascent that starts again from a new random
  board after ``sideways`` = 10 non-improving iterations in a row (or at once
  at a strict local minimum), as the seed notebook does, up to ``restarts``.
* ``first-choice`` looks at the columns in random order and, within a column,
  takes a random strictly better row: the first improving neighbour found, not
  the best. It is stuck when no move improves.

Counts: one **iteration** is one state transition: a queen moved or a restart.
One **move** is one queen moved; a restart places every free queen anew, so it
adds that many moves. Counters: ``steps`` (the textbook's step count, AIMA 4.1.1:
queens moved by climbing, restarts apart: iterations minus restarts),
``restarts``, ``sideways`` (equal-cost moves taken) and ``evaluated``
(neighbours scored).

Scoring is vectorised over the incremental counts of ``board.ConflictBoard``:
each neighbour costs three look-ups, never a board re-score. The n x n score
matrix bounds the board at ``max_n`` = 2000.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from nqueens_plugins.builtin.engines.board import ConflictBoard, numpy_rng, open_rows_of
from nqueens_plugins.core.hookspecs import hookimpl
from nqueens_plugins.core.problem import Budget, Outcome, Problem, Status
from nqueens_plugins.core.solver import Option, Solver

if TYPE_CHECKING:
    from nqueens_plugins.core.hookspecs import SolverRegister

NOT_A_MOVE = np.iinfo(np.int64).max // 4


def sideways_option(default: int, help: str) -> Option:
    return Option("sideways", int, default, help, minimum=0)


def restarts_option(default: int) -> Option:
    return Option("restarts", int, default, "fresh random boards allowed once stuck", minimum=0)


class NeighbourScores:
    """The cost change of every single-queen move, from the board's incremental counts."""

    def __init__(self, board: ConflictBoard) -> None:
        n, free = board.n, board.free_columns
        rows = np.arange(n, dtype=np.int32)
        self.diagonal_index = rows[None, :] + free[:, None].astype(np.int32)
        self.anti_index = rows[None, :] - free[:, None].astype(np.int32) + (n - 1)
        self.position = np.arange(len(free))
        self.forbidden: np.ndarray | None = None  # [i, r]: free column i may not take row r
        if board.forbidden:
            self.forbidden = np.zeros((len(free), n), dtype=bool)
            for i, column in enumerate(free.tolist()):
                if column in board.forbidden:
                    self.forbidden[i] = board.forbidden[column] > 0

    def deltas(self, board: ConflictBoard) -> np.ndarray:
        """deltas[i, r]: cost change if the queen of free column i moves to row r."""
        free = board.free_columns
        attacks = board.rows[None, :] + board.diagonals[self.diagonal_index] + board.anti[self.anti_index]
        current = board.queens[free]
        here = attacks[self.position, current] - 3  # the queen does not attack itself
        deltas = attacks - here[:, None]
        deltas[self.position, current] = NOT_A_MOVE
        if self.forbidden is not None:
            deltas[self.forbidden] = NOT_A_MOVE
        return deltas


class SteepestAscent(Solver):
    name = "steepest-ascent"
    family = "local search"
    runs_on = "python"
    traces = True
    summary = "Best of all n(n-1) single-queen moves until no move improves (hill climbing)."
    supports_blocked = True
    max_n = 2000
    options = (
        sideways_option(0, "consecutive equal-cost moves allowed; 0 stops on the first plateau"),
        restarts_option(0),
    )

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        if problem.contradiction() is not None:
            return Outcome(Status.GAVE_UP, None, 0, 0, {"steps": 0, "restarts": 0, "sideways": 0, "evaluated": 0})
        generator = numpy_rng(rng)
        open_rows = open_rows_of(problem)
        board = ConflictBoard.random(problem, generator, open_rows, budget.trace)
        scores = NeighbourScores(board)
        free = board.free_columns
        neighbours = len(free) * (problem.n - 1)
        iterations = moves = restarts = sideways = evaluated = flat = 0

        def outcome(status: Status) -> Outcome:
            counters = {
                "steps": iterations - restarts,
                "restarts": restarts,
                "sideways": sideways,
                "evaluated": evaluated,
            }
            return Outcome(status, board.queens, iterations, moves, counters)

        while board.cost > 0:
            if budget.exhausted(iterations):
                return outcome(Status.TIMED_OUT)
            if neighbours:
                deltas = scores.deltas(board).ravel()
                evaluated += neighbours
                best = int(deltas.min())
            else:
                best = NOT_A_MOVE
            if best < 0 or (best == 0 and flat < options["sideways"]):
                flat = flat + 1 if best == 0 else 0
                sideways += best == 0
                ties = np.flatnonzero(deltas == best)
                index = int(ties[generator.integers(len(ties))])
                board.move(int(free[index // problem.n]), index % problem.n)
                iterations += 1
                moves += 1
                continue
            if restarts >= options["restarts"]:
                return outcome(Status.GAVE_UP)
            board = ConflictBoard.random(problem, generator, open_rows, budget.trace)
            restarts += 1
            iterations += 1
            moves += len(free)
            flat = 0
        return outcome(Status.SOLVED)


class RandomNeighbour(SteepestAscent):
    name = "random-neighbour"
    summary = "Steepest ascent that jumps to a random equal-cost neighbour on a plateau."
    options = (
        sideways_option(100, "plateau jumps allowed in a row before giving up"),
        restarts_option(0),
    )


class RandomRestart(SteepestAscent):
    name = "random-restart"
    summary = "Steepest ascent restarted from a random board after 10 non-improving iterations."
    options = (
        sideways_option(10, "non-improving iterations in a row before a restart (the notebook's k)"),
        restarts_option(1000),
    )


class FirstChoice(Solver):
    name = "first-choice"
    family = "local search"
    runs_on = "python"
    traces = True
    summary = "Takes the first strictly better move found in random order (stochastic hill climbing)."
    supports_blocked = True
    max_n = 100_000
    options = (restarts_option(0),)

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        if problem.contradiction() is not None:
            return Outcome(Status.GAVE_UP, None, 0, 0, {"steps": 0, "restarts": 0, "sideways": 0, "evaluated": 0})
        generator = numpy_rng(rng)
        open_rows = open_rows_of(problem)
        board = ConflictBoard.random(problem, generator, open_rows, budget.trace)
        free = board.free_columns
        iterations = moves = restarts = evaluated = 0

        def outcome(status: Status) -> Outcome:
            counters = {"steps": iterations - restarts, "restarts": restarts, "sideways": 0, "evaluated": evaluated}
            return Outcome(status, board.queens, iterations, moves, counters)

        while board.cost > 0:
            if budget.exhausted(iterations):
                return outcome(Status.TIMED_OUT)
            improved = False
            for column in generator.permutation(free):
                attacks = board.column_attacks(int(column))
                evaluated += problem.n - 1
                better = np.flatnonzero(attacks < attacks[board.queens[column]])
                if len(better):
                    board.move(int(column), int(better[generator.integers(len(better))]))
                    iterations += 1
                    moves += 1
                    improved = True
                    break
            if improved:
                continue
            if restarts >= options["restarts"]:
                return outcome(Status.GAVE_UP)
            board = ConflictBoard.random(problem, generator, open_rows, budget.trace)
            restarts += 1
            iterations += 1
            moves += len(free)
        return outcome(Status.SOLVED)


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(SteepestAscent())
    register(RandomNeighbour())
    register(RandomRestart())
    register(FirstChoice())
