"""The built-in complete searches certify their no-solution claims (issue 39).

Each certifying search (``bitset-mrv`` on both engines, ``backtracking``,
``forward-checking`` in several orders) is run with a ``ProofLog``; whenever it
says NO_SOLUTION its proof must be a RUP refutation of the instance's canonical
CNF. The proofs are checked here by a naive reference checker of our own
(forward RUP by unit propagation over every clause), independent of the host's,
and the answers are compared with python-sat on the same formula.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nqueens_plugins.builtin.backtracking import Backtracking, ForwardChecking
from nqueens_plugins.builtin.bitset_mrv import BitsetMrv
from nqueens_plugins.builtin.engines.kernels import numba_available
from nqueens_plugins.core.canonical_cnf import canonical_cnf
from nqueens_plugins.core.problem import Budget, Problem, Status
from nqueens_plugins.core.proof_log import ProofLog
from nqueens_plugins.core.solver import Solver, resolve_options

try:  # the host's own checker, written apart from these searches: used as well when present
    from nqueens_plugins.proofs import check_proof
except ImportError:  # pragma: no cover - only the reference checker below
    check_proof = None  # type: ignore[assignment]

Clause = list[int]

VARIANTS: list[tuple[Solver, dict[str, str]]] = [
    (BitsetMrv(), {"kernel": "python"}),
    (Backtracking(), {}),
    (ForwardChecking(), {}),
    (ForwardChecking(), {"order": "mrv", "values": "middle"}),
    (ForwardChecking(), {"order": "mrv", "values": "lcv"}),
]
if numba_available():
    VARIANTS.append((BitsetMrv(), {"kernel": "numba"}))
IDS = [f"{solver.name}{raw}" for solver, raw in VARIANTS]


# --- a naive reference RUP checker -------------------------------------------------------------


def propagates_to_conflict(
    clauses: Sequence[Clause], occurrences: dict[int, list[int]], assumed: Iterable[int]
) -> bool:
    """Whether unit propagation over ``clauses`` from the literals ``assumed`` reaches a conflict."""
    value: dict[int, bool] = {}
    queue: list[int] = []

    def assign(literal: int) -> bool:
        """Make ``literal`` true; False when it is already false (a conflict)."""
        known = value.get(abs(literal))
        if known is not None:
            return known == (literal > 0)
        value[abs(literal)] = literal > 0
        queue.append(literal)
        return True

    for literal in assumed:
        if not assign(literal):
            return True
    for clause in clauses:  # empty and unit clauses need no trigger
        if not clause or (len(clause) == 1 and not assign(clause[0])):
            return True
    while queue:
        falsified = -queue.pop()
        for index in occurrences.get(falsified, ()):
            unassigned = [lit for lit in clauses[index] if abs(lit) not in value]
            if any(value.get(abs(lit)) == (lit > 0) for lit in clauses[index] if abs(lit) in value):
                continue  # satisfied
            if not unassigned:
                return True
            if len(unassigned) == 1 and not assign(unassigned[0]):
                return True
    return False


def read_proof(path: Path) -> list[Clause]:
    """The lemmas of a DRUP text file (deletions are dropped: keeping clauses only makes RUP easier to pass
    and never lets a wrong lemma through, since every kept clause is implied)."""
    lemmas = []
    for line in path.read_text(encoding="ascii").splitlines():
        numbers = line.split()
        if not numbers or numbers[0] == "d":
            continue
        assert numbers[-1] == "0", f"unterminated proof line {line!r}"
        lemmas.append([int(x) for x in numbers[:-1]])
    return lemmas


def rup_refutes(formula: Sequence[Clause], lemmas: Sequence[Clause]) -> bool:
    """Whether every lemma is RUP (its negation propagates to a conflict) and the empty clause is derived."""
    clauses = [list(clause) for clause in formula]
    occurrences: dict[int, list[int]] = defaultdict(list)
    for index, clause in enumerate(clauses):
        for literal in clause:
            occurrences[literal].append(index)
    for lemma in lemmas:
        if not propagates_to_conflict(clauses, occurrences, [-literal for literal in lemma]):
            return False
        if not lemma:
            return True
        for literal in lemma:
            occurrences[literal].append(len(clauses))
        clauses.append(list(lemma))
    return False


# --- helpers ------------------------------------------------------------------------------------


def pysat_satisfiable(problem: Problem) -> bool:
    """The verifier-independent truth: python-sat on the canonical CNF."""
    from pysat.solvers import Solver as SatSolver

    clauses = list(canonical_cnf(problem).clauses())
    if any(not clause for clause in clauses):
        return False
    with SatSolver(name="minisat22", bootstrap_with=clauses) as sat:
        return bool(sat.solve())


def certified_run(solver: Solver, raw: dict[str, str], problem: Problem, folder: Path) -> tuple[Status, list[Clause]]:
    """Solve with a proof log; the status and the lemmas written."""
    path = folder / f"{solver.name}-{abs(hash(tuple(sorted(raw.items()))))}.drat"
    proof = ProofLog(path, problem, 1 << 30)
    options = resolve_options(solver, raw).options
    outcome = solver.solve(problem, random.Random(0), Budget(seconds=30, proof=proof), options)
    proof.close()
    lemmas = read_proof(path) if path.exists() else []
    if outcome.status is Status.NO_SOLUTION and check_proof is not None:  # the host's checker agrees
        assert check_proof(canonical_cnf(problem), path).certified, (problem, lemmas)
    path.unlink(missing_ok=True)
    return outcome.status, lemmas


def formula_of(problem: Problem) -> list[Clause]:
    return list(canonical_cnf(problem).clauses())


def random_problem(rng: random.Random, n: int) -> Problem:
    """A small board with a few blocked squares and fixed queens (possibly clashing: that is allowed)."""
    squares = [(c, r) for c in range(n) for r in range(n)]
    blocked = frozenset(rng.sample(squares, rng.randint(0, 2 * n)))
    columns = rng.sample(range(n), rng.randint(0, min(2, n)))
    return Problem(n, fixed={c: rng.randrange(n) for c in columns}, blocked=blocked)


def assert_certified(solver: Solver, raw: dict[str, str], problem: Problem, folder: Path) -> Status:
    """Run, compare the answer with python-sat, and check the proof of a no-solution claim."""
    status, lemmas = certified_run(solver, raw, problem, folder)
    assert status in (Status.SOLVED, Status.NO_SOLUTION)
    assert (status is Status.SOLVED) == pysat_satisfiable(problem), problem
    if status is Status.NO_SOLUTION:
        assert lemmas and lemmas[-1] == [], "a refutation ends in the empty clause"
        assert rup_refutes(formula_of(problem), lemmas), (problem, lemmas)
    return status


# --- tests --------------------------------------------------------------------------------------


def test_the_certifying_searches_say_so() -> None:
    for solver, raw in VARIANTS:
        assert solver.can_certify(resolve_options(solver, raw).options), solver.name


@pytest.mark.parametrize(("solver", "raw"), VARIANTS, ids=IDS)
@pytest.mark.parametrize("n", [2, 3])
def test_plain_boards_without_solution_are_refuted(solver: Solver, raw: dict[str, str], n: int, tmp_path: Path) -> None:
    status, lemmas = certified_run(solver, raw, Problem(n), tmp_path)
    assert status is Status.NO_SOLUTION
    assert lemmas[-1] == []
    assert rup_refutes(formula_of(Problem(n)), lemmas)


@pytest.mark.parametrize(("solver", "raw"), VARIANTS, ids=IDS)
def test_blocked_and_completion_instances_agree_with_pysat_and_are_refuted(
    solver: Solver, raw: dict[str, str], tmp_path: Path
) -> None:
    rng = random.Random(39)
    searched = 0  # refutations that took a search (no contradiction on the instance's face)
    for _ in range(100):
        problem = random_problem(rng, rng.randint(4, 8))
        refuted = assert_certified(solver, raw, problem, tmp_path) is Status.NO_SOLUTION
        searched += refuted and problem.contradiction() is None
    assert searched >= 15  # the sample holds enough unsatisfiable instances to mean something


def hard_problem() -> Problem:
    """Both long diagonals and two more squares blocked at n = 7: no solution, found only after real search."""
    blocked = frozenset({(c, c) for c in range(7)} | {(c, 6 - c) for c in range(7)} | {(0, 1), (3, 0)})
    return Problem(7, blocked=blocked)


@pytest.mark.parametrize(("solver", "raw"), VARIANTS, ids=IDS)
def test_hard_refutation_with_deep_search(solver: Solver, raw: dict[str, str], tmp_path: Path) -> None:
    problem = hard_problem()
    status, lemmas = certified_run(solver, raw, problem, tmp_path)
    assert not pysat_satisfiable(problem)
    assert status is Status.NO_SOLUTION
    assert max(len(lemma) for lemma in lemmas) >= 2  # decisions below decisions: a tree, not one level
    assert rup_refutes(formula_of(problem), lemmas)


@pytest.mark.parametrize(("solver", "raw"), VARIANTS, ids=IDS)
def test_the_reference_checker_refuses_a_proof_missing_lemmas(
    solver: Solver, raw: dict[str, str], tmp_path: Path
) -> None:
    """The checker can fail. One lemma alone can usually go (propagation re-derives it from its children's),
    but not the lemmas of a whole subtree: those under the first decision, its own included."""
    problem = hard_problem()
    formula = formula_of(problem)
    status, lemmas = certified_run(solver, raw, problem, tmp_path)
    assert status is Status.NO_SOLUTION
    first_decision = lemmas[0][0]
    assert rup_refutes(formula, lemmas)
    assert not rup_refutes(formula, [lemma for lemma in lemmas if first_decision not in lemma])
    assert not rup_refutes(formula, [[]])  # nor is the empty clause alone
    assert not rup_refutes(formula, lemmas[:-1])  # nor a proof that never reaches the empty clause


def test_an_uncertified_run_writes_nothing(tmp_path: Path) -> None:
    for solver, raw in VARIANTS:
        options = resolve_options(solver, raw).options
        outcome = solver.solve(Problem(3), random.Random(0), Budget(seconds=30), options)
        assert outcome.status is Status.NO_SOLUTION
    assert not list(tmp_path.iterdir())


@st.composite
def small_problems(draw: Any) -> Problem:
    n = draw(st.integers(1, 7))
    squares = [(c, r) for c in range(n) for r in range(n)]
    blocked = draw(st.frozensets(st.sampled_from(squares), max_size=2 * n))
    fixed = draw(st.dictionaries(st.integers(0, n - 1), st.integers(0, n - 1), max_size=2))
    return Problem(n, fixed=fixed, blocked=blocked)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(problem=small_problems())
def test_every_no_solution_claim_is_refuted_exactly_when_pysat_says_unsat(problem: Problem, tmp_path: Path) -> None:
    for solver, raw in VARIANTS:
        assert_certified(solver, raw, problem, tmp_path)


@pytest.mark.parametrize("kernel", ["python", "numba"] if numba_available() else ["python"])
def test_bitset_mrv_writes_its_lemmas_out_whenever_the_kernel_buffer_fills(
    kernel: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A buffer with room for one lemma at a time: the kernel pauses and resumes after every one, and the
    proof is the same as with a large buffer."""
    from nqueens_plugins.builtin import bitset_mrv

    problem = hard_problem()
    _, whole = certified_run(BitsetMrv(), {"kernel": kernel}, problem, tmp_path)
    monkeypatch.setattr(bitset_mrv, "PROOF_BUFFER", 2 * problem.n + 3)
    status, lemmas = certified_run(BitsetMrv(), {"kernel": kernel}, problem, tmp_path)
    assert status is Status.NO_SOLUTION
    assert lemmas == whole
    assert rup_refutes(formula_of(problem), lemmas)


@pytest.mark.parametrize(("solver", "raw"), VARIANTS, ids=IDS)
def test_a_certified_search_that_runs_out_of_iterations_just_times_out(
    solver: Solver, raw: dict[str, str], tmp_path: Path
) -> None:
    problem = hard_problem()
    proof = ProofLog(tmp_path / "proof.drat", problem, 1 << 30)
    options = resolve_options(solver, raw).options
    outcome = solver.solve(problem, random.Random(0), Budget(iterations=5, proof=proof), options)
    proof.close()
    assert outcome.status is Status.TIMED_OUT
