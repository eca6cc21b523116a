"""Execution layer, worker side: the worker program (``python -m nqueens_plugins.execution.worker``).

Usage: ``python -m nqueens_plugins.execution.worker READ_FD WRITE_FD PARENT_PID``.

Every call into plugin code runs here, in a process of its own that the
execution service (``service.py``) starts, feeds tasks over a pipe, times out
and kills from outside. A program of its own (not a multiprocessing child) so
that it never re-imports the caller's ``__main__`` script, and so that a Dask
worker can start the very same program.

It says ``("ready",)`` once started and imported (no task's clock runs before
that), then for each task:

1. the first time it meets a solver, a *warm-up*: the solver's untimed
   ``warm_up`` (by default a 4x4 solve), so the plugin's imports and compiled
   kernels are loaded before any clock starts;
2. after a warm-up it sends ``("started",)``, from which the service's time
   limit runs (a warm worker starts at once; the limit runs from submission);
3. it calls the solver (``calls.perform``), which times the call alone, and
   sends the result back, unverified (the parent verifies, ``judge.py``).

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
import threading
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection

from nqueens_plugins.execution import processes
from nqueens_plugins.execution.calls import describe, perform
from nqueens_plugins.execution.tasks import Executed, Task

ORPHAN_CHECK_SECONDS = 0.2


def leave_with_everything() -> None:
    """SIGKILL this worker's whole process group and every descendant (a plugin's
    process may have left the group): itself and anything a plugin started."""
    try:
        processes.kill_descendants(os.getpid())
        os.killpg(os.getpgrp(), signal.SIGKILL)
    finally:
        os._exit(1)


def die_with_parent(parent: int) -> None:
    """Leave, with the whole process group, as soon as the parent is gone (even after
    kill -9; a watching thread) or when told to terminate."""
    me = os.getpid()

    def on_terminate(*_: object) -> None:
        if os.getpid() == me:  # the worker: take the group with it
            leave_with_everything()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a process a plugin forked: just end
        os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, on_terminate)

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                leave_with_everything()
            time.sleep(ORPHAN_CHECK_SECONDS)

    if os.getppid() != parent:
        leave_with_everything()
    threading.Thread(target=watch, name="orphan-watch", daemon=True).start()


def warm_up(task: Task, warmed: set[str]) -> bool:
    """The solver's untimed ``warm_up`` the first time a solver is met (imports, JIT);
    True if it ran (the parent is then told when the timed call starts)."""
    name = task.variant.name
    if name in warmed:
        return False
    warmed.add(name)
    with contextlib.suppress(BaseException):  # a failing warm-up is the timed call's to report
        task.variant.solver.warm_up(dict(task.variant.options))
    return True


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


def receive(reader: Connection) -> tuple[Task | None, Executed | None]:
    """The next task (None: the service is done with this worker), or, when it cannot be
    rebuilt here, the failure to send back in its place. Rebuilding a task imports the
    solver's plugin and unpickles the solver: plugin code, which may fail in any way."""
    message = reader.recv_bytes()
    try:
        task = pickle.loads(message)
    except BaseException as exc:  # noqa: BLE001 - an unpickling solver may raise anything
        where = "importing the solver's plugin" if isinstance(exc, ImportError) else "rebuilding the solver"
        return None, Executed(None, 0.0, f"{where} in the worker failed: {describe(exc)}")
    return task, None


def serve(reader: Connection, writer: Connection) -> None:
    warmed: set[str] = set()
    while True:
        try:
            task, failed = receive(reader)
        except (EOFError, OSError):
            return
        if failed is not None:
            writer.send(("done", failed))
            continue
        if task is None:
            return
        with memory_limit(task.memory):  # the warm-up is plugin code too
            if warm_up(task, warmed):
                writer.send(("started",))
            outcome = perform(task)
        if task.memory is not None and outcome.error and outcome.error.startswith("MemoryError"):
            outcome.error += f" (over its --memory limit of {format_bytes(task.memory)})"
        if processes.children(os.getpid()):  # a plugin's processes do not outlive its call
            processes.kill_descendants(os.getpid())
            processes.reap_children()
        try:
            writer.send(("done", outcome))
        except Exception as exc:  # noqa: BLE001 - e.g. a result that cannot be pickled
            writer.send(("done", outcome.unsendable(f"sending the answer back failed: {describe(exc)}")))


def main() -> None:
    read_fd, write_fd, parent = (int(value) for value in sys.argv[1:4])
    os.dup2(2, 1)  # what plugins print goes to stderr; results travel on the pipe only
    sys.stdout = sys.stderr
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    processes.become_subreaper()
    die_with_parent(parent)
    reader, writer = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    # Imported before "ready", so that no task's clock pays for them: the calls and the contract (above),
    # and numpy, which the built-ins and most plugins use.
    import numpy  # noqa: F401

    writer.send(("ready",))
    serve(reader, writer)


if __name__ == "__main__":
    main()
