"""Speed of the classic methods (foundation issue): python benchmarks/search_methods.py [--all-value-orders]

* forward-checking[order=mrv,values=middle]: every n from 4 to 40 within 1 s, to 200 within 10 s;
* forward-checking with values=lowest and values=lcv at the sizes where they stall (reported);
* backtracking: every n up to 29 within 10 s (n = 30 reported: it is past the wall);
* min-conflicts[init=greedy]: n = 10^5 within 2 s, 10^6 within 10 s;
* random-restart and random-neighbour: n = 100 within 10 s, median of 10 seeds.
"""

from __future__ import annotations

import statistics
import sys

from common import finish, header, report, solve, timed


def worst(spec: str, sizes: range, timeout: float) -> tuple[float, int, str]:
    slowest = (0.0, 0, "")
    for n in sizes:
        seconds, result = timed(lambda: solve(spec, n, timeout=timeout))
        if result.status != "solved" or not result.verified:
            return (max(seconds, timeout), n, result.status)
        slowest = max(slowest, (seconds, n, result.status))
    return slowest


def main() -> None:
    header("forward checking and backtracking (every n in the range; the slowest is shown)")
    spec = "forward-checking[order=mrv,values=middle]"
    seconds, n, _ = worst(spec, range(4, 41), 10)
    report(f"{spec} n=4..40 (slowest n={n})", seconds, 1.0)
    seconds, n, _ = worst(spec, range(4, 201), 20)
    report(f"{spec} n=4..200 (slowest n={n})", seconds, 10.0)
    for values in ("lowest", "lcv"):
        for n in (100, 150, 200):
            seconds, result = timed(lambda: solve(f"forward-checking[order=mrv,values={values}]", n, timeout=15))
            report(
                f"forward-checking[order=mrv,values={values}] n={n}",
                seconds,
                None,
                note=f"{result.status}, {result.iterations:,} iterations",
            )
    if "--all-value-orders" in sys.argv:
        for values in ("lowest", "lcv"):
            seconds, n, status = worst(f"forward-checking[order=mrv,values={values}]", range(4, 201), 10)
            report(f"forward-checking[order=mrv,values={values}] n=4..200 (slowest n={n}: {status})", seconds, None)
    seconds, n, _ = worst("backtracking", range(4, 30), 20)
    report(f"backtracking n=4..29 (slowest n={n})", seconds, 10.0)
    seconds, result = timed(lambda: solve("backtracking", 30, timeout=10))
    report("backtracking n=30 (past the wall: timed-out is honest)", seconds, None, note=result.status)

    header("min-conflicts at scale (greedy start)")
    for n, limit in ((10**5, 2.0), (10**6, 10.0)):
        seconds, result = timed(lambda: solve("min-conflicts[init=greedy]", n, timeout=60))
        report(
            f"min-conflicts[init=greedy] n={n:,}",
            seconds,
            limit,
            note=f"{result.status}, {result.iterations} repairs, verified={result.verified}",
        )

    header("hill climbing with restarts and sideways moves, n = 100, median of 10 seeds")
    for spec in ("random-restart", "random-neighbour"):
        times, solved = [], 0
        for seed in range(10):
            seconds, result = timed(lambda: solve(spec, 100, seed=seed, timeout=30))
            times.append(seconds)
            solved += result.solved
        report(f"{spec} n=100", statistics.median(times), 10.0, note=f"{solved}/10 solved")
    finish()


if __name__ == "__main__":
    main()
