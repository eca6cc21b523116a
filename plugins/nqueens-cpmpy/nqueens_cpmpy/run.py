"""One CPMpy model run on one backend under a budget: a board, a proof of none, or a count.

CPMpy turns the model into what the backend takes when the model is added to the backend's
solver object (``cp.SolverLookup.get``): that transformation runs in Python, so it is wrapped in
``budget.interrupting()`` and a budget spent there is ``timed-out``. The search then gets what is
left of the budget as CPMpy's ``time_limit``, which each backend's interface hands to the
backend's own parameter (OR-Tools ``max_time_in_seconds``, Z3 ``timeout``, Exact ``timeout``,
Pumpkin ``timeout``, Choco ``limit_time``, Gurobi ``TimeLimit``, CPLEX ``timelimit``, python-sat's
interrupt, MiniZinc's ``time_limit``); PySDD takes none, and the host stops it at the limit.

Only CPMpy's ``UNSATISFIABLE`` is a claim of no solution, and a count is finished only when
``solveAll`` ends ``OPTIMAL`` or ``UNSATISFIABLE`` (every solution listed); ``UNKNOWN`` or
``FEASIBLE`` at the end of the time is ``timed-out`` (a count's solutions a lower bound).
Where a backend's interface infers its status from the clock rather than from the backend (CPMpy
1.1.1's Choco: "no solution found and less time spent than the limit" is ``UNSATISFIABLE``), the
backend's own word is asked too (``search_finished``): seen in the families benchmark, Choco stopped
by its limit a hair before CPMpy's clock read it, and the run came back as a false "no solution".

Counters: ``transform_seconds`` (CPMpy's transformation and posting), ``solve_seconds`` (the
backend's runtime as CPMpy reports it); OR-Tools adds ``branches`` and ``conflicts``, and one
iteration is one CP-SAT branch there (0 elsewhere: CPMpy reports no search statistics).
"""

from __future__ import annotations

import importlib
import time
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from nqueens_cpmpy.backends import BACKENDS
from nqueens_cpmpy.model import read_queens
from nqueens_plugins import Budget, Count, Outcome, Status

T = TypeVar("T")
FINISHED = ("OPTIMAL", "UNSATISFIABLE")  # CPMpy's exit statuses of an enumeration that listed everything
# Less time left than this is no time to arm a timer in: Budget.interrupting() arms it before its ``try``,
# so one that fires at once (it is given at least a microsecond) escapes as OutOfTime.
LEAST_TO_ARM = 0.01


def within(budget: Budget, work: Callable[[], T]) -> tuple[T] | None:
    """``(work(),)`` stopped by the budget's interruption when time runs out (None then, or when too little
    time is left to start): for CPMpy's Python work, building and transforming a model."""
    remaining = budget.remaining()
    if remaining is not None and remaining < LEAST_TO_ARM:
        return None
    with budget.interrupting() as stop:
        done = work()
    return None if stop.fired else (done,)


def load(backend: str) -> None:
    """Import CPMpy and the backend's package, outside any budget's interruption: an import stopped half way
    leaves a module half initialised for every later run in the process."""
    import cpmpy  # noqa: F401

    importlib.import_module(str(BACKENDS[backend].requirement.module))


def fresh_z3_context() -> None:
    """Start Z3's Python API on a new global context. CPMpy makes its Z3 solver in the global one, which keeps
    the history of every earlier run in the process: measured, the same seed then gave another board of n = 8
    at each run of a worker (the contract's same-seed check caught it). nqueens-z3 makes a context per run too."""
    import z3

    z3.z3._main_ctx = None  # what z3.main_ctx() makes anew when it is None


def pose(model: Any, backend: str, budget: Budget) -> tuple[Any, float] | None:
    """The backend's CPMpy solver object with ``model`` posted, and the seconds that took; None when
    the budget ran out first."""
    import cpmpy as cp

    load(backend)
    if backend == "z3":
        fresh_z3_context()
    started = time.perf_counter()
    posted = within(budget, lambda: cp.SolverLookup.get(backend, model))
    return None if posted is None else (posted[0], time.perf_counter() - started)


def arguments(backend: str, budget: Budget, seed: int | None) -> dict[str, Any]:
    """The keywords of ``solve``/``solveAll``: the time left, the seed for OR-Tools and Z3, and one worker for
    OR-Tools (so a seed repeats a run: several CP-SAT workers race)."""
    given: dict[str, Any] = {}
    remaining = budget.remaining()
    if remaining is not None and BACKENDS[backend].time_limit:
        given["time_limit"] = max(remaining, 0.001)
    if backend == "ortools":
        given["num_search_workers"] = 1
    if backend in ("ortools", "z3") and seed is not None:
        given["random_seed"] = seed
    return given


def counters_of(solver: Any, transform: float) -> dict[str, int | float]:
    counters: dict[str, int | float] = {
        "transform_seconds": transform,
        "solve_seconds": float(solver.status().runtime or 0.0),
    }
    native = getattr(solver, "ort_solver", None)
    if native is not None:
        counters["branches"] = int(native.num_branches)
        counters["conflicts"] = int(native.num_conflicts)
    return counters


def solve(model: Any, queens: Any, n: int, backend: str, budget: Budget, seed: int | None) -> Outcome:
    """One board of ``model`` from ``backend``, read from ``queens`` (see ``model.read_queens``)."""
    posed = pose(model, backend, budget)
    if posed is None:
        return Outcome(Status.TIMED_OUT, None, 0, 0, {"transform_seconds": budget.seconds or 0.0})
    solver, transform = posed
    if budget.out_of_time():
        return Outcome(Status.TIMED_OUT, None, 0, 0, {"transform_seconds": transform})
    found = solver.solve(**arguments(backend, budget, seed))
    counters = counters_of(solver, transform)
    iterations = int(counters.get("branches", 0))
    if found:
        board = read_queens(queens, n)
        if board is not None:
            return Outcome(Status.SOLVED, board, iterations, n, counters)
    if solver.status().exitstatus.name == "UNSATISFIABLE" and search_finished(solver, backend):
        return Outcome(Status.NO_SOLUTION, None, iterations, 0, counters)
    return Outcome(Status.TIMED_OUT, None, iterations, 0, counters)


def count(model: Any, backend: str, budget: Budget) -> Count:
    """Every solution of ``model``, counted by the backend's ``solveAll`` (none kept)."""
    posed = pose(model, backend, budget)
    if posed is None:
        return Count(Status.TIMED_OUT, 0, False, 0, {"transform_seconds": budget.seconds or 0.0})
    solver, transform = posed
    with warnings.catch_warnings():  # "solver state will be invalid after this call": it is thrown away
        warnings.simplefilter("ignore", UserWarning)
        solutions = solver.solveAll(**arguments(backend, budget, 0))
    counters = counters_of(solver, transform) | {"solutions": int(solutions)}
    # A backend without a time limit (PySDD) that returned has listed everything; CPMpy 1.1.1's PySDD interface
    # leaves the status NOT_RUN when the compiled formula is false (no solution: n = 2 and 3).
    finished = (solver.status().exitstatus.name in FINISHED and search_finished(solver, backend)) or not BACKENDS[
        backend
    ].time_limit
    return Count(
        Status.SOLVED if finished else Status.TIMED_OUT,
        int(solutions),
        False,
        int(counters.get("branches", 0)),
        counters,
    )


def search_finished(solver: Any, backend: str) -> bool:
    """Whether the backend itself says its search ran to its end (not stopped by its limit), where CPMpy's
    interface reads that off the clock instead: Choco's search state is ``TERMINATED`` then (``STOPPED`` at a
    limit). Every other backend's status is the backend's own, so CPMpy's word stands."""
    if backend == "choco":
        return str(solver.chc_solver.get_search_state()) == "TERMINATED"
    return True
