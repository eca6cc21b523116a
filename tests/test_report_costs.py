"""What the runs cost in ``nqueens report`` (issue 55, item 2): CPU seconds and peak memory per solver and board,
and the variants whose runs used several cores or waited for one, named under the table.

A file without cost figures (every file written before record version 3) is reported as it always was: the
golden outputs (``test_golden_outputs.py``) keep that byte for byte.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

import nqueens_plugins as nq
from nqueens_plugins.formats.records import read_runs
from nqueens_plugins.results.summary import COST_FIELDS, Group, summarise, weighted_quantile
from nqueens_plugins.views.report import CPU_COLUMN, MEMORY_COLUMN

HEADER = {"type": "header", "format": "nqueens-results", "format_version": 1, "command": None}


def run(solver: str, seconds: float, cpu: float | None, memory: int | None, trial: int = 0) -> dict[str, Any]:
    """A solved run of n = 8 as a worker would write it (record version 3)."""
    return {
        "type": "run", "record_version": 3, "solver": solver, "name": solver, "options": {}, "seed": 0,
        "trial": trial, "status": "solved", "verified": True, "reason": None, "queens": [0, 4, 7, 5, 2, 6, 1, 3],
        "iterations": 120, "moves": 64, "counters": {}, "seconds": seconds, "complete": True,
        "cpu_seconds": cpu, "peak_memory_bytes": memory, "max_threads": 2 if cpu else None, "max_processes": 1,
        "measured_by": {"cpu": "rusage+proc", "memory": "proc-hwm", "threads": "proc-sampled",
                        "processes": "proc-sampled"} if cpu is not None else None,
        "n": 8, "fixed": {}, "blocked": [], "source": None, "timeout": 10.0,
    }  # fmt: skip


def results_file(path: Path, runs: list[dict[str, Any]]) -> Path:
    path.write_text("\n".join(json.dumps(line) for line in [HEADER, *runs]) + "\n")
    return path


def rendered(renderable: Any, width: int) -> list[str]:
    console = Console(width=width, file=io.StringIO(), color_system=None, highlight=False, markup=False)
    console.print(renderable)
    return console.file.getvalue().splitlines()  # type: ignore[attr-defined]


def test_a_compared_file_reports_what_its_runs_cost(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    nq.compare(["backtracking", "min-conflicts"], [8], trials=3, out=str(out))
    records = [dict(line) for line in map(json.loads, out.read_text().splitlines()) if line.get("type") == "run"]
    rows = summarise(records)
    assert len(rows) == 2
    for row in rows:
        assert row.measured == 3
        assert row.cpu_q25_seconds is not None and row.cpu_median_seconds is not None
        assert row.cpu_q75_seconds is not None
        assert 0 < row.cpu_q25_seconds <= row.cpu_median_seconds <= row.cpu_q75_seconds
        cpus = sorted(float(r["cpu_seconds"]) for r in records if r.get("solver") == row.solver)
        assert row.cpu_median_seconds == cpus[1]
        assert row.peak_memory_median_bytes is not None and row.peak_memory_max_bytes is not None
        # a Python worker holds at least a few MB resident, and less than the machine's memory
        assert 1e6 < row.peak_memory_median_bytes <= row.peak_memory_max_bytes < 1e12
    table = "\n".join(rendered(nq.report(out), 1000))
    assert CPU_COLUMN in table and MEMORY_COLUMN in table
    assert f"{rows[0].peak_memory_median_bytes / 1e6:,.1f}" in table
    markdown = nq.report(out, format="markdown")
    assert f"| {CPU_COLUMN} | {MEMORY_COLUMN} |" in markdown
    csv_header = nq.report(out, format="csv").splitlines()[0].split(",")
    assert all(name in csv_header for name in COST_FIELDS)
    shown = json.loads(nq.report(out, format="json"))
    assert shown[0]["measured"] == 3 and shown[0]["cpu_median_seconds"] == rows[0].cpu_median_seconds
    page = tmp_path / "report.html"
    nq.report(out, format="html", output=page)
    html = page.read_text()  # headers on two lines
    assert ">cpu <br>s<" in html and ">peak <br>MB<" in html
    frame = nq.records_frame(out)  # one row a run, the cost fields flat (measured_by.cpu, ...)
    for column in ("cpu_seconds", "peak_memory_bytes", "max_threads", "max_processes", "measured_by.cpu"):
        assert column in frame.columns
    assert frame["cpu_seconds"].notna().all() and (frame["peak_memory_bytes"] > 0).all()


def test_a_file_without_figures_has_no_cost_columns(tmp_path: Path) -> None:
    path = results_file(tmp_path / "old.jsonl", [run("bitset-mrv", 0.5, None, None)])
    (row,) = summarise(read_runs(path))
    assert row.measured == 0 and row.cpu_median_seconds is None and row.parallel is None
    for fmt in ("markdown", "csv", "json"):
        text = nq.report(path, format=fmt)
        assert CPU_COLUMN not in text and "cpu_median_seconds" not in text and "measured" not in text
    assert CPU_COLUMN not in "\n".join(rendered(nq.report(path), 1000))


def test_a_run_on_two_cores_is_flagged_parallel(tmp_path: Path) -> None:
    runs = [run("cp-sat[workers=2]", 1.0, 2.0, 50_000_000, trial) for trial in range(3)]
    runs += [run("bitset-mrv", 1.0, 1.0, 40_000_000, trial) for trial in range(3)]
    path = results_file(tmp_path / "two.jsonl", runs)
    rows = {row.solver: row for row in summarise(read_runs(path))}
    assert rows["cp-sat[workers=2]"].parallel is True and rows["cp-sat[workers=2]"].waiting is False
    assert rows["bitset-mrv"].parallel is False and rows["bitset-mrv"].waiting is False
    markdown = nq.report(path, format="markdown")
    (line,) = [line for line in markdown.splitlines() if "more than one core" in line]
    assert "cp-sat[workers=2] on n = 8" in line and "bitset-mrv" not in line
    assert "waited" not in markdown
    assert any("more than one core" in line for line in rendered(nq.report(path), 80))


def test_a_run_off_the_cpu_is_flagged_waiting(tmp_path: Path) -> None:
    path = results_file(tmp_path / "wait.jsonl", [run("bitset-mrv", 1.0, 0.01, 40_000_000)])
    (row,) = summarise(read_runs(path))
    assert row.waiting is True and row.parallel is False
    markdown = nq.report(path, format="markdown")
    assert any(
        line.startswith("- waited for a core") and "bitset-mrv on n = 8" in line for line in markdown.split("\n")
    )


def test_a_short_run_is_not_judged_by_its_ratio(tmp_path: Path) -> None:
    """A millisecond's start-up in a run of 2 ms would make it look parallel: below 0.1 s wall, no flag."""
    path = results_file(tmp_path / "short.jsonl", [run("bitset-mrv", 0.002, 0.006, 40_000_000)])
    (row,) = summarise(read_runs(path))
    assert row.cpu_median_seconds == 0.006 and row.parallel is None and row.waiting is None
    assert "more than one core" not in nq.report(path, format="markdown")


def test_the_cost_columns_fit_an_80_column_terminal(tmp_path: Path) -> None:
    runs = [run("forward-checking[order=mrv,values=middle]", 1.0, 1.0, 40_000_000)]
    path = results_file(tmp_path / "narrow.jsonl", runs)
    lines = rendered(nq.report(path), 80)
    assert all(len(line) <= 80 for line in lines)
    text = "\n".join(lines)  # a figure's header wraps between its words where its column is narrow ("peak" / "MB")
    assert CPU_COLUMN in text and "peak" in text and "40.0" in text


def test_repeated_runs_are_held_once_and_counted() -> None:
    """A file of one measured run repeated is held in one cost entry (the memory notes of ``Group``)."""
    group = Group()
    for _ in range(1000):
        group.store_cost(0.5, None, 1.0)
    group.store_cost(2.0, 10, 1.0)
    assert len(group.cost_cpu) == 2 and int(group.cost_weights().sum()) == 1001


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0, 100), st.integers(1, 5)), min_size=1, max_size=8),
    st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]),
)
def test_a_weighted_quantile_is_the_quantile_of_the_runs(entries: list[tuple[float, int]], q: float) -> None:
    values = np.array([value for value, _ in entries])
    weights = np.array([weight for _, weight in entries])
    expected = float(np.quantile(np.repeat(values, weights), q))
    assert abs(weighted_quantile(values, weights, q) - expected) <= 1e-9 * max(1.0, abs(expected))
