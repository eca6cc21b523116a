"""nqueens-minizinc: the ``minizinc`` solver, registered through the ``nqueens`` entry point.

Importing this module must stay cheap (``nqueens plugins`` imports every plugin): the
``minizinc`` package runs the MiniZinc binary when it is imported (``minizinc --version``),
so it is imported inside the solver, on first use.
"""

from __future__ import annotations

from nqueens_minizinc.adapter import MiniZinc
from nqueens_plugins import SolverRegister, hookimpl

nqueens_contract = "1.2"  # writes its data with nqueens_plugins.dzn_text, new in contract 1.2

__all__ = ["MiniZinc"]


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(MiniZinc())
