"""Exact counting speed (issue 11): python benchmarks/counting.py [--skip-17] [--with-18]

Every figure is measured in this run, on this machine, and every count is checked
against OEIS (A000170, or A002562 for classes):

* bitboard with the compiled kernel, both cores: n = 16 within 1 s, n = 17 within 6 s,
  n = 18 within 45 s (with --with-18);
* bitboard --unique: n = 14 within 1.5 s, n = 17 within 8 s;
* beside each, the method it replaced (mirror symmetry only, the same compiled bit-mask
  search, the same two cores) run in the same process: "before";
* the pure-Python engine at n = 14, against the textbook pure-Python bit-mask count.

Counts run in this process (``isolate=False``), after the kernels are loaded: the
figures are the counter's, not the worker's start-up.
"""

from __future__ import annotations

import sys

from common import count, finish, header, report, timed

from nqueens_plugins.core.verify import known_count


def plain_count(n: int) -> int:
    """The textbook pure-Python bit-mask count with the mirror symmetry, in one process."""
    full = (1 << n) - 1

    def place(rows: int, left: int, right: int) -> int:
        if rows == full:
            return 1
        total = 0
        free = full & ~(rows | left | right)
        while free:
            bit = free & -free
            free ^= bit
            total += place(rows | bit, ((left | bit) << 1) & full, (right | bit) >> 1)
        return total

    total = 0
    for column in range(n // 2):
        bit = 1 << column
        total += 2 * place(bit, (bit << 1) & full, bit >> 1)
    if n % 2:
        bit = 1 << (n // 2)
        total += place(bit, (bit << 1) & full, bit >> 1)
    return total


def mirror_only(n: int) -> int:
    """The counter this one replaced: the mirror split and the masked compiled kernel, on every core."""
    from nqueens_plugins.builtin import bitboard
    from nqueens_plugins.core.problem import Budget, Problem

    problem = Problem(n)
    pieces = bitboard.split(problem, bitboard.split_depth(n))
    sums, done = bitboard.count_in_processes(problem, pieces, "numba", 2, Budget(None))
    assert done == len(pieces)
    return sums[0]


def main() -> None:
    header("pure-Python engine (checked against OEIS)")
    reference, value = timed(lambda: plain_count(14))
    assert value == known_count(14)
    report("reference: textbook pure-Python bit-mask count n=14", reference, None)
    seconds, result = timed(lambda: count("bitboard[kernel=python]", 14))
    report(
        "bitboard[kernel=python] n=14 (both cores)",
        seconds,
        None,
        note=f"{result.solutions:,} verified={result.verified}; {reference / seconds:.1f}x the reference",
    )

    header("compiled, both cores: all solutions (A000170)")
    count("bitboard[kernel=numba]", 12)  # load the kernels once, outside the timings
    mirror_only(12)
    sizes = [(14, None), (15, None), (16, 1.0)]
    sizes += [] if "--skip-17" in sys.argv else [(17, 6.0)]
    sizes += [(18, 45.0)] if "--with-18" in sys.argv else []
    for n, limit in sizes:
        seconds, result = timed(lambda: count("bitboard[kernel=numba]", n))
        before = ""
        if n <= 17:
            old_seconds, old = timed(lambda: mirror_only(n))
            assert old == known_count(n)
            before = f"; before (mirror only): {old_seconds:.2f} s, {old_seconds / seconds:.1f}x slower"
        report(f"bitboard n={n}", seconds, limit, note=f"{result.solutions:,} verified={result.verified}{before}")

    header("compiled, both cores: classes under symmetry (--unique, A002562)")
    unique_sizes = [(14, 1.5), (15, None), (16, None)] + ([] if "--skip-17" in sys.argv else [(17, 8.0)])
    for n, limit in unique_sizes:
        seconds, result = timed(lambda: count("bitboard[kernel=numba]", n, unique=True))
        report(f"bitboard --unique n={n}", seconds, limit, note=f"{result.solutions:,} verified={result.verified}")
    print("before this change, --unique listed every solution in pure Python: n = 14 took 15.1 s (issue 11)")

    header("one core (for the split's gain)")
    seconds, result = timed(lambda: count("bitboard[kernel=numba,workers=1]", 15))
    report("bitboard[workers=1] n=15", seconds, None, note=f"{result.solutions:,} verified={result.verified}")
    finish()


if __name__ == "__main__":
    main()
