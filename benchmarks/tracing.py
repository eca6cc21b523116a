"""What tracing costs (issue 10): python benchmarks/tracing.py [--against REV]

* tracing on, n = 8: each traced method's median time per run with a trace is at most 2x
  its time without (many runs, in this process);
* tracing off: the same workloads are no slower than at git revision REV (the commit
  before tracing) by more than 3 %: REV is checked out in a temporary worktree and both
  are timed in fresh processes, interleaved, 7 times each; the fastest of each is
  compared (the medians are shown too).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import finish, header, report

ROOT = Path(__file__).resolve().parents[1]
TRACED = [
    "backtracking",
    "forward-checking[order=mrv,values=middle]",
    "steepest-ascent",
    "random-restart",
    "simulated-annealing",
    "min-conflicts",
    "bitset-mrv",
    "swap-search",
    "british-museum",
]

# Untraced workloads, each a few tenths of a second: the inner loops that gained a `trace is not None` test.
WORKLOADS = """
import sys, time
import nqueens_plugins as nq
work = [("backtracking", 27, {}, 1), ("forward-checking[order=mrv,values=middle]", 120, {}, 1),
        ("simulated-annealing[max_steps=1500000]", 400, {}, 1), ("min-conflicts", 20000, {}, 1),
        ("random-restart", 800, {}, 1), ("british-museum", 8, {}, 30), ("steepest-ascent", 30, {}, 1000),
        ("bitset-mrv", None, {"instance": "tests/data/blockedqueens.28.1449787798.param"}, 1)]
for spec, n, extra, repeats in work:
    nq.solve(spec, 6, isolate=False)
    start = time.perf_counter()
    for seed in range(repeats):
        result = nq.solve(spec, n, isolate=False, limits=nq.Limits(seed=seed), **extra)
    print(spec, time.perf_counter() - start, result.status)
"""


def traced_ratio(spec: str, runs: int = 60) -> tuple[float, float]:
    import time

    import nqueens_plugins as nq

    n = 6 if spec == "british-museum" else 8
    plain, traced = [], []
    for seed in range(runs):
        for flag, bucket in ((False, plain), (True, traced)):
            start = time.perf_counter()
            nq.solve(spec, n, limits=nq.Limits(seed=seed), isolate=False, trace=flag)
            bucket.append(time.perf_counter() - start)
    return statistics.median(plain), statistics.median(traced)


def workload_times(source: Path) -> dict[str, float]:
    env = {"PYTHONPATH": str(source), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", WORKLOADS], capture_output=True, text=True, check=True, env=env, cwd=source
    )
    return {line.rsplit(" ", 2)[0]: float(line.rsplit(" ", 2)[1]) for line in done.stdout.splitlines()}


def main() -> None:
    header("tracing on, n = 8: median seconds per run, with a trace over without")
    for spec in TRACED:
        plain, traced = traced_ratio(spec)
        report(
            f"{spec} traced / untraced",
            traced / plain,
            2.0,
            unit="x",
            note=f"{plain * 1e3:.3f} ms -> {traced * 1e3:.3f} ms",
        )
    if "--against" in sys.argv:
        revision = sys.argv[sys.argv.index("--against") + 1]
        header(f"tracing off: these sources against revision {revision} (fastest of 7, fresh processes)")
        with tempfile.TemporaryDirectory() as folder:
            old = Path(folder) / "old"
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old), revision],
                check=True,
                capture_output=True,
            )
            try:
                now: dict[str, list[float]] = {}
                before: dict[str, list[float]] = {}
                for _ in range(7):
                    for source, bucket in ((ROOT, now), (old, before)):
                        for spec, seconds in workload_times(source).items():
                            bucket.setdefault(spec, []).append(seconds)
                for spec, times in now.items():
                    # The fastest of 7 estimates the code's own cost (timeit's rule): a busy moment only adds.
                    ratio = min(times) / min(before[spec])
                    median_ratio = statistics.median(times) / statistics.median(before[spec])
                    report(
                        f"{spec} untraced, now / {revision}",
                        ratio,
                        1.03,
                        unit="x",
                        note=f"fastest {min(before[spec]):.3f} s -> {min(times):.3f} s; medians {median_ratio:.3f}x",
                    )
            finally:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)],
                    capture_output=True,
                    check=False,
                )
    finish()


if __name__ == "__main__":
    main()
