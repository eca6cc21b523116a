"""nqueens-pysat's certificates: the library's DRUP proofs of the canonical CNF, checked here by a reference checker.

The checker is written in this file (a forward RUP checker, deletions honoured: the strictest reading
of DRUP), so these tests depend on no solver code; every proof is checked by the host's own checker
(``nq.check_proof``) too.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

import nqueens_plugins as nq
from nqueens_plugins import Budget, Problem, ProofLog, Status, board_error
from nqueens_pysat import certificate
from nqueens_pysat.adapter import SOLVERS, PySat

DATA = Path(nq.__file__).parent / "data"
DIAGONALS_10 = DATA / "diag-10-4-1.param"  # published: a solution up to @6, none from @7
HARD_56 = DATA / "blockedqueens.56.1860451109.param"  # published: unsatisfiable, minutes for a SAT solver
# CSPLib 079's diag-10-4-10, unsatisfiable from @6: glucose4's proofs of @6 and @8 delete clauses a later
# lemma needs (why the plugin drops Glucose's deletions).
DIAGONALS_10_10 = """n =  10
numdiags =  15
diags =  [[18, 1], [1, 0], [13, 0], [4, 0], [11, 0], [6, 0], [1, 1], [13, 1], [14, 0], [15, 1], [9, 1], [0, 1], [18, 0], [0, 0], [5, 1]]
"""


def options(**given: object) -> dict[str, object]:
    return {o.name: o.default for o in PySat.options} | given


# --- the reference checker -------------------------------------------------------


def unit_conflict(clauses: Iterable[Sequence[int]], assumed: set[int]) -> bool:
    """Whether unit propagation from the true literals ``assumed`` (extended in place) reaches a conflict."""
    clauses = list(clauses)
    changed = True
    while changed:
        changed = False
        for clause in clauses:
            open_literals = [literal for literal in clause if -literal not in assumed]
            if any(literal in assumed for literal in open_literals):
                continue
            if not open_literals:
                return True
            if len(open_literals) == 1:
                assumed.add(open_literals[0])
                changed = True
    return False


def rup_failure(formula: Iterable[Sequence[int]], proof_lines: Iterable[str]) -> str | None:
    """Why the DRUP proof does not refute ``formula``, or None: each lemma must be RUP (its negation
    propagates to a conflict over the formula and the lemmas before it, less what was deleted); the last
    lemma must be the empty clause."""
    active = Counter(tuple(sorted(clause)) for clause in formula)
    last: list[int] | None = None
    for number, line in enumerate(proof_lines, start=1):
        tokens = line.split()
        if not tokens or tokens[-1] != "0":
            return f"line {number} {line!r} is not a clause"
        if tokens[0] == "d":
            key = tuple(sorted(int(token) for token in tokens[1:-1]))
            if active[key] > 0:
                active[key] -= 1
            continue
        lemma = [int(token) for token in tokens[:-1]]
        clauses = [clause for clause, copies in active.items() for _ in range(copies)]
        if not unit_conflict(clauses, {-literal for literal in lemma}):
            return f"line {number} {line!r} is not RUP"
        active[tuple(sorted(lemma))] += 1
        last = lemma
    return None if last == [] else f"the last lemma is {last}, not the empty clause"


def certified_solve(problem: Problem, solver: str, path: Path, seconds: float = 20) -> tuple[nq.Outcome, ProofLog]:
    proof = ProofLog(path, problem, 1 << 30)
    outcome = PySat().solve(problem, random.Random(0), Budget(seconds=seconds, proof=proof), options(solver=solver))
    proof.close()  # as the host does after the solver returns
    return outcome, proof


def unsatisfiable(tmp_path: Path) -> list[Problem]:
    (tmp_path / "diag-10-4-10.param").write_text(DIAGONALS_10_10)
    return [
        Problem(2),
        Problem(3),
        Problem(4, blocked=frozenset({(0, 1), (0, 2)})),  # both solutions of n = 4 blocked
        Problem(6, fixed={0: 0}),  # no solution of n = 6 has a corner queen
        Problem(8, fixed={0: 0, 1: 1}),  # the fixed queens attack: unit propagation alone refutes it
        nq.problem_of(instance=f"{DIAGONALS_10}@7"),
        nq.problem_of(instance=f"{tmp_path / 'diag-10-4-10.param'}@6"),
        nq.problem_of(instance=f"{tmp_path / 'diag-10-4-10.param'}@8"),
    ]


# --- tests -----------------------------------------------------------------------


def test_the_reference_checker_rejects_what_is_not_a_refutation() -> None:
    formula = list(nq.canonical_cnf(Problem(3)).clauses())
    assert rup_failure(formula, ["0"]) is not None  # the empty clause is not RUP at once for n = 3
    assert rup_failure(formula, ["1 0"]) is not None  # nor is "a queen in the corner"
    assert rup_failure(formula, ["-1 0"]) is not None  # RUP, but no empty clause at the end
    attacking = list(nq.canonical_cnf(Problem(8, fixed={0: 0, 1: 1})).clauses())
    assert rup_failure(attacking, ["0"]) is None  # two fixed queens that attack: propagation alone refutes it
    deleted = [" ".join(map(str, ["d", *clause, 0])) for clause in attacking]
    assert rup_failure(attacking, [*deleted, "0"]) is not None  # deletions are honoured


@pytest.mark.parametrize("solver", certificate.PROOF_SOLVERS)
def test_every_no_solution_claim_comes_with_a_proof_that_checks(solver: str, tmp_path: Path) -> None:
    for index, problem in enumerate(unsatisfiable(tmp_path)):
        path = tmp_path / f"{index}.drat"
        outcome, proof = certified_solve(problem, solver, path)
        assert outcome.status == Status.NO_SOLUTION, (solver, problem)
        lines = path.read_text().splitlines()
        assert lines[-1] == "0" and not proof.overflowed
        assert proof.lemmas == sum(1 for line in lines if not line.startswith("d"))
        formula = nq.canonical_cnf(problem)
        assert rup_failure(formula.clauses(), lines) is None, (solver, problem, rup_failure(formula.clauses(), lines))
        checked = nq.check_proof(problem, path)  # the host's own checker, in its process of its own
        assert checked.certified, (solver, problem, checked.reason)


def test_glucose_deletions_are_dropped_because_they_would_not_check(tmp_path: Path) -> None:
    """The reason ``KEEPS_DELETIONS`` leaves Glucose out: its raw proof of diag-10-4-10@6 fails the check."""
    from pysat.solvers import Solver as SatSolver

    problem = unsatisfiable(tmp_path)[6]
    formula = list(nq.canonical_cnf(problem).clauses())
    with SatSolver(name="glucose4", bootstrap_with=formula, with_proof=True) as raw:
        assert raw.solve() is False
        raw_proof = raw.get_proof()
    assert rup_failure(formula, raw_proof) is not None
    assert rup_failure(formula, [line for line in raw_proof if not line.startswith("d")]) is None


def test_satisfiable_instances_are_still_solved_with_a_proof_log(tmp_path: Path) -> None:
    problems = [Problem(8), Problem(9, fixed={0: 2}), nq.problem_of(instance=f"{DIAGONALS_10}@6")]
    for solver in ("cadical195", "maplechrono", "lingeling"):
        for index, problem in enumerate(problems):
            outcome, proof = certified_solve(problem, solver, tmp_path / f"{solver}{index}.drat")
            assert outcome.status == Status.SOLVED and outcome.queens is not None, (solver, problem)
            assert board_error(problem.n, outcome.queens, dict(problem.fixed), problem.blocked) is None
            assert proof.lemmas == 0 and not proof.path.exists()  # no claim, no proof
            assert outcome.counters["variables"] == nq.canonical_cnf(problem).variables


def test_only_solvers_that_log_checkable_proofs_can_certify() -> None:
    solver = PySat()
    assert solver.certifies
    certifying = {name for name in SOLVERS if solver.can_certify(options(solver=name))}
    assert certifying == set(certificate.PROOF_SOLVERS)
    assert not certifying & {"minisat22", "mergesat3", "kissat404", "maplesat"}


def test_maplesat_is_left_out_because_its_proofs_do_not_check() -> None:
    from pysat.solvers import Solver as SatSolver

    formula = list(nq.canonical_cnf(nq.problem_of(instance=f"{DIAGONALS_10}@7")).clauses())
    with SatSolver(name="maplesat", bootstrap_with=formula, with_proof=True) as raw:
        assert raw.solve() is False
        assert rup_failure(formula, raw.get_proof()) is not None


def test_a_solver_that_cannot_certify_solves_as_before_and_writes_nothing(tmp_path: Path) -> None:
    problem = Problem(4, blocked=frozenset({(0, 1), (0, 2)}))
    outcome, proof = certified_solve(problem, "minisat22", tmp_path / "p.drat")
    assert outcome.status == Status.NO_SOLUTION and proof.lemmas == 0 and not proof.path.exists()
    assert outcome.counters["variables"] == 16  # the plugin's own encoding: a variable per square, blocked ones too


@pytest.mark.parametrize("solver", ["cadical195", "maplechrono"])
def test_a_certified_run_out_of_time_claims_nothing(solver: str, tmp_path: Path) -> None:
    outcome, proof = certified_solve(nq.problem_of(instance=str(HARD_56)), solver, tmp_path / "p.drat", seconds=2.0)
    assert outcome.status == Status.TIMED_OUT and outcome.queens is None
    assert proof.lemmas == 0


def test_the_proof_log_budget_overflows_honestly(tmp_path: Path) -> None:
    """A proof larger than the log's bytes stops being written; the log (the parent's copy, when a child wrote
    it) says so."""
    problem = nq.problem_of(instance=f"{DIAGONALS_10}@7")
    for solver in ("cadical195", "maplechrono"):
        proof = ProofLog(tmp_path / f"{solver}.drat", problem, 64)
        outcome = PySat().solve(problem, random.Random(0), Budget(seconds=20, proof=proof), options(solver=solver))
        proof.close()
        assert outcome.status == Status.NO_SOLUTION and proof.overflowed, solver
        assert proof.path.stat().st_size <= 64


def test_write_proof_cuts_at_the_empty_clause_and_adds_it_when_missing(tmp_path: Path) -> None:
    proof = ProofLog(tmp_path / "a.drat", Problem(2), 1 << 20)
    certificate.write_proof(proof, ["1 0", "", "d 1 2 0", "0", "d 3 0"], keep_deletions=False)
    proof.close()
    assert proof.path.read_text().splitlines() == ["1 0", "0"]
    other = ProofLog(tmp_path / "b.drat", Problem(2), 1 << 20)
    certificate.write_proof(other, ["1 0", "d 1 2 0"], keep_deletions=True)
    other.close()
    assert other.path.read_text().splitlines() == ["1 0", "d 1 2 0", "0"]


def test_a_canonical_cnf_too_large_to_hold_is_one_clear_line(tmp_path: Path) -> None:
    """amo=seqcounter takes n up to 646, but the canonical CNF (pairwise) of n = 200 has 13 million clauses."""
    proof = ProofLog(tmp_path / "p.drat", Problem(200), 1 << 30)
    with pytest.raises(nq.BadInput, match="certifies boards whose canonical CNF has at most 5,000,000 clauses"):
        PySat().solve(Problem(200), random.Random(0), Budget(seconds=5, proof=proof), options(amo="seqcounter"))
    assert not proof.path.exists()
