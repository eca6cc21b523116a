"""The nqueens command: exit statuses, one-line errors, JSON output."""

from __future__ import annotations

import json

import pytest


def test_solve_prints_board_and_exits_zero(run_cli) -> None:
    code, out, err = run_cli("solve", "-s", "min-conflicts", "-n", "8", "--seed", "2")
    assert code == 0, err
    assert out.count("♛") == 8
    assert "solved, verified" in out and "iterations" in out and "moves" in out


def test_solve_json(run_cli) -> None:
    code, out, _ = run_cli("solve", "-s", "simulated-annealing[cooling=0.9]", "-n", "10", "--json")
    record = json.loads(out)
    assert code == 0
    for key in (
        "solver",
        "options",
        "n",
        "seed",
        "status",
        "queens",
        "verified",
        "iterations",
        "moves",
        "counters",
        "seconds",
    ):
        assert key in record
    assert record["options"] == {"cooling": 0.9} and record["verified"] is True and len(record["queens"]) == 10


def test_not_solved_exits_one(run_cli) -> None:
    assert run_cli("solve", "-s", "backtracking", "-n", "3")[0] == 1  # proved no-solution
    assert run_cli("solve", "-s", "steepest-ascent", "-n", "8", "--seed", "0")[0] == 1  # gave up at a local minimum


def test_rejected_answer_exits_three(run_cli, fake_distribution) -> None:
    fake_distribution(
        "nqueens-liar",
        {"liar": "liar_plugin"},
        {
            "liar_plugin": """
            from nqueens_plugins import Outcome, Solver, Status, hookimpl

            class Liar(Solver):
                name = "liar"
                summary = "Claims the diagonal is a solution."
                def solve(self, problem, rng, budget, options):
                    return Outcome(Status.SOLVED, list(range(problem.n)))

            @hookimpl
            def nqueens_register_solvers(register):
                register(Liar())
        """
        },
    )
    code, out, _ = run_cli("solve", "-s", "liar", "-n", "6")
    assert code == 3
    assert "REJECTED" in out and "share the diagonal" in out


@pytest.mark.parametrize(
    "args, words",
    [
        (["solve", "-s", "min-conflicts", "-n", "0"], "at least 1"),
        (["solve", "-s", "min-conflicts", "-n", "eight"], "whole number"),
        (["solve", "-s", "min-conflicts", "-n", "10000000000"], "at most"),
        (["solve", "-s", "steepest-ascent", "-n", "5000"], "accepts n up to 2,000"),
        (["solve", "-s", "min-conflict", "-n", "8"], "did you mean min-conflicts"),
        (["solve", "-s", "min-conflicts[steps=3]", "-n", "8"], "no option 'steps'"),
        (["solve", "-s", "min-conflicts[max_steps=lots]", "-n", "8"], "whole number"),
        (["solve", "-s", "backtracking", "-n", "8", "--fixed", "0:9"], "off the 8x8 board"),
        (["solve", "-s", "backtracking", "-n", "8", "--fixed", "0:1,0:2"], "two fixed queens in column 0"),
        (["solve", "-s", "backtracking", "-n", "8", "--blocked", "8:0"], "off the 8x8 board"),
        (["solve", "-s", "swap-search", "-n", "8", "--blocked", "1:1"], "cannot honour blocked squares"),
        (["solve", "-s", "backtracking", "-n", "8", "--fixed", "a:b"], "COLUMN:ROW"),
        (["solve", "-s", "backtracking", "-n", "8", "--timeout", "-1"], "positive"),
        (["solve", "-n", "8"], "Missing option"),
        (["solve", "-s", "backtracking", "-n", "8", "--bogus"], "No such option"),
        (["frobnicate"], "No such command"),
    ],
)
def test_bad_input_is_one_line_and_exit_two(run_cli, args: list[str], words: str) -> None:
    code, out, err = run_cli(*args)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("nqueens: error: ")
    assert words in err
    assert "Traceback" not in err + out


def test_attacking_fixed_queens_are_an_instance_with_no_solution(run_cli) -> None:
    # As CSPLib defines the completion problem: not an input error, a proved no-solution.
    code, out, _ = run_cli("solve", "-s", "backtracking", "-n", "8", "--fixed", "0:0,2:2")
    assert code == 1 and "no-solution, verified" in out
    code, out, _err = run_cli("solve", "-s", "min-conflicts", "-n", "8", "--fixed", "0:0,2:2")
    assert code == 1 and "gave-up" in out


def test_plugins_listing(run_cli) -> None:
    code, out, _ = run_cli("plugins", "--json")
    listing = json.loads(out)
    names = {s["name"] for s in listing["solvers"]}
    assert {"min-conflicts", "backtracking", "forward-checking"} <= names
    fc = next(s for s in listing["solvers"] if s["name"] == "forward-checking")
    assert fc["complete"] is True and fc["distribution"] == "nqueens-plugins"
    assert {o["name"] for o in fc["options"]} == {"order", "values"}
    code, out, _ = run_cli("plugins")
    assert code == 0 and "min-conflicts" in out


def test_plugins_reports_load_errors(run_cli, fake_distribution) -> None:
    fake_distribution(
        "nqueens-broken", {"broken": "broken_mod"}, {"broken_mod": "raise ImportError('missing piece')\n"}
    )
    code, out, _ = run_cli("plugins")
    assert code == 0
    assert "broken" in out and "missing piece" in out and "nqueens-broken 1.0" in out
