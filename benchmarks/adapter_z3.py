"""The z3 adapter (plugins/nqueens-z3) against raw Z3 on the same model: python benchmarks/adapter_z3.py [--quick]

Two baselines, both with the seed the host hands the adapter (so the searches are the same: the
decisions agree), interleaved runs, median:

* raw Z3 on the adapter's own SMT-LIB text (``Solver.from_string`` in one piece, ``check``, the
  model's text read at once, as the adapter reads it): what the adapter adds (the host's in-process call, chunked parsing with budget
  polls, a fresh context, reading the board);
* raw Z3 through its Python API (``z3.Bool``, ``z3.AtMost``, ``z3.Or``, as its tutorials write it),
  the same constraints: the adapter parses text instead, which is what makes it faster than this.

Then the models side by side (bool, the default, against int) and a small count.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import Any

from common import finish, header, interleaved_medians, machine, report, report_overhead, solve, timed

from nqueens_plugins import Problem
from nqueens_plugins.core.limits import DEFAULT_LIMITS
from nqueens_plugins.formats.instances import load_one, shipped_instance

REPEATS = 5


def host_seed(problem: Problem) -> int:
    """The random_seed the adapter gives Z3 for seed 0, trial 0 (it draws one number from the host's rng)."""
    return random.Random(DEFAULT_LIMITS.seed_for("z3", problem, 0)).randrange(2**31)


def raw_text(problem: Problem) -> tuple[list[int], int]:
    """Z3 on the adapter's SMT-LIB text, parsed in one piece."""
    import z3

    from nqueens_z3.smt import TRUE_SQUARE, assertions

    solver = z3.Solver(ctx=z3.Context())
    solver.set("random_seed", host_seed(problem))
    solver.set("timeout", 60_000)
    solver.from_string("\n".join(assertions(problem, "bool")))
    assert solver.check() == z3.sat
    queens = [0] * problem.n
    for column, row in TRUE_SQUARE.findall(solver.model().sexpr()):  # the model's text, read at once
        queens[int(column)] = int(row)
    return queens, int(solver.statistics().get_key_value("decisions"))


def raw_api(problem: Problem) -> tuple[list[int], int]:
    """The same model built through Z3's Python API, as the Z3 tutorials build cardinality models."""
    import z3

    n = problem.n
    ctx = z3.Context()
    x = [[z3.Bool(f"x{c}_{r}", ctx) for r in range(n)] for c in range(n)]
    solver = z3.Solver(ctx=ctx)
    solver.set("random_seed", host_seed(problem))
    solver.set("timeout", 60_000)
    for c in range(n):
        solver.add(z3.Or(x[c]))
        solver.add(z3.AtMost(*x[c], 1))
    for r in range(n):
        row = [x[c][r] for c in range(n)]
        solver.add(z3.Or(row))
        solver.add(z3.AtMost(*row, 1))
    for total in range(2 * n - 1):
        cells = [x[c][total - c] for c in range(n) if 0 <= total - c < n]
        if len(cells) > 1:
            solver.add(z3.AtMost(*cells, 1))
    for difference in range(-n + 1, n):
        cells = [x[c][c + difference] for c in range(n) if 0 <= c + difference < n]
        if len(cells) > 1:
            solver.add(z3.AtMost(*cells, 1))
    for c, r in sorted(problem.blocked):
        solver.add(z3.Not(x[c][r]))
    assert solver.check() == z3.sat
    model = solver.model()
    queens = [next(r for r in range(n) if z3.is_true(model.eval(x[c][r], model_completion=True))) for c in range(n)]
    return queens, int(solver.statistics().get_key_value("decisions"))


def adapter(problem: Problem) -> tuple[list[int], int]:
    result = solve("z3", problem, timeout=60)
    assert result.verified
    return list(result.queens), int(result.counters["decisions"])


def compare(label: str, problem: Problem) -> None:
    runs: dict[str, Callable[[Problem], tuple[list[int], int]]] = {
        "adapter": adapter,
        "raw text": raw_text,
        "raw API": raw_api,
    }
    median, answers = interleaved_medians(runs, problem, REPEATS, cpu=True)
    decisions = {name: answer[1] for name, answer in answers.items()}
    same = "same search" if len(set(decisions.values())) == 1 else f"decisions differ: {decisions}"
    report_overhead(
        f"z3 {label} (raw: the same text)",
        median["adapter"],
        median["raw text"],
        f"adapter {median['adapter'] * 1000:.0f} ms, raw text {median['raw text'] * 1000:.0f} ms; {same}",
    )
    report(
        f"z3 {label}: adapter / raw API",
        median["adapter"] / median["raw API"],
        None,
        unit="x",
        note=f"raw API {median['raw API'] * 1000:.0f} ms",
    )


def main() -> None:
    quick = "--quick" in sys.argv
    print(machine())
    blocked = shipped_instance("blockedqueens.28.1449787894.param")
    assert blocked is not None
    header("z3 adapter against raw Z3 on the same bool model (median of interleaved runs)")
    cases: list[tuple[str, Any]] = [("n=30", Problem(30)), ("blocked n=28", load_one(str(blocked)))]
    if not quick:
        cases.append(("n=100", Problem(100)))
    for label, problem in cases:
        compare(label, problem)

    header("z3 models (one run each)")
    for spec, n in (("z3", 30), ("z3[model=int]", 30), ("z3", 64), ("z3[model=int]", 64)):
        seconds, result = timed(lambda spec=spec, n=n: solve(spec, n, timeout=10))  # type: ignore[misc]
        report(f"{spec} n={n}", seconds, None, note=result.status)
    seconds, result = timed(lambda: solve("z3", instance=str(blocked), timeout=10))
    report("z3 blocked n=28 (satisfiable)", seconds, None, note=result.status)
    seconds, result = timed(lambda: solve("z3[model=int]", instance=str(blocked), timeout=10))
    report("z3[model=int] blocked n=28", seconds, None, note=result.status)

    header("z3 counting by enumeration")
    from common import count

    for n in (8, 10):
        seconds, counted = timed(lambda n=n: count("z3", n, timeout=60))  # type: ignore[misc]
        report(f"z3 count n={n}", seconds, None, note=f"{counted.solutions} solutions, {counted.status}")
    finish()


if __name__ == "__main__":
    main()
