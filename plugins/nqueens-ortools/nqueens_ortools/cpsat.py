"""``ortools-cpsat``: N-Queens posed to OR-Tools CP-SAT.

Two models (option ``model``):

* ``alldiff`` (default, the OR-Tools sample): one integer variable per column,
  ``q[c]`` = its row, and three AllDifferent constraints over ``q[c]``,
  ``q[c] + c`` and ``q[c] - c``.
* ``boolean``: one Boolean per square; exactly one queen per row and per
  column, at most one per diagonal. Unit propagation on these at-most-one
  constraints is cheap, and CP-SAT's default search solves much larger boards
  with it. Measured here (benchmarks/adapters.py, 1 worker):
  n = 200 in 1.7 s against 11.6 s for the sample model, and n = 500 in about
  10 s, where the sample model finds nothing within 60 s.

``strategy`` fixes a decision strategy on the ``q`` variables of the alldiff
model (``first-min``: columns in order, lowest row; ``mindomain-min`` and
``mindomain-median``: fewest rows left first), with FIXED_SEARCH; the default
``automatic`` leaves search to CP-SAT.

The budget's time limit becomes ``max_time_in_seconds``, its iteration cap
``max_number_of_conflicts``; the run's seed becomes ``random_seed``. With
``workers`` = 1 (the default) CP-SAT is deterministic, so the same seed gives
the same board; more workers race portfolio strategies and may not. Counting
enumerates solutions with one worker whatever ``workers`` says (with several,
CP-SAT can report a solution twice). Fixed queens become equalities; blocked
squares are values left out of a column's domain (alldiff) or Booleans fixed
to 0 (boolean).

Counts: one **iteration** is one CP-SAT branch (``NumBranches``); CP-SAT does
not report placements, so **moves** is the number of queens in the answer.
Counters: ``branches``, ``conflicts`` and CP-SAT's own ``wall_time``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from nqueens_plugins import Adapter, Budget, Count, Option, Outcome, Problem, Requirement, SizeLimit, Status

STRATEGIES = ("automatic", "first-min", "mindomain-min", "mindomain-median")
FIXED_STRATEGIES = STRATEGIES[1:]
MAX_N_BOOLEAN = 1000  # the boolean model holds n^2 variables
# A fixed strategy makes CP-SAT encode every value of every q[c] as a Boolean
# (n^2 literals) before it looks at the clock: 2 s at n = 1000, 55 s at 4000.
MAX_N_STRATEGY = 500


class OutOfBudget(Exception):
    """The budget ran out while the model was still being built."""


def build_model(problem: Problem, model: str, strategy: str, budget: Budget) -> tuple[Any, list[list[Any]] | list[Any]]:
    """The CP-SAT model and its decision variables: q[c] (alldiff) or x[r][c] (boolean).

    The boolean model has n^2 variables and takes a while to build in Python at
    large n, so the budget is checked while building it.
    """
    from ortools.sat.python import cp_model

    n = problem.n
    m = cp_model.CpModel()
    if model == "alldiff":
        if problem.blocked:  # a blocked square is a value removed from its column's domain
            open_rows = [[r for r in range(n) if mask >> r & 1] for mask in problem.allowed_rows]
            q = [m.new_int_var_from_domain(cp_model.Domain.from_values(open_rows[c]), f"q{c}") for c in range(n)]
        else:
            q = [m.new_int_var(0, n - 1, f"q{c}") for c in range(n)]
        m.add_all_different(q)
        m.add_all_different([q[c] + c for c in range(n)])
        m.add_all_different([q[c] - c for c in range(n)])
        for column, row in problem.fixed.items():
            m.add(q[column] == row)
        if strategy != "automatic":
            choose, select = {
                "first-min": (cp_model.CHOOSE_FIRST, cp_model.SELECT_MIN_VALUE),
                "mindomain-min": (cp_model.CHOOSE_MIN_DOMAIN_SIZE, cp_model.SELECT_MIN_VALUE),
                "mindomain-median": (cp_model.CHOOSE_MIN_DOMAIN_SIZE, cp_model.SELECT_MEDIAN_VALUE),
            }[strategy]
            m.add_decision_strategy(q, choose, select)
        return m, q
    x = []
    for r in range(n):
        if budget.out_of_time():
            raise OutOfBudget
        x.append([m.new_bool_var(f"x{r}_{c}") for c in range(n)])
    for r in range(n):
        m.add_exactly_one(x[r])
    for c in range(n):
        m.add_exactly_one([x[r][c] for r in range(n)])
    for difference in range(-n + 1, n):
        cells = [x[r][r - difference] for r in range(n) if 0 <= r - difference < n]
        if len(cells) > 1:
            m.add_at_most_one(cells)
    for total in range(1, 2 * n - 2):
        cells = [x[r][total - r] for r in range(n) if 0 <= total - r < n]
        if len(cells) > 1:
            m.add_at_most_one(cells)
    for column, row in problem.fixed.items():
        m.add(x[row][column] == 1)
    for column, row in problem.blocked:
        m.add(x[row][column] == 0)
    return m, x


def read_queens(solver_or_callback: Any, n: int, model: str, variables: Any) -> list[int]:
    value = solver_or_callback.value
    if model == "alldiff":
        return [int(value(v)) for v in variables]
    return [next(r for r in range(n) if value(variables[r][c])) for c in range(n)]


def configure(solver: Any, budget: Budget, workers: int, seed: int, strategy: str) -> None:
    from ortools.sat.python import cp_model

    parameters = solver.parameters
    parameters.num_workers = workers
    parameters.random_seed = seed
    remaining = budget.remaining()
    if remaining is not None:
        parameters.max_time_in_seconds = max(remaining, 0.001)
    if budget.iterations is not None:
        parameters.max_number_of_conflicts = budget.iterations
    if strategy != "automatic":
        parameters.search_branching = cp_model.FIXED_SEARCH


def counters_of(solver: Any) -> dict[str, int | float]:
    return {
        "branches": int(solver.num_branches),
        "conflicts": int(solver.num_conflicts),
        "wall_time": float(solver.wall_time),
    }


class CpSat(Adapter):
    name = "ortools-cpsat"
    runs_on = "OR-Tools CP-SAT (C++)"
    family = "CP"
    summary = "OR-Tools CP-SAT on the sample's AllDifferent model or a Boolean model; complete."
    complete = True
    supports_blocked = True
    requires = (Requirement("ortools-cpsat needs OR-Tools: pip install ortools", module="ortools"),)
    size_limits = (
        SizeLimit({"boolean": MAX_N_BOOLEAN}, "n^2 variables", option="model"),
        SizeLimit(dict.fromkeys(FIXED_STRATEGIES, MAX_N_STRATEGY), "it encodes n^2 literals", option="strategy"),
    )
    max_n = 5000
    options = (
        Option("model", str, "alldiff", "alldiff (the OR-Tools sample) or boolean", choices=("alldiff", "boolean")),
        Option("workers", int, 1, "CP-SAT search workers (1 repeats exactly)", minimum=1, maximum=64),
        Option("strategy", str, "automatic", "decision strategy (alldiff model)", choices=STRATEGIES),
    )

    def precheck(self, n: int, options: Mapping[str, Any]) -> str | None:
        if options["strategy"] != "automatic" and options["model"] != "alldiff":
            return "ortools-cpsat: strategy applies to model=alldiff only"
        return super().precheck(n, options)

    def warm_up(self, options: Mapping[str, Any], preparation: str = "") -> None:
        """A 4x4 solve of our own, not the default's guess: importing OR-Tools on the first call takes about
        0.4 s, near the short limit the host gives a guess, past which a solver runs cold."""
        self.solve(Problem(4), random.Random(0), Budget(2.0), dict(options))

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        from ortools.sat.python import cp_model

        if problem.contradiction() is not None:  # an empty domain, which CP-SAT rejects as a malformed model
            return Outcome(Status.NO_SOLUTION, None, 0, 0, {"branches": 0, "conflicts": 0, "wall_time": 0.0})
        try:
            model, variables = build_model(problem, options["model"], options["strategy"], budget)
        except OutOfBudget:
            return Outcome(Status.TIMED_OUT, None, 0, 0, {"branches": 0, "conflicts": 0, "wall_time": 0.0})
        solver = cp_model.CpSolver()
        configure(solver, budget, options["workers"], rng.randrange(2**31), options["strategy"])
        status = solver.solve(model)
        counters = counters_of(solver)
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            queens = read_queens(solver, problem.n, options["model"], variables)
            return Outcome(Status.SOLVED, queens, int(counters["branches"]), problem.n, counters)
        if status == cp_model.INFEASIBLE:
            return Outcome(Status.NO_SOLUTION, None, int(counters["branches"]), 0, counters)
        if status == cp_model.MODEL_INVALID:
            raise RuntimeError(f"CP-SAT rejected the model: {model.validate()}")
        return Outcome(Status.TIMED_OUT, None, int(counters["branches"]), 0, counters)

    def count(self, problem: Problem, budget: Budget, options: Mapping[str, Any], unique: bool) -> Count:
        from ortools.sat.python import cp_model

        if unique:
            raise NotImplementedError("ortools-cpsat counts all solutions, not classes under symmetry")
        if problem.contradiction() is not None:
            return Count(Status.SOLVED, 0, False, 0, {"branches": 0, "conflicts": 0, "wall_time": 0.0})
        try:
            model, _ = build_model(problem, options["model"], options["strategy"], budget)
        except OutOfBudget:
            return Count(Status.TIMED_OUT, 0, False, 0, {"branches": 0, "conflicts": 0, "wall_time": 0.0})
        solver = cp_model.CpSolver()
        configure(solver, budget, 1, 0, options["strategy"])
        solver.parameters.enumerate_all_solutions = True

        class Counter(cp_model.CpSolverSolutionCallback):
            def __init__(self) -> None:
                super().__init__()
                self.solutions = 0

            def on_solution_callback(self) -> None:
                self.solutions += 1

        counter = Counter()
        status = solver.solve(model, counter)
        counters = counters_of(solver)
        finished = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
        return Count(
            Status.SOLVED if finished else Status.TIMED_OUT,
            counter.solutions,
            False,
            int(counters["branches"]),
            counters,
        )
