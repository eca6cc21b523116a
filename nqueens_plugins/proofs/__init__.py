"""Proofs layer, any process: the host's independent checker of no-solution certificates (DRUP/DRAT proofs).

It refutes the canonical CNF (``core/canonical_cnf.py``) and imports nothing of
the package but the problem and that formula: no solver's code is trusted.
``checker`` is the checker, ``kernels`` its inner loops, one source
for numba and Python, ``jit`` the numba shim they are compiled with when numba imports,
and ``check_program`` the process the service runs it in.

The checker is imported on first use (``checker.check_proof``, ``checker.CheckReport``): the
checker program (``python -m nqueens_plugins.proofs.check_program``) imports
this package first, and decides only then whether a proof is large enough to
be worth loading numba for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nqueens_plugins.proofs.checker import CheckReport, check_proof

__all__ = ["CheckReport", "check_proof"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("nqueens_plugins.proofs.checker"), name)
    raise AttributeError(f"module 'nqueens_plugins.proofs' has no attribute {name!r}")
