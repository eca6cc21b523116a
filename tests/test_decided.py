"""A run succeeds when it decided its instance: a verified board, or a no-solution claim that agrees with what is known."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from nqueens_plugins.core.problem import Count, Outcome, Problem, Status
from nqueens_plugins.core.verify import verify_count, verify_outcome
from nqueens_plugins.execution.judge import Result
from nqueens_plugins.formats import published
from nqueens_plugins.formats.published import published_answer
from nqueens_plugins.results.crosscheck import InstanceCheck, Verdict, judge_instance, read_expected
from nqueens_plugins.results.summary import baseline_rows, group_runs, summarise

DATA = Path(__file__).parent / "data"
# The whole published set, when it is beside the repository; the tests run from DATA without it.
SHARED = Path(__file__).resolve().parents[2] / "shared" / "csplib"
UNSAT = "diag-10-4-1.param@9"  # published: no solution (the threshold of diag-10-4-1 is 7)
SAT = "diag-10-4-1.param@3"


def csplib_excerpt(folder: Path) -> Path:
    """The repository's excerpts of the two published results files, laid out as CSPLib's folder is."""
    for excerpt, results in (
        ("shiftqueens-excerpt.txt", "excluded-diagonals/shiftqueens-results.txt.gz"),
        ("lingeling-excerpt.txt", "asp-blocked-queens/lingeling-results.txt.gz"),
    ):
        (folder / results).parent.mkdir(parents=True, exist_ok=True)
        (folder / results).write_bytes(gzip.compress((DATA / excerpt).read_bytes()))
    return folder


def test_the_shipped_table_is_the_published_results(tmp_path: Path) -> None:
    """Built from the repository's excerpts, the table's lines are the shipped table's; built from the whole
    published set (``../shared/csplib``, when it is beside the repository), it is the shipped table."""
    shipped = gzip.decompress((Path(published.__file__).parents[1] / "data" / published.TABLE).read_bytes())
    table = shipped.decode("ascii").splitlines()
    from_excerpts = published.build(csplib_excerpt(tmp_path)).splitlines()
    assert from_excerpts[0] == table[0]
    assert len(from_excerpts) == 5 and set(from_excerpts) <= set(table)  # two diagonal files, two blocked
    if (SHARED / "excluded-diagonals" / "shiftqueens-results.txt.gz").exists():
        assert shipped.decode("ascii") == published.build(SHARED)


@pytest.mark.parametrize("excerpt", ["shiftqueens-excerpt.txt", "lingeling-excerpt.txt"])
def test_lookups_agree_with_the_published_lines(excerpt: str) -> None:
    answers = read_expected(str(DATA / excerpt))
    assert answers
    for name, satisfiable in answers.items():
        n = int(name.split("-")[1]) if name.startswith("diag") else int(name.split(".")[1])
        assert published_answer(name, n) is satisfiable, name
        assert published_answer(f"some/folder/{name}", n) is satisfiable  # a path, as records keep it
        assert published_answer(name, n + 1) is None  # a file of another size is not that instance


def test_unpublished_names_are_unknown() -> None:
    assert published_answer("my-instance.param", 10) is None
    assert published_answer("diag-10-4-1.param@99", 10) is None  # beyond the prefixes that were run
    assert published_answer(None, 10) is None


def diagonal_problem(source: str) -> Problem:
    return Problem(10, blocked=frozenset({(0, 0)}), source=source)


def test_a_no_solution_claim_is_held_against_the_published_answer() -> None:
    claim = Outcome(Status.NO_SOLUTION, None, 1, 0)
    assert verify_outcome(diagonal_problem(UNSAT), claim, complete=True, published=False).verified is True
    refuted = verify_outcome(diagonal_problem(SAT), claim, complete=True, published=True)
    assert refuted.rejected and "published answer is that one exists" in (refuted.reason or "")
    assert verify_outcome(diagonal_problem("mine.param"), claim, complete=True).verified is None


def test_a_count_is_held_against_what_is_known() -> None:
    assert verify_count(Problem(5000), Count(Status.SOLVED, 0)).rejected  # every n >= 4 has solutions
    assert verify_count(Problem(3), Count(Status.SOLVED, 0)).verified is True
    assert verify_count(diagonal_problem(SAT), Count(Status.SOLVED, 0), published=True).rejected
    assert verify_count(diagonal_problem(UNSAT), Count(Status.SOLVED, 4), published=False).rejected
    assert verify_count(diagonal_problem(UNSAT), Count(Status.SOLVED, 0), published=False).verified is None


def record(solver: str, status: str, source: str | None = UNSAT, **extra: object) -> dict:
    base = {
        "type": "run",
        "solver": solver,
        "name": solver,
        "options": {},
        "seed": 0,
        "trial": 0,
        "n": 10,
        "status": status,
        "verified": True if status == "solved" else None,
        "reason": None,
        "queens": None,
        "iterations": 5,
        "moves": 5,
        "counters": {},
        "seconds": 0.01,
        "fixed": {},
        "blocked": [[0, 0]],
        "instance": source or "x",
        "source": source,
        "timeout": 2.0,
    }
    return base | extra


def rows_by_solver(records: list[dict]) -> dict:
    return {row.solver: row for row in summarise(records)}


def outcomes_add_up(row) -> bool:  # type: ignore[no-untyped-def]
    return row.runs == (
        row.solved + row.proved + row.unconfirmed + row.gave_up + row.timed_out + row.error + row.invalid
    )


def test_a_proof_of_no_solution_is_a_success_and_an_incomplete_solver_cannot_succeed() -> None:
    records = [record("exact", "no-solution", complete=True) for _ in range(3)]
    records += [record("local", "timed-out", complete=False) for _ in range(3)]
    rows = rows_by_solver(records)
    exact, local = rows["exact"], rows["local"]
    assert (exact.decided, exact.proved, exact.solved, exact.success_rate) == (3, 3, 0, 1.0)
    assert exact.ert_seconds == pytest.approx(0.01) and exact.answer == "has none"
    assert local.cannot_decide and local.decided == 0
    assert all(outcomes_add_up(row) for row in rows.values())
    groups, _ = group_runs(records)
    (compared,) = baseline_rows(groups, "local")
    assert compared.verdict == "only this one can decide it"


def test_old_records_read_the_same_way() -> None:
    """Written before records said whether a solver is complete, or before the verifier knew published answers."""
    rows = rows_by_solver([record("exact", "no-solution"), record("local", "timed-out")])
    assert rows["exact"].decided == 1 and rows["exact"].proved == 1
    assert not rows["local"].cannot_decide  # it does not say it is incomplete: shown as 0 %, as before


def test_an_unconfirmed_claim_is_not_scored_until_two_complete_solvers_agree() -> None:
    alone = rows_by_solver([record("exact", "no-solution", source="mine.param")])["exact"]
    assert (alone.decided, alone.unconfirmed, alone.answer) == (0, 1, "unknown")
    two = rows_by_solver(
        [record("exact", "no-solution", source="mine.param"), record("other[x=1]", "no-solution", source="mine.param")]
    )
    assert all(row.decided == 1 and row.answer == "has none" for row in two.values())
    same_solver = rows_by_solver(
        [record("exact", "no-solution", source="mine.param"), record("exact[x=1]", "no-solution", source="mine.param")]
    )
    assert all(row.decided == 0 for row in same_solver.values())  # variants of one solver are one opinion


def test_a_verified_board_outranks_any_claim() -> None:
    records = [
        record("exact", "no-solution", source="mine.param"),
        record("other", "no-solution", source="mine.param"),
        record("local", "solved", source="mine.param"),
    ]
    rows = rows_by_solver(records)
    assert rows["local"].decided == 1 and rows["local"].answer == "has solutions"
    for name in ("exact", "other"):
        assert rows[name].decided == 0 and rows[name].invalid == 1 and outcomes_add_up(rows[name])


def test_the_comparison_scores_a_proof_end_to_end(run_cli, tmp_path: Path) -> None:
    """The issue's command, on a published instance with no solution that the tests ship."""
    out = tmp_path / "runs.jsonl"
    instance = f"{DATA / 'diag-10-4-1.param'}@9"
    code, table, err = run_cli(
        "compare", "-s", "bitset-mrv,min-conflicts", "--instances", instance, "--trials", "3", "--timeout", "1",
        "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    lines = {line.split()[0]: line for line in table.splitlines() if line.strip().startswith(("bitset", "min-"))}
    assert "100% (44-100)" in lines["bitset-mrv"] and "has none" in lines["bitset-mrv"]
    assert "cannot: none exists" in lines["min-conflicts"]
    code, shown, err = run_cli("report", str(out), "--baseline", "min-conflicts", "--format", "json")
    assert code == 0, err
    (row,) = json.loads(shown)["rows"]
    assert row["verdict"] == "only this one can decide it"


def test_beyond_the_published_counts_a_plain_board_is_still_known_to_have_solutions(run_cli) -> None:
    code, out, err = run_cli("cross-check", "-n", "28..29", "-s", "construction", "--json")
    assert code == 0, err
    assert {check["expected"] for check in json.loads(out)} == {"solvable"}  # not "no solution"


def test_a_count_of_zero_cannot_turn_a_cross_check_against_a_verified_board(run_cli, fake_distribution) -> None:
    """A library that swallows its errors and returns what it had counted: 0, at n = 5000."""
    zero_counter = """
        from nqueens_plugins import Count, Outcome, Solver, Status, hookimpl

        class ZeroCounter(Solver):
            name = "zero-counter"
            summary = "Counts 0 for every board it cannot really count."
            complete = True

            def solve(self, problem, rng, budget, options):
                return Outcome(Status.GAVE_UP)

            def count(self, problem, budget, options, unique):
                return Count(Status.SOLVED, 0, unique)

        @hookimpl
        def nqueens_register_solvers(register):
            register(ZeroCounter())
    """
    fake_distribution("nqueens-zero", {"zero": "zero_counter_plugin"}, {"zero_counter_plugin": zero_counter})
    code, out, _ = run_cli("count", "-s", "zero-counter", "-n", "5000", "--yes", "--json")
    assert code == 3 and json.loads(out)["status"] == "invalid"  # count refuses what solve refuses
    code, out, _ = run_cli("cross-check", "-n", "5000", "-s", "zero-counter,construction", "--json")
    checks = json.loads(out)
    board = next(c for c in checks if c["solver"] == "construction")
    assert board["answer"] == "solved" and board["agrees"] is True  # the verified board is never the disagreement
    assert any(c["solver"] == "zero-counter" and c["task"] == "count" and not c["agrees"] for c in checks)


# --- cross-check --instances: the order of evidence ----------------------------


def answer(problem: Problem, solver: str, status: Status, verified: bool | None, queens=None) -> Result:
    return Result(solver, solver, {}, problem, 0, 0, status, verified, None, queens)


def test_a_verified_board_outranks_every_claim_and_names_the_claimant_wrong() -> None:
    problem = Problem(8, blocked=frozenset({(0, 1)}))
    board = [0, 4, 7, 5, 2, 6, 1, 3]
    results = [
        answer(problem, "bitset-mrv", Status.SOLVED, True, board),
        answer(problem, "liar", Status.NO_SOLUTION, None),
    ]
    check = judge_instance(problem, results, {"zero-counter": 0}, None)
    assert check.verdict == Verdict.DISAGREEMENT
    assert "board verified (bitset-mrv): the no-solution of liar, zero-counter is wrong" in check.detail


def test_a_no_solution_the_published_answer_confirms_needs_no_second_solver() -> None:
    problem = Problem(10, blocked=frozenset({(0, 0)}), source=UNSAT)
    check = judge_instance(problem, [answer(problem, "bitset-mrv", Status.NO_SOLUTION, True)], {}, False)
    assert check.verdict == Verdict.UNSATISFIABLE and "confirmed by the published answer" in check.detail


def two_refuters(families: dict[str, str]) -> InstanceCheck:
    """bitset-mrv and backtracking both say no solution, each of the family given."""
    problem = Problem(10, blocked=frozenset({(0, 0)}), source="mine.param")
    results = [
        answer(problem, "bitset-mrv", Status.NO_SOLUTION, None),
        answer(problem, "backtracking", Status.NO_SOLUTION, None),
    ]
    return judge_instance(problem, results, {}, None, families)


def test_a_no_solution_confirmed_within_one_family_only_is_flagged() -> None:
    same = two_refuters({"bitset-mrv": "search", "backtracking": "search"})
    assert same.verdict == Verdict.UNSATISFIABLE and "confirmed within one family only (search)" in same.detail
    mixed = two_refuters({"bitset-mrv": "search", "backtracking": "SAT"})
    assert "families: SAT, search" in mixed.detail and mixed.refuting_families == ["SAT", "search"]
    assert same.within_one_family and not mixed.within_one_family


def test_the_cross_check_summary_says_how_each_no_solution_was_confirmed() -> None:
    from nqueens_plugins.views.report import instance_checks_summary

    same = two_refuters({"bitset-mrv": "search", "backtracking": "search"})
    mixed = two_refuters({"bitset-mrv": "search", "backtracking": "SAT"})
    problem = Problem(10, blocked=frozenset({(0, 0)}), source="mine.param")
    alone = judge_instance(problem, [answer(problem, "bitset-mrv", Status.NO_SOLUTION, True)], {}, False)
    assert alone.verdict == Verdict.UNSATISFIABLE and not alone.within_one_family
    summary = instance_checks_summary([same, mixed, alone], with_published=False)
    assert (
        "no solution confirmed across families: 1 of 3 (by 2 families each, of SAT, search); "
        "1 within one family only (below); 1 by one family with the published answer, a checked certificate or the verifier"
    ) in summary
    assert "confirmed within one family only (search)" in summary  # the instance listed below


def test_cross_check_of_a_shipped_instance_holds_it_against_its_published_answer() -> None:
    import nqueens_plugins as nq

    (check,), _ = nq.cross_check_files(["diag-10-4-1.param@7"], "bitset-mrv,forward-checking")
    assert check.published is False and check.verdict == Verdict.UNSATISFIABLE and check.agrees
    assert "confirmed by the published answer" in check.detail
