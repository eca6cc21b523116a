"""``z3``: N-Queens posed to the Z3 SMT solver.

Two models (option ``model``), both written as SMT-LIB text and read by
``Solver.from_string``:

* ``bool`` (default): one Boolean ``x{c}_{r}`` per square (column c, row r).
  Every column has exactly one queen (a clause and an at-most-one), every row
  and diagonal at most one (``(_ at-most 1)``, the cardinality constraint
  ``z3.AtMost`` writes, which Z3's pseudo-Boolean theory propagates
  natively). Every row also gets the clause "at least one queen": implied (n
  queens in n columns fill the n rows) and it is what makes the model strong,
  as in the SAT literature's encoding. Blocked squares are unit clauses
  ``(not x)``, fixed queens unit clauses ``x``.
* ``int``: the textbook SMT model: ``q{c}`` in ``[0, n)``, ``distinct`` over
  ``q[c]``, ``q[c] + c`` and ``q[c] - c``; a blocked square is ``q[c] != r``,
  a fixed queen ``q[c] = r``. Z3's arithmetic solver decides it slowly: it is
  here to compare with, not to use.

Measured on this machine (2 cores, one run each, 20 s budget): plain n = 32:
bool 0.14 s, int timed out (n = 16: 0.09 s against 1.2 s); n = 128: bool
5.6 s. On ten CSPLib Blocked instances (n = 28 and 48) bool decided nine,
the int model one; without the implied row clauses bool was 2-16x slower on
the n = 28 ones and timed out on two n = 48 ones it decides in 3-9 s.
Z3's SAT core (``SolverFor("QF_FD")``) was slower than the default solver on
every board tried, so the default solver is used. The README has the table.

Why text rather than the Python API: building the bool model through
``z3.Bool``/``z3.AtMost`` costs 1.3 s at n = 100 and 19 s at n = 400; writing
the same assertions as text and parsing them costs 0.07 s and 1.6 s, and the
search that follows is the same (same decisions, same answer). The text is
parsed in chunks, and the budget is polled between chunks, since parsing
cannot be interrupted.

The budget's time limit becomes the solver's ``timeout`` parameter (ms), less
what Z3 may run on past it at this size (``lag_seconds``), its iteration cap
``max_conflicts`` (Z3 has no limit on decisions; a count also stops once its
decisions reach the cap); the run's seed becomes ``random_seed``. An
``unknown`` whose reason is one of those limits is TIMED_OUT, never
no-solution: only ``unsat`` is a proof. Every run gets a fresh Z3 context, so
nothing of one run reaches the next and the same seed gives the same board.

Counting enumerates: for each row pair of the first two queens (a scope
pushed on the solver), Z3 finds a board, a clause blocking that board is
added and Z3 is asked again, until unsat; the scope is then popped with its
blocking clauses. Each solution costs a check and the checks grow slower with
n, so this is practical for small boards only: n = 10 (724 solutions) in
1.4-4 s (by the machine's load), n = 11 in 7 s, n = 12 in 2 minutes; ``count_seconds`` says how long a
plain board would take, and ``count_parts`` splits a count by the first
queen's row.

Counts: one **iteration** is one Z3 decision (``decisions`` in
``Solver.statistics()``; conflicts where Z3 reports no decisions); Z3 does not
report placements, so **moves** is the number of queens in the answer.
Counters: ``decisions``, ``conflicts``, ``propagations``, ``restarts``, and
where Z3 reports them ``pb_propagations``, ``pb_conflicts``, ``rlimit_count``,
``max_memory_mb`` and ``z3_seconds`` (Z3's own time for the check).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from nqueens_plugins import Adapter, BadInput, Budget, Count, Option, Outcome, Problem, Requirement, SizeLimit, Status

MODELS = ("bool", "int")
# The largest board per model. bool holds n^2 Booleans and 6n cardinality constraints; Z3 runs on
# past its timeout by 0.25 s at n = 300 and 0.8 s at n = 500 (beyond the host's 0.5 s of grace),
# and single parsing steps (Z3 growing its tables) took up to 0.9 s at n = 400 on a busy machine.
# int is O(n) text; n = 5000 overran a 0.5 s timeout by 0.3 s.
MAX_N = {"bool": 300, "int": 2000}
TOO_LARGE = {"bool": "n^2 Booleans", "int": "Z3's set-up outgrows the budget"}
CHUNK_CHARACTERS = 1 << 16  # text parsed between two budget polls (0.02-0.1 s of parsing, by the load)
# What Z3's reason_unknown() says when one of our limits stopped it.
BUDGET_REASONS = ("timeout", "canceled", "max-conflicts-reached", "resource limit")
# Plain-board counting on this machine: seconds per solution found (one incremental check and a
# blocking clause each), for count_seconds.
SECONDS_PER_SOLUTION = 0.001  # at n = 9; it doubles with each n beyond (8.7 ms at n = 12)
SECONDS_MEASURED_AT = 9
PREFIX_COLUMNS = 2  # a count is split by the rows of the first two queens
TRUE_SQUARE = re.compile(r"\(define-fun x(\d+)_(\d+) \(\) Bool\s+true\)")


class OutOfBudget(Exception):
    """The budget ran out while Z3 was still reading the model."""


def at_most_one(literals: list[str]) -> Iterator[str]:
    if len(literals) > 1:
        yield f"(assert ((_ at-most 1) {' '.join(literals)}))"


def bool_assertions(problem: Problem) -> Iterator[str]:
    n = problem.n
    square = [[f"x{c}_{r}" for r in range(n)] for c in range(n)]
    for names in square:
        yield " ".join(f"(declare-const {name} Bool)" for name in names)
    for names in square:
        yield f"(assert (or {' '.join(names)}))"
        yield from at_most_one(names)
    for r in range(n):
        line = [square[c][r] for c in range(n)]
        yield f"(assert (or {' '.join(line)}))"  # implied: n queens fill the n rows
        yield from at_most_one(line)
    for total in range(2 * n - 1):  # c + r constant
        yield from at_most_one([square[c][total - c] for c in range(n) if 0 <= total - c < n])
    for difference in range(-n + 1, n):  # r - c constant
        yield from at_most_one([square[c][c + difference] for c in range(n) if 0 <= c + difference < n])
    for column, row in sorted(problem.blocked):
        yield f"(assert (not {square[column][row]}))"
    for column, row in problem.fixed.items():
        yield f"(assert {square[column][row]})"


def int_assertions(problem: Problem) -> Iterator[str]:
    n = problem.n
    yield " ".join(f"(declare-const q{c} Int)" for c in range(n))
    for c in range(n):
        yield f"(assert (and (<= 0 q{c}) (< q{c} {n})))"
    if n > 1:
        yield f"(assert (distinct {' '.join(f'q{c}' for c in range(n))}))"
        yield f"(assert (distinct {' '.join(f'(+ q{c} {c})' for c in range(n))}))"
        yield f"(assert (distinct {' '.join(f'(- q{c} {c})' for c in range(n))}))"
    for column, row in sorted(problem.blocked):
        yield f"(assert (not (= q{column} {row})))"
    for column, row in problem.fixed.items():
        yield f"(assert (= q{column} {row}))"


def assertions(problem: Problem, model: str) -> Iterator[str]:
    """The model as SMT-LIB lines: declarations first, then assertions."""
    return bool_assertions(problem) if model == "bool" else int_assertions(problem)


def chunks(lines: Iterable[str], size: int = CHUNK_CHARACTERS) -> Iterator[str]:
    """Lines joined into texts of about ``size`` characters (whole lines only)."""
    batch: list[str] = []
    length = 0
    for line in lines:
        batch.append(line)
        length += len(line) + 1
        if length >= size:
            yield "\n".join(batch)
            batch, length = [], 0
    if batch:
        yield "\n".join(batch)


def smt2_text(problem: Problem, model: str) -> str:
    """The whole instance as Z3 reads it, with ``(check-sat)``: what ``z3 FILE`` runs."""
    label = problem.source or f"n={problem.n}"
    head = f"; N-Queens ({label}), model={model}, as nqueens-z3 poses it to Z3\n"
    return head + "\n".join(assertions(problem, model)) + "\n(check-sat)\n"


def lag_seconds(n: int, model: str) -> float:
    """How long Z3 may run on past its timeout on this model, which it is given that much less time.

    Z3 reads its cancel flag only now and then; measured on a busy machine, a check ran on by
    0.25 s on the bool model at n = 300, 0.08 s at n = 200, and by up to 0.12 s on the int model
    at n = 2,000. Returning a little early keeps the run inside the host's 0.5 s of grace.
    """
    if model == "bool":
        return 0.05 + 0.3 * (n / 300) ** 2
    return 0.05 + 0.05 * n / 1000


def out_of_time(budget: Budget, lag: float) -> bool:
    """Whether the time left is no more than Z3 may overrun by: too little to start on more."""
    remaining = budget.remaining()
    return remaining is not None and remaining <= lag


def new_solver(problem: Problem, model: str, budget: Budget) -> Any:
    """A fresh context and solver holding the model; OutOfBudget if time ran out while parsing."""
    import z3

    lag = lag_seconds(problem.n, model)
    solver = z3.Solver(ctx=z3.Context())
    for text in chunks(assertions(problem, model)):
        if out_of_time(budget, lag):
            raise OutOfBudget
        solver.from_string(text)
    if out_of_time(budget, lag):
        raise OutOfBudget
    return solver


def configure(solver: Any, budget: Budget, seed: int, lag: float) -> None:
    """Hand the budget (less ``lag``) and the seed to Z3 (called before every check: the time left shrinks)."""
    solver.set("random_seed", seed)
    remaining = budget.remaining()
    if remaining is not None:
        solver.set("timeout", max(1, int((remaining - lag) * 1000)))
    if budget.iterations is not None:
        solver.set("max_conflicts", budget.iterations)


def read_queens(solver: Any, n: int, model: str) -> list[int]:
    """The board of Z3's model. The bool model's n^2 values are read from the model's text in one
    call (a Python call per square costs a second at n = 300); a square Z3 left out is evaluated."""
    import z3

    found = solver.model()
    ctx = solver.ctx
    if model == "int":
        return [found.eval(z3.Int(f"q{c}", ctx), model_completion=True).as_long() for c in range(n)]
    queens = [-1] * n
    for column, row in TRUE_SQUARE.findall(found.sexpr()):
        queens[int(column)] = int(row)
    for c in range(n):
        if queens[c] < 0:
            queens[c] = next(
                (r for r in range(n) if z3.is_true(found.eval(z3.Bool(f"x{c}_{r}", ctx), model_completion=True))),
                -1,
            )
    return queens


def blocking_clause(queens: list[int], model: str) -> str:
    """An assertion that rules out exactly this board (every column holds one queen in both models)."""
    if model == "int":
        return f"(assert (or {' '.join(f'(not (= q{c} {r}))' for c, r in enumerate(queens))}))"
    return f"(assert (or {' '.join(f'(not x{c}_{r})' for c, r in enumerate(queens))}))"


def prefixes(problem: Problem, depth: int = PREFIX_COLUMNS) -> list[tuple[int, ...]]:
    """The rows the first ``depth`` columns' queens may take: open squares, not attacking each other.

    Every solution starts with one of them, so counting under each in turn counts every solution once.
    """
    depth = min(depth, problem.n)
    found: list[tuple[int, ...]] = [()]
    for column in range(depth):
        mask = problem.allowed_rows[column]
        found = [
            prefix + (row,)
            for prefix in found
            for row in range(problem.n)
            if mask >> row & 1 and all(r != row and abs(r - row) != column - c for c, r in enumerate(prefix))
        ]
    return found


def fix_prefix(prefix: tuple[int, ...], model: str) -> str:
    if model == "int":
        return " ".join(f"(assert (= q{c} {r}))" for c, r in enumerate(prefix))
    return " ".join(f"(assert x{c}_{r})" for c, r in enumerate(prefix))


def count_prefixes(problem: Problem, model: str, budget: Budget, starts: list[tuple[int, ...]]) -> Count:
    """Count the solutions that start with each of ``starts``: under each prefix, find a board, add a
    clause that blocks it, ask again until unsat; the prefix and its blocking clauses are popped after,
    so no check carries the blocking clauses of other prefixes (twice as fast at n = 11 as one scope)."""
    import z3

    if not starts:  # no first queens fit: no solution, and nothing to ask Z3
        return Count(Status.SOLVED, 0, False, 0, empty_counters() | {"checks": 0})
    try:
        solver = new_solver(problem, model, budget)
    except OutOfBudget:
        return Count(Status.TIMED_OUT, 0, False, 0, empty_counters() | {"checks": 0})
    solutions = checks = 0
    lag = lag_seconds(problem.n, model)
    for prefix in starts:
        solver.push()
        solver.from_string(fix_prefix(prefix, model))
        while True:
            capped = budget.iterations is not None and budget.exhausted(iterations_of(solver))
            if capped or out_of_time(budget, lag):
                return Count(Status.TIMED_OUT, solutions, False, iterations_of(solver), count_counters(solver, checks))
            configure(solver, budget, 0, lag)
            answer = solver.check()
            checks += 1
            if answer == z3.unsat:
                break
            if answer != z3.sat:
                if stopped_by_budget(solver):
                    return Count(
                        Status.TIMED_OUT, solutions, False, iterations_of(solver), count_counters(solver, checks)
                    )
                raise RuntimeError(f"z3 answered unknown: {solver.reason_unknown()}")
            solutions += 1
            solver.from_string(blocking_clause(read_queens(solver, problem.n, model), model))
        solver.pop()
    return Count(Status.SOLVED, solutions, False, iterations_of(solver), count_counters(solver, checks))


def count_counters(solver: Any, checks: int) -> dict[str, int | float]:
    """Z3's counters, which add up over the checks of a count, less its time (that of the last check)."""
    counters = counters_of(solver)
    counters.pop("z3_seconds", None)
    return counters | {"checks": checks}


def statistics_of(solver: Any) -> dict[str, Any]:
    """Z3's statistics as a dict. Z3 names the core's counters ``decisions``, ``conflicts``...; when it
    hands a problem to its SAT core (tiny boards), ``sat decisions``, ``sat conflicts``...: both are read."""
    statistics = solver.statistics()
    values = dict(statistics[index] for index in range(len(statistics)))
    for name in ("decisions", "conflicts", "propagations", "restarts"):
        if name not in values and f"sat {name}" in values:
            values[name] = values[f"sat {name}"]
    return values


def counters_of(solver: Any) -> dict[str, int | float]:
    values = statistics_of(solver)
    counters: dict[str, int | float] = {
        name: int(values.get(name, 0)) for name in ("decisions", "conflicts", "propagations", "restarts")
    }
    for key, name in (("pb propagations", "pb_propagations"), ("pb conflicts", "pb_conflicts")):
        if key in values:
            counters[name] = int(values[key])
    if "rlimit count" in values:
        counters["rlimit_count"] = int(values["rlimit count"])
    if "max memory" in values:
        counters["max_memory_mb"] = float(values["max memory"])
    if "time" in values:
        counters["z3_seconds"] = float(values["time"])
    return counters


def iterations_of(solver: Any) -> int:
    """Z3's decisions; its conflicts where it reports no decisions."""
    values = statistics_of(solver)
    return int(values.get("decisions", values.get("conflicts", 0)))


def stopped_by_budget(solver: Any) -> bool:
    """Whether an ``unknown`` is our time or conflict limit (anything else is not a verdict either)."""
    reason = solver.reason_unknown()
    return any(word in reason for word in BUDGET_REASONS)


def empty_counters() -> dict[str, int | float]:
    return {"decisions": 0, "conflicts": 0, "propagations": 0, "restarts": 0}


class Z3(Adapter):
    name = "z3"
    runs_on = "Z3 SMT solver (C++)"
    family = "SMT"
    summary = "Z3 on a Boolean model with cardinality constraints (or the integer distinct model); complete."
    complete = True
    can_count = True  # by enumeration with blocking clauses: small boards only (see count_seconds)
    supports_fixed = True
    supports_blocked = True
    requires = (Requirement("z3 needs the z3-solver package: pip install z3-solver", module="z3"),)
    size_limits = (SizeLimit(MAX_N, TOO_LARGE, option="model"),)
    max_n = max(MAX_N.values())
    exports = ("smt2",)
    options = (
        Option(
            "model",
            str,
            "bool",
            "bool (a Boolean per square, cardinality constraints) or int (distinct over q, q+c, q-c)",
            choices=MODELS,
        ),
    )

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        import z3

        model = options["model"]
        try:
            solver = new_solver(problem, model, budget)
        except OutOfBudget:
            return Outcome(Status.TIMED_OUT, None, 0, 0, empty_counters())
        configure(solver, budget, rng.randrange(2**31), lag_seconds(problem.n, model))
        answer = solver.check()
        counters = counters_of(solver)
        iterations = iterations_of(solver)
        if answer == z3.sat:
            return Outcome(Status.SOLVED, read_queens(solver, problem.n, model), iterations, problem.n, counters)
        if answer == z3.unsat:
            return Outcome(Status.NO_SOLUTION, None, iterations, 0, counters)
        if stopped_by_budget(solver):
            return Outcome(Status.TIMED_OUT, None, iterations, 0, counters)
        raise RuntimeError(f"z3 answered unknown: {solver.reason_unknown()}")

    def count(self, problem: Problem, budget: Budget, options: Mapping[str, Any], unique: bool) -> Count:
        if unique:
            raise NotImplementedError("z3 counts all solutions, not classes under symmetry")
        return count_prefixes(problem, options["model"], budget, prefixes(problem))

    def count_parts(self, problem: Problem, options: Mapping[str, Any], unique: bool) -> list[Any] | None:
        """One piece per row of the first column's queen (a piece counts its prefixes in one Z3 solver)."""
        if unique:
            return None
        return sorted({prefix[0] for prefix in prefixes(problem)})

    def count_part(
        self, problem: Problem, budget: Budget, options: Mapping[str, Any], unique: bool, part: Any
    ) -> Count:
        if unique:
            raise NotImplementedError("z3 counts all solutions, not classes under symmetry")
        return count_prefixes(problem, options["model"], budget, [p for p in prefixes(problem) if p[0] == part])

    def seconds_per_solution(self, n: int, options: Mapping[str, Any]) -> float:
        """One check and one blocking clause per solution, each slower as n grows (``count_seconds``)."""
        return SECONDS_PER_SOLUTION * 2.0 ** max(0, n - SECONDS_MEASURED_AT)

    def export(self, problem: Problem, options: Mapping[str, Any], format: str) -> str:
        if format != "smt2":
            raise BadInput(f"z3 exports smt2, not {format!r}")
        return smt2_text(problem, options["model"])
