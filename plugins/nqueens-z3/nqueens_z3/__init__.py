"""nqueens-z3: the ``z3`` solver, registered through the ``nqueens`` entry point.

Importing this module must stay cheap (``nqueens plugins`` imports every plugin):
Z3 itself is imported inside the solver, on first use.
"""

from __future__ import annotations

from nqueens_plugins import SolverRegister, hookimpl
from nqueens_z3.smt import Z3

__all__ = ["Z3"]


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(Z3())
