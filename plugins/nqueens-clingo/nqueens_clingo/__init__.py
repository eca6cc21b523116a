"""nqueens-clingo: the ``clingo`` solver, registered through the ``nqueens`` entry point.

Importing this module must stay cheap (``nqueens plugins`` imports every plugin):
clingo itself is imported inside the solver, on first use.
"""

from __future__ import annotations

from nqueens_clingo.asp import Clingo
from nqueens_plugins import SolverRegister, hookimpl

__all__ = ["Clingo"]


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(Clingo())
