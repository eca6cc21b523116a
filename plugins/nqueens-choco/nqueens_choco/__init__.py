"""nqueens-choco: the ``choco`` solver, registered through the ``nqueens`` entry point.

Importing this module must stay cheap (``nqueens plugins`` imports every plugin):
pychoco starts a GraalVM native image when it is imported, so it is imported
inside the solver, on first use.
"""

from __future__ import annotations

from nqueens_choco.choco import Choco
from nqueens_plugins import SolverRegister, hookimpl

nqueens_contract = "1.2"  # writes its data with nqueens_plugins.dzn_text, new in contract 1.2

__all__ = ["Choco"]


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(Choco())
