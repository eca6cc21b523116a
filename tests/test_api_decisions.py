"""What `count`, `report`, `plot` and `cross-check` decide is the API's (issue 38, the plumbing): a Python
user gets the same decisions the command makes, and the command only asks, renders and exits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import nqueens_plugins as nq
from nqueens_plugins import api, cli
from nqueens_plugins.core.problem import Problem
from nqueens_plugins.formats.records import environment
from nqueens_plugins.results.crosscheck import Check, InstanceCheck, Verdict, judge_instance, tally

PACKAGE = Path(nq.__file__).parent


def test_count_plan_decides_whether_to_ask_and_how_many_workers() -> None:
    long = api.count_plan("bitboard", 20)
    assert long.long and long.needs_confirmation and long.jobs == 1  # one task: one worker
    assert not api.count_plan("bitboard", 20, limits=nq.Limits(timeout=5)).needs_confirmation
    assert not api.count_plan("bitboard", 20, blocked="0:0").long  # an instance's time is the instance's
    assert not api.count_plan("bitboard", cli.COUNT_CONFIRM_FROM - 1).long
    assert cli.COUNT_CONFIRM_FROM == api.COUNT_CONFIRM_FROM  # --help's number is the API's
    # Split into pieces counted by every worker: to show progress, to keep pieces, on a cluster.
    assert api.count_plan("bitboard", 12, progress=True).jobs == 0
    assert api.count_plan("bitboard", 12, out="pieces.jsonl").jobs == 0
    assert api.count_plan("bitboard", 12, kind="dask").jobs == 0
    # No estimate (bitset-mrv has none) is said as such, never a made-up figure.
    none = api.count_plan("bitset-mrv", 20)
    assert none.seconds is None and none.how_long is None
    assert none.describe() == "counting n = 20 (39,029,188,884 solutions) would take days or more with bitset-mrv"


def test_a_count_plan_whose_estimate_raises_still_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The estimate runs plugin code in this process: whatever it raises, the count is still planned."""

    def broken(*args: object, **kwargs: object) -> float:
        raise RuntimeError("the plugin's estimate broke")

    monkeypatch.setattr(api, "count_seconds", broken)
    plan = api.count_plan("bitboard", 20)
    assert plan.seconds is None and "would take days or more" in plan.describe()


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("decisions") / "runs.jsonl"
    nq.compare(["min-conflicts", "backtracking"], [6, 8], trials=2, out=str(out), limits=nq.Limits(timeout=5))
    return out


def test_report_and_plot_reach_python_as_the_command_makes_them(results: Path, tmp_path: Path, run_cli) -> None:
    code, out, _ = run_cli("report", str(results), "--format", "markdown")
    assert code == 0 and api.report(results, format="markdown", notify=print).strip() == out.strip()
    with pytest.raises(nq.BadInput, match="give -o"):
        api.report(results, format="html")
    page = tmp_path / "r.html"
    written = api.report(results, format="html", output=page, notify=print)
    assert page.read_text() == written and "<h1>nqueens report: runs.jsonl</h1>" in written
    table = tmp_path / "r.txt"
    assert api.report(results, output=table, notify=print) == table.read_text() and "min-conflicts" in table.read_text()
    figure = tmp_path / "f.svg"
    assert api.plot(results, figure, notify=print) == figure and figure.read_text().lstrip().startswith("<?xml")


def test_a_file_with_no_runs_is_refused_after_its_warnings_are_told(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps(environment("test")) + "\nnot json\n")
    heard: list[str] = []
    with pytest.raises(nq.BadInput, match="holds no runs to report"):
        api.report(empty, notify=heard.append)
    assert heard and heard[0].startswith("warning: ") and heard[0].endswith(":2: malformed line; skipped")
    heard.clear()
    with pytest.raises(nq.BadInput, match="no runs to plot"):
        api.plot(empty, tmp_path / "f.png", notify=heard.append)
    assert heard and heard[0].startswith("warning: ") and heard[0].endswith(":2: malformed line; skipped")


def test_verdicts_are_an_enum_whose_json_is_the_words() -> None:
    undecided = judge_instance(Problem(8, blocked=frozenset({(0, 0)})), [], {}, None)
    assert undecided.verdict is Verdict.UNDECIDED and undecided.verdict.inconclusive
    assert json.loads(json.dumps(undecided.to_dict()))["verdict"] == "undecided"
    assert not Verdict.SATISFIABLE.inconclusive and not Verdict.DISAGREEMENT.inconclusive
    wrong = InstanceCheck("x", "id", 8, Verdict.DISAGREEMENT)
    timed_out = Check(8, "s", "count", "timed-out", "92", True, "inconclusive: limit")
    assert tally([undecided, wrong]) == (2, 1, 1)
    assert tally([timed_out, Check(8, "s", "solve", "solved", "solvable", True)]) == (2, 0, 1)


def test_one_loading_pipeline_for_results_files() -> None:
    """Reading a results file for its runs (validated, time limits filled in) is written once."""
    users = [
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if "with_time_limits(" in path.read_text()
    ]
    assert users == ["formats/records.py"], users
    assert "Loaded()" not in (PACKAGE / "cli.py").read_text()
