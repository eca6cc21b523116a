"""The highs adapter (plugins/nqueens-highs) against raw highspy on the same model:
python benchmarks/adapter_highs.py [--quick]

Two baselines, both with the seed the host hands the adapter and the same columns and rows in the
same order (so HiGHS makes the same search: the node and simplex counts agree), interleaved runs,
median:

* raw highspy with the adapter's own arrays in one ``passModel`` call: what the adapter adds (the
  host's in-process call, reading the board, the counters);
* raw highspy through its modelling API (``addBinaries``, ``addConstrs`` over ``qsum``, as the
  highspy examples write a model), the same rows: the adapter builds with numpy instead.

Then how slow HiGHS is: plain boards n = 8..64, the shipped Blocked instances (n = 28, satisfiable,
under three seeds; n = 56, unsatisfiable, under a 30 s budget) and an unsatisfiable n = 28 one.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import Any

from common import CSPLIB, finish, header, interleaved_medians, machine, report, report_overhead, solve, timed

from nqueens_plugins import Problem
from nqueens_plugins.core.limits import DEFAULT_LIMITS
from nqueens_plugins.formats.instances import load_one, shipped_instance

REPEATS = 7
Run = tuple[list[int], tuple[int, int]]  # the board, (nodes, simplex iterations)


def host_seed(problem: Problem) -> int:
    """The random_seed the adapter gives HiGHS for seed 0, trial 0 (one number from the host's rng)."""
    return random.Random(DEFAULT_LIMITS.seed_for("highs", problem, 0)).randrange(2**31)


def finish_raw(highs: Any, problem: Problem) -> Run:
    import numpy as np

    highs.setOptionValue("random_seed", host_seed(problem))
    highs.setOptionValue("time_limit", 60.0)
    highs.run()
    n = problem.n
    queens = np.asarray(highs.getSolution().col_value).reshape(n, n).argmax(axis=1).tolist()
    info = highs.getInfo()
    return queens, (int(info.mip_node_count), int(info.simplex_iteration_count))


def raw_arrays(problem: Problem) -> Run:
    """highspy given the adapter's arrays in one passModel call."""
    import highspy
    import numpy as np

    from nqueens_highs.mip import constraint_matrix

    n = problem.n
    start, index, row_lower, row_upper = constraint_matrix(n)
    col_upper = np.ones(n * n)
    for c, r in problem.blocked:
        col_upper[c * n + r] = 0.0
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.passModel(
        n * n,
        len(row_lower),
        len(index),
        int(highspy.MatrixFormat.kRowwise),
        int(highspy.ObjSense.kMinimize),
        0.0,
        np.zeros(n * n),
        np.zeros(n * n),
        col_upper,
        row_lower,
        row_upper,
        start,
        index,
        np.ones(len(index)),
        np.ones(n * n, dtype=np.int32),
    )
    return finish_raw(highs, problem)


def raw_modelling(problem: Problem) -> Run:
    """The same rows through highspy's modelling API, in the same order."""
    import highspy

    n = problem.n
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    x = highs.addBinaries(n * n)
    for c, r in problem.blocked:
        highs.changeColBounds(c * n + r, 0.0, 0.0)
    highs.addConstrs(highs.qsum(x[c * n + r] for r in range(n)) == 1 for c in range(n))
    highs.addConstrs(highs.qsum(x[c * n + r] for c in range(n)) == 1 for r in range(n))
    sums = [[c * n + total - c for c in range(n) if 0 <= total - c < n] for total in range(2 * n - 1)]
    differences = [[c * n + c + k for c in range(n) if 0 <= c + k < n] for k in range(-n + 1, n)]
    highs.addConstrs(highs.qsum(x[i] for i in line) <= 1 for line in sums + differences if len(line) > 1)
    return finish_raw(highs, problem)


def adapter(problem: Problem) -> Run:
    result = solve("highs", problem, timeout=60)
    assert result.verified
    return list(result.queens), (int(result.counters["nodes"]), int(result.counters["simplex_iterations"]))


def compare(label: str, problem: Problem) -> None:
    runs: dict[str, Callable[[Problem], Run]] = {"adapter": adapter, "raw arrays": raw_arrays, "raw API": raw_modelling}
    median, answers = interleaved_medians(runs, problem, REPEATS, cpu=True)
    searches = {name: answer[1] for name, answer in answers.items()}
    same = "same search" if len(set(searches.values())) == 1 else f"searches differ (nodes, lp): {searches}"
    report_overhead(
        f"highs {label} (raw: the same arrays)",
        median["adapter"],
        median["raw arrays"],
        f"adapter {median['adapter'] * 1000:.0f} ms, raw arrays {median['raw arrays'] * 1000:.0f} ms; {same}",
    )
    report(
        f"highs {label}: adapter / raw modelling API",
        median["adapter"] / median["raw API"],
        None,
        unit="x",
        note=f"raw API {median['raw API'] * 1000:.0f} ms",
    )


def main() -> None:
    quick = "--quick" in sys.argv
    print(machine())
    shipped = shipped_instance("blockedqueens.28.1449787894.param")
    assert shipped is not None
    blocked = load_one(str(shipped))
    header("highs adapter against raw highspy on the same model (median of interleaved runs)")
    cases: list[tuple[str, Problem]] = [("n=32", Problem(32)), ("blocked n=28", blocked)]
    if not quick:
        cases.append(("n=100", Problem(100)))
    for label, problem in cases:
        compare(label, problem)

    header("how slow HiGHS is (one run each, seed 0)")
    for n in (8, 16, 32, 48, 64):
        seconds, result = timed(lambda n=n: solve("highs", n, timeout=60))  # type: ignore[misc]
        report(f"highs n={n}", seconds, None, note=f"{result.status}, {result.counters.get('nodes')} nodes")
    seconds, result = timed(lambda: solve("highs", blocked, timeout=60))
    report(
        "highs blocked n=28 (satisfiable)", seconds, None, note=f"{result.status}, {result.counters.get('nodes')} nodes"
    )
    for seed in (1, 2):
        seconds, result = timed(lambda seed=seed: solve("highs", blocked, timeout=60, seed=seed))  # type: ignore[misc]
        report(
            f"highs blocked n=28, seed {seed}",
            seconds,
            None,
            note=f"{result.status}, {result.counters.get('nodes')} nodes",
        )
    hard = shipped_instance("blockedqueens.56.1860451109.param")
    assert hard is not None
    seconds, result = timed(lambda: solve("highs", load_one(str(hard)), timeout=30))
    report("highs blocked n=56 (unsatisfiable), 30 s budget", seconds, None, note=f"{result.status}")
    unsatisfiable = CSPLIB / "asp-blocked-queens" / "blockedqueens.28.1449787798.param"
    if unsatisfiable.exists():  # the published data beside the repository, where it is
        seconds, result = timed(lambda: solve("highs", load_one(str(unsatisfiable)), timeout=60))
        report(
            "highs blocked n=28 1449787798 (unsatisfiable)",
            seconds,
            None,
            note=f"{result.status}, {result.counters.get('nodes')} nodes",
        )
    finish()


if __name__ == "__main__":
    main()
