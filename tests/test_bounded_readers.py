"""A file from someone else, again (issue 52): every reader of a results file is bounded, and a broken
compressed file is refused or warned of for what it is.

A 2 KB bzip2 file can unpack to gigabytes of newlines: ``nqueens report`` read such a file for as long as
it unpacked (3 million blank lines a second, without end in sight after ten minutes). Reading now counts
the lines (blank ones too) and the bytes that come out of the file, and refuses past ``--max-lines`` or
``--max-bytes`` in one line with exit status 2. These tests use small limits set by the options, never
gigabytes, and nothing in them depends on time.

A gzip file that is damaged from its first bytes was called "empty", and one cut within its header line
"not a header": the messages now name the compression.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
from collections.abc import Callable
from pathlib import Path

import pytest

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.formats.reading import TooLarge
from nqueens_plugins.formats.records import Loaded, scan_records

CRAFTED = Path(__file__).parent / "data" / "hostile" / "records"
COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": lambda data: gzip.compress(data, compresslevel=1),
    "bzip2": bz2.compress,
    "xz": lzma.compress,
}
SUFFIX = {"gzip": ".gz", "bzip2": ".bz2", "xz": ".xz"}


def header_and_run() -> tuple[bytes, bytes]:
    """The header line and a valid run line of a real ``compare`` (the crafted files' third line is sound)."""
    header, _, run = (CRAFTED / "seconds-nan.jsonl").read_text().splitlines()
    return f"{header}\n".encode(), f"{run}\n".encode()


def one_error_line(code: int, err: str) -> str:
    """A refusal: exit status 2, one line on stderr, no traceback."""
    assert code == 2, err
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_a_bomb_of_blank_lines_stops_at_max_lines(tmp_path: Path, run_cli, kind: str) -> None:
    """The report on issue 52: a small compressed file of nothing but newlines after a header. Blank lines
    count as lines, so the reading stops at ``--max-lines`` rather than at the end of the stream."""
    header, _ = header_and_run()
    path = tmp_path / f"bomb.jsonl{SUFFIX[kind]}"
    path.write_bytes(COMPRESSORS[kind](header + b"\n" * 100_000))
    assert path.stat().st_size < 2_000
    code, shown, err = run_cli("report", str(path), "--max-lines", "1000")
    err = one_error_line(code, err)
    assert "more than the 1,000 lines" in err and "blank ones count" in err and "--max-lines" in err, err
    assert shown == ""  # no table made from the part read


def test_max_lines_counts_every_line_through_the_api(tmp_path: Path) -> None:
    """``scan_records`` itself holds to the limits it is given: a plain file of 11 lines against 10."""
    from nqueens_plugins.formats.records import ReadLimits  # (here: so each test fails on its own on 0.2's main)

    header, run = header_and_run()
    path = tmp_path / "runs.jsonl"
    path.write_bytes(header + run * 5 + b"\n" * 5)
    assert len(list(scan_records(path, Loaded(limits=ReadLimits(lines=11))))) == 5
    with pytest.raises(TooLarge, match="more than the 10 lines"):
        list(scan_records(path, Loaded(limits=ReadLimits(lines=10))))


@pytest.mark.parametrize("tail", ["records", "one endless line"])
def test_what_a_file_unpacks_to_stops_at_max_bytes(tmp_path: Path, run_cli, tail: str) -> None:
    """The bytes that come out of a file are counted, not its size on disk: a gzip of 4 MB of records, or
    of one line with no newline (read past in pieces, never held), is refused past ``--max-bytes``."""
    header, run = header_and_run()
    body = run * (4_000_000 // len(run)) if tail == "records" else b"x" * 4_000_000
    path = tmp_path / "big.jsonl.gz"
    path.write_bytes(gzip.compress(header + body, compresslevel=9))
    code, _, err = run_cli("report", str(path), "--max-bytes", "1000000")
    err = one_error_line(code, err)
    assert "unpacks to more than the 977 KiB" in err and "--max-bytes" in err, err


def test_a_file_within_its_limits_is_reported(tmp_path: Path, run_cli) -> None:
    header, run = header_and_run()
    path = tmp_path / "runs.jsonl.gz"
    path.write_bytes(gzip.compress(header + run * 20 + b"\n" * 9))
    code, shown, err = run_cli("report", str(path), "--format", "csv", "--max-lines", "30")
    assert code == 0 and "backtracking" in shown, err


def test_the_limits_are_stated_in_help(run_cli) -> None:
    code, shown, _ = run_cli("report", "--help")
    assert code == 0
    shown = " ".join(shown.split())  # as wrapped for the terminal
    for stated in ("--max-lines", "--max-bytes", "blank ones counted", "100000000", "Exit status:", "2 bad input"):
        assert stated in shown, stated


@pytest.mark.parametrize("limits", [{"lines": 0}, {"bytes": -1}, {"lines": True}])
def test_a_limit_must_be_a_whole_number(limits: dict[str, object]) -> None:
    from nqueens_plugins.formats.records import ReadLimits

    with pytest.raises(BadInput, match="whole number from 1"):
        ReadLimits(**limits)  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_a_damaged_stream_is_named_not_called_empty(tmp_path: Path, run_cli, kind: str) -> None:
    """The compression's magic bytes, then garbage: was "is not an nqueens results file (it is empty)"."""
    magic = COMPRESSORS[kind](b"")[:6] if kind != "gzip" else b"\x1f\x8b"
    path = tmp_path / f"garbage.jsonl{SUFFIX[kind]}"
    path.write_bytes(magic + b"garbage, not a compressed stream" * 8)
    code, _, err = run_cli("report", str(path))
    err = one_error_line(code, err)
    assert f"is a damaged {kind} stream" in err or f"ends before its {kind} stream does" in err, err
    assert "empty" not in err and "not a header" not in err, err


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_a_stream_cut_within_its_header_says_so(tmp_path: Path, run_cli, kind: str) -> None:
    """A valid file's compressed stream cut short before its header line ends: was "line 1 is not a header"."""
    header, run = header_and_run()
    packed = COMPRESSORS[kind](header + run * 3)
    path = tmp_path / f"cut.jsonl{SUFFIX[kind]}"
    path.write_bytes(packed[: len(packed) // 3])
    code, _, err = run_cli("report", str(path))
    err = one_error_line(code, err)
    assert f"ends before its {kind} stream does" in err and "no records" in err, err
    assert "not a header" not in err and "empty" not in err, err


def test_a_stream_cut_after_its_records_keeps_them_and_says_why(tmp_path: Path) -> None:
    """As a truncated plain file keeps its records with a warning, so does a truncated gzip, naming the cut."""
    header, run = header_and_run()
    packed = gzip.compress(header + run * 400, compresslevel=1)
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(packed[: len(packed) * 2 // 3])
    loaded = Loaded()
    assert list(scan_records(path, loaded))
    assert any("ends before its gzip stream does: the records before the cut are kept" in w for w in loaded.warnings)


def test_the_expected_answers_reader_counts_its_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``cross-check --expected`` reads a published-answers file someone named, keeping an answer per line:
    bounded by its lines (blank ones count) as well as its bytes. The limit made small here, as a bomb would
    meet the real one (a million lines)."""
    from nqueens_plugins.formats import published

    monkeypatch.setattr(published, "MAX_RESULTS_LINES", 10)
    path = tmp_path / "answers.txt.gz"
    path.write_bytes(gzip.compress(b"\n" * 100_000))
    with pytest.raises(TooLarge, match="more than the 10 lines"):
        published.read_results(str(path))


def runs_of(*kinds: tuple[str, float, int]) -> list[dict[str, object]]:
    """Run records of one variant on 8x8: (status, seconds, iterations) each, with a time limit."""
    records = []
    for trial, (status, spent, iterations) in enumerate(kinds):
        records.append({
            "type": "run", "solver": "min-conflicts", "n": 8, "seed": 0, "trial": trial, "status": status,
            "verified": status == "solved", "seconds": spent, "iterations": iterations, "moves": iterations - 1,
            "counters": {"steps": iterations}, "timeout": 10.0, "fixed": {}, "blocked": [],
        })  # fmt: skip
    return records


def test_a_repeated_run_is_counted_not_stored() -> None:
    """``report`` on a file of one record repeated (issue 52: 10^7 records took 956 MB): each group keeps
    a run equal to the one before it as a count, so its memory does not grow with the repeats."""
    from nqueens_plugins.results.summary import group_runs, summary_rows

    records = runs_of(*[("solved", 0.5, 40)] * 20_000, ("timed-out", 10.0, 900))
    groups, _ = group_runs(records)
    (group,) = groups.values()
    assert len(group.stored_seconds) == 2 and len(group.runs()) == 20_001
    assert len(group.seconds) == 20_001 and group.decided.sum() == 20_000  # one entry a run, as before
    (row,) = summary_rows(groups)
    assert (row.runs, row.decided, row.median_seconds) == (20_001, 20_000, 0.5)
    assert row.mean_iterations == pytest.approx((40 * 20_000 + 900) / 20_001)


@pytest.mark.parametrize("seed", range(5))
def test_repeats_change_no_figure(seed: int) -> None:
    """The same runs, in an order that repeats each run (stored once, counted) and one that never does: every
    figure of the report's row is the same."""
    import dataclasses
    import random

    from nqueens_plugins.results.summary import group_runs, summary_rows

    kinds = [("solved", 0.25, 10), ("solved", 1.5, 80), ("timed-out", 10.0, 500), ("gave-up", 0.75, 30)]
    chosen = random.Random(seed).choices(kinds, k=60)
    grouped_runs = runs_of(*sorted(chosen))
    apart = runs_of(*chosen)
    rows = [summary_rows(group_runs(records)[0])[0] for records in (grouped_runs, apart)]
    assert len(group_runs(grouped_runs)[0].popitem()[1].stored_seconds) <= len(kinds)
    for name, value in dataclasses.asdict(rows[0]).items():
        other = getattr(rows[1], name)
        assert value == (pytest.approx(other) if isinstance(other, float) else other), name


def test_a_run_per_seed_cannot_make_groups_without_end(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each seed is summarised apart, so a file whose every run has a seed of its own made a group (2 KB) a run:
    ten million runs, some 20 GB. The groups are counted, and past their limit (made small here) refused."""
    from nqueens_plugins.results import summary

    monkeypatch.setattr(summary, "MAX_GROUPS", 50)
    records = runs_of(*[("solved", 0.5, 40)] * 60)
    for seed, record in enumerate(records):
        record["seed"] = seed
    summary.group_runs(records[:50])
    with pytest.raises(BadInput, match="more than 50 groups"):
        summary.group_runs(records)


def test_the_portfolio_asks_for_runs_without_making_them_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """``report``'s portfolio table looked at ``group.seconds`` to skip refusals: for repeated runs that made the
    whole array run by run (16 bytes a run, 208 MB at 10^7). Summary rows and the portfolio never need it."""
    from nqueens_plugins.results import summary
    from nqueens_plugins.results.portfolio import portfolio

    groups, _ = summary.group_runs(runs_of(*[("solved", 0.5, 40)] * 1_000))

    def one_by_one(self: summary.Group, stored: object) -> None:
        raise AssertionError("a group's runs were made one entry a run")

    monkeypatch.setattr(summary.Group, "each_run", one_by_one)
    summary.summary_rows(groups)
    portfolio(groups)


def test_the_users_limit_holds_from_the_first_line_read(tmp_path: Path, run_cli, monkeypatch) -> None:
    """``report`` first looks for a tune in the file's header, reading to the first run: that look read a header
    and a hundred million blank lines under the default limit before ``--max-lines`` was ever applied. Every
    reading of the file holds to the user's limits: never more than the limit's lines are read, in all."""
    from nqueens_plugins.formats import records

    read = []
    lines_of = records.lines_of

    def counted(handle):  # type: ignore[no-untyped-def]
        for line in lines_of(handle):
            read.append(1)
            yield line

    monkeypatch.setattr(records, "lines_of", counted)
    header, _ = header_and_run()
    path = tmp_path / "blank.jsonl.gz"
    path.write_bytes(gzip.compress(header + b"\n" * 50_000))
    code, _, err = run_cli("report", str(path), "--max-lines", "1000")
    assert "more than the 1,000 lines" in one_error_line(code, err), err
    assert len(read) <= 1001, len(read)
