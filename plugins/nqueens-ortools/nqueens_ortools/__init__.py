"""nqueens-ortools: the ``ortools-cpsat`` solver, registered through the ``nqueens`` entry point.

Importing this module must stay cheap (``nqueens plugins`` imports every plugin):
OR-Tools itself is imported inside the solver, on first use.
"""

from __future__ import annotations

from nqueens_ortools.cpsat import CpSat
from nqueens_plugins import SolverRegister, hookimpl

__all__ = ["CpSat"]


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(CpSat())
