"""Reports believe no file's "certified" (issue 50): a kept proof is checked again now, anything else is the file's word.

A results file may come from anyone. A record saying ``"status": "no-solution", "certificate": "certified"``
is shown as certified, and counted as decided, only when the report re-checks its kept proof now
(``results/recheck.py``); otherwise it is the file's word, said as such and never scored. A kept proof the
checker rejects now makes the claim invalid; a proof path that is a FIFO or a device is refused in a line,
without waiting on it; a proof whose bytes are not the ones fingerprinted is said and not checked.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nqueens_plugins as nq
from nqueens_plugins import Problem, Status
from nqueens_plugins.builtin.bitset_mrv import BitsetMrv
from nqueens_plugins.core.problem import Budget
from nqueens_plugins.core.proof_log import ProofLog
from nqueens_plugins.core.solver import resolve_options
from nqueens_plugins.formats.records import instance_fields, read_runs, run_key
from nqueens_plugins.results.recheck import Certificates, Recheck
from nqueens_plugins.results.summary import summarise

# Blocking a square of each of the two solutions of n = 4 leaves none (test_certificates.py checks it by brute force).
NONE_EXISTS = Problem(4, blocked=frozenset({(0, 1), (0, 2)}))
# A queen fixed in a corner and the opposite corner blocked: it has solutions (test_the_forged_instance_has_solutions).
SATISFIABLE = Problem(8, fixed={0: 0}, blocked=frozenset({(7, 7)}))
HEADER = {"type": "header", "format": "nqueens-results", "format_version": 1, "command": "nqueens compare ..."}


def claim(problem: Problem, trial: int = 0, **fields: Any) -> dict[str, Any]:
    """A certified no-solution claim as the host writes one (the proof fields added by the caller)."""
    record = {
        "type": "run",
        "solver": "bitset-mrv",
        "name": "bitset-mrv",
        "options": {},
        "seed": 0,
        "trial": trial,
        "timeout": 10.0,
        "status": "no-solution",
        "verified": True,
        "complete": True,
        "certificate": "certified",
        "certificate_bytes": 100,
        "certificate_seconds": 0.01,
        "seconds": 0.01,
        "reason": "certified: its proof refutes the instance",
        **instance_fields(problem),
    }
    record.update(fields)
    return record


def write_results(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(item) + "\n" for item in [HEADER, *records]))
    return path


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(scope="module")
def proof(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A genuine refutation of NONE_EXISTS: the built-in bitset-mrv's own proof, as the host would keep it."""
    path = tmp_path_factory.mktemp("proof") / "refutation.drat"
    log = ProofLog(path, NONE_EXISTS, 1 << 20)
    solver = BitsetMrv()
    outcome = solver.solve(
        NONE_EXISTS,
        random.Random(0),
        Budget(seconds=30, proof=log),
        resolve_options(solver, {"kernel": "python"}).options,
    )
    log.close()
    assert outcome.status is Status.NO_SOLUTION
    data = path.read_bytes()
    assert data.rstrip().endswith(b"0")
    return data


def kept(folder: Path, name: str, data: bytes) -> str:
    """Keep ``data`` as a proof under ``folder``; the relative name a record gives it."""
    (folder / name).parent.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)
    return name


def report(results: Path, **options: Any) -> tuple[str, list[str]]:
    """The Markdown report of a file and what it told besides."""
    told: list[str] = []
    text = nq.report(results, format="markdown", notify=told.append, **options)
    return text, told


def row_of(results: Path, **options: Any) -> Any:
    (row,) = nq.summary(results, **options).rows
    return row


# --- (a) a forged "certified" on an instance that has solutions ----------------------------------------------


def test_a_forged_certified_claim_without_its_proof_is_the_files_word_and_not_decided(tmp_path: Path) -> None:
    solution = [0, 4, 7, 5, 2, 6, 1, 3]  # the queen fixed at (0, 0), (7, 7) free: the claim below is false
    assert nq.board_error(8, solution, dict(SATISFIABLE.fixed), SATISFIABLE.blocked) is None
    results = write_results(tmp_path / "runs.jsonl", [claim(SATISFIABLE)])
    text, _ = report(results)
    assert "none (certified)" not in text  # never "certified" unqualified
    assert "none (certified, file's word)" in text
    assert "certified by the file's word only, not counted as decided: no proof was kept" in text
    row = row_of(results)
    assert row.decided == 0 and row.proved == 0 and row.success_rate == 0
    assert row.certified == 0 and row.certified_word == 1 and row.unconfirmed == 1
    assert row.answer == "none (certified, file's word)"
    assert json.loads(nq.report(results, format="json", notify=lambda _: None))[0]["certified_word"] == 1


def test_a_files_verified_no_solution_is_its_word_too(tmp_path: Path) -> None:
    """A "verified": true that nothing backs (no certificate, no fact, no published answer) decides nothing;
    what the verifier knows of an instance still decides a claim read from a file."""
    results = write_results(tmp_path / "runs.jsonl", [claim(SATISFIABLE, certificate=None)])
    row = row_of(results)
    assert row.decided == 0 and row.unconfirmed == 1 and row.answer == "unknown"
    impossible = Problem(5, fixed={0: 0, 1: 1})  # two fixed queens on one diagonal: no solution on its face
    results = write_results(tmp_path / "impossible.jsonl", [claim(impossible, certificate=None)])
    row = row_of(results)
    assert row.decided == 1 and row.proved == 1


# --- (b) the kept proof re-checked now -------------------------------------------------------------------------


def test_a_kept_genuine_proof_is_rechecked_now_and_decides(tmp_path: Path, proof: bytes, monkeypatch: Any) -> None:
    folder = tmp_path / "results"
    name = kept(folder, "proofs/refutation.drat", proof)
    results = write_results(folder / "runs.jsonl", [claim(NONE_EXISTS, proof=name, proof_sha256=sha256(proof))])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the relative path is found beside the results file first
    row = row_of(results)
    assert row.decided == 1 and row.certified == 1 and row.rechecked == 1 and row.certified_word == 0
    assert row.answer == "none (certified)"
    text, _ = report(results)
    assert "1 kept proof re-checked now by the host's checker" in text
    assert "certificates: 1 certified now: re-checked from the kept proof" in text


def test_a_relative_proof_path_falls_back_to_the_current_folder(tmp_path: Path, proof: bytes, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    name = kept(tmp_path, "kept/refutation.drat", proof)  # relative to where compare ran, not to the file's folder
    results = write_results(
        tmp_path / "sub" / "runs.jsonl", [claim(NONE_EXISTS, proof=name, proof_sha256=sha256(proof))]
    )
    row = row_of(results)
    assert row.certified == 1 and row.rechecked == 1


def test_a_gzipped_kept_proof_is_rechecked_as_it_unpacks(tmp_path: Path, proof: bytes) -> None:
    name = kept(tmp_path, "refutation.drat.gz", gzip.compress(proof))
    for fingerprint in (sha256(proof), sha256((tmp_path / name).read_bytes())):  # of the bytes checked, or as kept
        results = write_results(tmp_path / "runs.jsonl", [claim(NONE_EXISTS, proof=name, proof_sha256=fingerprint)])
        row = row_of(results)
        assert row.certified == 1 and row.rechecked == 1 and row.decided == 1, fingerprint


def test_recheck_never_leaves_every_certified_to_the_files_word(tmp_path: Path, proof: bytes) -> None:
    name = kept(tmp_path, "refutation.drat", proof)
    results = write_results(tmp_path / "runs.jsonl", [claim(NONE_EXISTS, proof=name, proof_sha256=sha256(proof))])
    row = row_of(results, recheck="never")
    assert row.decided == 0 and row.certified == 0 and row.certified_word == 1 and row.rechecked == 0
    text, _ = report(results, recheck="never")
    assert "no kept proof was re-checked (--recheck never)" in text


def test_past_the_reports_time_for_rechecking_a_proof_is_the_files_word(tmp_path: Path, proof: bytes) -> None:
    name = kept(tmp_path, "refutation.drat", proof)
    results = write_results(tmp_path / "runs.jsonl", [claim(NONE_EXISTS, proof=name, proof_sha256=sha256(proof))])
    certificates = Certificates(results, Recheck("auto", budget=1.0), spent=1.0)  # as if a second was spent already
    (row,) = summarise(read_runs(results), certificates=certificates)
    assert row.decided == 0 and row.certified_word == 1 and certificates.checked == 0
    assert any("the report's 1 s for re-checking were spent" in line for line in certificates.lines())


# --- (c) a wrong kept proof -----------------------------------------------------------------------------------


def test_a_kept_proof_rejected_now_makes_the_claim_invalid(tmp_path: Path, proof: bytes) -> None:
    wrong = b"0\n"  # the empty clause at once: not implied by propagation on this instance
    assert wrong != proof
    name = kept(tmp_path, "refutation.drat", wrong)
    results = write_results(tmp_path / "runs.jsonl", [claim(NONE_EXISTS, proof=name, proof_sha256=sha256(wrong))])
    row = row_of(results)
    assert row.invalid == 1 and row.decided == 0 and row.certificate_rejected == 1 and row.rechecked == 1
    assert row.no_solution == 0 and row.answer == "unknown"
    text, _ = report(results)
    assert "1 rejected now, counted invalid" in text and "is not implied" in text


def test_a_mutated_lemma_is_rejected(tmp_path: Path, proof: bytes) -> None:
    lines = proof.decode().splitlines()
    mutated = ("\n".join(["1 0", *lines]) + "\n").encode()  # a first lemma that does not follow
    name = kept(tmp_path, "refutation.drat", mutated)
    results = write_results(tmp_path / "runs.jsonl", [claim(NONE_EXISTS, proof=name, proof_sha256=sha256(mutated))])
    assert row_of(results).certificate_rejected == 1


# --- (d) special files, (e) fingerprints ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero"])
def test_a_proof_path_that_is_no_regular_file_is_refused_in_a_line(tmp_path: Path, kind: str) -> None:
    special = tmp_path / "refutation.drat"
    if kind == "fifo":
        os.mkfifo(special)  # opened for reading in blocking mode, this would wait for a writer forever
    else:
        special.symlink_to("/dev/zero")  # endless
    results = write_results(tmp_path / "runs.jsonl", [claim(NONE_EXISTS, proof=special.name, proof_sha256="a" * 64)])
    done = subprocess.run(
        [sys.executable, "-m", "nqueens_plugins", "report", str(results), "--format", "markdown"],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,  # a hang fails the test here rather than the suite
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    said = "FIFO (named pipe)" if kind == "fifo" else "a device"
    (line,) = [line for line in done.stdout.splitlines() if said in line]
    assert "certified by the file's word only, not counted as decided: the kept proof cannot be used" in line
    assert "none (certified, file's word)" in done.stdout


def test_a_proof_whose_sha256_differs_is_said_and_not_checked(tmp_path: Path, proof: bytes) -> None:
    name = kept(tmp_path, "refutation.drat", proof)
    results = write_results(tmp_path / "runs.jsonl", [claim(NONE_EXISTS, proof=name, proof_sha256=sha256(b"other"))])
    row = row_of(results)
    assert row.decided == 0 and row.certified == 0 and row.rechecked == 0 and row.certified_word == 1
    text, _ = report(results)
    assert "the kept proof's sha256 differs from the record's: not the proof the host checked" in text


def test_a_missing_proof_is_said_by_name(tmp_path: Path) -> None:
    results = write_results(tmp_path / "runs.jsonl", [claim(NONE_EXISTS, proof="gone.drat", proof_sha256="b" * 64)])
    text, _ = report(results)
    assert "the kept proof is missing ('gone.drat')" in text
    assert row_of(results).decided == 0


# --- (f) HTML ------------------------------------------------------------------------------------------------------


def test_the_html_report_links_each_kept_proof_with_its_check(tmp_path: Path, proof: bytes) -> None:
    site = tmp_path / "site"
    name = kept(site, "proofs/a b.drat", proof)
    outside = tmp_path / "elsewhere" / "other.drat"
    kept(outside.parent, outside.name, proof)
    results = write_results(
        site / "runs.jsonl",
        [
            claim(NONE_EXISTS, proof=name, proof_sha256=sha256(proof)),
            claim(NONE_EXISTS, trial=1, proof=str(outside), proof_sha256=sha256(b"not it")),
        ],
    )
    page = nq.report(results, format="html", output=site / "report.html", notify=lambda _: None)
    assert '<a href="proofs/a%20b.drat">proofs/a b.drat</a>' in page  # beside the page: relative
    assert f'<a href="{outside.as_uri()}">' in page  # elsewhere: a file: URL
    assert "certified now (re-checked from the kept proof)" in page
    assert "sha256 differs from the record&#x27;s" in page


def test_a_proof_name_cannot_inject_markup_into_the_page(tmp_path: Path) -> None:
    name = 'javascript:alert(1)"><script>x</script>.drat'
    results = write_results(tmp_path / "runs.jsonl", [claim(NONE_EXISTS, proof=name, proof_sha256="c" * 64)])
    kept(tmp_path, name, b"0\n")
    page = nq.report(results, format="html", output=tmp_path / "report.html", notify=lambda _: None)
    assert "<script>x" not in page and 'href="javascript:' not in page
    assert 'href="javascript%3Aalert%281%29%22%3E%3Cscript%3Ex%3C/script%3E.drat"' in page


# --- flags, the host's own runs, and a property ------------------------------------------------------------------------


def test_bad_recheck_settings_are_one_line_and_exit_2(tmp_path: Path, run_cli: Any) -> None:
    results = write_results(tmp_path / "runs.jsonl", [claim(SATISFIABLE)])
    for flags in (["--recheck-budget", "-1"], ["--check-timeout", "nan"], ["--recheck", "sometimes"]):
        code, _, err = run_cli("report", str(results), *flags)
        assert code == 2 and "Traceback" not in err, (flags, err)
    with pytest.raises(nq.BadInput, match="recheck is one of auto, all, never"):
        nq.report(results, recheck="sometimes")
    with pytest.raises(nq.BadInput, match="the re-checking budget must be a positive number of seconds, not -1"):
        nq.summary(results, recheck_budget=-1)


def test_the_table_shows_the_certificates_column_only_where_a_claim_had_one(tmp_path: Path) -> None:
    plain = write_results(tmp_path / "plain.jsonl", [claim(SATISFIABLE, certificate=None)])
    forged = write_results(tmp_path / "forged.jsonl", [claim(SATISFIABLE)])
    assert "| certificates |" not in report(plain)[0]
    assert "| certificates |" in report(forged)[0] and "| 1 file's word |" in report(forged)[0]


def test_runs_this_process_made_keep_the_hosts_check(tmp_path: Path) -> None:
    """compare --resume: the runs the call just made were checked by the host; the file's older ones were not."""
    made, older = claim(NONE_EXISTS, trial=0), claim(NONE_EXISTS, trial=1)
    results = write_results(tmp_path / "runs.jsonl", [made, older])
    certificates = Certificates(results, Recheck(), made_here=frozenset({run_key(made)}))
    (row,) = summarise(read_runs(results), certificates=certificates)
    assert row.certified == 1 and row.certified_word == 1 and row.decided == 2  # the instance is certified now


SQUARES = st.tuples(st.integers(0, 7), st.integers(0, 7))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    blocked=st.frozensets(SQUARES, min_size=1, max_size=6),  # a plain 8 x 8 has solutions
    certificate=st.sampled_from([None, "certified", "over-budget", "unchecked"]),
    verified=st.sampled_from([True, None]),
    trials=st.integers(1, 3),
)
def test_no_claim_a_file_makes_alone_is_decided(
    tmp_path: Path, blocked: frozenset[tuple[int, int]], certificate: str | None, verified: bool | None, trials: int
) -> None:
    """Whatever one solver's records say of an 8 x 8 instance (fewer blocked squares than a line holds: nothing
    impossible on its face, no published answer), without a proof checked now nothing of it is decided."""
    problem = Problem(8, blocked=blocked)
    records = [claim(problem, trial, certificate=certificate, verified=verified) for trial in range(trials)]
    results = write_results(tmp_path / "runs.jsonl", records)
    (row,) = nq.summary(results, recheck="never").rows
    assert row.decided == 0 and row.proved == 0 and row.certified == 0
    assert row.certified_word == (trials if certificate == "certified" else 0)
    assert row.answer == ("none (certified, file's word)" if certificate == "certified" else "unknown")
