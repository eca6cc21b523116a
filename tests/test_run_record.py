"""``RunRecord`` (issue 54, item 1): one run's record, typed, owning its JSON form and its checks. Every record
of the kept files (written by the release before it, and by 0.1) reads into a ``RunRecord`` and writes back as
its line, byte for byte, key order included; as a ``Mapping`` it is the dict the readers had before."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nqueens_plugins.core.certificate_status import CertificateStatus
from nqueens_plugins.core.problem import Status
from nqueens_plugins.formats.run_record import RecordError, RunRecord, run_problem

DATA = Path(__file__).parent / "data"
KEPT = sorted((DATA / "golden" / "results").glob("*.jsonl")) + sorted((DATA / "written-by-0.1").glob("*.jsonl"))


def run_lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if json.loads(line).get("type") == "run"]


@pytest.mark.parametrize("path", [p for p in KEPT if "pieces" not in p.name], ids=lambda p: p.name)
def test_each_kept_record_reads_and_writes_back_byte_for_byte(path: Path) -> None:
    lines = run_lines(path)
    assert lines
    for line in lines:
        raw = json.loads(line)
        record = RunRecord.from_json(raw)
        assert json.dumps(record.to_json(), separators=(",", ":")) == line
        assert dict(record) == raw and list(record) == list(raw) and record == raw
        assert record.solver == raw["solver"] and record.n == raw["n"] and record.status == raw["status"]
        assert type(record.status) is Status
        assert record.certificate is None or type(record.certificate) is CertificateStatus
        assert record.record_version == raw.get("record_version")  # None in 0.1's records, which leave it out


def test_a_field_left_out_is_absent_not_null() -> None:
    """0.1's records have no ``record_version`` nor ``proof``: the mapping does not make them up."""
    line = run_lines(DATA / "written-by-0.1" / "certified-0.1.jsonl")[0]
    record = RunRecord.from_json(json.loads(line))
    assert "proof" not in record and record.get("proof", "absent") == "absent" and record.proof is None
    with pytest.raises(KeyError):
        record["record_version"]


def test_a_field_of_a_later_release_is_kept_as_read() -> None:
    raw = json.loads(run_lines(DATA / "golden" / "results" / "plain.jsonl")[0])
    later = {**raw, "record_version": 3, "energy_joules": 1.5}
    record = RunRecord.from_json(later)
    assert record["energy_joules"] == 1.5 and json.dumps(record.to_json()) == json.dumps(later)


def test_a_record_cannot_be_changed() -> None:
    record = RunRecord.from_json(json.loads(run_lines(DATA / "golden" / "results" / "plain.jsonl")[0]))
    with pytest.raises(AttributeError):
        record.status = Status.SOLVED  # type: ignore[misc]
    with pytest.raises(TypeError):
        record["status"] = "solved"  # type: ignore[index]


@given(
    field=st.sampled_from(
        [
            "n",
            "solver",
            "status",
            "seed",
            "trial",
            "seconds",
            "timeout",
            "certificate",
            "queens",
            "cpu_seconds",
            "peak_memory_bytes",
            "max_threads",
            "max_processes",
            "measured_by",
        ]
    ),
    value=st.one_of(
        st.text(max_size=3),
        st.floats(allow_nan=False),
        st.just(-1),
        st.just([1.5]),
        st.none(),
        st.just({"cpu": "rusage", "memory": None, "threads": None, "processes": None}),
        st.just({"cpu": 1}),
    ),
)
def test_a_wrong_field_is_refused_in_the_words_of_the_reader(field: str, value: object) -> None:
    raw = json.loads(run_lines(DATA / "golden" / "results" / "plain.jsonl")[0])
    edited = {**raw, field: value}
    problem = run_problem(edited)
    if problem is None:
        assert RunRecord.from_json(edited)[field] == value
    else:
        with pytest.raises(RecordError, match=f"^{re.escape(problem)}$"):
            RunRecord.from_json(edited)


def test_a_record_made_from_its_fields_writes_the_line_a_run_writes(tmp_path: Path) -> None:
    """Made by keyword (not read), a record gives the keys in the writer's order: the line ``compare`` writes."""
    import nqueens_plugins as nq

    nq.compare(["bitset-mrv"], [5], out=tmp_path / "runs.jsonl")
    line = run_lines(tmp_path / "runs.jsonl")[0]
    raw = json.loads(line)
    made = RunRecord(**{key: value for key, value in raw.items() if key != "type"})
    assert json.dumps(made.to_json(), separators=(",", ":")) == line
    assert type(made.status) is Status and made == RunRecord.from_json(raw)
