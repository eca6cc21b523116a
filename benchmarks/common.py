"""Shared by the benchmark scripts: timing and one printed line per target.

Each script prints lines of the form

    target                                  measured      limit    verdict

so that a run on a noisy machine shows the figures, not just a pass/fail.
"""

from __future__ import annotations

import functools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

FAILURES: list[str] = []
CSPLIB = Path(__file__).resolve().parents[2] / "shared" / "csplib"  # published data, beside the repository
DIAGONALS = CSPLIB / "excluded-diagonals"
ASP = CSPLIB / "asp-blocked-queens"


def lingeling_answers() -> dict[str, tuple[bool, float]]:
    """ASP Blocked n-Queens instance file -> (satisfiable, lingeling's published seconds, a 2017 machine)."""
    import gzip

    answers = {}
    with gzip.open(ASP / "lingeling-results.txt.gz", "rt") as handle:
        for line in handle:
            fields = line.split()
            answers[f"blockedqueens.{fields[0]}.{fields[2]}.param"] = (fields[3] == "SATISFIABLE", float(fields[15]))
    return answers


def shiftqueens_results() -> dict[tuple[int, int, int], tuple[bool, int]]:
    """(n, list id, d) -> (satisfiable, search nodes) from the published shiftqueens run."""
    import gzip

    answers = {}
    with gzip.open(DIAGONALS / "shiftqueens-results.txt.gz", "rt") as handle:
        for line in handle:
            fields = line.split()
            answers[(int(fields[0]), int(fields[3]), int(fields[1]))] = (fields[5] != "0", int(fields[7]))
    return answers


LIMIT_KEYWORDS = ("timeout", "prepare_timeout", "memory", "max_iterations", "seed", "certify")


def with_limits(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The benchmarks' short form (``solve(spec, n, timeout=60, seed=1)``) as the API takes it: one ``Limits``."""
    import nqueens_plugins as nq

    given = {name: kwargs.pop(name) for name in LIMIT_KEYWORDS if name in kwargs}
    if given:
        kwargs["limits"] = nq.Limits(**given)
    return kwargs


def solve(*args: Any, **kwargs: Any) -> Any:
    """``nq.solve`` in this process: a benchmark measures the solver, not the isolation around it
    (``benchmarks/harness.py`` measures that). Limits may be given as keywords (``timeout=60``)."""
    import nqueens_plugins as nq

    return nq.solve(*args, isolate=False, **with_limits(kwargs))


def count(*args: Any, **kwargs: Any) -> Any:
    """``nq.count`` in this process (see ``solve``)."""
    import nqueens_plugins as nq

    return nq.count(*args, isolate=False, **with_limits(kwargs))


def timed(function: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


def cpu_timed(function: Callable[[], Any]) -> float:
    """CPU seconds of this process (all its threads) that ``function`` takes: unlike the wall clock,
    other processes on a busy machine do not count in it."""
    start = time.process_time()
    function()
    return time.process_time() - start


def interleaved_medians(
    runs: dict[str, Callable[[Any], Any]], argument: Any, repeats: int, cpu: bool = False
) -> tuple[dict[str, float], dict[str, Any]]:
    """Each run's median seconds over ``repeats`` rounds, interleaved so that drift on a busy machine
    hits all alike; and what each returned on a first, untimed call (a warm-up, and the search to compare).
    ``cpu`` times by this process's CPU time (for runs that stay in this process)."""
    answers = {name: run(argument) for name, run in runs.items()}
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            call = functools.partial(run, argument)
            times[name].append(cpu_timed(call) if cpu else timed(call)[0])
    return {name: statistics.median(values) for name, values in times.items()}, answers


# Issue 25: an adapter adds at most 10 % to its raw library's time on the same model and the same search,
# judged where the raw run takes JUDGED_FROM seconds or more.
OVERHEAD_PERCENT = 10.0
JUDGED_FROM = 0.1


def machine() -> str:
    """The line each benchmark starts with: which CPU, how many cores, how busy."""
    import os

    from nqueens_plugins.formats.records import cpu_name

    return f"cpu: {cpu_name()}, {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}"


def median_of(function: Callable[[], Any], repeats: int) -> float:
    return statistics.median(timed(function)[0] for _ in range(repeats))


def report(target: str, measured: float, limit: float | None, unit: str = "s", note: str = "") -> None:
    """Print one target; a limit of None means 'reported, no target'."""
    if limit is None:
        verdict = ""
    elif measured <= limit:
        verdict = "ok"
    else:
        verdict = "MISSED"
        FAILURES.append(target)
    shown_limit = "" if limit is None else f"<= {limit:g} {unit}"
    print(f"{target:<66} {measured:>10.3f} {unit:<3} {shown_limit:<12} {verdict:<6} {note}", flush=True)


def report_overhead(target: str, adapter: float, raw: float, note: str = "") -> None:
    """Report what an adapter adds to its raw library, in per cent of the raw time.

    Judged against ``OVERHEAD_PERCENT`` where the raw run takes ``JUDGED_FROM`` seconds or more. On a
    run of a few milliseconds a fixed cost per call (a fork, a verifier pass, reading statistics) is a
    large share of very little: there the milliseconds added are printed and not judged.
    """
    percent = 100 * (adapter / raw - 1)
    judged = raw >= JUDGED_FROM
    added = f"{(adapter - raw) * 1000:+.1f} ms a call" + (
        "" if judged else f" (a raw run under {JUDGED_FROM:g} s: not judged)"
    )
    report(f"{target}: adapter / raw - 1", percent, OVERHEAD_PERCENT if judged else None, "%", f"{added}; {note}")


def header(title: str) -> None:
    print(f"\n== {title}")
    print(f"{'target':<66} {'measured':>14} {'limit':<12} verdict")


def finish() -> None:
    if FAILURES:
        print(f"\nmissed: {', '.join(FAILURES)}")
    else:
        print("\nall targets met")
