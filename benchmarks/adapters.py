"""The exact-solver adapters against their raw libraries (adapters issue):
python benchmarks/adapters.py [--skip-slow]

* adapter overhead, same model, same process, interleaved runs: at most 5 % for CP-SAT
  (n <= 100), 10 % for python-constraint;
* CP-SAT configurations at n = 200: the OR-Tools sample model against the boolean model
  (target: at least 2x faster); stretch: n = 500 within 60 s;
* the python-constraint adapter's default: first solution at n = 64 within 1 s.
"""

from __future__ import annotations

import statistics
import sys

from common import finish, header, report, solve, timed

REPEATS = 7


def raw_cpsat(n: int) -> int:
    """The OR-Tools sample, as its documentation writes it, with the adapter's parameters."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    queens = [model.new_int_var(0, n - 1, f"q{i}") for i in range(n)]
    model.add_all_different(queens)
    model.add_all_different([queens[i] + i for i in range(n)])
    model.add_all_different([queens[i] - i for i in range(n)])
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = 60
    solver.solve(model)
    return [solver.value(q) for q in queens]


def raw_constraint(n: int) -> dict:
    """python-constraint's classic N-Queens model with BacktrackingSolver."""
    import constraint

    problem = constraint.Problem(constraint.BacktrackingSolver())
    problem.addVariables(range(n), range(n))
    problem.addConstraint(constraint.AllDifferentConstraint())
    for a in range(n):
        for b in range(a + 1, n):
            problem.addConstraint(lambda x, y, d=b - a: abs(x - y) != d, (a, b))
    return problem.getSolution()


def overhead(label: str, raw, adapter, limit: float) -> None:  # type: ignore[no-untyped-def]
    raw(), adapter()  # warm up imports and caches
    raw_times, adapter_times = [], []
    for _ in range(REPEATS):  # interleaved, so drift on a noisy machine hits both
        raw_times.append(timed(raw)[0])
        adapter_times.append(timed(adapter)[0])
    raw_median, adapter_median = statistics.median(raw_times), statistics.median(adapter_times)
    ratio = adapter_median / raw_median - 1
    report(
        f"{label} overhead",
        100 * ratio,
        100 * limit,
        unit="%",
        note=f"raw {raw_median * 1000:.1f} ms, adapter {adapter_median * 1000:.1f} ms",
    )


def main() -> None:
    header("adapter overhead against the raw library (median of interleaved runs)")
    for n in (50, 100):
        overhead(f"ortools-cpsat n={n}", lambda: raw_cpsat(n), lambda: solve("ortools-cpsat", n, timeout=60), 0.05)
    for n in (32, 64):
        overhead(
            f"python-constraint n={n}",
            lambda: raw_constraint(n),
            lambda: solve("python-constraint", n, timeout=60),
            0.10,
        )

    header("python-constraint adapter default")
    seconds, result = timed(lambda: solve("python-constraint", 64, timeout=10))
    report("python-constraint n=64 first solution", seconds, 1.0, note=result.status)
    seconds, result = timed(lambda: solve("python-constraint[solver=optimized]", 32, timeout=10))
    report("python-constraint[solver=optimized] n=32 (the library's default)", seconds, None, note=result.status)

    header("CP-SAT configurations (1 worker; sample = the OR-Tools sample model)")
    sample, result = timed(lambda: solve("ortools-cpsat", 200, timeout=60))
    report("ortools-cpsat (sample model) n=200", sample, None, note=result.status)
    fast, result = timed(lambda: solve("ortools-cpsat[model=boolean]", 200, timeout=60))
    report("ortools-cpsat[model=boolean] n=200", fast, None, note=result.status)
    report(
        "speed-up of model=boolean at n=200 (target >= 2x)",
        sample / fast,
        None,
        unit="x",
        note="ok" if sample / fast >= 2 else "MISSED",
    )
    strategy, result = timed(lambda: solve("ortools-cpsat[strategy=mindomain-median]", 200, timeout=60))
    report("ortools-cpsat[strategy=mindomain-median] n=200", strategy, None, note=result.status)
    if "--skip-slow" not in sys.argv:
        seconds, result = timed(lambda: solve("ortools-cpsat[model=boolean]", 500, timeout=60))
        report("ortools-cpsat[model=boolean] n=500 (stretch)", seconds, 60.0, note=result.status)
        seconds, result = timed(lambda: solve("ortools-cpsat", 500, timeout=60))
        report("ortools-cpsat (sample model) n=500", seconds, None, note=result.status)
    finish()


if __name__ == "__main__":
    main()
