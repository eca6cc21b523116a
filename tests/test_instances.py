"""Hard instances: the formats, the generators, the verifier with blocked squares, every
solver's support or refusal, bitset-mrv, and cross-checks against published answers."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nqueens_plugins as nq
from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import Problem
from nqueens_plugins.core.verify import board_error, instance_contradiction
from nqueens_plugins.execution.inprocess import count, run
from nqueens_plugins.formats import instances
from nqueens_plugins.formats.inputs import make_problem
from nqueens_plugins.loading import host
from nqueens_plugins.testing import CheckSkipped, check_blocked_squares

DATA = Path(__file__).parent / "data"
# The whole published set, when it is beside the repository; the tests run from DATA without it.
SHARED = Path(__file__).resolve().parents[2] / "shared" / "csplib"
ASP_SAT = DATA / "blockedqueens.28.1449787894.param"
ASP_UNSAT = DATA / "blockedqueens.28.1449787798.param"
DIAG = DATA / "diag-10-4-1.param"


# --- formats -------------------------------------------------------------------


def test_asp_blocks_are_one_based_row_column() -> None:
    problem = instances.load_one(str(ASP_SAT))
    assert problem.n == 28 and not problem.fixed
    # The file's first pairs are [1,1], [1,2], [1,3]: row 1, columns 1..3 (1-based).
    assert {(0, 0), (1, 0), (2, 0)} <= problem.blocked
    assert len(problem.blocked) == ASP_SAT.read_text().count("[") - 1
    assert problem.source == str(ASP_SAT) and len(problem.id) == 12


def test_completion_init_is_zero_based_row_column(tmp_path: Path) -> None:
    path = tmp_path / "c.param"
    path.write_text("language ESSENCE' 1.0\n$ a comment\nletting n = 8\nletting init = [[0,3], [4,1]]\n")
    problem = instances.load_one(str(path))
    assert problem.fixed == {3: 0, 1: 4}  # [row, column] -> column: row
    assert not problem.blocked


def test_excluded_diagonals_take_the_first_d_pairs() -> None:
    # diag-10-4-1.param starts [[4, 1], [2, 1], [14, 0], ...]
    none, one, three = (instances.load_one(f"{DIAG}@{d}") for d in (0, 1, 3))
    assert none.is_plain
    assert one.blocked == {(c, 4 - c) for c in range(5)}  # row + column = 4
    difference = {(c, r) for c in range(10) for r in range(10) if r - c == 14 - 9}
    assert difference <= three.blocked and one.blocked < three.blocked
    assert len(instances.load(f"{DIAG}@all")) == 15 and len(instances.load(f"{DIAG}@2..4")) == 3
    assert three.source == f"{DIAG}@3"


def test_archives_stand_for_their_files() -> None:
    """CSPLib's own archive (a copy in DATA), and every other archive of the whole set when it is beside us."""
    shared = sorted((SHARED / "excluded-diagonals").glob("diag-*.tar.gz"))
    for archive in [DATA / "diag-10.tar.gz", *shared]:
        n = int(archive.name.removeprefix("diag-").removesuffix(".tar.gz"))
        problems = instances.load(f"{archive}@5")
        assert len(problems) == 1000 and {problem.n for problem in problems} == {n}
        assert problems[0].source == f"diag-{n}.tar.gz:diag-{n}/diag-{n}-4-1.param@5"
    one = instances.load(f"{DATA / 'diag-10.tar.gz'}@3")[0]
    assert one.blocked == instances.load_one(f"{DIAG}@3").blocked  # the archive's file is DATA's


@st.composite
def problems(draw: st.DrawFn, max_n: int = 12) -> Problem:
    n = draw(st.integers(1, max_n))
    squares = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    fixed = draw(st.dictionaries(st.integers(0, n - 1), st.integers(0, n - 1), max_size=n))
    blocked = draw(st.sets(squares, max_size=2 * n))
    return make_problem(n, fixed, blocked)


@given(problems())
@settings(max_examples=150, deadline=None)
def test_json_and_essence_forms_round_trip(problem: Problem) -> None:
    as_json = instances.parse(json.dumps(instances.to_json(problem)), "x.json")[0]
    as_essence = instances.parse(instances.essence_text(problem), "x.param")[0]
    assert as_json == problem and as_essence == problem
    assert as_json.id == problem.id == as_essence.id


@given(st.integers(2, 14), st.integers(0, 4), st.integers(0, 2**32))
@settings(max_examples=40, deadline=None)
def test_diagonal_generator_keeps_open_squares_and_round_trips(n: int, minimum: int, seed: int) -> None:
    import random

    diagonals = instances.random_diagonals(n, minimum, random.Random(seed))
    text = instances.diagonals_text(n, diagonals)
    everything = instances.parse(text, "g.param", "all")
    assert len(everything) == len(diagonals) + 1
    last = everything[-1]
    for line in range(n):
        assert sum((line, r) not in last.blocked for r in range(n)) >= min(minimum, n)
        assert sum((c, line) not in last.blocked for c in range(n)) >= min(minimum, n)
    assert all(a.blocked <= b.blocked for a, b in itertools.pairwise(everything))


@pytest.mark.parametrize(
    "text, words",
    [
        ("letting n = 8\nletting blocks = [[1,1],\n[1,2]\n[2,2]]\n", "x.param:3: blocks must be a list"),
        ("letting n = 8\nletting blocks = [[1,1],\n[9,2]]\n", "x.param:3: blocked square [9,2] is off the board"),
        ("letting n = 8\nletting blocks = [[0,1]]\n", "x.param:2: blocked square [0,1] is off the board (1-based"),
        ("letting n = 8\nletting init = [[0,8]]\n", "queen [0,8] is off the board (0-based"),
        ("letting n = eight\nletting init = []\n", "x.param:1: n must be a whole number"),
        ("letting n = 8\n", "needs 'letting blocks"),
        ("hello world\n", "not an instance file"),
        ("letting n = 8\nletting n = 9\nletting init = []\n", "n is given twice"),
        ("n = 8\nnumdiags = 2\ndiags = [[1, 1]]\n", "numdiags = 2, but the list has 1"),
        ("n = 8\nnumdiags = 1\ndiags = [[15, 1]]\n", "not a diagonal of a 8x8 board"),
        ("n = 8\nnumdiags = 1\ndiags = [[3, 1]]\n", "choose how many with x.param@d"),
        ('{"format": "nqueens-instance", "n": 8,\n "fixed": {"0": 9}}', "fixed queen 0:9 is off the 8x8 board"),
        ('{"format": "nqueens-instance", "n": 8,,}', "x.param:1: not valid JSON"),
        ('{"n": 8}', 'needs "format"'),
    ],
)
def test_malformed_files_name_file_and_line(text: str, words: str) -> None:
    with pytest.raises(BadInput) as caught:
        instances.parse(text, "x.param")
    assert words in str(caught.value)
    assert "\n" not in str(caught.value)


def test_bad_selections_and_paths(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="beyond its list of 14 diagonals"):
        instances.load(f"{DIAG}@15")
    with pytest.raises(BadInput, match="not an Excluded Diagonals file"):
        instances.load(f"{ASP_SAT}@3")
    with pytest.raises(BadInput, match="no instance file matches"):
        instances.load(str(tmp_path / "*.param"))
    with pytest.raises(BadInput, match="does not exist"):
        instances.load(str(tmp_path / "missing.param"))
    with pytest.raises(BadInput, match="after @ comes"):
        instances.load(f"{DIAG}@x")
    with pytest.raises(BadInput, match="names 2 instances"):
        instances.load_one(f"{DIAG}@2..3")


def test_a_million_line_file_gets_an_answer(tmp_path: Path) -> None:
    path = tmp_path / "big.param"
    lines = ",\n".join(f"[{1 + i % 56},{1 + (i * 7) % 56}]" for i in range(1_000_000))
    path.write_text(f"letting n = 56\nletting blocks = [{lines}]\n")
    problem = instances.load_one(str(path))
    assert problem.n == 56 and 0 < len(problem.blocked) <= 56 * 56


# --- generators ----------------------------------------------------------------


@pytest.mark.parametrize("kind, parameter", [("completion", 5), ("blocked", 40), ("diagonals", 4)])
def test_generators_are_seeded(tmp_path: Path, kind: str, parameter: int) -> None:
    first = instances.generate(kind, 12, 3, 7, parameter, tmp_path / "a")
    again = instances.generate(kind, 12, 3, 7, parameter, tmp_path / "b")
    other = instances.generate(kind, 12, 3, 8, parameter, tmp_path / "c")
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in again]
    assert [p.read_bytes() for p in first] != [p.read_bytes() for p in other]
    spec = f"{first[0]}@all" if kind == "diagonals" else str(first[0])
    problem = instances.load(spec)[-1]
    if kind == "completion":
        assert len(problem.fixed) == 5 and instance_contradiction(problem) is None
    elif kind == "blocked":
        assert len(problem.blocked) == 40 and not problem.fixed


# --- the verifier ----------------------------------------------------------------


def brute_force_ok(problem: Problem, queens: tuple[int, ...]) -> bool:
    n = problem.n
    if any(queens[c] != r for c, r in problem.fixed.items()) or any(
        (c, queens[c]) in problem.blocked for c in range(n)
    ):
        return False
    return all(
        queens[a] != queens[b] and abs(queens[a] - queens[b]) != b - a for a in range(n) for b in range(a + 1, n)
    )


@given(problems(max_n=6), st.data())
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_verifier_agrees_with_brute_force_on_blocked_boards(problem: Problem, data: st.DataObject) -> None:
    queens = tuple(data.draw(st.lists(st.integers(0, problem.n - 1), min_size=problem.n, max_size=problem.n)))
    error = board_error(problem.n, queens, dict(problem.fixed), problem.blocked)
    assert (error is None) == brute_force_ok(problem, queens), error


def test_contradictions_are_instances_with_no_solution() -> None:
    for problem in (
        make_problem(8, {0: 0, 2: 2}),  # attacking fixed queens
        make_problem(8, {0: 3}, [(0, 3)]),  # a fixed queen on a blocked square
        make_problem(6, blocked=[(2, r) for r in range(6)]),  # a blocked column
        make_problem(6, blocked=[(c, 4) for c in range(6)]),  # a blocked row
    ):
        assert problem.contradiction() is not None and instance_contradiction(problem) is not None
        for name in ("backtracking", "bitset-mrv", "forward-checking", "bitboard"):
            variant = host.registry().variant(name)
            assert run(variant, problem).status == "no-solution" and run(variant, problem).verified is True
            assert count(variant, problem).solutions == 0
        assert run(host.registry().variant("min-conflicts"), problem).status == "gave-up"


# --- every solver ----------------------------------------------------------------

QUICK = {  # keep the incomplete methods' hopeless runs on the unsatisfiable probe short
    "british-museum": "british-museum[max_attempts=20000]",
    "min-conflicts": "min-conflicts[max_steps=200,restarts=5]",
    "random-restart": "random-restart[restarts=20]",
    "first-choice": "first-choice[restarts=20]",
    "simulated-annealing": "simulated-annealing[max_steps=5000]",
}


@pytest.mark.parametrize("name", [r.solver.name for r in nq.solvers()])
def test_every_solver_supports_blocked_squares_or_refuses_them(name: str) -> None:
    try:
        check_blocked_squares(host.registry().variant(QUICK.get(name, name)))
    except CheckSkipped as unavailable:  # e.g. a solver binary not installed: the reason says how to get it
        pytest.skip(str(unavailable))


@pytest.mark.parametrize("spec", ["bitset-mrv[kernel=python]", "bitset-mrv[kernel=numba]"])
def test_bitset_mrv_counts_agree_with_oeis_and_bitboard(spec: str) -> None:
    variant = host.registry().variant(spec)
    if variant.solver.precheck(8, variant.options):
        pytest.skip("numba is not installed")
    for n in range(1, 10):
        assert count(variant, make_problem(n)).verified is True
    bitboard = host.registry().variant("bitboard")
    for d in range(0, 15, 2):
        problem = instances.load_one(f"{DIAG}@{d}")
        assert count(variant, problem).solutions == count(bitboard, problem).solutions


@given(problems(max_n=9))
@settings(max_examples=60, deadline=None)
def test_complete_solvers_count_alike_on_random_instances(problem: Problem) -> None:
    counts = {
        name: count(host.registry().variant(name), problem).solutions
        for name in ("bitset-mrv", "bitboard", "backtracking", "forward-checking[order=mrv]")
    }
    assert len(set(counts.values())) == 1, counts
    solved = run(host.registry().variant("bitset-mrv"), problem)
    assert solved.status == ("solved" if counts["bitset-mrv"] else "no-solution")


def test_min_conflicts_is_useful_on_an_easy_completion_board() -> None:
    # Pure min-conflicts (the tutorial's) stalls on some seeds; the instance defaults do not.
    statuses = [
        nq.solve("min-conflicts", 12, limits=nq.Limits(seed=seed), fixed={0: 2, 5: 9}).status for seed in range(10)
    ]
    assert statuses == ["solved"] * 10


def test_asp_instances_decided_as_published() -> None:
    mrv = host.registry().variant("bitset-mrv")
    assert run(mrv, instances.load_one(str(ASP_SAT))).solved
    assert run(mrv, instances.load_one(str(ASP_UNSAT))).status == "no-solution"


# --- cross-check and compare on instances ----------------------------------------


def test_cross_check_instances_against_published_answers(run_cli) -> None:
    code, out, err = run_cli(
        "cross-check",
        "--instances",
        f"{ASP_SAT},{ASP_UNSAT}",
        "-s",
        "bitset-mrv,forward-checking[order=mrv],ortools-cpsat",
        "--expected",
        str(DATA / "lingeling-excerpt.txt"),
        "--timeout",
        "20",
    )
    assert code == 0, out + err
    assert "1 satisfiable, 1 unsatisfiable" in out and "agreeing 2 (100.0 %)" in out
    code, out, err = run_cli(
        "cross-check",
        "--instances",
        f"{DIAG}@1..12,{DATA / 'diag-10-4-2.param'}@1..12",
        "-s",
        "bitset-mrv",
        "--expected",
        str(DATA / "shiftqueens-excerpt.txt"),
        "--count",
    )
    assert code == 0, out + err
    assert "agreeing 24 (100.0 %)" in out
    # One complete solver is enough where the published answer confirms its no-solution.
    assert "14 unsatisfiable" in out and "unconfirmed" not in out


def test_cross_check_reports_a_lying_solver(run_cli, fake_distribution, tmp_path: Path) -> None:
    liar = """
        from nqueens_plugins import Outcome, Solver, Status, hookimpl

        class Liar(Solver):
            name = "liar"
            summary = "Says no solution, always."
            complete = True
            supports_blocked = True

            def solve(self, problem, rng, budget, options):
                return Outcome(Status.NO_SOLUTION, None, 1, 0)

        @hookimpl
        def nqueens_register_solvers(register):
            register(Liar())
    """
    fake_distribution("nqueens-liar", {"liar": "liar_plugin"}, {"liar_plugin": liar})
    # A published instance: the verifier holds the claim against its published answer and rejects it.
    code, out, _ = run_cli("cross-check", "--instances", str(ASP_SAT), "-s", "liar,bitset-mrv")
    assert code == 1 and "DISAGREEMENT" in out
    assert "liar gave a rejected answer (claims no solution, but the published answer is that one exists)" in out
    assert out.strip().splitlines()[-1].startswith("verdict: DISAGREEMENT in 1 check:")
    # The same instance under another name has no published answer: the verified board refutes the claim.
    renamed = tmp_path / "renamed.param"
    renamed.write_text(ASP_SAT.read_text())
    code, out, _ = run_cli("cross-check", "--instances", str(renamed), "-s", "liar,bitset-mrv")
    assert (
        code == 1 and "DISAGREEMENT" in out and "board verified (bitset-mrv): the no-solution of liar is wrong" in out
    )
    code, out, _err = run_cli(
        "cross-check", "--instances", str(renamed), "-s", "liar", "--expected", str(DATA / "lingeling-excerpt.txt")
    )
    assert code == 0 and "unsatisfiable (unconfirmed)" in out  # the excerpt names no file "renamed.param"
    code, out, _err = run_cli(
        "cross-check", "--instances", str(ASP_SAT), "-s", "liar", "--expected", str(DATA / "lingeling-excerpt.txt")
    )
    assert code == 1 and "DISAGREEMENT" in out


def test_a_count_that_timed_out_is_listed_as_inconclusive(run_cli, fake_distribution) -> None:
    slow_counter = """
        from nqueens_plugins import Count, Outcome, Solver, Status, hookimpl

        class SlowCounter(Solver):
            name = "slow-counter"
            summary = "Solves nothing, and its counts never finish."
            complete = True
            supports_blocked = True

            def solve(self, problem, rng, budget, options):
                return Outcome(Status.TIMED_OUT, None, 1, 0)

            def count(self, problem, budget, options, unique):
                return Count(Status.TIMED_OUT, 7, False, 1)

        @hookimpl
        def nqueens_register_solvers(register):
            register(SlowCounter())
    """
    fake_distribution("nqueens-slow-counter", {"slow": "slow_counter_plugin"}, {"slow_counter_plugin": slow_counter})
    code, out, err = run_cli(
        "cross-check", "--instances", str(ASP_SAT), "-s", "slow-counter,bitset-mrv", "--count", "--json"
    )
    assert code == 0, err
    (check,) = json.loads(out)["checks"]
    assert check["inconclusive"] == {"slow-counter": "timed-out"} and "slow-counter" not in check["counts"]
    assert "count inconclusive: slow-counter timed-out" in check["detail"]
    assert check["verdict"] == "satisfiable" and check["agrees"]


def test_compare_on_instances_records_name_them(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    with nq.executor_for(jobs=2) as executor:
        records = nq.compare(
            ["bitset-mrv", "min-conflicts"],
            f"{DIAG}@4..5",
            trials=2,
            out=out,
            executor=executor,
            limits=nq.Limits(timeout=10),
        )
    assert len(records) == 8
    for record in records:
        assert record["source"].startswith(str(DIAG)) and len(record["instance"]) == 12
        assert record["blocked"] and record["n"] == 10
        if record["status"] == "solved":
            queens = record["queens"]
            assert all([c, queens[c]] not in record["blocked"] for c in range(10))
    again = nq.compare(["bitset-mrv", "min-conflicts"], f"{DIAG}@4..5", trials=2, out=nq.ResultsFile(out, resume=True))
    assert again == []  # every run is already in the file
    rebuilt = instances.problem_from_json(records[0], records[0]["source"])
    assert rebuilt.id == records[0]["instance"]


@pytest.mark.parametrize(
    "args, words",
    [
        (["solve", "-s", "bitset-mrv", "--instance", "nowhere.param"], "does not exist"),
        (["solve", "-s", "bitset-mrv"], "give a board size (-n N) or an instance file"),
        (["solve", "-s", "bitset-mrv", "--instance", f"{DIAG}@99"], "beyond its list"),
        (["solve", "-s", "bitset-mrv", "-n", "9", "--instance", f"{DIAG}@3"], "does not match the instance's n = 10"),
        (["solve", "-s", "swap-search", "--instance", f"{DIAG}@3"], "swap-search cannot honour blocked squares"),
        (["compare", "-s", "bitset-mrv", "--instances", "/nonexistent/*.param"], "no instance file matches"),
        (["compare", "-s", "bitset-mrv", "-n", "8", "--instances", str(DIAG)], "one of the two"),
        (["count", "--instance", f"{DIAG}@3", "--unique"], "plain boards"),
        (["cross-check", "--instances", str(ASP_SAT), "--expected", "nowhere.txt"], "does not exist"),
        (["instances", "generate", "diagonals", "-n", "0", "--out", "x"], "at least 1"),
        (["instances", "generate", "completion", "-n", "4", "-k", "9", "--out", "/tmp/nq-gen-test"], "0..n queens"),
    ],
)
def test_bad_instance_input_is_one_line(run_cli, args: list[str], words: str) -> None:
    code, out, err = run_cli(*args)
    assert code == 2, out + err
    assert err.count("\n") == 1 and words in err and "Traceback" not in err


def test_solve_and_count_an_instance_from_the_cli(run_cli) -> None:
    code, out, _ = run_cli("solve", "-s", "bitset-mrv", "--instance", f"{DIAG}@6", "--json")
    record = json.loads(out)
    assert code == 0 and record["verified"] is True and record["source"] == f"{DIAG}@6"
    code, out, _ = run_cli("count", "-s", "bitset-mrv", "--instance", f"{DIAG}@6")
    assert code == 0 and "counted 2 solutions" in out
    code, out, _ = run_cli("instances", "show", f"{DIAG}@6")
    assert code == 0 and "blocked squares" in out and "▪" in out


def test_instances_take_the_place_of_sizes_in_reports_and_plots(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    code, _, err = run_cli(
        "compare", "-s", "bitset-mrv", "--instances", f"{DIAG}@0..3", "--out", str(out), "--format", "csv"
    )
    assert code == 0, err
    code, table, _ = run_cli("report", str(out), "--format", "markdown")
    assert code == 0 and "| instance |" in table and f"{DIAG}@0" in table and f"{DIAG}@3" in table
    code, _said, err = run_cli("plot", str(out), "-o", str(tmp_path / "runs.png"))
    assert code == 0, err
    assert (tmp_path / "runs.png").stat().st_size > 10_000


EXPORTER = """
    from nqueens_plugins import Solver, hookimpl

    class Exporter(Solver):
        name = "exporter"
        summary = "Writes the blocked squares as a made-up format."
        complete = True
        supports_blocked = True
        exports = ("dimacs",)

        def solve(self, problem, rng, budget, options):
            raise NotImplementedError

        def export(self, problem, options, format):
            squares = " ".join(f"{c}:{r}" for c, r in sorted(problem.blocked))
            return f"c n={problem.n} format={format}\\nblocked {squares}\\n"

    class BrokenExporter(Exporter):
        name = "broken-exporter"
        summary = "Answers an export with a number."

        def export(self, problem, options, format):
            return 42

    @hookimpl
    def nqueens_register_solvers(register):
        register(Exporter())
        register(BrokenExporter())
"""


def test_an_instance_is_exported_by_the_plugin_that_poses_it(fake_distribution, run_cli, tmp_path: Path) -> None:
    fake_distribution("nqueens-exporter", {"exporter": "exporter_plugin"}, {"exporter_plugin": EXPORTER})
    code, out, err = run_cli(
        "instances", "export", "-n", "5", "--blocked", "1:2", "--format", "dimacs", "-s", "exporter"
    )
    assert code == 0, err
    assert out == "c n=5 format=dimacs\nblocked 1:2\n"
    code, out, err = run_cli("instances", "export", "-n", "5", "--format", "dimacs", "-s", "broken-exporter")
    assert code == 1 and "broken-exporter exported int, not text" in err
    written = tmp_path / "out" / "board.cnf"
    written.parent.mkdir()  # an output's folder is the user's to make (docs/cli.md)
    code, _, err = run_cli(
        "instances",
        "export",
        "--instance",
        "diag-10-4-1.param@3",
        "--format",
        "dimacs",
        "-s",
        "exporter",
        "-o",
        str(written),
    )
    assert code == 0 and written.read_text().startswith("c n=10") and "as exporter poses it" in err
    code, out, _ = run_cli("instances", "export", "-n", "6", "--json")
    assert code == 0 and json.loads(out)["n"] == 6
    for args, words in (
        (["-n", "6", "--format", "dimacs", "-s", "min-conflicts"], "min-conflicts does not export dimacs"),
        (["--format", "json"], "give an instance file (--instance FILE) or -n SIZE"),
        (["-n", "6"], "say which format: --format dimacs|asp"),
    ):
        code, out, err = run_cli("instances", "export", *args)
        assert code == 2 and out == "" and words in err and len(err.strip().splitlines()) == 1
    # dimacs with no solver named is the host's canonical CNF, whoever else exports dimacs
    code, out, _ = run_cli("instances", "export", "-n", "6", "--blocked", "0:0", "--format", "dimacs")
    assert (
        code == 0
        and out.splitlines()[2]
        == f"p cnf 35 {nq.core.canonical_cnf.clause_count(nq.Problem(6, blocked=frozenset({(0, 0)})))}"
    )
    with pytest.raises(BadInput, match="no installed solver exports cnf-xyz"):
        nq.export("cnf-xyz", 6)
