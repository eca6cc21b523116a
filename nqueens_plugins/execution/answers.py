"""Execution layer, parent side: ``Result`` and ``CountResult``, a run and a count as the judge verified them.

Apart from the judging (``judge.py``) so that a ``Task`` can name what its run
answers (``Task[Result]``, ``Task[CountResult]``) for the type checker without
the worker program, which shares ``tasks.py``, importing the judge: ``tasks.py``
names these classes only while type checking.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from nqueens_plugins.core.certificate_status import CertificateStatus
from nqueens_plugins.core.limits import Limits
from nqueens_plugins.core.problem import Problem, Status, Trace
from nqueens_plugins.formats.records import instance_fields
from nqueens_plugins.formats.run_record import RunRecord

QUEENS_KEPT_UP_TO = 1000  # records and JSON leave the queens out above this n unless asked


@dataclass
class Result:
    """A verified run. ``status`` is a solver's Status, or the host's ``error`` / ``invalid``."""

    solver: str  # the variant's label, e.g. simulated-annealing[cooling=0.99]
    name: str
    options: dict[str, Any]
    problem: Problem
    seed: int
    trial: int
    status: Status
    verified: bool | None
    reason: str | None
    queens: np.ndarray | None  # integers (int32 or int64), queens[c] = r; an array so 10^8 queens stay small
    iterations: int = 0
    moves: int = 0
    counters: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0  # the solver call alone, timed in the process that ran it
    overhead_seconds: float = 0.0  # the rest of the parent's wall time for the run (messages, verification)
    prepare_seconds: float | None = None  # its worker's untimed preparation of the solver, if this run needed one
    output: str | None = None  # the end of what the solver printed (at most output.TAIL_CHARACTERS)
    output_bytes: int = 0  # how much it printed
    complete: bool | None = None  # the solver is complete (it can prove no solution exists); None: not recorded
    trace: Trace | None = None  # the steps, when traced (not part of the record)
    limits: Limits | None = None  # what the run was allowed (its record's ``timeout``); None: not known
    certificate: CertificateStatus | None = (
        None  # a no-solution claim's certificate: certified, rejected, over-budget, unchecked
    )
    certificate_bytes: int | None = None  # the proof's size on disk
    certificate_seconds: float | None = None  # the checker's time (not part of ``seconds``)
    proof: str | None = None  # where its certificate was kept (``Limits.keep_proofs``), if it was
    proof_sha256: str | None = None  # the kept proof's fingerprint, taken before it was checked
    # What the run cost, measured in its worker around the call (``execution/measuring.py``); None: unknown
    # (not measured: a run killed at its limit, in-process, or a figure the machine cannot give), never 0.
    cpu_seconds: float | None = None  # user + system, every thread and process of the run
    peak_memory_bytes: int | None = None  # the run's own peak (the worker's peak RSS reset before it)
    max_threads: int | None = None
    max_processes: int | None = None
    measured_by: dict[str, str | None] | None = None  # how each figure was measured: cpu, memory, threads, processes

    @property
    def timeout(self) -> float | None:
        """The run's time limit, which an unsolved run is censored at (None: no limit, or not known)."""
        return None if self.limits is None else self.limits.timeout

    @property
    def n(self) -> int:
        return self.problem.n

    @property
    def fixed(self) -> dict[int, int]:
        return dict(self.problem.fixed)

    @property
    def solved(self) -> bool:
        return self.status == Status.SOLVED and self.verified is True

    @property
    def certified(self) -> bool:
        """A no-solution claim whose certificate the host's checker accepted."""
        return self.certificate == CertificateStatus.CERTIFIED and self.status == Status.NO_SOLUTION

    @property
    def decided(self) -> bool:
        """A verified board, or a no-solution claim the verifier confirmed (facts, a published answer or a
        checked certificate)."""
        return self.verified is True and self.status in (Status.SOLVED, Status.NO_SOLUTION)

    def _repr_svg_(self) -> str | None:
        """The board in a notebook (Jupyter shows this instead of the repr) when it is an answer: a verified
        solution. Any other board (a local search stuck, a run stopped by its limit) is not drawn, as
        ``nqueens solve`` draws none: the plain repr says how the run ended."""
        from nqueens_plugins.formats.drawing import MAX_DRAWN, board_svg

        if self.queens is None or self.n > MAX_DRAWN or not self.solved:
            return None
        title = f"{self.solver} on {self.n}x{self.n}: {self.status}, verified"
        return board_svg(self.queens, self.n, self.fixed, self.problem.blocked, title=title)

    def to_dict(self, keep_queens: bool | None = None) -> dict[str, Any]:
        """A JSON-ready dict (the fields of a run record); queens are left out above QUEENS_KEPT_UP_TO unless
        ``keep_queens``."""
        keep = keep_queens if keep_queens is not None else self.n <= QUEENS_KEPT_UP_TO
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("problem", "trace", "limits")}
        data.update(instance_fields(self.problem))
        data["queens"] = self.queens.tolist() if keep and self.queens is not None else None
        data["options"] = dict(self.options)
        data["counters"] = dict(self.counters)
        return data

    def record(self, source: Any = None, keep_queens: bool | None = None, **more: Any) -> RunRecord:
        """This run's record as a results file keeps it (``RunRecord.written``): its fields (``to_dict``), the
        plugin that supplied the solver (a ``Source``, or None) and its time limit; ``more`` (a tune's ``tune``)."""
        return RunRecord.written(self.to_dict(keep_queens), source, self.timeout, **more)


@dataclass
class CountResult:
    """A verified count: exact when ``status`` is solved, a lower bound when timed-out."""

    solver: str
    problem: Problem
    unique: bool
    status: Status
    solutions: int | None
    verified: bool | None
    reason: str | None
    iterations: int = 0
    counters: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    overhead_seconds: float = 0.0
    prepare_seconds: float | None = None  # its workers' untimed preparation of the solver, if this count needed one
    output: str | None = None  # the end of what the solver printed (at most output.TAIL_CHARACTERS)
    output_bytes: int = 0  # how much it printed

    @property
    def n(self) -> int:
        return self.problem.n

    def to_dict(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "problem"}
        data.update(instance_fields(self.problem))
        return data


Answer = Result | CountResult
