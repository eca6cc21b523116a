"""Certificates through the product: a certified no-solution decides, a wrong one is invalid, one over its
budget is said, and nothing of a proof is left behind. (The checker alone: test_proof_checker.py; the
built-in searches' proofs: test_builtin_proofs.py.)"""

from __future__ import annotations

import glob
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import nqueens_plugins as nq
from nqueens_plugins import Outcome, Problem, Solver, Status
from nqueens_plugins.execution import certificates

# Blocking a square of each of the two solutions of n = 4 leaves none (checked by brute force below).
NONE_EXISTS = Problem(4, blocked=frozenset({(0, 1), (0, 2)}))
SOLVABLE = Problem(6, blocked=frozenset({(0, 0), (5, 5)}))


def liar(name: str, write: Callable[[Any, Problem], None]) -> Solver:
    """A certifying solver that claims no solution and writes whatever ``write`` writes as its proof."""

    class Liar(Solver):
        summary = "Claims no solution, with the proof it is given."
        complete = True
        certifies = True
        supports_blocked = True

        def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
            if budget.proof is not None:
                write(budget.proof, problem)
            return Outcome(Status.NO_SOLUTION)

    Liar.name = name
    return Liar()


def test_the_instance_has_no_solution_by_brute_force() -> None:
    import itertools

    assert not any(
        nq.board_error(4, queens, {}, NONE_EXISTS.blocked) is None for queens in itertools.permutations(range(4))
    )


@pytest.mark.parametrize("isolate", [True, False])
def test_a_certified_claim_decides_where_nothing_else_would(isolate: bool) -> None:
    result = nq.solve("bitset-mrv", NONE_EXISTS, isolate=isolate)
    assert result.status == Status.NO_SOLUTION and result.verified is True and result.decided
    assert result.certificate == "certified" and result.certified
    assert result.certificate_bytes and result.certificate_seconds is not None
    assert result.reason and result.reason.startswith("certified")
    never = nq.solve("bitset-mrv", NONE_EXISTS, limits=nq.Limits(certify="never"), isolate=isolate)
    assert never.verified is None and never.certificate is None and not never.decided


def test_compare_scores_a_certified_claim_and_cross_check_says_so(tmp_path: Path) -> None:
    records = nq.compare(["bitset-mrv", "min-conflicts"], [NONE_EXISTS], trials=2, limits=nq.Limits(timeout=10))
    summary = nq.summary(records)
    rows = {row.solver: row for row in summary.rows}
    assert rows["bitset-mrv"].decided == 2 and rows["bitset-mrv"].certified == 2
    assert rows["bitset-mrv"].answer == "none (certified)"
    assert rows["min-conflicts"].cannot_decide
    checks, _ = nq.cross_check_files([NONE_EXISTS], "bitset-mrv")
    assert checks[0].verdict == "unsatisfiable" and checks[0].evidence == "certified"


def write_lines(lines: list[str]) -> Callable[[Any, Problem], None]:
    return lambda proof, problem: proof.write_lines(lines)


@pytest.mark.parametrize(
    ("kind", "write", "words"),
    [
        ("no-empty-clause", write_lines([]), "never derives the empty clause"),
        ("a-lemma-not-implied", write_lines(["1 0", "0"]), "is not implied"),
        ("garbage", lambda proof, problem: proof.path.write_bytes(b"\x00\xffnot a proof\n"), "binary proof has byte"),
        (
            "the-empty-clause-at-once",  # not implied by propagation here (another instance's proof: test_proof_checker)
            lambda proof, problem: proof.write_lines(["0"]),
            "is not implied",
        ),
    ],
)
def test_a_wrong_certificate_makes_the_run_invalid(registered: Any, kind: str, write: Any, words: str) -> None:
    name = registered(liar(f"liar-{kind}", write))
    for problem in (NONE_EXISTS, SOLVABLE):
        result = nq.solve(name, problem, limits=nq.Limits(timeout=20))
        assert result.status == Status.INVALID and result.certificate == "rejected", result.reason
        assert words in (result.reason or "") and "\n" not in (result.reason or "")


def test_a_certificate_over_its_size_is_said_and_not_scored(registered: Any) -> None:
    many = ["1 2 3 0"] * 300_000  # 2.4 MB
    name = registered(liar("liar-large", write_lines(many)))
    result = nq.solve(name, NONE_EXISTS, limits=nq.Limits(timeout=20, certificate_size="1M"))
    assert result.status == Status.NO_SOLUTION and result.verified is None and not result.decided
    assert result.certificate == "over-budget" and "1,048,576 bytes" in (result.reason or "")


def test_a_check_past_its_time_is_over_budget_not_wrong(registered: Any) -> None:
    def slow_proof(proof: Any, problem: Problem) -> None:
        # many lemmas that each need propagation, then no empty clause: the checker cannot finish in time
        proof.write_lines([f"{-(1 + i % 16)} 0" for i in range(2_000_000)])

    name = registered(liar("liar-slow", slow_proof))
    result = nq.solve(name, SOLVABLE, limits=nq.Limits(timeout=60, check_timeout=0.05))
    assert result.certificate in ("over-budget", "rejected")  # fast machines may reject before time is up
    if result.certificate == "over-budget":
        assert result.status == Status.NO_SOLUTION and "checking time" in (result.reason or "")


def test_nothing_of_a_proof_is_left_behind() -> None:
    before = set(glob.glob(str(Path(tempfile.gettempdir()) / "nqueens-proof-*")))
    nq.solve("bitset-mrv", NONE_EXISTS, isolate=False)
    nq.solve("bitset-mrv", NONE_EXISTS)
    assert set(glob.glob(str(Path(tempfile.gettempdir()) / "nqueens-proof-*"))) <= before


def test_auto_certifies_only_where_nothing_else_settles_the_claim() -> None:
    from nqueens_plugins.api import variant

    bitset = variant("bitset-mrv")
    auto, always = nq.Limits(), nq.Limits(certify="always")
    assert certificates.wanted(bitset, NONE_EXISTS, auto)
    assert not certificates.wanted(bitset, Problem(3), auto) and certificates.wanted(bitset, Problem(3), always)
    assert not certificates.wanted(variant("min-conflicts"), NONE_EXISTS, always)
    published = nq.problem_of(None, str(Path(nq.__file__).parent / "data" / "blockedqueens.28.1449787894.param"))
    assert published.source and nq.published_answer(published.source, published.n) is not None
    assert not certificates.wanted(bitset, published, auto) and certificates.wanted(bitset, published, always)


@pytest.mark.parametrize("bad", [{"certify": "sometimes"}, {"check_timeout": 0}, {"certificate_size": "lots"}])
def test_certificate_limits_are_validated(bad: dict[str, Any]) -> None:
    with pytest.raises(nq.BadInput):
        nq.Limits(**bad)
