"""Execution layer, worker side: the worker's certificate checker, one warm process asked per certificate.

The checker program (``proofs/check_program.py``) imports no plugin and runs
under limits of its own. Starting it costs far more than checking a typical
proof (Python, numba and the compiled kernels: most of a second), so a worker
starts it once, as soon as a task wants a certificate (``start``: the loading
then overlaps the solver's preparation and run), and asks it again for every
certificate after. A check over its time is ended by killing the process from
here; the next one starts afresh. The process is in the worker's process group
(killing the worker's group ends it), the worker's sweep of a plugin's
processes spares it (``pid``), and it exits by itself when the worker is gone.
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

__all__ = ["STARTUP_SECONDS", "CheckerProcess", "checker"]

STARTUP_SECONDS = 30.0  # Python, numba and the kernels; compiling them the first time on a machine takes 10 s or more
READ_BYTES = 1 << 16
ERROR_TAIL_BYTES = 4096


class CheckerProcess:
    """One checker program, started on demand and kept while it answers."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[bytes] | None = None
        self.ready = False
        self.errors: IO[bytes] | None = None
        self.pending = b""

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

    def check(self, request: dict[str, Any], seconds: float) -> dict[str, Any] | str:
        """The program's answer to ``request`` within ``seconds`` (and its start, if it is not ready yet),
        or one line saying why there is none; a program that did not answer in time is killed."""
        self.start(int(request["memory"]))
        assert self.process is not None and self.process.stdin is not None
        deadline = time.monotonic() + seconds + (0.0 if self.ready else STARTUP_SECONDS)
        if not self.ready:
            said = self.read_line(deadline)
            if not isinstance(said, dict) or said.get("ready") is not True:
                return self.failed(said, "starting")
            self.ready = True
        try:
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            self.process.stdin.flush()
        except OSError:
            return self.failed(None, "sending the request")
        answer = self.read_line(deadline)
        if not isinstance(answer, dict):
            return self.failed(answer, "checking")
        if self.process.poll() is not None or answer.get("status") not in ("certified", "rejected", "over-budget"):
            self.close()  # it said it cannot go on (out of memory, a failure): the next check starts a fresh one
        return answer

    def read_line(self, deadline: float) -> dict[str, Any] | str | None:
        """The next JSON line from the program: the object, ``"timeout"`` past ``deadline``, None if it ended."""
        assert self.process is not None and self.process.stdout is not None
        descriptor = self.process.stdout.fileno()
        while b"\n" not in self.pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            readable, _, _ = select.select([descriptor], [], [], remaining)
            if not readable:
                continue
            chunk = os.read(descriptor, READ_BYTES)
            if not chunk:
                return None
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        try:
            said = json.loads(line)
        except ValueError:
            return None
        return said if isinstance(said, dict) else None

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
    """This process's checker (a worker's, or the host's when it runs plugins in-process)."""
    return _checker
