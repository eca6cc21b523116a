"""Execution layer, parent side: what came back from a worker, verified and made into a result.

A solver never vouches for its own answer: ``judge`` and ``judge_count`` run in
the process that handed out the task (or, for ``inprocess.run``, after the call
returned), check every answer with the independent verifier, keep only counters
that JSON can hold, and say why when something was dropped or rejected.
"""

from __future__ import annotations

import math
from typing import Any, TypeVar, cast

import numpy as np

from nqueens_plugins.core.certificate_status import CertificateStatus
from nqueens_plugins.core.limits import Limits
from nqueens_plugins.core.problem import Count, Outcome, Problem, Status
from nqueens_plugins.core.solver import Variant
from nqueens_plugins.core.verify import Verdict, verify_count, verify_outcome
from nqueens_plugins.execution.answers import Answer, CountResult, Result
from nqueens_plugins.execution.measuring import RunMeasure
from nqueens_plugins.execution.tasks import Certificate, Executed, Foreign, Task, TaskKind

R = TypeVar("R")


def judge(variant: Variant, problem: Problem, limits: Limits, trial: int, executed: Executed) -> Result:
    """Verify what a solver returned and make the result of the run (which keeps the limits it ran under)."""
    base: dict[str, Any] = {
        "solver": variant.label,
        "name": variant.name,
        "options": dict(variant.given),
        "problem": problem,
        "seed": limits.seed,
        "trial": trial,
        "limits": limits,
        "seconds": executed.seconds,
        "prepare_seconds": executed.prepare_seconds,
        "output": executed.output,
        "output_bytes": executed.output_bytes,
        "complete": variant.complete,
        "trace": executed.trace,
        **measure_fields(executed.measure),
    }
    if executed.error is not None:
        return Result(**base, status=executed.status, verified=None, reason=executed.error, queens=None)
    outcome = executed.outcome
    if isinstance(outcome, Foreign):
        reason = f"solver returned {outcome.type_name}, not an Outcome"
        return Result(**base, status=Status.INVALID, verified=False, reason=reason, queens=None)
    verdict = verify_outcome(problem, outcome, complete=variant.complete, published=published_answer(problem))
    certificate = executed.certificate
    if certificate is not None:
        base.update(certificate=certificate.status, certificate_bytes=certificate.bytes)
        base.update(certificate_seconds=certificate.seconds, proof=certificate.proof)
        base.update(proof_sha256=certificate.proof_sha256)
        if not verdict.rejected:
            verdict = with_certificate(verdict, certificate)
    if verdict.rejected or not isinstance(outcome, Outcome):
        return Result(**base, status=Status.INVALID, verified=False, reason=verdict.reason, queens=safe_queens(outcome))
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
    )


def with_certificate(verdict: Verdict, certificate: Certificate) -> Verdict:
    """A no-solution verdict once its certificate was checked: a checked proof confirms the claim as a
    published answer would; a proof the checker rejects makes the run invalid, like an attacking board; one
    it could not finish (over budget, or the checker failed) leaves the verdict as it was, and says so."""
    size = f"{certificate.lemmas:,} lemmas, {certificate.bytes:,} bytes, checked in {certificate.seconds:.2f} s"
    kept = f"; kept as {certificate.proof}" if certificate.proof else ""
    if certificate.status == CertificateStatus.CERTIFIED:
        return Verdict(True, f"certified: its proof ({size}) refutes the instance{kept}")
    if certificate.status == CertificateStatus.REJECTED:
        return Verdict(False, f"its certificate is wrong: {certificate.reason}{kept}")
    note = f"certificate {certificate.status}: {certificate.reason}"
    return Verdict(verdict.verified, f"{verdict.reason}; {note}" if verdict.reason else note)


def refusal(variant: Variant, problem: Problem, limits: Limits, reason: str) -> Result:
    """The result of a board the solver refused before any run (``check_runnable``): a fact of the
    comparison, kept with its reason, not a run and not a failure."""
    return Result(
        solver=variant.label,
        name=variant.name,
        options=dict(variant.given),
        problem=problem,
        seed=limits.seed,
        trial=0,
        limits=limits,
        status=Status.REFUSED,
        verified=None,
        reason=reason,
        queens=None,
        complete=variant.complete,
    )


def published_answer(problem: Problem) -> bool | None:
    """The instance's published answer (has a solution or not), looked up only for instances from files."""
    if problem.source is None:
        return None
    from nqueens_plugins.formats.published import published_answer as lookup  # loads the table on first use

    return lookup(problem.source, problem.n)


def judge_count(variant: Variant, problem: Problem, unique: bool, executed: Executed) -> CountResult:
    """Verify a count (OEIS for plain boards) and make its result; never raises on a bad Count."""
    base: dict[str, Any] = {
        "solver": variant.label,
        "problem": problem,
        "unique": unique,
        "seconds": executed.seconds,
        "prepare_seconds": executed.prepare_seconds,
        "output": executed.output,
        "output_bytes": executed.output_bytes,
    }
    if executed.error is not None:
        return CountResult(**base, status=executed.status, solutions=None, verified=None, reason=executed.error)
    counted = executed.outcome
    if isinstance(counted, Foreign):
        reason = f"solver returned {counted.type_name}, not a Count"
        return CountResult(**base, status=Status.INVALID, solutions=None, verified=False, reason=reason)
    verdict = verify_count(problem, counted, published=published_answer(problem))
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


def conclude(task: Task[R], executed: Executed, wall: float | None = None) -> R:
    """Verify what came back for ``task`` and make its result: a ``Result`` for a solve, a
    ``CountResult`` for a count. The pieces of a split count come back as they are
    (``counting.count_in_parts`` checks them and verifies the total), and so does an export's
    text (``api.export`` checks it is text)."""
    if task.kind in (TaskKind.COUNT_PLAN, TaskKind.COUNT_PART, TaskKind.EXPORT):
        return cast(R, executed)  # the one place a kind decides the type: Task's makers pair them (tasks.py)
    answer: Answer
    if task.kind == TaskKind.COUNT:
        answer = judge_count(task.variant, task.problem, task.unique, executed)
    else:
        answer = judge(task.variant, task.problem, task.limits, task.trial, executed)
    if wall is not None:
        answer.overhead_seconds = max(0.0, wall - executed.seconds)
    if task.cold:
        note = cold_note(task)
        answer.reason = f"{answer.reason}; {note}" if answer.reason else note
    return cast(R, answer)


def cold_note(task: Task[Any]) -> str:
    limit = task.default_warm_up_limit()
    within = f" within {limit:.2g} s" if limit is not None else ""
    return (
        f"run cold: the solver's default warm-up (a 4x4 solve) did not end{within}, so this run's time includes "
        "whatever its first call loads"
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
        if isinstance(value, (bool, int)) or hasattr(value, "__index__"):
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


def measure_fields(measure: RunMeasure | None) -> dict[str, Any]:
    """A result's cost fields from what its worker measured (the wire checked each figure's type and range);
    none when nothing was measured."""
    if measure is None:
        return {}
    return {
        "cpu_seconds": measure.cpu_seconds,
        "peak_memory_bytes": measure.peak_memory_bytes,
        "max_threads": measure.max_threads,
        "max_processes": measure.max_processes,
        "measured_by": {
            "cpu": measure.cpu_method,
            "memory": measure.memory_method,
            "threads": measure.threads_method,
            "processes": measure.processes_method,
        },
    }
