"""Every table the CLI prints fits the terminal it is printed on, 80 columns and up, and keeps its names.

Each table is rendered at 80, 100 and 120 columns and read back: every line fits, every row's line
begins with its names whole (solver, n, instance), and every figure of the row is still there, in
one part of the table or another. Piped output keeps the whole table on one line per row.
"""

from __future__ import annotations

import fcntl
import io
import json
import os
import re
import struct
import subprocess
import sys
import termios
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.console import Console

from nqueens_plugins.formats.records import environment
from nqueens_plugins.loading import host
from nqueens_plugins.results.crosscheck import Check
from nqueens_plugins.results.summary import baseline_rows, group_runs, summarise
from nqueens_plugins.views.report import crosscheck_table, plugins_table, render_baseline, render_summary

WIDTHS = (80, 100, 120)
README_SOLVERS = (  # the README's first command
    "min-conflicts",
    "simulated-annealing",
    "random-restart",
    "steepest-ascent",
    "forward-checking[order=mrv,values=middle]",
    "ortools-cpsat",
    "python-constraint",
)
SIZES = (8, 16, 32)
BODY_RULE = re.compile(r"^\s*[─━┡╇┩]+[─━┡╇┩\s]*$")  # the rule under a table's header
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def record(solver: str, n: int, trial: int, source: str | None = None) -> dict[str, Any]:
    """A run as compare writes it: steepest-ascent gives up (other outcomes and censored times), the rest solve."""
    gave_up = solver == "steepest-ascent" and trial % 3 != 0
    return {
        "type": "run",
        "solver": solver,
        "options": {},
        "seed": 0,
        "trial": trial,
        "n": n,
        "status": "gave-up" if gave_up else "solved",
        "verified": None if gave_up else True,
        "iterations": 10 + trial * n,
        "moves": 5 + trial,
        "counters": {},
        "seconds": 0.001 * (1 + trial) * n / 8 * (1 + README_SOLVERS.index(solver)),
        "fixed": {},
        "blocked": [],
        "instance": f"h{n}",
        "source": source,
        "timeout": 10.0,
        "version": "1.0",
    }


def records(sources: bool = False) -> list[dict[str, Any]]:
    return [
        record(solver, n, trial, f"diag-10-4-1.param@{n // 4}" if sources else None)
        for solver in README_SOLVERS
        for n in SIZES
        for trial in range(10)
    ]


def rendered(renderable: Any, width: int) -> list[str]:
    console = Console(width=width, file=io.StringIO(), color_system=None, highlight=False, markup=False)
    console.print(renderable)
    return console.file.getvalue().splitlines()  # type: ignore[attr-defined]


def body_lines(lines: Sequence[str]) -> list[list[str]]:
    """The body of each table (each part of a split one): the lines below its header's rule."""
    parts: list[list[str]] = []
    inside = False
    for line in lines:
        if BODY_RULE.match(line):
            parts.append([])
            inside = True
        elif inside and (not line.strip() or line.lstrip().startswith("└")):
            inside = False
        elif inside:
            parts[-1].append(line)
    return parts


def read_rows(lines: Sequence[str], labels: Sequence[Sequence[str]], width: int) -> dict[tuple[str, ...], str]:
    """Every row's text, gathered over the parts of the table, keyed by its labels, asserting on the way
    that every line fits, that each row begins with its labels whole, in every part, and that any other
    line (a wrapped cell) carries no piece of a name."""
    assert lines and all(cell_len(line) <= width for line in lines), "\n".join(lines)
    starts = {
        tuple(key): re.compile(r"^[│┃\s]*" + r"[│┃\s]+".join(re.escape(label) for label in key) + r"(?=[│┃\s]|$)")
        for key in labels
    }
    parts = body_lines(lines)
    assert parts, "\n".join(lines)
    texts: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for part in parts:
        seen: set[tuple[str, ...]] = set()
        current: tuple[str, ...] | None = None
        for line in part:
            found = [key for key, start in starts.items() if start.match(line)]
            if found:
                current = max(found, key=lambda key: len("".join(key)))  # "python-constraint 8", not "... 8" of 80
                seen.add(current)
            else:  # a wrapped cell of the row above: its name columns are blank
                names = {label for key in labels for label in key if len(label) > 3}
                assert current is not None and not any(name[:6] in line for name in names), "\n".join(part)
            texts[current].append(line)
        assert seen == set(starts), "rows missing from a part:\n" + "\n".join(part)
    return {key: " ".join(" ".join(re.split(r"[│┃\s]+", line)) for line in lines) for key, lines in texts.items()}


def assert_every_cell_shown(shown: dict[tuple[str, ...], str], markdown: str, label_columns: Sequence[int]) -> None:
    """Every word of every cell of the markdown table (which has them all) is in its row's text."""
    for line in markdown.splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        key = tuple(cells[i] for i in label_columns)
        words = set(shown[key].split())
        missing = [cell for cell in cells if not set(cell.split()) <= words]
        assert not missing, f"{key}: {missing} not shown in {shown[key]!r}"


@pytest.mark.parametrize("width", WIDTHS)
def test_the_comparison_table_keeps_every_name_and_figure(width: int) -> None:
    rows = summarise(records())
    shown = read_rows(rendered(render_summary(rows, "table"), width), [(r.solver, str(r.n)) for r in rows], width)
    assert_every_cell_shown(shown, render_summary(rows, "markdown"), (0, 1))


@pytest.mark.parametrize("width", WIDTHS)
def test_the_comparison_of_instances_keeps_solver_and_instance_names_whole(width: int) -> None:
    rows = summarise(records(sources=True))
    lines = rendered(render_summary(rows, "table"), width)
    assert all(cell_len(line) <= width for line in lines), "\n".join(lines)
    body = "\n".join(line for part in body_lines(lines) for line in part)
    for row in rows:
        # the row's first line names its solver and n (the instance beside or, in a narrow terminal, below)
        assert re.search(rf"^\s*{re.escape(row.solver)}\s.*\s{row.n}\s", body, re.MULTILINE), body
        assert row.instance is not None and re.search(rf"(^|\s){re.escape(row.instance)}(\s|$)", body, re.MULTILINE)


LONG_SPEC = "simulated-annealing[cooling=0.99,t0=8,init=greedy]"
LONG_PATH = "/home/someone/instances/excluded-diagonals/diag-10-4-1.param"


@pytest.mark.parametrize("width", WIDTHS)
def test_a_name_is_never_split_across_lines_where_the_labels_must_wrap(width: int) -> None:
    """A long spec beside a long instance path leaves no room for a figure at 80 columns: the labels wrap,
    between names only (a path at its slashes), never inside a solver's name."""
    runs = [
        record(solver, n, trial, f"{LONG_PATH}@{n // 4}") | {"solver": name}
        for solver, name in (("min-conflicts", "min-conflicts"), ("simulated-annealing", LONG_SPEC))
        for n in (8, 16)
        for trial in range(3)
    ]
    rows = summarise(runs)
    lines = rendered(render_summary(rows, "table"), width)
    assert all(cell_len(line) <= width for line in lines), "\n".join(lines)
    body = [line for part in body_lines(lines) for line in part]
    named = [line for line in body if "simulated-annealing" in line]
    assert named and all(LONG_SPEC in line for line in named), "\n".join(named)  # whole, wherever it is
    assert all(
        re.search(r"(^|\s)(/|diag-10-4-1\.param@\d)", line) for line in body if "param" in line or "/home" in line
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_the_baseline_table_keeps_every_name_and_figure(width: int) -> None:
    pytest.importorskip("scipy")
    groups, _ = group_runs(records())
    rows = baseline_rows(groups, "min-conflicts")
    table = render_baseline("min-conflicts", rows, "table")
    shown = read_rows(rendered(table, width), [(r.solver, str(r.n)) for r in rows], width)
    assert_every_cell_shown(shown, render_baseline("min-conflicts", rows, "markdown"), (0, 1))


@pytest.mark.parametrize("width", WIDTHS)
def test_the_cross_check_table_keeps_every_name_and_answer(width: int) -> None:
    checks = [
        Check(n, solver, task, answer, expected, True)
        for n in (4, 5, 6)
        for solver, task, answer, expected in (
            ("forward-checking[order=mrv,values=middle]", "count", str(n * 3), str(n * 3)),
            ("python-constraint", "solve", "solved", "solvable"),
            ("simulated-annealing", "solve", "timed-out", "solvable"),
        )
    ]
    shown = read_rows(rendered(crosscheck_table(checks), width), [(str(c.n), c.solver) for c in checks], width)
    for check in checks:
        text = shown[(str(check.n), check.solver)].split()
        assert {check.task, check.answer, check.expected} <= set(text) and ("yes" in text or "inconclusive" in text)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_plugin_listing_keeps_every_solver_name_whole(width: int) -> None:
    registry = host.registry()
    lines = rendered(plugins_table(registry), width)
    assert all(cell_len(line) <= width for line in lines), "\n".join(lines)
    for registration in registry:
        solver = registration.solver
        starts = [line for line in lines if re.match(rf"^ {{1,3}}{re.escape(solver.name)}(\s|$)", line)]  # 1st column
        assert len(starts) == 1, f"{solver.name} does not begin one line whole:\n" + "\n".join(lines)
        text = " ".join(lines[lines.index(starts[0]) :])  # its line and those below: what it is, whole words
        assert set(f"{solver.summary} {solver.family or '-'}".split()[:5]) <= set(text.split())
        assert all(f"{option.name}=" in text for option in solver.options)


# --- through the command, in a terminal of 80 columns, and piped ---------------------------


def write_results(path: Path, runs: list[dict[str, Any]]) -> Path:
    header = environment("test") | {"grid": {"seed": 0, "timeout": 10.0}}
    path.write_text("\n".join(json.dumps(item) for item in [header, *runs]) + "\n")
    return path


def in_terminal(args: Sequence[str], columns: int) -> str:
    """``nqueens ARGS`` with its output on a pseudo-terminal ``columns`` wide, as a user's terminal is."""
    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    environ = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES", "NO_COLOR")}
    environ["TERM"] = "xterm-256color"
    process = subprocess.Popen(
        [sys.executable, "-m", "nqueens_plugins", *args], stdin=follower, stdout=follower, stderr=follower, env=environ
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the command ended and closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.wait(timeout=120) == 0, b"".join(chunks).decode()
    return ANSI.sub("", b"".join(chunks).decode().replace("\r\n", "\n"))


def test_report_in_an_80_column_terminal_names_every_row(tmp_path: Path) -> None:
    results = write_results(tmp_path / "runs.jsonl", records())
    rows = summarise(records())
    everything = in_terminal(["report", str(results)], 80).splitlines()
    lines, portfolio = without_portfolio(everything)
    shown = read_rows(lines, [(r.solver, str(r.n)) for r in rows], 80)
    assert_every_cell_shown(shown, render_summary(rows, "markdown"), (0, 1))
    assert "split to fit 80 columns" in lines[0]
    # the part printed last, where a terminal is left scrolled, is the summary: decided and ERT
    last = lines[max(i for i, line in enumerate(lines) if line.startswith("comparison (")) :]
    heading = " ".join(line for line in last[: next(i for i, line in enumerate(last) if BODY_RULE.match(line))])
    assert re.match(r"comparison \((\d+) of \1\)", last[0]) and "decided" in heading and "ERT s" in heading, last
    # the portfolio table that follows fits too, every solver's name whole on its line
    assert portfolio and all(cell_len(line) <= 80 for line in portfolio), "\n".join(portfolio)
    for solver in {r.solver for r in rows}:
        assert any(line.lstrip().startswith(solver) for line in portfolio), (solver, portfolio)


def without_portfolio(lines: list[str]) -> tuple[list[str], list[str]]:
    """The comparison's lines, and the portfolio table's that follow them (two solvers or more, one board)."""
    start = next((i for i, line in enumerate(lines) if line.startswith("portfolio")), len(lines))
    return lines[:start], lines[start:]


def test_piped_output_stays_one_whole_table(tmp_path: Path, run_cli) -> None:
    results = write_results(tmp_path / "runs.jsonl", records())
    code, out, err = run_cli("report", str(results))
    assert code == 0, err
    assert not [line for line in out.splitlines() if line != line.rstrip()], "piped lines padded with blanks"
    lines, _ = without_portfolio(out.splitlines())
    assert lines[0].strip() == "comparison" and len(body_lines(lines)) == 1
    header = lines[2].split()
    assert header[:4] == ["solver", "n", "runs", "decided"] and header[-2:] == ["other", "outcomes"]
    assert sum(1 for line in lines if line.lstrip().startswith("forward-checking[order=mrv,values=middle]")) == 3


def test_every_piped_table_is_free_of_padding(run_cli) -> None:
    """rich pads a line to the console's width: piped (200 columns) that is a file or a log full of blanks. The
    plugins table, a cross-check's and a solve's summary come through the same console as the reports."""
    for command in (
        ("plugins",),
        ("cross-check", "-n", "6", "-s", "backtracking,bitset-mrv"),
        ("solve", "-s", "backtracking", "-n", "6"),
    ):
        code, out, err = run_cli(*command)
        assert code == 0, err
        padded = [line for line in out.splitlines() if line != line.rstrip()]
        assert out.strip() and not padded, f"{command}: {len(padded)} lines padded with blanks"
