"""Workflows layer, parent side: a count split into the pieces its solver offers, added up and verified.

``count_in_parts`` asks the solver for its pieces (``Solver.count_parts``, one
task), hands each piece to an executor as a task of its own (the local cores,
or a Dask cluster's workers), adds up what comes back and verifies the total
against OEIS. This is how a long count shows its progress and spreads over a
cluster; the executor itself knows nothing of counting. Classes counted by
Burnside's lemma add up too: pieces that say so (``BURNSIDE_GROUP_ORDER``) each
count their share of the solutions the symmetries fix, and the total is divided
by the group's order.

A resumed count trusts its pieces file only as far as it must: a published total
(OEIS, a plain board) checks the sum, and otherwise a sample of the kept pieces
(``verify_resumed``: 10 % by default, at least one, drawn by the operating
system's randomness) is counted again beside the new pieces; one that comes out
otherwise refuses the file (``RejectedFile``, ``results/resume_checks.py``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from nqueens_plugins.core.errors import RejectedFile
from nqueens_plugins.core.problem import Count, Problem, Status
from nqueens_plugins.core.verify import known_count
from nqueens_plugins.execution.answers import CountResult
from nqueens_plugins.execution.executor import Executor
from nqueens_plugins.execution.judge import judge_count
from nqueens_plugins.execution.tasks import Executed, Task
from nqueens_plugins.formats.count_pieces import PiecesFile
from nqueens_plugins.results.resume_checks import DEFAULT_FRACTION, draw_sample


def count_in_parts(
    executor: Executor,
    task: Task[CountResult],
    progress: Callable[[int, int], None] | None = None,
    out: str | Path | None = None,
    resume: bool = False,
    verify_resumed: float = DEFAULT_FRACTION,
) -> CountResult:
    """A count split into the pieces the solver offers (``Solver.count_parts``), counted as
    separate tasks by ``executor`` (the workers of a cluster), added up here and verified.

    With ``out``, every finished piece is written to that file as it comes back
    (``formats/count_pieces.py``), and ``resume`` counts only the pieces the file
    does not hold yet: a killed or timed-out count loses only its pieces in flight.
    ``verify_resumed`` (0 to 1) is the share of the file's pieces counted again to
    check it, unless OEIS knows the total (module docstring).

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
    checked = checked_pieces(task.problem, task.unique, pieces, verify_resumed)
    try:
        if whole:
            return count_whole(executor, task, pieces, checked)
        return count_pieces(executor, task, plan, parts, progress, pieces, checked)
    finally:
        if pieces is not None:
            pieces.close()


WHOLE = "the whole count"  # the one piece of a count its solver does not split


def checked_pieces(problem: Problem, unique: bool, pieces: PiecesFile | None, fraction: float) -> set[int]:
    """The kept pieces to count again: none when nothing is resumed or OEIS knows the total (which then
    checks every piece at once), else a sample no one can foresee (``resume_checks.draw_sample``)."""
    if pieces is None or not pieces.finished:
        return set()
    if problem.is_plain and known_count(problem.n, unique) is not None:
        return set()
    return set(draw_sample(sorted(pieces.finished), fraction))


def forged(pieces: PiecesFile, index: int, kept: int, counted: int) -> RejectedFile:
    """The refusal of a pieces file whose piece ``index`` counted again came out otherwise."""
    return RejectedFile(
        f"{str(pieces.path)!r}: piece {index} says {kept:,} solutions, and counted again it has {counted:,}: "
        "the file was changed since this count wrote it, so nothing of it is used; count again with another "
        "--out (out=), or --verify-resumed 0 (verify_resumed=0) to trust the file as it is"
    )


def count_whole(
    executor: Executor, task: Task[CountResult], pieces: PiecesFile | None, checked: set[int]
) -> CountResult:
    """A count in one piece (its solver offers none): run once, or taken from ``pieces`` when it holds it
    (counted again when it is to be checked, and refused if it comes out otherwise)."""
    if pieces is not None and 0 in pieces.finished:
        kept = pieces.finished[0]
        if 0 in checked:
            ((_, again),) = executor.map([task])
            if again.status is Status.SOLVED and again.solutions is not None and again.solutions != kept["solutions"]:
                raise forged(pieces, 0, int(kept["solutions"]), again.solutions)
            again.counters["parts_resumed"] = 1
            again.counters["parts_checked"] = 1
            return again
        counted = Count(Status.SOLVED, int(kept["solutions"]), task.unique, int(kept["iterations"]), kept["counters"])
        result = judge_count(task.variant, task.problem, task.unique, Executed(counted, 0.0))
        result.counters["parts_resumed"] = 1
        result.counters["parts_checked"] = 0  # none asked for, or OEIS checks the total
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
    checked: set[int],
) -> CountResult:
    """Count the pieces not finished yet, add them to the finished ones, verify the total. The kept
    pieces in ``checked`` are counted again first, beside them: one that comes out otherwise refuses the
    file (``RejectedFile``), one that runs out of time leaves the count unfinished."""
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
    again: set[int] = set()  # the ids of the tasks that count a kept piece again
    for index, part in enumerate(parts):
        if index in checked:
            piece_task = task.piece(part)
            index_of[id(piece_task)] = index
            again.add(id(piece_task))
            to_count.append(piece_task)
    for index, part in enumerate(parts):
        if index not in finished:
            piece_task = task.piece(part)
            index_of[id(piece_task)] = index
            to_count.append(piece_task)
    checks = checks_left = len(to_count) - (len(parts) - len(finished))
    answers = executor.map(to_count)
    finished_here = 0
    try:
        for piece_task, executed in answers:
            preparing = max(preparing, executed.prepare_seconds or 0.0)
            if id(piece_task) in again:
                checks_left -= 1
                status = check_again(pieces, index_of[id(piece_task)], finished, executed, status)
                continue
            done += 1
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
            if (
                task.deadline is not None
                and time.time() >= task.deadline + preparing
                and (done < len(parts) or checks_left)
            ):
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
        if finished:
            whole["parts_checked"] = checks  # the kept pieces counted again (none: OEIS checks the total)
    combined = Count(status, total, task.unique, iterations, whole)
    # The count's own time: its plan, then its pieces' wall time less the longest preparation among them.
    seconds = plan.seconds + max(0.0, time.perf_counter() - start - preparing)
    prepared = (plan.prepare_seconds or 0.0) + preparing
    executed = Executed(combined, seconds, prepare_seconds=prepared or None)
    return judge_count(task.variant, task.problem, task.unique, executed)


def check_again(
    pieces: PiecesFile | None, index: int, finished: dict[int, dict[str, Any]], executed: Executed, status: Status
) -> Status:
    """A kept piece counted again: RejectedFile if it comes out otherwise; the count's status, made
    timed-out when the piece could not be counted to its end (the file's word for it is then unchecked)."""
    counted = executed.outcome
    if executed.error is not None or part_error(counted) is not None or Status(counted.status) is not Status.SOLVED:
        return Status.TIMED_OUT
    kept = int(finished[index]["solutions"])
    if int(counted.solutions) != kept and pieces is not None:
        raise forged(pieces, index, kept, int(counted.solutions))
    return status


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
