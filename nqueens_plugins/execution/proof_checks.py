"""Execution layer, parent side: the service's certificate checks, where no plugin code has run.

A worker hands over only where its run's proof is and how large (``ProofHandoff``).
The service then, after the run has ended and the worker has swept the
plugin's processes:

1. **takes** the proof (``take``): it must be a regular file directly in the
   worker's own scratch folder, opened without following a link or waiting on a
   FIFO; its bytes are copied into a folder of the service's own while they are
   fingerprinted (sha256), so a process that rewrites the file afterwards does
   not change what is checked, and the worker's file is removed;
2. **checks** the copy with a checker program the service started itself
   (``CheckerProcess``: one per worker slot, kept warm), against the service's
   own copy of the problem (the task's, which never crossed into the worker);
   the check is asked and its answer read as it comes, so the service goes on
   watching its workers' time limits meanwhile; a check occupies its worker's
   slot (``running``), as it did when workers checked their own proofs, so runs
   are never timed beside more processes than there are slots;
3. fingerprints the copy once more after the check: bytes changed meanwhile
   make the certificate ``unchecked``, never certified;
4. **keeps** it when asked (``Limits.keep_proofs``: ``formats/kept_proofs.py``),
   else removes it.

What the checker says becomes the run's ``Certificate``; a certificate any
worker sent of its own is dropped unread (``ProofChecks.submit``).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import stat
import tempfile
import time
from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from nqueens_plugins.core.certificate_status import CertificateStatus
from nqueens_plugins.core.limits import Limits
from nqueens_plugins.core.problem import Problem
from nqueens_plugins.execution import certificates
from nqueens_plugins.execution.checker_process import CheckerProcess
from nqueens_plugins.execution.tasks import Certificate, Executed, ProofHandoff, Task
from nqueens_plugins.formats.kept_proofs import keep_proof

__all__ = ["Checkers", "ProofChecks", "Taken", "settle_here", "take", "wanted"]

CHUNK = 1 << 20
FILE_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device", stat.S_IFDIR: "a folder",
              stat.S_IFSOCK: "a socket", stat.S_IFLNK: "a symbolic link"}  # fmt: skip

Answer = tuple[Task[Any], Executed, float | None]


@dataclass(frozen=True)
class Taken:
    """A proof the service holds: its copy, the sha256 of the bytes copied, and their number."""

    path: Path
    sha256: str
    bytes: int


def refused(reason: str, handoff: ProofHandoff) -> Certificate:
    """A proof that cannot be taken: the solver's certificate is not one (the run is judged invalid)."""
    return Certificate(CertificateStatus.REJECTED, f"its proof was not taken: {reason}", handoff.bytes, handoff.lemmas)


def take(handoff: ProofHandoff, scratch: Path, into: Path, limits: Limits) -> Taken | Certificate:
    """Copy the worker's proof out of ``scratch`` into the service's folder ``into``, fingerprinting it; or the
    certificate that says why it was not taken (not a regular file in the run's own folder, over its size)."""
    if handoff.overflowed:
        return Certificate(
            CertificateStatus.OVER_BUDGET,
            f"the proof grew past its {limits.certificate_size:,} bytes",
            handoff.bytes,
            handoff.lemmas,
        )
    path = Path(handoff.path)
    if not path.is_absolute() or path.parent != scratch or path.name in ("", ".", ".."):
        return refused("it is not a file in its run's own folder", handoff)
    try:
        folder = os.open(scratch, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        return refused(f"its run's folder cannot be opened ({os.strerror(exc.errno or 0)})", handoff)
    try:
        source = os.open(path.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return refused("it is a symbolic link", handoff)
        return refused(f"it cannot be opened ({os.strerror(exc.errno or 0)})", handoff)
    finally:
        os.close(folder)
    try:
        status = os.fstat(source)
        if not stat.S_ISREG(status.st_mode):
            return refused(f"it is {FILE_KINDS.get(stat.S_IFMT(status.st_mode), 'not a regular file')}", handoff)
        if status.st_size > limits.certificate_size:
            return Certificate(
                CertificateStatus.OVER_BUDGET,
                f"the proof is larger than its {limits.certificate_size:,} bytes",
                status.st_size,
            )
        return copied(source, into, limits.certificate_size, handoff)
    finally:
        os.close(source)
        with contextlib.suppress(OSError):
            path.unlink()


def copied(source: int, into: Path, limit: int, handoff: ProofHandoff) -> Taken | Certificate:
    """The bytes of ``source`` copied to a new file in ``into`` as they are hashed (at most ``limit``)."""
    digest = hashlib.sha256()
    descriptor, name = tempfile.mkstemp(prefix="proof-", suffix=".drat", dir=into)
    size = 0
    try:
        while chunk := os.read(source, CHUNK):
            size += len(chunk)
            if size > limit:
                os.close(descriptor)
                os.unlink(name)
                return Certificate(CertificateStatus.OVER_BUDGET, f"the proof is larger than its {limit:,} bytes", size)
            digest.update(chunk)
            view = memoryview(chunk)
            while view:
                view = view[os.write(descriptor, view) :]
    except OSError as exc:
        os.close(descriptor)
        os.unlink(name)
        return Certificate(
            CertificateStatus.UNCHECKED, f"its proof could not be copied ({os.strerror(exc.errno or 0)})", size
        )
    os.close(descriptor)
    return Taken(Path(name), digest.hexdigest(), size)


def fingerprint(path: Path) -> str | None:
    """The sha256 of a file's bytes now (None if it cannot be read)."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as file:
            while chunk := file.read(CHUNK):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


def concluded(certificate: Certificate, taken: Taken, task: Task[Any], problem: Problem, limits: Limits) -> Certificate:
    """The checker's certificate once the copy is fingerprinted again and, if asked, kept; the copy removed."""
    try:
        if fingerprint(taken.path) != taken.sha256:
            return replace(
                certificate, status=CertificateStatus.UNCHECKED, reason="its proof changed while it was checked"
            )
        certificate = replace(certificate, proof_sha256=taken.sha256)
        if limits.keep_proofs is None:
            return certificate
        try:
            kept = keep_proof(
                taken.path, Path(limits.keep_proofs), task.variant.label, problem, task.trial, limits.seed
            )
        except OSError as exc:
            note = f"the proof could not be kept in {limits.keep_proofs!r} ({exc.strerror or exc})"
            return replace(certificate, reason=f"{certificate.reason}; {note}" if certificate.reason else note)
        return replace(certificate, proof=kept)
    finally:
        with contextlib.suppress(OSError):
            taken.path.unlink()


def settle_here(task: Task[Any], executed: Executed, scratch: Path) -> Executed:
    """Take and check a run's proof here and wait for the verdict (``inprocess.run``: plugin code has run in this
    very process, so this is bookkeeping, not isolation)."""
    handoff, executed.proof = executed.proof, None
    if handoff is None or not certificates.claims_none(executed):
        return executed
    into = Path(tempfile.mkdtemp(prefix="nqueens-proofs-"))
    try:
        taken = take(handoff, scratch, into, task.limits)
        if isinstance(taken, Certificate):
            executed.certificate = taken
            return executed
        checked = certificates.check(taken.path, task.problem, task.limits)
        executed.certificate = concluded(checked, taken, task, task.problem, task.limits)
        return executed
    finally:
        shutil.rmtree(into, ignore_errors=True)


@dataclass
class _Check:
    task: Task[Any]
    executed: Executed
    wall: float | None
    taken: Taken
    checker: CheckerProcess | None = None
    started: float = 0.0


class Checkers:
    """The service's checker programs kept warm between checks (at most one per worker slot running at once),
    and its folder for the proofs it took. Owned by an executor; each call of its ``map`` checks through a
    ``ProofChecks`` of its own over them."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self.idle: list[CheckerProcess] = []
        self._folder: Path | None = None

    @property
    def folder(self) -> Path:
        """Where the service keeps the proofs it took until they are checked (its own, made on first use)."""
        if self._folder is None or not self._folder.is_dir():
            self._folder = Path(tempfile.mkdtemp(prefix="nqueens-proofs-"))
        return self._folder

    def lend(self) -> CheckerProcess:
        return self.idle.pop() if self.idle else CheckerProcess()

    def give_back(self, checker: CheckerProcess) -> None:
        if checker.process is not None:
            self.idle.append(checker)
        else:
            checker.close()

    def close(self) -> None:
        while self.idle:
            self.idle.pop().close()
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


class ProofChecks:
    """One call's checks: those running on the service's checkers (``Checkers``) and those waiting for one.
    ``submit`` a worker's answer; ``finished`` gives back answers whose certificate is settled, in the order
    they finish."""

    def __init__(self, checkers: Checkers) -> None:
        self.checkers = checkers
        self.running: list[_Check] = []
        self.waiting: deque[_Check] = deque()

    @property
    def active(self) -> bool:
        return bool(self.running or self.waiting)

    def submit(self, task: Task[Any], executed: Executed, wall: float | None, scratch: Path) -> Answer | None:
        """A worker's answer, its certificate settled by the service: at once when there is nothing to check
        (None is returned while a check is under way; ``finished`` gives it back). Whatever certificate the
        worker named itself is dropped: only the service's checker says what a proof is."""
        executed.certificate = None
        handoff, executed.proof = executed.proof, None
        if not certificates.claims_none(executed) or not wanted(task):
            return task, executed, wall
        if handoff is None:
            executed.certificate = Certificate(CertificateStatus.UNCHECKED, "no proof came back with the claim")
            return task, executed, wall
        taken = take(handoff, scratch, self.checkers.folder, task.limits)
        if isinstance(taken, Certificate):
            executed.certificate = taken
            return task, executed, wall
        self.waiting.append(_Check(task, executed, wall, taken))
        self.start_waiting()
        return None

    def start_waiting(self) -> None:
        while self.waiting and len(self.running) < self.checkers.slots:
            check = self.waiting.popleft()
            check.checker = self.checkers.lend()
            check.started = time.perf_counter()
            limits = check.task.limits
            check.checker.begin(certificates.request(check.taken.path, check.task.problem, limits),
                                certificates.check_seconds(limits))  # fmt: skip
            self.running.append(check)

    def waitables(self) -> list[int]:
        """The checkers' outputs, to wait on beside the workers' pipes."""
        return [check.checker.fileno() for check in self.running if check.checker is not None]

    def deadline(self) -> float:
        """The ``time.perf_counter()`` by which some running check must be looked at again (its time limit)."""
        now, monotonic = time.perf_counter(), time.monotonic()
        ends = [now + check.checker.deadline - monotonic for check in self.running if check.checker is not None]
        return min(ends, default=float("inf"))

    def finished(self) -> list[Answer]:
        """The answers whose checks ended since the last call (their certificates set), in that order."""
        done: list[Answer] = []
        for check in list(self.running):
            assert check.checker is not None
            verdict = check.checker.advance()
            if verdict is None:
                continue
            self.running.remove(check)
            self.checkers.give_back(check.checker)
            seconds = time.perf_counter() - check.started
            limits = check.task.limits
            found = certificates.certificate(verdict, check.taken.bytes, seconds, limits)
            check.executed.certificate = concluded(found, check.taken, check.task, check.task.problem, limits)
            done.append((check.task, check.executed, check.wall))
        self.start_waiting()
        return done

    def cancel(self) -> None:
        """Drop every check not finished (a race's losers, a stream closed early): their checkers are ended."""
        for check in self.running:
            if check.checker is not None:
                check.checker.close()
        for check in [*self.running, *self.waiting]:
            with contextlib.suppress(OSError):
                check.taken.path.unlink()
        self.running.clear()
        self.waiting.clear()


def wanted(task: Task[Any]) -> bool:
    """Whether the service asks for this run's certificate (the worker decides the same way, from the same
    task; a proof the service did not ask for is not checked)."""
    try:
        return certificates.wanted(task.variant, task.problem, task.limits)
    except Exception:  # noqa: BLE001 - can_certify is plugin code, called here
        return False
