"""Proofs layer, any process: ``check_proof``, the host's own DRUP/DRAT checker of a no-solution certificate.

A solver's "no solution" is believed only when its proof refutes the
instance's canonical CNF (``core/canonical_cnf.py``), which the host builds from
the ``Problem`` alone. The checker shares no code with any solver: it imports
the problem and the canonical CNF, numpy and (when installed) numba, nothing
else of the package.

Checking is forward, lemma by lemma, as the proof is read in chunks (never
whole): each lemma must be RUP over the formula and the lemmas kept so far, or
else RAT on its first literal; deletions drop clauses. The proof is certified
when it derives the empty clause, or at once when unit propagation alone
refutes the formula. Text DRAT and binary DRAT are both read; the kind is told
from the first chunk, as drat-trim does (a byte no text proof holds means
binary). A proof kept compressed (gzip, bzip2, xz: told by its first bytes)
is read as it unpacks, in the same chunks: the host keeps large proofs
gzip-compressed, and a proof brought from elsewhere may come in any of the
three. ``max_bytes`` bounds the bytes that come *out*, so a small file that
unpacks to gigabytes is over budget after ``max_bytes``, never a hang or an
exhausted memory. Whatever the file holds, the answer is a ``CheckReport``: bad
input is one line in ``reason``, never an exception and never a hang. Its
``status`` is the verdict, decided where the check stopped (``_Refused`` for a
proof that is wrong, ``_OverBudget`` for one whose check ran out of what it was
given), never read back out of the reason's words.
"""

from __future__ import annotations

import bz2
import contextlib
import errno
import functools
import gzip
import io
import lzma
import os
import stat
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nqueens_plugins.core.canonical_cnf import CanonicalCnf, canonical_cnf
from nqueens_plugins.core.certificate_status import CertificateStatus
from nqueens_plugins.core.problem import Problem
from nqueens_plugins.proofs import kernels as k
from nqueens_plugins.proofs.jit import JIT

__all__ = ["EXTENSION_VARIABLES", "JIT", "MAX_LINE_BYTES", "CheckReport", "check_proof", "warm_up"]

CHUNK = 1 << 20  # bytes read at a time
MAX_LINE_BYTES = 1 << 20  # a longer text line (or a binary clause of more literals) is refused
MAX_CARRY = 4 * MAX_LINE_BYTES  # an unfinished clause carried from one chunk to the next
EXTENSION_VARIABLES = 1_000_000  # variables a proof may add beyond the formula's (extended resolution)
SOFT_WORK = 4096  # propagation steps between two looks at the clock
HARD_WORK = 1 << 16  # an operation over this much work is undone, the clock read, and it is tried with twice as much
COMPACT_FROM = 1 << 20  # literals in the arena before deleted clauses are worth reclaiming
SHOWN_LITERALS = 12  # literals of a failed lemma shown in the reason
_TEXT_BYTES = b"\t\n\r\x0b\x0c" + bytes(range(0x20, 0x7F))  # what a text proof is made of
# A compressed proof's first bytes (no text or binary DRAT proof starts with any of them). The formats layer
# has the same table for the files it reads; the checker imports nothing of the package but the core.
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))
_STREAM_ERRORS = (EOFError, OSError, zlib.error, lzma.LZMAError)  # a cut (EOFError) or damaged stream


@dataclass(frozen=True)
class CheckReport:
    """What checking a proof found: ``status`` (certified, rejected or over-budget), and unless certified the
    ``reason`` in one line; the proof's size and the time taken."""

    status: CertificateStatus
    reason: str | None
    lemmas: int
    deletions: int
    bytes: int
    seconds: float

    @property
    def certified(self) -> bool:
        return self.status == CertificateStatus.CERTIFIED


class _Refused(Exception):
    """Internal: checking stops with this one-line reason: the proof does not refute the formula (rejected)."""

    status = CertificateStatus.REJECTED


class _OverBudget(_Refused):
    """Internal: checking stops because it ran out of what it was given (size, literals, time): over budget,
    which says nothing of the proof either way."""

    status = CertificateStatus.OVER_BUDGET


class _Database:
    """The checker's arrays (see ``kernels``), grown by doubling as the formula and the proof need."""

    def __init__(self, variables: int, clauses: int, literals: int) -> None:
        self.st = np.zeros(k.STATE_SIZE, dtype=np.int64)
        self.lits = np.zeros(max(literals, 16), dtype=np.int32)
        self.cstart = np.zeros(max(clauses, 16), dtype=np.int64)
        self.clen = np.zeros(len(self.cstart), dtype=np.int32)
        self.alive = np.zeros(len(self.cstart), dtype=np.int8)
        self.nxt = np.full(2 * len(self.cstart), -1, dtype=np.int32)
        self.hnext = np.full(len(self.cstart), -1, dtype=np.int32)
        self.hhead = np.full(_power_of_two(2 * len(self.cstart)), -1, dtype=np.int32)
        self.variables = max(variables, 1)
        self.assign = np.zeros(self.variables + 1, dtype=np.int8)
        self.reason = np.full(self.variables + 1, -1, dtype=np.int32)
        self.trail = np.zeros(self.variables + 1, dtype=np.int32)
        self.head = np.full(2 * self.variables + 2, -1, dtype=np.int32)
        self.mark = np.zeros(2 * self.variables + 2, dtype=np.int8)

    def reserve(self, variables: int, clauses: int, literals: int) -> None:
        """Room for ``variables`` in all, and ``clauses`` / ``literals`` more than are stored."""
        if variables > self.variables:
            size = max(variables, 2 * self.variables)
            self.assign = _grown(self.assign, size + 1, 0)
            self.reason = _grown(self.reason, size + 1, -1)
            self.trail = _grown(self.trail, size + 1, 0)
            self.head = _grown(self.head, 2 * size + 2, -1)
            self.mark = _grown(self.mark, 2 * size + 2, 0)
            self.variables = size
        need = int(self.st[k.N_LITS]) + literals
        if need > len(self.lits):
            self.lits = _grown(self.lits, max(need, 2 * len(self.lits)), 0)
        need = int(self.st[k.N_CLAUSES]) + clauses
        if need > len(self.cstart):
            size = max(need, 2 * len(self.cstart))
            self.cstart = _grown(self.cstart, size, 0)
            self.clen = _grown(self.clen, size, 0)
            self.alive = _grown(self.alive, size, 0)
            self.nxt = _grown(self.nxt, 2 * size, -1)
            self.hnext = _grown(self.hnext, size, -1)
            self.hhead = np.full(_power_of_two(2 * size), -1, dtype=np.int32)
            k.rehash(self.cstart, self.clen, self.alive, self.lits, self.hhead, self.hnext, self.st)

    def compact_if_worth_it(self) -> None:
        """Reclaim the arena once more than half of it is deleted clauses (and it is large enough to matter)."""
        stored, live = int(self.st[k.N_LITS]), int(self.st[k.LIVE])
        if stored > COMPACT_FROM and live < stored // 2:
            self.compact()

    def compact(self) -> None:
        """Drop deleted clauses from the arena (``kernels.compact``); only between operations, at the top level."""
        renumber = np.empty(int(self.st[k.N_CLAUSES]), dtype=np.int32)
        k.compact(
            self.lits, self.cstart, self.clen, self.alive, self.head, self.nxt, self.hhead, self.hnext,
            self.assign, self.reason, self.trail, renumber, self.st,
        )  # fmt: skip

    def run(self, ops: _Ops, first: int, soft: int, hard: int, max_literals: int, out: np.ndarray) -> None:
        k.run_ops(
            ops.kinds, ops.starts, ops.lengths, ops.values, first, ops.count,
            self.lits, self.cstart, self.clen, self.alive, self.head, self.nxt, self.hhead, self.hnext,
            self.assign, self.reason, self.trail, self.mark, self.st, soft, hard, max_literals, out,
        )  # fmt: skip


@dataclass
class _Ops:
    """A batch of operations as flat arrays: kind, where its literals start in ``values``, how many, its line or byte."""

    kinds: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray
    where: np.ndarray
    values: np.ndarray
    count: int = 0
    # Why parsing stopped after these operations, if it did: (status, line or byte, the bad value), said once
    # the operations before it are applied (a message counts the lemmas before the bad clause).
    error: tuple[int, int, int] | None = None

    @classmethod
    def empty(cls, operations: int, literals: int) -> _Ops:
        return cls(
            np.zeros(operations, dtype=np.int8),
            np.zeros(operations, dtype=np.int64),
            np.zeros(operations, dtype=np.int64),
            np.zeros(operations, dtype=np.int64),
            np.zeros(max(literals, 1), dtype=np.int32),
        )


def _power_of_two(at_least: int) -> int:
    return 1 << max(4, (at_least - 1).bit_length())


def _grown(array: np.ndarray, size: int, fill: int) -> np.ndarray:
    bigger = np.full(size, fill, dtype=array.dtype)
    bigger[: len(array)] = array
    return bigger


class _Checker:
    """One check: the database, the counts, the clock, and the messages naming a lemma."""

    def __init__(self, formula: CanonicalCnf, deadline: float | None, max_literals: int) -> None:
        self.formula = formula
        self.deadline = deadline
        self.max_literals = max_literals
        self.max_variable = formula.variables + EXTENSION_VARIABLES
        self.db = _Database(formula.variables, 1024, 4096)
        self.out = np.zeros(2, dtype=np.int64)
        self.lemmas = 0
        self.deletions = 0
        self.binary = False
        self.last_where = 0  # the line (text) or byte (binary) of the last lemma applied

    def load_formula(self) -> None:
        """Store the formula's clauses (no check: they are the premises) and propagate its units."""
        values: list[int] = []
        lengths: list[int] = []
        for clause in self.formula.clauses():
            values.extend(clause)
            lengths.append(len(clause))
        ops = _Ops.empty(len(lengths), len(values))
        ops.values[: len(values)] = values
        ops.lengths[:] = lengths
        ops.starts[:] = np.concatenate(([0], np.cumsum(lengths)[:-1])) if lengths else []
        ops.kinds[:] = k.FORMULA
        ops.count = len(lengths)
        if len(values) > self.max_literals:
            raise _OverBudget(f"the formula alone has {len(values):,} literals, over the {self.max_literals:,} limit")
        self.apply(ops)

    @property
    def refuted(self) -> bool:
        return bool(self.db.st[k.REFUTED])

    def apply(self, ops: _Ops) -> bool:
        """Apply a batch; True once the empty clause is derived. Raises ``_Refused`` with the reason otherwise."""
        adds = int(np.count_nonzero(ops.kinds[: ops.count] == k.LEMMA))
        literals = int(ops.lengths[: ops.count].sum())
        self.db.compact_if_worth_it()
        self.db.reserve(self.max_variable_in(ops), ops.count, min(literals, self.max_literals + 1))
        lemma_before = np.cumsum(ops.kinds[: ops.count] == k.LEMMA) if adds else None
        first, hard = 0, HARD_WORK
        while True:
            self.db.run(ops, first, SOFT_WORK, hard, self.max_literals, self.out)
            status, index = int(self.out[0]), int(self.out[1])
            done = int(lemma_before[index - 1]) if lemma_before is not None and index > 0 else 0
            if status == k.DONE:
                if adds:
                    self.last_where = int(ops.where[int(np.flatnonzero(ops.kinds[: ops.count] == k.LEMMA)[-1])])
                self.lemmas += adds
                self.deletions += ops.count - adds - int(np.count_nonzero(ops.kinds[: ops.count] == k.FORMULA))
                return False
            if status in (k.PAUSED, k.PAUSED_MID):
                hard = 2 * hard if status == k.PAUSED_MID and index == first else HARD_WORK
                first = index
                self.check_clock(self.lemmas + done)
                continue
            self.lemmas += done + 1
            self.deletions += index - done - int(np.count_nonzero(ops.kinds[:index] == k.FORMULA))
            if status == k.EMPTY_DERIVED:
                return True
            if status == k.NOT_IMPLIED:
                raise _Refused(f"{self.name(ops, index)} is not implied: {self.shown(ops, index)}")
            raise _OverBudget(
                f"{self.name(ops, index)} would store more than {self.max_literals:,} literals (max_literals)"
            )

    def max_variable_in(self, ops: _Ops) -> int:
        used = ops.values[: int(ops.lengths[: ops.count].sum())] if ops.count else ops.values[:0]
        return int(np.abs(used).max()) if len(used) else 0

    def check_clock(self, lemmas_done: int) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _OverBudget(f"out of checking time after lemma {lemmas_done:,} of the proof")

    def name(self, ops: _Ops, index: int) -> str:
        where = f"byte {int(ops.where[index]):,}" if self.binary else f"line {int(ops.where[index]):,}"
        return f"lemma {self.lemmas:,} ({where})"

    def never_refuted(self) -> str:
        """Why a proof read to its end is not a refutation, naming its last lemma (where a cut proof stops)."""
        if not self.lemmas:
            return "the proof never derives the empty clause (0 lemmas read)"
        where = f"byte {self.last_where:,}" if self.binary else f"line {self.last_where:,}"
        return f"the proof never derives the empty clause ({self.lemmas:,} lemmas read, the last at {where})"

    @staticmethod
    def shown(ops: _Ops, index: int) -> str:
        start, length = int(ops.starts[index]), int(ops.lengths[index])
        literals = [str(int(v)) for v in ops.values[start : start + min(length, SHOWN_LITERALS)]]
        if length > SHOWN_LITERALS:
            literals.append(f"... ({length:,} literals)")
        return " ".join([*literals, "0"])


def check_proof(
    formula: CanonicalCnf,
    proof: Path,
    *,
    max_bytes: int = 1 << 30,
    seconds: float | None = None,
    max_literals: int = 50_000_000,
) -> CheckReport:
    """Check that ``proof`` (text or binary DRUP/DRAT) refutes ``formula``; see the module's docstring.

    ``max_bytes`` bounds the file (its size is checked before reading) and the
    bytes read from it (decompressed, for a compressed proof), ``seconds`` the
    checking time, ``max_literals`` the literals stored (formula and lemmas):
    past any of them the proof is not certified. The report's ``bytes`` is the
    file's size on disk.
    """
    warm_up()
    started = time.perf_counter()
    deadline = None if seconds is None else started + seconds
    checker = _Checker(formula, deadline, max_literals)
    size = 0

    def report(status: CertificateStatus, reason: str | None = None) -> CheckReport:
        return CheckReport(status, reason, checker.lemmas, checker.deletions, size, time.perf_counter() - started)

    try:
        size = _regular_size(Path(proof))
        if size > max_bytes:
            return report(
                CertificateStatus.OVER_BUDGET, f"the proof is {size:,} bytes, over the {max_bytes:,}-byte limit"
            )
        checker.check_clock(0)
        checker.load_formula()
        if checker.refuted:  # the formula has no model by unit propagation alone: nothing to read
            return report(CertificateStatus.CERTIFIED)
        if _read_and_check(checker, Path(proof), max_bytes):
            return report(CertificateStatus.CERTIFIED)
        return report(CertificateStatus.REJECTED, checker.never_refuted())
    except _Refused as refused:
        return report(refused.status, str(refused))
    except MemoryError:
        return report(CertificateStatus.OVER_BUDGET, "out of memory while checking the proof")


@functools.cache
def warm_up() -> None:
    """Compile (or load from the cache) every kernel once per process, before any clock starts.

    numba compiles on the first call, 10 s or more on a busy machine when its
    cache is cold: a check's ``seconds`` bound the checking, not that.
    """
    if not JIT:
        return
    checker = _Checker(canonical_cnf(Problem(n=2)), None, 1 << 20)
    checker.load_formula()
    for binary, data in ((False, b"-1 0\n0\n"), (True, b"a\x03\x00a\x00")):
        checker.binary = binary
        ops = _parse(checker, data, True, 1, 0)[0]
        with contextlib.suppress(_Refused):
            checker.apply(ops)
    checker.db.compact()
    checker.db.reserve(0, 2 * len(checker.db.cstart), 0)  # grows the clause arrays: rehashes


def _regular_size(path: Path) -> int:
    """The size of ``path``, a regular file (not a link), by ``lstat`` before it is opened."""
    try:
        info = os.lstat(path)
    except OSError as error:
        raise _Refused(f"cannot read the proof {path}: {error.strerror}") from None
    if stat.S_ISLNK(info.st_mode):
        raise _Refused(f"the proof {path} is a symbolic link, not a regular file")
    if not stat.S_ISREG(info.st_mode):
        raise _Refused(f"the proof {path} is not a regular file ({_kind(info.st_mode)})")
    return info.st_size


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


def _open(path: Path) -> int:
    """A descriptor on the regular file ``path``: non-blocking and not through a link, so nothing swapped in since ``lstat`` can hang us."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise _Refused(f"the proof {path} is a symbolic link, not a regular file") from None
        raise _Refused(f"cannot read the proof {path}: {error.strerror}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise _Refused(f"the proof {path} is not a regular file (it changed after it was checked)")
    return fd


class _Source:
    """The proof's bytes, a chunk at a time: the file's own, or what its compressed stream unpacks to.

    A plain file is read with ``os.read`` as it always was (the checker's speed
    on plain proofs is its speed); a compressed one through the standard
    library's decompressor, whose reads return at most what was asked, so memory
    stays bounded whatever the stream unpacks to.
    """

    def __init__(self, fd: int, path: Path) -> None:
        self.fd, self.path = fd, path
        self.kind = _compression(fd, path)
        self.raw = None if self.kind is None else os.fdopen(fd, "rb", closefd=False)  # the descriptor stays ours
        self.stream = None if self.raw is None else _decompressor(str(self.kind), self.raw)
        self.read: Callable[[], bytes] = self._plain if self.stream is None else self._unpacked
        self.unpacked = 0  # bytes that came out of the stream so far
        self.broken: str | None = None  # why the stream stopped, said once what came before it is checked

    def _plain(self) -> bytes:
        try:
            return os.read(self.fd, CHUNK)
        except OSError as error:
            raise _Refused(f"cannot read the proof {self.path}: {error.strerror}") from None

    def _unpacked(self) -> bytes:
        """Up to ``CHUNK`` unpacked bytes (a decompressor returns less per read): as few batches as a plain file.

        At a break in the stream, what unpacked before it comes out first (the
        proof may end before the break) and the break is said on the next read.
        """
        assert self.stream is not None
        if self.broken is not None:
            raise _Refused(self.broken)
        parts: list[bytes] = []
        size = 0
        while size < CHUNK:
            try:
                part = self.stream.read1(CHUNK - size)  # one read under it: a break loses nothing before it
            except _STREAM_ERRORS as error:
                what = "ends early (the file is cut)" if isinstance(error, EOFError) else "is damaged"
                self.broken = (
                    f"the {self.kind}-compressed proof {self.path} {what} after {self.unpacked + size:,} bytes unpacked"
                )
                if not parts:
                    raise _Refused(self.broken) from None
                break
            if not part:
                break
            parts.append(part)
            size += len(part)
        self.unpacked += size
        return b"".join(parts)

    def close(self) -> None:
        """Close the decompressor and its buffer (the descriptor is closed by its opener)."""
        for stream in (self.stream, self.raw):
            if stream is not None:
                with contextlib.suppress(*_STREAM_ERRORS):
                    stream.close()


def _compression(fd: int, path: Path) -> str | None:
    """The compression the file's first bytes announce, or None for a plain proof."""
    try:
        head = os.pread(fd, 6, 0)
    except OSError as error:
        raise _Refused(f"cannot read the proof {path}: {error.strerror}") from None
    return next((kind for magic, kind in _MAGIC if head.startswith(magic)), None)


def _decompressor(kind: str, raw: io.BufferedReader) -> gzip.GzipFile | bz2.BZ2File | lzma.LZMAFile:
    if kind == "gzip":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if kind == "bzip2":
        return bz2.BZ2File(raw)
    return lzma.LZMAFile(raw)


def _read_and_check(checker: _Checker, path: Path, max_bytes: int) -> bool:
    """Read the proof chunk by chunk, parse each into a batch and apply it; True once the empty clause is derived."""
    fd = _open(path)
    source: _Source | None = None
    try:
        source = _Source(fd, path)
        carry = b""
        read = 0
        line = 1
        offset = 0  # the offset of ``carry``'s first byte in the (unpacked) proof
        first = True
        while True:
            chunk = source.read()
            read += len(chunk)
            if read > max_bytes:
                unpacked = "" if source.kind is None else " (unpacked)"
                raise _OverBudget(f"the proof{unpacked} grew past the {max_bytes:,}-byte limit while it was read")
            if first:
                checker.binary = bool(chunk.translate(None, _TEXT_BYTES))  # a byte no text proof holds
                first = False
            eof = not chunk
            data = carry + chunk
            ops, consumed, line = _parse(checker, data, eof, line, offset)
            if ops.count and checker.apply(ops):
                return True
            if ops.error:
                raise _Refused(_parse_error(checker, *ops.error))
            carry = data[consumed:]
            offset += consumed
            if len(carry) > MAX_CARRY:
                raise _Refused(f"a clause at byte {offset:,} runs on for more than {MAX_CARRY:,} bytes")
            if eof:
                return False
            checker.check_clock(checker.lemmas)
    finally:
        if source is not None:
            source.close()
        os.close(fd)


def _parse(checker: _Checker, data: bytes, eof: bool, line: int, offset: int) -> tuple[_Ops, int, int]:
    """Parse ``data`` into a batch: the batch, the bytes consumed and the line number after them."""
    buffer = np.frombuffer(data, dtype=np.uint8)
    ops = _Ops.empty(len(data) // 2 + 2, len(data) + 1)
    res = np.zeros(8, dtype=np.int64)
    parse = k.parse_binary if checker.binary else k.parse_text
    bound = MAX_LINE_BYTES if not checker.binary else MAX_LINE_BYTES // 2
    parse(
        buffer, len(data), eof, checker.max_variable, bound,
        ops.kinds, ops.starts, ops.lengths, ops.where, ops.values, offset if checker.binary else line, res,
    )  # fmt: skip
    status, consumed, ops.count, _, line_after, _, bad_where, bad = (int(v) for v in res)
    if status != k.PARSE_OK:  # the clauses before the bad one are checked first: a proof may end before it
        ops.error = (status, bad_where, bad)
    return ops, consumed, line_after


def _parse_error(checker: _Checker, status: int, where: int, bad: int) -> str:
    place = f"byte {where:,}" if checker.binary else f"line {where:,}"
    kind = "binary proof" if checker.binary else "proof"
    if status == k.PARSE_VARIABLE:
        return (
            f"the clause after lemma {checker.lemmas:,} ({place}) names variable {bad:,}, beyond the formula's "
            f"{checker.formula.variables:,} variables and the {EXTENSION_VARIABLES:,} extension variables allowed"
        )
    if status == k.PARSE_TRUNCATED:
        return f"the {kind} is truncated: its last clause ({place}) has no terminating 0"
    if status == k.PARSE_LONG_LINE:
        what = (
            f"a clause of more than {MAX_LINE_BYTES // 2:,} literals"
            if checker.binary
            else (f"a line longer than {MAX_LINE_BYTES:,} bytes")
        )
        return f"the {kind} has {what} ({place})"
    if status == k.PARSE_BAD_BINARY:
        return f"the binary proof has byte 0x{bad:02x} at {place} where a clause must start with 'a' or 'd'"
    return f"the {kind} is not DRAT at {place}: expected integers ending in 0"
