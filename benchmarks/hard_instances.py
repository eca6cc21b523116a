"""Hard instances (issue: n-Queens Completion, Blocked n-Queens, Excluded Diagonals):

    python benchmarks/hard_instances.py [--asp-limit N] [--diagonal-files K] [--skip-asp]

Reads the published CSPLib data in ../shared/csplib (skips what is absent) and prints:

* all 400 Blocked n-Queens instances of the ASP competitions decided by ``bitset-mrv``,
  each answer compared with lingeling's published one, every board verified: total
  time at most 700 s, hardest at most 60 s (anchors: lingeling's published run,
  6,922 s in all and 432 s for the hardest, on the authors' 2017 machine);
* Excluded Diagonals: ``bitset-mrv`` on K lists per n = 10..21 at every d the
  shiftqueens results cover, agreement 100 % on at least 5,000 pairs, median time
  per instance under 0.05 s;
* ``bitboard`` with per-column masks against the same counter without masks, on the
  same plain board and the same subtrees: within 1.2x per node.

Times are measured in this process around each solver call (``inprocess.run``: seeded,
budgeted, verified), after one warm-up call that loads the compiled kernel.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict

from common import ASP, CSPLIB, DIAGONALS, finish, header, lingeling_answers, report, shiftqueens_results

from nqueens_plugins.execution.inprocess import run
from nqueens_plugins.formats import instances
from nqueens_plugins.loading import host


def asp(limit: int | None) -> None:
    header("Blocked n-Queens, ASP competition instances (bitset-mrv against lingeling's published answers)")
    answers = lingeling_answers()
    variant = host.registry().variant("bitset-mrv")
    paths = sorted(ASP.glob("blockedqueens.*.param"), key=lambda p: (int(p.name.split(".")[1]), p.name))[:limit]
    run(variant, instances.load_one(str(paths[0])))  # warm-up: the compiled kernel is loaded once
    total, hardest, hardest_name, agree, verified, satisfiable = 0.0, 0.0, "", 0, 0, 0
    by_size: dict[int, list[float]] = defaultdict(list)
    for path in paths:
        problem = instances.load_one(str(path))
        result = run(variant, problem)
        published, _ = answers[path.name]
        decided_sat = result.status == "solved"
        agree += result.status in ("solved", "no-solution") and decided_sat == published
        verified += decided_sat and result.verified is True
        satisfiable += decided_sat
        total += result.seconds
        by_size[problem.n].append(result.seconds)
        if result.seconds > hardest:
            hardest, hardest_name = result.seconds, path.name
    lingeling_total = sum(answers[p.name][1] for p in paths)
    lingeling_hardest = max(answers[p.name][1] for p in paths)
    for n, seconds in sorted(by_size.items()):
        report(f"n = {n}: {len(seconds)} instances, total", sum(seconds), None, note=f"hardest {max(seconds):.2f} s")
    report(
        f"instances agreeing with lingeling ({agree}/{len(paths)})",
        100 * agree / len(paths),
        None,
        "%",
        note=f"{satisfiable} satisfiable, {len(paths) - satisfiable} not; boards verified: {verified}/{satisfiable}",
    )
    report(
        f"all {len(paths)} decided, total",
        total,
        700 if limit is None else None,
        note=f"lingeling (published): {lingeling_total:,.0f} s",
    )
    report(f"hardest instance ({hardest_name})", hardest, 60, note=f"lingeling's hardest: {lingeling_hardest:.0f} s")
    if agree != len(paths):
        report("disagreements with the published answers", len(paths) - agree, 0, "")


def excluded_diagonals(files_per_n: int) -> None:
    header(
        f"Excluded Diagonals, n = 10..21, {files_per_n} lists each, every published d (bitset-mrv against shiftqueens)"
    )
    answers = shiftqueens_results()
    variant = host.registry().variant("bitset-mrv")
    run(variant, instances.load_one(str(ASP / "blockedqueens.28.1449787894.param")))  # warm-up: load the kernel
    seconds, pairs, agree = [], 0, 0
    for n in range(10, 22):
        lists = instances.diagonal_lists(DIAGONALS / f"diag-{n}.tar.gz")
        lists.sort(key=lambda item: int(item.source.rsplit("-", 1)[1].split(".")[0]))
        for diagonals in lists[:files_per_n]:
            identifier = int(diagonals.source.rsplit("-", 1)[1].split(".")[0])
            for d in range(len(diagonals.diagonals) + 1):
                published = answers.get((n, identifier, d))
                if published is None:
                    continue
                result = run(variant, diagonals.instance(d))
                pairs += 1
                seconds.append(result.seconds)
                agree += result.status in ("solved", "no-solution") and (result.status == "solved") == published[0]
    report(f"instance/d pairs agreeing with shiftqueens ({agree:,}/{pairs:,})", 100 * agree / pairs, None, "%")
    report("pairs checked", pairs, None, "")
    if pairs < 5000 or agree != pairs:
        report("pairs short of 5,000 or disagreeing", max(5000 - pairs, pairs - agree), 0, "")
    report(
        "median milliseconds per instance",
        1000 * statistics.median(seconds),
        50,
        "ms",
        note=f"slowest {max(seconds):.3f} s",
    )


def bitboard_masks() -> None:
    header("bitboard: per-column masks against the same counter without masks (plain n = 15, same subtrees)")
    import numba
    import numpy as np

    from nqueens_plugins.builtin import bitboard
    from nqueens_plugins.builtin.engines import bitboard_kernel
    from nqueens_plugins.formats.inputs import make_problem

    @numba.njit(cache=True, nogil=True)
    def count_without_masks(n: int, rows: int, diagonals: int, anti: int, column: int) -> int:
        full = (np.int64(1) << n) - 1
        free_stack = np.zeros(n + 1, dtype=np.int64)
        rows_stack = np.zeros(n + 1, dtype=np.int64)
        diagonal_stack = np.zeros(n + 1, dtype=np.int64)
        anti_stack = np.zeros(n + 1, dtype=np.int64)
        rows_stack[column], diagonal_stack[column], anti_stack[column] = rows, diagonals, anti
        free_stack[column] = ~(rows | diagonals | anti) & full
        total, depth, last = 0, column, n - 1
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
            rows_stack[depth], diagonal_stack[depth], anti_stack[depth] = r, d, a
            free_stack[depth] = ~(r | d | a) & full
        return total

    n = 15
    problem = make_problem(n)
    tasks = bitboard.split(problem, 3)
    allowed = np.asarray(problem.allowed_rows, dtype=np.int64)
    best_masked = best_plain = float("inf")
    for _ in range(3):  # the first round warms both kernels; the best of three timings each
        start = time.perf_counter()
        masked = sum(t[4] * bitboard_kernel.count(n, allowed, *t[:4]) for t in tasks)
        best_masked = min(best_masked, time.perf_counter() - start)
        start = time.perf_counter()
        plain = sum(t[4] * count_without_masks(n, *t[:4]) for t in tasks)
        best_plain = min(best_plain, time.perf_counter() - start)
    assert masked == plain
    report("counter without masks, n = 15 (reference)", best_plain, None, note=f"{plain:,} solutions")
    report("bitboard kernel with masks, n = 15", best_masked, None)
    report("with masks / without, same nodes", best_masked / best_plain, 1.2, "x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--asp-limit", type=int, default=None, help="only the first N ASP instances (smallest n first)")
    parser.add_argument("--diagonal-files", type=int, default=20, help="Excluded Diagonals lists per n")
    parser.add_argument("--skip-asp", action="store_true")
    arguments = parser.parse_args()
    if not CSPLIB.exists():
        print(f"skipped: {CSPLIB} is not there (it sits beside the repository in this project's workspace)")
        return
    bitboard_masks()
    excluded_diagonals(arguments.diagonal_files)
    if not arguments.skip_asp:
        asp(arguments.asp_limit)
    finish()


if __name__ == "__main__":
    main()
