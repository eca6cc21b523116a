"""Built-in engine, worker side: the choice between a compiled (numba) and a pure-Python engine.

numba is an optional extra (``pip install 'nqueens-plugins[fast]'``); without it
every method still runs, in plain Python.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Mapping
from typing import Any

from nqueens_plugins.core.errors import install_hint
from nqueens_plugins.core.solver import Option


def kernel_option(what: str) -> Option:
    return Option(
        "kernel", str, "auto", f"{what}: numba if installed, else python", choices=("auto", "python", "numba")
    )


@functools.cache
def numba_available() -> bool:
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def kernel_refusal(solver: str, options: Mapping[str, Any]) -> str | None:
    """The one-line refusal when numba is asked for and missing, else None."""
    if options["kernel"] == "numba" and not numba_available():
        return f"{solver} kernel=numba needs numba: {install_hint('fast')}"
    return None


def use_numba(options: Mapping[str, Any]) -> bool:
    return options["kernel"] == "numba" or (options["kernel"] == "auto" and numba_available())


def engine_of(options: Mapping[str, Any]) -> str:
    """``Solver.engine`` for the solvers with a ``kernel`` option. Looks numba up without importing
    it (half a second), so that ``nqueens plugins`` stays fast."""
    if options["kernel"] == "python":
        return "python"
    return "numba (compiled)" if importlib.util.find_spec("numba") is not None else "python"
