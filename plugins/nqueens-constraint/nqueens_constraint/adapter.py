"""``python-constraint``: N-Queens posed to python-constraint 2.x.

The model is the library's classic one: a variable per column whose domain is
the rows; an AllDifferentConstraint on the rows; for each pair of columns at
distance d a FunctionConstraint ``|row_a - row_b| != d``. Fixed queens shrink
their column's domain to one row; blocked squares leave it.

``solver`` picks the library's solver. The default is ``backtracking``
(BacktrackingSolver with forward checking: degree then MRV variable order),
the fastest measured here for a first solution: python-constraint 2.9's own
default, OptimizedBacktrackingSolver, took over 60 s at n = 32 where
BacktrackingSolver took milliseconds. ``recursive`` is
RecursiveBacktrackingSolver, ``optimized`` OptimizedBacktrackingSolver, and
``min-conflicts`` MinConflictsSolver (``steps`` repairs, the host's rng), which
is incomplete: this variant then declares itself incomplete and gives up
rather than claim no-solution.

The library has no time limit. The adapter adds a ``Watchdog`` constraint over
every variable: the solvers call it on each assignment, it counts them and,
every so often, reads the clock and raises when the budget is spent, which
unwinds the search. Its cost is one cheap call per assignment beside the n - 1
diagonal checks (measured in benchmarks/adapters.py).

Counts: the library reports nothing, so both figures come from the watchdog.
For the backtracking solvers one **iteration** is one assignment tried (a
queen placed in a column, then checked) and **moves** counts the same
assignments. MinConflictsSolver evaluates every constraint for every row it
scores, so there a watchdog call is one row scored (n per repair), and moves
counts those too. Counter: ``watchdog_calls``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from nqueens_plugins import Adapter, Budget, Count, Option, Outcome, Problem, Requirement, Status

SOLVERS = ("backtracking", "recursive", "optimized", "min-conflicts")
CHECK_EVERY = 256  # assignments between clock reads


class OutOfBudget(Exception):
    """Raised inside the library's search to stop it when the budget is spent."""


def make_watchdog(budget: Budget) -> Any:
    """A constraint that is always satisfied but stops the search when the budget runs out."""
    from constraint import Constraint

    class Watchdog(Constraint):
        def __init__(self) -> None:
            self.assignments = 0
            self._countdown = CHECK_EVERY
            self._cap = budget.iterations

        def __call__(self, variables: Any, domains: Any, assignments: Any, forwardcheck: Any = False) -> bool:
            self.assignments += 1
            self._countdown -= 1
            if not self._countdown:
                self._countdown = CHECK_EVERY
                if budget.out_of_time() or (self._cap is not None and self.assignments >= self._cap):
                    raise OutOfBudget
            return True

    return Watchdog()


def library_solver(name: str, rng: random.Random, steps: int) -> Any:
    import constraint

    if name == "backtracking":
        return constraint.BacktrackingSolver()
    if name == "recursive":
        return constraint.RecursiveBacktrackingSolver()
    if name == "optimized":
        return constraint.OptimizedBacktrackingSolver()
    return constraint.MinConflictsSolver(steps=steps, rand=rng)


def build_problem(problem: Problem, solver: Any, watchdog: Any | None, budget: Budget | None = None) -> Any:
    """The classic python-constraint model of N-Queens (plus the watchdog, if given).

    Building n(n-1)/2 constraints takes a while at large n, so the budget is
    checked here too (raising OutOfBudget), not only during the search.
    """
    import constraint

    n = problem.n
    model = constraint.Problem(solver)
    for column in range(n):
        mask = problem.allowed_rows[column]  # the fixed row, or the rows not blocked
        model.addVariable(column, [r for r in range(n) if mask >> r & 1])
    model.addConstraint(constraint.AllDifferentConstraint())
    for first in range(n):
        if budget is not None and budget.out_of_time():
            raise OutOfBudget
        for second in range(first + 1, n):
            distance = second - first
            model.addConstraint(lambda a, b, d=distance: abs(a - b) != d, (first, second))
    if watchdog is not None:
        model.addConstraint(watchdog)
    return model


class PythonConstraint(Adapter):
    name = "python-constraint"
    runs_on = "python-constraint (python)"
    family = "CP"
    summary = "The python-constraint library's solvers on the classic pairwise model."
    complete = True
    supports_blocked = True
    requires = (
        Requirement(
            "python-constraint needs the python-constraint2 package: pip install python-constraint2",
            module="constraint",
        ),
    )
    max_n = 1000  # n(n-1)/2 pairwise constraints: half a million at the limit
    options = (
        Option("solver", str, "backtracking", "the library's solver", choices=SOLVERS),
        Option("steps", int, 1000, "repairs for solver=min-conflicts", minimum=1),
    )

    def is_complete(self, options: Mapping[str, Any]) -> bool:
        return options["solver"] != "min-conflicts"

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        watchdog = make_watchdog(budget)
        if problem.contradiction() is not None:  # the library refuses an empty domain; the answer is plain
            status = Status.NO_SOLUTION if self.is_complete(options) else Status.GAVE_UP
            return self._outcome(status, None, watchdog)
        try:
            model = build_problem(problem, library_solver(options["solver"], rng, options["steps"]), watchdog, budget)
            solution = model.getSolution()
        except OutOfBudget:
            return self._outcome(Status.TIMED_OUT, None, watchdog)
        if solution is None:
            status = Status.NO_SOLUTION if self.is_complete(options) else Status.GAVE_UP
            return self._outcome(status, None, watchdog)
        return self._outcome(Status.SOLVED, [solution[c] for c in range(problem.n)], watchdog)

    def count(self, problem: Problem, budget: Budget, options: Mapping[str, Any], unique: bool) -> Count:
        if unique:
            raise NotImplementedError("python-constraint counts all solutions, not classes under symmetry")
        watchdog = make_watchdog(budget)
        solutions = 0
        status = Status.SOLVED
        if problem.contradiction() is not None:
            return Count(status, 0, False, 0, {"watchdog_calls": 0})
        try:
            model = build_problem(
                problem, library_solver(options["solver"], random.Random(0), options["steps"]), watchdog, budget
            )
            for _ in model.getSolutionIter():
                solutions += 1
        except OutOfBudget:
            status = Status.TIMED_OUT
        return Count(status, solutions, False, watchdog.assignments, {"watchdog_calls": watchdog.assignments})

    @staticmethod
    def _outcome(status: Status, queens: list[int] | None, watchdog: Any) -> Outcome:
        done = watchdog.assignments
        return Outcome(status, queens, done, done, {"watchdog_calls": done})
