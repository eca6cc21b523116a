"""Results people can read: censored statistics, baselines, sweeps, notebooks, the HTML report."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from browser import needs_chromium, render_in_chromium

import nqueens_plugins as nq
from nqueens_plugins.core.solver import expand_sweep
from nqueens_plugins.formats.records import environment
from nqueens_plugins.formats.run_record import RunRecord
from nqueens_plugins.results.statistics import Runs, censored_quantile, compare_to_baseline, ert, par


def run_record(
    solver: str,
    seconds: float,
    solved: bool,
    iterations: int = 10,
    n: int = 8,
    seed: int = 0,
    timeout: float | None = 2.0,
    version: str = "1.0",
    trial: int = 0,
) -> dict:
    return {
        "type": "run",
        "solver": solver,
        "name": solver,
        "options": {},
        "seed": seed,
        "trial": trial,
        "n": n,
        "status": "solved" if solved else "timed-out",
        "verified": True if solved else None,
        "reason": None,
        "queens": None,
        "iterations": iterations,
        "moves": iterations,
        "counters": {},
        "seconds": seconds,
        "fixed": {},
        "blocked": [],
        "instance": "x",
        "source": None,
        "timeout": timeout,
        "version": version,
    }


def write_results(path: Path, records: list[dict]) -> Path:
    header = environment("test") | {"grid": {"seed": 0, "timeout": 2.0}}
    path.write_text("\n".join(json.dumps(item) for item in [header, *records]) + "\n")
    return path


# --- the definitions, against values computed by hand ----------------------------


def test_ert_par10_and_censored_quantiles_by_hand() -> None:
    # Five runs, limit 2 s: solved in 1, 3 and 0.5 s... no: solved in 1.0, 0.5, 1.5 s; two stopped at 2.0 s.
    runs = Runs.of([1.0, 2.0, 0.5, 2.0, 1.5], [100, 400, 50, 400, 150], [True, False, True, False, True], limit=2.0)
    assert ert(runs.seconds, runs.succeeded) == pytest.approx((1.0 + 2.0 + 0.5 + 2.0 + 1.5) / 3)  # 7/3
    assert ert(runs.iterations, runs.succeeded) == pytest.approx(1100 / 3)
    assert par(runs) == pytest.approx((1.0 + 20.0 + 0.5 + 20.0 + 1.5) / 5)  # 8.6
    # time-to-solve sorted: 0.5, 1.0, 1.5, inf, inf -> median 1.5, first quartile 1.0, third quartile censored
    assert censored_quantile(runs, 0.5) == 1.5
    assert censored_quantile(runs, 0.25) == 1.0
    assert censored_quantile(runs, 0.75) == math.inf
    three_unsolved = Runs.of([0.1, 2.0, 2.0, 2.0], [1, 1, 1, 1], [True, False, False, False], limit=2.0)
    assert censored_quantile(three_unsolved, 0.5) == math.inf  # the median itself is censored
    nothing = Runs.of([2.0, 2.0], [5, 5], [False, False], limit=2.0)
    assert ert(nothing.seconds, nothing.succeeded) == math.inf
    assert par(Runs.of([1.0], [1], [True], limit=None)) is None  # no limit, no PAR-10


def test_the_table_shows_censored_figures_as_more_than_the_limit(tmp_path: Path, run_cli) -> None:
    seconds = [0.1, 2.0, 2.0, 2.0]
    results = write_results(
        tmp_path / "runs.jsonl", [run_record("slow", s, s < 1, trial=i) for i, s in enumerate(seconds)]
    )
    code, out, err = run_cli("report", str(results), "--format", "json")
    (row,) = json.loads(out)
    assert code == 0, err
    assert row["median_seconds"] is None and row["q25_seconds"] == pytest.approx(0.1) and row["time_limit"] == 2.0
    assert row["ert_seconds"] == pytest.approx(6.1) and row["par10_seconds"] == pytest.approx((0.1 + 60) / 4)
    code, out, _ = run_cli("report", str(results), "--format", "markdown")
    assert "| > 2 |" in out and "0.1000 - > 2" in out


def test_report_streams_old_files_taking_the_limit_from_the_header(tmp_path: Path, run_cli) -> None:
    records = [run_record("a", 0.5, True, trial=0), run_record("a", 2.0, False, trial=1)]
    for record in records:
        del record["timeout"]  # written before records carried their limit
    code, out, _ = run_cli("report", str(write_results(tmp_path / "old.jsonl", records)), "--format", "json")
    (row,) = json.loads(out)
    assert code == 0 and row["time_limit"] == 2.0 and row["par10_seconds"] == pytest.approx((0.5 + 20) / 2)


def test_mixed_seeds_and_versions_are_said_and_not_pooled(tmp_path: Path, run_cli) -> None:
    records = [
        run_record("a", 0.1, True, seed=1),
        run_record("a", 0.2, True, seed=2, trial=1),
        run_record("b", 0.1, True, version="1.0"),
        run_record("b", 0.3, True, version="2.0", trial=1),
    ]
    code, out, err = run_cli("report", str(write_results(tmp_path / "mixed.jsonl", records)), "--format", "json")
    rows = json.loads(out)
    assert code == 0
    assert "seeds 0, 1, 2" in err and "each seed is summarised apart" in err and "mixes versions of b" in err
    assert sorted((row["solver"], row["seed"], row["version"], row["runs"]) for row in rows) == [
        ("a", 1, None, 1),
        ("a", 2, None, 1),
        ("b", 0, "1.0", 1),
        ("b", 0, "2.0", 1),
    ]


# --- is A better than B? ---------------------------------------------------------


def test_a_clearly_faster_variant_is_significantly_faster_and_a_copy_is_not() -> None:
    rng = np.random.default_rng(0)
    slow = Runs.of(rng.uniform(1.0, 1.9, 30), np.full(30, 10), np.ones(30, bool), limit=2.0)
    fast = Runs.of(rng.uniform(0.01, 0.1, 30), np.full(30, 10), np.ones(30, bool), limit=2.0)
    compared = compare_to_baseline(fast, slow)
    assert compared.verdict() == "faster (both tests)" and compared.p_value is not None and compared.p_value < 1e-6
    assert compared.ratio_low is not None and compared.ratio_high is not None
    assert compared.ratio_low <= compared.ert_ratio <= compared.ratio_high < 1
    same = compare_to_baseline(slow, slow)
    assert same.verdict() == "no significant difference (both tests)" and same.ert_ratio == pytest.approx(1.0)


def test_censored_runs_rank_above_every_solved_one() -> None:
    # b solves nothing within the limit: a is faster although its times are not small.
    a = Runs.of([1.5] * 10, [1] * 10, [True] * 10, limit=2.0)
    b = Runs.of([2.0] * 10, [1] * 10, [False] * 10, limit=2.0)
    compared = compare_to_baseline(a, b)
    # no ERT interval (b's ERT is infinite): the verdict is the rank test's, and says so
    assert compared.significant and compared.verdict() == "faster (Mann-Whitney)" and compared.ert_ratio == 0.0


def test_a_verdict_names_its_test_and_says_when_the_two_disagree() -> None:
    # Half the variant's runs are far faster than the baseline's, half a little slower: the ranks
    # balance (Mann-Whitney finds nothing) while the ERT, a mean, is about half: its interval excludes 1.
    rng = np.random.default_rng(1)
    baseline = Runs.of(rng.uniform(0.99, 1.01, 10), np.ones(10), np.ones(10, bool), limit=10.0)
    variant = Runs.of([0.01] * 5 + [1.05] * 5, np.ones(10), np.ones(10, bool), limit=10.0)
    compared = compare_to_baseline(variant, baseline)
    assert compared.ratio_high is not None and compared.ratio_high < 1 and compared.p_value is not None
    assert compared.p_value > 0.5
    assert compared.verdict() == "unclear: ERT interval says faster, Mann-Whitney finds no difference"
    # and the other way round: the interval includes 1 while the ranks lean hard one way
    slower = Runs.of([1.02] * 9 + [0.2], np.ones(10), np.ones(10, bool), limit=10.0)
    against = compare_to_baseline(slower, Runs.of([1.0] * 9 + [4.0], np.ones(10), np.ones(10, bool), limit=10.0))
    assert against.ratio_low is not None and against.ratio_low < 1 < (against.ratio_high or 0), against
    assert against.verdict() == "unclear: ERT interval includes 1, Mann-Whitney says slower", against
    nobody = Runs.of([2.0, 2.0], [1, 1], [False, False], limit=2.0)
    assert compare_to_baseline(nobody, nobody).verdict() == "neither decided any run"


def test_a_censored_median_says_how_the_runs_ended_not_always_more_than_the_limit(tmp_path: Path, run_cli) -> None:
    def stopped(solver: str, status: str, seconds: float, trial: int) -> dict:
        return run_record(solver, seconds, False, timeout=10.0, trial=trial) | {"status": status}

    records = [run_record(name, 0.1, True, timeout=10.0, trial=0) for name in ("quitter", "slow", "mixed")]
    for trial in range(1, 4):  # three of four runs did not decide: the median and third quartile fall on them
        records.append(stopped("quitter", "gave-up", 0.8, trial))  # gave up after 0.8 s: not "> 10"
        records.append(stopped("slow", "timed-out", 10.0, trial))  # ran to the limit: "> 10" is true
        records.append(stopped("mixed", "gave-up" if trial == 1 else "timed-out", 5.0, trial))
    code, out, err = run_cli("report", str(write_results(tmp_path / "runs.jsonl", records)), "--format", "markdown")
    assert code == 0, err
    summary = out.split("\n\n")[0]  # the comparison; the portfolio table follows it
    cells = {line.split(" | ")[0].strip("| "): line.split(" | ") for line in summary.splitlines()[2:]}
    header = out.splitlines()[0].split(" | ")
    median, quartiles = header.index("median s"), header.index("quartiles s")
    assert cells["quitter"][median] == "gave up" and cells["quitter"][quartiles] == "0.1000 - gave up"
    assert cells["slow"][median] == "> 10" and cells["slow"][quartiles] == "0.1000 - > 10"
    assert cells["mixed"][median] == "undecided"
    (row,) = [r for r in nq.summary(records).rows if r.solver == "quitter"]
    assert row.median_seconds is None and row.undecided_end == "gave-up"


def test_baseline_command(tmp_path: Path, run_cli) -> None:
    records = [run_record("fast", 0.01 * (i + 1), True, trial=i) for i in range(12)]
    records += [run_record("slow", 1.0 + 0.05 * i, True, trial=i) for i in range(12)]
    results = write_results(tmp_path / "runs.jsonl", records)
    code, out, err = run_cli("report", str(results), "--baseline", "slow", "--format", "json")
    assert code == 0, err
    (row,) = json.loads(out)["rows"]
    assert row["solver"] == "fast" and row["verdict"] == "faster (both tests)" and row["ert_ratio"] < 0.1
    code, _, err = run_cli("report", str(results), "--baseline", "medium")
    assert code == 2 and "baseline 'medium' is not in the file; it holds fast, slow" in err and err.count("\n") == 1


# --- parameter sweeps -------------------------------------------------------------


def test_a_sweep_expands_to_every_combination() -> None:
    specs = expand_sweep("simulated-annealing[cooling=0.9|0.95|0.99,t0=8|64]")
    assert len(specs) == 6 and specs[0] == "simulated-annealing[cooling=0.9,t0=8]"
    assert specs[-1] == "simulated-annealing[cooling=0.99,t0=64]"
    assert expand_sweep("min-conflicts") == ["min-conflicts"]
    from nqueens_plugins.loading import host

    labels = [
        v.label for v in host.registry().variants("simulated-annealing[cooling=0.9|0.95|0.99,t0=8|64],min-conflicts")
    ]
    assert len(set(labels)) == 7 and "simulated-annealing[t0=64.0,cooling=0.99]" in labels


def test_the_api_takes_sweeps_too() -> None:
    records = nq.compare(["steepest-ascent[sideways=0|5]"], [6], trials=2)
    assert sorted({r["solver"] for r in records}) == ["steepest-ascent[sideways=0]", "steepest-ascent[sideways=5]"]


@pytest.mark.parametrize(
    "spec, words",
    [
        ("simulated-annealing[cooling=0.9|fast]", "takes a number, not 'fast'"),
        ("simulated-annealing[colling=0.9|0.5]", "has no option 'colling'"),
        ("simulated-annealing[cooling=0.9||0.5]", "has an empty alternative"),
        ("simulated-annealing[cooling=0.9|0.90]", "is named twice"),
    ],
)
def test_bad_sweeps_are_one_line(run_cli, spec: str, words: str) -> None:
    code, _, err = run_cli("compare", "-s", spec, "-n", "6")
    assert code == 2 and words in err and err.count("\n") == 1


def test_solve_refuses_a_sweep(run_cli) -> None:
    code, _, err = run_cli("solve", "-s", "simulated-annealing[cooling=0.9|0.5]", "-n", "8")
    assert code == 2 and "is a sweep of several variants" in err


# --- notebooks --------------------------------------------------------------------


def test_a_result_draws_itself_in_a_notebook() -> None:
    result = nq.solve("min-conflicts", 8, limits=nq.Limits(seed=2))
    svg = result._repr_svg_()
    assert svg is not None and svg.startswith("<svg") and svg.count("<circle") == 8 and 'class="attacked"' not in svg
    stuck = nq.solve("steepest-ascent", 8, limits=nq.Limits(seed=0))
    assert stuck.status == "gave-up" and stuck.queens is not None
    assert stuck._repr_svg_() is None  # a board that is not an answer is not drawn as one: the repr says how it ended
    assert nq.solve("construction", 1000)._repr_svg_() is None  # too large to draw: the plain repr


def test_records_become_a_dataframe(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    records = nq.compare(["min-conflicts", "backtracking"], [6, 8], trials=2, out=str(out))
    for source in (records, out):
        frame = nq.records_frame(source)
        assert frame.shape[0] == 8 and {"solver", "n", "seconds", "counters.initial_conflicts"} <= set(frame.columns)
        assert frame.groupby("solver").size().to_dict() == {"backtracking": 4, "min-conflicts": 4}


# --- plots and the HTML report ------------------------------------------------------


@pytest.fixture(scope="module")
def comparison(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "runs.jsonl"
    nq.compare(
        ["min-conflicts", "steepest-ascent", "backtracking"],
        [6, 8, 10],
        trials=4,
        out=str(out),
        limits=nq.Limits(timeout=5),
    )
    return out


def test_nq_summary_is_the_reports_rows_as_one_object(comparison: Path, run_cli) -> None:
    """nq.summary: the rows `nqueens report --format json` prints, from the file or from records, shown as
    tables in a notebook, with the baseline's rows and the plot's figure."""
    code, out, _ = run_cli("report", str(comparison), "--format", "json")
    assert code == 0
    summary = nq.summary(comparison, baseline="min-conflicts")
    assert summary.to_dicts() == json.loads(out)
    assert nq.summary(nq.records_frame(comparison).to_dict("records")).to_dicts() == json.loads(out)
    assert {(row.solver, row.n) for row in summary.baseline_rows} == {
        (solver, n) for solver in ("steepest-ascent", "backtracking") for n in (6, 8, 10)
    }
    html = summary._repr_html_()
    assert html.count("<table>") == 2 and "against <b>min-conflicts</b>" in html
    assert summary.figure()._repr_svg_().startswith("<svg")
    assert "| min-conflicts | 8 |" in str(summary)
    with pytest.raises(nq.BadInput, match="baseline 'anneal' is not in the file"):
        nq.summary(comparison, baseline="anneal")
    with pytest.raises(nq.BadInput, match="no runs to summarise"):
        nq.summary([])


@pytest.mark.parametrize("suffix", [".png", ".svg", ".pdf"])
def test_plots_take_their_format_from_the_extension(comparison: Path, tmp_path: Path, run_cli, suffix: str) -> None:
    target = tmp_path / f"figure{suffix}"
    code, _, err = run_cli("plot", str(comparison), "-o", str(target))
    magic = {".png": b"\x89PNG", ".svg": b"<?xml", ".pdf": b"%PDF"}[suffix]
    assert code == 0 and target.read_bytes().startswith(magic), err


def test_html_report_is_one_self_contained_file(comparison: Path, tmp_path: Path, run_cli) -> None:
    page = tmp_path / "report.html"
    code, out, err = run_cli(
        "report", str(comparison), "--format", "html", "-o", str(page), "--baseline", "backtracking"
    )
    assert code == 0 and "wrote" in out, err
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>")
    for fetched in ("<script", "<link", "<img", "<iframe", "@import", 'src="', "url(http", 'href="http'):
        assert fetched not in html  # nothing is loaded from anywhere: namespaces are names, not addresses
    assert "Provenance" in html and "ERT" in html and "PAR-10" in html and "Against backtracking" in html
    assert html.count("<svg") >= 2  # the figure and at least one board
    assert "run-time distribution, n = 8" in html


def test_every_solver_that_solved_a_board_has_one_drawn_or_a_line_saying_why_not() -> None:
    """Seven solvers were once six boards: each that solved something is drawn (up to BOARDS_SHOWN), or named
    with the reason (its boards too large, its queens not kept, the page full); one that solved nothing is not."""
    from nqueens_plugins.results.summary import group_runs
    from nqueens_plugins.views.html_report import BOARDS_SHOWN, LARGEST_BOARD_SHOWN, render_html, sample_boards

    eight = [0, 4, 7, 5, 2, 6, 1, 3]
    drawn = [f"solver-{index}" for index in range(BOARDS_SHOWN + 2)]  # two more than the page draws
    records = [run_record(solver, 0.01, True, n=8) | {"queens": eight} for solver in drawn]
    large = LARGEST_BOARD_SHOWN + 2
    records += [run_record("large-only", 0.01, True, n=large) | {"queens": list(range(large))}]
    records += [run_record("unkept", 0.01, True, n=8) | {"queens": None}]
    records += [run_record("unsolved", 0.01, False, n=8) | {"queens": eight}]
    records += [run_record("late", 0.01, True, n=large) | {"queens": list(range(large))}]
    records += [run_record("late", 0.01, True, n=8, trial=1) | {"queens": eight}]  # a small board after a large
    kept: list[dict[str, object]] = []
    groups, _ = group_runs(sample_boards(map(RunRecord.given, records), kept))
    boards = {board["solver"]: board for board in kept}
    assert set(boards) == {*drawn, "large-only", "unkept", "late"}  # "unsolved" solved nothing
    assert sum("why" not in board for board in kept) == BOARDS_SHOWN
    assert "too large" not in boards["late"].get("why", "")  # its small board, or the page being full
    page = render_html("runs.jsonl", [], groups, [], kept)
    for solver in boards:
        caption = f"<figcaption>{solver}, n = "
        line = f"{solver}: no board shown: "
        assert (caption in page) != (line in page), solver  # one or the other, never both, never neither
    assert f"large-only: no board shown: its solved boards are all larger than {LARGEST_BOARD_SHOWN}x" in page
    assert "unkept: no board shown: its queens are not kept in the file" in page
    assert "unsolved" not in page.split("Some verified boards")[1].split("<h2>")[0]


def test_a_board_the_file_calls_verified_is_checked_again_before_it_is_drawn() -> None:
    """ "verified" is the file's word: a forged record's attacking queens are named, not drawn as an answer."""
    from nqueens_plugins.results.summary import group_runs
    from nqueens_plugins.views.html_report import render_html, sample_boards

    records = [run_record("forger", 0.01, True, n=8) | {"queens": list(range(8))}]
    kept: list[dict[str, object]] = []
    groups, _ = group_runs(sample_boards(map(RunRecord.given, records), kept))
    page = render_html("runs.jsonl", [], groups, [], kept)
    assert "<figcaption>forger, n = " not in page
    assert "forger: no board shown: the file calls its board verified, but it is not a solution (" in page


def test_html_report_bad_output_is_one_line(comparison: Path, tmp_path: Path, run_cli) -> None:
    code, _, err = run_cli("report", str(comparison), "--format", "html")
    assert code == 2 and "give -o" in err
    blocker = tmp_path / "a-file"
    blocker.write_text("a file where a folder would have to be")
    code, _, err = run_cli("report", str(comparison), "--format", "html", "-o", str(blocker / "r.html"))
    assert code == 2 and "is not a folder" in err and err.count("\n") == 1
    code, _, err = run_cli("plot", str(comparison), "-o", str(blocker / "r.png"))
    assert code == 2 and "is not a folder" in err and err.count("\n") == 1


@needs_chromium
def test_html_report_renders_in_chromium(comparison: Path, tmp_path: Path, run_cli) -> None:
    page = tmp_path / "report.html"
    assert run_cli("report", str(comparison), "--format", "html", "-o", str(page))[0] == 0
    pixels, console = render_in_chromium(page, 1280, 2400)
    not_white = (pixels < 0.95).any(axis=2).mean()
    assert not_white > 0.05 and pixels.std() > 0.05  # text, tables, the figure and boards, not a blank page
    assert not console, console


def test_the_legend_sits_outside_every_panel(comparison: Path) -> None:
    """Below the panels, never inside one: in the decided panel it covered the plotted bands."""
    from nqueens_plugins.api import grouped
    from nqueens_plugins.results.summary import group_runs
    from nqueens_plugins.views.plot import build_figure, pyplot

    plt = pyplot()
    by_instance = []
    for source in ("diag-10-4-1.param@2", "blockedqueens.28.1449787894.param"):
        for solver in ("bitset-mrv", "min-conflicts"):
            by_instance.append(run_record(solver, 0.01, True, n=10) | {"source": source})
    for groups in (grouped(comparison).groups, group_runs(by_instance)[0]):
        figure = build_figure(groups, plt)
        figure.draw_without_rendering()
        renderer = figure._get_renderer()
        assert len(figure.legends) == 1 and not any(axis.get_legend() for axis in figure.axes)
        legend = figure.legends[0].get_window_extent(renderer)
        for axis in figure.axes:
            assert not legend.overlaps(axis.get_window_extent(renderer)), axis.get_title()
        assert legend.y1 <= min(axis.get_window_extent(renderer).y0 for axis in figure.axes)  # below them all
        plt.close(figure)


def test_an_instance_family_is_plotted_against_its_parameter() -> None:
    from nqueens_plugins.results.summary import group_runs
    from nqueens_plugins.views.plot import svg_figure

    records = []
    for d in (2, 4, 6):
        for trial in range(3):
            record = run_record("bitset-mrv", 0.01 * d, True, trial=trial, n=10)
            record["source"] = f"diag-10-4-1.param@{d}"
            records.append(record)
    groups, _ = group_runs(records)
    assert {group.family for group in groups.values()} == {
        ("excluded diagonals d", 2),
        ("excluded diagonals d", 4),
        ("excluded diagonals d", 6),
    }
    assert "excluded diagonals d" in svg_figure(groups)


def test_drawing_a_figure_leaves_the_callers_matplotlib_as_it_was(tmp_path: Path) -> None:
    """A notebook's inline backend stays on: the figures are made without pyplot's global state."""
    import subprocess
    import sys

    script = tmp_path / "backend.py"
    script.write_text(
        "import matplotlib\n"
        "matplotlib.use('svg')  # stands for a notebook's inline backend\n"
        "import matplotlib.pyplot as plt\n"
        "from nqueens_plugins.results.summary import group_runs\n"
        "from nqueens_plugins.views.plot import svg_figure\n"
        "import nqueens_plugins as nq\n"
        "groups, _ = group_runs(nq.compare(['min-conflicts'], [8], trials=2))\n"
        "assert svg_figure(groups).startswith('<svg')\n"
        "print(matplotlib.get_backend(), len(plt.get_fignums()))\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["svg", "0"]


def test_without_scipy_the_baseline_says_what_to_install(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "scipy", None)  # as if not installed: importing it raises ImportError
    results = write_results(tmp_path / "runs.jsonl", [run_record("a", 0.1, True), run_record("b", 0.2, True, trial=1)])
    code, _, err = run_cli("report", str(results), "--baseline", "a")
    # The hint names what to install, not an extra of a project no package index has.
    assert code == 2 and "pip install 'matplotlib>=3.8' 'scipy>=1.11'" in err and err.count("\n") == 1
    with pytest.raises(nq.BadInput, match="scipy"):
        nq.summary(results, baseline="a")
