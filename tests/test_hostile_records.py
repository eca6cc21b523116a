"""Results files from someone else (issue 37, rows 4 and 13): every crafted line is a warning, never a traceback.

The crafted files in ``tests/data/hostile/records`` each hold the header and two
runs of ``nqueens compare -s backtracking -n 5 --trials 2`` with one field made
hostile (line 2, or the header on line 1); the 100,000-deep line is made here.
Each is opened with every command that reads results: ``report`` in every format,
``plot`` and ``compare --resume``.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.formats.records import (
    Loaded,
    grid_difference,
    parse_lines,
    read_records,
    run_key,
    with_time_limits,
)
from nqueens_plugins.results.summary import group_runs, summary_rows

CRAFTED = Path(__file__).parent / "data" / "hostile" / "records"
GRID = ["-s", "backtracking", "-n", "5", "--trials", "2"]  # the comparison that wrote the crafted files
FORMATS = ["table", "json", "csv", "markdown", "html"]

# file -> the line the reader must name in its warning
CASES = {
    "n-1e400.jsonl": 2,
    "n-infinity.jsonl": 2,
    "fixed-list.jsonl": 2,
    "iterations-text.jsonl": 2,
    "blocked-text.jsonl": 2,
    "seconds-nan.jsonl": 2,
    "seconds-negative.jsonl": 2,
    "packages-list.jsonl": 1,
    "nested-100000.jsonl": 2,  # made by crafted_file
}


def crafted_file(name: str, folder: Path) -> Path:
    """A copy of the crafted file (commands may append to it), or the deep one made here."""
    target = folder / name
    if name == "nested-100000.jsonl":
        header, _, second = (CRAFTED / "seconds-nan.jsonl").read_text().splitlines()
        deep = '{"type":"run","solver":' + '{"a":' * 100_000 + "1" + "}" * 100_000 + "}"
        target.write_text(f"{header}\n{deep}\n{second}\n")
    else:
        shutil.copyfile(CRAFTED / name, target)
    return target


def assert_warned(code: int, err: str, path: Path, line: int) -> None:
    assert "Traceback" not in err, err
    assert code == 0, err
    assert f"{path.name}:{line}:" in err, err  # the warning names the line


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("fmt", FORMATS)
def test_report_warns_of_a_crafted_line(tmp_path: Path, run_cli, name: str, fmt: str) -> None:
    path = crafted_file(name, tmp_path)
    code, _, err = run_cli("report", str(path), "--format", fmt, "-o", str(tmp_path / f"report.{fmt}"))
    assert_warned(code, err, path, CASES[name])
    written = (tmp_path / f"report.{fmt}").read_text()
    assert "backtracking" in written
    if fmt == "json":
        (row,) = json.loads(written)  # strict JSON: no NaN or Infinity token
        runs = 1 if CASES[name] == 2 else 2  # a bad run is skipped; a bad header field is dropped, its runs kept
        assert row["runs"] == runs, row
        assert row["median_seconds"] is not None and 0 <= row["median_seconds"] < 10, row


@pytest.mark.parametrize("name", sorted(CASES))
def test_plot_warns_of_a_crafted_line(tmp_path: Path, run_cli, name: str) -> None:
    path = crafted_file(name, tmp_path)
    code, _, err = run_cli("plot", str(path), "-o", str(tmp_path / "figure.svg"))
    assert_warned(code, err, path, CASES[name])
    assert (tmp_path / "figure.svg").stat().st_size > 1000


@pytest.mark.parametrize("name", sorted(CASES))
def test_resume_runs_again_what_a_crafted_line_held(tmp_path: Path, run_cli, name: str) -> None:
    path = crafted_file(name, tmp_path)
    code, _, err = run_cli("compare", *GRID, "--out", str(path), "--resume", "--format", "json")
    assert_warned(code, err, path, CASES[name])
    records = read_records(path).records
    assert sorted(record["trial"] for record in records) == [0, 1]  # the skipped run was run again, once


def test_a_negative_time_is_no_median(tmp_path: Path, run_cli) -> None:
    """Row 13, reading half: ``"seconds": -5`` was accepted and became a median of -5."""
    code, shown, err = run_cli("report", str(CRAFTED / "seconds-negative.jsonl"), "--format", "json")
    assert code == 0 and "seconds-negative.jsonl:2: " in err and "'seconds'" in err, err
    (row,) = json.loads(shown)
    assert row["runs"] == 1 and row["median_seconds"] > 0, row


def test_a_line_too_long_is_skipped_unread(tmp_path: Path) -> None:
    from nqueens_plugins.formats import records

    header, first, second = (CRAFTED / "seconds-nan.jsonl").read_text().splitlines()
    long = first.replace('"reason":null', '"reason":"' + "x" * (records.MAX_LINE_BYTES + 10) + '"')
    loaded = Loaded()
    read = list(parse_lines(io.BytesIO(f"{header}\n{long}\n{second}\n".encode()), "long.jsonl", loaded))
    assert [record["trial"] for record in read] == [1]
    assert loaded.warnings == [f"long.jsonl:2: longer than {records.MAX_LINE_BYTES >> 20} MiB; skipped"]


def test_warnings_are_capped_and_headers_kept_in_bounds() -> None:
    """A file of a million bad lines must not keep a million warnings (nor headers) in memory."""
    from nqueens_plugins.formats import records

    header, _, good = (CRAFTED / "seconds-nan.jsonl").read_text().splitlines()
    lines = [header] * (records.MAX_HEADERS + 5) + ["not json"] * (records.MAX_WARNINGS + 50) + [good]
    loaded = Loaded()
    assert len(list(parse_lines(io.BytesIO("\n".join(lines).encode() + b"\n"), "f", loaded))) == 1
    assert len(loaded.headers) == records.MAX_HEADERS
    assert len(loaded.warnings) <= records.MAX_WARNINGS + 3
    assert any("50 more line(s)" in warning for warning in loaded.warnings), loaded.warnings[-3:]
    assert any("5 header(s) past the first" in warning for warning in loaded.warnings), loaded.warnings[-3:]


@pytest.mark.parametrize(
    "field, token, words",
    [
        ("n", "1" + "0" * 30, "'n' must be a whole number from 1 to 2,147,483,647"),
        ("n", "0", "'n' must be"),
        ("n", "true", "'n' must be"),
        ("status", '"won"', "'status' must be one of"),
        ("status", "[1]", "'status' must be one of"),
        ("trial", "-1", "'trial' must be a whole number from 0"),
        ("seed", "1.5", "'seed' must be a whole number"),
        ("seconds", "1" + "0" * 400, "'seconds' must be a finite number"),  # an int past any float
        ("seconds", "null", "'seconds' must be a finite number"),
        ("iterations", "-1e400", "not finite"),
        ("counters", '{"restarts": "many"}', "'counters' must be a map of names to finite numbers"),
        ("fixed", '{"01": 1}', "'fixed' must be"),
        ("fixed", '{"9": 0}', "'fixed' must be"),  # off the 5 x 5 board
        ("blocked", "[[5, 0]]", "'blocked' must be"),
        ("blocked", "[[1, 2, 3]]", "'blocked' must be"),
        ("queens", '["a"]', "'queens' must be a list of whole numbers"),
        ("solver", '"\\ud800"', "lone surrogate"),
        ("solver", "null", "'solver' must be a string"),
        ("options", "[1]", "'options' must be a map or null"),
        ("version", "[1]", "'version' must be a string or null"),  # a group key: must hash
    ],
)
def test_each_field_is_checked(field: str, token: str, words: str) -> None:
    header, _, good = (CRAFTED / "seconds-nan.jsonl").read_text().splitlines()
    line = json.dumps({**json.loads(good), "trial": 0, field: "@@"}).replace('"@@"', token)
    loaded = Loaded()
    read = list(parse_lines(io.BytesIO(f"{header}\n{line}\n{good}\n".encode()), "f", loaded))
    assert [record["trial"] for record in read] == [1]
    (warning,) = loaded.warnings
    assert warning.startswith("f:2: ") and words in warning, warning


def test_a_verified_board_that_is_drawn_must_be_on_the_board() -> None:
    """The HTML report draws any verified record's board: a no-solution claim keeping queens off the board."""
    header, _, good = (CRAFTED / "seconds-nan.jsonl").read_text().splitlines()
    line = json.dumps({**json.loads(good), "trial": 0, "status": "no-solution", "queens": [0, 9, 1, 2, 3]})
    loaded = Loaded()
    read = list(parse_lines(io.BytesIO(f"{header}\n{line}\n{good}\n".encode()), "f", loaded))
    assert [record["trial"] for record in read] == [1]
    assert loaded.warnings == [
        "f:2: not a valid run record (a verified record's 'queens' must be one row on the board per column); skipped"
    ]


def test_a_header_after_a_byte_order_mark_is_read() -> None:
    """json.loads took a UTF-8 byte-order mark before a line (a file saved by an editor); so does the reader."""
    header, _, good = (CRAFTED / "seconds-nan.jsonl").read_text().splitlines()
    loaded = Loaded()
    read = list(parse_lines(io.BytesIO(f"\ufeff{header}\n{good}\n".encode()), "f", loaded))
    assert len(read) == 1 and len(loaded.headers) == 1 and not loaded.warnings


def test_boards_are_re_verified_by_their_content_not_by_their_instance_id() -> None:
    """Verdicts are kept for boards met again; a record claiming another's instance id gets its own."""
    header, _, good = (CRAFTED / "seconds-nan.jsonl").read_text().splitlines()
    record = json.loads(good)  # queens [0, 2, 4, 1, 3]
    blocked = json.dumps({**record, "trial": 0, "blocked": [[0, 0]]})  # its queen of column 0 stands there
    loaded = Loaded()
    read = list(parse_lines(io.BytesIO(f"{header}\n{good}\n{blocked}\n{good}\n".encode()), "f", loaded))
    assert [record["status"] for record in read] == ["solved", "invalid", "solved"]
    assert "blocked square 0:0" in read[1]["reason"]


def test_squares_met_again_are_checked_for_each_board() -> None:
    """The blocked squares of the record before are not checked again, but only on the same board, and what
    stands in for them is what was checked (a 4.0 equal to a 4 comes out as the 4)."""
    header, _, good = (CRAFTED / "seconds-nan.jsonl").read_text().splitlines()
    record = {**json.loads(good), "blocked": [[1, 4]]}  # queens [0, 2, 4, 1, 3]: none on 1:4
    lines = [
        json.dumps({**record, "trial": 0}),
        json.dumps({**record, "trial": 1, "n": 4}),  # 1:4 is off a 4 x 4 board
        json.dumps({**record, "trial": 2, "blocked": [[1.0, 4]]}),
    ]
    loaded = Loaded()
    read = list(parse_lines(io.BytesIO("\n".join([header, *lines, ""]).encode()), "f", loaded))
    assert [record["trial"] for record in read] == [0, 2]
    assert "f:3: not a valid run record ('blocked' must be" in loaded.warnings[0], loaded.warnings
    assert [type(value) for value in read[1]["blocked"][0]] == [int, int]


# The property: whatever a line holds, the reader gives a valid record or a warning (or, for the header, one line).

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
HEADER, FIRST, SECOND = (json.loads(line) for line in (CRAFTED / "seconds-nan.jsonl").read_text().splitlines())
FIRST["seconds"] = 0.5
RUN_FIELDS = sorted(FIRST) + ["timeout", "unknown"]
HEADER_FIELDS = sorted(HEADER) + ["unknown"]
GRID_FIELDS = sorted(HEADER["grid"]) + ["unknown"]


def hostile_line(draw: Any) -> bytes:
    kind = draw(st.sampled_from(["run field", "header field", "grid field", "value", "text", "bytes"]))
    if kind == "text":
        return draw(st.text()).encode("utf-8", "surrogatepass")
    if kind == "bytes":
        return draw(st.binary())
    if kind == "value":
        return json.dumps(draw(JSON)).encode()
    if kind == "run field":
        item = {**FIRST, draw(st.sampled_from(RUN_FIELDS)): draw(JSON)}
    elif kind == "header field":
        item = {**HEADER, draw(st.sampled_from(HEADER_FIELDS)): draw(JSON)}
    else:
        item = {**HEADER, "grid": {**HEADER["grid"], draw(st.sampled_from(GRID_FIELDS)): draw(JSON)}}
    return json.dumps(item).encode()  # NaN and Infinity written as JSON's non-standard tokens


def is_valid_record(record: dict[str, Any]) -> bool:
    """What the views rely on, said independently of the reader."""
    n = record["n"]
    return (
        isinstance(record["solver"], str)
        and type(n) is int
        and 1 <= n <= 2**31 - 1
        and type(record["trial"]) is int
        and type(record["seed"]) is int
        and type(record["seconds"]) in (int, float)
        and 0 <= record["seconds"] < math.inf
        and record["status"] in {"solved", "no-solution", "gave-up", "timed-out", "error", "invalid", "refused"}
        and all(
            type(value) in (int, float) and math.isfinite(value) for value in (record.get("counters") or {}).values()
        )
        and all(0 <= int(column) < n and 0 <= row < n for column, row in (record.get("fixed") or {}).items())
        and all(0 <= column < n and 0 <= row < n for column, row in (record.get("blocked") or []))
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from([1, 2]))
def test_any_line_is_a_valid_record_or_a_warning(data: st.DataObject, position: int) -> None:
    line = data.draw(st.composite(lambda draw: hostile_line(draw))())
    lines = [json.dumps(HEADER).encode(), json.dumps(SECOND).encode()]
    lines.insert(position - 1 if position == 1 else 1, line)  # the hostile line first, or among the runs
    loaded = Loaded()
    try:
        records = list(with_time_limits(parse_lines(io.BytesIO(b"\n".join(lines) + b"\n"), "f", loaded), loaded))
    except BadInput as refused:  # a hostile header (or a first line that is none) refuses the file, in one line
        assert "\n" not in str(refused)
        return
    assert all("\n" not in warning for warning in loaded.warnings)
    assert all(is_valid_record(record) for record in records), records
    assert any(record["trial"] == 1 for record in records)  # the good run is kept whatever came before it
    groups, _ = group_runs(records)
    rows = summary_rows(groups)
    json.dumps([row.__dict__ for row in rows], allow_nan=False)  # figures are finite or None
    from nqueens_plugins.views.html_report import provenance

    for header in loaded.headers:
        provenance(header)
    other = {"seed": 1, "timeout": 5.0, "memory": 1024, "trials": 3, "solvers": ["x"], "boards": ["b"]}
    grid_difference(loaded.headers, {run_key(record) for record in records}, other)  # what a resume checks


def test_records_of_a_large_blocked_instance_are_each_verified_against_its_squares(tmp_path: Path) -> None:
    """The set of an instance's ~600 blocked squares is built once for the records that share it (a speed
    measure): each record is still checked against its own squares, so one whose squares were edited to
    block a queen is caught, and the records after it are checked against theirs again."""
    import nqueens_plugins as nq
    from nqueens_plugins.formats.records import Loaded, scan_records

    instance = Path(nq.__file__).parent / "data" / "blockedqueens.28.1449787894.param"
    (record,) = nq.compare("bitset-mrv", [str(instance)], keep_queens=True)
    problem = nq.problem_of(instance=str(instance))
    assert len(problem.blocked) > 64  # past the verdict cache of small boards
    # The same board, with its first queen's square added to the blocked ones: only that is wrong with it.
    column, row = 0, record["queens"][0]
    moved = dict(record, blocked=[*record["blocked"], [column, row]])
    header = {"type": "header", "format": "nqueens-results", "format_version": 1}
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in (header, record, moved, record)) + "\n")
    loaded = Loaded()
    verified = [run["verified"] for run in scan_records(path, loaded)]
    assert verified == [True, False, True]
    assert any("1 record(s) claim a solution the verifier rejects" in warning for warning in loaded.warnings)


COMPRESSORS = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_a_compressed_results_file_reads_as_the_plain_one(tmp_path: Path, run_cli, kind: str) -> None:
    """Records kept compressed (as ``benchmarks/results`` keeps them) are read by ``report`` as they are;
    ``--resume`` of one is refused in one line, as appending text to it would break it."""
    plain = tmp_path / "runs.jsonl"
    assert run_cli("compare", *GRID, "--out", str(plain), "--format", "json")[0] == 0
    packed = tmp_path / "runs.jsonl.z"
    packed.write_bytes(COMPRESSORS[kind](plain.read_bytes()))
    shown = [run_cli("report", str(path), "--format", "json") for path in (plain, packed)]
    assert shown[0][0] == 0 and shown[1][0] == 0, shown
    assert json.loads(shown[1][1]) == json.loads(shown[0][1]) and json.loads(shown[1][1])[0]["runs"] == 2
    before = packed.read_bytes()  # (gzip writes the time into its header: compressing again may differ)
    code, _, err = run_cli("compare", *GRID, "--out", str(packed), "--resume")
    assert code == 2 and f"is {kind}-compressed" in err and "Traceback" not in err, err
    assert packed.read_bytes() == before  # untouched


@pytest.mark.parametrize("damage", ["cut", "flipped"])
def test_a_cut_or_damaged_compressed_file_keeps_the_records_before_the_break(tmp_path: Path, damage: str) -> None:
    """gzip raises ``EOFError`` for a cut stream and ``BadGzipFile``/``zlib.error`` for damage: neither
    reaches the user as a traceback; what unpacked before the break is read, and the reader says why it stopped."""
    header, _, second = (CRAFTED / "seconds-nan.jsonl").read_text().splitlines()
    good = f"{header}\n{second}\n".encode()
    filler = "".join(f"{second}\n" for _ in range(200)).encode()
    packed = bytearray(gzip.compress(good + filler, compresslevel=1))
    if damage == "cut":
        packed = packed[: len(packed) * 2 // 3]
    else:
        packed[len(packed) * 2 // 3] ^= 0xFF
    path = tmp_path / "runs.jsonl.gz"
    path.write_bytes(bytes(packed))
    loaded = Loaded()
    from nqueens_plugins.formats.records import scan_records

    records = list(scan_records(path, loaded))
    assert records and records[0]["trial"] == 1  # the first run unpacked before the break is kept
    said = "ends before its gzip stream does" if damage == "cut" else "is a damaged gzip stream"
    assert any(said in warning for warning in loaded.warnings), loaded.warnings
