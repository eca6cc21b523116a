"""``clingo``: N-Queens posed to the clingo answer set solver (gringo grounds, clasp solves).

The program is an ASP encoding (``encodings/*.lp``, option ``encoding``) followed by the
instance as facts, in the conventions of the ASP Competition's Blocked N-Queens problem:
``num(1..n)`` for the row and column indices, ``block(R,C)`` for a blocked square,
``fixed(R,C)`` for a pre-placed queen, and the answer as ``queen(R,C)``; R is the row and C
the column, both 1-based, so ``queen(R,C)`` is ``queens[C-1] = R-1`` here.

* ``competition`` (default): exactly one queen per row and per column, at most one per
  diagonal, no queen on a blocked square, as the 2009 ASP Competition's Blocked N-Queens
  encoding states it. The column constraint is implied (n queens, one per row, fill the
  columns) and is what makes it strong: with columns stated "at most one", clasp decides
  none of four hard instances in 30 s (three of the competition's, one Excluded Diagonals)
  that it decides in 0.6 to 6.5 s with it.
* ``textbook``: any set of squares, exactly n queens in all, no two attacking, stated pair
  by pair, as ASP textbooks first write it. Weak (clasp must discover "one per row") and
  O(n^4) to ground: there to compare with, not to use. Within 20 s of CPU it decides
  neither a plain n = 20 board nor the shipped n = 28 Blocked instance, both of which
  ``competition`` solves in 0.01 s.

``configuration`` is clasp's preset. The default, ``crafty`` (clasp's preset for crafted
problems), was chosen by measurement over 23 Blocked n-Queens and Excluded Diagonals
instances (CPU seconds to decide them all, 30 to 40 s limit each): 13 without a solution,
crafty 78 s (all decided), trendy 97 s, jumpy 113 s, auto 135 s (one undecided); 10 with
one, crafty 20 s, jumpy 38 s, trendy 40 s, auto 42 s. On plain boards up to n = 400 crafty,
auto and jumpy are alike (n = 400 in 3 to 5 s); frumpy, handy and trendy fall behind from
n = 100. ``tweety`` and ``many`` search as ``auto`` does with one thread. The README has the
tables.

Grounding cannot be interrupted (gringo runs in C and returns to Python only when done; a
signal waits for it), nor can clasp's preparation of the ground program, so a board is never
grounded that the budget cannot hold: ``precheck`` refuses boards whose set-up takes more
than a few seconds (``MAX_N``), and ``solve``/``count`` return TIMED_OUT at once, without
grounding (every counter 0), when what is left of the budget is less than twice the set-up
time measured here for that size (``setup_seconds``). Solving is
asynchronous (``Control.solve(async_=True)``): the main thread waits for what is left of
the budget and then cancels clasp, which answers unknown, reported TIMED_OUT. Only clasp's
exhausted search is a no-solution. The budget's iteration cap becomes clasp's
``--solve-limit`` (a number of conflicts: the only cap clasp offers), the run's seed its
``--seed``; clasp runs one thread, so the same seed gives the same board.

Counting enumerates (``--models=0``): ``on_model`` adds one and keeps nothing. Every atom
but ``queen/2`` follows from the queens, so answer sets and boards correspond one to one.

Counts: one **iteration** is one clasp choice (decision); **moves** is the number of
queens in the answer (clasp does not report placements). Counters, from clingo's
statistics: ``choices``, ``conflicts``, ``restarts``, ``models``, the ground program's
``atoms``, ``rules`` and ``bodies``, clasp's ``variables`` and ``constraints``, and
``ground_seconds``, ``solve_seconds`` (clingo's own) and ``cpu_seconds``.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Mapping
from importlib import resources
from typing import Any

from nqueens_plugins import Adapter, BadInput, Budget, Count, Option, Outcome, Problem, Requirement, SizeLimit, Status

ENCODINGS = ("competition", "textbook")
CONFIGURATIONS = ("auto", "frumpy", "jumpy", "tweety", "handy", "crafty", "trendy", "many")

# What cannot be interrupted, on this machine: gringo's grounding and clasp's preparation of
# the ground program (the first moments of solve, before the search can be cancelled), in CPU
# seconds = factor * n ** power. Fitted to n = 50..400 for competition (4.0 s at n = 400, of
# which 0.5 s preparing) and n = 20..56 for textbook (3.5 s at n = 56), whose pairwise
# constraints gringo finds by testing every pair of squares.
SETUP_FIT = {"competition": (8.0e-6, 2.2), "textbook": (6.8e-7, 3.84)}
# The largest board per encoding: set up in about 4 s here (past it a budget cannot stop it).
MAX_N = {"competition": 400, "textbook": 56}
TOO_LARGE = "grounding, which cannot be interrupted, would take more than about 4 s"
SETUP_MARGIN = 2.0  # ground only when the budget holds twice the expected set-up time
# Plain-board enumeration here, for count_seconds, CPU seconds per answer set: competition
# 50 to 90 microseconds from n = 9 to 13 (n = 12, 14,200 of them, in 0.9 s; n = 13 in 3.6 s),
# rounded up; textbook 0.8 ms at n = 8, about 3x more with each n (n = 10 in 4.2 s).
SECONDS_PER_MODEL = {"competition": (1.0e-4, 1.0), "textbook": (8.0e-4, 3.0)}  # (at n <= 8, growth per n)


@functools.cache
def encoding_text(encoding: str) -> str:
    return resources.files("nqueens_clingo").joinpath("encodings", f"{encoding}.lp").read_text(encoding="utf-8")


def setup_seconds(n: int, encoding: str) -> float:
    """About how long grounding an n x n board and preparing clasp take here (CPU seconds)."""
    factor, power = SETUP_FIT[encoding]
    return factor * n**power


def facts(problem: Problem) -> str:
    """The instance as facts: row R and column C, 1-based, as the ASP Competition writes them."""
    lines = [f"#const n = {problem.n}.", "num(1..n)."]
    lines.extend(f"block({row + 1},{column + 1})." for column, row in sorted(problem.blocked))
    lines.extend(f"fixed({row + 1},{column + 1})." for column, row in problem.fixed.items())
    return "\n".join(lines)


def program(problem: Problem, options: Mapping[str, Any]) -> str:
    """The whole program the adapter hands to clingo, and ``export`` writes: it runs as it is."""
    how = (
        f"% Exported by nqueens-clingo (encoding={options['encoding']}); to run it as the plugin does:\n"
        f"%   clingo FILE --configuration={options['configuration']}    (add 0 to count every solution)\n"
        "% queen(R,C) is a queen in row R, column C, 1-based: queens[C-1] = R-1 in nqueens-plugins.\n\n"
    )
    return f"{how}{encoding_text(options['encoding'])}\n% The instance.\n{facts(problem)}\n#show queen/2.\n"


def arguments(configuration: str, seed: int, budget: Budget, enumerate_all: bool) -> list[str]:
    """clingo's command-line options for this run, as ``Control`` takes them."""
    args = [f"--configuration={configuration}", f"--seed={seed}", "--models=0" if enumerate_all else "--models=1"]
    if budget.iterations is not None:
        args.append(f"--solve-limit={budget.iterations}")
    return args


def grounded(problem: Problem, options: Mapping[str, Any], seed: int, budget: Budget, enumerate_all: bool) -> Any:
    """A ``Control`` with the program grounded, or None when the budget cannot hold the grounding."""
    import clingo

    remaining = budget.remaining()
    if remaining is not None and remaining < SETUP_MARGIN * setup_seconds(problem.n, options["encoding"]):
        return None
    control = clingo.Control(arguments(options["configuration"], seed, budget, enumerate_all))
    control.add("base", [], program(problem, options))
    control.ground([("base", [])])
    return control


def solve_within(control: Any, budget: Budget, on_model: Any) -> Any:
    """Solve asynchronously, cancel clasp when the budget's time is up; the ``SolveResult``."""
    with control.solve(on_model=on_model, async_=True) as handle:
        if not handle.wait(budget.remaining()):
            handle.cancel()
        return handle.get()


def counters_of(control: Any, ground_time: float) -> dict[str, int | float]:
    """The run's figures from clingo's statistics (a key clingo leaves out reads 0)."""
    statistics = control.statistics
    solvers = statistics.get("solving", {}).get("solvers", {})
    lp = statistics.get("problem", {}).get("lp", {})
    generator = statistics.get("problem", {}).get("generator", {})
    summary = statistics.get("summary", {})
    times = summary.get("times", {})
    return {
        "choices": int(solvers.get("choices", 0)),
        "conflicts": int(solvers.get("conflicts", 0)),
        "restarts": int(solvers.get("restarts", 0)),
        "models": int(summary.get("models", {}).get("enumerated", 0)),
        "atoms": int(lp.get("atoms", 0)),
        "rules": int(lp.get("rules", 0)),
        "bodies": int(lp.get("bodies", 0)),
        "variables": int(generator.get("vars", 0)),
        "constraints": int(generator.get("constraints", 0)),
        "ground_seconds": ground_time,
        "solve_seconds": float(times.get("solve", 0.0)),
        "cpu_seconds": float(times.get("cpu", 0.0)),
    }


def ungrounded_counters() -> dict[str, int | float]:
    """The counters of a run the budget stopped before grounding (every figure 0)."""
    keys = ("choices", "conflicts", "restarts", "models", "atoms", "rules", "bodies", "variables", "constraints")
    return {key: 0 for key in keys} | {"ground_seconds": 0.0, "solve_seconds": 0.0, "cpu_seconds": 0.0}


def read_queens(symbols: list[Any], n: int) -> list[int]:
    """``queen(R,C)`` atoms (1-based row, column) as ``queens[c] = r`` (0-based)."""
    queens = [-1] * n
    for symbol in symbols:
        row, column = (argument.number for argument in symbol.arguments)
        queens[column - 1] = row - 1
    return queens


class Clingo(Adapter):
    name = "clingo"
    runs_on = "clingo (gringo + clasp, C++)"
    family = "ASP"
    summary = "clingo on the ASP Competition's Blocked N-Queens encoding (or the textbook one); complete."
    complete = True
    can_count = True  # by enumeration; the answer sets are the boards (see count_seconds)
    supports_fixed = True
    supports_blocked = True
    requires = (Requirement("clingo needs the clingo package: pip install clingo", module="clingo"),)
    size_limits = (SizeLimit(MAX_N, TOO_LARGE, option="encoding"),)
    max_n = max(MAX_N.values())
    exports = ("asp",)
    options = (
        Option(
            "encoding",
            str,
            "competition",
            "competition (one queen per row and per column, at most one per diagonal) or textbook (pairwise)",
            choices=ENCODINGS,
        ),
        Option(
            "configuration",
            str,
            "crafty",
            "clasp's --configuration preset (crafty, for crafted problems, measured best here)",
            choices=CONFIGURATIONS,
        ),
    )

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        started = time.perf_counter()
        control = grounded(problem, options, rng.randrange(2**31), budget, enumerate_all=False)
        if control is None:
            return Outcome(Status.TIMED_OUT, None, 0, 0, ungrounded_counters())
        ground_time = time.perf_counter() - started
        answer: list[Any] = []

        def on_model(model: Any) -> None:
            answer[:] = model.symbols(shown=True)

        result = solve_within(control, budget, on_model)
        counters = counters_of(control, ground_time)
        choices = int(counters["choices"])
        if result.satisfiable:
            return Outcome(Status.SOLVED, read_queens(answer, problem.n), choices, problem.n, counters)
        if result.unsatisfiable:  # clasp exhausted the search: a proof
            return Outcome(Status.NO_SOLUTION, None, choices, 0, counters)
        return Outcome(Status.TIMED_OUT, None, choices, 0, counters)  # cancelled, or --solve-limit reached

    def count(self, problem: Problem, budget: Budget, options: Mapping[str, Any], unique: bool) -> Count:
        if unique:
            raise NotImplementedError("clingo counts all solutions, not classes under symmetry")
        started = time.perf_counter()
        control = grounded(problem, options, 0, budget, enumerate_all=True)  # any seed counts the same
        if control is None:
            return Count(Status.TIMED_OUT, 0, False, 0, ungrounded_counters())
        ground_time = time.perf_counter() - started
        found = 0

        def on_model(model: Any) -> None:
            nonlocal found
            found += 1

        result = solve_within(control, budget, on_model)
        counters = counters_of(control, ground_time)
        status = Status.SOLVED if result.exhausted else Status.TIMED_OUT
        return Count(status, found, False, int(counters["choices"]), counters)

    def seconds_per_solution(self, n: int, options: Mapping[str, Any]) -> float:
        """CPU seconds per answer set when clasp enumerates a plain board here (``count_seconds``)."""
        per_model, growth = SECONDS_PER_MODEL[options["encoding"]]
        return per_model * growth ** max(0, n - 8)

    def count_setup_seconds(self, n: int, options: Mapping[str, Any]) -> float:
        """Grounding and clasp's preparation, before the first answer set."""
        return setup_seconds(n, options["encoding"])

    def export(self, problem: Problem, options: Mapping[str, Any], format: str) -> str:
        """The program exactly as ``solve`` hands it to clingo (how to run it is in its first lines)."""
        if format != "asp":
            raise BadInput(f"clingo exports asp, not {format!r}")
        return program(problem, options)
