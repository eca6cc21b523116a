"""Execution layer, both sides: what a worker's plugins print, kept per run and bounded.

A worker's standard output and standard error are one unnamed temporary file
that the service holds (``WorkerProcess``), opened for appending: nothing a
plugin prints (a library that prints every solution, a C extension's warnings,
Python's own fatal-error message) reaches the user's terminal. The worker
measures it per run (``PrintedHere``): it empties the file after each
run and after preparing a solver (what a warm-up prints is not the run's, unless
the preparation fails), and sends how many bytes the run printed and their last
``TAIL_CHARACTERS`` with the run's result; they go into the run's record
(``output`` and ``output_bytes``), shown with a run's error or on request
(``--show-output``). This side reads the file itself only when the worker died
or was killed, and keeps it under ``FILE_LIMIT`` bytes while a run prints past
that, counting what it dropped.

The file is unlinked at creation, so a killed command leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import sys
import tempfile
from typing import IO

from nqueens_plugins.execution.tasks import Executed

TAIL_CHARACTERS = 2_000  # what a record keeps of a run's output: its end, where an error message is
FILE_LIMIT = 8 * 2**20  # bytes the file may hold before this side empties it while a run prints


def read_tail(descriptor: int, size: int) -> str:
    """The last TAIL_CHARACTERS of the first ``size`` bytes of a file, decoded leniently."""
    start = max(0, size - 4 * TAIL_CHARACTERS)  # UTF-8: at most 4 bytes a character
    return os.pread(descriptor, size - start, start).decode("utf-8", errors="replace")[-TAIL_CHARACTERS:]


class CapturedOutput:
    """The file a worker's fds 1 and 2 point to, and what this side emptied of it during the current run."""

    def __init__(self) -> None:
        self.file: IO[bytes] = tempfile.TemporaryFile(prefix="nqueens-output-")  # noqa: SIM115 - held for the worker's life
        descriptor = self.file.fileno()
        # Appending: the worker writes at the end even after the file is emptied under it.
        fcntl.fcntl(descriptor, fcntl.F_SETFL, fcntl.fcntl(descriptor, fcntl.F_GETFL) | os.O_APPEND)
        self.dropped = 0  # bytes of the current run's output emptied away to keep the file small

    def fileno(self) -> int:
        return self.file.fileno()

    def size(self) -> int:
        try:
            return os.fstat(self.file.fileno()).st_size
        except (OSError, ValueError):
            return 0

    def bound(self) -> None:
        """Empty the file if a run has printed past ``FILE_LIMIT`` (its count is kept)."""
        size = self.size()
        if size > FILE_LIMIT:
            self.dropped += size
            os.ftruncate(self.file.fileno(), 0)

    def counted(self, printed: int) -> int:
        """What the run that just ended printed: the worker's count plus what this side emptied."""
        total, self.dropped = printed + self.dropped, 0
        return total

    def remains(self) -> tuple[int, str | None]:
        """What a worker that died or was killed printed in its last run (it could not say): bytes and tail."""
        size = self.size()
        printed = self.counted(size)
        return printed, read_tail(self.file.fileno(), size) if size else None

    def close(self) -> None:
        self.file.close()


class PrintedHere:
    """The worker's side (``CapturedOutput`` is the service's): its fds 1 and 2 are one file
    the service holds. After each run it says how much the run printed and how it ended, and empties
    the file for the next. Where fd 1 is not a file (a worker started by hand), it measures nothing."""

    def __init__(self) -> None:
        try:
            self.captured = stat.S_ISREG(os.fstat(1).st_mode)
        except OSError:
            self.captured = False

    def forget(self) -> None:
        """Empty the file: what was printed so far belongs to no run."""
        if self.captured:
            flush_streams()
            with contextlib.suppress(OSError):
                os.ftruncate(1, 0)

    def measure(self, executed: Executed) -> None:
        """Put on ``executed`` what was printed since the file was last emptied, then empty it."""
        if not self.captured:
            return
        flush_streams()
        with contextlib.suppress(OSError):
            size = os.fstat(1).st_size
            if size:
                executed.output_bytes, executed.output = size, read_tail(1, size)
            os.ftruncate(1, 0)


def flush_streams() -> None:
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.flush()


def format_size(count: int) -> str:
    for unit, scale in (("GB", 2**30), ("MB", 2**20), ("KB", 2**10)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"
