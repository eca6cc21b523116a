"""Files written by nqueens-plugins 0.1 (issue 51): a results file, a count's pieces file, a tune's file and a
results file with certified records, written by the last commit before 0.2 and kept in tests/data/written-by-0.1,
are read by this release as they are: reported, resumed and replayed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import nqueens_plugins as nq
from nqueens_plugins.formats.records import read_records

WRITTEN = Path(__file__).parent / "data" / "written-by-0.1"


@pytest.fixture
def copies(tmp_path: Path) -> Path:
    """The fixtures copied: a test that resumes a file appends to it."""
    for path in WRITTEN.iterdir():
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


def test_a_results_file_of_0_1_is_read_whole_and_reported() -> None:
    loaded = read_records(WRITTEN / "results-0.1.jsonl")
    assert len(loaded.records) == 12 and not loaded.warnings
    assert {record["solver"] for record in loaded.records} == {"min-conflicts", "bitset-mrv", "backtracking"}
    decided = {(row.solver, row.n): row.decided for row in nq.summary(WRITTEN / "results-0.1.jsonl").rows}
    assert decided[("bitset-mrv", 6)] == decided[("backtracking", 8)] == 2  # n = 6 and 8, twice each
    text = nq.report(WRITTEN / "results-0.1.jsonl", format="markdown")
    assert "min-conflicts" in text and "bitset-mrv" in text


def test_a_results_file_of_0_1_is_resumed_and_nothing_is_run_again(copies: Path) -> None:
    out = nq.ResultsFile(copies / "results-0.1.jsonl", resume=True)
    records = nq.compare(["min-conflicts", "bitset-mrv", "backtracking"], "6,8", trials=2, timeout=10, out=out)
    assert records == []  # every run is there already
    assert len(read_records(copies / "results-0.1.jsonl").records) == 12


def test_a_count_kept_by_0_1_resumes_to_the_same_total(copies: Path) -> None:
    result = nq.count("bitboard", 12, blocked="0:0", out=copies / "pieces-0.1.jsonl", resume=True)
    assert result.solutions == 13_700 and result.counters["parts_resumed"] == 64


def test_a_tune_file_of_0_1_is_replayed_by_report() -> None:
    text = nq.report(WRITTEN / "tune-0.1.jsonl", format="markdown")
    assert "simulated-annealing" in text and "Best" in text


def test_certified_records_of_0_1_are_read() -> None:
    loaded = read_records(WRITTEN / "certified-0.1.jsonl")
    certified = [record for record in loaded.records if record.get("certificate") == "certified"]
    assert certified and not loaded.warnings
    assert all("proof" not in record for record in certified)  # 0.1 kept no proofs


def test_records_say_their_schema_version_and_0_1s_do_not(tmp_path: Path) -> None:
    from nqueens_plugins.formats.run_record import RECORD_VERSION

    (record,) = nq.compare(["min-conflicts"], [6], out=tmp_path / "runs.jsonl")
    assert record["record_version"] == RECORD_VERSION == 3
    assert read_records(tmp_path / "runs.jsonl").records[0]["record_version"] == 3
    assert all("record_version" not in r for r in read_records(WRITTEN / "results-0.1.jsonl").records)
    header, line = (tmp_path / "runs.jsonl").read_text(encoding="utf-8").splitlines()
    edited = {**json.loads(line), "record_version": "2"}
    (tmp_path / "bad.jsonl").write_text(f"{header}\n{json.dumps(edited)}\n", encoding="utf-8")
    loaded = read_records(tmp_path / "bad.jsonl")
    assert not loaded.records and "record_version" in loaded.warnings[0]
