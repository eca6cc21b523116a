"""nqueens-plugins: N-Queens solved by many methods side by side, every answer verified.

The Python API mirrors the ``nqueens`` command::

    import nqueens_plugins as nq

    result = nq.solve("min-conflicts", 64, seed=1, init="greedy")
    result.status, result.verified, result.queens[:5], result.iterations, result.moves

    nq.count("bitboard", 10).solutions          # 724, checked against OEIS A000170
    [r.solver.name for r in nq.solvers()]        # everything registered

    for record in nq.compare(["min-conflicts", "simulated-annealing"], [8, 16], trials=5):
        ...

Plugin authors need ``hookimpl``, ``Solver``, ``Option`` and the data contract
(``Problem``, ``Outcome``, ``Count``, ``Status``, ``Budget``); see the README.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nqueens_plugins.errors import BadInput, PluginError
from nqueens_plugins.hookspecs import hookimpl
from nqueens_plugins.problem import Budget, Count, Outcome, Problem, Status
from nqueens_plugins.solver import Option, Solver

if TYPE_CHECKING:
    from nqueens_plugins.registry import Registration
    from nqueens_plugins.run import CountResult, Result

__all__ = [
    "BadInput", "Budget", "Count", "Option", "Outcome", "PluginError", "Problem", "Solver", "Status",
    "compare", "count", "hookimpl", "records_frame", "solve", "solvers",
]  # fmt: skip


def solvers() -> list[Registration]:
    """Every registered solver, with the plugin and distribution that supplied it."""
    from nqueens_plugins import host

    return list(host.registry())


def problem_of(
    n: int | Problem | None, instance: str | None, fixed: Mapping[int, int] | None, blocked: Iterable[Any] | None
) -> Problem:
    """The Problem an API call names: a size (with fixed queens and blocked squares), a Problem, or an instance file."""
    from nqueens_plugins import inputs, instances

    if isinstance(n, Problem):
        if fixed or blocked or instance:
            raise BadInput("give a Problem, or n with fixed and blocked, or an instance file; not several")
        return n
    if instance is not None:
        if n is not None or fixed or blocked:
            raise BadInput("an instance file carries its own n, fixed queens and blocked squares")
        return instances.load_one(instance)
    if n is None:
        raise BadInput("give a board size n, a Problem, or instance='FILE'")
    return inputs.make_problem(n, fixed, blocked or ())


def solve(
    solver: str,
    n: int | Problem | None = None,
    *,
    instance: str | None = None,
    seed: int | None = None,
    timeout: float | None = None,
    fixed: Mapping[int, int] | None = None,
    blocked: Iterable[tuple[int, int]] | None = None,
    max_iterations: int | None = None,
    trial: int = 0,
    isolate: bool = True,
    memory: int | str | None = None,
    trace: bool | str | Path = False,
    **options: Any,
) -> Result:
    """Solve one board in this process and return the verified result.

    The board is ``n`` (with ``fixed`` queens, column -> row, and ``blocked``
    (column, row) squares), a ``Problem``, or ``instance="FILE"`` (any format of
    ``nqueens_plugins.instances``, ``FILE@d`` for excluded diagonals).
    ``solver`` may carry options (``"simulated-annealing[cooling=0.99]"``) or take
    them as keywords (``cooling=0.99``). ``seed`` None means 0, as on the command
    line, so the same call gives the same answer. Raises BadInput for anything the
    user can fix. The result's ``verified`` is True only when the verifier checked
    the answer; ``status`` is ``invalid`` when it rejected it.

    The solver runs in a warm worker process of the execution service (kept for
    the next call), so a hang is killed at ``timeout`` and a crash is a result,
    not the end of your program. ``isolate=False`` calls it in this process
    instead (no protection; for trusted solvers on small boards).

    ``trace=True`` records every step in ``result.trace`` (boards up to 64 and
    solvers that trace: every built-in does); a path also writes the trace file
    that ``nqueens animate`` reads.
    """
    from nqueens_plugins import host, inputs, run
    from nqueens_plugins.execution import Task, shared_executor

    spec = inputs.solver_spec(solver)
    variant = host.registry_for_specs([spec]).variant(spec, **options)
    problem = problem_of(n, instance, fixed, blocked)
    seed = inputs.whole_number(seed or 0, "seed")
    trial = inputs.whole_number(trial, "trial", minimum=0)
    timeout = inputs.time_limit(timeout)
    if max_iterations is not None:
        max_iterations = inputs.whole_number(max_iterations, "max_iterations", minimum=1)
    traced = trace is not False and trace is not None
    if not isolate:
        result = run.run(variant, problem, seed=seed or 0, trial=trial, timeout=timeout, max_iterations=max_iterations,
                         trace=traced)  # fmt: skip
    else:
        task = Task.solve(variant, problem, seed=seed or 0, trial=trial, timeout=timeout, max_iterations=max_iterations,
                          memory=None if memory is None else inputs.parse_memory(memory), trace=traced)  # fmt: skip
        result = shared_executor().run(task)  # type: ignore[assignment]
    if isinstance(trace, (str, Path)) and result.trace is not None:
        from nqueens_plugins.animate import write_trace

        write_trace(result, Path(trace))
    return result


def count(
    solver: str,
    n: int | Problem | None = None,
    *,
    instance: str | None = None,
    unique: bool = False,
    timeout: float | None = None,
    fixed: Mapping[int, int] | None = None,
    blocked: Iterable[tuple[int, int]] | None = None,
    isolate: bool = True,
    memory: int | str | None = None,
    **options: Any,
) -> CountResult:
    """Count all solutions with a complete solver, checked against OEIS where known (plain boards).

    Isolated like ``solve`` unless ``isolate=False``.
    """
    from nqueens_plugins import host, inputs, run
    from nqueens_plugins.execution import Task, shared_executor

    spec = inputs.solver_spec(solver)
    variant = host.registry_for_specs([spec]).variant(spec, **options)
    problem = problem_of(n, instance, fixed, blocked)
    timeout = inputs.time_limit(timeout)
    if not isolate:
        return run.count(variant, problem, unique=unique, timeout=timeout)
    limit = None if memory is None else inputs.parse_memory(memory)
    task = Task.count(variant, problem, unique=unique, timeout=timeout, memory=limit)
    return shared_executor().run(task)  # type: ignore[return-value]


def compare(*args: Any, **kwargs: Any) -> Any:
    """Run a comparison grid; see ``nqueens_plugins.harness.compare``."""
    from nqueens_plugins.harness import compare as run_comparison

    return run_comparison(*args, **kwargs)


def records_frame(records: str | Path | Iterable[Mapping[str, Any]]) -> Any:
    """A comparison's records as a pandas DataFrame: one row per run, counters as ``counters.NAME`` columns.

    ``records`` is a results file (written by ``compare --out``) or the records
    ``compare`` returned. pandas is optional: ``pip install pandas``.
    """
    try:
        import pandas
    except ImportError:
        raise BadInput("records_frame needs pandas: pip install pandas") from None
    if isinstance(records, (str, Path)):
        from nqueens_plugins.records import Loaded, scan_records, with_time_limits

        loaded = Loaded()
        records = list(with_time_limits(scan_records(Path(records), loaded), loaded))
    return pandas.json_normalize([dict(record) for record in records], max_level=1)
