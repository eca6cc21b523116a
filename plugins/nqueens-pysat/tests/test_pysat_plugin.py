"""nqueens-pysat: the contract kit, plus what is particular to the python-sat adapter."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import nqueens_plugins as nq
from nqueens_plugins import BadInput, Budget, Problem, Requirement, Status, board_error, published_answer
from nqueens_plugins.testing import assert_contract, patient_executor, variant_of
from nqueens_pysat import adapter, encoding
from nqueens_pysat.adapter import PySat

DATA = Path(nq.__file__).parent / "data"
BLOCKED_28 = DATA / "blockedqueens.28.1449787894.param"  # published: satisfiable
HARD_56 = DATA / "blockedqueens.56.1860451109.param"  # published: unsatisfiable, minutes for a SAT solver
DIAGONALS_10 = DATA / "diag-10-4-1.param"  # published: a solution up to @6, none from @7


def options(**given: object) -> dict[str, object]:
    return {o.name: o.default for o in PySat.options} | given


# The two budget mechanisms: CaDiCaL in a child process killed at the deadline (the default), a MiniSat-line
# solver interrupted by a timer.
@pytest.mark.parametrize(
    "spec", ["pysat", "pysat[solver=minisat22,amo=seqcounter]", "pysat[solver=lingeling]", "pysat[solver=kissat404]"]
)
def test_keeps_the_solver_contract(spec: str) -> None:
    assert_contract(spec)


def test_registered_through_its_entry_point_only() -> None:
    registration = next(r for r in nq.solvers() if r.solver.name == "pysat")
    assert (registration.source.plugin, registration.source.distribution) == ("pysat", "nqueens-pysat")
    solver = registration.solver
    assert solver.family == "SAT" and solver.complete and solver.can_count and solver.exports == ("dimacs",)
    assert solver.supports_fixed and solver.supports_blocked


def test_listing_plugins_does_not_import_pysat() -> None:
    code = "import sys; import nqueens_plugins as nq; nq.solvers(); print('pysat' in sys.modules)"
    answer = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert answer.stdout.strip() == "False"


def test_counts_completions_like_the_bitboard() -> None:
    fixed = {0: 1, 2: 5}
    expected = nq.count("bitboard", 8, fixed=fixed).solutions
    assert expected
    for spec in ("pysat", "pysat[solver=minisat22,amo=ladder]"):
        result = nq.count(spec, 8, fixed=fixed)
        assert result.status == "solved" and result.solutions == expected
    counted = nq.count("pysat", 9)
    assert counted.solutions == 352 and counted.verified  # against OEIS


def test_published_blocked_instance_is_solved_on_open_squares() -> None:
    problem = nq.problem_of(instance=str(BLOCKED_28))
    assert published_answer(problem.source, problem.n) is True  # lingeling's published run: satisfiable
    result = nq.solve("pysat", problem)
    assert result.status == "solved" and result.verified
    assert all((c, r) not in problem.blocked for c, r in enumerate(result.queens))


def test_published_excluded_diagonals_answers() -> None:
    assert nq.solve("pysat", nq.problem_of(instance=f"{DIAGONALS_10}@6")).status == "solved"
    proved = nq.solve("pysat[solver=maplechrono]", nq.problem_of(instance=f"{DIAGONALS_10}@7"))
    assert proved.status == "no-solution" and proved.verified  # held against the published answer


def test_counters_come_from_the_solver() -> None:
    result = nq.solve("pysat", 30, fixed={0: 3})
    assert result.solved and result.queens[0] == 3
    counters = result.counters
    assert result.iterations == counters["decisions"] and result.moves == 30
    assert {"conflicts", "propagations", "restarts"} <= set(counters)
    assert counters["variables"] >= 900 and counters["clauses"] > 0


@pytest.mark.parametrize("solver", ["cadical195", "minisat22"])
def test_hard_instance_times_out_honestly(solver: str) -> None:
    """Both budget mechanisms stop the search on the hard published instance (unsatisfiable: only a
    proof may say so, so a stopped run is timed-out). A MiniSat-line solver, interrupted in this
    process, reports what it searched; a CaDiCaL child, killed, leaves only the CNF's size. The budget
    leaves the child time to build the CNF on a busy machine (0.3 s did not, once, in CI); the instance
    takes minutes."""
    problem = nq.problem_of(instance=str(HARD_56))
    outcome = PySat().solve(problem, random.Random(0), Budget(seconds=2.0), options(solver=solver))
    assert outcome.status == Status.TIMED_OUT and outcome.queens is None
    assert outcome.counters["variables"] == 56 * 56 and outcome.counters["clauses"] > 0
    if solver == "minisat22":
        assert outcome.counters["conflicts"] > 0 and outcome.iterations == outcome.counters["decisions"]
    else:
        assert "conflicts" not in outcome.counters and outcome.iterations == 0


def test_a_cadical_count_cut_short_keeps_its_tally() -> None:
    counted = PySat().count(Problem(12), Budget(seconds=1.0), options(), unique=False)
    assert counted.status == Status.TIMED_OUT and 0 < counted.solutions < 14_200
    assert counted.counters["sat_calls"] == counted.solutions + 1 and counted.counters["decisions"] > 0


@pytest.mark.parametrize("solver", ["cadical195", "minisat22"])
def test_iteration_cap_is_a_conflict_cap(solver: str) -> None:
    problem = nq.problem_of(instance=str(HARD_56))
    outcome = PySat().solve(problem, random.Random(0), Budget(iterations=300), options(solver=solver))
    assert outcome.status == Status.TIMED_OUT and 300 <= outcome.counters["conflicts"] < 3000
    counted = PySat().count(Problem(8), Budget(iterations=1), options(solver=solver), unique=False)
    assert counted.status == Status.TIMED_OUT and counted.solutions < 92


@pytest.mark.parametrize("amo", encoding.AMO_ENCODINGS)
def test_every_encoding_decides_small_instances(amo: str) -> None:
    solver = PySat()
    for n, solvable in ((6, True), (3, False)):
        outcome = solver.solve(Problem(n), random.Random(0), Budget(seconds=10), options(amo=amo))
        assert outcome.status == (Status.SOLVED if solvable else Status.NO_SOLUTION)
    assert solver.count(Problem(6), Budget(seconds=10), options(amo=amo), unique=False).solutions == 4


def test_variable_numbering_and_lines() -> None:
    problem = Problem(4, fixed={1: 3}, blocked={(0, 0), (2, 2)})
    assert encoding.var(4, 1, 3) == 1 * 4 + 3 + 1
    clauses, size = encoding.clauses_of(problem, "pairwise")
    assert size.variables == 16 and size.clauses == len(clauses)
    assert [encoding.var(4, 1, 3)] in clauses and [-encoding.var(4, 0, 0)] in clauses
    # The blocked square is left out of its column's at-least-one clause; each row gets one too.
    assert [encoding.var(4, 0, r) for r in (1, 2, 3)] in clauses
    assert [encoding.var(4, c, 1) for c in range(4)] in clauses
    _, without = encoding.clauses_of(problem, "pairwise", implied=False)
    assert size.clauses - without.clauses == 4  # the four row clauses


def test_size_formula_matches_the_encoding() -> None:
    for amo in encoding.AMO_ENCODINGS:
        for n in (1, 5, 9):
            _, size = encoding.clauses_of(Problem(n), amo)
            assert encoding.plain_size(n, amo) == (size.variables, size.clauses), (amo, n)


def published_commander_cnf(text: str) -> tuple[int, list[list[int]], dict[int, tuple[int, int]]]:
    """The CNF of CSPLib's blockedqueens2dimacs.py (the published lingeling run's), rebuilt from its
    source: variables for the open squares only, row by row, each the square (row i, column j) of the
    instance's [row, column] pairs; per row and column the commander tree (groups of 3) and the unit
    clause of its root; per diagonal of two or more squares the tree. Also each variable's square."""
    numbers = [int(token) for token in re.findall(r"\d+", text)]
    n = numbers[0]
    open_square = [[True] * n for _ in range(n)]
    for k in range((len(numbers) - 1) // 2):
        open_square[numbers[2 * k + 1] - 1][numbers[2 * k + 2] - 1] = False
    top = 0
    square_of: dict[int, tuple[int, int]] = {}
    rows: list[list[int]] = [[] for _ in range(n)]
    columns: list[list[int]] = [[] for _ in range(n)]
    sums: list[list[int]] = [[] for _ in range(2 * n - 1)]
    differences: list[list[int]] = [[] for _ in range(2 * n - 1)]
    for i in range(n):
        for j in range(n):
            if open_square[i][j]:
                top += 1
                square_of[top] = (i, j)
                for line in (rows[i], columns[j], sums[i + j], differences[i - j + n - 1]):
                    line.append(top)
    clauses: list[list[int]] = []

    def commanded(group: list[int]) -> int:
        nonlocal top
        if len(group) == 1:
            return group[0]
        top += 1
        clauses.append([*group, -top])
        clauses.extend([top, -v] for v in group)
        clauses.extend([-a, -b] for k, a in enumerate(group) for b in group[k + 1 :])
        return top

    def tree(line: list[int]) -> int:
        return line[0] if len(line) == 1 else tree([commanded(line[g : g + 3]) for g in range(0, len(line), 3)])

    for line in rows + columns:
        clauses.append([tree(line)])
    for line in sums + differences:
        if len(line) > 1:
            tree(line)
    return top, clauses, square_of


def canonical(clauses: list[list[int]], square_of: dict[int, tuple[int, int]]) -> Counter:
    """The clauses with every variable named by what it stands for, so two numberings compare: a board
    variable by its square, a commander by the set of squares under it (a set of two or more squares lies
    on one line only, so it names one commander). Commanders are found from their clauses
    ``[members..., -c]``, innermost first."""
    names: dict[int, object] = {v: ("square", square) for v, square in square_of.items()}
    definitions = {
        -clause[-1]: clause[:-1]
        for clause in clauses
        if len(clause) >= 3 and clause[-1] < 0 and all(literal > 0 for literal in clause[:-1])
    }
    while definitions:
        ready = [c for c, members in definitions.items() if all(m in names for m in members)]
        assert ready, "a commander defined over itself"
        for c in ready:
            members = definitions.pop(c)
            squares: set = set()
            for m in members:
                kind, value = names[m]  # type: ignore[misc]
                squares |= {value} if kind == "square" else set(value)
            names[c] = ("commander", frozenset(squares))
    return Counter(frozenset((literal > 0, names[abs(literal)]) for literal in clause) for clause in clauses)


def test_commander_poses_the_published_runs_clauses() -> None:
    """amo=commander is the published lingeling run's CNF clause for clause: the same clauses once each
    variable is named by what it stands for, plus one unit clause per blocked square (whose variable the
    published script never creates)."""
    text = BLOCKED_28.read_text()
    published_top, published, published_squares = published_commander_cnf(text.replace("blocks", " ", 1))
    problem = nq.problem_of(instance=str(BLOCKED_28))
    ours, size = encoding.clauses_of(problem, "commander")
    n = problem.n
    # The instance's pair [row i, column j] (1-based) is the host's square (column j-1, row i-1).
    our_squares = {encoding.var(n, c, r): (r, c) for c in range(n) for r in range(n)}
    blocked_units = [[-encoding.var(n, c, r)] for c, r in problem.blocked]
    assert all(unit in ours for unit in blocked_units)
    kept = [clause for clause in ours if not (len(clause) == 1 and clause[0] < 0)]
    assert len(kept) + len(blocked_units) == len(ours) == size.clauses
    assert size.variables - n**2 == published_top - len(published_squares)  # the same commanders
    assert canonical(kept, our_squares) == canonical(published, published_squares)
    # And they agree, with the plugin, on the answer: published satisfiable.
    from pysat.solvers import Solver as SatSolver

    with SatSolver(name="minisat22", bootstrap_with=published) as raw:
        assert raw.solve() is True
    assert nq.solve("pysat[amo=commander]", instance=str(BLOCKED_28)).status is Status.SOLVED


def test_export_round_trip() -> None:
    """The DIMACS text, solved by raw python-sat, gives the plugin's answer; its model read with the
    documented numbering is a board the verifier accepts."""
    from pysat.formula import CNF
    from pysat.solvers import Solver as SatSolver

    for problem, spec in (
        (nq.problem_of(instance=str(BLOCKED_28)), "pysat"),
        (nq.problem_of(instance=f"{DIAGONALS_10}@7"), "pysat[amo=bitwise,solver=minisat22]"),
        (Problem(8, fixed={0: 2, 3: 1}), "pysat[amo=totalizer,implied=false]"),
    ):
        variant = variant_of(spec)
        text = variant.solver.export(problem, variant.options, "dimacs")
        assert text.startswith("c N-Queens") and "variable v = column * " in text
        cnf = CNF(from_string=text)
        with SatSolver(name="cadical153", bootstrap_with=cnf.clauses) as raw:
            satisfiable = raw.solve()
            model = raw.get_model() if satisfiable else None
        plugin = nq.solve(variant, problem)
        assert plugin.status == ("solved" if satisfiable else "no-solution")
        if model is not None:
            queens = encoding.queens_of(model, problem.n)
            assert board_error(problem.n, queens, dict(problem.fixed), problem.blocked) is None


def test_bad_export_format() -> None:
    with pytest.raises(BadInput, match="exports dimacs"):
        PySat().export(Problem(8), options(), "mps")


@pytest.mark.parametrize(
    "spec, n, words",
    [
        ("pysat[amo=native]", 8, "one of pairwise, commander, seqcounter"),
        ("pysat[solver=picosat]", 8, "one of cadical195"),
        ("pysat[solver=cryptosat]", 8, "one of cadical195"),
        ("pysat[implied=maybe]", 8, "true or false"),
        ("pysat[amo=pairwise]", 400, "up to 144.*amo=seqcounter takes n up to 646"),
        ("pysat", 5000, "up to"),
    ],
)
def test_bad_options(spec: str, n: int, words: str) -> None:
    with pytest.raises(BadInput, match=words):
        nq.solve(spec, n)


def test_missing_library_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Requirement, "missing", lambda self: True)
    with pytest.raises(BadInput, match="pip install python-sat"):
        nq.solve("pysat", 8, isolate=False)


def test_count_seconds_for_plain_boards_only() -> None:
    solver = PySat()
    assert solver.count_seconds(Problem(12), options()) > solver.count_seconds(Problem(10), options()) > 0
    assert solver.count_seconds(Problem(8, fixed={0: 0}), options()) is None


@pytest.mark.parametrize("amo", ["pairwise", "totalizer"])
def test_max_n_is_the_largest_board_within_the_clause_limit(amo: str) -> None:
    limit = adapter.MAX_N[amo]
    assert encoding.plain_size(limit, amo)[1] <= adapter.MAX_CLAUSES < encoding.plain_size(limit + 1, amo)[1]


def test_solvers_with_no_limited_solve_are_stopped_at_the_deadline_and_say_what_they_cannot_do() -> None:
    hard = "blockedqueens.56.1860451109.param"  # unsatisfiable, and hard: none of them decides it in 1 s
    for solver in ("lingeling", "kissat404", "glucose4"):
        with patient_executor() as executor:  # killed a grace past the limit measured against the machine's load
            result = nq.solve(
                f"pysat[solver={solver}]", instance=hard, limits=nq.Limits(timeout=0.5), executor=executor
            )
        assert result.status == "timed-out" and result.reason is None, result.reason  # the plugin's own stop
    capped = nq.solve("pysat[solver=lingeling]", instance=hard, limits=nq.Limits(max_iterations=10))
    assert capped.status == "error" and "lingeling takes no conflict cap" in (capped.reason or "")
    with pytest.raises(BadInput, match="cannot count"):
        nq.count("pysat[solver=kissat404]", 8)
    assert nq.count("pysat[solver=lingeling]", 8).solutions == 92
