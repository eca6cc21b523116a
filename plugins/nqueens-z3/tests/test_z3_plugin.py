"""nqueens-z3: the contract kit, plus what is particular to the Z3 adapter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import nqueens_plugins as nq
from nqueens_plugins import BadInput, Budget, Problem, Requirement
from nqueens_plugins.testing import assert_contract

DATA = Path(nq.__file__).parent / "data"
BLOCKED_28 = DATA / "blockedqueens.28.1449787894.param"


@pytest.mark.parametrize("spec", ["z3", "z3[model=int]"])
def test_keeps_the_solver_contract(spec: str) -> None:
    # every check ran and passed but certificates: it writes none
    assert set(assert_contract(spec)) == {"certificates"}


def test_registered_through_its_entry_point_only() -> None:
    registration = next(r for r in nq.solvers() if r.solver.name == "z3")
    assert (registration.source.plugin, registration.source.distribution) == ("z3", "nqueens-z3")
    assert registration.solver.family == "SMT" and registration.solver.exports == ("smt2",)


def test_listing_plugins_does_not_import_z3() -> None:
    code = "import sys; import nqueens_plugins as nq; nq.solvers(); print('z3' in sys.modules)"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
        == "False"
    )


def test_both_models_count_completions_like_the_bitboard() -> None:
    fixed = {0: 1, 2: 5}
    expected = nq.count("bitboard", 8, fixed=fixed).solutions
    assert expected
    for spec in ("z3", "z3[model=int]"):
        assert nq.count(spec, 8, fixed=fixed).solutions == expected
    result = nq.solve("z3", 8, fixed=fixed)
    assert result.verified and result.queens[0] == 1 and result.queens[2] == 5


def test_counts_blocked_squares_like_the_bitboard() -> None:
    blocked = [(c, r) for c in range(8) for r in range(8) if (3 * c + r) % 5 == 0]
    assert nq.count("z3", 8, blocked=blocked).solutions == nq.count("bitboard", 8, blocked=blocked).solutions


def test_count_in_parts_adds_up() -> None:
    from nqueens_z3.smt import Z3

    solver, problem, options = Z3(), Problem(7), {"model": "bool"}
    parts = solver.count_parts(problem, options, False)
    assert parts == list(range(7))
    total = sum(solver.count_part(problem, Budget(20.0), options, False, part).solutions for part in parts)
    assert total == 40


def test_shipped_blocked_instance_agrees_with_its_published_answer() -> None:
    problem = nq.problem_of(instance=str(BLOCKED_28))
    result = nq.solve("z3", instance=str(BLOCKED_28), limits=nq.Limits(timeout=20))
    assert result.status == ("solved" if nq.published_answer(problem.source, problem.n) else "no-solution")
    if result.status == "solved":
        assert result.verified and all((c, r) not in problem.blocked for c, r in enumerate(result.queens))


def test_counters_come_from_the_statistics() -> None:
    result = nq.solve("z3", 30, limits=nq.Limits(seed=4))
    assert result.solved and result.moves == 30
    assert result.iterations == result.counters["decisions"] > 0
    assert {"conflicts", "propagations", "restarts"} <= set(result.counters)


def test_budget_and_seed_reach_z3_parameters() -> None:
    from nqueens_z3.smt import configure

    settings: dict[str, int] = {}
    fake = SimpleNamespace(set=lambda key, value: settings.__setitem__(key, value))
    budget = Budget(seconds=2.0, iterations=500)
    configure(fake, budget, seed=99, lag=0.5)
    assert settings["random_seed"] == 99 and settings["max_conflicts"] == 500
    assert 0 < settings["timeout"] <= 1500  # less what Z3 may overrun by


def test_seed_changes_the_search() -> None:
    boards = {tuple(nq.solve("z3", 40, limits=nq.Limits(seed=seed)).queens) for seed in range(3)}
    assert len(boards) > 1


def test_an_exhausted_budget_is_timed_out_never_no_solution() -> None:
    hard = str(DATA / "blockedqueens.56.1860451109.param")  # unsatisfiable, and Z3 needs well over a second
    assert nq.solve("z3", instance=hard, limits=nq.Limits(timeout=0.3)).status == "timed-out"
    assert (
        nq.solve("z3", instance=hard, limits=nq.Limits(max_iterations=50)).status == "timed-out"
    )  # max_conflicts reached
    assert nq.count("z3", 10, limits=nq.Limits(timeout=0.05)).status == "timed-out"


def test_export_is_what_z3_solves() -> None:
    import z3

    from nqueens_z3.smt import Z3

    solver = Z3()
    problem = nq.problem_of(instance=str(BLOCKED_28))
    cases = [(problem, "bool", "solved"), (Problem(3), "bool", "no-solution"), (Problem(6, {0: 1}), "int", "solved")]
    for instance, model, status in cases:
        text = solver.export(instance, {"model": model}, "smt2")
        assert text.rstrip().endswith("(check-sat)")
        raw = z3.Solver()
        raw.add(z3.parse_smt2_string(text))
        assert str(raw.check()) == {"solved": "sat", "no-solution": "unsat"}[status]
        run = nq.solve(f"z3[model={model}]", instance)
        assert run.status == status


def test_exported_file_runs_in_the_z3_binary(tmp_path: Path) -> None:
    binary = Path(sys.executable).with_name("z3")
    if not binary.exists():
        pytest.skip("no z3 binary beside this Python")
    from nqueens_z3.smt import Z3

    path = tmp_path / "queens.smt2"
    path.write_text(Z3().export(Problem(8, {0: 2}), {"model": "bool"}, "smt2"))
    assert subprocess.run([str(binary), str(path)], check=False, capture_output=True, text=True).stdout.strip() == "sat"


@pytest.mark.parametrize(
    "spec, n, words",
    [
        ("z3[model=real]", 8, "one of bool, int"),
        ("z3[workers=2]", 8, "no option 'workers'"),
        ("z3", 400, "up to 300"),
        ("z3[model=int]", 3000, "up to 2,000"),
    ],
)
def test_bad_options(spec: str, n: int, words: str) -> None:
    with pytest.raises(BadInput, match=words):
        nq.solve(spec, n)


def test_export_refuses_other_formats() -> None:
    from nqueens_z3.smt import Z3

    with pytest.raises(BadInput, match="smt2"):
        Z3().export(Problem(4), {"model": "bool"}, "mps")


def test_missing_library_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Requirement, "missing", lambda self: True)
    with pytest.raises(BadInput, match="pip install z3-solver"):
        nq.solve("z3", 8)
