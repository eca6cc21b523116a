"""nqueens-plugins: N-Queens solved by many methods side by side, every answer verified.

The Python API mirrors the ``nqueens`` command (both call ``nqueens_plugins.api``):

    import nqueens_plugins as nq

    result = nq.solve("min-conflicts", 64, limits=nq.Limits(seed=1, timeout=10), init="greedy")
    result.status, result.verified, result.queens[:5], result.iterations, result.moves

    nq.count("bitboard", 10).solutions          # 724, checked against OEIS A000170
    [r.solver.name for r in nq.solvers()]        # everything registered
    nq.register(MySolver())                      # a solver from a notebook cell, by name from now on

    records = nq.compare(["min-conflicts", "simulated-annealing"], [8, 16], trials=5)
    nq.summary(records, baseline="min-conflicts")  # the report's tables; .figure() its plot
    nq.check_proof("diag-10-4-1.param@7", "proof.drat")  # anyone's DRAT proof of "no solution", checked

What this module exports is the whole promise to plugin authors and API users:
the hook marker and the solver contract (``hookimpl``, ``SolverRegister``,
``Solver``, ``Option``, ``Problem``, ``Budget``, ``Outcome``, ``Count``,
``Status``, ``Trace``; ``ProofLog``, where a complete solver writes the certificate of a
no-solution claim, over the instance's ``canonical_cnf``), the two errors, the adapter kit for plugins that wrap a
library (``Adapter``, ``Requirement``, ``SizeLimit``; ``dzn_text``, the MiniZinc data two plugins share), the helpers a plugin's
own tests use (``board_error``, the verifier's check of a board; ``published_answer``,
a CSPLib instance's published answer; ``problem_of`` loads an instance file), and the
API functions with what they take (``Limits``, ``ResultsFile``). Anything else lives in subpackages and may change; the contract kit is
``nqueens_plugins.testing``.
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Any

from nqueens_plugins.core.adapter_kit import Adapter, Requirement, SizeLimit, dzn_text
from nqueens_plugins.core.errors import BadInput, PluginError
from nqueens_plugins.core.hookspecs import CONTRACT_VERSION, SolverRegister, hookimpl
from nqueens_plugins.core.problem import Budget, Count, Outcome, Problem, Status, Trace
from nqueens_plugins.core.solver import FAMILIES, Option, Solver

if TYPE_CHECKING:
    from nqueens_plugins.api import (
        Limits,
        ResultsFile,
        animation,
        check_proof,
        compare,
        compare_stream,
        count,
        count_plan,
        count_seconds,
        cross_check,
        cross_check_boards,
        cross_check_files,
        executor_for,
        export,
        export_aslib,
        plot,
        problem_of,
        race,
        records_frame,
        register,
        report,
        select,
        select_schedule,
        solve,
        solvers,
        summary,
        tune,
        unregister,
    )
    from nqueens_plugins.core.canonical_cnf import CanonicalCnf, canonical_cnf
    from nqueens_plugins.core.proof_log import ProofLog
    from nqueens_plugins.core.verify import board_error
    from nqueens_plugins.formats.published import published_answer

# Helpers for a plugin's own tests, imported on first use like the API (the verifier brings numpy).
HELPERS = {
    "board_error": "nqueens_plugins.core.verify",
    "published_answer": "nqueens_plugins.formats.published",
    "canonical_cnf": "nqueens_plugins.core.canonical_cnf",
    "CanonicalCnf": "nqueens_plugins.core.canonical_cnf",
    "ProofLog": "nqueens_plugins.core.proof_log",
}

# Modules that lived here before the layered layout: code written against the
# earlier README (``from nqueens_plugins import host``) keeps working, with a DeprecationWarning, until 0.3.0.
MOVED_MODULES = {"host": "nqueens_plugins.loading.host", "instances": "nqueens_plugins.formats.instances"}

__all__ = [
    "CONTRACT_VERSION",
    "FAMILIES",
    "Adapter",
    "BadInput",
    "Budget",
    "CanonicalCnf",
    "Count",
    "Limits",
    "Option",
    "Outcome",
    "PluginError",
    "Problem",
    "ProofLog",
    "Requirement",
    "ResultsFile",
    "SizeLimit",
    "Solver",
    "SolverRegister",
    "Status",
    "Trace",
    "animation",
    "board_error",
    "canonical_cnf",
    "check_proof",
    "compare",
    "compare_stream",
    "count",
    "count_plan",
    "count_seconds",
    "cross_check",
    "cross_check_boards",
    "cross_check_files",
    "dzn_text",
    "executor_for",
    "export",
    "export_aslib",
    "hookimpl",
    "plot",
    "problem_of",
    "published_answer",
    "race",
    "records_frame",
    "register",
    "report",
    "select",
    "select_schedule",
    "solve",
    "solvers",
    "summary",
    "tune",
    "unregister",
]

# Each public name is written twice: in ``__all__`` (the promise) and where it comes from, an import above
# (the contract, loaded now; the rest only for type checkers). The API is imported on first use: a plugin
# that imports the contract from here (every worker process does) does not pay for the host, the grid or
# the service. ``tests/test_architecture.py`` checks that the two agree.
API = tuple(name for name in __all__ if name not in globals() and name not in HELPERS)


def _without_cpmpy_plugin(*args: Any, **kwargs: Any) -> Any:
    raise BadInput("nq.cpmpy_solver comes with the nqueens-cpmpy plugin: pip install nqueens-cpmpy")


def __dir__() -> list[str]:
    """The promise (``__all__``), not this module's own imports: what ``dir(nq)`` and tab completion show."""
    return sorted(__all__)


def __getattr__(name: str) -> Any:
    if name in API:
        from nqueens_plugins import api

        return getattr(api, name)
    if name in HELPERS:
        return getattr(importlib.import_module(HELPERS[name]), name)
    if (
        name == "cpmpy_solver"
    ):  # a user's CPMpy model as a solver: the nqueens-cpmpy plugin's (the host never imports CPMpy)
        try:
            return importlib.import_module("nqueens_cpmpy").cpmpy_solver
        except ImportError:
            return _without_cpmpy_plugin
    if name in MOVED_MODULES:
        warnings.warn(
            f"nqueens_plugins.{name} is now {MOVED_MODULES[name]}: the old name is deprecated since 0.2.0 and goes "
            "in 0.3.0",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(MOVED_MODULES[name])
    raise AttributeError(f"module 'nqueens_plugins' has no attribute {name!r}")
