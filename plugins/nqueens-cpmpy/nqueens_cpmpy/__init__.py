"""nqueens-cpmpy: the ``cpmpy`` solver (every backend CPMpy reaches), and a user's own CPMpy model as a solver.

Importing this module must stay cheap (``nqueens plugins`` imports every plugin): CPMpy and its
backends are imported inside the solver, on first use.

* ``cpmpy[backend=NAME]``: N-Queens as CPMpy's example models it (``adapter.py``);
* ``cpmpy_solver(name, build)``: a user's model registered for this session (also
  ``nq.cpmpy_solver``); ``ModelSolver(name, build)``: the same solver, for a plugin's own
  ``nqueens_register_solvers`` hook (``user_model.py``).
"""

from __future__ import annotations

from nqueens_cpmpy.adapter import Cpmpy
from nqueens_cpmpy.user_model import ModelSolver, cpmpy_solver
from nqueens_plugins import SolverRegister, hookimpl

__all__ = ["Cpmpy", "ModelSolver", "cpmpy_solver"]


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(Cpmpy())
