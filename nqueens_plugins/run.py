"""One run of one solver on one problem: seeded, budgeted, timed, verified.

This is the step that the Python API, ``nqueens solve`` and the harness's worker
processes share. The harness splits it in two: ``execute`` runs in a worker,
``judge`` (which verifies) runs in the parent, so a solver never vouches for
its own answer.
"""

from __future__ import annotations

import hashlib
import copy
import math
import random
import signal
import time
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from nqueens_plugins.errors import BadInput
from nqueens_plugins.problem import TRACED_UP_TO, Budget, Count, Outcome, Problem, Status, Trace
from nqueens_plugins.solver import Variant
from nqueens_plugins.verify import verify_count, verify_outcome

# The host's two verdicts, kept under their old names for callers.
ERROR = Status.ERROR
INVALID = Status.INVALID
QUEENS_KEPT_UP_TO = 1000  # records and JSON leave the queens out above this n unless asked


def derive_seed(seed: int, solver: str, problem: Problem, trial: int) -> int:
    """The seed of one run, from (seed, solver, instance, trial): stable across processes and runs.

    A plain board is named by its n; any other instance by n and its content
    hash, so instances of one size get different random streams. Variants of
    one solver share the seed, so ``annealing[cooling=0.99]`` and plain
    ``annealing`` start from the same random board: options are compared fairly.
    """
    instance = str(problem.n) if problem.is_plain else f"{problem.n}#{problem.id}"
    digest = hashlib.sha256(f"{seed}|{solver}|{instance}|{trial}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def instance_fields(problem: Problem) -> dict[str, Any]:
    """What a record says of its instance: our JSON form's fields, the content hash, the source."""
    return {
        "n": problem.n,
        "fixed": {str(c): r for c, r in problem.fixed.items()},
        "blocked": [list(square) for square in sorted(problem.blocked)],
        "instance": problem.id,
        "source": problem.source,
    }


@dataclass
class Result:
    """A verified run. ``status`` is a Status value, or ``error`` / ``invalid``."""

    solver: str  # the variant's label, e.g. simulated-annealing[cooling=0.99]
    name: str
    options: dict[str, Any]
    problem: Problem
    seed: int
    trial: int
    status: str
    verified: bool | None
    reason: str | None
    queens: np.ndarray | None  # integers (int32 or int64), queens[c] = r; an array so 10^8 queens stay small
    iterations: int = 0
    moves: int = 0
    counters: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0  # the solver call alone, timed in the process that ran it
    overhead_seconds: float = 0.0  # the rest of the harness's wall time for the run (messages, verification)
    trace: Trace | None = None  # the steps, when traced (not part of the record)

    @property
    def n(self) -> int:
        return self.problem.n

    @property
    def fixed(self) -> dict[int, int]:
        return dict(self.problem.fixed)

    @property
    def solved(self) -> bool:
        return self.status == Status.SOLVED.value and self.verified is True

    def _repr_svg_(self) -> str | None:
        """The board in a notebook (Jupyter shows this instead of the repr); attacked queens are ringed red."""
        from nqueens_plugins.drawing import MAX_DRAWN, board_svg

        if self.queens is None or self.n > MAX_DRAWN:
            return None
        title = f"{self.solver} on {self.n}x{self.n}: {self.status}" + (", verified" if self.verified else "")
        return board_svg(self.queens, self.n, self.fixed, self.problem.blocked, title=title)

    def to_dict(self, keep_queens: bool | None = None) -> dict[str, Any]:
        """A JSON-ready dict; queens are left out above QUEENS_KEPT_UP_TO unless ``keep_queens``."""
        keep = keep_queens if keep_queens is not None else self.n <= QUEENS_KEPT_UP_TO
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("problem", "trace")}
        data.update(instance_fields(self.problem))
        data["queens"] = self.queens.tolist() if keep and self.queens is not None else None
        data["options"] = dict(self.options)
        data["counters"] = dict(self.counters)
        return data


def check_runnable(variant: Variant, problem: Problem) -> None:
    """Refuse, as bad input, what this variant cannot be asked (fixed queens, size, library)."""
    solver = variant.solver
    if problem.fixed and not solver.supports_fixed:
        raise BadInput(f"{solver.name} cannot honour fixed queens")
    if problem.blocked and not getattr(solver, "supports_blocked", False):
        raise BadInput(f"{solver.name} cannot honour blocked squares")
    reason = solver.precheck(problem.n, variant.options)
    if reason:
        raise BadInput(reason)


@dataclass
class Executed:
    """What came back from a solver call, before verification (picklable, for worker processes).

    ``seconds`` times the solver call alone. ``error`` says why there is no
    outcome (an exception, a dead or killed worker); ``status`` is the verdict
    that goes with it (``error``, or ``timed-out`` for a run killed at its limit).
    """

    outcome: Any  # an Outcome or Count, or whatever a misbehaving solver returned
    seconds: float
    error: str | None = None
    status: Status = Status.ERROR
    trace: Trace | None = None  # the steps, when the run was traced

    def unsendable(self, reason: str) -> Executed:
        return Executed(None, self.seconds, reason)


def call_plugin(function: Any, *args: Any) -> tuple[Any, float, str | None]:
    """Call solver code, timing it and catching anything it raises (even SystemExit)."""
    start = time.perf_counter()
    try:
        value = function(*args)
    except KeyboardInterrupt as exc:
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            raise  # possibly the user's Ctrl-C (in-process calls); a worker ignores SIGINT, so there it is the plugin's
        return None, time.perf_counter() - start, f"{type(exc).__name__}: {exc}"
    except BaseException as exc:  # noqa: BLE001 - a plugin may fail in any way, sys.exit included
        return None, time.perf_counter() - start, f"{type(exc).__name__}: {exc}"
    return value, time.perf_counter() - start, None


def execute(variant: Variant, problem: Problem, seed: int, trial: int, budget: Budget) -> Executed:
    """Call the solver, catching anything it raises. The budget's clock starts here."""
    rng = random.Random(derive_seed(seed, variant.name, problem, trial))
    budget = budget.restarted()
    outcome, seconds, error = call_plugin(variant.solver.solve, problem, rng, budget, dict(variant.options))
    return Executed(outcome, seconds, error, trace=budget.trace)


def judge(variant: Variant, problem: Problem, seed: int, trial: int, executed: Executed) -> Result:
    """Verify what a solver returned and make the record of the run."""
    base: dict[str, Any] = dict(
        solver=variant.label, name=variant.name, options=dict(variant.given), problem=problem,
        seed=seed, trial=trial, seconds=executed.seconds,
    )  # fmt: skip
    if executed.error is not None:
        return Result(**base, status=executed.status, verified=None, reason=executed.error, queens=None, trace=executed.trace)
    outcome = executed.outcome
    verdict = verify_outcome(problem, outcome, complete=variant.complete)
    if verdict.rejected or not isinstance(outcome, Outcome):
        return Result(**base, status=Status.INVALID, verified=False, reason=verdict.reason, queens=safe_queens(outcome),
                      trace=executed.trace)
    counters, dropped = clean_counters(outcome.counters)
    return Result(
        **base,
        status=Status(outcome.status),
        verified=verdict.verified,
        reason=with_dropped(verdict.reason, dropped),
        queens=safe_queens(outcome),
        iterations=int(outcome.iterations),
        moves=int(outcome.moves),
        counters=counters,
        trace=executed.trace,
    )


def safe_queens(outcome: Any) -> np.ndarray | None:
    """The queens as an integer array (not copied if it is one: 10^9 int32 queens stay 4 GB), or None
    when there are none or they are not numbers."""
    queens = getattr(outcome, "queens", None)
    if queens is None:
        return None
    try:
        array = np.asarray(queens)
        if array.ndim != 1 or array.dtype.kind not in "iuf":
            return None
        return array if array.dtype.kind in "iu" else array.astype(np.int64)
    except (TypeError, ValueError, OverflowError):
        return None


def clean_counters(counters: Any) -> tuple[dict[str, Any], list[str]]:
    """Counters as JSON-safe numbers, and the names of those dropped (not finite numbers):
    a record never carries what JSON cannot hold, and never drops it without a word."""
    if not isinstance(counters, dict):
        return {}, ["counters (not a dict)"]
    clean: dict[str, Any] = {}
    dropped: list[str] = []
    for key, value in counters.items():
        if isinstance(value, bool):
            clean[str(key)] = int(value)
        elif isinstance(value, int) or hasattr(value, "__index__"):
            clean[str(key)] = int(value)
        elif isinstance(value, float) and math.isfinite(value):
            clean[str(key)] = value
        else:
            dropped.append(str(key))
    return clean, dropped


def with_dropped(reason: str | None, dropped: list[str]) -> str | None:
    if not dropped:
        return reason
    note = f"counters dropped (not finite numbers): {', '.join(dropped)}"
    return f"{reason}; {note}" if reason else note


def run(
    variant: Variant,
    problem: Problem,
    *,
    seed: int = 0,
    trial: int = 0,
    timeout: float | None = None,
    max_iterations: int | None = None,
    trace: bool = False,
) -> Result:
    """Run in this process and verify: no isolation, the time limit is the solver's to honour.

    For trusted solvers and benchmarks; everything else goes through
    ``execution`` (isolated workers, limits enforced from outside).
    """
    check_runnable(variant, problem)
    # The solver gets a copy: a plugin that changes the problem it was given is judged on the host's own.
    steps = start_trace(variant, problem) if trace else None
    executed = execute(variant, copy.deepcopy(problem), seed, trial, Budget(timeout, max_iterations, trace=steps))
    return judge(variant, problem, seed, trial, executed)


def start_trace(variant: Variant, problem: Problem) -> Trace:
    """An empty trace for a run, or BadInput when the run cannot be traced."""
    if not getattr(variant.solver, "traces", False):
        raise BadInput(f"{variant.name} does not trace its steps; the built-in methods do")
    if problem.n > TRACED_UP_TO:
        raise BadInput(f"traces are kept for boards up to n = {TRACED_UP_TO}, not {problem.n:,}")
    return Trace(problem.n)


@dataclass
class CountResult:
    solver: str
    problem: Problem
    unique: bool
    status: str
    solutions: int | None
    verified: bool | None
    reason: str | None
    iterations: int = 0
    counters: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    overhead_seconds: float = 0.0

    @property
    def n(self) -> int:
        return self.problem.n

    def to_dict(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("problem", "trace")}
        data.update(instance_fields(self.problem))
        return data


def check_countable(variant: Variant, problem: Problem, unique: bool) -> None:
    """Refuse, as bad input, a count this variant cannot make."""
    if not variant.counts:
        raise BadInput(f"{variant.label} cannot count solutions (it is not a complete counting solver)")
    if unique and not variant.solver.counts_unique:
        raise BadInput(f"{variant.label} cannot count solutions up to symmetry (--unique)")
    if unique and not problem.is_plain:
        raise BadInput("--unique counts classes of plain boards; it does not take fixed queens or blocked squares")
    check_runnable(variant, problem)


def execute_count(variant: Variant, problem: Problem, unique: bool, budget: Budget) -> Executed:
    budget = budget.restarted()
    counted, seconds, error = call_plugin(variant.solver.count, problem, budget, dict(variant.options), unique)
    return Executed(counted, seconds, error)


def judge_count(variant: Variant, problem: Problem, unique: bool, executed: Executed) -> CountResult:
    """Verify a count (OEIS for plain boards) and make its result; never raises on a bad Count."""
    base: dict[str, Any] = dict(solver=variant.label, problem=problem, unique=unique, seconds=executed.seconds)
    if executed.error is not None:
        return CountResult(**base, status=executed.status, solutions=None, verified=None, reason=executed.error)
    counted = executed.outcome
    verdict = verify_count(problem, counted)
    if verdict.rejected or not isinstance(counted, Count):
        solutions = getattr(counted, "solutions", None)
        shown = solutions if isinstance(solutions, int) and not isinstance(solutions, bool) else None
        return CountResult(**base, status=Status.INVALID, solutions=shown, verified=False, reason=verdict.reason)
    counters, dropped = clean_counters(counted.counters)
    return CountResult(
        **base,
        status=Status(counted.status),
        solutions=int(counted.solutions),
        verified=verdict.verified,
        reason=with_dropped(verdict.reason, dropped),
        iterations=int(counted.iterations) if isinstance(counted.iterations, int) else 0,
        counters=counters,
    )


def count(variant: Variant, problem: Problem, *, unique: bool = False, timeout: float | None = None) -> CountResult:
    """Count in this process (no isolation) and verify; see ``run`` for when to use it."""
    check_countable(variant, problem, unique)
    executed = execute_count(variant, copy.deepcopy(problem), unique, Budget(timeout))
    return judge_count(variant, problem, unique, executed)
