"""Workflows layer, parent side: a race, several solvers on one instance at once; the first decided answer wins.

Each member runs in a worker of its own (an executor with a job per member), all
sent at once, under the same limits. Answers are verified as they arrive (the
executor's judge: no solver vouches for itself), and the first *decided* one wins:
a verified board, or a no-solution claim the verifier confirmed (a checked
certificate, a published answer, a fact). The other members' workers are then
killed, with their process groups and whatever they started. An answer that
decides nothing (gave up, timed out, a no-solution claim nothing confirms, an
answer the verifier rejected, a crash) does not end the race: it is that member's
outcome, said in the result, and the others go on.

Before the race, each member solves a small board in its worker (``prepare``), so
that every member is prepared and starts together. Time: a race's ``seconds`` are
the winner's solver call, the clock of any single run, so a race compares with
single runs of the same limits; ``overhead_seconds`` is the rest of its wall time
(sending the tasks, the answer's way back and its verification, killing the
losers). ``core_seconds`` is what the race held: each member's seconds until it
answered or was stopped, added. A race of k members uses k cores.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.limits import CertifyMode, Limits
from nqueens_plugins.core.problem import Problem, Status
from nqueens_plugins.core.solver import Variant
from nqueens_plugins.execution.answers import Result
from nqueens_plugins.execution.executor import Executor
from nqueens_plugins.execution.local import LocalExecutor
from nqueens_plugins.execution.tasks import Task, check_runnable
from nqueens_plugins.formats.published import published_answer
from nqueens_plugins.results.race import LOST, Member, RaceResult

__all__ = ["RaceEntry", "check_race", "race", "race_members", "race_record_fields"]

PREPARE_BOARD_TIMEOUT = 5.0  # seconds for a member's small board before the race (one that hangs there is stopped)


def check_race(members: Sequence[Variant], problem: Problem, executor: Executor | None) -> None:
    """Refuse, in one line each, a race that cannot be run or scored: fewer than two members, one twice, more
    members than cores, an incomplete member on an instance known to have no solution, a board a member refuses."""
    if len(members) < 2:
        raise BadInput("a race needs two solvers or more (one solver alone is a solve)")
    labels = [member.label for member in members]
    twice = next((label for label in labels if labels.count(label) > 1), None)
    if twice is not None:
        raise BadInput(f"{twice} is in the race twice: it would only race itself")
    cores = os.cpu_count() or 1
    jobs = executor.jobs if isinstance(executor, LocalExecutor) else cores
    if executor is not None and not isinstance(executor, LocalExecutor):
        raise BadInput("a race runs on this machine's workers only (it must stop the losers at once)")
    if len(members) > jobs:
        raise BadInput(
            f"a race of {len(members)} solvers needs {len(members)} cores, and "
            f"{'this machine has' if executor is None else 'the executor has'} {jobs}: race at most {jobs}"
        )
    if known_unsatisfiable(problem):
        hopeless = next((member.label for member in members if not member.solver.complete), None)
        if hopeless is not None:
            raise BadInput(
                f"{hopeless} cannot win this race: the instance has no solution and {hopeless} is incomplete "
                "(it can never prove that); race complete solvers"
            )
    for member in members:
        check_runnable(member, problem)


def known_unsatisfiable(problem: Problem) -> bool:
    """Whether the instance is known to have no solution before any run: n = 2, 3, or a published answer."""
    if problem.is_plain:
        return problem.n in (2, 3)
    return problem.source is not None and published_answer(problem.source, problem.n) is False


def race(
    members: Sequence[Variant], problem: Problem, limits: Limits, executor: Executor | None = None, *, trial: int = 0
) -> RaceResult:
    """Run ``members`` on ``problem`` at once; the first decided answer wins and the others are stopped."""
    check_race(members, problem, executor)
    tasks = [Task.solve(member, problem, limits, trial=trial) for member in members]
    own = executor is None
    workers = executor if isinstance(executor, LocalExecutor) else LocalExecutor(len(members))  # check_race: local
    answered: dict[str, Result] = {}
    winner: Result | None = None
    try:
        prepare(workers, members, limits)
        started = time.perf_counter()
        answers = workers.map(tasks, quickest_first=True)
        try:
            for task, result in answers:
                answered[task.variant.label] = result
                if result.decided:
                    winner = result
                    break
        finally:
            close = getattr(answers, "close", None)  # a LocalExecutor's stream: closing kills the busy workers
            if close is not None:
                close()
        wall = time.perf_counter() - started
    finally:
        if own:
            workers.close()
    if winner is not None:
        seconds = float(winner.seconds)
    else:
        seconds = max(float(result.seconds) for result in answered.values())
    outcomes = []
    for member in members:
        answer = answered.get(member.label)
        if answer is None:
            outcomes.append(Member(member.label, LOST, seconds, None))
        else:
            outcomes.append(Member(member.label, str(answer.status), float(answer.seconds), answer))
    core_seconds = sum(outcome.seconds for outcome in outcomes)
    return RaceResult(problem, winner, tuple(outcomes), seconds, core_seconds, max(0.0, wall - seconds))


def prepare(workers: Executor, members: Sequence[Variant], limits: Limits) -> None:
    """Give every member a warm worker before the race, so that all start together: each solves a small
    board first (untimed for the race), which imports its plugin, runs its warm-up and, for a member that
    certifies, starts its worker's checker and waits for it (n = 3 has no solution: its proof is checked).
    Without this, a member whose preparation is short would start first, and a checker still loading would
    take a core from the race. What the small boards answer does not matter; a failure shows in the race, and a
    member that hangs on its small board is stopped after ``PREPARE_BOARD_TIMEOUT`` and races cold."""
    tasks = []
    for member in members:
        certifies = (
            limits.certify != CertifyMode.NEVER
            and member.solver.complete
            and member.solver.can_certify(dict(member.options))
        )
        board = Problem(3 if certifies else 4)
        with contextlib.suppress(BadInput):
            check_runnable(member, board)
            certify = CertifyMode.ALWAYS if certifies else CertifyMode.NEVER
            timeout = min(limits.timeout or PREPARE_BOARD_TIMEOUT, PREPARE_BOARD_TIMEOUT)
            tasks.append(Task.solve(member, board, replace(limits, certify=certify, timeout=timeout)))
    for _ in workers.map(tasks):
        pass


# --- a race in a comparison ----------------------------------------------------

RACE_SPEC = re.compile(r"^\s*race\s*\((.*)\)\s*$", re.DOTALL)


def race_members(spec: str) -> str | None:
    """The members of ``race(A,B[...])`` as a spec list (``A,B[...]``), or None if ``spec`` is not a race."""
    match = RACE_SPEC.match(spec)
    return match.group(1) if match else None


@dataclass(frozen=True)
class RaceEntry:
    """A race as a row of a comparison: its label (``race(A,B)``, as typed members' labels make it) and members."""

    members: tuple[Variant, ...]

    @property
    def label(self) -> str:
        return "race(" + ",".join(member.label for member in self.members) + ")"


def race_record_fields(raced: RaceResult, entry: RaceEntry, limits: Limits, trial: int) -> dict[str, Any]:
    """A race as the fields of a run record (``Result.to_dict``'s, under the race's label): the winner's
    answer, or, when no member decided, how they ended; the race's own seconds; its members in ``race``."""
    answered = [member.result for member in raced.members if member.result is not None]
    base = raced.winner or answered[0]
    fields = base.to_dict()
    statuses = [member.status for member in raced.members]
    if raced.winner is not None:
        status, verified = str(raced.winner.status), raced.winner.verified
        reason = f"won by {raced.winner.solver}" + (f": {raced.winner.reason}" if raced.winner.reason else "")
    else:
        status = undecided_status(statuses)
        verified = False if status == Status.INVALID else None
        reason = "no member decided: " + ", ".join(f"{m.solver} {m.status}" for m in raced.members)
        fields.update(queens=None, certificate=None, certificate_bytes=None, certificate_seconds=None)
    fields.update(
        solver=entry.label,
        name="race",
        options={},
        seed=limits.seed,
        trial=trial,
        status=status,
        verified=verified,
        reason=reason,
        seconds=raced.seconds,
        overhead_seconds=raced.overhead_seconds,
        prepare_seconds=None,
        output=None,
        output_bytes=0,
        complete=any(member.solver.complete for member in entry.members),
        counters={"members": len(entry.members), "core_seconds": raced.core_seconds},
        # A race's cost is its members' together, and a member stopped at the winner's answer was not measured.
        cpu_seconds=None,
        peak_memory_bytes=None,
        max_threads=None,
        max_processes=None,
        measured_by=None,
        race={
            "winner": None if raced.winner is None else raced.winner.solver,
            "members": [{"solver": m.solver, "status": m.status, "seconds": m.seconds} for m in raced.members],
        },
    )
    if raced.winner is None:
        fields.update(iterations=0, moves=0)
    return fields


def undecided_status(statuses: Sequence[str]) -> str:
    """How a race that nobody won ended: the members' common end, else the first of no-solution (a claim
    nothing confirms), gave-up, timed-out, error and invalid that one of them met."""
    if len(set(statuses)) == 1:
        return statuses[0]
    return next(status for status in ("no-solution", "gave-up", "timed-out", "error", "invalid") if status in statuses)
