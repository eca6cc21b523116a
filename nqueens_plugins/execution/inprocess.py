"""Execution layer, both sides in one process: a solver called here and judged here, no isolation.

For trusted solvers and benchmarks (``nq.solve(..., isolate=False)``): the time
limit is the solver's own to honour, and a crash takes this process with it.
Everything else goes through an executor (``local.py``) (isolated workers, limits enforced
from outside). The solver gets a copy of the problem, so a plugin that changes
what it was given is still judged on the host's own.
"""

from __future__ import annotations

from nqueens_plugins.core.limits import DEFAULT_LIMITS, Limits
from nqueens_plugins.core.problem import Budget, Problem
from nqueens_plugins.core.solver import Variant
from nqueens_plugins.execution import certificates
from nqueens_plugins.execution.answers import CountResult, Result
from nqueens_plugins.execution.calls import execute, execute_count
from nqueens_plugins.execution.judge import judge, judge_count
from nqueens_plugins.execution.proof_checks import settle_here
from nqueens_plugins.execution.tasks import Task, TaskKind, check_countable, check_runnable, start_trace


def run(
    variant: Variant, problem: Problem, limits: Limits = DEFAULT_LIMITS, *, trial: int = 0, trace: bool = False
) -> Result:
    """Solve in this process and verify (``limits.memory`` and ``prepare_timeout`` need a worker: unused)."""
    check_runnable(variant, problem)
    steps = start_trace(variant, problem) if trace else None
    log = certificates.open_log(problem, limits) if certificates.wanted(variant, problem, limits) else None
    budget = Budget(limits.timeout, limits.max_iterations, trace=steps, proof=log)
    executed = execute(variant, problem.copy(), limits, trial, budget)
    if log is not None:  # the checker runs in a process of its own, even here, on this problem
        executed = certificates.hand_over(executed, log)
        executed = settle_here(Task(TaskKind.SOLVE, variant, problem, limits, trial), executed, log.path.parent)
    return judge(variant, problem, limits, trial, executed)


def count(variant: Variant, problem: Problem, limits: Limits = DEFAULT_LIMITS, *, unique: bool = False) -> CountResult:
    """Count in this process and verify."""
    check_countable(variant, problem, unique, limits.memory)
    executed = execute_count(variant, problem.copy(), unique, Budget(limits.timeout))
    return judge_count(variant, problem, unique, executed)
