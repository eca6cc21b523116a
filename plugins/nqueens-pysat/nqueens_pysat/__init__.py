"""nqueens-pysat: the ``pysat`` solver, registered through the ``nqueens`` entry point.

Importing this module must stay cheap (``nqueens plugins`` imports every plugin):
python-sat itself is imported inside the solver, on first use.
"""

from __future__ import annotations

from nqueens_plugins import SolverRegister, hookimpl
from nqueens_pysat.adapter import PySat

__all__ = ["PySat"]


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(PySat())
