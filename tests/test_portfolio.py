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
    assert result is not None and result.instances == 2 and result.notes == []
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
    assert "x virtual best" in shown and "4.00" in shown and "single best: a" in shown
    assert "| b | 4.0000 | 4.00 | 100% |" in render_portfolio(result, "markdown")


def test_report_shows_the_portfolio_in_every_format_that_has_tables(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    nq.compare("bitset-mrv,min-conflicts", [8, 10], trials=2, out=out)
    assert "portfolio: mean PAR-2 over the 2 instances" in nq.report(str(out), format="markdown")
    assert "single best: bitset-mrv" in plain_text(nq.report(str(out)))
    page = nq.report(str(out), format="html", output=tmp_path / "report.html")
    assert "Portfolio: the virtual best and the single best" in page
    assert "portfolio" not in nq.report(str(out), format="json")  # the summary rows only
