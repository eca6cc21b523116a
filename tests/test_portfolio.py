"""The virtual best, the single best and the gap a portfolio closes (issue 42), on records whose answer is known."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nqueens_plugins as nq
from nqueens_plugins import api
from nqueens_plugins.formats.records import environment
from nqueens_plugins.results.portfolio import Portfolio, portfolio
from nqueens_plugins.results.summary import group_runs
from nqueens_plugins.views.report import plain_text, render_portfolio

LIMIT = 100.0


def run(solver: str, n: int, seconds: float, solved: bool = True, trial: int = 0) -> dict[str, Any]:
    return {
        "type": "run",
        "solver": solver,
        "name": solver,
        "seed": 0,
        "trial": trial,
        "status": "solved" if solved else "timed-out",
        "verified": True if solved else None,
        "seconds": seconds,
        "n": n,
        "fixed": {},
        "blocked": [],
        "timeout": LIMIT,
        "complete": True,
    }


def found(records: list[dict[str, Any]]) -> Portfolio | None:
    return portfolio(group_runs(records)[0])


def by_solver(result: Portfolio) -> dict[str, Any]:
    return {row.solver: row for row in result.rows}


def test_the_virtual_best_the_single_best_and_the_gap_closed() -> None:
    records = [run("a", 10, 1.0), run("a", 12, 10.0), run("b", 10, 5.0), run("b", 12, 2.0)]
    records += [run("race(a,b)", 10, 1.2), run("race(a,b)", 12, 2.4)]
    result = found(records)
    assert result is not None and result.instances == 2
    assert result.notes == ["no selector or schedule row: 2 instances, 10 needed to hold some out"]
    rows = by_solver(result)
    assert rows["virtual best"].par == pytest.approx(1.5)  # a on 10, b on 12
    assert rows["single best: b"].par == pytest.approx(3.5)  # b: (5 + 2) / 2 beats a: (1 + 10) / 2
    assert rows["race(a,b)"].gap_closed == pytest.approx((3.5 - 1.8) / (3.5 - 1.5))
    assert rows["a"].gap_closed == pytest.approx((3.5 - 5.5) / 2.0)  # worse than the single best: below 0
    assert rows["b"].gap_closed == pytest.approx(0.0)


@pytest.mark.parametrize(
    "a, b",
    [
        ((0.0010, 0.0013), (0.0012, 0.0011)),  # a few hundred microseconds apart: under GAP_MIN_SECONDS
        ((50.0, 60.0), (51.0, 49.0)),  # a second apart in fifty: under GAP_MIN_SHARE of the single best
    ],
)
def test_a_gap_too_narrow_to_mean_anything_is_a_dash_with_the_reason(
    a: tuple[float, float], b: tuple[float, float], tmp_path: Path
) -> None:
    """Not -4,500,077 %: where the single best is almost the virtual best, no row shows a share of the gap, and
    the table says why, in every format that shows it (the text table, Markdown, the HTML page)."""
    records = [run(solver, n, seconds) for solver, times in (("a", a), ("b", b)) for n, seconds in zip((10, 12), times)]
    result = found(records)
    assert result is not None and all(row.gap_closed is None for row in result.rows)
    assert result.notes[0].startswith("gap closed not shown: the single best")
    for shown in (plain_text(render_portfolio(result, "table")), render_portfolio(result, "markdown")):
        assert "%" not in "".join(
            line.split()[-1] for line in shown.splitlines() if line.strip().startswith(("a ", "| a"))
        )
        assert "gap closed not shown" in shown and "timing noise" in shown
    wide = found([run("a", 10, 1.0), run("a", 12, 10.0), run("b", 10, 5.0), run("b", 12, 2.0)])
    assert wide is not None and not any("gap closed not shown" in note for note in wide.notes)


def test_an_undecided_run_counts_twice_the_limit() -> None:
    result = found([run("a", 10, 1.0), run("a", 10, 3.0, solved=False, trial=1), run("b", 10, 50.0)])
    assert result is not None
    rows = by_solver(result)
    assert rows["a"].par == pytest.approx((1.0 + 2 * LIMIT) / 2) and rows["a"].decided == 0.5
    assert rows["virtual best"].par == pytest.approx(50.0)


def test_only_instances_every_single_solver_ran_are_compared() -> None:
    records = [run("a", 10, 1.0), run("b", 10, 2.0), run("a", 14, 0.1), run("race(a,b)", 14, 0.1)]
    result = found(records)
    assert result is not None and result.instances == 1
    assert any("1 instances left out" in note for note in result.notes)
    assert any("race(a,b) is not scored" in note for note in result.notes)
    assert "race(a,b)" not in by_solver(result)


def test_no_table_without_two_single_solvers_on_common_instances() -> None:
    assert found([run("a", 10, 1.0), run("race(a,b)", 10, 1.0)]) is None
    assert found([run("a", 10, 1.0), run("b", 12, 1.0)]) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0.001, 99.0), st.floats(0.001, 99.0), st.booleans()), min_size=1, max_size=8))
def test_the_virtual_best_is_never_worse_than_any_single_solver(times: list[tuple[float, float, bool]]) -> None:
    records = []
    for i, (a, b, b_solved) in enumerate(times):
        records += [run("a", 10 + i, a), run("b", 10 + i, b, solved=b_solved)]
    result = found(records)
    assert result is not None
    rows = by_solver(result)
    assert rows["virtual best"].par <= min(rows["a"].par, rows["b"].par) + 1e-9
    assert rows["virtual best"].par <= rows[next(r.solver for r in result.rows if r.kind == "single best")].par


def test_the_table_shows_the_ratio_to_the_virtual_best() -> None:
    result = found([run("a", 10, 1.0), run("b", 10, 4.0)])
    assert result is not None
    shown = plain_text(render_portfolio(result, "table"))
    assert "x VBS" in shown and "4.00" in shown and "single best: a" in shown
    assert "| b | 4.0000 | 4.00 | 100% |" in render_portfolio(result, "markdown")


def test_report_shows_the_portfolio_in_every_format_that_has_tables(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    nq.compare("bitset-mrv,min-conflicts", [8, 10], trials=2, out=out)
    assert "portfolio: mean PAR-2 over the 2 instances" in nq.report(str(out), format="markdown")
    assert "single best: bitset-mrv" in plain_text(nq.report(str(out)))
    page = nq.report(str(out), format="html", output=tmp_path / "report.html")
    assert "Portfolio: the virtual best and the single best" in page
    gap = next(row for row in portfolio(api.grouped(str(out)).groups).rows if row.kind == "single")  # type: ignore[union-attr]
    assert (gap.gap_closed is None) == ("gap closed not shown" in page)  # the reason is on the page where a dash is
    assert "portfolio" not in nq.report(str(out), format="json")  # the summary rows only


def test_the_selector_learns_which_solver_suits_which_instances() -> None:
    # "small" is fast below n = 20 and slow above, "large" the other way round: n alone tells them apart
    records = []
    for n in range(10, 40):
        records += [run("small", n, 1.0 if n < 25 else 10.0), run("large", n, 10.0 if n < 25 else 1.0)]
    result = found(records)
    assert result is not None and result.instances == 30
    rows = by_solver(result)
    selector = rows["selector: 5 nearest, 5-fold cross-validated"]
    assert rows["virtual best"].par == pytest.approx(1.0) and rows["single best: large"].par == pytest.approx(5.5)
    assert selector.gap_closed is not None and selector.gap_closed > 0.8, selector  # wrong only near n = 25
    assert selector.decided == 1.0


def same_features() -> list[dict[str, Any]]:
    """20 instances with one blocked square on an edge row of a 10 x 10 board: the features cannot tell
    them apart, and the faster solver alternates from one instance to the next."""
    records = []
    for i in range(20):
        square = {"blocked": [[i % 10, 9 - i // 10 * 9]], "instance": f"i{i}"}
        records += [run("a", 10, 1.0 if i % 2 else 10.0) | square, run("b", 10, 10.0 if i % 2 else 1.0) | square]
    return records


def test_records_whose_features_say_nothing_get_a_sentence_not_a_learned_row() -> None:
    # the nearest instances would be the first ones in the file: no row, and the table says why
    result = found(same_features())
    assert result is not None and result.instances == 20
    assert not any(row.solver.startswith(("selector", "schedule")) for row in result.rows)
    assert "no selector or schedule row: every instance has the same features" in " ".join(result.notes)
    assert "every instance has the same features" in plain_text(render_portfolio(result, "table"))


def test_features_see_what_propagation_proves() -> None:
    from nqueens_plugins.results.features import FEATURE_NAMES, features

    dead = dict(zip(FEATURE_NAMES, features(4, {0: 0}, [(1, 2), (1, 3)]), strict=True))  # column 1 has no square left
    assert dead["dead end by propagation"] == 1.0
    open_board = dict(zip(FEATURE_NAMES, features(8, {}, []), strict=True))
    assert open_board["dead end by propagation"] == 0.0 and open_board["open squares left by propagation / n^2"] == 1.0
    forced = dict(zip(FEATURE_NAMES, features(4, {}, [(0, 0), (0, 2), (0, 3)]), strict=True))  # column 0: row 1 only
    assert forced["queens forced by propagation / n"] >= 0.25


def test_select_names_the_solver_and_the_neighbours_it_learnt_from(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    records = []
    for n in range(10, 40):
        records += [run("small", n, 1.0 if n < 25 else 10.0), run("large", n, 10.0 if n < 25 else 1.0)]
    assert nq.select(records, 12).solver == "small" and nq.select(records, 38).solver == "large"
    chosen = nq.select(records, 36)
    assert len(chosen.neighbours) == 5 and all(best == "large" for _, best in chosen.neighbours)
    out = tmp_path / "runs.jsonl"
    nq.compare("bitset-mrv,min-conflicts", [8, 10], out=out)
    code, shown, err = run_cli("select", str(out), "-n", "9")
    assert code == 0 and shown.startswith(("bitset-mrv", "min-conflicts")) and "nearest of 2 past instances" in shown
    code, _, err = run_cli("select", str(out))
    assert code == 2 and "board size" in err
    code, shown, err = run_cli("select", str(out), "-n", "9", "--schedule", "--timeout", "4")
    assert code == 0, err
    slices = [part.split() for part in shown.split(" (")[0].split(", then ")]
    assert {solver for solver, _, _ in slices} <= {"bitset-mrv", "min-conflicts"}
    assert sum(float(seconds) for _, seconds, _ in slices) == pytest.approx(4, rel=1e-2)  # the slices fill the limit
    for bad in (["--timeout", "4"], ["--schedule", "--timeout", "nan"], ["--schedule", "--timeout", "-1"]):
        code, _, err = run_cli("select", str(out), "-n", "9", *bad)
        assert code == 2 and err.count("\n") == 1, (bad, err)


def test_select_warns_when_it_learns_from_fewer_instances_than_the_report_measures_a_selector_from(
    tmp_path: Path, run_cli
) -> None:  # type: ignore[no-untyped-def]
    """One warning line on stderr, the answer still given, at the same threshold the report's portfolio section
    uses (``selector.MIN_INSTANCES``, imported by both): below it, warned; at it, not."""
    from nqueens_plugins.results import portfolio as portfolio_module
    from nqueens_plugins.results.selector import MIN_INSTANCES

    assert portfolio_module.MIN_INSTANCES is MIN_INSTANCES  # one constant, shared, not a copy

    def records(instances: int) -> list[dict[str, Any]]:
        return [run(solver, 10 + i, 1.0 + (i + k) % 3) for i in range(instances) for k, solver in enumerate("ab")]

    for instances, warned in ((2, True), (MIN_INSTANCES - 1, True), (MIN_INSTANCES, False)):
        heard: list[str] = []
        chosen = nq.select(records(instances), 12, notify=heard.append)
        schedule = nq.select_schedule(records(instances), 12, notify=heard.append)
        assert chosen.solver in ("a", "b") and schedule.slices
        expected = [f"warning: learnt from only {instances} past instances"] * 2 if warned else []
        assert [line.split(";")[0] for line in heard] == expected
        assert all(f"from {MIN_INSTANCES} or more" in line for line in heard)
        portfolio_notes = " ".join(found(records(instances)).notes)  # type: ignore[union-attr]
        assert (f"{MIN_INSTANCES} needed" in portfolio_notes) == warned  # the report refuses exactly where select warns
    out = tmp_path / "runs.jsonl"
    header = environment("test") | {"grid": {"seed": 0, "timeout": LIMIT}}
    out.write_text("".join(json.dumps(record) + "\n" for record in [header, *records(2)]))
    for extra in ([], ["--schedule"]):
        code, shown, err = run_cli("select", str(out), "-n", "12", *extra)
        assert code == 0 and "nearest of 2 past instances" in shown  # the answer, still
        assert err.count("\n") == 1 and err.startswith("nqueens: warning: learnt from only 2 past instances")


def test_select_refuses_records_it_cannot_learn_from() -> None:
    with pytest.raises(nq.BadInput, match="cannot train a selector"):
        nq.select([run("a", 10, 1.0)], 10)


# --- SUNNY's schedule (results/schedule.py) ------------------------------------------------------------

SCHEDULE_ROW = "schedule: SUNNY, 5 nearest, 5-fold cross-validated"
SELECTOR_ROW = "selector: 5 nearest, 5-fold cross-validated"


def rounded(slices: tuple[tuple[str, float], ...]) -> tuple[tuple[str, float], ...]:
    return tuple((solver, round(seconds, 9)) for solver, seconds in slices)


def test_sunny_gives_each_solver_a_slot_per_neighbour_it_decides() -> None:
    from nqueens_plugins.results.schedule import sunny_slices

    # a decides three neighbours in 1 s, b the other two in 2 s; undecided runs count the limit, 10 s
    decided = np.array([[1, 0], [1, 0], [1, 0], [0, 1], [0, 1]], dtype=float)
    times = np.array([[1, 10], [1, 10], [1, 10], [10, 2], [10, 2]], dtype=float)
    assert rounded(sunny_slices(decided, times, ("a", "b"), 10.0, "b")) == (("a", 6.0), ("b", 4.0))
    # b decides everything a does: the smallest set is one solver, the faster of the two that decide all
    both = np.ones((5, 2))
    assert sunny_slices(both, np.array([[3.0, 1.0]] * 5), ("a", "b"), 10.0, "a") == (("b", 10.0),)
    # a neighbour no solver decides: its slot goes to the backup
    fifth = np.array([[1, 0]] * 4 + [[0, 0]], dtype=float)
    slices = sunny_slices(fifth, np.array([[1, 10]] * 4 + [[10, 10]], dtype=float), ("a", "b"), 10.0, "b")
    assert rounded(slices) == (("a", 8.0), ("b", 2.0))
    assert sunny_slices(np.zeros((5, 2)), np.full((5, 2), 10.0), ("a", "b"), 10.0, "b") == (("b", 10.0),)


def test_a_simulated_schedule_pays_every_earlier_slice_in_full() -> None:
    from nqueens_plugins.results.schedule import simulate

    slices = (("a", 6.0), ("b", 4.0))
    late = {"a": (np.array([7.0]), np.array([True])), "b": (np.array([1.0]), np.array([True]))}
    assert simulate(slices, late, 10.0) == pytest.approx((6.0 + 1.0, 1.0))  # a decided, but after its slice
    never = {"a": (np.array([10.0]), np.array([False])), "b": (np.array([5.0]), np.array([True]))}
    assert simulate(slices, never, 10.0) == pytest.approx((20.0, 0.0))  # b's 5 s do not fit its 4 s
    half = {"a": (np.array([1.0, 10.0]), np.array([True, False])), "b": (np.array([2.0]), np.array([True]))}
    assert simulate(slices, half, 10.0) == pytest.approx((0.5 * 1.0 + 0.5 * (6.0 + 2.0), 1.0))
    # one slice of the whole limit is the solver's own run, as the records judged it (10.02 s: the grace)
    graced = {"a": (np.array([10.02]), np.array([True]))}
    assert simulate((("a", 10.0),), graced, 10.0) == pytest.approx((10.02, 1.0))


def two_halves() -> list[dict[str, Any]]:
    """30 instances, n = 10..39: a decides n = 10..14, 20..24 and 30..34 in 1 s and times out on the others,
    b the other way round. Near the edge of a block the nearest sizes are of both kinds."""
    records = []
    for n in range(10, 40):
        mine = n % 10 < 5
        records += [
            run("a", n, 1.0 if mine else LIMIT, solved=mine),
            run("b", n, LIMIT if mine else 1.0, solved=not mine),
        ]
    return records


def test_a_schedule_closes_the_gap_a_single_solver_selector_cannot() -> None:
    result = found(two_halves())
    assert result is not None and result.instances == 30
    rows = by_solver(result)
    assert rows["virtual best"].par == pytest.approx(1.0)
    assert rows["single best: a"].par == pytest.approx((1.0 + 2 * LIMIT) / 2)
    selector, schedule = rows[SELECTOR_ROW], rows[SCHEDULE_ROW]
    # one solver per instance, the one best on most of its neighbours: wrong near the edges of the blocks
    assert selector.gap_closed is not None and selector.gap_closed < 0.5, selector
    # near an edge the schedule gives both a slice: every instance decided, in the first slice or the second
    assert schedule.decided == pytest.approx(1.0), schedule
    assert schedule.gap_closed is not None and schedule.gap_closed > 0.5, schedule
    assert schedule.par < selector.par


def test_cross_validation_never_learns_from_the_instance_it_scores() -> None:
    from nqueens_plugins.api import grouped
    from nqueens_plugins.results.portfolio import scheduler_of, score_table
    from nqueens_plugins.results.schedule import cross_validated
    from nqueens_plugins.results.selector import fold_of

    table = score_table(grouped(two_halves()).groups)
    assert table is not None
    scheduler = scheduler_of(table)
    assert scheduler is not None
    labels = scheduler.selector.instances
    found_schedules = cross_validated(scheduler, [LIMIT] * len(labels))
    for label, schedule in zip(labels, found_schedules, strict=True):
        assert schedule is not None
        same_fold = {other for other in labels if fold_of(other) == fold_of(label)}
        assert label in same_fold and not same_fold & {near for near, _ in schedule.neighbours}, label
        assert schedule.trained_on == len(labels) - len(same_fold)


def test_schedule_for_a_new_board_and_what_it_refuses() -> None:
    from nqueens_plugins.api import grouped
    from nqueens_plugins.results.portfolio import schedule_for_board

    records = []
    for n in range(10, 40):
        records += [run("small", n, 1.0 if n < 25 else 10.0), run("large", n, 10.0 if n < 25 else 1.0)]
    groups = grouped(records).groups
    chosen = schedule_for_board(groups, 12, {}, [])
    assert chosen.slices == (("small", LIMIT),) and chosen.limit == LIMIT  # the records' time limit
    assert len(chosen.neighbours) == 5 and chosen.trained_on == 30
    assert chosen.describe().startswith("small 100 s (a schedule of 100 s from its 5 nearest of 30")
    halves = schedule_for_board(grouped(two_halves()).groups, 24, {}, [], limit=10.0)
    assert {solver for solver, _ in halves.slices} == {"a", "b"}
    assert sum(seconds for _, seconds in halves.slices) == pytest.approx(10.0)
    with pytest.raises(nq.BadInput, match="every instance has the same features"):
        schedule_for_board(grouped(same_features()).groups, 10, {}, [])
    with pytest.raises(nq.BadInput, match="cannot train a schedule"):
        schedule_for_board(grouped([run("a", 10, 1.0)]).groups, 10, {}, [])
    with pytest.raises(nq.BadInput, match="above 0 seconds"):
        schedule_for_board(groups, 12, {}, [], limit=0.0)
