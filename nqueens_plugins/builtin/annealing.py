"""Built-in plugin, worker side: simulated annealing, with the schedule of the seed tutorial.

From a random board (one queen per column), each step proposes moving a random
free queen to a random other row of its column. With energy E = attacking
pairs and dE = E(current) - E(proposed), the move is accepted with probability
min(1, e^(dE/T)): always when it does not make things worse, sometimes when it
does, less often as T falls. T starts at T0 = n^2 and is multiplied by the
cooling factor 0.95 after every step, never below the floor 0.01. The run
ends solved at E = 0, or gives up after ``max_steps`` = 50 000 steps. All four
numbers are options. It is incomplete: n = 2 and 3 (and unsatisfiable
instances) end in ``gave-up``. Fixed queens are never proposed; a queen with
blocked squares in its column is proposed only its open rows.

Counts: one **iteration** is one step of the schedule (a proposal, accepted or
not). One **move** is an accepted proposal (a queen moved). Counters:
``accepted_worse`` (uphill moves taken) and ``final_temperature``.

Each proposal is scored in O(1) from incremental row and diagonal counts.
"""

from __future__ import annotations

import bisect
import math
import random
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nqueens_plugins.builtin.engines.board import attacking_pairs, line_counts, open_rows_of
from nqueens_plugins.core.hookspecs import hookimpl
from nqueens_plugins.core.problem import Budget, Outcome, Problem, Status
from nqueens_plugins.core.solver import Option, Solver

if TYPE_CHECKING:
    from nqueens_plugins.core.hookspecs import SolverRegister

CHECK_EVERY = 1024  # steps between budget polls


class SimulatedAnnealing(Solver):
    name = "simulated-annealing"
    family = "local search"
    runs_on = "python"
    traces = True
    summary = "Random moves, worse ones accepted with probability e^(dE/T) as T cools."
    supports_blocked = True
    max_n = 10_000_000
    bytes_per_queen = 200  # peak resident bytes a queen, with headroom over what a 10^6 board takes
    options = (
        Option("t0", float, None, "starting temperature; none means n^2", minimum=0.0),
        Option("cooling", float, 0.95, "factor applied to T after each step", minimum=0.0, maximum=1.0),
        Option("floor", float, 0.01, "lowest temperature", minimum=1e-12),
        Option("max_steps", int, 50_000, "steps before giving up", minimum=1),
    )

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        n = problem.n
        if problem.contradiction() is not None:
            return Outcome(Status.GAVE_UP, None, 0, 0, {"accepted_worse": 0, "final_temperature": 0.0})
        # Rows a free queen may take, for the columns with blocked squares; a column
        # left with one open row has nowhere to move and is not proposed.
        open_rows: dict[int, list[int]] = {c: rows.tolist() for c, rows in open_rows_of(problem).items()}
        free = [c for c in range(n) if c not in problem.fixed and len(open_rows.get(c, range(n))) > 1]
        queens = [problem.fixed.get(c, 0) for c in range(n)]
        for column in range(n):
            if column not in problem.fixed:
                choices = open_rows.get(column)
                queens[column] = rng.randrange(n) if choices is None else choices[rng.randrange(len(choices))]
        rows, diagonals, anti = line_counts(n, enumerate(queens))
        energy = attacking_pairs(rows, diagonals, anti)
        trace = budget.trace
        if trace is not None:
            trace.board(queens)

        temperature = float(n * n) if options["t0"] is None else options["t0"]
        cooling, floor = options["cooling"], options["floor"]
        temperature = max(temperature, floor)
        max_steps = options["max_steps"]
        steps = moves = accepted_worse = 0
        can_move = bool(free) and n > 1
        step_cap = sys.maxsize if budget.iterations is None else budget.iterations

        def outcome(status: Status) -> Outcome:
            counters = {"accepted_worse": accepted_worse, "final_temperature": temperature}
            return Outcome(status, queens, steps, moves, counters)

        while energy > 0:
            if steps >= max_steps or not can_move:
                return outcome(Status.GAVE_UP)
            if steps >= step_cap or (steps % CHECK_EVERY == 0 and budget.out_of_time()):
                return outcome(Status.TIMED_OUT)
            steps += 1
            column = free[rng.randrange(len(free))]
            old = queens[column]
            choices = open_rows.get(column) if open_rows else None
            if choices is None:
                new = rng.randrange(n - 1)
                if new >= old:
                    new += 1  # a uniformly random row other than the current one
            else:  # a uniformly random open row other than the current one (open rows are sorted)
                index = rng.randrange(len(choices) - 1)
                if index >= bisect.bisect_left(choices, old):
                    index += 1
                new = choices[index]
            leave = rows[old] + diagonals[old + column] + anti[old - column + n - 1] - 3
            join = rows[new] + diagonals[new + column] + anti[new - column + n - 1]
            improvement = leave - join  # dE = E(current) - E(proposed)
            if improvement >= 0 or rng.random() < math.exp(improvement / temperature):
                accepted_worse += improvement < 0
                rows[old] -= 1
                diagonals[old + column] -= 1
                anti[old - column + n - 1] -= 1
                rows[new] += 1
                diagonals[new + column] += 1
                anti[new - column + n - 1] += 1
                queens[column] = new
                energy -= improvement
                moves += 1
                if trace is not None:
                    trace.move(column, new)
            temperature = max(temperature * cooling, floor)
        return outcome(Status.SOLVED)


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(SimulatedAnnealing())
