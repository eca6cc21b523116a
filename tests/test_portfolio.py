"""The virtual best, the single best and the gap a portfolio closes (issue 42), on records whose answer is known."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nqueens_plugins as nq
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
    assert result.notes == ["no selector row: 2 instances, 10 needed to hold some out"]
    rows = by_solver(result)
    assert rows["virtual best"].par == pytest.approx(1.5)  # a on 10, b on 12
    assert rows["single best: b"].par == pytest.approx(3.5)  # b: (5 + 2) / 2 beats a: (1 + 10) / 2
    assert rows["race(a,b)"].gap_closed == pytest.approx((3.5 - 1.8) / (3.5 - 1.5))
    assert rows["a"].gap_closed == pytest.approx((3.5 - 5.5) / 2.0)  # worse than the single best: below 0
    assert rows["b"].gap_closed == pytest.approx(0.0)


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


def test_a_selector_whose_features_say_nothing_closes_no_gap() -> None:
    # one blocked square on an edge row of a 10 x 10 board: the features cannot tell the instances apart,
    # and the faster solver alternates from one instance to the next
    records = []
    for i in range(20):
        square = {"blocked": [[i % 10, 9 - i // 10 * 9]], "instance": f"i{i}"}
        records += [run("a", 10, 1.0 if i % 2 else 10.0) | square, run("b", 10, 10.0 if i % 2 else 1.0) | square]
    result = found(records)
    assert result is not None and result.instances == 20
    selector = by_solver(result)["selector: 5 nearest, 5-fold cross-validated"]
    assert selector.gap_closed is not None and selector.gap_closed < 0.5, selector


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
    code, shown, _ = run_cli("select", str(out), "-n", "9")
    assert code == 0 and shown.startswith(("bitset-mrv", "min-conflicts")) and "nearest of 2 past instances" in shown
    code, _, err = run_cli("select", str(out))
    assert code == 2 and "board size" in err


def test_select_refuses_records_it_cannot_learn_from() -> None:
    with pytest.raises(nq.BadInput, match="cannot train a selector"):
        nq.select([run("a", 10, 1.0)], 10)
