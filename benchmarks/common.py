"""Shared by the benchmark scripts: timing and one printed line per target.

Each script prints lines of the form

    target                                  measured      limit    verdict

so that a run on a noisy machine shows the figures, not just a pass/fail.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

FAILURES: list[str] = []


def timed(function: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


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


def header(title: str) -> None:
    print(f"\n== {title}")
    print(f"{'target':<66} {'measured':>14} {'limit':<12} verdict")


def finish() -> None:
    if FAILURES:
        print(f"\nmissed: {', '.join(FAILURES)}")
    else:
        print("\nall targets met")
