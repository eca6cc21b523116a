"""Execution layer, worker side: what one run cost, measured in the process that makes the call.

Wall seconds alone hide what matters when solvers are compared (issue 55): a solver with several
threads or child processes looks faster on the wall while using several cores, and memory is the
other half of "which solver for this instance". BenchExec (Beyer, Löwe, Wendler, "Reliable
benchmarking: requirements and solutions", 2019) measures a run's whole process tree with a cgroup;
this module measures the same four figures from inside the worker, around the solver's call only
(never the worker's preparation nor the certificate check, which have figures of their own), with
what every Linux offers: ``getrusage``, ``/proc`` and the kernel's peak-RSS reset. A ``RunMeter``
is started just before the call and stopped just after it (or ``measured()`` around it):

- **CPU seconds** (user + system) of the worker process, every thread of it (``RUSAGE_SELF``
  covers all threads), minus the meter's own sampling thread (its ``thread_time``); plus every
  child the worker reaped meanwhile (the ``RUSAGE_CHILDREN`` delta, which holds what those children
  reaped in turn, grandchildren included); plus every descendant still alive, or a zombie not yet
  reaped, when the meter stops (``/proc/PID/stat``: its utime, stime, cutime and cstime), less what a
  descendant alive at the start had already used. A descendant that left the tree (its parent
  gone, adopted by init because the worker is no subreaper) and was reaped elsewhere is lost:
  only a cgroup keeps it (``processes.py`` makes the worker a subreaper so that this does not
  happen there).
- **Peak memory** of the run, not of the worker's life: the kernel's peak RSS of this process
  (``VmHWM``) is reset at the start (``5`` written to ``/proc/self/clear_refs``, Linux 4.0 and
  later) and read at the end; each descendant's own ``VmHWM`` is sampled while it lives (a child
  started by the run has a peak of the run alone). The figure is the worker's peak plus each
  descendant's: an upper bound on the tree's peak at one moment, which a cgroup measures (a
  forked child counts the pages it still shares with the worker; a cgroup counts each page
  once, and the page cache too). A descendant that lived less than a sampling period is missed.
  The children's ``ru_maxrss`` is of no use here: a lifetime maximum over every child the worker
  ever reaped, never reset, and on Linux a child that execs keeps the peak of the image it left,
  the worker's own pages. Where the reset is refused, the worker's own ``ru_maxrss`` is used when
  it grew during the run (the run then set it); otherwise the figure is unknown.
- **Threads and processes** at most, sampled every ``SAMPLE_SECONDS`` by a thread of the meter
  (not counted) from ``/proc/self/status`` and each descendant's: a thread or process that lived
  less than a sampling period between two samples can be missed.

Where the machine allows it (cgroups v1, writable: Linux, as root or with a delegated hierarchy),
a process can enter a cgroup of its own (``CgroupV1.enter``, once, early) and hand it to the meter:
the CPU seconds are then the kernel's count for every task in the group (``cpuacct.usage``), a
process that left the tree included, and the peak memory the group's peak charge, reset per run
(``memory.max_usage_in_bytes``), as BenchExec measures; the threads and processes are still sampled
(``pids.peak`` cannot be reset in v1).

A figure that cannot be measured here is None, never 0; each figure says how it was measured
(``RunMeasure.cpu_method`` ...), so a reader can tell a cgroup's figure from a sampled one.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
import time
from collections.abc import Collection, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

try:
    import resource
except ImportError:  # pragma: no cover - Windows: no getrusage, CPU seconds unknown
    resource = None  # type: ignore[assignment]

PROC = Path("/proc")  # a module attribute, so a test can take /proc away
SAMPLE_SECONDS = 0.05  # the sampler's period: ~20 reads of /proc a second, well under 1 % of a core
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
# ru_maxrss is kibibytes on Linux, bytes on macOS.
MAXRSS_UNIT = 1 if sys.platform == "darwin" else 1024
STATUS_FIELD = re.compile(r"^(\w+):\s+(\d+)", re.MULTILINE)


@dataclass(frozen=True)
class RunMeasure:
    """What one run cost: CPU seconds (user + system, the run's process tree), peak memory in bytes, and
    the most threads and processes it had at once. None is unknown, never zero; each ``*_method`` says how
    its figure was measured (``METHODS``: "rusage+proc", "proc-hwm", "proc-sampled", "cgroup-v1", ...), None with it."""

    cpu_seconds: float | None
    peak_memory_bytes: int | None
    max_threads: int | None
    max_processes: int | None
    cpu_method: str | None = None
    memory_method: str | None = None
    threads_method: str | None = None
    processes_method: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain data for a frame or a record (every field, None as null)."""
        return asdict(self)


UNKNOWN = RunMeasure(None, None, None, None)
# Every word a ``*_method`` may be: the parent refuses any other (``wire._measure``).
METHODS = frozenset({"rusage", "rusage+proc", "proc-hwm", "rusage-maxrss", "proc-sampled", "cgroup-v1"})


def status_fields(pid: int | str) -> dict[str, int]:
    """The numeric fields of ``/proc/PID/status`` (``VmHWM`` in kB, ``Threads``); empty when it cannot be read."""
    try:
        text = (PROC / str(pid) / "status").read_text(encoding="ascii", errors="replace")
    except OSError:
        return {}
    return {name: int(value) for name, value in STATUS_FIELD.findall(text)}


def stat_of(pid: int) -> tuple[int, float] | None:
    """A process's start time (ticks since boot: with the pid, who it is, pids being reused) and its CPU
    seconds with those of the children it reaped (utime + stime + cutime + cstime); None when gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()  # the name may hold spaces and parentheses
    try:
        ticks = sum(int(fields[index]) for index in (11, 12, 13, 14))  # utime stime cutime cstime (14-17)
        return int(fields[19]), ticks / CLOCK_TICKS  # starttime (field 22)
    except (IndexError, ValueError):
        return None


def children_of(pid: int) -> list[int]:
    """The live children of ``pid``, from every thread's ``children`` file (a thread's children are its own)."""
    found: list[int] = []
    try:
        threads = list((PROC / str(pid) / "task").iterdir())
    except OSError:
        return found
    for thread in threads:
        with contextlib.suppress(OSError, ValueError):
            found.extend(int(child) for child in (thread / "children").read_text().split())
    return found


def descendants_of(pid: int, spare: Collection[int]) -> list[int]:
    """Every live process below ``pid`` but ``spare`` and what is below them (a worker's watchdog is not the run's)."""
    found: list[int] = []
    frontier = [child for child in children_of(pid) if child not in spare]
    while frontier:
        found.extend(frontier)
        frontier = [grandchild for child in frontier for grandchild in children_of(child) if grandchild not in spare]
    return found


def reset_peak() -> bool:
    """Reset this process's peak RSS (``VmHWM``) to its current RSS; False where the kernel does not let us."""
    try:
        (PROC / "self" / "clear_refs").write_text("5", encoding="ascii")
    except OSError:
        return False
    return True


@dataclass
class Descendant:
    """What the sampler saw of one descendant process: CPU seconds when first and last seen, its peak."""

    first_cpu: float
    last_cpu: float
    peak_kb: int = 0
    alive: bool = True


@dataclass
class Samples:
    """The sampler's findings so far (written by its thread, read after it is joined)."""

    threads: int = 0
    processes: int = 0
    seen: dict[tuple[int, int], Descendant] = field(default_factory=dict)
    readable: bool = True  # /proc/self/status could be read


def rusage_pair() -> tuple[Any, Any] | None:
    if resource is None:
        return None
    return resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)


def cpu_of(usage: Any) -> float:
    return float(usage.ru_utime + usage.ru_stime)


CGROUP_MOUNTS = Path("/proc/mounts")
CONTROLLERS = ("cpuacct", "memory")  # what the cgroup backend reads: CPU nanoseconds, the peak charge


class CgroupV1:
    """A cgroup of its own for this process, in the v1 ``cpuacct`` and ``memory`` hierarchies, below the
    cgroups it was in (so that every limit above still holds), as BenchExec's ``runexec`` makes one per run.

    Entered once, early (a worker: after starting its watchdog, before any plugin code), every process
    this one starts from then on is in it too, even one that leaves the process tree: the kernel counts
    the CPU nanoseconds of all of them (``cpuacct.usage``) and the peak of the memory charged to the group
    (``memory.max_usage_in_bytes``, reset per run). A cgroup is charged for a page by whoever touched it
    first: a library already in the page cache costs the group nothing, a file the run reads costs it its
    pages. Memory charged before the process entered stays with its old cgroup (this kernel no longer
    moves charges), hence entering early. ``enter`` is None where the machine does not allow it (no
    cgroups v1, not writable, not Linux); the meter then measures with ``getrusage`` and ``/proc``.
    """

    def __init__(self, folders: dict[str, Path], parents: dict[str, Path]) -> None:
        self.folders = folders
        self.parents = parents

    @classmethod
    def enter(cls, name: str | None = None) -> CgroupV1 | None:
        """Make the cgroup and move this process into it; None (nothing left behind) where not allowed."""
        parents = own_cgroups()
        if parents is None:
            return None
        label = name or f"nqueens-{os.getpid()}"
        folders: dict[str, Path] = {}
        try:
            for controller, parent in parents.items():
                folder = parent / label
                folder.mkdir()
                folders[controller] = folder
                (folder / "cgroup.procs").write_text(str(os.getpid()), encoding="ascii")
            group = cls(folders, parents)
            if group.cpu_nanoseconds() is None or not group.reset_peak():
                raise OSError("the cgroup's figures cannot be read")
        except OSError:
            cls(folders, parents).leave()
            return None
        return group

    def leave(self) -> None:
        """Move every process still in the cgroup (this one too) back where this one came from, and remove it."""
        for controller, folder in self.folders.items():
            with contextlib.suppress(OSError, ValueError):
                for pid in (folder / "cgroup.procs").read_text(encoding="ascii").split():
                    with contextlib.suppress(OSError):
                        (self.parents[controller] / "cgroup.procs").write_text(pid, encoding="ascii")
            with contextlib.suppress(OSError):
                folder.rmdir()

    def cpu_nanoseconds(self) -> int | None:
        """CPU nanoseconds of every task that was ever in the cgroup (``cpuacct.usage``)."""
        try:
            return int((self.folders["cpuacct"] / "cpuacct.usage").read_text(encoding="ascii"))
        except (OSError, ValueError, KeyError):
            return None

    def reset_peak(self) -> bool:
        """The memory peak brought down to what the group holds now (any write to the file does it)."""
        try:
            (self.folders["memory"] / "memory.max_usage_in_bytes").write_text("0", encoding="ascii")
        except (OSError, KeyError):
            return False
        return True

    def peak_memory(self) -> int | None:
        try:
            return int((self.folders["memory"] / "memory.max_usage_in_bytes").read_text(encoding="ascii"))
        except (OSError, ValueError, KeyError):
            return None


def own_cgroups() -> dict[str, Path] | None:
    """The folders of this process's own v1 cgroups of ``CONTROLLERS``; None where any is missing."""
    try:
        mounts = CGROUP_MOUNTS.read_text(encoding="ascii", errors="replace")
        memberships = (PROC / "self" / "cgroup").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    mounted: dict[str, Path] = {}
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) > 3 and fields[2] == "cgroup":
            for option in fields[3].split(","):
                mounted.setdefault(option, Path(fields[1]))
    own: dict[str, Path] = {}
    for line in memberships.splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(","):
                if controller in CONTROLLERS and controller in mounted:
                    own[controller] = mounted[controller] / parts[2].lstrip("/")
    return own if len(own) == len(CONTROLLERS) and all(folder.is_dir() for folder in own.values()) else None


class RunMeter:
    """Measures one run of this process's tree, from ``start()`` to ``stop()`` (``RunMeasure``).

    ``spare`` names processes below this one that are not the run's (a worker's watchdog, its checker):
    neither they nor what is below them are counted. One meter measures one run; make one per run.
    """

    def __init__(
        self, spare: Collection[int] = (), interval: float = SAMPLE_SECONDS, cgroup: CgroupV1 | None = None
    ) -> None:
        self.cgroup = cgroup
        self.cgroup_before: int | None = None
        self.cgroup_after: int | None = None
        self.spare = frozenset(spare)
        self.interval = interval
        self.samples = Samples()
        self.halt = threading.Event()
        self.sampler: threading.Thread | None = None
        self.sampler_cpu = 0.0
        self.usage_before: tuple[Any, Any] | None = None
        self.reset = False
        self.pid = os.getpid()
        self.proc = (PROC / "self" / "status").exists()

    def start(self) -> None:
        """Reset the peak, note the CPU used so far, and start sampling (the last thing before the call)."""
        if self.proc:
            self.reset = reset_peak()
            self.sample(first=True)
            sampler = threading.Thread(target=self.keep_sampling, name="nqueens-run-meter", daemon=True)
            try:  # a thread's stack is data: under a tight RLIMIT_DATA (--memory) there may be no room for it
                sampler.start()
                self.sampler = sampler
            except RuntimeError:
                self.samples.readable = False  # threads and processes unknown; the rest is read at the stop
        if self.cgroup is not None and self.cgroup.reset_peak():
            self.cgroup_before = self.cgroup.cpu_nanoseconds()
        self.usage_before = rusage_pair()

    def stop(self) -> RunMeasure:
        """Stop sampling and say what the run cost (the first thing after the call)."""
        if self.sampler is not None:
            self.halt.set()
            self.sampler.join()  # its CPU seconds are known once it ended
        usage_after = rusage_pair()
        if self.cgroup is not None and self.cgroup_before is not None:
            self.cgroup_after = self.cgroup.cpu_nanoseconds()  # at the same moment as getrusage's
        if self.proc:
            self.sample(first=False)  # descendants still alive, and their CPU seconds so far
        return self.measure(usage_after)

    def measure(self, usage_after: tuple[Any, Any] | None) -> RunMeasure:
        """The four figures from what was noted at the start and the end, and what the sampler saw between."""
        cpu, cpu_method = self.cpu(usage_after)
        peak, memory_method = self.memory(usage_after)
        threads, processes = (
            (self.samples.threads, self.samples.processes) if self.proc and self.samples.readable else (None, None)
        )
        sampled = "proc-sampled" if threads is not None else None
        return RunMeasure(cpu, peak, threads, processes, cpu_method, memory_method, sampled, sampled)

    def cpu(self, usage_after: tuple[Any, Any] | None) -> tuple[float | None, str | None]:
        if self.cgroup_before is not None and self.cgroup_after is not None:
            # Every task in the group, the meter's own thread too (taken out).
            return max((self.cgroup_after - self.cgroup_before) / 1e9 - self.sampler_cpu, 0.0), "cgroup-v1"
        if self.usage_before is None or usage_after is None:
            return None, None
        (self_before, children_before), (self_after, children_after) = self.usage_before, usage_after
        seconds = cpu_of(self_after) - cpu_of(self_before) - self.sampler_cpu
        seconds += cpu_of(children_after) - cpu_of(children_before)
        if not self.proc:
            return max(seconds, 0.0), "rusage"  # children not yet reaped are not counted: no /proc to read them
        for seen in self.samples.seen.values():
            if seen.alive:  # not reaped yet: not in RUSAGE_CHILDREN; what it used before the start is not the run's
                seconds += seen.last_cpu - seen.first_cpu
        return max(seconds, 0.0), "rusage+proc"

    def memory(self, usage_after: tuple[Any, Any] | None) -> tuple[int | None, str | None]:
        if self.cgroup is not None and self.cgroup_before is not None:
            peak = self.cgroup.peak_memory()
            if peak is not None:
                return peak, "cgroup-v1"
        own: int | None = None
        method = None
        if self.reset:
            hwm = status_fields("self").get("VmHWM")
            if hwm is not None:
                own, method = hwm * 1024, "proc-hwm"
        if own is None and self.usage_before is not None and usage_after is not None:
            before, after = self.usage_before[0].ru_maxrss, usage_after[0].ru_maxrss
            if after > before:  # the run raised the lifetime peak: the run's peak is that peak
                own, method = after * MAXRSS_UNIT, "rusage-maxrss"
        if own is None:
            return None, None
        below = sum(seen.peak_kb for seen in self.samples.seen.values()) * 1024
        return own + below, method

    def keep_sampling(self) -> None:
        while not self.halt.wait(self.interval):
            self.sample(first=False)
        self.sampler_cpu = time.thread_time()  # this thread's CPU seconds are the meter's, not the run's

    def sample(self, *, first: bool) -> None:
        """One look at the tree: its threads and processes now, each descendant's CPU seconds and peak."""
        own = status_fields("self")
        if "Threads" not in own:
            self.samples.readable = False
            self.proc = False  # /proc went away: what it showed of the children is not counted either
            return
        # The meter's own thread is not the run's: counted while the kernel lists it (a joined thread may
        # linger there a moment after Python's join returned).
        sampler = self.sampler.native_id if self.sampler is not None else None
        threads = own["Threads"] - (
            1 if sampler is not None and (PROC / "self" / "task" / str(sampler)).exists() else 0
        )
        present: set[tuple[int, int]] = set()
        below = descendants_of(self.pid, self.spare)
        for pid in below:
            stat = stat_of(pid)
            if stat is None:
                continue
            key = (pid, stat[0])
            present.add(key)
            fields = status_fields(pid)
            threads += fields.get("Threads", 1)
            seen = self.samples.seen.get(key)
            if seen is None:
                # Alive at the start: only what it uses from now on is the run's. Started since: all of it.
                seen = self.samples.seen[key] = Descendant(stat[1] if first else 0.0, stat[1])
            seen.last_cpu = stat[1]
            # The last reading, not the largest: VmHWM only grows within one program image, and a child caught
            # between fork and exec shows the worker's pages it shares (an exec starts a new image, a new peak).
            seen.peak_kb = fields.get("VmHWM", seen.peak_kb)
        for key, seen in self.samples.seen.items():
            seen.alive = key in present
        self.samples.threads = max(self.samples.threads, threads)
        self.samples.processes = max(self.samples.processes, 1 + len(present))


@contextlib.contextmanager
def measured(spare: Collection[int] = (), cgroup: CgroupV1 | None = None) -> Iterator[list[RunMeasure]]:
    """``with measured() as found: call()``, then ``found[0]`` is the call's ``RunMeasure`` (the list is empty
    inside the block: the figures exist only once the call is over). Measured even when the call raises."""
    meter = RunMeter(spare, cgroup=cgroup)
    found: list[RunMeasure] = []
    meter.start()
    try:
        yield found
    finally:
        found.append(meter.stop())
