"""``choco``: N-Queens posed to the Choco CP solver through pychoco.

The model is the one the CP community writes (Choco's own NQueen samples, the
MiniZinc benchmarks, CSPLib prob054): one variable per column, ``q[c]`` = its
row in ``0..n-1``, and three allDifferent constraints over ``q[c]``,
``q[c] + c`` and ``q[c] - c`` (the last two on offset views, not new
variables). A blocked square is a value left out of its column's domain; a
fixed queen's column gets the one value of its row, so it is instantiated
before search starts. ``nqueens.mzn`` beside this file is the same model in
MiniZinc, and ``export(..., "dzn")`` writes its data.

Options (defaults chosen by measurement, see the README):

* ``consistency``: the allDifferent filtering, Choco's own names: ``AC``
  (Zhang's arc consistency, the default), ``AC_REGIN``, ``BC`` (bounds
  consistency) or ``DEFAULT`` (BC plus a probabilistic AC propagator). AC
  decided 20 hard-ish CSPLib instances in 5.2 s where BC took 18.3 s: it
  needs four to five times fewer nodes, at up to 1.5 times the cost of one;
* ``search``: one of Choco's strategies on the ``q`` variables, or
  ``default`` (Choco's default search); ``random`` is seeded from the run's
  rng. The default, ``activity`` (activity-based search, Michel and Van
  Hentenryck 2012), decided the most instances in the least time, ahead of
  dom/wdeg and min-dom, with or without restarts. It restarts by itself
  without recording nogoods, so an enumeration with it would meet some
  solutions twice (728 for n = 10, not 724): ``count`` enumerates with
  ``min-dom`` instead, the fastest measured for counting;
* ``restarts``: ``none``, ``luby`` or ``geometric`` restarts, always with
  nogoods recorded from restarts, so the search stays complete and a count
  never meets a solution twice;
* ``lcg``: Choco's lazy clause generation (explanations and learnt clauses);
  about half as fast here, on every search tried.

The budget becomes Choco's own stop criteria (a time counter in milliseconds
and, for an iteration cap, a node counter), so the search stops itself. pychoco
does not say which criterion stopped a search without leaking the model (its
``get_search_state`` pins every model it is asked about), so a run that ends
without a solution counts as stopped when the node cap is reached or the wall
clock around the search has passed the time limit; only otherwise is it a
proof of no solution.

Counts: one **iteration** is one Choco search node (a decision); Choco does not
report placements apart from its nodes, so **moves** is the number of queens in
the answer. Counters: ``nodes``, ``backtracks``, ``fails``, ``restarts`` and
Choco's own ``choco_seconds``; ``count`` adds ``solutions``.

pychoco runs Choco as a GraalVM native image inside this process: importing it
starts the image (0.1 to 0.3 s, paid by ``warm_up``), and a Java exception
inside it ends the whole process (an ill-formed ``limit_time`` string does). Every value this module hands it is checked
first; and every raw handle it creates (arrays, criteria) is freed, since
pychoco frees only the objects it wraps, and one forgotten array keeps its
whole model alive.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import nqueens_plugins
from nqueens_plugins import Adapter, BadInput, Budget, Count, Option, Outcome, Problem, Requirement, SizeLimit, Status

CONSISTENCIES = ("AC", "BC", "DEFAULT", "AC_REGIN")
# option value -> the pychoco backend function that sets it on the solver (None: Choco's default search)
SEARCHES: dict[str, str | None] = {
    "default": None,
    "dom-wdeg": "set_dom_over_w_deg_search",
    "dom-wdeg-ref": "set_dom_over_w_deg_ref_search",
    "activity": "set_activity_based_search",
    "min-dom": "set_min_dom_lb_search",
    "conflict-history": "set_conflict_history_search",
    "failure-rate": "set_failure_rate_based_search",
    "failure-length": "set_failure_length_based_search",
    "pick-on-dom": "set_pick_on_dom_search",
    "input-order": "set_input_order_lb_search",
    "random": "set_random_search",
}
RESTARTING_SEARCHES = ("activity",)  # Choco's activity-based search restarts by itself, without nogoods
COUNT_SEARCH = "min-dom"  # what those count with: the fastest measured for enumeration
AC_MAX_N = 1000  # at n = 2,000 one node's AC propagation takes about 0.5 s, unchecked by Choco's clock
AC_TOO_LARGE = "one propagation outlasts any budget check beyond it"
RESTARTS = ("none", "luby", "geometric")
LUBY_SCALE = 500  # fails per unit of the Luby sequence
GEOMETRIC_BASE, GEOMETRIC_GROWTH = 100, 1.5  # fails before the first restart, growth per restart
MAX_RESTARTS = 2**31 - 1  # a Java int: no cap
MAX_LONG = 2**63 - 1  # Choco's counters are Java longs
BUILD_CHECK_EVERY = 64  # columns built between clock reads
MODEL_FILE = Path(__file__).with_name("nqueens.mzn")


class OutOfBudget(Exception):
    """The budget ran out while the model was still being built."""


class ChocoModel:
    """One Choco model of a problem, its solver and the stop criteria of one budget.

    Holds every raw pychoco handle it creates and frees them in ``close``:
    pychoco frees only the objects it wraps, and a handle left behind keeps
    its model alive in the native image for the life of the process.
    """

    def __init__(self, problem: Problem, options: Mapping[str, Any], budget: Budget, seed: int) -> None:
        from pychoco import Model, backend

        self.backend = backend
        self.handles: list[Any] = []
        self.n = problem.n
        self.model = Model(lcg=bool(options["lcg"]))
        model = self.model._handle
        n = problem.n
        full = (1 << n) - 1
        self.queens: list[Any] = []
        for column, mask in enumerate(problem.allowed_rows):
            if column % BUILD_CHECK_EVERY == 0 and budget.out_of_time():
                self.close()
                raise OutOfBudget
            if mask == full:
                queen = backend.intvar_sii(model, f"q{column}", 0, n - 1)
            else:  # a blocked square is a value left out; a fixed queen leaves its row alone
                queen = backend.intvar_s_arr(model, f"q{column}", self.ints([r for r in range(n) if mask >> r & 1]))
            self.queens.append(self.keep(queen))
        diagonals = [self.keep(backend.int_offset_view(q, c)) for c, q in enumerate(self.queens)]
        antidiagonals = [self.keep(backend.int_offset_view(q, -c)) for c, q in enumerate(self.queens)]
        for variables in (self.queens, diagonals, antidiagonals):
            backend.post(self.keep(backend.all_different(model, self.variables(variables), options["consistency"])))
        self.solver = self.keep(backend.get_solver(model))
        setter = SEARCHES[options["search"]]
        if setter == "set_random_search":
            backend.set_random_search(self.solver, self.variables(self.queens), seed)
        elif setter is not None:
            getattr(backend, setter)(self.solver, self.variables(self.queens))
        # pychoco 0.4's Solver.set_luby_restart and friends call the backend with too few
        # arguments; the backend takes Choco's own: a fail counter that triggers restarts,
        # the schedule, and a cap on the number of restarts.
        if options["restarts"] == "luby":
            trigger = self.keep(backend.fail_counter(model, 0))
            backend.set_luby_restart(self.solver, trigger, LUBY_SCALE, MAX_RESTARTS)
        elif options["restarts"] == "geometric":
            trigger = self.keep(backend.fail_counter(model, 0))
            backend.set_geometrical_restart(self.solver, trigger, GEOMETRIC_BASE, GEOMETRIC_GROWTH, MAX_RESTARTS)
        if options["restarts"] != "none":
            backend.set_nogood_recording_from_restarts(self.solver, self.variables(self.queens))
        self.time_limit_ms: int | None = None
        self.node_cap: int | None = None
        self.started = 0.0
        self.no_criteria: Any = None

    def keep(self, handle: Any) -> Any:
        self.handles.append(handle)
        return handle

    def ints(self, values: list[int]) -> Any:
        from pychoco._utils import make_int_array

        return self.keep(make_int_array(values))

    def variables(self, handles: list[Any]) -> Any:
        array = self.keep(self.backend.create_intvar_array(len(handles)))
        for index, handle in enumerate(handles):
            self.backend.intvar_array_set(array, handle, index)
        return array

    def first_solve(self, budget: Budget) -> bool:
        """Start the search with the budget's limits as Choco stop criteria; True if it found a solution.

        The criteria stay on the solver: ``next_solve`` continues the same search under them.
        """
        backend = self.backend
        criteria = []
        remaining = budget.remaining()
        if remaining is not None:
            self.time_limit_ms = min(int(remaining * 1000), MAX_LONG)
            criteria.append(self.keep(backend.time_counter(self.model._handle, self.time_limit_ms)))
        if budget.iterations is not None:
            self.node_cap = min(budget.iterations, MAX_LONG)
            criteria.append(self.keep(backend.node_counter(self.model._handle, self.node_cap)))
        stop = self.keep(backend.create_criterion_array(len(criteria)))
        for index, criterion in enumerate(criteria):
            backend.criterion_array_set(stop, criterion, index)
        self.started = time.perf_counter()
        return bool(backend.solve(self.solver, stop))

    def next_solve(self) -> bool:
        """The next solution of the same search (pychoco adds a call's criteria to the solver for good, so
        passing them again would check them once more per solution)."""
        if self.no_criteria is None:
            self.no_criteria = self.keep(self.backend.create_criterion_array(0))
        return bool(self.backend.solve(self.solver, self.no_criteria))

    def stopped(self) -> bool:
        """Whether a search that ended without a solution was stopped by the budget rather than exhausted.

        Choco checks its time counter against its own clock, which starts inside
        the call, so a stop by time always shows on the wall clock around it.
        """
        if self.node_cap is not None and self.backend.get_node_count(self.solver) >= self.node_cap:
            return True
        elapsed_ms = (time.perf_counter() - self.started) * 1000
        return self.time_limit_ms is not None and elapsed_ms >= self.time_limit_ms

    def queens_found(self) -> list[int]:
        return [int(self.backend.get_intvar_value(q)) for q in self.queens]

    def counters(self) -> dict[str, int | float]:
        backend, solver = self.backend, self.solver
        return {
            "nodes": int(backend.get_node_count(solver)),
            "backtracks": int(backend.get_backtrack_count(solver)),
            "fails": int(backend.get_fail_count(solver)),
            "restarts": int(backend.get_restart_count(solver)),
            "choco_seconds": float(backend.get_time_count(solver)),
        }

    def close(self) -> None:
        for handle in self.handles:
            self.backend.chocosolver_handles_destroy(handle)
        self.handles.clear()


NO_COUNTERS: dict[str, int | float] = {"nodes": 0, "backtracks": 0, "fails": 0, "restarts": 0, "choco_seconds": 0.0}


class Choco(Adapter):
    name = "choco"
    runs_on = "Choco (GraalVM native image, in process)"
    family = "CP"
    summary = "Choco CP solver (pychoco) on the three-allDifferent model; complete."
    complete = True
    can_count = True  # by enumeration, one solution at a time, none kept
    supports_fixed = True
    supports_blocked = True
    exports = ("dzn",)
    requires = (
        Requirement(
            "choco needs pychoco (Choco through a GraalVM native image): pip install pychoco", module="pychoco"
        ),
    )
    size_limits = (  # every consistency but bounds consistency propagates per value
        SizeLimit({c: AC_MAX_N for c in CONSISTENCIES if c != "BC"}, AC_TOO_LARGE, option="consistency"),
    )
    max_n = 4000
    options = (
        Option("consistency", str, "AC", "allDifferent filtering (Choco's names)", choices=CONSISTENCIES),
        Option("search", str, "activity", "Choco search strategy on the q variables", choices=tuple(SEARCHES)),
        Option("restarts", str, "none", "restarts (with nogoods from restarts)", choices=RESTARTS),
        Option("lcg", bool, False, "lazy clause generation"),
    )

    def warm_up(self, options: Mapping[str, Any], preparation: str = "") -> None:
        """Import pychoco (it starts the native image) and solve and count a small board, untimed.

        Importing costs 0.1 to 0.3 s; the image is compiled ahead of time, so a first
        search runs as fast as later ones and there is nothing else to warm."""
        self.solve(Problem(6), random.Random(0), Budget(5.0), dict(options))
        self.count(Problem(5), Budget(5.0), dict(options), False)

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        if problem.contradiction() is not None:
            return Outcome(Status.NO_SOLUTION, None, 0, 0, dict(NO_COUNTERS))
        try:
            built = ChocoModel(problem, options, budget, rng.randrange(2**31))
        except OutOfBudget:
            return Outcome(Status.TIMED_OUT, None, 0, 0, dict(NO_COUNTERS))
        try:
            found = built.first_solve(budget)
            counters = built.counters()
            if found:
                return Outcome(Status.SOLVED, built.queens_found(), int(counters["nodes"]), problem.n, counters)
            status = Status.TIMED_OUT if built.stopped() else Status.NO_SOLUTION
            return Outcome(status, None, int(counters["nodes"]), 0, counters)
        finally:
            built.close()

    def count(self, problem: Problem, budget: Budget, options: Mapping[str, Any], unique: bool) -> Count:
        if unique:
            raise NotImplementedError("choco counts all solutions, not classes under symmetry")
        if options["search"] in RESTARTING_SEARCHES:  # it would find some solutions twice
            options = dict(options) | {"search": COUNT_SEARCH}
        if problem.contradiction() is not None:
            return Count(Status.SOLVED, 0, False, 0, dict(NO_COUNTERS) | {"solutions": 0})
        try:
            built = ChocoModel(problem, options, budget, 0)
        except OutOfBudget:
            return Count(Status.TIMED_OUT, 0, False, 0, dict(NO_COUNTERS) | {"solutions": 0})
        try:
            solutions = 0
            found = built.first_solve(budget)
            while found:
                solutions += 1
                found = built.next_solve()
            counters = built.counters() | {"solutions": solutions}
            if counters["restarts"] and options["restarts"] == "none":  # restarts without nogoods repeat solutions
                raise RuntimeError(f"Choco restarted {counters['restarts']} times while enumerating")
            status = Status.TIMED_OUT if built.stopped() else Status.SOLVED
            return Count(status, solutions, False, int(counters["nodes"]), counters)
        finally:
            built.close()

    def export(self, problem: Problem, options: Mapping[str, Any], format: str) -> str:
        if format != "dzn":
            raise BadInput(f"choco exports dzn (MiniZinc data for its nqueens.mzn), not {format}")
        return nqueens_plugins.dzn_text(problem)
