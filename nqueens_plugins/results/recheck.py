"""Results layer, parent side: what a results file's certificates are worth to a report made now.

A record that says ``"certificate": "certified"`` is the word of whoever wrote the
file, and a file may come from anyone. So a report settles each no-solution
claim's certificate itself (``Certificates.settle``), and says which way:

* **checked now**: the record names its kept proof (``proof``: a path as written,
  a relative one looked up beside the results file first, then in the current
  folder) and the fingerprint of the bytes the host checked (``proof_sha256``).
  The proof is opened without blocking and refused unless it is a regular file
  (a FIFO, a device, a link to one: ``formats/reading.py``); its bytes, unpacked
  when gzip, bzip2 or xz, are copied to a private file while they are hashed, so
  what the checker reads is exactly what matched the fingerprint; then the host's
  checker (``execution.certificates.check``, a process of its own) rebuilds the
  formula from the record's instance and checks the copy, under a limit per proof
  and a total the report may spend (``Recheck``). Its verdict is the
  certificate's fate: ``certified`` (the claim is decided), ``rejected`` (the
  claim counts as invalid, like an attacking board), ``over-budget`` or
  ``unchecked``.
* **the file's word**: every other "certified" (no proof kept, the kept proof
  missing, unreadable, a special file, its bytes not the ones fingerprinted, the
  re-checking skipped or its time spent, a check that could not finish): shown as
  such, with why, and never counted as a decision.

What this module cannot do is run solvers or drive an executor: it asks the
checker, as the host did when the run was made.
"""

from __future__ import annotations

import enum
import hashlib
import io
import math
import os
import re
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from nqueens_plugins.core.certificate_status import CertificateStatus
from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.limits import CHECK_TIMEOUT, RECHECK_BUDGET, Limits
from nqueens_plugins.core.problem import Problem, Status
from nqueens_plugins.formats.reading import CHUNK, READ_ERRORS, open_regular, size_text, unpacked
from nqueens_plugins.formats.records import instance_label, run_key
from nqueens_plugins.formats.run_record import RunRecord

# What became of a no-solution claim's certificate (``Fate.status``): a certificate's own words, and one more.
CERTIFIED = CertificateStatus.CERTIFIED  # checked now (or by the host, for records made here): it refutes the instance
FILES_WORD = "file's word"  # the file says certified; nothing checked it now
REJECTED = CertificateStatus.REJECTED  # the proof does not refute the instance (checked now, or so the file says)
OVER_BUDGET = CertificateStatus.OVER_BUDGET  # its check could not finish within its limits
UNCHECKED = CertificateStatus.UNCHECKED  # no certificate, or the checker failed
FATES = (CERTIFIED, FILES_WORD, REJECTED, OVER_BUDGET, UNCHECKED)


class RecheckMode(enum.StrEnum):
    """How a report re-checks kept proofs (``Recheck.mode``, ``--recheck``): a word is accepted, a member kept;
    its ``repr`` is the word's, as when the field was a string."""

    AUTO = "auto"  # each within its time, until the report's budget is spent
    ALL = "all"  # every one, each within its time
    NEVER = "never"  # none: every "certified" is the file's word

    __repr__ = str.__repr__


RECHECK_MODES = tuple(mode.value for mode in RecheckMode)
SHA256 = re.compile(r"[0-9a-fA-F]{64}")
KEPT_LISTED = 200  # kept proofs listed one by one (the HTML report links each); the rest are counted
NO_CERTIFICATE = "no certificate"  # the kind of a claim that came with none (left out of the account's lines)


@dataclass(frozen=True)
class Recheck:
    """How a report re-checks kept proofs: ``mode`` ``auto`` (each within ``check_timeout`` seconds, until
    ``budget`` seconds were spent in all), ``all`` (every one, each within ``check_timeout``, no total) or
    ``never`` (none: every "certified" is then the file's word)."""

    mode: RecheckMode | str = RecheckMode.AUTO  # a word is accepted; a RecheckMode is kept
    budget: float = RECHECK_BUDGET
    check_timeout: float = CHECK_TIMEOUT

    def __post_init__(self) -> None:
        if self.mode not in RECHECK_MODES:
            raise BadInput(f"recheck is one of {', '.join(RECHECK_MODES)}, not {self.mode!r}")
        object.__setattr__(self, "mode", RecheckMode(self.mode))
        for name in ("budget", "check_timeout"):  # limits that cannot be lifted: None is no number of seconds
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
                raise BadInput(f"the re-checking {name} must be a positive number of seconds, not {value!r}")
            object.__setattr__(self, name, float(value))

    @classmethod
    def of(
        cls, mode: RecheckMode | str = RecheckMode.AUTO, budget: float | None = None, check_timeout: float | None = None
    ) -> Recheck:
        """A ``Recheck`` from what a user gave (None: the default)."""
        return cls(
            mode,
            RECHECK_BUDGET if budget is None else budget,
            CHECK_TIMEOUT if check_timeout is None else check_timeout,
        )


@dataclass(frozen=True)
class Fate:
    """What a report makes of one no-solution claim's certificate.

    ``status`` is one of ``FATES``; ``now``: a check made in this process (this report's, or the host's for
    a record made here) said it, not the file; ``kind`` names why, in a few words (the account groups claims
    by it) and ``reason`` says it in full; ``proof`` is the kept proof as found, for a link; ``rechecked``:
    this report asked the checker about it (whatever it answered)."""

    status: str
    now: bool
    kind: str
    reason: str | None = None
    proof: Path | None = None
    rechecked: bool = False

    @property
    def with_certificate(self) -> bool:
        """Whether the claim came with a certificate at all (a status in the record, or a kept proof)."""
        return self.kind != NO_CERTIFICATE


@dataclass(frozen=True)
class Kept:
    """A claim whose record names a kept proof, as the HTML report lists it."""

    solver: str
    instance: str
    trial: int
    named: str  # the path as the record wrote it
    fate: Fate


@dataclass
class Certificates:
    """The settler of one results file's certificates (``settle``), and its account (``lines``, ``kept``).

    ``results`` is the results file (its folder is where a relative proof path is looked up first);
    ``made_here`` holds the run keys (``records.run_key``) of records this process made and the host
    checked as it made them: their certificates are the host's check, not the file's word."""

    results: Path
    recheck: Recheck = field(default_factory=Recheck)
    made_here: frozenset[tuple[Any, ...]] = frozenset()
    spent: float = 0.0  # seconds of re-checking so far (reading, hashing, copying and checking)
    account: Counter[tuple[str, bool, str]] = field(default_factory=Counter)  # (status, now, kind) -> claims
    examples: dict[tuple[str, bool, str], str] = field(default_factory=dict)  # the first reason of each
    kept: list[Kept] = field(default_factory=list)
    kept_unlisted: int = 0
    checked: int = 0  # proofs the checker was asked about now
    _verdicts: dict[tuple[Any, ...], Fate] = field(default_factory=dict)

    def settle(self, record: RunRecord) -> Fate | None:
        """The fate of a no-solution claim's certificate (None for a record that is no such claim)."""
        status, claimed = record.status, record.certificate
        if status not in (Status.NO_SOLUTION, Status.INVALID):
            return None
        if self.made_here and run_key(record) in self.made_here:
            made = host_fate(record)
            return None if made is None else self.counted(made)
        if status == Status.INVALID:  # already invalid; said of its certificate, when the host rejected the proof
            return (
                self.counted(Fate(REJECTED, False, "rejected when the run was made")) if claimed == REJECTED else None
            )
        named = record.proof
        if named is None:
            kind = "no proof was kept" if claimed is not None else NO_CERTIFICATE
            return self.counted(word_fate(claimed, kind))
        fate = self.from_kept(record, str(named))
        self.counted(fate)
        if len(self.kept) < KEPT_LISTED:
            self.kept.append(Kept(record.solver, label_of(record), record.trial, str(named), fate))
        else:
            self.kept_unlisted += 1
        return fate

    def counted(self, fate: Fate) -> Fate:
        key = (fate.status, fate.now, fate.kind)
        self.account[key] += 1
        if fate.reason and key not in self.examples:
            self.examples[key] = fate.reason
        return fate

    def from_kept(self, record: RunRecord, named: str) -> Fate:
        """The fate of a claim whose record names its kept proof: checked now when it can be, else the file's word."""
        claimed = record.certificate
        path = self.found(named)
        if path is None:
            return word_fate(claimed, "the kept proof is missing", repr(named))
        if self.recheck.mode == RecheckMode.NEVER:
            return word_fate(claimed, "not re-checked (--recheck never)", None, path)
        sha = record.proof_sha256
        if sha is None or not SHA256.fullmatch(sha):
            return word_fate(claimed, "its record keeps no sha256 of the proof (proof_sha256)", None, path)
        problem = problem_of(record)
        key = (str(path), sha.lower(), problem.n, tuple(problem.fixed.items()), tuple(sorted(problem.blocked)))
        if key in self._verdicts:
            return self._verdicts[key]
        remaining = self.recheck.budget - self.spent
        if self.recheck.mode == RecheckMode.AUTO and remaining <= 0:
            spent = (
                f"not re-checked: the report's {self.recheck.budget:g} s for re-checking were spent (--recheck all "
                "re-checks every kept proof; --recheck-budget sets the total)"
            )
            return word_fate(claimed, spent, None, path)  # not kept as the proof's verdict: nothing was learnt of it
        seconds = self.recheck.check_timeout
        if self.recheck.mode == RecheckMode.AUTO:
            seconds = min(seconds, remaining)
        start = time.monotonic()
        try:
            fate = self.checked_now(claimed, named, path, sha.lower(), problem, seconds)
        finally:
            self.spent += time.monotonic() - start
        self._verdicts[key] = fate
        return fate

    def found(self, named: str) -> Path | None:
        """Where a kept proof named in a record is: an absolute path as it is; a relative one beside the
        results file first, then from the current folder. None if it names nothing there (or is no path)."""
        if not named or "\x00" in named:
            return None
        path = Path(named)
        places = [path] if path.is_absolute() else [self.results.parent / path, path]
        return next((place.absolute() for place in places if os.path.lexists(place)), None)

    def checked_now(self, claimed: Any, named: str, path: Path, sha: str, problem: Problem, seconds: float) -> Fate:
        """Copy the kept proof (unpacked) to a private file while hashing it, match the record's sha256, and
        ask the checker about the copy; the fate that follows."""
        limits = Limits(check_timeout=seconds)
        with tempfile.TemporaryDirectory(prefix="nqueens-recheck-") as folder:
            copy = Path(folder) / "proof.drat"
            try:
                raw, plain = copy_hashed(path, copy, limits.certificate_size, f"kept proof {named!r}")
            except BadInput as exc:
                return word_fate(claimed, "the kept proof cannot be used", f"{exc}", path)
            except READ_ERRORS as exc:
                why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
                unreadable = f"cannot read kept proof {named!r}: {why}"
                return word_fate(claimed, "the kept proof cannot be used", unreadable, path)
            if sha not in (raw, plain):
                return word_fate(
                    claimed,
                    "the kept proof's sha256 differs from the record's: not the proof the host checked",
                    repr(named),
                    path,
                )
            from nqueens_plugins.execution.certificates import check  # the host's checker, in a process of its own

            self.checked += 1
            verdict = check(copy, problem, limits)
        reason = verdict.reason
        if verdict.status == CERTIFIED:
            return Fate(CERTIFIED, True, "re-checked from the kept proof", None, path, True)
        if verdict.status == REJECTED:
            return Fate(REJECTED, True, "re-checked from the kept proof, which is wrong", reason, path, True)
        status = verdict.status if verdict.status in (OVER_BUDGET, UNCHECKED) else UNCHECKED
        if claimed == CERTIFIED:
            return Fate(FILES_WORD, False, f"re-checked from the kept proof, {status}", reason, path, True)
        return Fate(status, True, "re-checked from the kept proof", reason, path, True)

    def lines(self) -> list[str]:
        """What the report says of certificates, a line per kind of fate (none when no claim came with one)."""
        if all(kind == NO_CERTIFICATE for _, _, kind in self.account):
            return []
        lines = []
        if self.checked:
            proofs = f"{self.checked:,} kept proof" + ("s" if self.checked != 1 else "")
            lines.append(f"certificates: {proofs} re-checked now by the host's checker ({self.spent:.2f} s)")
        elif self.recheck.mode == RecheckMode.NEVER:
            lines.append("certificates: no kept proof was re-checked (--recheck never)")
        order = {status: index for index, status in enumerate(FATES)}
        for key in sorted(self.account, key=lambda k: (order[k[0]], not k[1], k[2])):
            status, now, kind = key
            if kind == NO_CERTIFICATE:
                continue
            count = self.account[key]
            said = SAID_NOW[status] if now else SAID[status]
            example = self.examples.get(key)
            if example and example != kind:
                kind += f" ({'the first: ' if count > 1 else ''}{example})"
            lines.append(f"certificates: {count:,} {said}: {kind}")
        return lines


SAID = {  # a fate, as the account says it of a number of claims (SAID_NOW: of a check made in this process)
    CERTIFIED: "certified",
    FILES_WORD: "certified by the file's word only, not counted as decided",
    REJECTED: "rejected, counted invalid",
    OVER_BUDGET: "over budget",
    UNCHECKED: "unchecked",
}
SAID_NOW = {**SAID, CERTIFIED: "certified now", REJECTED: "rejected now, counted invalid"}


def word_fate(claimed: Any, kind: str, reason: str | None = None, proof: Path | None = None) -> Fate:
    """The fate of a certificate nothing checked now: whatever the file says of it, as the file's word (a
    "certified" one apart: it would decide; a "rejected" one still counts against the claim)."""
    if claimed == CERTIFIED:
        return Fate(FILES_WORD, False, kind, reason or kind, proof)
    if kind == NO_CERTIFICATE:
        return Fate(UNCHECKED, False, kind, None, proof)
    status = str(claimed) if claimed in (REJECTED, OVER_BUDGET) else UNCHECKED
    return Fate(status, False, f"as the file says ({kind})", reason, proof)


def host_fate(record: RunRecord) -> Fate | None:
    """The fate of a record the host made in this process: its certificate as the host's checker found it
    (None for a record that is no no-solution claim, nor one the host found invalid for its proof)."""
    claimed = record.certificate
    if record.status == Status.INVALID and claimed == REJECTED:
        return Fate(REJECTED, True, "rejected by the host when the run was made")
    if record.status != Status.NO_SOLUTION:
        return None
    if claimed == CERTIFIED and record.verified is True:
        return Fate(CERTIFIED, True, "checked by the host when the run was made")
    if claimed in (REJECTED, OVER_BUDGET):
        return Fate(str(claimed), True, "checked by the host when the run was made")
    return Fate(UNCHECKED, True, "checked by the host when the run was made" if claimed else NO_CERTIFICATE)


def copy_hashed(path: Path, copy: Path, limit: int, name: str) -> tuple[str, str]:
    """Copy what the file at ``path`` unpacks to into ``copy`` (refused past ``limit`` bytes, on disk or out),
    and return the sha256 of the file's own bytes and of what they unpack to (the same for a plain file)."""
    with open_regular(path, "kept proof", limit) as handle:
        hashing = Hashing(handle.raw)  # type: ignore[attr-defined]  # a file opened "rb": a BufferedReader
        stream = io.BufferedReader(hashing, CHUNK)
        unpacking = unpacked(stream, limit, name)  # not closed here: closing it would close the plain stream
        plain = hashlib.sha256()
        with copy.open("wb") as target:
            while chunk := unpacking.read(CHUNK):
                plain.update(chunk)
                target.write(chunk)
        while stream.read(CHUNK):  # what a decompressor left unread (after its stream's end): the file's bytes too
            if hashing.count > limit:
                raise BadInput(f"{name} is more than the {size_text(limit)} it may be")
        return hashing.sha.hexdigest(), plain.hexdigest()


class Hashing(io.RawIOBase):
    """A read-only stream over a file that hashes every byte read from it."""

    def __init__(self, inner: IO[bytes]) -> None:
        super().__init__()
        self.inner, self.sha, self.count = inner, hashlib.sha256(), 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        read = self.inner.readinto(buffer)  # type: ignore[attr-defined]
        if read:
            self.sha.update(buffer[:read])
            self.count += read
        return read or 0


def problem_of(record: RunRecord) -> Problem:
    """The instance a record names (its fields were checked by ``records.run_problem``)."""
    fixed = {int(column): int(row) for column, row in (record.fixed or {}).items()}
    blocked = frozenset((int(column), int(row)) for column, row in (record.blocked or []))
    return Problem(record.n, fixed, blocked)


def label_of(record: RunRecord) -> str:
    return instance_label(record) or f"n={record.n}"
