"""Built-in plugin, worker side: the explicit construction, a solution for every n >= 4 written down in O(n).

The rule (Pauls 1874; Hoffman, Loessi and Moore 1969; Bernhardsson 1991), in
1-based rows, column by column:

* list the even rows 2, 4, ..., then the odd rows 1, 3, 5, ...;
* if n mod 6 = 2: swap 1 and 3 in the odd list and move 5 to its end;
* if n mod 6 = 3: move 2 to the end of the even list, and 1, 3 to the end of
  the odd list.

n = 1 is one queen; n = 2 and 3 have no solution, which is proved by
exhaustion (there are 4 and 27 boards with one queen per column; none is
valid), so this solver is complete on plain boards. It ignores ``rng``: there
is one answer per n. It cannot honour fixed queens (the completion problem is
NP-complete), and says so. It is the reference answer for large-n checks:
10^7 queens are written with a few numpy operations.

Counts: one **iteration** (the whole construction is one state transition) and
n **moves** (each queen placed once).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from nqueens_plugins.core.hookspecs import hookimpl
from nqueens_plugins.core.problem import Budget, Outcome, Problem, Status
from nqueens_plugins.core.solver import Solver

if TYPE_CHECKING:
    from nqueens_plugins.core.hookspecs import SolverRegister

MAX_N = 200_000_000


def construct(n: int) -> np.ndarray | None:
    """queens[c] = r (0-based) for an n-queens solution, or None for n = 2, 3."""
    if n == 1:
        return np.zeros(1, dtype=np.int64)
    if n in (2, 3):
        return None
    evens = np.arange(2, n + 1, 2, dtype=np.int64)
    odds = np.arange(1, n + 1, 2, dtype=np.int64)
    if n % 6 == 2:
        odds = np.concatenate(([3, 1], odds[3:], [5]))
    elif n % 6 == 3:
        evens = np.concatenate((evens[1:], [2]))
        odds = np.concatenate((odds[2:], [1, 3]))
    return np.concatenate((evens, odds)) - 1


class Construction(Solver):
    name = "construction"
    family = "construction"
    runs_on = "numpy"
    traces = True
    summary = "The explicit formula: a solution for every n >= 4 in O(n), no search."
    complete = True  # on plain boards: it answers every n, and n = 2, 3 are proved empty
    can_count = False
    supports_fixed = False
    max_n = MAX_N
    bytes_per_queen = 80  # peak resident bytes a queen, verification included, with headroom (large_boards.py)

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        queens = construct(problem.n)
        if queens is None:
            return Outcome(Status.NO_SOLUTION, None, 1, 0)
        if budget.trace is not None:  # one step: the formula places every queen at once
            for column, row in enumerate(queens.tolist()):
                budget.trace.place(column, row)
        return Outcome(Status.SOLVED, queens, 1, problem.n)


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(Construction())
