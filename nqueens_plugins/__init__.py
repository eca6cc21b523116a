"""nqueens-plugins: N-Queens solved by many methods side by side, every answer verified.

The Python API mirrors the ``nqueens`` command (both call ``nqueens_plugins.api``):

    import nqueens_plugins as nq

    result = nq.solve("min-conflicts", 64, seed=1, init="greedy")
    result.status, result.verified, result.queens[:5], result.iterations, result.moves

    nq.count("bitboard", 10).solutions          # 724, checked against OEIS A000170
    [r.solver.name for r in nq.solvers()]        # everything registered
    nq.register(MySolver())                      # a solver from a notebook cell, by name from now on

    records = nq.compare(["min-conflicts", "simulated-annealing"], [8, 16], trials=5)
    nq.summary(records, baseline="min-conflicts")  # the report's tables; .figure() its plot

What this module exports is the whole promise to plugin authors and API users:
the hook marker and the solver contract (``hookimpl``, ``SolverRegister``,
``Solver``, ``Option``, ``Problem``, ``Budget``, ``Outcome``, ``Count``,
``Status``, ``Trace``), the two errors, and the API functions. Anything else
lives in subpackages and may change; the contract kit is ``nqueens_plugins.testing``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from nqueens_plugins.core.errors import BadInput, PluginError
from nqueens_plugins.core.hookspecs import SolverRegister, hookimpl
from nqueens_plugins.core.problem import Budget, Count, Outcome, Problem, Status, Trace
from nqueens_plugins.core.solver import FAMILIES, Option, Solver

if TYPE_CHECKING:
    from nqueens_plugins.api import (
        animation,
        compare,
        count,
        count_seconds,
        cross_check,
        cross_check_files,
        export,
        problem_of,
        records_frame,
        register,
        solve,
        solvers,
        summary,
        unregister,
    )

# The API is imported on first use: a plugin that imports the contract from here
# (every worker process does) does not pay for the host, the grid or the service.
API = (
    "animation",
    "compare",
    "count",
    "count_seconds",
    "cross_check",
    "cross_check_files",
    "export",
    "problem_of",
    "records_frame",
    "register",
    "solve",
    "solvers",
    "summary",
    "unregister",
)

# Modules that lived here before the layered layout: code written against the
# earlier README (``from nqueens_plugins import host``) keeps working.
MOVED_MODULES = {"host": "nqueens_plugins.loading.host", "instances": "nqueens_plugins.formats.instances"}

__all__ = [
    "FAMILIES",
    "BadInput",
    "Budget",
    "Count",
    "Option",
    "Outcome",
    "PluginError",
    "Problem",
    "Solver",
    "SolverRegister",
    "Status",
    "Trace",
    "animation",
    "compare",
    "count",
    "count_seconds",
    "cross_check",
    "cross_check_files",
    "export",
    "hookimpl",
    "problem_of",
    "records_frame",
    "register",
    "solve",
    "solvers",
    "summary",
    "unregister",
]


def __dir__() -> list[str]:
    """The promise (``__all__``), not this module's own imports: what ``dir(nq)`` and tab completion show."""
    return sorted(__all__)


def __getattr__(name: str) -> Any:
    if name in API:
        from nqueens_plugins import api

        return getattr(api, name)
    if name in MOVED_MODULES:
        return importlib.import_module(MOVED_MODULES[name])
    raise AttributeError(f"module 'nqueens_plugins' has no attribute {name!r}")
