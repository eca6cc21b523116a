"""Execution layer, both sides of the pipe: what travels to a worker (``Task``, ``JobEnd``) and back (``Executed``).

A ``Task`` is one call into plugin code, pickled to a worker process; an
``Executed`` is what came back from it, unverified. Both are plain data, so the
worker side (``calls.py``, ``worker.py``) and the parent side (``judge.py``,
``local.py``, ``worker_handle.py``) share them without importing each other.

A task is typed by what an executor answers for it, once verified:
``Task.solve`` makes a ``Task[Result]``, ``Task.count`` a ``Task[CountResult]``,
and the pieces of a split count and an export (``plan``, ``piece``,
``Task.export``) a ``Task[Executed]``, which come back as they are;
``Executor.run(task: Task[R]) -> R``. The type parameter is for the type
checker only (``answers.py`` is named here only while type checking: the worker
never imports the parent's side).

The checks that refuse a task before it is made (``check_runnable``,
``check_countable``, ``start_trace``) live here too: every way of making a task
goes through them, in the process the user typed into.
"""

from __future__ import annotations

import enum
import struct
import time
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from nqueens_plugins.core.certificate_status import CertificateStatus
from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.limits import DEFAULT_LIMITS, Limits
from nqueens_plugins.core.problem import TRACED_UP_TO, Problem, Status, Trace
from nqueens_plugins.core.solver import Variant
from nqueens_plugins.execution.measuring import RunMeasure

if TYPE_CHECKING:
    from nqueens_plugins.execution.answers import CountResult, Result

R_co = TypeVar("R_co", covariant=True)  # what an executor answers for the task, once verified

# The default warm-up (a 4x4 solve, ``Solver.warm_up``, which says it is guessing: ``core.guess_notes``) only
# guesses what a first call loads; on a sane
# solver it ends in milliseconds once the plugin is imported, and one that does not end is a solver that
# ignores its budget: exactly the kind the user's time limit is for. So for a run with a time limit it
# gets half that limit, within these bounds; past it the worker is ended and the solver runs cold in a new
# one, under the run's own limit (a hung warm-up costs at most half again the time the user allowed). A
# solver that truly loads for long on its first call warms up its own way, overriding ``warm_up``
# (``Limits.prepare_timeout``).
DEFAULT_WARM_UP_SHORTEST = 0.5
DEFAULT_WARM_UP_LONGEST = 5.0


class TaskKind(enum.StrEnum):
    """What a task asks of its solver. The pieces of a split count (``counting.py``) are tasks too."""

    SOLVE = "solve"
    COUNT = "count"
    COUNT_PLAN = "count-plan"  # Solver.count_parts: how to split the count
    COUNT_PART = "count-part"  # Solver.count_part: count one piece
    EXPORT = "export"  # Solver.export: the instance as the solver poses it, in a file format (``part``)


@dataclass(frozen=True)
class Task(Generic[R_co]):
    """One call into plugin code: solve or count ``problem`` with ``variant``, under ``limits``.

    Make one with ``Task.solve``, ``Task.count``, ``Task.export`` or, for a count's pieces,
    ``plan`` and ``piece``: each pairs the kind with the type of its answer (``R_co``).
    """

    kind: TaskKind
    variant: Variant
    problem: Problem
    limits: Limits
    trial: int = 0
    unique: bool = False
    part: Any = None  # the piece a count-part task counts (whatever count_parts made); an export's format
    deadline: float | None = None  # wall clock (time.time()) by which the whole job it is part of must end
    trace: bool = False  # record the run's steps (Trace); the solver must trace and n be small
    cold: bool = False  # run without the warm-up: its default warm-up did not end (default_warm_up_limit)

    def seconds_left(self) -> float | None:
        """The time limit this task's solver call gets: its own, cut short by its job's deadline."""
        timeout = self.limits.timeout
        if self.deadline is None:
            return timeout
        left = max(0.0, self.deadline - time.time())
        return left if timeout is None else min(timeout, left)

    def default_warm_up_limit(self) -> float | None:
        """Seconds its solver's default warm-up may take (None: only ``prepare_timeout``, for a run with no
        time limit, which could not end sooner cold either)."""
        left = self.seconds_left()
        if left is None:
            return None
        return min(DEFAULT_WARM_UP_LONGEST, max(DEFAULT_WARM_UP_SHORTEST, left / 2))

    @staticmethod
    def solve(
        variant: Variant, problem: Problem, limits: Limits = DEFAULT_LIMITS, *, trial: int = 0, trace: bool = False
    ) -> Task[Result]:
        """A solve task, refused (BadInput) if the variant cannot take the problem or cannot trace it."""
        check_runnable(variant, problem)
        if trace:
            start_trace(variant, problem)
        return Task(TaskKind.SOLVE, variant, problem, limits, trial=trial, trace=trace)

    @staticmethod
    def export(variant: Variant, problem: Problem, format: str, limits: Limits) -> Task[Executed]:
        """An export task, refused (BadInput) if the variant cannot take the problem or write ``format``."""
        if format not in variant.solver.exports:
            offered = ", ".join(variant.solver.exports) or "none"
            raise BadInput(f"{variant.name} does not export {format} (it exports: {offered})")
        check_runnable(variant, problem)
        return Task(TaskKind.EXPORT, variant, problem, limits, part=format)

    @staticmethod
    def count(
        variant: Variant, problem: Problem, limits: Limits = DEFAULT_LIMITS, *, unique: bool = False
    ) -> Task[CountResult]:
        """A count task, refused (BadInput) if the variant cannot make that count."""
        check_countable(variant, problem, unique, limits.memory)
        return Task(TaskKind.COUNT, variant, problem, limits, unique=unique)

    def plan(self) -> Task[Executed]:
        """This count's first step, as a task of its own: asking its solver how to split it
        (``Solver.count_parts``); it comes back unverified."""
        return self._as_kind(TaskKind.COUNT_PLAN)

    def piece(self, part: Any) -> Task[Executed]:
        """One piece of this count (``Solver.count_part``), under its deadline; it comes back unverified."""
        return self._as_kind(TaskKind.COUNT_PART, part=part)

    def _as_kind(self, kind: TaskKind, **changes: Any) -> Task[Executed]:
        """This task asking something else of its solver, everything else kept."""
        kept = {field.name: getattr(self, field.name) for field in fields(self)}
        return Task(**{**kept, "kind": kind, **changes})


@dataclass(frozen=True)
class Certificate:
    """What became of a run's certificate, as the worker's checker found it (``certificates.py``).

    ``status``: ``certified`` (the proof refutes the canonical CNF), ``rejected``
    (it does not: ``reason`` names the lemma, or the missing empty clause),
    ``over-budget`` (past its size, checking time or memory: unknown either way),
    ``unchecked`` (the checker itself failed). ``bytes`` and ``lemmas`` measure
    the proof, ``seconds`` its check.
    """

    status: CertificateStatus
    reason: str | None = None
    bytes: int = 0
    lemmas: int = 0
    seconds: float = 0.0
    proof: str | None = None  # where the proof was kept (``Limits.keep_proofs``), if it was
    proof_sha256: str | None = None  # the fingerprint of the bytes that were checked


@dataclass(frozen=True)
class ProofHandoff:
    """What a worker says of a no-solution claim's proof: the file it wrote it to (in its own scratch
    folder) and its size as the worker counted it. Nothing more: the service takes the file from there,
    fingerprints it and has it checked by a checker of its own (``proof_checks.py``)."""

    path: str
    bytes: int
    lemmas: int
    overflowed: bool  # the log stopped at ``Limits.certificate_size``: over budget, never checked


@dataclass(frozen=True)
class Foreign:
    """What a plugin returned that is none of the contract's classes, as it crossed from its worker: the
    type's name alone (``wire.py``), for the judge to say what came instead of an ``Outcome`` or a ``Count``."""

    type_name: str


@dataclass(frozen=True)
class JobEnd:
    """What the parent tells a worker that has just prepared a solver for a task of a job with a deadline (a
    split count's pieces share one): the end the worker runs that job's tasks to, ``end`` (``time.time()``),
    the job's deadline ``job`` with every preparation of that worker given back, as the parent's own clock
    measured them (``worker_handle.WorkerProcess.prepared``). The parent does that arithmetic, once, for the
    limit it enforces; the worker only takes the result (``worker.Inbox``). A frame of its own on the pipe to
    the worker (``JOB_END`` then two doubles), which no pickle of a task starts with."""

    job: float
    end: float

    def frame(self) -> bytes:
        return JOB_END + struct.pack("<dd", self.job, self.end)

    @staticmethod
    def read(frame: bytes) -> JobEnd | None:
        """The ``JobEnd`` a frame from the parent is, or None if it is a task's pickle."""
        if not frame.startswith(JOB_END):
            return None
        job, end = struct.unpack("<dd", frame[len(JOB_END) :])
        return JobEnd(job, end)


JOB_END = b"nqueens-job-end:"  # a pickle starts with its protocol's b"\x80", never with this


@dataclass(frozen=True)
class OpaquePart:
    """One piece of a split count (``Solver.count_parts``) as it crosses to the parent: the worker's pickle of
    it, which only a worker opens again (``Task.piece``), and its ``repr`` (a count's pieces file fingerprints
    the plan by it). The parent never unpickles plugin data."""

    blob: bytes
    shown: str

    def __repr__(self) -> str:
        return self.shown


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
    prepare_seconds: float | None = None  # the worker's preparation before this call (its first of this solver)
    output: str | None = None  # the end of what the call printed (the service adds it: ``output.py``)
    output_bytes: int = 0  # how much it printed
    certificate: Certificate | None = None  # a no-solution claim's certificate, as the service's checker found it
    proof: ProofHandoff | None = None  # the proof a worker wrote for a no-solution claim, not yet checked
    measure: RunMeasure | None = None  # what the call cost (CPU, peak memory, threads, processes), as measured

    def unsendable(self, reason: str) -> Executed:
        return Executed(None, self.seconds, reason)


def check_runnable(variant: Variant, problem: Problem) -> None:
    """Refuse, as bad input, what this variant cannot be asked (fixed queens, blocked squares, size, library)."""
    solver = variant.solver
    if problem.fixed and not solver.supports_fixed:
        raise BadInput(f"{solver.name} cannot honour fixed queens")
    if problem.blocked and not solver.supports_blocked:
        raise BadInput(f"{solver.name} cannot honour blocked squares")
    reason = solver.precheck(problem.n, variant.options)
    if reason:
        raise BadInput(reason)


def check_countable(variant: Variant, problem: Problem, unique: bool, memory: int | None = None) -> None:
    """Refuse, as bad input, a count this variant cannot make, ``memory`` (a run's ``--memory``, in bytes;
    None: the machine's) included: the solver's own ``count_precheck`` says where it would need more."""
    if not variant.counts:
        raise BadInput(f"{variant.label} cannot count solutions (it is not a complete counting solver)")
    if unique and not variant.solver.counts_unique:
        raise BadInput(f"{variant.label} cannot count solutions up to symmetry (--unique)")
    if unique and not problem.is_plain:
        raise BadInput("--unique counts classes of plain boards; it does not take fixed queens or blocked squares")
    check_runnable(variant, problem)
    reason = count_refusal(variant, problem, unique, memory)
    if reason:
        raise BadInput(reason)


def count_refusal(variant: Variant, problem: Problem, unique: bool, memory: int | None) -> str | None:
    """The solver's own refusal of this count before any work (``Solver.count_precheck``: a method that needs
    more memory than allowed). A precheck that fails is no refusal: the count then runs, isolated, and
    fails there as itself."""
    try:
        reason = variant.solver.count_precheck(problem, variant.options, unique, memory)
    except Exception:  # noqa: BLE001 - plugin code, called in the host: it must not take the host down
        return None
    return reason if isinstance(reason, str) and reason else None


def start_trace(variant: Variant, problem: Problem) -> Trace:
    """An empty trace for a run, or BadInput when the run cannot be traced."""
    if not variant.solver.traces:
        raise BadInput(f"{variant.name} does not trace its steps; the built-in methods do")
    if problem.n > TRACED_UP_TO:
        raise BadInput(f"traces are kept for boards up to n = {TRACED_UP_TO}, not {problem.n:,}")
    return Trace(problem.n)
