"""nqueens-ortools: the contract kit, plus what is particular to the CP-SAT adapter."""

from __future__ import annotations

import subprocess
import sys

import pytest

import nqueens_plugins as nq
from nqueens_plugins import BadInput, Requirement
from nqueens_plugins.testing import assert_contract


@pytest.mark.parametrize(
    "spec", ["ortools-cpsat", "ortools-cpsat[model=boolean]", "ortools-cpsat[strategy=mindomain-median]"]
)
def test_keeps_the_solver_contract(spec: str) -> None:
    assert_contract(spec)


def test_registered_through_its_entry_point_only() -> None:
    source = next(r for r in nq.solvers() if r.solver.name == "ortools-cpsat").source
    assert (source.plugin, source.distribution) == ("ortools", "nqueens-ortools")


def test_listing_plugins_does_not_import_ortools() -> None:
    code = "import sys; import nqueens_plugins as nq; nq.solvers(); print('ortools' in sys.modules)"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
        == "False"
    )


def test_both_models_count_completions_like_the_bitboard() -> None:
    fixed = {0: 1, 2: 5}
    expected = nq.count("bitboard", 8, fixed=fixed).solutions
    assert expected
    for spec in ("ortools-cpsat", "ortools-cpsat[model=boolean]"):
        assert nq.count(spec, 8, fixed=fixed).solutions == expected
    result = nq.solve("ortools-cpsat", 8, fixed=fixed)
    assert result.verified and result.queens[0] == 1 and result.queens[2] == 5


def test_counters_come_from_the_response() -> None:
    result = nq.solve("ortools-cpsat[model=boolean]", 30, limits=nq.Limits(seed=4))
    assert result.solved
    assert result.iterations == result.counters["branches"] and "conflicts" in result.counters
    assert result.moves == 30


def test_budget_and_seed_reach_cpsat_parameters() -> None:
    from types import SimpleNamespace

    from nqueens_ortools.cpsat import configure
    from nqueens_plugins import Budget

    fake = SimpleNamespace(parameters=SimpleNamespace())
    budget = Budget(seconds=2.0, iterations=500)
    configure(fake, budget, workers=3, seed=99, strategy="automatic")
    left_after = budget.remaining()
    parameters = fake.parameters
    assert parameters.random_seed == 99 and parameters.num_workers == 3
    # What was left of the budget when configured: no more than 2 s, no less than what is left now.
    assert left_after <= parameters.max_time_in_seconds <= 2.0 and parameters.max_number_of_conflicts == 500


@pytest.mark.parametrize(
    "spec, n, words",
    [
        ("ortools-cpsat[model=mip]", 8, "one of alldiff, boolean"),
        ("ortools-cpsat[strategy=random]", 8, "one of automatic"),
        ("ortools-cpsat[model=boolean,strategy=first-min]", 8, "model=alldiff only"),
        ("ortools-cpsat[model=boolean]", 2000, "up to 1,000"),
        ("ortools-cpsat[strategy=first-min]", 800, "up to 500"),
    ],
)
def test_bad_options(spec: str, n: int, words: str) -> None:
    with pytest.raises(BadInput, match=words):
        nq.solve(spec, n)


def test_missing_library_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Requirement, "missing", lambda self: True)
    with pytest.raises(BadInput, match="pip install ortools"):
        nq.solve("ortools-cpsat", 8)
