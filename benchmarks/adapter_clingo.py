"""The clingo adapter (plugins/nqueens-clingo) against raw clingo on the same program:
python benchmarks/adapter_clingo.py [--quick]

The baseline is the clingo Python API as its documentation shows it, on the very text the adapter
exports (``Clingo.export``: the encoding and the instance's facts): ``Control`` with the same
``--configuration`` and the seed the host hands the adapter (so the two searches are the same: the
choices agree), ``add``, ``ground``, a blocking ``solve`` and the model's ``queen/2`` atoms read.
Times are CPU seconds of this process (every thread: clasp searches in its own when the adapter
solves asynchronously), not wall time: the machine is shared, and a neighbour's load would
otherwise decide small differences. Two ratios per instance (interleaved runs, median), then
their geometric means:

* plugin / raw: ``Clingo.solve`` called directly with the host's rng, against raw clingo: what the
  adapter adds (building the program text, the budget guard, asynchronous solving with a wait,
  the statistics read into counters, the board read);
* host / raw: ``nq.solve(..., isolate=False)``, the host's whole in-process call (resolving the
  variant, seeding, the plugin call, verifying the board, the result): what a user's call costs.
"""

from __future__ import annotations

import random
import statistics
import sys
from collections.abc import Callable
from typing import Any

from common import CSPLIB, cpu_timed, finish, header, machine, report, report_overhead, solve

from nqueens_plugins import Budget, Problem
from nqueens_plugins.core.limits import DEFAULT_LIMITS
from nqueens_plugins.formats.instances import load_one, shipped_instance

REPEATS = 5  # runs of each, after one to warm up; 4x as many for instances raw clingo decides within 0.1 s
OPTIONS = {"encoding": "competition", "configuration": "crafty"}  # the adapter's defaults
# Blocked n-Queens from the 2009 ASP competition set, decided by clingo in about a second here.
COMPETITION = ("blockedqueens.56.1860530797.param", "blockedqueens.56.1860436781.param")


def host_seed(problem: Problem) -> int:
    """The --seed the adapter gives clasp for seed 0, trial 0 (it draws one number from the host's rng)."""
    return random.Random(DEFAULT_LIMITS.seed_for("clingo", problem, 0)).randrange(2**31)


def raw(problem: Problem) -> tuple[str, int]:
    """Raw clingo on the exported program: the answer and clasp's choices."""
    import clingo

    from nqueens_clingo.asp import Clingo

    control = clingo.Control([f"--configuration={OPTIONS['configuration']}", f"--seed={host_seed(problem)}"])
    control.add("base", [], Clingo().export(problem, OPTIONS, "asp"))
    control.ground([("base", [])])
    queens: list[Any] = []
    result = control.solve(on_model=lambda model: queens.extend(model.symbols(shown=True)))
    answer = "solved" if result.satisfiable else "no-solution" if result.unsatisfiable else "unknown"
    return answer, int(control.statistics["solving"]["solvers"]["choices"])


def plugin(problem: Problem) -> tuple[str, int]:
    """The adapter's own call, as the worker makes it (the host's rng, a budget, every option)."""
    from nqueens_clingo.asp import Clingo

    rng = random.Random(DEFAULT_LIMITS.seed_for("clingo", problem, 0))
    outcome = Clingo().solve(problem, rng, Budget(120.0), OPTIONS)
    return str(outcome.status), outcome.iterations


def host(problem: Problem) -> tuple[str, int]:
    result = solve("clingo", problem, timeout=120)
    assert result.status in ("solved", "no-solution") and result.verified is not False
    return str(result.status), int(result.iterations)


def compare(label: str, problem: Problem) -> tuple[float, float]:
    """Report one instance; the ratios plugin / raw and host / raw of the medians."""
    runs: dict[str, Callable[[Problem], tuple[str, int]]] = {"plugin": plugin, "host": host, "raw": raw}
    answers = {name: run(problem) for name, run in runs.items()}  # warm up, and check the searches agree
    repeats = REPEATS * 4 if cpu_timed(lambda: raw(problem)) < 0.1 else REPEATS
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):  # interleaved, so drift on a busy machine hits all three
        for name, run in runs.items():
            times[name].append(cpu_timed(lambda run=run: run(problem)))  # type: ignore[misc]
    median = {name: statistics.median(values) for name, values in times.items()}
    same = "same search" if len(set(answers.values())) == 1 else f"searches differ: {answers}"
    plugin_ratio, host_ratio = median["plugin"] / median["raw"], median["host"] / median["raw"]
    report_overhead(
        f"clingo {label}",
        median["plugin"],
        median["raw"],
        f"raw {median['raw'] * 1000:.1f} ms, plugin {median['plugin'] * 1000:.1f} ms, "
        f"host {median['host'] * 1000:.1f} ms (+{100 * (host_ratio - 1):.0f} %); "
        f"{answers['raw'][0]}, {answers['raw'][1]} choices; {same}",
    )
    return plugin_ratio, host_ratio


def main() -> None:
    quick = "--quick" in sys.argv
    print(machine())
    shipped = shipped_instance("blockedqueens.28.1449787894.param")
    diagonals = shipped_instance("diag-10-4-1.param")
    assert shipped is not None and diagonals is not None
    cases: list[tuple[str, Problem]] = [
        ("n=8", Problem(8)),
        ("n=50", Problem(50)),
        ("blocked n=28 (satisfiable)", load_one(str(shipped))),
        ("diag-10-4-1@7 (no solution)", load_one(f"{diagonals}@7")),
    ]
    if not quick:
        cases.append(("n=150", Problem(150)))
        for name in COMPETITION:
            path = CSPLIB / "asp-blocked-queens" / name
            if path.exists():  # the shared CSPLib folder, beside the repository
                cases.append(
                    (f"blocked {name.removeprefix('blockedqueens.').removesuffix('.param')}", load_one(str(path)))
                )
    header("clingo adapter against raw clingo on the same program (CPU time, median of interleaved runs)")
    ratios = [compare(label, problem) for label, problem in cases]
    report(
        "plugin / raw, geometric mean over the instances", statistics.geometric_mean(r[0] for r in ratios), None, "x"
    )
    report("host / raw, geometric mean over the instances", statistics.geometric_mean(r[1] for r in ratios), None, "x")
    finish()


if __name__ == "__main__":
    main()
