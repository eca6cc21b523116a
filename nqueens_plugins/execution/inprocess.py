"""Execution layer, both sides in one process: a solver called here and judged here, no isolation.

For trusted solvers and benchmarks (``nq.solve(..., isolate=False)``): the time
limit is the solver's own to honour, and a crash takes this process with it.
Everything else goes through ``service.py`` (isolated workers, limits enforced
from outside). The solver gets a copy of the problem, so a plugin that changes
what it was given is still judged on the host's own.
"""

from __future__ import annotations

from nqueens_plugins.core.problem import Budget, Problem
from nqueens_plugins.core.solver import Variant
from nqueens_plugins.execution.calls import execute, execute_count
from nqueens_plugins.execution.judge import CountResult, Result, judge, judge_count
from nqueens_plugins.execution.tasks import check_countable, check_runnable, start_trace


def run(
    variant: Variant,
    problem: Problem,
    *,
    seed: int = 0,
    trial: int = 0,
    timeout: float | None = None,
    max_iterations: int | None = None,
    trace: bool = False,
) -> Result:
    """Solve in this process and verify."""
    check_runnable(variant, problem)
    steps = start_trace(variant, problem) if trace else None
    executed = execute(variant, problem.copy(), seed, trial, Budget(timeout, max_iterations, trace=steps))
    return judge(variant, problem, seed, trial, executed)


def count(variant: Variant, problem: Problem, *, unique: bool = False, timeout: float | None = None) -> CountResult:
    """Count in this process and verify."""
    check_countable(variant, problem, unique)
    executed = execute_count(variant, problem.copy(), unique, Budget(timeout))
    return judge_count(variant, problem, unique, executed)
