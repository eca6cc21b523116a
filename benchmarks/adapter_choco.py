"""The choco adapter (plugins/nqueens-choco) against raw pychoco on the same model: python benchmarks/adapter_choco.py

Raw pychoco is the model as its documentation writes it (``Model``, ``intvar`` with the open rows
of a column, ``all_different`` with "AC" on the queens and on two ``int_offset_view`` lists,
``set_activity_based_search``, ``solve(time_limit=...)``), the adapter's default options. Against
it, in this process, interleaved, median of REPEATS: the plugin's own ``solve`` called directly
(what the adapter adds), and the host's in-process call (``nq.solve(..., isolate=False)``: seeds,
budget, the verifier, the result). The searches must agree (same board, same node count) for the
ratios to mean anything, and each line says so.

Then a count (raw: ``while solver.solve()`` with min-dom, as the adapter counts) and what
pychoco's native image costs to start in a fresh process (import, first and second solve).
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from common import CSPLIB, count, finish, header, machine, report, report_overhead, solve, timed

from nqueens_plugins import Budget, Problem
from nqueens_plugins.formats.instances import load_one, shipped_instance

REPEATS = 5
DEFAULTS = {"consistency": "AC", "search": "activity", "restarts": "none", "lcg": False}  # the adapter's
BLOCKED = CSPLIB / "asp-blocked-queens"
# Published Blocked n-Queens instances the default decides in about a second or less each here.
EXTRA_INSTANCES = (
    "blockedqueens.28.1449797615.param",
    "blockedqueens.28.1449788237.param",
    "blockedqueens.48.1721325133.param",
    "blockedqueens.50.1642447595.param",
)


def raw_model(problem: Problem, search: str = "activity") -> tuple[Any, list[Any]]:
    """The three-allDifferent model, written with pychoco's own API."""
    from pychoco import Model

    n = problem.n
    model = Model()
    queens = []
    for c in range(n):
        rows = [r for r in range(n) if problem.allowed_rows[c] >> r & 1]
        queens.append(model.intvar(rows, name=f"q{c}") if len(rows) < n else model.intvar(0, n - 1, name=f"q{c}"))
    model.all_different(queens, "AC").post()
    model.all_different([model.int_offset_view(q, c) for c, q in enumerate(queens)], "AC").post()
    model.all_different([model.int_offset_view(q, -c) for c, q in enumerate(queens)], "AC").post()
    solver = model.get_solver()
    if search == "activity":
        solver.set_activity_based_search(*queens)
    else:
        solver.set_min_dom_lb_search(*queens)
    return solver, queens


def raw_solve(problem: Problem) -> tuple[list[int] | None, int]:
    from pychoco import backend

    solver, queens = raw_model(problem)
    found = solver.solve(time_limit="60s")
    nodes = backend.get_node_count(solver._handle)  # pychoco 0.4's get_node_count returns the time
    return ([q.get_value() for q in queens] if found else None), int(nodes)


def adapter_solve(problem: Problem) -> tuple[list[int] | None, int]:
    result = solve("choco", problem, timeout=60)
    assert result.status in ("solved", "no-solution") and result.verified is not False, result.reason
    return (None if result.queens is None else [int(q) for q in result.queens]), result.iterations


def raw_count(problem: Problem) -> int:
    solver, _ = raw_model(problem, "min-dom")
    solver.limit_time("60s")  # once: solve(time_limit=...) would add the limit again on every call
    solutions = 0
    while solver.solve():
        solutions += 1
    return solutions


def plugin_solve(problem: Problem) -> tuple[list[int] | None, int]:
    """The adapter's own ``solve``, called directly: what the plugin adds, without the host around it."""
    from nqueens_choco.choco import Choco

    outcome = Choco().solve(problem, random.Random(0), Budget(60), DEFAULTS)
    return (None if outcome.queens is None else [int(q) for q in outcome.queens]), outcome.iterations


def compare(label: str, problem: Problem) -> float:
    runs: dict[str, Callable[[Problem], tuple[list[int] | None, int]]] = {
        "raw": raw_solve,
        "plugin": plugin_solve,
        "host": adapter_solve,
    }
    answers = {name: run(problem) for name, run in runs.items()}  # warm up; the searches must agree
    nodes = {name: answer[1] for name, answer in answers.items()}
    same = "same search" if len(set(map(repr, answers.values()))) == 1 else f"searches differ: {nodes} nodes"
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(REPEATS):  # interleaved, so drift on a busy machine hits all three
        for name, run in runs.items():
            times[name].append(timed(lambda run=run: run(problem))[0])  # type: ignore[misc]
    median = {name: statistics.median(values) for name, values in times.items()}
    answer = "no solution" if answers["raw"][0] is None else "solved"
    report_overhead(
        f"choco {label}",
        median["plugin"],
        median["raw"],
        f"raw {median['raw'] * 1000:.1f} ms, plugin {median['plugin'] * 1000:.1f} ms; {answer}, {nodes['raw']} nodes; {same}",
    )
    report(
        f"choco {label}: host's in-process call / raw",
        median["host"] / median["raw"],
        None,
        unit="x",
        note=f"host {median['host'] * 1000:.1f} ms (seeds, budget, verifier, result)",
    )
    return median["plugin"] / median["raw"]


STARTUP = """
import random, time
t = time.perf_counter(); import pychoco; imported = time.perf_counter() - t
from nqueens_choco.choco import Choco
from nqueens_plugins import Budget, Problem
options = {"consistency": "AC", "search": "activity", "restarts": "none", "lcg": False}
times = []
for _ in range(2):
    t = time.perf_counter(); Choco().solve(Problem(60), random.Random(0), Budget(30), options)
    times.append(time.perf_counter() - t)
print(imported, *times)
"""


def startup() -> None:
    runs = [
        [
            float(v)
            for v in subprocess.run(
                [sys.executable, "-c", STARTUP], capture_output=True, text=True, check=True
            ).stdout.split()
        ]
        for _ in range(3)
    ]
    imported, first, second = (statistics.median(run[i] for run in runs) for i in range(3))
    report("import pychoco (starts the native image), fresh process", imported, None, note="median of 3 processes")
    report(
        "first n=60 solve after it / second",
        first / second,
        None,
        unit="x",
        note=f"{first * 1000:.0f} ms, {second * 1000:.0f} ms",
    )


def main() -> None:
    print(machine())
    cases: list[tuple[str, Problem]] = [("n=30", Problem(30)), ("n=100", Problem(100)), ("n=200", Problem(200))]
    shipped = shipped_instance("blockedqueens.28.1449787894.param")
    assert shipped is not None
    cases.append(("blocked 28.1449787894", load_one(str(shipped))))
    for name in EXTRA_INSTANCES:
        if (BLOCKED / name).exists():  # the published sets sit beside the repository, when they do
            cases.append(
                (f"blocked {name.removeprefix('blockedqueens.').removesuffix('.param')}", load_one(str(BLOCKED / name)))
            )
    header("choco adapter against raw pychoco, same model and search (median of interleaved runs)")
    ratios = [compare(label, problem) for label, problem in cases]
    report("choco plugin / raw, geometric mean over the instances", statistics.geometric_mean(ratios), None, unit="x")

    header("choco counting (enumeration with min-dom, no solution kept)")
    for n in (9, 10):
        raw_seconds, raw_solutions = timed(lambda n=n: raw_count(Problem(n)))  # type: ignore[misc]
        seconds, counted = timed(lambda n=n: count("choco", n, timeout=60))  # type: ignore[misc]
        assert counted.solutions == raw_solutions
        report(
            f"choco count n={n}: adapter / raw",
            seconds / raw_seconds,
            None,
            unit="x",
            note=f"{counted.solutions} solutions; raw {raw_seconds * 1000:.0f} ms, adapter {seconds * 1000:.0f} ms",
        )

    header("pychoco's GraalVM native image")
    startup()
    finish()


if __name__ == "__main__":
    main()
