"""Exact counting speed (adapters and large-boards issues): python benchmarks/counting.py [--skip-17]

* bitboard, pure-Python kernel: n = 14 within 3 s, against a plain pure-Python bit-mask count
  with the mirror trick run in the same process (the reference was measured at 5.0 s);
* bitboard with the compiled kernel on both cores: n = 16 within 5 s, n = 17 within 60 s;
* every count checked against OEIS A000170.
"""

from __future__ import annotations

import sys

from common import count, finish, header, report, timed

from nqueens_plugins.verify import known_count


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


def main() -> None:
    header("counting all solutions (checked against OEIS A000170)")
    reference, value = timed(lambda: plain_count(14))
    assert value == known_count(14)
    report("reference: plain pure-Python bit-mask count n=14", reference, None)
    seconds, result = timed(lambda: count("bitboard[kernel=python]", 14))
    report("bitboard[kernel=python] n=14 (both cores)", seconds, 3.0,
           note=f"{result.solutions:,} verified={result.verified}; {reference / seconds:.1f}x the reference")  # fmt: skip
    count("bitboard[kernel=numba]", 10)  # load (or compile) the kernel once, outside the timings
    sizes = [(14, None), (15, None), (16, 5.0)] + ([] if "--skip-17" in sys.argv else [(17, 60.0)])
    for n, limit in sizes:
        seconds, result = timed(lambda: count("bitboard[kernel=numba]", n))
        report(f"bitboard[kernel=numba] n={n} (both cores)", seconds, limit,
               note=f"{result.solutions:,} verified={result.verified}")  # fmt: skip
    seconds, result = timed(lambda: count("bitboard[kernel=numba,workers=1]", 15))
    report("bitboard[kernel=numba,workers=1] n=15 (one core, for the split's gain)", seconds, None,
           note=f"{result.solutions:,} verified={result.verified}")  # fmt: skip
    finish()


if __name__ == "__main__":
    main()
