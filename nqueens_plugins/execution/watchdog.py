"""Execution layer, worker side: a worker leaves, with everything a plugin started, once its service is gone.

The service kills its workers when it ends or is told to stop; after ``kill -9``
of the service nobody is left to do so, and the worker must notice by itself.
Two things watch (``die_with_parent``):

* a thread in the worker, which polls its parent's pid;
* a *watchdog* process forked from the worker before any thread starts
  (``start_watchdog``), which waits on pidfds (Linux 5.3) for the service or the
  worker to end. The thread alone starves while a plugin's native code holds the
  GIL (pychoco does for a whole solve), and the worker would then outlive the
  killed command until the plugin's own time limit; the watchdog does not need
  the worker's GIL.

Where pidfds are missing (not Linux, or an old kernel), only the thread watches.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import threading
import time

from nqueens_plugins.execution import processes

ORPHAN_CHECK_SECONDS = 0.2


def leave_with_everything(watchdog: int | None = None) -> None:
    """SIGKILL this worker's whole process group and every descendant (a plugin's
    process may have left the group): itself and anything a plugin started.

    The ``watchdog`` is spared until the group goes: it may be sweeping at the same
    moment, and one killed between its SIGSTOP of this worker and its SIGKILL would
    leave the worker stopped for good (a CI run once found such a worker left over).
    """
    try:
        processes.kill_descendants(os.getpid(), spare=watchdog)
        processes.remove_scratch(os.environ.get(processes.SCRATCH_VARIABLE))  # nothing writes there now
        os.killpg(os.getpgrp(), signal.SIGKILL)
    finally:
        os._exit(1)


def die_with_parent(parent: int) -> Watchdog:
    """Leave, with the whole process group, as soon as the parent is gone (even after
    kill -9) or when told to terminate. Returns the watchdog."""
    me = os.getpid()
    watchdog = Watchdog(start_watchdog(parent))

    def on_terminate(*_: object) -> None:
        if os.getpid() == me:  # the worker: take the group with it
            leave_with_everything(watchdog.running())
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a process a plugin forked: just end
        os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, on_terminate)

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                leave_with_everything(watchdog.running())
            time.sleep(ORPHAN_CHECK_SECONDS)

    if os.getppid() != parent:
        leave_with_everything(watchdog.running())
    threading.Thread(target=watch, name="orphan-watch", daemon=True).start()
    return watchdog


def start_watchdog(parent: int) -> int | None:
    """Fork the watchdog: it waits for ``parent`` (the service) or this worker to end; if the
    parent ends first, it stops the worker (so nothing new starts below it), kills everything
    below it, the worker and its group, and removes its temp folder. None where it cannot
    run (no pidfds, or no fork: the process limit reached); the thread still watches."""
    worker = os.getpid()
    try:
        parent_fd = os.pidfd_open(parent)
    except (AttributeError, OSError):
        return None
    try:
        worker_fd = os.pidfd_open(worker)
        child = os.fork()
    except OSError:
        os.close(parent_fd)
        with contextlib.suppress(NameError, OSError):
            os.close(worker_fd)
        return None
    if child:
        os.close(parent_fd)
        os.close(worker_fd)
        return child
    try:  # the watchdog: holds no pipe of the worker's, so the service sees the worker's end as before
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        low, high = sorted((parent_fd, worker_fd))
        os.closerange(3, low)
        os.closerange(low + 1, high)
        os.closerange(high + 1, os.sysconf("SC_OPEN_MAX"))
        ended, _, _ = select.select([parent_fd, worker_fd], [], [])
        if parent_fd in ended and worker_fd not in ended:
            with contextlib.suppress(OSError):
                os.kill(worker, signal.SIGSTOP)  # it forks nothing more while its tree is listed
            processes.kill_descendants(worker, spare=os.getpid())
            processes.remove_scratch(os.environ.get(processes.SCRATCH_VARIABLE))
            with contextlib.suppress(OSError):
                os.kill(worker, signal.SIGKILL)
            os.killpg(os.getpgrp(), signal.SIGKILL)  # the worker's group, this watchdog last
    finally:
        os._exit(0)


class Watchdog:
    """The worker's handle on its watchdog process (``pid`` None when there is none)."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid

    def running(self) -> int | None:
        """Its pid while it runs, else None. Reaps it if it ended (a plugin may have killed it), so
        that its pid, free for reuse, is never spared in a later kill of a plugin's processes."""
        if self.pid is not None:
            try:
                ended, _ = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                ended = self.pid  # reaped already
            if ended == self.pid:
                self.pid = None
        return self.pid

    def end(self) -> None:
        """End it before the worker ends on its own, so that nothing of the worker is left once
        it is gone (a caller waiting for the worker's end sees no straggler)."""
        pid = self.running()
        if pid is not None:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            self.pid = None
