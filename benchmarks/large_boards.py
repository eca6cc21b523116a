"""Large boards (issue 11): python benchmarks/large_boards.py [--skip-10-7] [--skip-10-8] [--with-10-9] [--isolated | --isolated-only]

* swap-search: n = 10^6 within 2 s, n = 10^7 within 3 s and n = 10^8 within 40 s,
  verified, compiled kernel, beside the foundation's min-conflicts at 10^6 and the
  pure-Python engine of the same algorithm at 10^6 (both in the same process);
* memory: at most 16 bytes per queen at peak, measured as the maximum resident set size
  of a fresh process that solves and verifies, above what it held before the board (its
  imports, about 160 MiB) and, at 10^8 where they no longer matter, with them;
  stretch (--with-10-9): n = 10^9 solved and verified within 15 minutes;
* construction: n = 10^7 placed and verified within 0.5 s;
* the verifier: 10^7 queens within 0.5 s;
* the numba compilation, done once per machine and cached, is reported apart;
* with --isolated: swap-search and construction at 10^6 and 10^7 through a worker process,
  the parent's share of the wall time (the answer's crossing and its verification) beside
  the solver's own (issue 50: the board crosses as its bytes, not as a pickle).

* min-conflicts[init=greedy] at 10^7 (with the 10^7 figures): at most 16 bytes per queen;

Before issue 11 (same machine): 10^7 in 6.9 s at 79 bytes a queen; 10^8 in about a
minute at about 8 GiB; 10^9 refused; min-conflicts[init=greedy] 124 bytes a queen
at 10^6 (4.4 s). Before the initial search prefetched: swap-search 10^8 in 55-59 s.
"""

from __future__ import annotations

import subprocess
import sys

from common import finish, header, report, solve, timed

from nqueens_plugins.builtin.construction import construct
from nqueens_plugins.core.verify import board_error

PEAK_MEMORY_PROGRAM = """
import sys, time
import nqueens_plugins as nq
nq.solve(sys.argv[2], 1000, isolate=False)  # the kernel loaded, outside the timing
# resident now (KiB), not the peak so far: loading the kernel peaks higher than it stays
before = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS:"))
start = time.perf_counter()
result = nq.solve(sys.argv[2], int(sys.argv[1]), isolate=False)
seconds = time.perf_counter() - start
assert result.verified, result.status
# VmHWM, not getrusage's ru_maxrss: Linux carries the parent's peak into ru_maxrss across exec
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(seconds, peak, before)
"""


def solve_apart(n: int, solver: str = "swap-search") -> tuple[float, float, float]:
    """(seconds to solve and verify, peak bytes per queen, and the same above what the process held
    before the board: its imports) of ``solver`` on n queens in a fresh process."""
    output = subprocess.run(
        [sys.executable, "-c", PEAK_MEMORY_PROGRAM, str(n), solver], capture_output=True, text=True, check=True
    ).stdout.split()
    peak, before = int(output[1]) * 1024, int(output[2]) * 1024
    return float(output[0]), peak / n, (peak - before) / n


COMPILE_PROGRAM = """
import time
start = time.perf_counter()
from nqueens_plugins.builtin import swap_kernel
import numpy as np
q = np.arange(8, dtype=np.int32); t = np.zeros(1, dtype=np.int64); u = np.zeros(1, dtype=np.int64)
d = np.zeros(15, dtype=np.int8); a = np.zeros(15, dtype=np.int8)
swap_kernel.COMPILED["seed_generator"](1)
swap_kernel.COMPILED["initial_search"](q, t, u, 8, 8, 4, np.zeros(swap_kernel.DRAWS_AHEAD))
swap_kernel.COMPILED["final_search"](q, d, a, 8, swap_kernel.COMPILED["place_counters"](q, d, a, 8), 10)
print(time.perf_counter() - start)
"""


def main() -> None:
    if "--isolated-only" in sys.argv:  # the crossing alone, for a before/after comparison
        through_workers()
        finish()
        return
    header("kernel compilation (numba, cached on disk after the first run)")
    seconds = float(
        subprocess.run([sys.executable, "-c", COMPILE_PROGRAM], capture_output=True, text=True, check=True).stdout
    )
    report("swap-search kernel: load or compile in a fresh process", seconds, None)

    header("swap-search against references at n = 10^6 (all verified)")
    solve("swap-search", 1000)  # warm: kernel loaded
    seconds, result = timed(lambda: solve("swap-search", 10**6))
    report("swap-search n=1,000,000", seconds, 2.0, note=f"{result.status}, verified={result.verified}")
    reference, result = timed(lambda: solve("swap-search[kernel=python]", 10**6))
    report(
        "reference: swap-search[kernel=python] n=1,000,000",
        reference,
        None,
        note=f"{result.status}; {reference / seconds:.1f}x slower",
    )
    reference, result = timed(lambda: solve("min-conflicts[init=greedy]", 10**6, timeout=60))
    report(
        "reference: min-conflicts[init=greedy] n=1,000,000",
        reference,
        None,
        note=f"{result.status}; {reference / seconds:.1f}x slower",
    )

    header("ten million queens and more (each in a fresh process: time and peak memory)")
    for n, flag, limit in ((10**7, "--skip-10-7", 3.0), (10**8, "--skip-10-8", 40.0), (10**9, None, 900.0)):
        if (flag is not None and flag in sys.argv) or (flag is None and "--with-10-9" not in sys.argv):
            continue
        seconds, per_queen, above_imports = solve_apart(n)
        report(f"swap-search n={n:,} solved and verified", seconds, limit)
        report(
            f"peak resident bytes per queen, n={n:,}, imports included",
            per_queen,
            16.0 if n >= 10**8 else None,
            unit="B",
        )
        report(f"peak resident bytes per queen, n={n:,}, above the imports", above_imports, 16.0, unit="B")
    if "--skip-10-7" not in sys.argv:
        header("min-conflicts[init=greedy] at ten million queens (fresh process)")
        seconds, per_queen, above_imports = solve_apart(10**7, "min-conflicts[init=greedy]")
        report("min-conflicts[init=greedy] n=10,000,000 solved and verified", seconds, None)
        report(
            "peak resident bytes per queen above the imports (before issue 11: 124 at 10^6)",
            above_imports,
            16.0,
            unit="B",
        )
    seconds, board = timed(lambda: construct(10**7))
    check_seconds, error = timed(lambda: board_error(10**7, board))
    assert error is None
    report("construction n=10,000,000 placed and verified", seconds + check_seconds, 0.5)
    report("verifier alone, 10,000,000 queens", check_seconds, 0.5)
    if "--isolated" in sys.argv or "--isolated-only" in sys.argv:
        through_workers()
    finish()


def through_workers() -> None:
    """Swap search and construction at 10^6 and 10^7 run isolated, as users run them: the answer crosses from
    the worker to the parent (issue 50: as a frame of data, the board as its bytes). The parent's wall time
    beside the solver's own: ``overhead_seconds`` is the crossing, the parent's verification and the messages."""
    import nqueens_plugins as nq
    from nqueens_plugins.execution.local import LocalExecutor

    header("through a worker process: the answer crosses to the parent (--isolated)")
    with LocalExecutor(1) as executor:
        for solver in ("swap-search", "construction"):
            nq.solve(solver, 1000, executor=executor)  # the worker started and the solver prepared
            for n in (10**6, 10**7):
                wall, result = timed(lambda: nq.solve(solver, n, executor=executor))
                assert result.verified, result.status
                report(f"{solver} n={n:,} through a worker, wall", wall, None)
                report(f"{solver} n={n:,}: the parent's part (overhead_seconds)", result.overhead_seconds, None,
                       note=f"solver {result.seconds:.3f} s")  # fmt: skip


if __name__ == "__main__":
    main()
