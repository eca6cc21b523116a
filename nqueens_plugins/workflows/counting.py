"""Workflows layer, parent side: a count split into the pieces its solver offers, added up and verified.

``count_in_parts`` asks the solver for its pieces (``Solver.count_parts``, one
task), hands each piece to an executor as a task of its own (the local cores,
or a Dask cluster's workers), adds up what comes back and verifies the total
against OEIS. This is how a long count shows its progress and spreads over a
cluster; the executor itself knows nothing of counting. Classes counted by
Burnside's lemma add up too: pieces that say so (``BURNSIDE_GROUP_ORDER``) each
count their share of the solutions the symmetries fix, and the total is divided
by the group's order.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from nqueens_plugins.core.problem import Count, Status
from nqueens_plugins.execution.executor import Executor
from nqueens_plugins.execution.judge import CountResult, judge_count
from nqueens_plugins.execution.tasks import Executed, Task
from nqueens_plugins.formats.count_pieces import PiecesFile


def count_in_parts(
    executor: Executor,
    task: Task[CountResult],
    progress: Callable[[int, int], None] | None = None,
    out: str | Path | None = None,
    resume: bool = False,
) -> CountResult:
    """A count split into the pieces the solver offers (``Solver.count_parts``), counted as
    separate tasks by ``executor`` (the workers of a cluster), added up here and verified.

    With ``out``, every finished piece is written to that file as it comes back
    (``formats/count_pieces.py``), and ``resume`` counts only the pieces the file
    does not hold yet: a killed or timed-out count loses only its pieces in flight.

    A solver that offers no pieces (or fails to plan) is counted in one task. A
    piece that fails makes the count fail; one that runs out of time makes the total
    a lower bound (``timed-out``). The task's ``timeout`` holds for the whole
    count, less no preparation: the plan is timed like any call, then every piece
    carries the same deadline, which a worker moves by what preparing the solver
    took it (``worker_handle.WorkerProcess.prepared``). ``progress(done, total)`` is
    called as pieces come back (this is how a long count shows how far it is).
    """
    ((_, plan),) = executor.map([task.plan()])
    parts = plan.outcome
    if plan.error is not None and out is not None:
        # Kept piece by piece, a count must be split the same way every run: a split that failed
        # (out of time, a bug) ends the count rather than keep it in one piece the next run would not know.
        failed = Executed(None, plan.seconds, f"splitting the count into pieces failed: {plan.error}", plan.status)
        return judge_count(task.variant, task.problem, task.unique, failed)
    whole = plan.error is not None or not isinstance(parts, list) or not parts
    pieces = None
    if out is not None:
        pieces = PiecesFile.open(
            out,
            resume=resume,
            solver=task.variant.label,
            problem=task.problem,
            unique=task.unique,
            parts=[WHOLE] if whole else parts,
        )
    try:
        if whole:
            return count_whole(executor, task, pieces)
        return count_pieces(executor, task, plan, parts, progress, pieces)
    finally:
        if pieces is not None:
            pieces.close()


WHOLE = "the whole count"  # the one piece of a count its solver does not split


def count_whole(executor: Executor, task: Task[CountResult], pieces: PiecesFile | None) -> CountResult:
    """A count in one piece (its solver offers none): run once, or taken from ``pieces`` when it holds it."""
    if pieces is not None and 0 in pieces.finished:
        kept = pieces.finished[0]
        counted = Count(Status.SOLVED, int(kept["solutions"]), task.unique, int(kept["iterations"]), kept["counters"])
        result = judge_count(task.variant, task.problem, task.unique, Executed(counted, 0.0))
        result.counters["parts_resumed"] = 1
        return result
    ((_, answer),) = executor.map([task])  # ``run`` may be what called us
    if pieces is not None and answer.status is Status.SOLVED and answer.solutions is not None:
        pieces.record(
            0, Count(Status.SOLVED, answer.solutions, task.unique, answer.iterations, answer.counters), answer.seconds
        )
    return answer


def count_pieces(
    executor: Executor,
    task: Task[CountResult],
    plan: Executed,
    parts: list[Any],
    progress: Callable[[int, int], None] | None,
    pieces: PiecesFile | None,
) -> CountResult:
    """Count the pieces not finished yet, add them to the finished ones, verify the total."""
    start = time.perf_counter()
    if task.limits.timeout is not None and task.deadline is None:
        task = replace(task, deadline=time.time() + max(0.0, task.limits.timeout - plan.seconds))
    preparing = 0.0  # the longest preparation of a worker for these pieces: they prepare side by side
    total = iterations = done = 0
    counters: dict[str, int] = {}  # the pieces' whole-number counters, added up
    finished = pieces.finished if pieces is not None else {}
    for piece in finished.values():
        total += int(piece["solutions"])
        iterations += int(piece.get("iterations", 0))
        add_counters(counters, piece.get("counters", {}))
    done = len(finished)
    status = Status.SOLVED
    if progress is not None:
        progress(done, len(parts))
    index_of: dict[int, int] = {}
    to_count = []
    for index, part in enumerate(parts):
        if index not in finished:
            piece_task = task.piece(part)
            index_of[id(piece_task)] = index
            to_count.append(piece_task)
    answers = executor.map(to_count)
    finished_here = 0
    try:
        for piece_task, executed in answers:
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
                add_counters(counters, counted.counters if isinstance(counted.counters, dict) else {})
                if Status(counted.status) is not Status.SOLVED:
                    status = Status.TIMED_OUT  # a lower bound for this piece: not kept as finished
                else:
                    finished_here += 1
                    if pieces is not None:
                        pieces.record(index_of[id(piece_task)], counted, executed.seconds)
            if task.deadline is not None and time.time() >= task.deadline + preparing and done < len(parts):
                status = Status.TIMED_OUT  # the pieces not yet counted are left out, not started only to be stopped
                break
    finally:
        close = getattr(answers, "close", None)
        if close is not None:
            close()  # stops the pieces still running (a generator's cleanup kills their workers)
    total //= counters.get(BURNSIDE_GROUP_ORDER) or 1  # pieces of Burnside's sum: the classes are its average
    whole = {**counters, "parts": len(parts), "parts_counted": len(finished) + finished_here}
    if pieces is not None:
        whole["parts_resumed"] = len(finished)
    combined = Count(status, total, task.unique, iterations, whole)
    # The count's own time: its plan, then its pieces' wall time less the longest preparation among them.
    seconds = plan.seconds + max(0.0, time.perf_counter() - start - preparing)
    prepared = (plan.prepare_seconds or 0.0) + preparing
    executed = Executed(combined, seconds, prepare_seconds=prepared or None)
    return judge_count(task.variant, task.problem, task.unique, executed)


# A piece's counter saying its solutions are its share of Burnside's sum (over a group of this order, the
# solutions each symmetry leaves unchanged): the count is the pieces' sum over the order, and the order is
# said by every such piece, not added up (bitboard's ``--unique`` by joining: ``bitboard.BURNSIDE_GROUP_ORDER``).
BURNSIDE_GROUP_ORDER = "burnside_group_order"


def add_counters(counters: dict[str, int], piece: dict[Any, Any]) -> None:
    """A piece's whole-number counters added to the count's (``BURNSIDE_GROUP_ORDER`` kept, not added)."""
    for key, value in piece.items():
        if isinstance(key, str) and isinstance(value, int) and not isinstance(value, bool):
            if key == BURNSIDE_GROUP_ORDER:
                counters[key] = max(counters.get(key, 0), value)
            else:
                counters[key] = counters.get(key, 0) + value


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
