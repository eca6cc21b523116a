"""The textbooks' step count (issue 40): hill climbing reports ``steps`` (queens moved by climbing,
restarts apart), and the summary shows it as AIMA's 8-queens table does, when solved and when stuck."""

from __future__ import annotations

from typing import Any

import pytest

import nqueens_plugins as nq
from nqueens_plugins.views.report import STEPS_COLUMN, plain_text, render_summary


@pytest.mark.parametrize(
    "spec", ["steepest-ascent", "steepest-ascent[restarts=20]", "random-restart", "random-neighbour", "first-choice"]
)
def test_steps_are_the_climbs_moves_without_the_restarts(spec: str) -> None:
    for trial in range(20):
        result = nq.solve(spec, 8, limits=nq.Limits(seed=trial), isolate=False)
        counters = result.counters
        assert counters["steps"] == result.iterations - counters["restarts"]
        free_moves_in_restarts = 8 * counters["restarts"]
        assert result.moves == counters["steps"] + free_moves_in_restarts


def record(status: str, steps: int | None, trial: int) -> dict[str, Any]:
    counters = {} if steps is None else {"steps": steps}
    return {
        "type": "run",
        "solver": "climber",
        "name": "climber",
        "options": {},
        "seed": 0,
        "trial": trial,
        "status": status,
        "verified": True if status == "solved" else None,
        "iterations": 10,
        "moves": 10,
        "counters": counters,
        "seconds": 0.001,
        "n": 8,
        "fixed": {},
        "blocked": [],
        "instance": "x",
        "timeout": 10.0,
        "complete": False,
    }


def test_the_summary_averages_steps_apart_for_solved_and_stuck_runs() -> None:
    records = [record("solved", 4, 0), record("solved", 6, 1), record("gave-up", 3, 2), record("gave-up", 2, 3)]
    (row,) = nq.summary(records).rows
    assert row.steps_solved == 5.0 and row.steps_stuck == 2.5
    shown = plain_text(render_summary([row], "table"))
    assert STEPS_COLUMN in shown and "5.0 / 2.5" in shown


def test_the_steps_column_is_shown_only_where_a_solver_counts_steps() -> None:
    records = [record("solved", None, 0), record("gave-up", None, 1)]
    (row,) = nq.summary(records).rows
    assert row.steps_solved is None and row.steps_stuck is None
    assert STEPS_COLUMN not in plain_text(render_summary([row], "table"))
    assert STEPS_COLUMN not in render_summary([row], "markdown")


def test_a_run_that_never_got_stuck_says_so() -> None:
    (row,) = nq.summary([record("solved", 7, 0)]).rows
    assert row.steps_solved == 7.0 and row.steps_stuck is None
    assert "7.0 / -" in render_summary([row], "markdown")
