"""What a new user meets in the first minutes: a word where one is due, never silence (issue 36, item 9)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nqueens_plugins.formats.records import environment
from nqueens_plugins.loading import registry


def test_compare_all_says_which_plugin_failed_to_load(
    fake_distribution, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The built-ins are "all" enough here; the eight plugin distributions would only make it slow.
    monkeypatch.setenv("NQUEENS_DISABLE_PLUGINS", "choco,clingo,constraint,highs,minizinc,ortools,pysat,z3")
    fake_distribution("nqueens-broken", {"broken": "broken_at_import"}, {"broken_at_import": "raise ValueError('no')"})
    code, _, err = run_cli("compare", "-s", "all", "-n", "4", "--trials", "1", "--timeout", "1")
    assert code == 0, err
    assert "plugin 'broken' from nqueens-broken 1.0 failed to load, so its solvers are left out" in err, err
    code, _, err = run_cli("compare", "-s", "min-conflicts", "-n", "4")
    assert code == 0 and "failed to load" not in err, err  # named solvers: the broken plugin is not asked for


def test_a_solver_of_a_distribution_not_installed_names_what_to_install(
    run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(registry.SHIPPED_APART, "made-up-sat", "nqueens-made-up")
    code, _, err = run_cli("solve", "-s", "made-up-sat[solver=x]", "-n", "8")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert (
        "nqueens-made-up distribution, which is not installed" in err and "pip install ./plugins/nqueens-made-up" in err
    )


def test_a_solver_named_in_capitals_gets_a_did_you_mean(run_cli) -> None:
    code, _, err = run_cli("solve", "-s", "MIN-CONFLICTS", "-n", "8")
    assert code == 2 and "did you mean min-conflicts?" in err, err


def test_solve_says_where_it_wrote_the_trace(run_cli, tmp_path: Path) -> None:
    trace = tmp_path / "run.json"
    code, out, err = run_cli("solve", "-s", "min-conflicts", "-n", "8", "--seed", "2", "--trace", str(trace), "--json")
    assert code == 0 and json.loads(out)["verified"] is True  # stdout stays one JSON object
    assert f"wrote {trace} (" in err and "nqueens animate" in err, err
    assert trace.exists()


def test_report_of_a_file_with_no_runs_is_refused_as_plot_refuses_it(run_cli, tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps(environment("test") | {"grid": {"seed": 0, "timeout": 2.0}}) + "\n")
    for args in (("report", str(empty)), ("report", str(empty), "--json")):
        code, out, err = run_cli(*args)
        assert code == 2 and "holds no runs" in err and out == "", (out, err)
