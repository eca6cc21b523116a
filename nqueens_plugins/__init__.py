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

from collections.abc import Mapping
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
    "compare", "count", "hookimpl", "solve", "solvers",
]  # fmt: skip


def solvers() -> list[Registration]:
    """Every registered solver, with the plugin and distribution that supplied it."""
    from nqueens_plugins import host

    return list(host.registry())


def solve(
    solver: str,
    n: int,
    *,
    seed: int | None = None,
    timeout: float | None = None,
    fixed: Mapping[int, int] | None = None,
    max_iterations: int | None = None,
    trial: int = 0,
    **options: Any,
) -> Result:
    """Solve one board in this process and return the verified result.

    ``solver`` may carry options (``"simulated-annealing[cooling=0.99]"``) or take
    them as keywords (``cooling=0.99``). ``seed`` None means 0, as on the command
    line, so the same call gives the same answer. Raises BadInput for anything the
    user can fix. The result's ``verified`` is True only when the verifier checked
    the answer; ``status`` is ``invalid`` when it rejected it.
    """
    from nqueens_plugins import host, inputs, run

    variant = host.registry().variant(solver, **options)
    problem = inputs.make_problem(n, fixed)
    return run.run(variant, problem, seed=seed or 0, trial=trial, timeout=timeout, max_iterations=max_iterations)


def count(
    solver: str,
    n: int,
    *,
    unique: bool = False,
    timeout: float | None = None,
    fixed: Mapping[int, int] | None = None,
    **options: Any,
) -> CountResult:
    """Count all solutions with a complete solver, checked against OEIS where known."""
    from nqueens_plugins import host, inputs, run

    variant = host.registry().variant(solver, **options)
    problem = inputs.make_problem(n, fixed)
    return run.count(variant, problem, unique=unique, timeout=timeout)


def compare(*args: Any, **kwargs: Any) -> Any:
    """Run a comparison grid; see ``nqueens_plugins.harness.compare``."""
    from nqueens_plugins.harness import compare as run_comparison

    return run_comparison(*args, **kwargs)
