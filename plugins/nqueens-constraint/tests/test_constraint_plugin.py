"""nqueens-constraint: the contract kit, plus what is particular to the python-constraint adapter."""

from __future__ import annotations

import pytest

import nqueens_plugins as nq
from nqueens_plugins import BadInput, Requirement
from nqueens_plugins.testing import assert_contract, patient_executor, variant_of


@pytest.mark.parametrize(
    "spec", ["python-constraint", "python-constraint[solver=recursive]", "python-constraint[solver=min-conflicts]"]
)
def test_keeps_the_solver_contract(spec: str) -> None:
    assert_contract(spec)


def test_optimized_solver_counts_correctly() -> None:
    for n in range(1, 8):
        assert nq.count("python-constraint[solver=optimized]", n).verified is True


def test_registered_through_its_entry_point_only() -> None:
    registration = next(r for r in nq.solvers() if r.solver.name == "python-constraint")
    assert (registration.source.plugin, registration.source.distribution) == ("constraint", "nqueens-constraint")


def test_completeness_follows_the_chosen_solver() -> None:
    assert variant_of("python-constraint").complete
    assert not variant_of("python-constraint[solver=min-conflicts]").complete
    with pytest.raises(BadInput, match="cannot count"):
        nq.count("python-constraint[solver=min-conflicts]", 6)
    assert nq.solve("python-constraint[solver=min-conflicts,steps=50]", 3).status == "gave-up"  # never no-solution


def test_budget_stops_a_search_the_library_cannot_stop() -> None:
    with patient_executor() as executor:  # killed from outside a grace past the limit measured against the load
        result = nq.solve("python-constraint[solver=optimized]", 40, limits=nq.Limits(timeout=0.5), executor=executor)
    assert result.status == "timed-out"
    assert "killed after" not in (result.reason or "")  # stopped by its watchdog, not killed from outside


def test_count_agrees_with_the_bitboard_on_a_completion() -> None:
    fixed = {1: 3, 4: 1}
    assert nq.count("python-constraint", 8, fixed=fixed).solutions == nq.count("bitboard", 8, fixed=fixed).solutions


def test_missing_library_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Requirement, "missing", lambda self: True)
    with pytest.raises(BadInput, match="pip install python-constraint2"):
        nq.solve("python-constraint", 8)
