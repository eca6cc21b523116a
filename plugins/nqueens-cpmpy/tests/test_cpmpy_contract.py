"""nqueens-cpmpy: the contract kit on every CPMpy backend that installs (a file of its own, so that the suite's
two workers share this file's minutes with test_cpmpy_plugin.py's)."""

from __future__ import annotations

import pytest

import nqueens_plugins as nq
from nqueens_plugins import BadInput
from nqueens_plugins.testing import assert_contract

# The backends the contract kit runs on, when they install (the README's test command installs all but gurobi,
# cplex and minizinc: its light extra and the other plugins' libraries; each missing one skips, naming why).
CONTRACT = ["ortools", "choco", "exact", "pumpkin", "z3", "pysat", "pysdd", "gurobi", "cplex", "highs", "minizinc"]


def needs(spec: str) -> None:
    """Skip, naming the refusal, where the host refuses ``spec`` here (a backend missing, say)."""
    try:
        nq.solve(spec, 1)
    except BadInput as refused:
        pytest.skip(str(refused))


@pytest.mark.parametrize("backend", CONTRACT)
def test_keeps_the_solver_contract_on_every_backend_that_installs(backend: str) -> None:
    spec = f"cpmpy[backend={backend}]"
    needs(spec)
    skipped = assert_contract(spec)
    assert "certificates" in skipped  # it certifies nothing: no VeriPB checker installs here
    counting = backend not in ("gurobi", "cplex", "highs")
    assert ("counts" in skipped) is not counting, skipped
