"""The nqueens command: exit statuses, one-line errors, JSON output."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path

import click
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
    assert "♛" not in out  # a rejected board is not drawn as an answer


@pytest.mark.parametrize(
    "args, ending",
    [
        (["-s", "min-conflicts", "-n", "2"], "gave-up"),  # no solution exists: it stops on a board that is none
        (["-s", "steepest-ascent", "-n", "8", "--seed", "0", "--board"], "gave-up"),  # stuck, even asked to draw
        (["-s", "min-conflicts", "-n", "8", "--timeout", "1e-9"], "timed-out"),  # stopped on its first board
    ],
)
def test_only_an_answer_is_drawn_as_a_board(run_cli, args: list[str], ending: str) -> None:
    code, out, _ = run_cli("solve", *args)
    assert code == 1 and f": {ending}, nothing to verify" in out
    assert "♛" not in out and "·" not in out.splitlines()[0]  # the status line first, no board above it


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
    assert code == 0 and "no-solution, certified" in out  # decided: impossible on its face, and its proof checked
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


def every_command() -> list[tuple[str, click.Command]]:
    from nqueens_plugins.cli import cli

    found: list[tuple[str, click.Command]] = []
    for name, command in sorted(cli.commands.items()):
        found.append((name, command))
        if isinstance(command, click.Group):
            found += [(f"{name} {sub}", each) for sub, each in sorted(command.commands.items())]
    return found


def option_names(command: click.Command) -> dict[str, set[str]]:
    """Each option's destination -> every name it answers to."""
    return {p.name or "": set(p.opts + p.secondary_opts) for p in command.params if isinstance(p, click.Option)}


SHARED_NAMES = {  # a concept -> the one way every command spells it
    "solver": {"-s", "--solver", "--solvers"},
    "instance": {"--instance", "--instances"},
    "seed": {"--seed"},
    "timeout": {"--timeout"},
    "prepare": {"--prepare-timeout"},
    "memory": {"--memory"},
    "fixed": {"--fixed"},
    "blocked": {"--blocked"},
    "json": {"--json"},
}


@pytest.mark.parametrize(("name", "command"), every_command(), ids=[name for name, _ in every_command()])
def test_every_command_speaks_the_same_language(name: str, command: click.Command) -> None:
    names = option_names(command)
    every_name = set().union(*names.values()) if names else set()
    for concept, spelling in SHARED_NAMES.items():
        users = [opts for opts in names.values() if opts & spelling]
        assert len(users) <= 1, (name, concept)
        if users:
            assert users[0] == spelling, f"{name}: {concept} spelled {sorted(users[0])}, not {sorted(spelling)}"
    if "--format" in every_name:
        assert "--json" in every_name, f"{name} has --format but no --json"
    poses_problems = "-n" in every_name and any(opts & SHARED_NAMES["solver"] for opts in names.values())
    if poses_problems:  # solve, count, compare, cross-check: a board is posed the same way everywhere
        for concept in ("instance", "fixed", "blocked", "timeout", "prepare", "memory"):
            assert SHARED_NAMES[concept] <= every_name, f"{name} lacks {sorted(SHARED_NAMES[concept])}"
    for param in command.params:
        if isinstance(param, click.Option) and param.name in ("timeout", "prepare_timeout"):
            assert param.show_default, f"{name} --{param.name}: its default is not shown in --help"
    epilog = command.epilog or ""
    assert epilog.startswith("Exit status: 0 ") and "2 bad input" in epilog and "130 interrupted" in epilog, name


@pytest.mark.parametrize("args", [["solve", "--help"], ["instances", "generate", "--help"]])
def test_help_ends_with_the_exit_statuses(run_cli, args: list[str]) -> None:
    code, out, _ = run_cli(*args)
    assert code == 0 and "Exit status: 0" in out.replace("\n", " ")


def test_json_is_short_for_format_json_and_refuses_another(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    code, printed, err = run_cli("compare", "--solver", "construction", "-n", "8", "--json", "--out", str(out))
    assert code == 0 and json.loads(printed)[0]["solver"] == "construction", err
    code, printed, _ = run_cli("report", str(out), "--json")
    assert code == 0 and json.loads(printed)[0]["decided"] == 1
    code, _, err = run_cli("report", str(out), "--json", "--format", "csv")
    assert code == 2 and "two formats" in err


def test_every_output_goes_into_a_folder_that_exists(run_cli, tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    assert run_cli("compare", "-s", "construction", "-n", "8", "--out", str(runs))[0] == 0
    trace = tmp_path / "t.json"
    assert run_cli("solve", "-s", "min-conflicts", "-n", "8", "--trace", str(trace))[0] == 0 and trace.exists()
    page = tmp_path / "r.md"
    assert run_cli("report", str(runs), "--format", "markdown", "-o", str(page))[0] == 0 and page.exists()
    animation = tmp_path / "run.svg"
    assert run_cli("animate", str(trace), "-o", str(animation))[0] == 0 and animation.exists()


def test_compare_and_cross_check_pose_blocked_boards(run_cli) -> None:
    code, printed, err = run_cli("compare", "-s", "bitset-mrv", "-n", "6", "--blocked", "0:1,1:3", "--json")
    assert code == 0, err
    assert json.loads(printed)[0]["decided"] == 1
    code, printed, err = run_cli("cross-check", "-n", "6..7", "--fixed", "0:1", "-s", "bitset-mrv,backtracking")
    assert code == 0 and "2 instances" in printed, err


def test_a_proof_of_no_solution_is_a_decided_solve(run_cli) -> None:
    code, out, _ = run_cli("solve", "-s", "backtracking", "-n", "3")
    assert code == 0 and "no-solution, verified" in out


def test_resume_reports_the_whole_file(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    assert run_cli("compare", "-s", "construction", "-n", "8", "--trials", "2", "--out", str(out))[0] == 0
    with out.open() as handle:
        lines = handle.readlines()
    out.write_text("".join(lines[:-1]))  # as if interrupted before the last run was written
    code, printed, err = run_cli(
        "compare", "-s", "construction", "-n", "8", "--trials", "2", "--out", str(out), "--resume", "--json"
    )
    assert code == 0, err
    (row,) = json.loads(printed)
    assert row["runs"] == 2  # the file's two runs, not only the one this call added
    assert "this call added 1" in err


def test_cross_check_ends_with_one_verdict(run_cli, tmp_path: Path) -> None:
    code, out, _ = run_cli("cross-check", "-n", "4..6", "-s", "backtracking,steepest-ascent", "--timeout", "5")
    last = out.strip().splitlines()[-1]
    assert code == 0 and last.startswith("verdict: no disagreement in ") and last.endswith("exit status 0"), last
    code, out, _ = run_cli("cross-check", "-n", "6..7", "--fixed", "0:1", "-s", "backtracking")
    last = out.strip().splitlines()[-1]
    assert code == 0 and last.startswith("verdict: no disagreement in 2 checks"), last


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_long_solve_shows_its_elapsed_time_on_a_terminal_and_says_it_once_on_a_pipe() -> None:
    from nqueens_plugins.cli import elapsed_on_terminal

    terminal = FakeTerminal()
    with elapsed_on_terminal("solving with x", after=0.0, stream=terminal):
        for _ in range(1000):  # waits for the line to appear, however loaded the machine (no clock asserted)
            if "solving with x: " in terminal.getvalue():
                break
            threading.Event().wait(0.01)
    assert "solving with x: " in terminal.getvalue() and terminal.getvalue().endswith("\r\x1b[K")
    piped = io.StringIO()
    with elapsed_on_terminal("solving with x", after=0.0, stream=piped):
        for _ in range(1000):
            if piped.getvalue():
                break
            threading.Event().wait(0.01)
        threading.Event().wait(0.05)  # and it says so once, not every half second
    said = piped.getvalue()
    assert said.count("\n") == 1 and "\r" not in said and said.startswith("nqueens: note: solving with x: still"), said
    quick = io.StringIO()
    with elapsed_on_terminal("solving with x", after=60.0, stream=quick):
        pass
    assert quick.getvalue() == ""  # a quick solve says nothing


def test_the_command_has_a_name_of_its_own_and_runs_as_a_module(tmp_path: Path) -> None:
    """Another package's `nqueens` command may shadow ours: `nqueens-plugins` and `python -m` still reach it."""
    import subprocess
    import sys
    from importlib import metadata

    installed_scripts = metadata.distribution("nqueens-plugins").entry_points.select(group="console_scripts")
    scripts = {script.name: script.value for script in installed_scripts}
    assert scripts["nqueens-plugins"] == scripts["nqueens"] == "nqueens_plugins.cli:main"
    installed = Path(sys.executable).parent / "nqueens-plugins"
    assert installed.exists(), "reinstall the project: the nqueens-plugins console script is missing"
    for command in ([str(installed)], [sys.executable, "-m", "nqueens_plugins"]):
        shown = subprocess.run([*command, "--help"], capture_output=True, text=True, cwd=tmp_path, check=True).stdout
        assert "nqueens-plugins" in shown and "python -m nqueens_plugins" in shown
        solved = subprocess.run(
            [*command, "solve", "-s", "construction", "-n", "6", "--json"],
            check=False,
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )
        assert solved.returncode == 0 and json.loads(solved.stdout)["status"] == "solved"


def test_a_board_refused_after_a_long_read_is_still_one_line(run_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """The "still at work" note waits for the solve itself: on a busy machine a 4 GiB archive bomb took over 3 s
    to refuse, and the note came first (two lines for one bad input). Here the note is due at once and reading
    the board takes 0.3 s."""
    import time

    from nqueens_plugins import api, cli

    monkeypatch.setattr(cli.elapsed_on_terminal.__wrapped__, "__defaults__", (0.01, None))  # type: ignore[attr-defined]
    board = api.problem_of

    def slow_board(*args: object, **kwargs: object) -> object:
        time.sleep(0.3)
        return board(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(api, "problem_of", slow_board)
    code, _, err = run_cli("solve", "-s", "min-conflicts", "-n", "0")
    assert code == 2 and err.strip().splitlines() == ["nqueens: error: board size must be at least 1, not 0"], err
