"""nqueens-highs: the ``highs`` solver, registered through the ``nqueens`` entry point.

Importing this module must stay cheap (``nqueens plugins`` imports every plugin):
highspy and numpy are imported inside the solver, on first use.
"""

from __future__ import annotations

from nqueens_highs.mip import Highs
from nqueens_plugins import SolverRegister, hookimpl

__all__ = ["Highs"]


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(Highs())
