"""Execution layer, parent side: a count split into the pieces its solver offers, added up and verified.

``count_in_parts`` asks the solver for its pieces (``Solver.count_parts``, one
task), hands each piece to an executor as a task of its own (the local cores,
or a Dask cluster's workers), adds up what comes back and verifies the total
against OEIS. This is how a long count shows its progress and spreads over a
cluster; the executor itself knows nothing of counting.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from nqueens_plugins.core.problem import Count, Status
from nqueens_plugins.execution.judge import CountResult, judge_count
from nqueens_plugins.execution.service import Executor
from nqueens_plugins.execution.tasks import Executed, Task, TaskKind


def count_in_parts(executor: Executor, task: Task, progress: Callable[[int, int], None] | None = None) -> CountResult:
    """A count split into the pieces the solver offers (``Solver.count_parts``), counted as
    separate tasks by ``executor`` (the workers of a cluster), added up here and verified.

    A solver that offers no pieces (or fails to plan) is counted in one task. A
    piece that fails makes the count fail; one that runs out of time makes the total
    a lower bound (``timed-out``). The task's ``timeout`` holds for the whole
    count, less no preparation: the plan is timed like any call, then every piece
    carries the same deadline, which a worker moves by what preparing the solver
    took it (``service.WorkerProcess.prepared``). ``progress(done, total)`` is
    called as pieces come back (this is how a long count shows how far it is).
    """
    ((_, plan),) = executor.map([replace(task, kind=TaskKind.COUNT_PLAN)])
    assert isinstance(plan, Executed)
    parts = plan.outcome
    if plan.error is not None or not isinstance(parts, list) or not parts:
        ((_, answer),) = executor.map([task])  # in one piece (``run`` may be what called us)
        assert isinstance(answer, CountResult)
        return answer
    start = time.perf_counter()
    if task.timeout is not None and task.deadline is None:
        task = replace(task, deadline=time.time() + max(0.0, task.timeout - plan.seconds))
    preparing = 0.0  # the longest preparation of a worker for these pieces: they prepare side by side
    total = iterations = done = 0
    counters: dict[str, int] = {}  # the pieces' whole-number counters, added up
    status = Status.SOLVED
    if progress is not None:
        progress(0, len(parts))
    answers = executor.map([replace(task, kind=TaskKind.COUNT_PART, part=part) for part in parts])
    try:
        for _, executed in answers:
            assert isinstance(executed, Executed)
            done += 1
            preparing = max(preparing, executed.prepare_seconds or 0.0)
            if progress is not None:
                progress(done, len(parts))
            if executed.error is not None and executed.status is Status.TIMED_OUT:
                status = Status.TIMED_OUT  # killed at the deadline: its subtrees are not in the total
            else:
                counted = executed.outcome
                problem = executed.error or part_error(counted)
                if problem is not None:
                    failed = Executed(
                        None,
                        plan.seconds + time.perf_counter() - start,
                        f"a piece of the count: {problem}",
                        executed.status,
                    )
                    return judge_count(task.variant, task.problem, task.unique, failed)
                total += int(counted.solutions)
                iterations += int(counted.iterations) if isinstance(counted.iterations, int) else 0
                piece_counters = counted.counters if isinstance(counted.counters, dict) else {}
                for key, value in piece_counters.items():
                    if isinstance(key, str) and isinstance(value, int) and not isinstance(value, bool):
                        counters[key] = counters.get(key, 0) + value
                if Status(counted.status) is not Status.SOLVED:
                    status = Status.TIMED_OUT
            if task.deadline is not None and time.time() >= task.deadline + preparing and done < len(parts):
                status = Status.TIMED_OUT  # the pieces not yet counted are left out, not started only to be stopped
                break
    finally:
        close = getattr(answers, "close", None)
        if close is not None:
            close()  # stops the pieces still running (a generator's cleanup kills their workers)
    combined = Count(status, total, task.unique, iterations, {**counters, "parts": len(parts)})
    # The count's own time: its plan, then its pieces' wall time less the longest preparation among them.
    seconds = plan.seconds + max(0.0, time.perf_counter() - start - preparing)
    prepared = (plan.prepare_seconds or 0.0) + preparing
    executed = Executed(combined, seconds, prepare_seconds=prepared or None)
    return judge_count(task.variant, task.problem, task.unique, executed)


def part_error(counted: Any) -> str | None:
    """Why one piece of a count is not a well-formed partial Count, or None (it cannot be checked
    against OEIS on its own; the total is)."""
    if not isinstance(counted, Count):
        return f"returned {type(counted).__name__}, not a Count"
    if isinstance(counted.solutions, bool) or not isinstance(counted.solutions, int) or counted.solutions < 0:
        return f"count must be a non-negative integer, got {counted.solutions!r}"
    if counted.status not in (Status.SOLVED, Status.TIMED_OUT):
        return f"a piece ends solved or timed-out, not {counted.status!r}"
    return None
