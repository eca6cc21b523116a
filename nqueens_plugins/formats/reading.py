"""Formats layer, parent side: opening a file someone else named, and reading it within bounds.

A path given to the suite may be anything: a FIFO (whose read waits for a writer
that never comes), a device such as ``/dev/zero`` (endless), a folder, a kernel
file under ``/proc`` or ``/sys`` (sized 0, yet endless or failing), or a small
compressed file that unpacks to gigabytes. The instance reader and the reader of
published answers come through here, so each of them:

* opens without blocking (``O_NONBLOCK``: opening a FIFO returns at once) and
  checks the open descriptor with ``fstat``, so what is checked is what is read;
* reads a regular file on an ordinary file system only;
* checks the size on disk before reading, and counts again while reading, in the
  bytes that come out (a compressed stream is bounded by what it unpacks to, not by
  its own size or by any size field an archive claims).

Every refusal is a one-line ``BadInput`` naming the file.

The results reader (``records``) streams files line by line, with its own bounds
per line and in all (``RESULTS_MAX_LINES``, ``RESULTS_MAX_BYTES``, counted in what
comes out: ``Bounded``); it takes ``decompressor`` from here, so that a results file
kept compressed reads as the plain one (``Unpacking``, which names the compression
when its stream is cut or damaged).
"""

from __future__ import annotations

import bz2
import functools
import gzip
import io
import lzma
import os
import stat
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, BinaryIO

from nqueens_plugins.core.errors import BadInput

CHUNK = 1 << 20  # bytes asked for per read
KERNEL_FILE_SYSTEMS = ("/proc", "/sys")  # files there claim size 0 and may never end
# What one reading of a results file may take in all (``records.ReadLimits``; ``nqueens report --max-lines``,
# ``--max-bytes``): a 2 KB bzip2 file can unpack to 2 GB of newlines, read at a few million lines a second, so a
# results file is bounded by the lines and the bytes that come *out* of it, blank lines counted. 10^8 lines is ten
# times the largest file measured (benchmarks/records_reader.py --report-memory); 64 GiB, 10^8 records of 640 bytes.
RESULTS_MAX_LINES = 100_000_000
RESULTS_MAX_BYTES = 64 << 30
# The compressed streams a file may hold, known by their first bytes.
MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))


class TooLarge(BadInput):
    """More bytes came out of a file (or out of its decompressed stream) than its limit allows."""


def size_text(size: int) -> str:
    """A byte count as people read it: 1.5 GiB, 32 MiB, 900 bytes."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size} bytes"


@functools.cache
def kernel_devices() -> frozenset[int]:
    """The device numbers of /proc and /sys (where they exist): a file on them is the kernel's."""
    devices = set()
    for folder in KERNEL_FILE_SYSTEMS:
        try:
            devices.add(os.stat(folder).st_dev)
        except OSError:
            continue
    return frozenset(devices)


def refusal(info: os.stat_result) -> str | None:
    """Why a file with this ``fstat`` is not one to read, or None for a regular file."""
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        return "it is a folder"
    if stat.S_ISFIFO(mode):
        return "it is a FIFO (named pipe), not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "it is a device, not a regular file"
    if stat.S_ISSOCK(mode):
        return "it is a socket, not a regular file"
    if not stat.S_ISREG(mode):
        return "it is not a regular file"
    if info.st_dev in kernel_devices():
        return "it is a kernel file (/proc, /sys), not a regular file"
    return None


def unopened(path: str | Path) -> str | None:
    """Why a file that could not be opened is not one to read, where its kind says (a socket cannot be
    opened at all: "No such device or address" would not tell the user why)."""
    try:
        return refusal(os.stat(path))
    except OSError:
        return None


def open_regular(path: str | Path, what: str, limit: int) -> BinaryIO:
    """``path`` opened for binary reading: a regular file of at most ``limit`` bytes on disk.

    ``what`` names the file in messages ("instance file"). The check is made on the
    open descriptor, so a file swapped for a FIFO between a check and the open
    cannot slip through, and the open itself never waits.
    """
    name = str(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        raise BadInput(f"{what} {name!r} does not exist") from None
    except OSError as exc:
        raise BadInput(f"cannot read {what} {name!r}: {unopened(path) or exc.strerror or exc}") from None
    try:
        info = os.fstat(descriptor)
        why = refusal(info)
        if why:
            raise BadInput(f"cannot read {what} {name!r}: {why}")
        if info.st_size > limit:
            raise TooLarge(f"{what} {name!r} is {size_text(info.st_size)}: more than the {size_text(limit)} it may be")
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_bounded(handle: IO[bytes], limit: int, name: str) -> bytearray:
    """All of ``handle``, read in chunks and refused (``TooLarge``) past ``limit`` bytes: never more
    than ``limit + 1`` bytes are held, whatever the file or a header said its size was."""
    data = bytearray()
    while True:
        chunk = handle.read(min(CHUNK, limit + 1 - len(data)))
        if not chunk:
            return data
        data += chunk
        if len(data) > limit:
            raise TooLarge(f"{name}: more than the {size_text(limit)} it may hold")


Stream = io.BufferedIOBase | io.RawIOBase | IO[bytes]  # a file, a decompressor reading one, or one unpacking


class Bounded(io.RawIOBase):
    """A read-only stream over another that refuses (``TooLarge``) once more than ``limit`` bytes
    came out of it: the bound on everything a decompressed stream or an archive yields."""

    def __init__(self, inner: Stream, limit: int, name: str, advice: str = "") -> None:
        super().__init__()
        self.inner, self.limit, self.name, self.count, self.advice = inner, limit, name, 0, advice

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        if not self.closed:
            self.inner.close()  # the decompressor (the file under it stays its opener's), or the file
        super().close()

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        wanted = min(len(buffer), self.limit + 1 - self.count)
        got = self.inner.readinto(buffer[:wanted]) or 0  # type: ignore[union-attr]  # into the buffer: no copy
        self.count += got
        if self.count > self.limit:
            raise TooLarge(f"{self.name}: unpacks to more than the {size_text(self.limit)} it may hold{self.advice}")
        return got


def compression(handle: IO[bytes]) -> str | None:
    """The compression a file's first bytes announce (gzip, bzip2, xz), or None."""
    head = handle.peek(6)[:6] if isinstance(handle, io.BufferedReader) else b""
    return next((kind for magic, kind in MAGIC if head.startswith(magic)), None)


def decompressing(handle: IO[bytes]) -> Stream | None:
    """A decompressor reading ``handle``, when its first bytes announce gzip, bzip2 or xz; None for a
    plain file. The caller's stream closes it (the file under it stays its opener's)."""
    kind = compression(handle)
    if kind == "gzip":
        return gzip.GzipFile(fileobj=handle, mode="rb")
    if kind == "bzip2":
        return bz2.BZ2File(handle)
    if kind == "xz":
        return lzma.LZMAFile(handle)
    return None


def unpacked(handle: IO[bytes], limit: int, name: str) -> io.BufferedReader:
    """The bytes of ``handle``, decompressed if its first bytes say so, refused past ``limit``
    bytes *out* (so a 4 MB gzip of zeros stops after ``limit`` bytes, not 4 GiB)."""
    inner = decompressing(handle)
    return io.BufferedReader(Bounded(handle if inner is None else inner, limit, name), CHUNK)


class Unpacking(io.RawIOBase):
    """A read-only stream of what a compressed stream unpacks to, for readers that take any number of
    bytes (results files): a stream that is cut off or damaged ends where it breaks, and ``broken``
    says why, naming the compression ("ends before its gzip stream does", "is a damaged gzip stream"),
    so the records before the break are kept and the reader warns, and a file that breaks before
    anything could be read is refused for its real cause, not as empty (gzip raises ``EOFError`` for a
    cut file, and ``zlib.error``, ``lzma.LZMAError`` or ``OSError`` for damage). ``cut`` tells the two
    apart."""

    def __init__(self, inner: Stream, kind: str = "compressed") -> None:
        super().__init__()
        self.inner, self.kind = inner, kind
        self.broken: str | None = None
        self.cut = False

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        if not self.closed:
            self.inner.close()
        super().close()

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        if self.broken is not None:
            return 0
        try:  # read1: one read of the file under it, so what unpacked before a break comes out before the error
            data = self.inner.read1(len(buffer))  # type: ignore[union-attr]
        except (EOFError, zlib.error, lzma.LZMAError, OSError) as exc:
            self.cut = isinstance(exc, EOFError)
            self.broken = f"ends before its {self.kind} stream does" if self.cut else f"is a damaged {self.kind} stream"
            return 0
        buffer[: len(data)] = data
        return len(data)


def decompressor(handle: IO[bytes]) -> Unpacking | None:
    """What ``handle`` unpacks to, read to its first break (``Unpacking``); None for a plain file."""
    kind = compression(handle)
    inner = decompressing(handle)
    return None if inner is None or kind is None else Unpacking(inner, kind)


def compressed(path: Path) -> str | None:
    """The compression a regular file's first bytes announce (gzip, bzip2, xz), or None (plain, or unreadable)."""
    try:
        with path.open("rb") as handle:
            return compression(handle)
    except OSError:
        return None


def bounded_lines(
    handle: IO[bytes], name: str, line_limit: int, max_lines: int | None = None
) -> Iterator[tuple[int, bytes]]:
    """(line number, line) of ``handle``, each refused past ``line_limit`` bytes: a file of one
    endless line is held ``line_limit`` bytes at a time, never whole. Past ``max_lines`` lines (blank
    ones count), refused: what a reader keeps per line is bounded by the count, not only by the bytes."""
    number = 0
    while True:
        line = handle.readline(line_limit + 1)
        if not line:
            return
        number += 1
        if max_lines is not None and number > max_lines:
            raise TooLarge(f"{name}: more than the {max_lines:,} lines it may hold (blank ones count)")
        if len(line) > line_limit and not line.endswith(b"\n"):
            raise TooLarge(f"{name}:{number}: a line longer than {size_text(line_limit)}")
        yield number, line


# What a compressed stream or a failing disk raises while it is read: each is the file's fault.
READ_ERRORS: tuple[type[Exception], ...] = (OSError, EOFError, zlib.error, lzma.LZMAError)
