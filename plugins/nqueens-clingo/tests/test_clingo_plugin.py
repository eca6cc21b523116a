"""nqueens-clingo: the contract kit, plus what is particular to the clingo adapter."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

import nqueens_plugins as nq
from nqueens_plugins import BadInput, Budget, Problem, Requirement
from nqueens_plugins.testing import assert_contract, variant_of

BLOCKED_28 = "blockedqueens.28.1449787894.param"  # shipped; published satisfiable (lingeling)
DIAGONALS_10 = "diag-10-4-1.param"  # shipped; published: a solution up to @6, none from @7


@pytest.mark.parametrize("spec", ["clingo", "clingo[encoding=textbook]"])
def test_keeps_the_solver_contract(spec: str) -> None:
    assert_contract(spec)


def test_registered_through_its_entry_point_only() -> None:
    registration = next(r for r in nq.solvers() if r.solver.name == "clingo")
    assert (registration.source.plugin, registration.source.distribution) == ("clingo", "nqueens-clingo")
    solver = registration.solver
    assert solver.family == "ASP" and solver.complete and solver.can_count
    assert solver.supports_fixed and solver.supports_blocked and solver.exports == ("asp",)


def test_listing_plugins_does_not_import_clingo() -> None:
    code = "import sys; import nqueens_plugins as nq; nq.solvers(); print('clingo' in sys.modules)"
    listed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert listed.stdout.strip() == "False"


@pytest.mark.parametrize("spec", ["clingo", "clingo[encoding=textbook]"])
def test_counts_a_completion_like_the_bitboard(spec: str) -> None:
    fixed = {0: 1, 2: 5}
    expected = nq.count("bitboard", 8, fixed=fixed).solutions
    assert expected
    assert nq.count(spec, 8, fixed=fixed).solutions == expected


def test_counts_blocked_squares_like_the_bitboard() -> None:
    blocked = [(c, r) for c in range(9) for r in range(9) if (3 * c + r) % 7 == 0]
    expected = nq.count("bitboard", 9, blocked=blocked).solutions
    counted = nq.count("clingo", 9, blocked=blocked)
    assert expected and counted.status == "solved" and counted.solutions == expected


def test_fixed_queens_stay_where_they_are() -> None:
    result = nq.solve("clingo", 12, fixed={0: 1, 2: 5, 6: 0})  # 14 completions (bitboard)
    assert result.verified and result.queens is not None
    assert (result.queens[0], result.queens[2], result.queens[6]) == (1, 5, 0)
    refuted = nq.solve("clingo", 12, fixed={0: 1, 2: 5, 7: 0})  # none
    assert refuted.status == "no-solution"


def test_decides_published_blocked_instances() -> None:
    solved = nq.solve("clingo", instance=BLOCKED_28, limits=nq.Limits(timeout=30))
    assert solved.status == "solved" and solved.verified
    refuted = nq.solve("clingo", instance=f"{DIAGONALS_10}@7", limits=nq.Limits(timeout=30))
    assert refuted.status == "no-solution" and refuted.verified  # held against the published answer


def test_counters_come_from_clingo_statistics() -> None:
    result = nq.solve("clingo", 30, limits=nq.Limits(seed=4))
    assert result.solved and result.moves == 30
    counters = result.counters
    assert result.iterations == counters["choices"]
    assert counters["atoms"] >= 30 * 30 and counters["rules"] > 0 and counters["variables"] > 0
    assert counters["models"] == 1 and "conflicts" in counters and "ground_seconds" in counters


def test_budget_seed_and_configuration_reach_clingo_arguments() -> None:
    from nqueens_clingo.asp import arguments

    args = arguments("crafty", 99, Budget(seconds=2.0, iterations=500), enumerate_all=False)
    assert args == ["--configuration=crafty", "--seed=99", "--models=1", "--solve-limit=500"]
    assert "--models=0" in arguments("auto", 0, Budget(), enumerate_all=True)


def test_iteration_cap_is_a_timeout_not_a_proof() -> None:
    result = nq.solve(
        "clingo", instance="blockedqueens.56.1860451109.param", limits=nq.Limits(max_iterations=200, timeout=30)
    )
    assert result.status == "timed-out"


def test_a_board_the_budget_cannot_ground_is_not_grounded() -> None:
    from nqueens_clingo.asp import MAX_N, Clingo

    options = {"encoding": "competition", "configuration": "auto"}
    outcome = Clingo().solve(Problem(MAX_N["competition"]), random.Random(0), Budget(0.05), options)
    assert outcome.status == "timed-out" and outcome.counters["atoms"] == 0


def solve_raw(text: str) -> tuple[str, list[list[int]]]:
    """The exported program solved by the clingo API as its documentation shows; the answer and its boards."""
    import clingo

    control = clingo.Control()
    control.add("base", [], text)
    control.ground([("base", [])])
    boards: list[list[int]] = []

    def on_model(model: clingo.Model) -> None:
        squares = sorted((s.arguments[1].number, s.arguments[0].number) for s in model.symbols(shown=True))
        boards.append([row - 1 for _, row in squares])  # queen(R,C), 1-based: queens[C-1] = R-1

    result = control.solve(on_model=on_model)
    return ("SAT" if result.satisfiable else "UNSAT" if result.unsatisfiable else "UNKNOWN"), boards


def exported(spec: str, problem: Problem) -> str:
    """The program as ``nqueens instances export`` writes it (the plugin's export, in a worker)."""
    text, written_by = nq.export("asp", problem, solver=spec)
    assert written_by == spec
    return text


@pytest.mark.parametrize(
    "spec, instance, answer",
    [
        ("clingo", BLOCKED_28, "solved"),
        ("clingo", f"{DIAGONALS_10}@7", "no-solution"),
        ("clingo[encoding=textbook,configuration=crafty]", f"{DIAGONALS_10}@6", "solved"),
    ],
)
def test_export_round_trip(spec: str, instance: str, answer: str) -> None:
    problem = nq.problem_of(instance=instance)
    result = nq.solve(spec, instance=instance, limits=nq.Limits(timeout=30))
    assert result.status == answer and result.verified
    raw, boards = solve_raw(exported(spec, problem))
    assert raw == {"solved": "SAT", "no-solution": "UNSAT"}[answer]
    for queens in boards:  # the raw answer is a board of this very instance
        assert len(queens) == problem.n and len(set(queens)) == problem.n
        assert not any((column, row) in problem.blocked for column, row in enumerate(queens))


def test_export_runs_with_the_clingo_program(tmp_path: Path) -> None:
    problem = nq.problem_of(8, fixed={0: 2, 3: 1})
    path = tmp_path / "queens.lp"
    path.write_text(exported("clingo", problem))
    ran = subprocess.run(
        [sys.executable, "-m", "clingo", str(path), "0", "--configuration=crafty"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "\nSATISFIABLE" in ran.stdout, ran.stdout + ran.stderr  # (python -m clingo exits 0 either way)
    counted = int(next(line.split(":")[1] for line in ran.stdout.splitlines() if line.startswith("Models")).strip())
    assert counted == nq.count("bitboard", problem).solutions


@pytest.mark.parametrize(
    "spec, n, words",
    [
        ("clingo[encoding=dlv]", 8, "one of competition, textbook"),
        ("clingo[configuration=fast]", 8, "one of auto, frumpy"),
        ("clingo", 1000, "up to 400"),
        ("clingo[encoding=textbook]", 100, "up to 56"),
    ],
)
def test_bad_options(spec: str, n: int, words: str) -> None:
    with pytest.raises(BadInput, match=words):
        nq.solve(spec, n)


def test_export_of_another_format_is_refused() -> None:
    variant = variant_of("clingo")
    with pytest.raises(BadInput, match="exports asp"):
        variant.solver.export(Problem(8), variant.options, "dimacs")


def test_missing_library_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Requirement, "missing", lambda self: True)
    with pytest.raises(BadInput, match="pip install clingo"):
        nq.solve("clingo", 8)
