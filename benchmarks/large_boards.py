"""Large boards (large-boards issue): python benchmarks/large_boards.py [--skip-10-7]

* swap-search: n = 10^6 within 2 s and n = 10^7 within 15 s, verified, compiled kernel,
  beside the foundation's min-conflicts at 10^6 and the pure-Python engine of the same
  algorithm at 10^6 (both in the same process);
* construction: n = 10^7 placed and verified within 0.5 s;
* the verifier: 10^7 queens within 0.5 s;
* memory: solving n = 10^7 stays under 2 GiB peak resident memory (measured in a fresh
  process with getrusage, so imports and the verifier count too);
* the numba compilation, done once per machine and cached, is reported apart.
"""

from __future__ import annotations

import subprocess
import sys

from common import finish, header, report, solve, timed

from nqueens_plugins.builtin.construction import construct
from nqueens_plugins.verify import board_error

PEAK_MEMORY_PROGRAM = """
import resource, sys
import nqueens_plugins as nq
result = nq.solve("swap-search", int(sys.argv[1]), isolate=False)
assert result.verified, result.status
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

COMPILE_PROGRAM = """
import time
start = time.perf_counter()
from nqueens_plugins.builtin import swap_kernel
import numpy as np
q = np.arange(8, dtype=np.int32); d = np.zeros(15, dtype=np.int32); a = np.zeros(15, dtype=np.int32)
swap_kernel.COMPILED["seed_generator"](1)
swap_kernel.COMPILED["initial_search"](q, d, a, 8, 8, 4)
swap_kernel.COMPILED["final_search"](q, d, a, 8, swap_kernel.COMPILED["count_collisions"](d, a), 10)
print(time.perf_counter() - start)
"""


def main() -> None:
    header("kernel compilation (numba, cached on disk after the first run)")
    seconds = float(subprocess.run([sys.executable, "-c", COMPILE_PROGRAM], capture_output=True, text=True, check=True).stdout)
    report("swap-search kernel: load or compile in a fresh process", seconds, None)

    header("swap-search against references at n = 10^6 (all verified)")
    solve("swap-search", 1000)  # warm: kernel loaded
    seconds, result = timed(lambda: solve("swap-search", 10**6))
    report("swap-search n=1,000,000", seconds, 2.0, note=f"{result.status}, verified={result.verified}")
    reference, result = timed(lambda: solve("swap-search[kernel=python]", 10**6))
    report("reference: swap-search[kernel=python] n=1,000,000", reference, None, note=f"{result.status}; {reference / seconds:.1f}x slower")
    reference, result = timed(lambda: solve("min-conflicts[init=greedy]", 10**6, timeout=60))
    report("reference: min-conflicts[init=greedy] n=1,000,000", reference, None, note=f"{result.status}; {reference / seconds:.1f}x slower")

    header("ten million queens")
    if "--skip-10-7" not in sys.argv:
        seconds, result = timed(lambda: solve("swap-search", 10**7))
        report("swap-search n=10,000,000", seconds, 15.0, note=f"{result.status}, verified={result.verified}")
    seconds, board = timed(lambda: construct(10**7))
    check_seconds, error = timed(lambda: board_error(10**7, board))
    assert error is None
    report("construction n=10,000,000 placed and verified", seconds + check_seconds, 0.5)
    report("verifier alone, 10,000,000 queens", check_seconds, 0.5)
    if "--skip-10-7" not in sys.argv:
        peak_kib = int(subprocess.run([sys.executable, "-c", PEAK_MEMORY_PROGRAM, str(10**7)], capture_output=True,
                                      text=True, check=True).stdout)  # fmt: skip
        report("peak resident memory, swap-search n=10,000,000", peak_kib / 2**20, 2.0, unit="GiB")
    finish()


if __name__ == "__main__":
    main()
