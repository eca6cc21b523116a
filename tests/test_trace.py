"""Step-by-step traces: every built-in method reports its steps, and replaying them gives its board."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser import needs_chromium, render_in_chromium

import nqueens_plugins as nq
from nqueens_plugins.core.problem import replay

TRACED = [
    "british-museum",
    "backtracking",
    "forward-checking",
    "forward-checking[order=mrv,values=middle]",
    "steepest-ascent",
    "first-choice",
    "random-neighbour",
    "random-restart",
    "simulated-annealing",
    "min-conflicts",
    "min-conflicts[init=greedy]",
    "bitboard",
    "bitset-mrv",
    "bitset-mrv[kernel=python]",
    "swap-search",
    "construction",
]


@pytest.mark.parametrize("spec", TRACED)
def test_a_trace_replays_to_the_final_board(spec: str) -> None:
    n = 6 if spec.startswith("british-museum") else 8
    for seed in range(3):
        result = nq.solve(spec, n, seed=seed, trace=True, timeout=20)
        assert result.trace is not None and result.trace.events, (spec, seed)
        boards = list(replay(n, result.trace.events))
        if result.queens is not None:
            assert boards[-1] == [int(r) for r in result.queens], (spec, seed)


@pytest.mark.parametrize(
    "spec", ["backtracking", "forward-checking[order=mrv]", "bitset-mrv", "min-conflicts", "bitboard"]
)
def test_traces_start_from_the_fixed_queens_and_avoid_blocked_squares(spec: str) -> None:
    fixed, blocked = {0: 2, 5: 6}, [(3, 3), (4, 4), (2, 0)]  # two solutions
    result = nq.solve(spec, 8, fixed=fixed, blocked=blocked, trace=True, seed=1, timeout=20)
    assert result.solved and result.trace is not None
    boards = list(replay(8, result.trace.events, fixed))
    assert boards[-1] == [int(r) for r in result.queens]
    for board in boards:
        assert all(board[c] == r for c, r in fixed.items())  # a fixed queen never moves
        assert not any(board[c] == r for c, r in blocked)  # and no queen stands on a blocked square


def test_a_traced_run_is_the_same_run(tmp_path: Path) -> None:
    for spec in ("min-conflicts", "simulated-annealing", "swap-search", "random-restart"):
        plain, traced = nq.solve(spec, 16, seed=4), nq.solve(spec, 16, seed=4, trace=True)
        assert list(plain.queens) == list(traced.queens) and plain.iterations == traced.iterations, spec


def test_trace_file_and_animations(tmp_path: Path, run_cli) -> None:
    trace = tmp_path / "run.json"
    code, _, err = run_cli("solve", "-s", "forward-checking", "-n", "6", "--trace", str(trace))
    assert code == 0, err
    document = json.loads(trace.read_text())
    assert document["format"] == "nqueens-trace" and document["queens"] == list(replay(6, document["events"]))[-1]
    for suffix, magic in ((".html", b"<!DOCTYPE html>"), (".svg", b"<svg"), (".gif", b"GIF8")):
        target = tmp_path / f"run{suffix}"
        code, out, err = run_cli("animate", str(trace), "-o", str(target))
        assert code == 0 and target.read_bytes().startswith(magic), err
        assert f"({len(document['events']) + 1} frames)" in out
    assert nq.solve("backtracking", 6, trace=tmp_path / "api.json").solved
    assert json.loads((tmp_path / "api.json").read_text())["solver"] == "backtracking"


@pytest.mark.parametrize(
    "args, words",
    [
        (
            ["solve", "-s", "ortools-cpsat", "-n", "8", "--trace", "{tmp}/t.json"],
            "ortools-cpsat does not trace its steps",
        ),
        (["solve", "-s", "min-conflicts", "-n", "65", "--trace", "{tmp}/t.json"], "up to n = 64"),
        (["solve", "-s", "min-conflicts", "-n", "8", "--trace", "{tmp}/not-a-trace.json/t.json"], "cannot make folder"),
        (["animate", "{tmp}/missing.json", "-o", "{tmp}/a.html"], "does not exist"),
        (["animate", "{tmp}/not-a-trace.json", "-o", "{tmp}/a.html"], "is not a trace file"),
        (["animate", "{tmp}/good.json", "-o", "{tmp}/a.mp4"], "must end in .html, .svg or .gif"),
    ],
)
def test_bad_trace_input_is_one_line(tmp_path: Path, run_cli, args: list[str], words: str) -> None:
    (tmp_path / "not-a-trace.json").write_text('{"format": "something else"}')
    nq.solve("backtracking", 5, trace=tmp_path / "good.json")
    code, _, err = run_cli(*[arg.format(tmp=tmp_path) for arg in args])
    assert code == 2 and words in err and err.count("\n") == 1


@needs_chromium
def test_the_animation_page_runs_in_chromium(tmp_path: Path, run_cli) -> None:
    nq.solve("min-conflicts", 12, seed=1, trace=tmp_path / "run.json")
    page = tmp_path / "run.html"
    assert run_cli("animate", str(tmp_path / "run.json"), "-o", str(page))[0] == 0
    pixels, console = render_in_chromium(page, 700, 900)
    assert not console, console
    board = pixels[190:660, 25:500]  # where the script draws the board: squares, so not blank
    assert board.std() > 0.05


def test_nq_animation_shows_a_traced_run_and_saves_it_as_the_command_does(tmp_path: Path, run_cli) -> None:
    traced = nq.solve("min-conflicts", 8, seed=2, trace=tmp_path / "run.json")
    shown = nq.animation(traced)
    assert shown.frames == len(traced.trace.events) + 1
    assert shown._repr_html_().startswith("<iframe srcdoc=") and "&lt;svg" in shown._repr_html_()
    assert shown.save(tmp_path / "api.html") == shown.frames
    assert run_cli("animate", str(tmp_path / "run.json"), "-o", str(tmp_path / "cli.html"))[0] == 0
    assert (tmp_path / "api.html").read_text() == (tmp_path / "cli.html").read_text()
    assert nq.animation(tmp_path / "run.json").frames == shown.frames
    with pytest.raises(nq.BadInput, match="this run was not traced: solve it with trace=True"):
        nq.animation(nq.solve("min-conflicts", 8, seed=2))
