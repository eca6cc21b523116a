"""Execution layer, both sides: finding and ending every process a plugin started, even one that left our group.

Killing a worker's process group ends what a plugin started in that group. A
plugin can leave it (``setsid``, ``start_new_session=True``), so the worker also
makes itself a *child subreaper* (Linux ``prctl``): a process a plugin started
stays its descendant even after its own parent exits, and the worker (or the
service, before it kills a worker) can list and kill that tree through
``/proc/PID/task/*/children``. Where that file or ``prctl`` is missing (not
Linux), only the process group is ended.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Collection
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
AUTOGROUP = Path("/proc/self/autogroup")
AUTOGROUP_TRIES_SECONDS = 2.0


def child_environment() -> dict[str, str]:
    """This process's environment for a Python child that must import plugins from where this
    process found them (a test's temporary site folder, a benchmark's sys.path insert included)."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return environment


# What the loading layer hands down for every worker to inherit, computed when a worker starts: the import
# probes' refusals (``loading.discovery``), so a worker never imports a plugin whose import crashed a probe.
# Execution finds no plugins itself; it only passes this on.
_inherited: dict[str, Callable[[], str]] = {}


def inherit(variable: str, value: Callable[[], str]) -> None:
    """Every worker started from now on gets ``variable`` set to ``value()`` in its environment."""
    _inherited[variable] = value


def worker_environment() -> dict[str, str]:
    """``child_environment`` and what the loading layer handed down for workers (``inherit``)."""
    environment = child_environment()
    for variable, value in _inherited.items():
        environment[variable] = value()
    return environment


SCRATCH_VARIABLE = "NQUEENS_WORKER_SCRATCH"  # the worker's own temp folder, which its end removes


def scratch_folder() -> Path:
    """A new temp folder for one worker: its ``TMPDIR``, so what a plugin or the program it runs leaves
    in the temp folder (MiniZinc's FlatZinc files) goes where the worker's end removes it. Named after
    the service's process, so that folders whose service is gone without removing them (a Dask worker
    process shut down from outside) are removed here, by the next service that makes one."""
    remove_stale_scratch()
    return Path(tempfile.mkdtemp(prefix=f"nqueens-worker-{os.getpid()}-"))


def remove_scratch(folder: Path | str | None) -> None:
    """Remove a worker's temp folder, if it is one (named as ``scratch_folder`` names them)."""
    if folder and Path(folder).name.startswith("nqueens-worker-"):
        shutil.rmtree(folder, ignore_errors=True)


def remove_stale_scratch() -> None:
    """Remove the workers' temp folders whose service process no longer runs (its workers ended with it)."""
    for folder in Path(tempfile.gettempdir()).glob("nqueens-worker-*-*"):
        service = folder.name.split("-")[2]
        if folder.is_dir() and service.isdigit() and not Path(f"/proc/{service}").exists():
            remove_scratch(folder)


def how_it_ended(code: int | None) -> str:
    """A child's return code in words: ``SIGSEGV`` for -11, ``status 3`` for 3."""
    if code is not None and code < 0:
        try:
            return signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"
    return f"status {code}"


def kill_tree(pid: int) -> None:
    """SIGKILL ``pid``'s descendants (even those that left its group), then its process group."""
    kill_descendants(pid)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def become_subreaper() -> bool:
    """Adopt this process's orphaned descendants (Linux); False where not possible."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        threads = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return found
    for thread in threads:
        try:
            found.extend(int(child) for child in (thread / "children").read_text().split())
        except (OSError, ValueError):
            continue
    return found


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (children first), as far as /proc shows them."""
    found: list[int] = []
    frontier = children(pid)
    while frontier:
        found.extend(frontier)
        frontier = [grandchild for child in frontier for grandchild in children(child)]
    return found


def kill_descendants(pid: int, spare: int | Collection[int] | None = None) -> int:
    """SIGKILL everything below ``pid`` but ``spare`` (a worker's watchdog, its checker); how many were found."""
    spared = {spare} if isinstance(spare, int) else set(spare or ())
    below = [process for process in descendants(pid) if process not in spared]
    for process in below:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(process, signal.SIGKILL)
    return len(below)


def keep_the_callers_priority() -> None:
    """Carry this process's nice value over to its autogroup (Linux).

    A worker is a session of its own, so that the service can kill its group;
    where the kernel schedules each session as one group (autogroup, the default
    on desktop and many server kernels), a group's weight ignores the nice values
    inside it, so ``nice nqueens count ...`` would not lower the workers at all.
    The kernel takes one such change every 0.1 s from an unprivileged user
    (EAGAIN otherwise): workers that start together take turns."""
    niceness = os.nice(0)
    if niceness <= 0 or not AUTOGROUP.exists():
        return
    deadline = time.monotonic() + AUTOGROUP_TRIES_SECONDS
    while True:
        try:
            AUTOGROUP.write_text(str(niceness), encoding="ascii")
            return
        except OSError as error:
            if error.errno != errno.EAGAIN or time.monotonic() > deadline:
                return  # not allowed here: the workers run at the group's weight, as before
            time.sleep(0.11)


def reap_children() -> None:
    """Collect the exit status of any ended child (a subreaper inherits zombies)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
