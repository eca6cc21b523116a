"""What one run cost (``execution/measuring.py``): CPU seconds of the run's threads and children, the run's own
peak memory (not the process's lifetime peak), threads and processes at most, and None where unmeasurable.

No figure is compared with a constant: each run's yardstick is measured by the work itself (a thread's own
``thread_time``, a child's own ``process_time``, the bytes allocated), and CPU seconds hardly depend on the
machine's load (a busy machine stretches the wall clock, not the CPU seconds a loop needs).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from nqueens_plugins.execution import measuring, processes
from nqueens_plugins.execution.measuring import RunMeasure, RunMeter, measured

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="measured with /proc (Linux)")

BURN = 0.5  # CPU seconds each thread or child burns: enough to dwarf the meter's own cost, quick to run
MIB = 2**20
BUFFER = b"x" * (8 * MIB)  # hashed in pieces: hashlib releases the GIL on buffers this large, so threads run at once
CHILD_BURN = (
    "import sys, time\n"
    "end = time.process_time() + float(sys.argv[1])\n"
    "while time.process_time() < end:\n"
    "    pass\n"
    "print(time.process_time(), flush=True)\n"
    "if len(sys.argv) > 2:\n"
    "    time.sleep(float(sys.argv[2]))\n"
)
PATIENCE = 60.0  # seconds a test waits for what must happen (the sampler's look): only a failure waits that long


def spin(burnt: list[float]) -> None:
    """Burn BURN CPU seconds in this thread, by its own clock, and say how many it burnt."""
    end = time.thread_time() + BURN
    while time.thread_time() < end:
        hashlib.sha256(BUFFER).digest()
    burnt.append(time.thread_time())


def near(measured: float | None, yardstick: float) -> bool:
    """Within a tenth of the yardstick: the meter's overhead and a child's start are a small part of it."""
    return measured is not None and abs(measured - yardstick) <= 0.1 * yardstick


def test_two_threads_spinning_report_their_cpu_seconds_together() -> None:
    burnt: list[float] = []
    with measured() as found:
        threads = [threading.Thread(target=spin, args=(burnt,)) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    (run,) = found
    assert len(burnt) == 2
    assert near(run.cpu_seconds, sum(burnt)), (run, burnt)
    assert run.cpu_method == "rusage+proc"


def test_a_child_reaped_during_the_run_is_counted() -> None:
    with measured() as found:
        done = subprocess.run([sys.executable, "-c", CHILD_BURN, str(BURN)], capture_output=True, text=True, check=True)
    child_cpu = float(done.stdout)
    assert near(found[0].cpu_seconds, child_cpu), (found[0], child_cpu)
    assert found[0].max_processes is not None and found[0].max_processes >= 1


def others_here(child: int) -> set[int]:
    """This process's other children (the worker processes an earlier test in this pytest process left idle, as
    the service keeps them): not the run's. A worker has none of them; only its watchdog, which it spares."""
    return set(processes.children(os.getpid())) - {child}


def test_a_child_still_alive_at_the_end_is_counted_from_proc() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD_BURN, str(BURN), str(PATIENCE)], stdout=subprocess.PIPE, text=True
    )
    try:
        meter = RunMeter(spare=others_here(child.pid))
        meter.start()  # the child started just before: its start-up is not the run's, only what it burns after
        assert child.stdout is not None
        child_cpu = float(child.stdout.readline())  # burnt, now asleep
        run = meter.stop()
    finally:
        child.kill()
        child.wait()
    assert run.cpu_seconds is not None and run.cpu_seconds <= child_cpu * 1.1, (run, child_cpu)
    assert run.cpu_seconds >= BURN * 0.5, (run, child_cpu)  # most of the burn came after the meter's start
    assert run.max_processes == 2


def test_a_spared_process_is_not_the_runs() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD_BURN, str(BURN), str(PATIENCE)], stdout=subprocess.PIPE, text=True
    )
    try:
        with measured(spare={child.pid} | others_here(child.pid)) as found:
            assert child.stdout is not None
            child.stdout.readline()
    finally:
        child.kill()
        child.wait()
    assert found[0].max_processes == 1
    assert found[0].cpu_seconds is not None and found[0].cpu_seconds < BURN / 2, found[0]


def allocate_and_free(size: int) -> None:
    block = bytearray(size)
    block[::4096] = b"\x01" * len(range(0, size, 4096))  # every page touched: resident, not just reserved
    del block


def test_peak_memory_is_the_runs_own_and_the_next_run_does_not_inherit_it() -> None:
    size = 300 * MIB
    with measured() as big:
        allocate_and_free(size)
    with measured() as small:
        pass
    assert big[0].peak_memory_bytes is not None and big[0].peak_memory_bytes >= size, big[0]
    assert small[0].peak_memory_bytes is not None, small[0]
    assert small[0].peak_memory_bytes < big[0].peak_memory_bytes - size * 0.9, (big[0], small[0])
    assert big[0].memory_method == "proc-hwm"


COUNTING = """
import subprocess, sys, threading, time
from nqueens_plugins.execution import measuring
base = measuring.status_fields("self")["Threads"]
release = threading.Event()
meter = measuring.RunMeter()
meter.start()
threads = [threading.Thread(target=release.wait) for _ in range(3)]
for thread in threads:
    thread.start()
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
deadline = time.monotonic() + float(sys.argv[1])
while time.monotonic() < deadline and not (meter.samples.processes >= 2 and meter.samples.threads >= base + 4):
    time.sleep(measuring.SAMPLE_SECONDS)  # until the sampler has seen them all
release.set()
for thread in threads:
    thread.join()
child.kill()
child.wait()
run = meter.stop()
print(base, run.max_threads, run.max_processes, run.threads_method)
"""


def test_threads_and_processes_at_most_are_sampled_and_the_meters_own_thread_is_not_counted() -> None:
    # In a fresh process: this one may hold threads of earlier tests, which may end at any moment.
    done = subprocess.run(
        [sys.executable, "-c", COUNTING, str(PATIENCE)],
        capture_output=True,
        text=True,
        check=True,
        timeout=2 * PATIENCE,
    )
    base, threads, processes, method = done.stdout.split()
    assert int(processes) == 2
    assert int(threads) == int(base) + 3 + 1  # the process's threads, three more, the child's one; not the meter's
    assert method == "proc-sampled"


def test_without_proc_the_figures_it_gives_are_unknown_not_zero(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(measuring, "PROC", tmp_path / "no-proc")
    allocate_and_free(50 * MIB)  # the lifetime peak above what the run will hold: its ru_maxrss cannot grow
    with measured() as found:
        pass
    (run,) = found
    assert (run.peak_memory_bytes, run.max_threads, run.max_processes) == (None, None, None)
    assert (run.memory_method, run.threads_method, run.processes_method) == (None, None, None)
    assert run.cpu_seconds is not None and run.cpu_method == "rusage"  # getrusage needs no /proc


def test_without_proc_a_run_that_raised_the_lifetime_peak_has_that_peak(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(measuring, "PROC", tmp_path / "no-proc")
    size = measuring.resource.getrusage(measuring.resource.RUSAGE_SELF).ru_maxrss * measuring.MAXRSS_UNIT + 100 * MIB
    with measured() as found:
        allocate_and_free(size)
    assert found[0].peak_memory_bytes is not None and found[0].peak_memory_bytes >= size
    assert found[0].memory_method == "rusage-maxrss"


def test_without_getrusage_cpu_seconds_are_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(measuring, "resource", None)
    with measured() as found:
        pass
    assert found[0].cpu_seconds is None and found[0].cpu_method is None


def test_measured_even_when_the_call_raises() -> None:
    with pytest.raises(ZeroDivisionError), measured() as found:
        _ = 1 / 0
    assert len(found) == 1 and found[0].cpu_seconds is not None


def test_a_measure_is_plain_data() -> None:
    run = RunMeasure(1.5, None, 3, 1, "rusage+proc", None, "proc-sampled", "proc-sampled")
    assert run.to_dict() == {
        "cpu_seconds": 1.5,
        "peak_memory_bytes": None,
        "max_threads": 3,
        "max_processes": 1,
        "cpu_method": "rusage+proc",
        "memory_method": None,
        "threads_method": "proc-sampled",
        "processes_method": "proc-sampled",
    }
    assert RunMeasure(**run.to_dict()) == run


ESCAPING = """
import os, subprocess, sys, time
from pathlib import Path
from nqueens_plugins.execution import measuring

burn, mark, patience = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3])
group = measuring.CgroupV1.enter() if sys.argv[4] == "cgroup" else None
if sys.argv[4] == "cgroup" and group is None:
    print("unavailable")
    sys.exit(0)
escape = (
    "import os, sys, time\\n"
    "if os.fork():\\n"
    "    os._exit(0)\\n"
    "os.setsid()\\n"
    "end = time.process_time() + float(sys.argv[1])\\n"
    "block = bytearray(int(sys.argv[3]))\\n"
    "block[::4096] = bytes(len(range(0, len(block), 4096)))\\n"
    "while time.process_time() < end:\\n"
    "    pass\\n"
    "open(sys.argv[2], 'w').write(str(time.process_time()))\\n"
)
with measuring.measured(cgroup=group) as found:
    subprocess.run([sys.executable, "-c", escape, burn, str(mark), str(200 * 2**20)], check=True)
    deadline = time.monotonic() + patience
    while not (mark.exists() and mark.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)  # the escaped process writes its figure, then exits
if group is not None:
    group.leave()
    print("left" if not any(folder.exists() for folder in group.folders.values()) else "still there")
run = found[0]
print(mark.read_text(), run.cpu_seconds, run.peak_memory_bytes, run.cpu_method, run.memory_method)
"""


def escaping_run(tmp_path: Path, backend: str) -> list[str]:
    """A run whose process starts one that leaves the tree (forks, its parent exits: init adopts it, not this
    process) and burns BURN CPU seconds with 200 MiB; measured in a fresh process, with or without a cgroup."""
    mark = tmp_path / f"escaped-{backend}"
    done = subprocess.run(
        [sys.executable, "-c", ESCAPING, str(BURN), str(mark), str(PATIENCE), backend],
        capture_output=True,
        text=True,
        check=True,
        timeout=2 * PATIENCE,
    )
    return done.stdout.split()


def test_a_cgroup_counts_a_process_that_left_the_tree_and_getrusage_does_not(tmp_path: Path) -> None:
    with_group = escaping_run(tmp_path, "cgroup")
    if with_group == ["unavailable"]:
        pytest.skip("this machine does not let a process make a v1 cgroup (cpuacct, memory) of its own")
    left, escaped_cpu, cpu, peak, cpu_method, memory_method = with_group
    assert left == "left"  # the cgroup is gone, and this process back where it was
    assert (cpu_method, memory_method) == ("cgroup-v1", "cgroup-v1")
    assert float(cpu) >= float(escaped_cpu) * 0.9, with_group
    assert int(peak) >= 200 * MIB, with_group
    escaped_cpu, cpu, _, cpu_method, _ = escaping_run(tmp_path, "rusage")
    assert cpu_method == "rusage+proc"
    assert float(cpu) < float(escaped_cpu) / 2  # gone from the tree: what getrusage and /proc cannot see


class Unstartable(threading.Thread):
    """A thread that cannot start, as under a tight RLIMIT_DATA (its stack is data)."""

    def start(self) -> None:
        raise RuntimeError("can't start new thread")


def test_without_room_for_the_sampler_threads_and_processes_are_unknown_and_the_rest_is_measured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(measuring.threading, "Thread", Unstartable)
    with measured() as found:
        done = subprocess.run([sys.executable, "-c", CHILD_BURN, str(BURN)], capture_output=True, text=True, check=True)
    monkeypatch.undo()
    (run,) = found
    assert (run.max_threads, run.max_processes, run.threads_method) == (None, None, None)
    assert near(run.cpu_seconds, float(done.stdout)), run
    assert run.peak_memory_bytes is not None and run.memory_method == "proc-hwm"
