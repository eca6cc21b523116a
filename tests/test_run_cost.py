"""What a run cost, end to end (issue 55, item 1): measured in the worker around the call, carried on the pipe as
checked data, kept in the result and its record. The figures' yardsticks are the run's own: the CPU time its
threads read of themselves (``time.thread_time``), told back in counters only for the test to compare."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

import nqueens_plugins as nq
from nqueens_plugins import Outcome, Solver, Status
from nqueens_plugins.execution import wire
from nqueens_plugins.execution.measuring import RunMeasure
from nqueens_plugins.formats.records import read_runs

MB = 1 << 20


def spinner(name: str, threads: int, seconds: float) -> Solver:
    """Spins ``threads`` threads hashing (the GIL released) for ``seconds`` of each one's own CPU."""

    class Spinner(Solver):
        summary = "Burns CPU in threads, then places the one queen."

        def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
            spent: list[float] = []

            def spin() -> None:
                block = b"x" * (4 * MB)
                start = time.thread_time()
                while time.thread_time() - start < seconds:
                    hashlib.sha256(block).digest()
                spent.append(time.thread_time() - start)

            workers = [threading.Thread(target=spin) for _ in range(threads)]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            return Outcome(Status.SOLVED, [0] * problem.n, counters={"threads_cpu": sum(spent)})

    Spinner.name = name
    return Spinner()


def hog(name: str, megabytes: int) -> Solver:
    class Hog(Solver):
        summary = "Holds a block of memory, touched, then frees it."

        def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
            block = b"\x01" * (megabytes * MB)  # every page written
            del block
            return Outcome(Status.SOLVED, [0] * problem.n)

    Hog.name = name
    return Hog()


def test_two_threads_cost_their_two_cpu_times(registered: Callable[[Solver], str]) -> None:
    result = nq.solve(registered(spinner("spins-two", 2, 0.4)), 1)
    assert result.solved and result.measured_by is not None, result.reason
    spent = result.counters["threads_cpu"]
    assert spent >= 0.8 and result.cpu_seconds is not None
    assert 0.9 * spent <= result.cpu_seconds <= 1.1 * spent + 0.3, (result.cpu_seconds, spent)
    assert result.max_threads is not None and result.max_threads >= 3  # the main thread and two spinners
    assert result.measured_by["cpu"] in ("rusage+proc", "cgroup-v1")


def test_a_run_that_held_300_mb_peaks_past_it_and_the_record_says_so(
    registered: Callable[[Solver], str], tmp_path: Any
) -> None:
    name = registered(hog("holds-300-mb", 300))
    (record,) = nq.compare([name], [1], out=tmp_path / "runs.jsonl")
    assert record["status"] == "solved" and record["record_version"] == 3
    assert record["peak_memory_bytes"] >= 300 * MB, record["peak_memory_bytes"]
    (read,) = read_runs(tmp_path / "runs.jsonl")  # what report reads back: checked, the same figures
    assert read.peak_memory_bytes == record["peak_memory_bytes"] and read.measured_by == record["measured_by"]


def test_a_run_not_measured_says_unknown_never_zero(registered: Callable[[Solver], str]) -> None:
    """In-process (the contract kit's way) nothing is measured around the call: every figure is None."""
    result = nq.solve(registered(hog("holds-nothing", 0)), 1, isolate=False)
    assert result.solved
    assert (result.cpu_seconds, result.peak_memory_bytes, result.max_threads, result.measured_by) == (None,) * 4


GOOD = RunMeasure(1.5, 10 * MB, 3, 1, "rusage+proc", "proc-hwm", "proc-sampled", "proc-sampled").to_dict()


@pytest.mark.parametrize(
    "change",
    [
        {"cpu_seconds": -1.0},
        {"cpu_seconds": float("nan")},
        {"peak_memory_bytes": 1.5},
        {"max_threads": -2},
        {"max_processes": True},
        {"cpu_method": "trust me"},
        {"memory_method": 5},
        {"extra": 1},
    ],
    ids=str,
)
def test_a_measure_a_worker_garbles_is_refused(change: dict[str, Any]) -> None:
    """The figures are the worker's word, read as data: anything out of type or range is a garbled answer."""
    with pytest.raises(wire.WireError):
        wire._measure({**GOOD, **change})


def test_a_good_measure_crosses_whole() -> None:
    assert wire._measure(GOOD) == RunMeasure(**GOOD)
    assert wire._measure(None) is None
