"""``--time cpu|wall`` (issue 55, item 2): which seconds ERT, PAR-10, the quartiles and the portfolio rank runs by.

Wall by default, exactly as before (the golden outputs, ``test_golden_outputs.py``, keep that byte for byte).
Under ``cpu`` each run's ``cpu_seconds`` stands in for its wall ``seconds``; the limit stays its wall
``timeout``. A run that did not decide and has no CPU figure counts at its limit; one that decided without it
cannot be ranked by CPU, and the file is refused in one line rather than ranked on the two clocks mixed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import nqueens_plugins as nq
from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.results.summary import CPU_TIME_LINE

GOLDEN = Path(__file__).parent / "data" / "golden" / "results"
# Two solvers' runs as (wall, CPU) seconds: on the wall clock min-conflicts is the faster, on the CPU backtracking
# (a run that waited off the CPU beside one that used two cores, as docs/measurement.md describes).
TIMES = {"backtracking": [(2.0, 0.5), (2.0, 0.5)], "min-conflicts": [(1.0, 1.5), (1.0, 1.5)]}


def compared(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Real records of both solvers (``nq.compare``'s own file): its header, and its runs."""
    nq.compare(sorted(TIMES), [8], trials=2, out=str(path))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    runs = [line for line in lines if line.get("type") == "run"]
    assert len(runs) == 4 and all(run["status"] == "solved" and run["record_version"] == 3 for run in runs)
    return lines[0], runs


def written(path: Path, header: dict[str, Any], runs: list[dict[str, Any]]) -> Path:
    path.write_text("\n".join(json.dumps(line) for line in [header, *runs]) + "\n")
    return path


def opposite(tmp_path: Path) -> tuple[Path, dict[str, Any], list[dict[str, Any]]]:
    """A file where wall and CPU seconds rank the two solvers oppositely."""
    header, runs = compared(tmp_path / "compared.jsonl")
    taken = {solver: iter(times) for solver, times in TIMES.items()}
    for run in runs:
        run["seconds"], run["cpu_seconds"] = next(taken[run["solver"]])
    return written(tmp_path / "opposite.jsonl", header, runs), header, runs


def erts(summary: Any) -> dict[str, float]:
    return {row.solver: row.ert_seconds for row in summary.rows}


def test_wall_and_cpu_rank_two_solvers_oppositely(run_cli: Any, tmp_path: Path) -> None:
    path, _, _ = opposite(tmp_path)
    wall, cpu = erts(nq.summary(path)), erts(nq.summary(path, time="cpu"))
    assert wall == {"backtracking": 2.0, "min-conflicts": 1.0}
    assert cpu == {"backtracking": 0.5, "min-conflicts": 1.5}
    assert erts(nq.summary(path, time="wall")) == wall
    rows = {row.solver: row for row in nq.summary(path, time="cpu").rows}
    assert rows["backtracking"].median_seconds == 0.5 and rows["min-conflicts"].par10_seconds == 1.5
    for time, faster in (("wall", "min-conflicts"), ("cpu", "backtracking")):
        code, out, err = run_cli("report", str(path), "--json", "--time", time)
        assert code == 0, err
        shown = {row["solver"]: row["ert_seconds"] for row in json.loads(out)}
        assert min(shown, key=lambda solver: shown[solver]) == faster


def test_the_report_says_which_seconds_it_shows(tmp_path: Path) -> None:
    path, _, _ = opposite(tmp_path)
    assert CPU_TIME_LINE in nq.report(path, format="markdown", time="cpu")
    assert CPU_TIME_LINE not in nq.report(path, format="markdown")
    assert nq.report(path, format="markdown", time="wall") == nq.report(path, format="markdown")
    assert f"note: {CPU_TIME_LINE}" in str(nq.summary(path, time="cpu"))
    heard: list[str] = []
    nq.report(path, format="csv", time="cpu", notify=heard.append)
    assert heard == [f"note: {CPU_TIME_LINE}"]


def test_an_undecided_run_without_cpu_seconds_counts_at_its_limit(tmp_path: Path) -> None:
    path, header, runs = opposite(tmp_path)
    last = [run for run in runs if run["solver"] == "min-conflicts"][-1]
    killed = dict(last, status="timed-out", verified=None, queens=None, seconds=10.0, cpu_seconds=None)
    assert killed["timeout"] == 10.0
    path = written(tmp_path / "killed.jsonl", header, [*runs, killed])
    rows = {row.solver: row for row in nq.summary(path, time="cpu").rows}
    assert rows["min-conflicts"].ert_seconds == pytest.approx((1.5 + 1.5 + 10.0) / 2)


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("*.jsonl")))
def test_a_file_before_version_3_is_refused_in_one_line(run_cli: Any, name: str) -> None:
    code, out, err = run_cli("report", str(GOLDEN / name), "--time", "cpu")
    assert code == 2 and not out
    assert err.count("\n") == 1 and err.startswith("nqueens: error: --time cpu: ")
    assert "without cpu_seconds" in err and "--time wall" in err
    with pytest.raises(BadInput, match="without cpu_seconds"):
        nq.summary(GOLDEN / name, time="cpu")


def test_one_decided_run_without_cpu_seconds_refuses_the_file_and_says_how_many(tmp_path: Path) -> None:
    path, header, runs = opposite(tmp_path)
    runs[0]["cpu_seconds"] = None
    path = written(tmp_path / "one.jsonl", header, runs)
    with pytest.raises(BadInput, match=r"--time cpu: 1 of the 4 runs decided"):
        nq.report(path, time="cpu")
    nq.report(path)  # the wall clock ranks it as before


def test_a_time_that_is_neither_is_one_line(run_cli: Any) -> None:
    code, out, err = run_cli("report", str(GOLDEN / "plain.jsonl"), "--time", "gpu")
    assert code == 2 and not out
    assert err.count("\n") == 1 and err.startswith("nqueens: error: ") and "'gpu'" in err
    with pytest.raises(BadInput, match="time is one of wall, cpu, not 'gpu'"):
        nq.summary(GOLDEN / "plain.jsonl", time="gpu")
    with pytest.raises(BadInput, match="time is one of wall, cpu"):
        nq.report(GOLDEN / "plain.jsonl", time="gpu")


def past(solver: str, n: int, seconds: float, cpu: float) -> dict[str, Any]:
    """A solved run as the portfolio's tests write one, with its CPU seconds (record version 3)."""
    return {
        "type": "run", "record_version": 3, "solver": solver, "name": solver, "seed": 0, "trial": 0,
        "status": "solved", "verified": True, "seconds": seconds, "cpu_seconds": cpu, "n": n, "fixed": {},
        "blocked": [], "timeout": 100.0, "complete": True,
    }  # fmt: skip


def test_the_portfolio_and_select_score_by_the_time_chosen(run_cli: Any, tmp_path: Path) -> None:
    from nqueens_plugins.results.portfolio import portfolio
    from nqueens_plugins.results.summary import group_runs

    records = [past("a", n, 1.0, 4.0) for n in (10, 12)] + [past("b", n, 3.0, 2.0) for n in (10, 12)]
    for time, best, par in (("wall", "a", 1.0), ("cpu", "b", 2.0)):
        found = portfolio(group_runs(records, time=time)[0])
        assert found is not None
        rows = {row.solver: row for row in found.rows}
        assert rows["virtual best"].par == pytest.approx(par)
        assert rows[f"single best: {best}"].par == pytest.approx(par)
    learnt = []
    for n in range(10, 40):  # on the wall clock "small" is the faster on small boards; on the CPU the other
        small = n < 25
        learnt += [past("small", n, 1.0 if small else 10.0, 10.0 if small else 1.0)]
        learnt += [past("large", n, 10.0 if small else 1.0, 1.0 if small else 10.0)]
    assert nq.select(learnt, 12).solver == "small" and nq.select(learnt, 12, time="cpu").solver == "large"
    out = written(
        tmp_path / "learnt.jsonl", {"type": "header", "format": "nqueens-results", "format_version": 1}, learnt
    )
    code, shown, err = run_cli("select", str(out), "-n", "12", "--time", "cpu")
    assert code == 0 and shown.startswith("large"), err
    code, _, err = run_cli("select", str(out), "-n", "12", "--time", "cpu", "--schedule")
    assert code == 2 and err.count("\n") == 1 and "--schedule" in err
