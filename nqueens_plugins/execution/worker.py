"""Execution layer, worker side: the worker program (``python -m nqueens_plugins.execution.worker``).

Usage: ``python -m nqueens_plugins.execution.worker READ_FD WRITE_FD PARENT_PID LOG_PATH``.

Every call into plugin code runs here, in a process of its own that the
parent's handle on it (``worker_handle.py``) starts, feeds tasks over a pipe,
times out and kills from outside. A program of its own (not a multiprocessing child) so
that it never re-imports the caller's ``__main__`` script, and so that a Dask
worker can start the very same program.

It says ``Ready`` (``messages.py``) once started and imported (no task's clock runs before
that), then for each task:

1. it rebuilds the task (unpickling imports the solver's plugin and rebuilds
   the solver: plugin code);
2. the first time it meets a solver, it *prepares* it: the solver's untimed
   ``warm_up`` (by default a 4x4 solve), so imports and compiled kernels are
   loaded before any clock starts (``WarmingUp`` tells the service it is
   past rebuilding; a task marked ``cold`` skips the warm-up, whose default
   did not end in an earlier worker; ``Compiling`` and ``Compiled`` around each
   kernel the built-in engines compile meanwhile, ``Guessing`` and ``Guessed``
   around the default warm-up, ``telling_the_parent``), and sends ``Started(seconds)``, the
   seconds that rebuilding and warming up took; the service holds them to the
   task's ``prepare_timeout`` and starts the run's time limit only then, and for
   a task of a job with a deadline (a split count's pieces) it answers with the
   job's end here, its preparation given back (``JobEnd``, ``Inbox``: the
   service's arithmetic, by its own clock; the worker only takes its result);
3. it calls the solver (``calls.perform``), which times the call alone, and
   sends the result back in ``Done``, unverified (the parent verifies, ``judge.py``), with
   the preparation it needed (``Executed.prepare_seconds``). A no-solution claim's
   proof is only handed over (its path and size): the service checks it
   (``proof_checks.py``), after this worker has swept the plugin's processes.

Every message is a frame of plain data (``wire.py``), never a pickle: the
parent parses it and runs nothing of it.

A failure in any step travels back as the task's result, saying where it
happened. The worker's own failures (a bug here, a pipe gone wrong) write their
traceback to ``LOG_PATH``, which the service names in the record; nothing of
the worker's own reaches the user's terminal.

It lives in its own process group (the service kills the group, so whatever a
plugin started goes too) and adopts what a plugin started outside the group
(``processes.py``), so nothing a plugin started outlives the call that started
it. It sends what plugins print to stdout to stderr (the pipe carries results
only; the host's own stdout stays clean), ignores Ctrl-C (the service handles
it), and leaves at once when its parent is gone.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import resource
import signal
import sys
import time
import traceback
from collections import deque
from collections.abc import Iterator
from dataclasses import replace
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from nqueens_plugins.core import compile_notes, guess_notes
from nqueens_plugins.execution import processes, wire
from nqueens_plugins.execution.calls import describe, perform
from nqueens_plugins.execution.measuring import measured
from nqueens_plugins.execution.messages import (
    Compiled,
    Compiling,
    Done,
    Guessed,
    Guessing,
    Message,
    Ready,
    Started,
    WarmingUp,
)
from nqueens_plugins.execution.output import PrintedHere
from nqueens_plugins.execution.tasks import Executed, JobEnd, OpaquePart, Task
from nqueens_plugins.execution.watchdog import Watchdog, die_with_parent


def warm_up(task: Task, preparation: str) -> Executed | None:
    """The solver's untimed ``warm_up(options, preparation)`` (imports, JIT), the failure to send back instead
    of a run if it failed. One call for every solver, whatever its class: the default (``Solver.warm_up``, a
    guess) keeps its own failure for the timed call to meet, and a plugin written for the one-argument
    ``warm_up(options)`` was adapted when its class was made (``Solver.__init_subclass__``)."""
    try:
        task.variant.solver.warm_up(dict(task.variant.options), preparation)
    except BaseException as exc:  # noqa: BLE001 - plugin code may raise anything
        return Executed(None, 0.0, f"preparing the solver failed: its warm_up raised {describe(exc)}")
    return None


def named_preparation(task: Task) -> str:
    """The solver's name for what ``task``'s problem needs prepared ("" if it names none, or if
    asking raised: plugin code; the warm-up and the run will meet whatever is wrong)."""
    try:
        name = task.variant.solver.preparation(task.problem, dict(task.variant.options))
    except BaseException:  # noqa: BLE001 - plugin code may raise anything
        return ""
    return name if isinstance(name, str) else ""


class Preparations:
    """What this worker has prepared: each solver once per preparation it names (``Solver.preparation``)."""

    def __init__(self) -> None:
        self.prepared: set[tuple[str, str]] = set()

    def prepare(self, task: Task, rebuilding: float, writer: Connection) -> tuple[float | None, Executed | None]:
        """Prepare ``task``'s solver if it is new here, or new for this problem: (the seconds it took, or
        None if it was ready; the failure to send back, if preparing failed)."""
        preparation = named_preparation(task)
        if (task.variant.name, preparation) in self.prepared:
            return None, None
        self.prepared.add((task.variant.name, preparation))
        # Rebuilt: a preparation that never ends is now in the warm-up (and a run that the service
        # took for prepared, a solver met before, waits for this one: its clock starts again after it).
        send(writer, WarmingUp())
        start = time.perf_counter()
        with telling_the_parent(writer):
            failed = None if task.cold else warm_up(task, preparation)
        seconds = rebuilding + time.perf_counter() - start
        send(writer, Started(seconds))
        return seconds, failed


class Inbox:
    """What the parent sends this worker: tasks, and after each preparation for a job with a deadline, the end
    it now gives that job here (``JobEnd``: preparation never counts against a job's time limit). The worker
    does no arithmetic of its own on deadlines: it runs a job's tasks to the end the parent said, the very
    end the parent holds them to."""

    def __init__(self, reader: Connection) -> None:
        self.reader = reader
        self.early: deque[bytes] = deque()  # tasks sent while a JobEnd was awaited
        self.ends: dict[float, float] = {}  # a job's deadline -> the end the parent gives it here
        self.owed = 0  # JobEnds the parent owes (one per Started of a task with a deadline), not read yet

    def next_task(self) -> bytes:
        """The next task's pickle (``EOFError`` when the parent closed the pipe)."""
        while not self.early:
            self.take(self.reader.recv_bytes())
        return self.early.popleft()

    def prepared(self, task: Task, ran: bool) -> None:
        """This worker said ``Started`` for ``task``: if it has a deadline, the parent answers with its job's end
        here, which a run (``ran``) waits for (a failed preparation does not: it is read with the next task)."""
        if task.deadline is None:
            return
        self.owed += 1
        while ran and self.owed:
            self.take(self.reader.recv_bytes())

    def take(self, frame: bytes) -> None:
        told = JobEnd.read(frame)
        if told is None:
            self.early.append(frame)
        else:
            self.ends[told.job] = told.end
            self.owed = max(0, self.owed - 1)

    def as_told(self, task: Task) -> Task:
        """``task`` with its job's end as the parent gave it here (as it was sent, if the parent said none)."""
        if task.deadline is None or task.deadline not in self.ends:
            return task
        return replace(task, deadline=self.ends[task.deadline])


@contextlib.contextmanager
def telling_the_parent(writer: Connection) -> Iterator[None]:
    """While a solver prepares, tell the parent when the built-in engines compile a kernel (``Compiling``,
    ``Compiled``) and when the solver's default warm-up guesses (``Guessing``, ``Guessed``): the parent does not
    hold our own compile to the solver's ``prepare_timeout``, if the solver is one of ours (it checks that
    itself: ``worker_handle.compiles_our_kernels``), and holds a guess to a short limit of its own."""
    compile_notes.kernel_started = lambda kernel: send(writer, Compiling(kernel))
    compile_notes.kernel_ended = lambda kernel: send(writer, Compiled())
    guess_notes.guess_started = lambda: send(writer, Guessing())
    guess_notes.guess_ended = lambda: send(writer, Guessed())
    try:
        yield
    finally:
        compile_notes.kernel_started = compile_notes.kernel_ended = None
        guess_notes.guess_started = guess_notes.guess_ended = None


@contextlib.contextmanager
def memory_limit(allowance: int | None) -> Iterator[None]:
    """Let the call allocate ``allowance`` bytes beyond this worker's present data size
    (``RLIMIT_DATA``: heap and private mappings, which is where a solver's memory goes)."""
    if allowance is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    limit = data_size() + allowance
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


def data_size() -> int:
    """This process's data segment in bytes (VmData), as the kernel counts it against RLIMIT_DATA."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmData:"):
                return int(line.split()[1]) * 1024
    return 0


def format_bytes(size: int) -> str:
    return f"{size / (1 << 30):g} GiB" if size >= 1 << 30 else f"{size / (1 << 20):g} MiB"


def receive(inbox: Inbox) -> tuple[Task | None, Executed | None, float]:
    """The next task (None: the service is done with this worker), or, when it cannot be rebuilt
    here, the failure to send back in its place; and the seconds rebuilding took. Rebuilding a
    task imports the solver's plugin and unpickles the solver: plugin code, which may fail in any way."""
    message = inbox.next_task()
    start = time.perf_counter()
    try:
        task = pickle.loads(message)
        if isinstance(task, Task) and isinstance(task.part, OpaquePart):  # a piece of a count, as its plan made it
            task = replace(task, part=pickle.loads(task.part.blob))
    except BaseException as exc:  # noqa: BLE001 - an unpickling solver may raise anything
        where = "importing the solver's plugin" if isinstance(exc, ImportError) else "rebuilding the solver"
        return None, Executed(None, 0.0, f"{where} in the worker failed: {describe(exc)}"), 0.0
    return task, None, time.perf_counter() - start


def send(writer: Connection, message: Message) -> None:
    """Tell the parent (``worker_handle.WorkerProcess.hear``) how the task it sent is going, as a frame of data."""
    writer.send_bytes(wire.encode(message))


def serve(reader: Connection, writer: Connection, watchdog: Watchdog | None = None) -> None:
    preparations = Preparations()
    inbox = Inbox(reader)
    printed = PrintedHere()
    while True:
        try:
            task, failed, rebuilding = receive(inbox)
        except (EOFError, OSError):
            return
        if failed is not None:
            printed.measure(failed)
            send(writer, Done(failed))
            continue
        if task is None:
            return
        with memory_limit(task.limits.memory):  # the warm-up is plugin code too
            prepared, failed = preparations.prepare(task, rebuilding, writer)
            if prepared is not None:
                try:
                    inbox.prepared(task, ran=failed is None)
                except (EOFError, OSError):
                    return
            if prepared is not None and failed is None:
                printed.forget()  # what preparing printed is not the run's (unless preparing failed)
            spared = {pid for pid in (watchdog.running() if watchdog else None,) if pid is not None}
            if failed is not None:
                outcome = failed
            else:  # what the run cost: the call alone, not the preparation nor the parent's check of a proof
                with measured(spared) as found:
                    outcome = perform(inbox.as_told(task))
                outcome.measure = found[0]
        printed.measure(outcome)
        outcome.prepare_seconds = prepared
        if task.limits.memory is not None and outcome.error and outcome.error.startswith("MemoryError"):
            outcome.error += f" (over its --memory limit of {format_bytes(task.limits.memory)})"
        # A plugin's processes do not outlive its call (nor write its proof after it); the watchdog is ours.
        if set(processes.children(os.getpid())) - spared:
            processes.kill_descendants(os.getpid(), spare=spared)
            processes.reap_children()
        try:
            send(writer, Done(outcome))
        except (BrokenPipeError, ConnectionResetError):
            raise
        except BaseException as exc:  # noqa: BLE001 - reading what the plugin returned is plugin code
            send(writer, Done(outcome.unsendable(f"sending the answer back failed: {describe(exc)}")))


def log_own_failures(path: Path) -> None:
    """Send the worker's own uncaught exceptions (never a plugin's: those travel back as results)
    to a debug log at ``path``, not to the user's terminal; the service names it in the record."""

    def write_log(kind: type[BaseException], value: BaseException, trace: Any) -> None:
        with contextlib.suppress(OSError):
            path.write_text("".join(traceback.format_exception(kind, value, trace)), encoding="utf-8")

    sys.excepthook = write_log


def main() -> None:
    read_fd, write_fd, parent = (int(value) for value in sys.argv[1:4])
    log_own_failures(Path(sys.argv[4]))
    os.dup2(2, 1)  # what plugins print goes to stderr; results travel on the pipe only
    sys.stdout = sys.stderr
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    processes.keep_the_callers_priority()
    processes.become_subreaper()
    watchdog = die_with_parent(parent)
    reader, writer = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    # Imported before "ready", so that no task's clock pays for them: the calls and the contract (above),
    # and numpy, which the built-ins and most plugins use.
    import numpy  # noqa: F401

    try:
        send(writer, Ready())
        serve(reader, writer, watchdog)
        watchdog.end()
    except (BrokenPipeError, ConnectionResetError):
        # The service is gone (its command ended or was killed): no one to answer, nothing to log, and
        # no one else to end what the plugin started or to remove the temp folder.
        processes.kill_descendants(os.getpid())
        processes.remove_scratch(os.environ.get(processes.SCRATCH_VARIABLE))


if __name__ == "__main__":
    main()
