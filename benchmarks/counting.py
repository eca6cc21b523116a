"""Exact counting speed (issues 11, 26 and 41):

    python benchmarks/counting.py [--skip-17] [--with-18] [--with-19] [--with-20] [--with-20-dask]
                                  [--asp-limit K] [--join-only]

Every figure is measured in this run, on this machine (the CPU is printed first), and
every count is checked against OEIS (A000170, or A002562 for classes). Absolute times
differ between machines by 2x and more, so the targets are ratios taken in this run:

* the yardstick ``../shared/bench/ref_count.c`` (the textbook bit-mask counter with the
  mirror symmetry, one thread), compiled here with ``gcc -O2`` and run at n = 16, 17
  (and 18 with ``--with-18``);
* joining half boards (``bitboard[method=join]``, issue 41) against the yardstick and
  start constellations, per core (CPU seconds of one worker, the quarters built inside
  the time) and on both cores: targets per core n = 16 at most 0.05x, 17 at most 0.08x,
  18 at most 0.02x the yardstick; n = 20 on both cores within 3 minutes and 2 GiB
  (``--with-20``);
* ``bitboard[method=constellations]`` (both cores), ``bitboard[method=takaken]`` (the
  method it replaced, same cores) and ``bitboard --unique``, as fractions of the
  yardstick's time: targets n = 17 at most 0.06x, ``--unique`` the same;
* n = 18, 19 (``--with-18``, ``--with-19``): constellations at least 3x faster than
  takaken, both run here; n = 20 (``--with-20``, about half an hour): counted and
  matching OEIS within 25 minutes; ``--with-20-dask``: the same count shared by a Dask
  LocalCluster of two worker processes, the same total;
* masked counts (blocked squares: the ASP competition's n = 28 instances, counted by
  bitboard's pieces): today's kernel against the one before issue 26
  (``before_masked_count``, kept here), same pieces, at least 1.3x faster;
* n <= 12 takes Takaken's path as before (auto = takaken there); n = 13..15, the two
  methods against each other (``CONSTELLATIONS_FROM`` in bitboard.py);
* the pure-Python engine at n = 14, against the textbook pure-Python bit-mask count;
* one core: the compiled counter against the same constellations searched by a plain C
  recursion (``constellations_ref.c``, ``gcc -O2``), and the time ``nqueens count``
  estimates before a count (``bitboard.estimate_count_seconds``) against the real one.

Counts run in this process (``isolate=False``) after the kernels are loaded: the figures
are the counter's, not the worker's start-up. n >= 18 takes minutes; n = 20, half an hour.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from common import ASP, count, cpu_timed, finish, header, machine, report, timed

from nqueens_plugins.core.verify import known_count

YARDSTICK = Path(__file__).resolve().parents[2] / "shared" / "bench" / "ref_count.c"
C_CONSTELLATIONS = Path(__file__).resolve().parent / "constellations_ref.c"


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


class Yardstick:
    """``ref_count.c`` compiled with ``gcc -O2`` into a temporary directory."""

    def __init__(self) -> None:
        self.directory = tempfile.TemporaryDirectory(prefix="nqueens-yardstick-")
        self.binary = Path(self.directory.name) / "ref_count"
        compiler = shutil.which("gcc")
        if compiler is None or not YARDSTICK.exists():
            raise SystemExit(f"the yardstick needs gcc and {YARDSTICK}")
        subprocess.run([compiler, "-O2", "-o", str(self.binary), str(YARDSTICK)], check=True)
        self.measured: dict[int, float] = {}
        self.cpu: dict[int, float] = {}

    def seconds(self, n: int) -> float:
        """The yardstick's own time for n (it prints the count and the seconds: its wall clock), checked
        against OEIS; run once per n in a run of this script (n = 18 takes minutes)."""
        if n not in self.measured:
            import resource

            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            output = subprocess.run([str(self.binary), str(n)], capture_output=True, text=True, check=True).stdout
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            solutions, seconds = output.split()
            assert int(solutions) == known_count(n), output
            self.measured[n] = float(seconds)
            self.cpu[n] = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        return self.measured[n]

    def cpu_seconds(self, n: int) -> float:
        """The yardstick's CPU seconds for n (its process's, from the same run as ``seconds``): what a
        worker's CPU seconds are compared with, since other jobs on a busy machine do not count in either."""
        self.seconds(n)
        return self.cpu[n]


def load() -> str:
    """The machine's load average now (1, 5 and 15 minutes), printed beside the figures."""
    with open("/proc/loadavg", encoding="ascii") as average:
        return "load average " + " ".join(average.read().split()[:3])


def checked_count(spec: str, n: int, unique: bool = False) -> tuple[float, Any]:
    seconds, result = timed(lambda: count(spec, n, unique=unique))
    assert result.verified is True and result.solutions == known_count(n, unique=unique), (spec, n, result)
    assert classes_of(result) in (None, known_count(n, unique=True)), (spec, n, result.counters)
    return seconds, result


def classes_of(result: Any) -> int | None:
    """The classes a symmetric count found on its way (the same pass gives A000170 and A002562)."""
    counters = result.counters or {}
    if "classes_8" not in counters:
        return None
    return int(counters["classes_2"]) + int(counters["classes_4"]) + int(counters["classes_8"])


def yardstick_ratios(yardstick: Yardstick, sizes: list[int]) -> None:
    header("both cores, as fractions of the yardstick's time (ref_count.c, gcc -O2, one thread, mirror only)")
    print(f"yardstick: {YARDSTICK}")
    for n in sizes:
        reference = yardstick.seconds(n)
        report(f"yardstick ref_count n={n}", reference, None, note=f"{known_count(n):,} solutions")
        new, result = checked_count("bitboard[method=constellations]", n)
        old, _ = checked_count("bitboard[method=takaken]", n)
        unique, classes = checked_count("bitboard", n, unique=True)
        limit = 0.06 if n == 17 else None
        pieces = f"{result.counters['constellations']:,} constellations"
        report(f"bitboard (constellations) n={n}: {new:.2f} s", new / reference, limit, "x", note=pieces)
        report(f"bitboard --unique n={n}: {unique:.2f} s", unique / reference, limit, "x", f"{classes.solutions:,}")
        report(
            f"bitboard[method=takaken] n={n}: {old:.2f} s",
            old / reference,
            None,
            "x",
            note=f"constellations {old / new:.2f}x faster",
        )
        if n >= 18:
            report(f"constellations / takaken time, n={n} (target: 3x faster)", new / old, 1 / 3, "x")


JOIN_TARGETS = {16: 0.05, 17: 0.08, 18: 0.02}  # one worker's CPU seconds / the yardstick's (issue 41)


def join_cpu_seconds(spec: str, n: int, unique: bool = False) -> float:
    """CPU seconds of one worker counting n in this process, checked; for joining, the quarters of n are
    built inside the time (the cache of an earlier count of n is emptied first)."""
    from nqueens_plugins.builtin.engines import join_kernel

    join_kernel.prepared.cache_clear()
    return cpu_timed(lambda: checked_count(spec, n, unique))


def join_ratios(yardstick: Yardstick, sizes: list[int]) -> None:
    """Issue 41: joining half boards against the yardstick and start constellations, per core and on both;
    and ``--unique`` by joining (Burnside's lemma) against constellations' (its classes, the same pass)."""
    header("joining half boards (method=join): per core (CPU seconds of one worker) and on both cores")
    print("per core: a worker's CPU seconds over the yardstick's CPU seconds (both immune to other jobs);")
    print("both cores: wall seconds over the yardstick's wall seconds (both slowed by other jobs)")
    for n in sizes:
        print(f"n = {n}: {load()}")
        reference, reference_cpu = yardstick.seconds(n), yardstick.cpu_seconds(n)
        report(
            f"yardstick ref_count n={n}: {reference_cpu:.2f} CPU s",
            reference,
            None,
            note=f"{known_count(n):,} solutions (wall seconds)",
        )
        join = join_cpu_seconds("bitboard[method=join,workers=1]", n)
        stars = join_cpu_seconds("bitboard[method=constellations,workers=1]", n)  # checks its classes too
        report(
            f"join, one worker n={n}: {join:.2f} CPU s",
            join / reference_cpu,
            JOIN_TARGETS.get(n),
            "x",
            note=f"constellations {stars:.2f} CPU s = {stars / reference_cpu:.3f}x: join {stars / join:.1f}x faster",
        )
        unique = join_cpu_seconds("bitboard[method=join,workers=1]", n, unique=True)
        report(
            f"--unique by join, one worker n={n}: {unique:.2f} CPU s",
            unique / reference_cpu,
            None,
            "x",
            note=f"constellations' classes (the same pass: {stars:.2f} CPU s): join {stars / unique:.1f}x faster",
        )
        both, _ = checked_count("bitboard[method=join]", n)
        stars_both, _ = checked_count("bitboard[method=constellations]", n)
        unique_both, _ = checked_count("bitboard", n, unique=True)
        report(
            f"join, both cores n={n}: {both:.2f} s",
            both / reference,
            None,
            "x",
            note=f"constellations {stars_both:.2f} s = {stars_both / reference:.3f}x",
        )
        report(f"--unique (auto: join), both cores n={n}: {unique_both:.2f} s", unique_both / reference, None, "x")


def join_at_20() -> None:
    """n = 20 by joining on both cores: within 3 minutes, its memory (the largest process's peak) within 2 GiB."""
    import multiprocessing
    import resource
    import time

    header("n = 20 by joining half boards, both cores (issue 41: 3 minutes, 2 GiB)")
    print(f"before: {load()}")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds, result = checked_count("bitboard[method=join]", 20)
    print(f"after: {load()}")
    for _ in range(50):  # the pool's workers, reaped so that their CPU seconds count
        if not multiprocessing.active_children():
            break
        time.sleep(0.1)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    workers_cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    print(
        f"its two workers: {workers_cpu:.0f} CPU s in all ({workers_cpu / 2:.0f} each on average), "
        f"busy {workers_cpu / (2 * seconds):.0%} of the wall time (the rest: other jobs on the cores)"
    )
    peak = max(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    )
    report(
        "bitboard[method=join] n=20 (target: within 3 minutes)", seconds, 180, note=f"{result.solutions:,} = A000170"
    )
    report("its largest process's peak memory, GiB (target: 2)", peak / 2**20, 2.0, "GiB")


def one_core(sizes: list[int]) -> None:
    """The compiled counter on one core against the same search written plainly in C, and the
    estimate ``nqueens count`` gives before a long count against the real time."""
    header("one core: the compiled counter, the same constellations in plain C (gcc -O2), the estimate")
    from nqueens_plugins.builtin import bitboard
    from nqueens_plugins.builtin.engines import constellation_kernel, constellations

    with tempfile.TemporaryDirectory(prefix="nqueens-constellations-") as folder:
        binary = Path(folder) / "constellations_ref"
        subprocess.run(["gcc", "-O2", "-o", str(binary), str(C_CONSTELLATIONS)], check=True)
        for n in sizes:
            chosen = constellations.generate(n)
            lines, allowed = [0] * n, [0] * n
            table = Path(folder) / f"n{n}.txt"
            with table.open("w") as written:
                for i, j, k, l, stabilizer in chosen:
                    levels = constellations.fill_lines(n, i, j, k, l, lines, allowed)
                    gaps = [lines[s + 1] - lines[s] for s in range(levels - 1)] + [0] * min(levels, 1)
                    written.write(" ".join(map(str, [8 // stabilizer, levels, *allowed[:levels], *gaps])) + "\n")
            output = subprocess.run([str(binary), str(table)], capture_output=True, text=True, check=True).stdout
            solutions, c_seconds = output.split()
            assert int(solutions) == known_count(n), output
            estimate = bitboard.estimate_count_seconds(n, 1, "numba")
            constellation_kernel.count(n, chosen[:1])
            seconds, (c2, c4, c8) = timed(lambda n=n, chosen=chosen: constellation_kernel.count(n, chosen))  # type: ignore[misc]
            assert 2 * c2 + 4 * c4 + 8 * c8 == known_count(n)
            report(f"compiled counter n={n}, one core", seconds, None, note=f"{len(chosen):,} constellations")
            report(
                f"the same search in plain C n={n}, one core: {float(c_seconds):.2f} s",
                seconds / float(c_seconds),
                None,
                "x",
                note="the counter's time as a fraction of C's",
            )
            report(f"estimate before counting n={n}, one core: {estimate:.2f} s", estimate / seconds, None, "x")


def on_dask(n: int) -> None:
    """A count shared by a Dask cluster's workers (its pieces are the constellations, dealt into parts)."""
    from distributed import Client, LocalCluster

    import nqueens_plugins as nq
    from nqueens_plugins.execution.dask_cluster import DaskExecutor

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    client = Client(cluster, set_as_default=False)
    try:
        with DaskExecutor(client=client) as executor:
            seconds, result = timed(lambda: nq.count("bitboard[method=constellations]", n, executor=executor))
        assert result.verified is True and result.solutions == known_count(n), result
        assert classes_of(result) == known_count(n, unique=True), result.counters
        parts = f"{result.counters.get('parts', 0)} parts"
        found = f"{result.solutions:,} = A000170, {classes_of(result):,} classes = A002562, {parts}"
        report(f"bitboard n={n} on the cluster", seconds, None, note=found)
    finally:
        client.close()
        cluster.close()


def against_takaken(n: int) -> None:
    """n = 19: the yardstick would take an hour; the target is the ratio to takaken, same run."""
    new, result = checked_count("bitboard[method=constellations]", n)
    old, _ = checked_count("bitboard[method=takaken]", n)
    report(f"bitboard (constellations) n={n}", new, None, note=f"{result.solutions:,} verified={result.verified}")
    report(f"bitboard[method=takaken] n={n}", old, None)
    report(
        f"constellations / takaken time, n={n} (target: 3x faster)",
        new / old,
        1 / 3,
        "x",
        note=f"constellations {old / new:.2f}x faster",
    )


def before_masked_count(n: int, allowed: Any, rows: int, diagonals: int, anti: int, column: int) -> int:
    """The masked kernel as it was before issue 26 (signed indices, no look-ahead, one compiled call per
    piece), kept here so that today's is measured against it in the same run (``masked`` compiles it)."""
    full = (np.int64(1) << n) - 1
    if column >= n:
        return 1
    free_stack = np.zeros(n + 1, dtype=np.int64)
    rows_stack = np.zeros(n + 1, dtype=np.int64)
    diagonal_stack = np.zeros(n + 1, dtype=np.int64)
    anti_stack = np.zeros(n + 1, dtype=np.int64)
    rows_stack[column] = rows
    diagonal_stack[column] = diagonals
    anti_stack[column] = anti
    free_stack[column] = allowed[column] & ~(rows | diagonals | anti) & full
    last = n - 1
    total = 0
    depth = column
    while depth >= column:
        free = free_stack[depth]
        if free == 0:
            depth -= 1
            continue
        bit = free & -free
        free_stack[depth] = free ^ bit
        if depth == last:
            total += 1
            continue
        r = rows_stack[depth] | bit
        d = ((diagonal_stack[depth] | bit) << 1) & full
        a = (anti_stack[depth] | bit) >> 1
        depth += 1
        rows_stack[depth] = r
        diagonal_stack[depth] = d
        anti_stack[depth] = a
        free_stack[depth] = allowed[depth] & ~(r | d | a) & full
    return int(total)


def masked(limit: int) -> None:
    header(
        f"masked counts: the first {limit} ASP Blocked n-Queens instances with n = 28, today's kernel against before"
    )
    import numba

    from nqueens_plugins.builtin import bitboard
    from nqueens_plugins.builtin.engines import bitboard_kernel
    from nqueens_plugins.formats import instances

    before_kernel = numba.njit(nogil=True)(before_masked_count)
    paths = sorted(ASP.glob("blockedqueens.28.*.param"))[:limit]
    if not paths:
        print(f"skipped: no instances in {ASP}")
        return
    problems = [instances.load_one(str(path)) for path in paths]

    def before(problem: Any) -> int:
        allowed = np.asarray(problem.allowed_rows, dtype=np.int64)
        tasks = bitboard.split(problem, bitboard.split_depth(problem.n))
        return sum(task[4] * before_kernel(problem.n, allowed, *task[:4]) for task in tasks)

    def now(problem: Any) -> int:
        tasks = bitboard.split(problem, bitboard.split_depth(problem.n))  # the same pieces
        return bitboard_kernel.count_tasks(problem.n, problem.allowed_rows, tasks)

    before(problems[0])  # compile the old kernel, load the new one
    now(problems[0])
    before_total = now_total = 0.0
    solutions = 0
    for problem in problems:
        old_seconds, old = timed(lambda problem=problem: before(problem))  # type: ignore[misc]
        new_seconds, new = timed(lambda problem=problem: now(problem))  # type: ignore[misc]
        assert old == new, (problem.source, old, new)
        before_total, now_total, solutions = before_total + old_seconds, now_total + new_seconds, solutions + new
    report(f"before: {len(problems)} instances, one core", before_total, None, note=f"{solutions:,} solutions in all")
    report("now: the same pieces, one core", now_total, None)
    report(
        "now / before (target: 1.3x faster)", now_total / before_total, 1 / 1.3, "x", f"{before_total / now_total:.2f}x"
    )


def small_boards() -> None:
    header("n <= 12 keeps Takaken's path (method=auto is takaken there); n = 13..15: the cut-over")
    for n in (8, 10, 12):
        seconds, result = checked_count("bitboard", n)
        assert "subtrees" in result.counters, result.counters  # Takaken's pieces: the path of before
        report(f"bitboard n={n} (auto: takaken, as before)", seconds, None)
    for n in (13, 14, 15):
        takaken = min(checked_count("bitboard[method=takaken]", n)[0] for _ in range(5))
        constellations = min(checked_count("bitboard[method=constellations]", n)[0] for _ in range(5))
        report(
            f"bitboard[method=constellations] n={n}, best of 5",
            constellations,
            None,
            note=f"takaken {takaken:.4f} s: {takaken / constellations:.2f}x",
        )


def pure_python() -> None:
    header("pure-Python engine (checked against OEIS)")
    reference, value = timed(lambda: plain_count(14))
    assert value == known_count(14)
    report("reference: textbook pure-Python bit-mask count n=14", reference, None)
    seconds, _ = checked_count("bitboard[kernel=python]", 14)
    takaken, _ = checked_count("bitboard[kernel=python,method=takaken]", 14)
    report(
        "bitboard[kernel=python] n=14 (both cores)",
        seconds,
        3.0,
        note=f"{reference / seconds:.1f}x the reference; method=takaken {takaken:.2f} s",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-17", action="store_true", help="only n = 16 beside the yardstick (a minute less)")
    parser.add_argument("--with-18", action="store_true", help="n = 18 beside takaken and the yardstick (10 min)")
    parser.add_argument("--with-19", action="store_true", help="n = 19 beside takaken (15-20 min)")
    parser.add_argument("--with-20", action="store_true", help="n = 20 within 25 minutes (about half an hour)")
    parser.add_argument(
        "--with-20-dask", action="store_true", help="n = 20 on a Dask LocalCluster of 2 workers (another half hour)"
    )
    parser.add_argument("--asp-limit", type=int, default=30, help="ASP n = 28 instances for the masked counts")
    parser.add_argument("--join-only", action="store_true", help="only the join section (issue 41), then n = 20")
    arguments = parser.parse_args()
    print(f"{machine()}; {load()}")
    count("bitboard", 12)  # load the kernels once, outside the timings
    count("bitboard", 14)
    count("bitboard[method=takaken]", 14)
    count("bitboard[method=join]", 14)
    count("bitboard[method=join]", 14, unique=True)
    yardstick = Yardstick()
    join_ratios(yardstick, [16] if arguments.skip_17 else [16, 17])
    if arguments.with_18:
        join_ratios(yardstick, [18])
    if arguments.with_20:
        join_at_20()
    if arguments.join_only:
        print(f"end: {load()}")
        finish()
        return
    yardstick_ratios(yardstick, [16] if arguments.skip_17 else [16, 17])
    if arguments.with_18:
        yardstick_ratios(yardstick, [18])
    if arguments.with_19:
        header("n = 19: constellations against takaken, both cores (the yardstick would take an hour)")
        against_takaken(19)
    if arguments.with_20:
        header("n = 20, both cores")
        seconds, result = checked_count("bitboard[method=constellations]", 20)
        classes = f"{result.solutions:,} = A000170, {classes_of(result):,} classes = A002562"
        report("bitboard[method=constellations] n=20 (target: within 25 minutes)", seconds, 25 * 60, note=classes)
    if arguments.with_20_dask:
        header("n = 20 on a Dask LocalCluster of 2 single-threaded worker processes")
        on_dask(20)
    masked(arguments.asp_limit)
    small_boards()
    pure_python()
    one_core([16] if arguments.skip_17 else [16, 17])
    header("one core (for the split's gain)")
    seconds, result = checked_count("bitboard[workers=1]", 15)
    report("bitboard[workers=1] n=15", seconds, None, note=f"{result.solutions:,} verified={result.verified}")
    finish()


if __name__ == "__main__":
    main()
