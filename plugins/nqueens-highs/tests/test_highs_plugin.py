"""nqueens-highs: the contract kit, plus what is particular to the HiGHS adapter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import nqueens_plugins as nq
from nqueens_plugins import BadInput, Budget, Problem, Requirement, board_error
from nqueens_plugins.testing import ContractCheckSkipped, assert_contract, variant_of

DATA = Path(nq.__file__).parent / "data"
BLOCKED_28 = DATA / "blockedqueens.28.1449787894.param"


@pytest.mark.parametrize("spec", ["highs", "highs[presolve=false]"])
def test_keeps_the_solver_contract(spec: str) -> None:
    with pytest.warns(ContractCheckSkipped, match="does not count"):
        skipped = assert_contract(spec)
    assert set(skipped) == {"counts", "certificates"}  # a MIP solver does not count nor certify; every other check runs


def test_registered_through_its_entry_point_only() -> None:
    registration = next(r for r in nq.solvers() if r.solver.name == "highs")
    assert (registration.source.plugin, registration.source.distribution) == ("highs", "nqueens-highs")
    solver = registration.solver
    assert (solver.family, solver.complete, solver.exports) == ("MIP", True, ("mps",))
    assert not variant_of("highs").counts


def test_listing_plugins_does_not_import_highspy() -> None:
    code = "import sys; import nqueens_plugins as nq; nq.solvers(); print('highspy' in sys.modules)"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
        == "False"
    )


def test_does_not_count() -> None:
    with pytest.raises(BadInput, match="count"):
        nq.count("highs", 6)


def test_completion_keeps_the_fixed_queens() -> None:
    fixed = {0: 1, 2: 5}
    assert nq.count("bitboard", 8, fixed=fixed).solutions  # the instance has solutions
    result = nq.solve("highs", 8, fixed=fixed)
    assert result.verified and result.queens[0] == 1 and result.queens[2] == 5
    assert nq.solve("highs", 8, fixed={0: 0, 1: 1}).status == "no-solution"  # attacking queens


def test_shipped_blocked_instance_agrees_with_its_published_answer() -> None:
    problem = nq.problem_of(instance=str(BLOCKED_28))
    result = nq.solve("highs", instance=str(BLOCKED_28), limits=nq.Limits(timeout=40))
    assert result.status == ("solved" if nq.published_answer(problem.source, problem.n) else "no-solution")
    if result.status == "solved":
        assert result.verified and all((c, r) not in problem.blocked for c, r in enumerate(result.queens))


def test_fixed_queen_on_a_blocked_square_is_proved_infeasible() -> None:
    result = nq.solve("highs", 6, fixed={0: 1}, blocked=[(0, 1)])
    assert result.status == "no-solution" and result.verified


def test_counters_come_from_the_info() -> None:
    result = nq.solve("highs", 20, limits=nq.Limits(seed=4))
    assert result.solved and result.moves == 20
    assert result.iterations == result.counters["nodes"]
    assert {"simplex_iterations", "highs_seconds"} <= set(result.counters)


def test_budget_and_seed_reach_highs_options() -> None:
    from nqueens_highs.mip import configure

    class Recorder:
        def __init__(self) -> None:
            self.options: dict[str, object] = {}

        def setOptionValue(self, key: str, value: object) -> None:
            self.options[key] = value

    recorder = Recorder()
    budget = Budget(seconds=2.0, iterations=500)
    configure(recorder, budget, seed=99, presolve=False)
    options = recorder.options
    assert options["random_seed"] == 99 and options["mip_max_nodes"] == 500 and options["presolve"] == "off"
    assert 0 < options["time_limit"] <= 2.0


def test_an_exhausted_budget_is_timed_out_never_no_solution() -> None:
    hard = str(DATA / "blockedqueens.56.1860451109.param")  # unsatisfiable; HiGHS needs far more than this
    assert nq.solve("highs", instance=hard, limits=nq.Limits(timeout=0.3)).status == "timed-out"
    assert nq.solve("highs", instance=hard, limits=nq.Limits(max_iterations=1)).status == "timed-out"  # node limit


def test_the_matrix_is_the_assignment_model() -> None:
    import numpy as np

    from nqueens_highs.mip import constraint_matrix

    n = 5
    start, index, lower, upper = constraint_matrix(n)
    ends = np.append(start[1:], len(index))
    rows = [set(index[a:b].tolist()) for a, b in zip(start, ends, strict=True)]
    assert len(rows) == n + n + 2 * (2 * n - 3)  # columns, rows, diagonals of two squares or more
    assert rows[0] == {0, 1, 2, 3, 4} and rows[n] == {0, 5, 10, 15, 20}
    assert (lower[: 2 * n] == 1).all() and np.isneginf(lower[2 * n :]).all() and (upper == 1).all()
    assert {1, 5} in rows and {1, 7, 13, 19} in rows  # a c + r and an r - c diagonal


def test_no_banner_reaches_stdout() -> None:
    code = "from nqueens_highs.mip import new_highs; new_highs(); new_highs().run(); print('done')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "done"


def test_export_is_what_highs_solves(tmp_path: Path) -> None:
    import highspy

    from nqueens_highs.mip import Highs

    solver = Highs()
    cases = [
        (
            nq.problem_of(instance=f"{DATA / 'diag-10-4-1.param'}@4"),
            "solved",
        ),  # published: its first 7 diagonals are unsatisfiable
        (nq.problem_of(instance=f"{DATA / 'diag-10-4-1.param'}@7"), "no-solution"),
        (Problem(3), "no-solution"),
        (Problem(8, {0: 2, 3: 1}), "solved"),
    ]
    for index, (problem, status) in enumerate(cases):
        text = solver.export(problem, {"presolve": True}, "mps")
        assert "ENDATA" in text
        path = tmp_path / f"model{index}.mps"
        path.write_text(text)
        raw = highspy.Highs()
        raw.setOptionValue("output_flag", False)
        assert raw.readModel(str(path)) == highspy.HighsStatus.kOk
        assert raw.getNumCol() == problem.n**2
        raw.run()
        found = raw.getModelStatus()
        expected = highspy.HighsModelStatus.kOptimal if status == "solved" else highspy.HighsModelStatus.kInfeasible
        assert found == expected
        assert nq.solve("highs", problem).status == status
        if status == "solved":  # the raw solution is a board that honours the instance
            values = raw.getSolution().col_value
            queens = [max(range(problem.n), key=lambda r, c=c: values[c * problem.n + r]) for c in range(problem.n)]
            assert board_error(problem.n, queens, dict(problem.fixed), problem.blocked) is None


@pytest.mark.parametrize(
    "spec, n, words",
    [
        ("highs[presolve=maybe]", 8, "true or false"),
        ("highs[objective=random]", 8, "no option 'objective'"),
        ("highs", 150, "up to 100"),
    ],
)
def test_bad_options(spec: str, n: int, words: str) -> None:
    with pytest.raises(BadInput, match=words):
        nq.solve(spec, n)


def test_export_refuses_other_formats() -> None:
    from nqueens_highs.mip import Highs

    with pytest.raises(BadInput, match="mps"):
        Highs().export(Problem(4), {"presolve": True}, "smt2")


def test_missing_library_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Requirement, "missing", lambda self: True)
    with pytest.raises(BadInput, match="pip install highspy"):
        nq.solve("highs", 8)
