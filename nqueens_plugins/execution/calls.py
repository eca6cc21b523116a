"""Execution layer, worker side: the only place that calls a solver's methods for a task.

``perform`` runs in a worker process (``worker.py``), or in the caller's own
process for ``inprocess.run``. It seeds the run, starts the budget's clock,
times the call alone and catches anything the plugin raises; what it returns
is unverified (``judge.py`` verifies it, on the parent's side).
"""

from __future__ import annotations

import pickle
import random
import signal
import time
from collections.abc import Callable
from typing import Any

from nqueens_plugins.core.limits import Limits
from nqueens_plugins.core.problem import Budget, Problem, Trace
from nqueens_plugins.core.solver import Variant
from nqueens_plugins.execution import certificates
from nqueens_plugins.execution.tasks import Executed, OpaquePart, Task, TaskKind

MESSAGE_LIMIT = 2_000  # characters of a plugin's exception message kept in a record


def describe(exc: BaseException) -> str:
    """``Type: message`` of an exception from plugin code, whatever its ``__str__`` does, bounded in size.

    The message is plugin code too: ``str`` may raise (then ``repr`` is tried,
    then a fixed text) or return megabytes (then it is cut).
    """
    text: str | None = None
    for render in (str, repr):
        try:
            text = render(exc)
            break
        except BaseException:  # noqa: BLE001, S112 - a plugin's __str__ may raise anything; try the next
            continue
    if text is None:
        text = "(its message cannot be read: str() and repr() both raise)"
    if len(text) > MESSAGE_LIMIT:
        text = f"{text[:MESSAGE_LIMIT]}... ({len(text) - MESSAGE_LIMIT:,} characters left out)"
    name = type(exc).__name__
    return f"{name}: {text}" if text else name


def call_plugin(function: Callable[..., Any], *args: Any) -> tuple[Any, float, str | None]:
    """Call solver code, timing it and catching anything it raises (even SystemExit)."""
    start = time.perf_counter()
    try:
        value = function(*args)
    except KeyboardInterrupt as exc:
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            raise  # possibly the user's Ctrl-C (in-process calls); a worker ignores SIGINT, so there it is the plugin's
        return None, time.perf_counter() - start, describe(exc)
    except BaseException as exc:  # noqa: BLE001 - a plugin may fail in any way, sys.exit included
        return None, time.perf_counter() - start, describe(exc)
    return value, time.perf_counter() - start, None


def execute(variant: Variant, problem: Problem, limits: Limits, trial: int, budget: Budget) -> Executed:
    """Call the solver, catching anything it raises. The budget's clock starts here; the run's random
    stream is seeded from (seed, solver, instance, trial) (``Limits.seed_for``)."""
    rng = random.Random(limits.seed_for(variant.name, problem, trial))
    budget = budget.restarted()
    outcome, seconds, error = call_plugin(variant.solver.solve, problem, rng, budget, dict(variant.options))
    return Executed(outcome, seconds, error, trace=budget.trace)


def execute_count(variant: Variant, problem: Problem, unique: bool, budget: Budget) -> Executed:
    budget = budget.restarted()
    counted, seconds, error = call_plugin(variant.solver.count, problem, budget, dict(variant.options), unique)
    return Executed(counted, seconds, error)


def perform(task: Task) -> Executed:
    """Run a task's solver call in this process and return what came back, unverified. A certified run's
    proof is only handed over (``certificates.hand_over``): the service checks it, outside this process."""
    solver, options = task.variant.solver, dict(task.variant.options)
    seconds = task.seconds_left()
    if task.kind == TaskKind.COUNT:
        return execute_count(task.variant, task.problem, task.unique, Budget(seconds))
    if task.kind == TaskKind.EXPORT:
        return Executed(*call_plugin(solver.export, task.problem, options, task.part))
    if task.kind == TaskKind.COUNT_PLAN:
        return opaque_parts(Executed(*call_plugin(solver.count_parts, task.problem, options, task.unique)))
    if task.kind == TaskKind.COUNT_PART:
        budget = Budget(seconds)
        return Executed(*call_plugin(solver.count_part, task.problem, budget, options, task.unique, task.part))
    steps = Trace(task.problem.n) if task.trace else None
    log = (
        certificates.open_log(task.problem, task.limits)
        if certificates.wanted(task.variant, task.problem, task.limits)
        else None
    )
    budget = Budget(seconds, task.limits.max_iterations, trace=steps, proof=log)
    executed = execute(task.variant, task.problem, task.limits, task.trial, budget)
    if log is None:
        return executed
    return certificates.hand_over(executed, log)


def opaque_parts(plan: Executed) -> Executed:
    """A count's plan with each piece pickled here (``OpaquePart``): the parent hands the pieces back to workers
    without opening them. A piece that cannot be pickled fails the plan, as any failure of the plugin's does."""
    if plan.error is not None or not isinstance(plan.outcome, list):
        return plan
    try:
        plan.outcome = [OpaquePart(pickle.dumps(part), repr(part)) for part in plan.outcome]
    except BaseException as exc:  # noqa: BLE001 - a piece's pickling and repr are plugin code
        return Executed(None, plan.seconds, f"a piece of the plan cannot be sent: {describe(exc)}")
    return plan
