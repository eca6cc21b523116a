"""Execution layer, parent side: a certificate checker the service owns, one warm process asked per certificate.

The checker program (``proofs/check_program.py``) imports no plugin and runs
under limits of its own. Starting it costs far more than checking a typical
proof (Python, numba and the compiled kernels: most of a second), so the
service keeps one per worker slot (``proof_checks.ProofChecks``) and asks it
again for every certificate after. It is started by the service, never by a
worker: no plugin code has run in the process that started it, and the
problem it is asked about is the service's own copy. A check is asked
(``begin``) and its answer read as it comes (``advance``), so the service goes
on watching its workers meanwhile; ``check`` does both and waits, for callers
with nothing else to watch (``nqueens check-proof``, a report's re-check, an
in-process run). A check over its time is ended by killing the process from
here; the next one starts afresh. The program exits by itself when the
process that started it is gone.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from typing import IO, Any

from nqueens_plugins.core.certificate_status import CHECKER_VERDICTS, CertificateStatus

__all__ = ["STARTUP_SECONDS", "CheckerProcess", "checker"]

# Python, numba and the kernels. The first start on a machine compiles them: about 10 s when quiet, over a minute
# on a busy machine (a suite under nice beside two busy loops once ran out of 30 s). The program is the service's
# own, as the built-ins' kernels are, so its start has the built-ins' compile limit: long, and still an end.
STARTUP_SECONDS = 600.0
READ_BYTES = 1 << 16
ERROR_TAIL_BYTES = 4096


class CheckerProcess:
    """One checker program, started on demand and kept while it answers."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[bytes] | None = None
        self.ready = False
        self.errors: IO[bytes] | None = None
        self.pending = b""
        self.request: dict[str, Any] | None = None  # the check asked and not answered yet
        self.sent = False  # it has been written to the program (once the program said it is ready)
        self.deadline = float("inf")  # time.monotonic() past which the check is over its time

    @property
    def pid(self) -> int | None:
        """The running checker's pid (for the worker's sweep to spare), if one runs."""
        return self.process.pid if self.process is not None and self.process.poll() is None else None

    def start(self, memory: int) -> None:
        """Start the program if none runs (it loads while the caller goes on); ``memory`` caps its data size."""
        if self.pid is not None:
            return
        self.close()
        self.errors = tempfile.TemporaryFile(prefix="nqueens-checker-")  # noqa: SIM115 - closed by close()
        self.process = subprocess.Popen(  # our own program, by module
            [sys.executable, "-m", "nqueens_plugins.proofs.check_program", str(memory)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
        )
        self.ready = False
        self.pending = b""

    def begin(self, request: dict[str, Any], seconds: float) -> None:
        """Ask for a check of ``request`` within ``seconds`` (and the program's start, if it is not ready);
        its answer comes from ``advance`` once the program's output (``fileno``) is readable."""
        self.start(int(request["memory"]))
        self.request, self.sent = request, False
        self.deadline = time.monotonic() + seconds + (0.0 if self.ready else STARTUP_SECONDS)
        if self.ready:
            self.send()

    def fileno(self) -> int:
        """The program's output, to wait on (``multiprocessing.connection.wait``, ``select``)."""
        assert self.process is not None and self.process.stdout is not None
        return self.process.stdout.fileno()

    @property
    def busy(self) -> bool:
        return self.request is not None

    def advance(self) -> dict[str, Any] | str | None:
        """Read what the program has written (without waiting): the answer to the check asked, or one line
        saying why there is none (``"timeout"`` past its deadline), or None while it is still at work."""
        if self.request is None:
            return None
        while True:
            said = self.next_line()
            if said is None:
                if time.monotonic() < self.deadline:
                    return None
                return self.answered(self.failed("timeout", "checking"))
            if said == "ended" or not isinstance(said, dict):
                return self.answered(self.failed(None, "starting" if not self.ready else "checking"))
            if not self.ready:
                if said.get("ready") is not True:
                    return self.answered(self.failed(said, "starting"))
                self.ready = True
                if not self.send():
                    return self.answered(self.failed(None, "sending the request"))
                continue
            if self.process is not None and (
                self.process.poll() is not None or CertificateStatus.parse(said.get("status")) not in CHECKER_VERDICTS
            ):
                self.close()  # it said it cannot go on (out of memory, a failure): the next check starts a fresh one
            return self.answered(said)

    def check(self, request: dict[str, Any], seconds: float) -> dict[str, Any] | str:
        """The program's answer to ``request`` within ``seconds`` (and its start, if it is not ready yet),
        or one line saying why there is none; a program that did not answer in time is killed."""
        self.begin(request, seconds)
        while True:
            answer = self.advance()
            if answer is not None:
                return answer
            remaining = self.deadline - time.monotonic()
            if remaining > 0:
                select.select([self.fileno()], [], [], remaining)

    def send(self) -> bool:
        assert self.process is not None and self.process.stdin is not None and self.request is not None
        try:
            self.process.stdin.write(json.dumps(self.request).encode() + b"\n")
            self.process.stdin.flush()
        except OSError:
            return False
        self.sent = True
        return True

    def answered(self, answer: dict[str, Any] | str) -> dict[str, Any] | str:
        self.request = None
        return answer

    def next_line(self) -> dict[str, Any] | str | None:
        """The next JSON line the program has written, if a whole one is there (reading what is ready, never
        waiting): the object, ``"ended"`` if the program ended (or wrote what is not a JSON object), None if
        no whole line is there yet."""
        if self.process is None or self.process.stdout is None:
            return "ended"
        descriptor = self.process.stdout.fileno()
        while b"\n" not in self.pending:
            readable, _, _ = select.select([descriptor], [], [], 0)
            if not readable:
                return None
            chunk = os.read(descriptor, READ_BYTES)
            if not chunk:
                return "ended"
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        try:
            said = json.loads(line)
        except ValueError:
            return "ended"
        return said if isinstance(said, dict) else "ended"

    def failed(self, said: dict[str, Any] | str | None, doing: str) -> str:
        """Why there is no answer, in one line; the program is ended either way."""
        if said == "timeout":
            self.close()
            return "timeout"
        returncode = self.process.poll() if self.process is not None else None
        tail = self.error_tail()
        self.close()
        if "MemoryError" in tail or returncode in (-9, 137):
            return "out of memory"
        last = tail.strip().splitlines()[-1:] or [f"exit status {returncode}"]
        return f"the checker failed while {doing}: {last[0]}"

    def error_tail(self) -> str:
        if self.errors is None:
            return ""
        with contextlib.suppress(OSError):
            self.errors.seek(max(0, self.errors.seek(0, os.SEEK_END) - ERROR_TAIL_BYTES))
            return self.errors.read().decode("utf-8", "replace")
        return ""

    def close(self) -> None:
        """End the program (if it runs) and forget it."""
        process, self.process, self.ready, self.pending = self.process, None, False, b""
        self.request, self.sent, self.deadline = None, False, float("inf")
        if process is not None:
            with contextlib.suppress(OSError):
                process.kill()
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                process.wait(timeout=5)
            for stream in (process.stdin, process.stdout):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()
        if self.errors is not None:
            with contextlib.suppress(OSError):
                self.errors.close()
            self.errors = None


_checker = CheckerProcess()
atexit.register(_checker.close)


def checker() -> CheckerProcess:
    """This process's own checker, for the checks made while nothing else is watched (``check``)."""
    return _checker
