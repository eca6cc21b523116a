"""The comparison harness: isolation against hostile plugins, records, resume, determinism."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import nqueens_plugins as nq
from nqueens_plugins.formats.records import read_records, run_key

HERE = Path(__file__).parent


@pytest.fixture
def hostile(fake_distribution) -> Path:
    """Register tests/hostile_solvers.py as an installed plugin."""
    return fake_distribution("nqueens-hostile", {"hostile": "hostile_solvers"}, {})


EXPECTED = {
    "hostile-raises": ("error", "RuntimeError: the plugin broke"),
    "hostile-busy": ("timed-out", "killed after"),
    "hostile-sleeps": ("timed-out", "killed after"),
    "hostile-exits": ("error", "exited with status 7"),
    "hostile-segfaults": ("error", "SIGSEGV"),
    "hostile-wrong-type": ("invalid", "not an Outcome"),
    "hostile-attacked": ("invalid", "share the diagonal"),
    "hostile-no-solution": ("invalid", "n = 8 has solutions"),
}


def test_hostile_plugins_get_their_status_and_the_rest_finish(hostile: Path, tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    start = time.perf_counter()
    # A 2 s limit: the controls' runs fit even on a loaded machine (preparing their workers is not timed).
    solvers = list(EXPECTED) + ["min-conflicts", "backtracking"]
    with nq.executor_for(jobs=2) as executor:
        records = nq.compare(solvers, [8], trials=2, limits=nq.Limits(timeout=2), executor=executor, out=out)
    elapsed = time.perf_counter() - start
    by_solver: dict[str, list[dict]] = {}
    for record in records:
        by_solver.setdefault(record["solver"], []).append(record)
    for name, (status, words) in EXPECTED.items():
        assert [r["status"] for r in by_solver[name]] == [status, status], name
        assert all(words in (r["reason"] or "") for r in by_solver[name]), (name, by_solver[name][0]["reason"])
        assert all(r["verified"] is not True for r in by_solver[name])
    for name in ("min-conflicts", "backtracking"):
        assert all(r["status"] == "solved" and r["verified"] is True for r in by_solver[name])
    timed_out = [r for r in records if r["status"] == "timed-out"]
    # Killed at 2 s + 0.5 s grace. The sleepers ask for an hour: bounds of a minute per run and ten
    # minutes in all show they were not waited for, and no load stretches seconds that far.
    assert all(r["seconds"] < 60 for r in timed_out)
    assert elapsed < 600
    assert len(read_records(out).records) == len(records) == 2 * (len(EXPECTED) + 2)


def test_records_carry_provenance_and_drop_large_boards(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    with nq.executor_for(jobs=1) as executor:
        records = nq.compare(["min-conflicts[init=greedy]", "construction"], [8, 2000], 1, out=out, executor=executor)
    loaded = read_records(out)
    header = loaded.headers[0]
    assert header["format"] == "nqueens-results" and header["python"] and header["cpu_count"]
    for record in loaded.records:
        assert record["distribution"] == "nqueens-plugins" and record["plugin"].startswith("builtin-")
        assert record["timestamp"] and record["seconds"] > 0
        assert (record["queens"] is None) == (record["n"] > 1000)
    assert {r["solver"] for r in records} == {"min-conflicts[init=greedy]", "construction"}
    assert records[0]["options"] in ({"init": "greedy"}, {})


def strip_timing(records: list[dict]) -> list[tuple]:
    keep = ("solver", "n", "trial", "seed", "status", "verified", "queens", "iterations", "moves", "counters")
    return sorted(tuple(json.dumps(r[k], sort_keys=True) for k in keep) for r in records)


def test_same_seed_same_records_with_one_or_two_jobs() -> None:
    solvers = ["min-conflicts", "simulated-annealing", "random-restart", "british-museum[sampling=permutation]"]
    with nq.executor_for(jobs=1) as executor:
        one = nq.compare(solvers, [6, 8, 10], trials=3, limits=nq.Limits(timeout=10, seed=42), executor=executor)
    with nq.executor_for(jobs=2) as executor:
        two = nq.compare(solvers, [6, 8, 10], trials=3, limits=nq.Limits(timeout=10, seed=42), executor=executor)
        assert strip_timing(one) == strip_timing(two)
        other_seed = nq.compare(solvers, [6, 8, 10], trials=3, limits=nq.Limits(timeout=10, seed=43), executor=executor)
    assert strip_timing(other_seed) != strip_timing(one)


def run_compare_process(out: Path, *extra: str) -> subprocess.Popen:
    env = dict(os.environ)
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "nqueens_plugins",
            "compare",
            "-s",
            "nap",
            "-n",
            "4..15",
            "--jobs",
            "1",
            "--out",
            str(out),
            "--format",
            "json",
            *extra,
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_resume_after_kill_loses_only_runs_in_flight(
    hostile: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(hostile), str(HERE)] + sys.path))
    out = tmp_path / "resume.jsonl"
    process = run_compare_process(out)
    deadline = time.time() + 20
    while time.time() < deadline:
        if out.exists() and out.read_text().count('"type":"run"') >= 3:
            break
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    before = read_records(out).records
    assert 3 <= len(before) < 12
    with out.open("a") as handle:
        handle.write('{"type":"run","solver":"nap","n":')  # a write torn by the kill
    resumed = run_compare_process(out, "--resume")
    _, err = resumed.communicate(timeout=60)
    assert resumed.returncode == 0, err
    assert "incomplete last line" in err
    loaded = read_records(out)
    assert not loaded.warnings  # the torn tail was dropped on resume
    keys = [run_key(r) for r in loaded.records]
    assert len(keys) == len(set(keys)) == 12
    assert [r for r in loaded.records[: len(before)]] == before  # nothing recorded was lost or rewritten


def test_existing_results_are_not_overwritten(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "keep.jsonl"
    assert run_cli("compare", "-s", "construction", "-n", "8", "--out", str(out))[0] == 0
    original = out.read_text()
    code, _, err = run_cli("compare", "-s", "construction", "-n", "8", "--out", str(out))
    assert code == 2 and "already exists" in err
    assert out.read_text() == original
    code, _, _ = run_cli("compare", "-s", "construction", "-n", "8", "--out", str(out), "--resume")
    assert code == 0 and len(read_records(out).records) == 1  # nothing left to run


@pytest.mark.parametrize(
    "changed, words",
    [
        (["--seed", "1"], "written with --seed 0, resumed with --seed 1"),
        (["--timeout", "5"], "written with --timeout 10 s, resumed with --timeout 5 s"),
        (["--trials", "3"], "written with --trials 2, resumed with --trials 3"),
        (["-s", "construction,backtracking"], "other solvers (not in it: backtracking)"),
        (["-n", "8,9"], "other board sizes or instances"),
    ],
)
def test_resume_refuses_another_grid(tmp_path: Path, run_cli, changed: list[str], words: str) -> None:
    out = tmp_path / "grid.jsonl"
    base = {"-s": "construction", "-n": "8", "--trials": "2", "--seed": "0", "--timeout": "10"}
    assert run_cli("compare", *[x for kv in base.items() for x in kv], "--out", str(out))[0] == 0
    original = out.read_bytes()
    base.update(dict(zip(changed[::2], changed[1::2], strict=True)))
    code, _, err = run_cli("compare", *[x for kv in base.items() for x in kv], "--out", str(out), "--resume")
    assert code == 2 and "holds another comparison" in err and words in err, err
    assert len(err.strip().splitlines()) == 1
    assert out.read_bytes() == original  # nothing written, nothing lost


def test_resume_of_a_file_without_grid_checks_its_seeds(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "old.jsonl"
    assert run_cli("compare", "-s", "construction", "-n", "8", "--seed", "4", "--out", str(out))[0] == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    del lines[0]["grid"]  # as written before headers kept the grid
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, _, err = run_cli("compare", "-s", "construction", "-n", "8", "--out", str(out), "--resume")
    assert code == 2 and "written with --seed 4, resumed with --seed 0" in err
    code, _, err = run_cli("compare", "-s", "construction", "-n", "8", "--seed", "4", "--out", str(out), "--resume")
    assert code == 0, err


def test_report_re_verifies_a_tampered_record(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "tampered.jsonl"
    assert run_cli("compare", "-s", "construction", "-n", "8", "--trials", "2", "--out", str(out))[0] == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    lines[1]["queens"] = [0] * 8  # still claims "solved", "verified": true
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, shown, err = run_cli("report", str(out), "--format", "json")
    assert code == 0
    assert "1 record(s) claim a solution the verifier rejects" in err
    (row,) = json.loads(shown)
    assert row["runs"] == 2 and row["solved"] == 1 and row["invalid"] == 1, row
    outcomes = ("solved", "no_solution", "gave_up", "timed_out", "error", "invalid")
    assert sum(row[column] for column in outcomes) == row["runs"], row  # every run in one outcome column


@pytest.mark.parametrize(
    "args, words",
    [
        (["-s", "min-conflicts", "-n", "8", "--trials", "0"], "at least 1"),
        (["-s", "min-conflicts", "-n", ""], "no board sizes"),
        (["-s", "min-conflicts", "-n", "0,8"], "at least 1"),
        (["-s", "min-conflicts", "-n", "4..x"], "cannot read size range"),
        (["-s", "min-conflicts", "-n", "9..4"], "empty"),
        (["-s", "min-conflicts", "-n", "4..8:0"], "step"),
        (["-s", "min-confl", "-n", "8"], "unknown solver"),
        (["-s", "min-conflicts[speed=3]", "-n", "8"], "no option"),
        (["-s", "min-conflicts", "-n", "8", "--out", "/proc/nqueens/results.jsonl"], "does not exist"),
        (["-s", "min-conflicts", "-n", "8", "--resume"], "--resume needs --out"),
        (["-s", "min-conflicts,min-conflicts", "-n", "8"], "named twice"),
    ],
)
def test_compare_bad_input(run_cli, args: list[str], words: str) -> None:
    code, _, err = run_cli("compare", *args)
    assert code == 2 and err.count("\n") == 1 and words in err, err


def test_report_reads_files_and_reports_bad_lines(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "r.jsonl"
    nq.compare(["construction", "min-conflicts"], [8, 9], trials=2, out=out)
    lines = out.read_text().splitlines()
    lines.insert(3, "this is not json")
    out.write_text("\n".join(lines) + "\n")
    for fmt in ("table", "markdown", "csv", "json"):
        code, text, err = run_cli("report", str(out), "--format", fmt)
        assert code == 0
        assert "r.jsonl:4: malformed line; skipped" in err
        assert "construction" in text and "min-conflicts" in text
    summary = json.loads(run_cli("report", str(out), "--format", "json")[1])
    assert {(row["solver"], row["n"], row["runs"], row["solved"]) for row in summary} == {
        ("construction", 8, 2, 2),
        ("construction", 9, 2, 2),
        ("min-conflicts", 8, 2, 2),
        ("min-conflicts", 9, 2, 2),
    }
    alien = tmp_path / "alien.jsonl"
    alien.write_text('{"hello": "world"}\n')
    code, _, err = run_cli("report", str(alien))
    assert code == 2 and "not an nqueens results file" in err
    code, _, err = run_cli("report", str(tmp_path / "missing.jsonl"))
    assert code == 2 and "does not exist" in err


def test_plot(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "r.jsonl"
    nq.compare(["construction", "min-conflicts"], [8, 16, 32], trials=2, out=out)
    code, _, err = run_cli("plot", str(out), "-o", str(tmp_path / "fig.png"))
    assert code == 0, err
    assert (tmp_path / "fig.png").stat().st_size > 10_000
    code, _, err = run_cli("plot", str(out), "-o", str(tmp_path / "fig.txt"))
    assert code == 2 and ".png" in err


def test_wilson_interval() -> None:
    from nqueens_plugins.results.statistics import wilson_interval

    low, high = wilson_interval(0, 10)
    assert low == 0.0 and 0.27 < high < 0.28
    low, high = wilson_interval(5, 10)
    assert 0.23 < low < 0.24 and 0.76 < high < 0.77
