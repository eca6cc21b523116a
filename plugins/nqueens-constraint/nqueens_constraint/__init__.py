"""nqueens-constraint: the ``python-constraint`` solver, registered through the ``nqueens`` entry point.

The library is imported inside the solver, not here, so listing plugins stays fast.
"""

from __future__ import annotations

from nqueens_constraint.adapter import PythonConstraint
from nqueens_plugins import SolverRegister, hookimpl

__all__ = ["PythonConstraint"]


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(PythonConstraint())
