"""A certificate's status is one closed set of words (``core/certificate_status.py``), and the checker's verdict
is a field it decides where the check stops, sent over the pipe and checked in the parent: never read out of
the words of its reason. ``Limits.certify`` is a closed set too (``CertifyMode``), a word still accepted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import nqueens_plugins as nq
from nqueens_plugins.core.canonical_cnf import canonical_cnf
from nqueens_plugins.core.certificate_status import CHECKER_VERDICTS, CertificateStatus
from nqueens_plugins.core.limits import CERTIFY_CHOICES, CertifyMode
from nqueens_plugins.core.problem import Problem
from nqueens_plugins.execution.certificates import certificate
from nqueens_plugins.proofs.checker import check_proof

NONE_EXISTS = Problem(4, blocked=frozenset({(0, 1), (0, 2)}))  # test_certificates checks it by brute force
# Every phrase the checker's verdict was once guessed from: a reason holding them proves nothing.
BUDGET_WORDS = "out of checking time, out of memory, -byte limit, max_literals, literals, over the"


def test_each_status_is_its_word_in_json_text_and_repr() -> None:
    assert [status.value for status in CertificateStatus] == ["certified", "rejected", "over-budget", "unchecked"]
    for status in CertificateStatus:
        assert status == status.value and f"{status}" == status.value and repr(status) == repr(status.value)
        assert json.dumps({"certificate": status}) == json.dumps({"certificate": status.value})
        assert CertificateStatus.parse(status.value) is status
    assert CHECKER_VERDICTS == {"certified", "rejected", "over-budget"}


@pytest.mark.parametrize("said", [None, "", "Certified", "over budget", 1, ["certified"], {"certified": 1}])
def test_a_word_that_names_no_status_parses_to_none(said: object) -> None:
    assert CertificateStatus.parse(said) is None


def test_a_wrong_proof_whose_reason_holds_budget_words_is_rejected_not_over_budget(tmp_path: Path) -> None:
    """A folder where the proof should be is rejected, and its reason quotes its path: a path made of the very
    words an over-budget reason holds must not change the verdict (it did when the verdict was guessed)."""
    folder = tmp_path / BUDGET_WORDS
    folder.mkdir()
    report = check_proof(canonical_cnf(NONE_EXISTS), folder)
    assert report.status is CertificateStatus.REJECTED and not report.certified
    assert report.reason is not None and BUDGET_WORDS in report.reason


def test_a_proof_over_its_size_is_over_budget_by_the_checkers_own_field(tmp_path: Path) -> None:
    proof = tmp_path / "large.drat"
    proof.write_bytes(b"1 2 0\n" * 100)
    report = check_proof(canonical_cnf(NONE_EXISTS), proof, max_bytes=10)
    assert report.status is CertificateStatus.OVER_BUDGET and not report.certified


def test_the_checker_program_sends_its_verdict_as_a_field(tmp_path: Path) -> None:
    folder = tmp_path / BUDGET_WORDS
    folder.mkdir()
    request = {"n": NONE_EXISTS.n, "fixed": [], "blocked": sorted(NONE_EXISTS.blocked), "proof": str(folder)}
    request |= {"max_bytes": 1 << 30, "seconds": 60.0, "memory": 4 << 30}
    program = subprocess.run(
        [sys.executable, "-m", "nqueens_plugins.proofs.check_program", str(4 << 30)],
        input=(json.dumps(request) + "\n").encode(),
        capture_output=True,
        timeout=120,
        check=True,
    )
    ready, answer = (json.loads(line) for line in program.stdout.splitlines())
    assert ready["ready"] is True
    assert answer["status"] == "rejected" and BUDGET_WORDS in answer["reason"] and "certified" not in answer


def answer(**fields: Any) -> dict[str, Any]:
    return {"reason": None, "bytes": 10, "lemmas": 2, "seconds": 0.5} | fields


@pytest.mark.parametrize(
    ("said", "status"),
    [
        (answer(status="certified"), "certified"),
        (answer(status="rejected", reason=BUDGET_WORDS), "rejected"),
        (answer(status="over-budget", reason="a lemma is not implied"), "over-budget"),
        (answer(reason=BUDGET_WORDS), "unchecked"),  # no verdict: not guessed from the reason
        (answer(certified=True), "unchecked"),  # a flag beside no verdict decides nothing
        (answer(status="Certified"), "unchecked"),
        (answer(status=["certified"]), "unchecked"),
    ],
)
def test_the_parent_takes_the_verdict_from_its_field_and_nothing_else(said: dict[str, Any], status: str) -> None:
    made = certificate(said, 10, 0.5, nq.Limits())
    assert made.status == status and type(made.status) is CertificateStatus


def test_certify_takes_a_word_or_a_member_and_keeps_the_member() -> None:
    for word in CERTIFY_CHOICES:
        by_word, by_member = nq.Limits(certify=word), nq.Limits(certify=CertifyMode(word))
        assert by_word == by_member and by_word.certify is CertifyMode(word)
        assert f"certify={word!r}" in repr(by_word)  # the repr a user saw when the field was a string
    with pytest.raises(nq.BadInput, match="certify is one of auto, always, never, not 'proof'"):
        nq.Limits(certify="proof")


def test_recheck_takes_a_word_or_a_member_and_keeps_the_member() -> None:
    from nqueens_plugins.results.recheck import RECHECK_MODES, Recheck, RecheckMode

    for word in RECHECK_MODES:
        assert Recheck(word).mode is RecheckMode(word) and Recheck.of(RecheckMode(word)) == Recheck(word)
        assert f"mode={word!r}" in repr(Recheck(word))
    with pytest.raises(nq.BadInput, match="recheck is one of auto, all, never, not 'some'"):
        Recheck("some")
