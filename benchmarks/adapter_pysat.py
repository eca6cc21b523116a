"""The pysat adapter (plugins/nqueens-pysat) against raw python-sat on the same CNF:
python benchmarks/adapter_pysat.py [--quick]

The baseline is python-sat as its documentation writes it: a CNF given to
``Solver(name=..., bootstrap_with=...)``, one ``solve()``, the board read from ``get_model()``.
The CNF is written here as a python-sat user writes it (``pysat.card.CardEnc.atmost``, pairwise,
the adapter's default, and plain clauses) and checked to hold exactly the adapter's clauses; the
baseline then poses them in the adapter's order, since a SAT solver's search turns on the order of
its clauses (in another order the conflicts differ by 2x either way, and the ratio would measure
luck). The adapter (``nq.solve`` in this process) adds the host's call and verification and the CNF
built line by line; with CaDiCaL (the default) a forked child process that builds and solves
(python-sat cannot interrupt CaDiCaL, so the child is killed at the deadline) and sends the board
back, and with a MiniSat-line solver a timer thread beside ``solve_limited``. Each line says whether
the conflicts agree (the same search); the issue's 10 % is judged where they do.

Instances: three unsatisfiable Blocked n-Queens instances of the ASP competitions (CSPLib
prob080, about a second each; skipped when ../shared/csplib is absent), the shipped n = 28
instance (satisfiable) and plain boards n = 50 and 100 (n = 100 is 1.6 million clauses); then
minisat22 on the small ones. Interleaved runs, median; times are wall-clock, so the load average
is printed.
"""

from __future__ import annotations

import os
import statistics
import sys
from collections.abc import Callable
from typing import Any

from common import CSPLIB, finish, header, machine, report, report_overhead, solve, timed

from nqueens_plugins import Problem
from nqueens_plugins.formats.instances import load_one, shipped_instance

REPEATS = 3
ASP = CSPLIB / "asp-blocked-queens"
HARD = ("blockedqueens.48.1721243211.param", "blockedqueens.50.1642407126.param", "blockedqueens.56.1860436781.param")


def raw_clauses(problem: Problem) -> tuple[list[list[int]], int]:
    """The CNF as a python-sat user writes it: square (c, r) is variable c*n + r + 1; exactly one queen
    per column, at least one per row, at most one per row and diagonal (open squares), units."""
    from pysat.card import CardEnc, EncType

    n = problem.n
    blocked = problem.blocked
    clauses: list[list[int]] = []
    top = n * n

    def at_most_one(squares: list[tuple[int, int]]) -> None:
        nonlocal top
        literals = [c * n + r + 1 for c, r in squares if (c, r) not in blocked]
        if len(literals) > 1:
            formula = CardEnc.atmost(literals, 1, top_id=top, encoding=EncType.pairwise)
            clauses.extend(formula.clauses)
            top = max(top, formula.nv)

    for c in range(n):
        clauses.append([c * n + r + 1 for r in range(n) if (c, r) not in blocked])
        at_most_one([(c, r) for r in range(n)])
    for r in range(n):
        clauses.append([c * n + r + 1 for c in range(n) if (c, r) not in blocked])
        at_most_one([(c, r) for c in range(n)])
    for total in range(2 * n - 1):
        at_most_one([(c, total - c) for c in range(n) if 0 <= total - c < n])
    for difference in range(-n + 1, n):
        at_most_one([(c, c + difference) for c in range(n) if 0 <= c + difference < n])
    clauses.extend([c * n + r + 1] for c, r in problem.fixed.items())
    clauses.extend([-(c * n + r + 1)] for c, r in sorted(blocked))
    return clauses, top


def raw(problem: Problem, solver: str, ordered: list[list[int]]) -> tuple[str, int]:
    """python-sat alone: build the CNF (``raw_clauses``), one solve(), read the board; (status, conflicts).
    The solver is handed ``ordered``, the same clauses in the adapter's order, made before the clock
    starts: the build is timed as a python-sat user's, the search is the adapter's."""
    from pysat.solvers import Solver

    n = problem.n
    raw_clauses(problem)
    with Solver(name=solver, bootstrap_with=ordered) as sat:
        satisfiable = sat.solve()
        if satisfiable:
            model = sat.get_model()
            queens = [next(r for r in range(n) if model[c * n + r] > 0) for c in range(n)]
            assert len(queens) == n
        return ("solved" if satisfiable else "no-solution"), int(sat.accum_stats()["conflicts"])


def adapter(problem: Problem, solver: str, ordered: list[list[int]]) -> tuple[str, int]:
    result = solve(f"pysat[solver={solver}]", problem, timeout=120)
    assert result.status in ("solved", "no-solution"), result.status
    assert result.status == "no-solution" or result.verified
    return str(result.status), int(result.counters["conflicts"])


def adapter_order(problem: Problem) -> list[list[int]]:
    """The adapter's clauses in its order, checked to be exactly the baseline's (as sets)."""
    from nqueens_pysat.encoding import clauses_of

    ours, size = clauses_of(problem, "pairwise")
    theirs, top = raw_clauses(problem)
    assert size.variables == top and sorted(map(sorted, ours)) == sorted(map(sorted, theirs)), problem.label
    return ours


def compare(label: str, problem: Problem, solver: str = "cadical195") -> None:
    ordered = adapter_order(problem)
    runs: dict[str, Callable[[Problem, str, list[list[int]]], tuple[str, int]]] = {"raw": raw, "adapter": adapter}
    first = {name: run(problem, solver, ordered) for name, run in runs.items()}  # warm up; both must decide alike
    assert first["raw"][0] == first["adapter"][0], first
    if first["raw"][1] != first["adapter"][1]:
        report(f"pysat {solver} {label}: searches that differ", 1, 0, "", f"conflicts differ: {first}")
        return
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(REPEATS):  # interleaved, so drift on a busy machine hits both
        for name, run in runs.items():
            times[name].append(timed(lambda run=run: run(problem, solver, ordered))[0])  # type: ignore[misc]
    median = {name: statistics.median(values) for name, values in times.items()}
    report_overhead(
        f"pysat {solver} {label}",
        median["adapter"],
        median["raw"],
        f"raw {median['raw'] * 1000:.0f} ms, adapter {median['adapter'] * 1000:.0f} ms; {first['raw'][0]}; "
        f"same search, {first['raw'][1]:,} conflicts",
    )


def main() -> None:
    quick = "--quick" in sys.argv
    print(machine())
    header("pysat adapter against raw python-sat (pairwise) on the same CNF, median of interleaved runs")
    shipped = shipped_instance("blockedqueens.28.1449787894.param")
    assert shipped is not None
    cases: list[tuple[str, Any]] = [("blocked n=28 (shipped)", load_one(str(shipped)))]
    hard = [ASP / name for name in HARD if (ASP / name).exists()]
    if not hard:
        print(f"({ASP} is absent: the published hard instances are skipped)")
    for path in hard[:1] if quick else hard:
        cases.append((path.name.removesuffix(".param"), load_one(str(path))))
    cases.append(("plain n=50", Problem(50)))
    if not quick:
        cases.append(("plain n=100", Problem(100)))
    for label, problem in cases:
        compare(label, problem)
    header("the same with minisat22 (the timer and interrupt() path)")
    for label, problem in cases[:1] + [case for case in cases if case[0] == "plain n=50"]:
        compare(label, problem, "minisat22")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    finish()


if __name__ == "__main__":
    main()
