"""Step-by-step traces: every built-in method reports its steps, and replaying them gives its board."""

from __future__ import annotations

import json
import math
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from browser import needs_chromium, render_in_chromium
from hypothesis import given, settings
from hypothesis import strategies as st

import nqueens_plugins as nq
from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import replay
from nqueens_plugins.views.animate import animate, checked, frames_of, read_trace, trace_document

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
        result = nq.solve(spec, n, limits=nq.Limits(seed=seed, timeout=20), trace=True)
        assert result.trace is not None and result.trace.events, (spec, seed)
        boards = list(replay(n, result.trace.events))
        if result.queens is not None:
            assert boards[-1] == [int(r) for r in result.queens], (spec, seed)
        checked(trace_document(result))  # what the method reports is a trace the reader takes


@pytest.mark.parametrize(
    "spec", ["backtracking", "forward-checking[order=mrv]", "bitset-mrv", "min-conflicts", "bitboard"]
)
def test_traces_start_from_the_fixed_queens_and_avoid_blocked_squares(spec: str) -> None:
    fixed, blocked = {0: 2, 5: 6}, [(3, 3), (4, 4), (2, 0)]  # two solutions
    result = nq.solve(spec, 8, fixed=fixed, blocked=blocked, trace=True, limits=nq.Limits(seed=1, timeout=20))
    assert result.solved and result.trace is not None
    boards = list(replay(8, result.trace.events, fixed))
    assert boards[-1] == [int(r) for r in result.queens]
    for board in boards:
        assert all(board[c] == r for c, r in fixed.items())  # a fixed queen never moves
        assert not any(board[c] == r for c, r in blocked)  # and no queen stands on a blocked square


def test_a_traced_run_is_the_same_run(tmp_path: Path) -> None:
    for spec in ("min-conflicts", "simulated-annealing", "swap-search", "random-restart"):
        plain, traced = (
            nq.solve(spec, 16, limits=nq.Limits(seed=4)),
            nq.solve(spec, 16, limits=nq.Limits(seed=4), trace=True),
        )
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
        (["solve", "-s", "min-conflicts", "-n", "8", "--trace", "{tmp}/not-a-trace.json/t.json"], "is not a folder"),
        (["solve", "-s", "min-conflicts", "-n", "8", "--trace", "{tmp}/missing/t.json"], "does not exist"),
        (["solve", "-s", "min-conflicts", "-n", "8", "--trace", "{tmp}/not-a-trace.json"], "is not a trace"),
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
    nq.solve("min-conflicts", 12, limits=nq.Limits(seed=1), trace=tmp_path / "run.json")
    page = tmp_path / "run.html"
    assert run_cli("animate", str(tmp_path / "run.json"), "-o", str(page))[0] == 0
    pixels, console = render_in_chromium(page, 700, 900)
    assert not console, console
    board = pixels[190:660, 25:500]  # where the script draws the board: squares, so not blank
    assert board.std() > 0.05


def test_nq_animation_shows_a_traced_run_and_saves_it_as_the_command_does(tmp_path: Path, run_cli) -> None:
    traced = nq.solve("min-conflicts", 8, limits=nq.Limits(seed=2), trace=tmp_path / "run.json")
    shown = nq.animation(traced)
    assert shown.frames == len(traced.trace.events)  # from the initial board on: its first event
    assert shown._repr_html_().startswith("<iframe srcdoc=") and "&lt;svg" in shown._repr_html_()
    assert shown.save(tmp_path / "api.html") == shown.frames
    assert run_cli("animate", str(tmp_path / "run.json"), "-o", str(tmp_path / "cli.html"))[0] == 0
    assert (tmp_path / "api.html").read_text() == (tmp_path / "cli.html").read_text()
    assert nq.animation(tmp_path / "run.json").frames == shown.frames
    with pytest.raises(nq.BadInput, match="this run was not traced: solve it with trace=True"):
        nq.animation(nq.solve("min-conflicts", 8, limits=nq.Limits(seed=2)))


# --- step 0 is where the search starts ----------------------------------------------------------------


def test_a_local_search_opens_on_its_initial_board_and_a_constructive_one_on_the_empty_board(
    tmp_path: Path,
) -> None:
    """A local search starts from a whole board (its first event): step 0 is that board, not the empty
    board the replay begins with, which the search was never in. A constructive search's step 0 is the
    empty board (or the fixed queens alone), which is where it truly starts. The page says which."""
    local = trace_document(nq.solve("min-conflicts", 12, limits=nq.Limits(seed=2), trace=True))
    frames = frames_of(local)
    assert frames[0] == local["events"][0][1] and -1 not in frames[0]  # every column has its queen
    assert len(frames) == len(local["events"])
    constructive = trace_document(nq.solve("forward-checking", 8, trace=True))
    assert frames_of(constructive)[0] == [-1] * 8 and len(frames_of(constructive)) == len(constructive["events"]) + 1
    fixed = trace_document(nq.solve("backtracking", 8, fixed={0: 2}, trace=True))
    assert frames_of(fixed)[0] == [2] + [-1] * 7
    for document, words in ((local, "the initial board"), (constructive, "the empty board"), (fixed, "the fixed")):
        animate(document, tmp_path / "run.html")
        page = (tmp_path / "run.html").read_text()
        assert f"Step 0 is {words}" in page and f'"start":"{words}' in page


def test_the_gif_plots_cost_against_the_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The GIF's cost curve has its axes named (step; attacking pairs) and runs over the steps, not frames."""
    pytest.importorskip("matplotlib")
    from matplotlib.axes import Axes

    labelled: list[dict[str, Any]] = []
    original = Axes.set

    def recording(self: Axes, **kwargs: Any) -> Any:
        labelled.append(kwargs)
        return original(self, **kwargs)

    monkeypatch.setattr(Axes, "set", recording)
    monkeypatch.setattr("nqueens_plugins.views.animate.GIF_FRAMES", 5)  # a sample: frame 4 is the last step
    document = trace_document(nq.solve("min-conflicts", 8, limits=nq.Limits(seed=2), trace=True))
    assert animate(document, tmp_path / "run.gif") == 5
    assert {"xlabel": "step", "ylabel": "attacking pairs"} in labelled
    assert (tmp_path / "run.gif").read_bytes().startswith(b"GIF8")


# --- a broken trace is refused in one line -----------------------------------------------------------

GOOD = {
    "format": "nqueens-trace",
    "format_version": 1,
    "solver": "min-conflicts",
    "n": 4,
    "fixed": {},
    "blocked": [],
    "seed": 0,
    "status": "solved",
    "verified": True,
    "queens": [1, 3, 0, 2],
    "iterations": 2,
    "moves": 1,
    "truncated": False,
    "events": [["board", [1, 3, 0, 0]], ["move", 3, 2]],
}


def broken(**changes: Any) -> dict[str, Any]:
    return {key: value for key, value in (GOOD | changes).items() if value is not ...}  # ...: left out


@pytest.mark.parametrize(
    "document, words",
    [
        (broken(n=1_000_000_000, events=[]), "n is 1000000000, not a board size from 1 to 64"),  # issue 37, row 6
        (broken(n=-3), "n is -3"),
        (broken(n="abc"), 'n is "abc"'),
        (broken(n=math.nan), "n is NaN"),
        (broken(n=True), "n is true"),
        (broken(n=4.0), "n is 4.0"),
        (broken(n=...), "n is null"),
        (broken(n=65), "n is 65"),
        (broken(format_version=2), "format_version 2"),
        (broken(events=[["move", 4, 0]]), 'event 0 ["move", 4, 0] names no square of the 4x4 board'),
        (broken(events=[["place", 0, -1]]), "names no square of the 4x4 board"),
        (broken(events=[["remove", "0"]]), "names no square"),
        (broken(events=[["move", 0, True]]), "names no square"),
        (broken(events=[["board", [0, 1]]]), "is not one row (or -1) for each of the 4 columns"),
        (broken(events=[["board", [0, 1, 2, 4]]]), "is not one row (or -1)"),
        (broken(events=[["board", [0, 1, 2, [3]]]]), "is not one row (or -1)"),
        (broken(events=[["jump", 0, 1]]), "is not one of [place, column, row]"),
        (broken(events=[["move", 0]]), "is not one of"),
        (broken(events=[[]]), "is not one of"),
        (broken(events=[[["move"], 0, 1]]), "is not one of"),
        (broken(events=[5]), "event 0 5 is not one of"),
        (broken(events={"0": ["move", 0, 1]}), "its events are {"),
        (broken(events=...), "its events are null"),
        (broken(fixed={"4": 0}), 'its fixed queen "4": 0 is not on the 4x4 board'),
        (broken(fixed={"0": 1.5}), "its fixed queen"),
        (broken(fixed=[[0, 1]]), "are not a mapping"),
        (broken(blocked=[[0, 9]]), "its blocked square [0, 9]"),
        (broken(blocked=[[0]]), "its blocked square [0]"),
        (broken(queens=[0, 0, 0, 7]), "its queens [0, 0, 0, 7]"),
        (broken(solver=["x" * 100] * 100), 'its solver is ["xxxxx'),
        (broken(seed="zero"), 'its seed is "zero"'),
        (broken(seed=...), "it has no seed"),
        (broken(seed=None, solver=...), "it has no solver"),
        (broken(iterations=True), "its iterations is true"),
        (broken(verified="yes"), "its verified is"),
    ],
)
def test_a_broken_trace_is_one_line_and_exit_2(tmp_path: Path, run_cli, document: dict[str, Any], words: str) -> None:
    trace = tmp_path / "broken.json"
    trace.write_text(json.dumps(document))
    code, out, err = run_cli("animate", str(trace), "-o", str(tmp_path / "run.html"))
    assert code == 2 and err.count("\n") == 1 and "is not a usable trace" in err and words in err, err
    assert not (tmp_path / "run.html").exists() and not out


@pytest.mark.parametrize(
    "text, words",
    [
        ("[" * 100_000 + "]" * 100_000, "its JSON is nested too deeply"),
        ('{"format": "nqueens-trace", "n": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ('{"format": "nqueens-trace", "n": 1' + "0" * 5000 + "}", "is not a trace file (ValueError)"),
        ('{"format": "nqueens-trace", "n": 4, "events": [', "is not a trace file (JSONDecodeError)"),
        ("[]", "is not a trace file (written by nqueens solve --trace)"),
    ],
)
def test_unreadable_json_is_one_line_and_exit_2(tmp_path: Path, run_cli, text: str, words: str) -> None:
    trace = tmp_path / "broken.json"
    trace.write_text(text)
    code, _, err = run_cli("animate", str(trace), "-o", str(tmp_path / "run.html"))
    assert code == 2 and err.count("\n") == 1 and words in err, err


def test_a_huge_n_is_refused_before_anything_is_allocated(tmp_path: Path) -> None:
    """Issue 37, row 6: n = 1,000,000,000 with no events once made a list of a billion columns."""
    trace = tmp_path / "huge.json"
    trace.write_text(json.dumps(broken(n=10**9, events=[], queens=None)))
    tracemalloc.start()
    try:
        with pytest.raises(BadInput, match="n is 1000000000"):
            read_trace(trace)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000  # bytes: the file and its message, nothing sized by n


def test_a_plugins_broken_trace_is_refused_by_the_api_too() -> None:
    """A traced result carries what the plugin reported: nq.animation checks it as it checks a file."""
    result = nq.solve("min-conflicts", 8, limits=nq.Limits(seed=2), trace=True)
    result.trace.events.append(("move", 8, 0))
    with pytest.raises(BadInput, match="event .* names no square of the 8x8 board"):
        nq.animation(result)


def test_a_trace_of_numpy_values_is_taken_as_its_plain_numbers() -> None:
    """A method may report numpy's integers and arrays (Trace.boards keeps boards as given): they are numbers."""
    import numpy as np

    result = nq.solve("min-conflicts", 8, limits=nq.Limits(seed=2), trace=True)
    result.trace.events[:] = [(kind, *(np.asarray(part) for part in rest)) for kind, *rest in result.trace.events]
    assert nq.animation(result).frames == len(result.trace.events)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=6), inner, max_size=6),
    max_leaves=30,
)


@st.composite
def near_traces(draw: st.DrawFn) -> Any:
    """Arbitrary JSON, or a trace of a small board whose events hold small integers around the board's
    edges, some of its parts replaced by arbitrary JSON: about half of them usable, the rest refused
    for every reason there is, the further ones (an event late in the list) included."""
    if draw(st.integers(0, 4)) == 0:
        return draw(JSON)
    n = draw(st.integers(1, 5))
    near = st.integers(-1, n)
    event = st.one_of(
        st.tuples(st.sampled_from(["place", "move"]), near, near).map(list),
        st.tuples(st.just("remove"), near).map(list),
        st.tuples(st.just("board"), st.lists(near, min_size=n - 1, max_size=n + 1)).map(list),
    )
    document: dict[str, Any] = GOOD | {
        "n": n,
        "queens": draw(st.none() | st.lists(near, min_size=n, max_size=n)),
        "fixed": draw(st.dictionaries(near.map(str), near, max_size=2)),
        "blocked": draw(st.lists(st.lists(near, min_size=2, max_size=2), max_size=2)),
        "events": draw(st.lists(event, max_size=12)),
    }
    for key in draw(st.lists(st.sampled_from(sorted(GOOD)), max_size=2)):
        if draw(st.booleans()):
            document[key] = draw(JSON)
        else:
            document.pop(key, None)
    return document


@given(near_traces())
@settings(max_examples=200, deadline=None)
def test_any_json_is_a_usable_trace_or_bad_input(document: Any) -> None:
    """The reader's promise: whatever the file holds, a trace every view can draw, or BadInput; nothing else."""
    with tempfile.TemporaryDirectory() as scratch:
        trace = Path(scratch) / "trace.json"
        trace.write_text(json.dumps(document))
        try:
            read = read_trace(trace)
        except BadInput as exc:
            assert "\n" not in str(exc)
            return
        n = read["n"]
        frames = frames_of(read)
        assert all(len(board) == n and all(-1 <= row < n for row in board) for board in frames)
        assert animate(read, Path(scratch) / "run.html") == len(frames)
        assert animate(read, Path(scratch) / "run.svg") == len(frames)
