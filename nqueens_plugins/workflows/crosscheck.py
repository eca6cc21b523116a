"""Workflows layer, parent side: the cross-check run (``nqueens cross-check``): every solver on every board, in one isolated batch.

Plain boards (``-n``) are checked against OEIS; instances (``--instances``)
against each other and, with ``--expected``, against published CSPLib answers.
This module builds the tasks and runs them through an executor; what the answers
settle (``Check``, ``InstanceCheck``, ``Verdict``) is judged in ``results/crosscheck.py``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.limits import CROSS_CHECK_TIMEOUT, Limits
from nqueens_plugins.core.problem import Problem, Status
from nqueens_plugins.core.solver import Variant
from nqueens_plugins.execution.answers import Result
from nqueens_plugins.execution.executor import Executor
from nqueens_plugins.execution.local import given_or_local
from nqueens_plugins.execution.tasks import Task, TaskKind, check_runnable
from nqueens_plugins.formats.inputs import make_problem
from nqueens_plugins.formats.published import published_answer
from nqueens_plugins.results.crosscheck import (
    SKIPPED,
    Check,
    InstanceCheck,
    count_checks,
    expected_key,
    judge_instance,
    judge_solve,
)

CROSS_CHECK_LIMITS = Limits(timeout=CROSS_CHECK_TIMEOUT)  # a cross-check's limits when none are given


def cross_check_sizes(
    variants: Sequence[Variant],
    sizes: Sequence[int],
    *,
    limits: Limits = CROSS_CHECK_LIMITS,
    jobs: int = 0,
    executor: Executor | None = None,
) -> list[Check]:
    """Every counting variant counts each n and every variant solves it, all in one isolated batch.

    A count or solve that runs out of time is inconclusive, not a disagreement:
    it is listed (``timed-out``), and only answers are compared.
    """
    tasks: list[Task[Any]] = []
    checks: list[Check] = []
    for n in sizes:
        problem = make_problem(n)
        for variant in variants:
            refusal = variant.solver.precheck(n, variant.options)
            if refusal is not None:  # said, not silently left out
                checks.append(Check(n, variant.label, "solve", SKIPPED, "-", True, refusal))
                continue
            if variant.counts:
                tasks.append(Task(TaskKind.COUNT, variant, problem, limits))
            tasks.append(Task(TaskKind.SOLVE, variant, problem, limits))
    counted: dict[int, list[tuple[Variant, Any]]] = {n: [] for n in sizes}
    solved: dict[int, list[tuple[Variant, Any]]] = {n: [] for n in sizes}
    for task, answer in run_tasks(tasks, jobs, executor):
        (counted if task.kind == TaskKind.COUNT else solved)[task.problem.n].append((task.variant, answer))
    for n in sizes:
        checks.extend(count_checks(n, counted[n]))
        solvable = n not in (2, 3)  # a fact of plain boards (every n >= 4 has the construction), never a count's say
        for variant, result in solved[n]:
            checks.append(judge_solve(n, variant, result.status, result.verified, result.reason, solvable))
    order = {v.label: index for index, v in enumerate(variants)}
    checks.sort(key=lambda c: (c.n, c.task != "count", order.get(c.solver, -1)))
    return checks


def run_tasks(tasks: Sequence[Task], jobs: int, executor: Executor | None) -> Iterator[tuple[Task, Any]]:
    """Through the given executor, or local workers made (and ended) for the purpose."""
    with given_or_local(executor, jobs) as backend:
        yield from backend.map(tasks)


def cross_check_instances(
    variants: Sequence[Variant],
    problems: Sequence[Problem],
    *,
    limits: Limits = CROSS_CHECK_LIMITS,
    counting: bool = False,
    expected: Mapping[str, bool] | None = None,
    jobs: int = 0,
    executor: Executor | None = None,
) -> tuple[list[InstanceCheck], dict[str, str]]:
    """Decide every instance with every variant that accepts it (isolated, one batch), then judge.

    A satisfiable verdict needs a verified board; an unsatisfiable one needs a
    no-solution (or a count of 0) from at least two different complete solvers,
    else it is reported unconfirmed. Any solved-versus-no-solution clash, a board
    the verifier rejects, a complete solver's error or differing counts is a
    disagreement, and so is any solver's error. Returns the checks and the
    variants skipped (label -> why).
    """
    skipped: dict[str, str] = {}
    tasks: list[Task[Any]] = []
    unique = list({problem.id: problem for problem in problems}.values())
    for problem in unique:
        for variant in variants:
            try:
                check_runnable(variant, problem)
            except BadInput as exc:
                skipped.setdefault(variant.label, str(exc))
                continue
            tasks.append(Task(TaskKind.SOLVE, variant, problem, limits))
            if counting and variant.counts:
                tasks.append(Task(TaskKind.COUNT, variant, problem, limits))
    results: dict[str, list[Result]] = {problem.id: [] for problem in unique}
    counts: dict[str, dict[str, int | str]] = {problem.id: {} for problem in unique}
    for task, answer in run_tasks(tasks, jobs, executor):
        if task.kind == TaskKind.COUNT:
            value = (
                answer.solutions if answer.status == Status.SOLVED and answer.solutions is not None else answer.status
            )
            counts[task.problem.id][task.variant.label] = value
        else:
            results[task.problem.id].append(answer)
    families = {variant.name: variant.solver.family or variant.name for variant in variants}
    checks = []
    for problem in unique:
        if expected is not None:
            published = expected.get(expected_key(problem))
        else:  # the CSPLib answers shipped with the host
            published = published_answer(problem.source, problem.n) if problem.source else None
        checks.append(judge_instance(problem, results[problem.id], counts[problem.id], published, families))
    return checks, skipped
