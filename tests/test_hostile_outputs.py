"""What a command writes never harms what is there (issue 37, rows 1, 5 and 14): the file it reads, a data
file of another kind, the target of a link; and a write is whole or not at all."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest


@pytest.fixture
def runs(run_cli, tmp_path: Path) -> Path:
    path = tmp_path / "runs.jsonl"
    code, _, err = run_cli(
        "compare", "-s", "min-conflicts,backtracking", "-n", "6,8", "--trials", "2", "--out", str(path)
    )
    assert code == 0, err
    return path


def one_line_refusal(code: int, err: str) -> None:
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (code, err)


@pytest.mark.parametrize(
    "args",
    [
        ("report", "{runs}", "--json", "-o", "{runs}"),
        ("report", "{runs}", "--format", "html", "-o", "{runs}"),
        ("report", "{runs}", "--format", "markdown", "-o", "{runs}"),
        ("plot", "{runs}", "-o", "{link}"),
        ("solve", "-s", "min-conflicts", "-n", "8", "--trace", "{runs}"),
        ("compare", "-s", "min-conflicts", "-n", "6", "--out", "{trace}"),
    ],
)
def test_no_command_writes_over_what_it_reads_or_another_kind_of_data(
    run_cli, runs: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    trace = tmp_path / "run.json"
    assert run_cli("solve", "-s", "min-conflicts", "-n", "6", "--trace", str(trace))[0] == 0
    link = tmp_path / "figure.png"
    link.symlink_to(runs)  # a link to the results file: writing through it would replace them
    before = {path: path.read_bytes() for path in (runs, trace)}
    code, _, err = run_cli(*(arg.format(runs=runs, link=link, trace=trace) for arg in args))
    one_line_refusal(code, err)
    assert {path: path.read_bytes() for path in (runs, trace)} == before


def test_an_earlier_report_survives_a_full_disk(run_cli, runs: Path, tmp_path: Path, monkeypatch) -> None:
    page = tmp_path / "report.html"
    page.write_text("the earlier report")

    def full_disk(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full_disk)
    code, _, err = run_cli("report", str(runs), "--format", "html", "-o", str(page))
    one_line_refusal(code, err)
    assert "No space left on device" in err and page.read_text() == "the earlier report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html", "run.json", "runs.jsonl"] or sorted(
        p.name for p in tmp_path.iterdir()
    ) == ["report.html", "runs.jsonl"]


@pytest.mark.parametrize("name", ["$\\frac{$", "$" + "\\sqrt{" * 300 + "$", "a$b$c"])
def test_plot_draws_any_solver_name_as_text(run_cli, runs: Path, tmp_path: Path, name: str) -> None:
    crafted = crafted_names(runs, tmp_path, name)
    figure = tmp_path / "figure.svg"
    code, _, err = run_cli("plot", str(crafted), "-o", str(figure))
    assert code == 0, err
    assert figure.read_text().startswith("<?xml")


def crafted_names(runs: Path, tmp_path: Path, name: str) -> Path:
    """The results file with backtracking's runs renamed ``name``."""
    crafted = tmp_path / "crafted.jsonl"
    lines = []
    for line in runs.read_text().splitlines():
        item = json.loads(line)
        if item.get("type") == "run" and item["solver"] == "backtracking":
            item["solver"] = item["name"] = name
        lines.append(json.dumps(item))
    crafted.write_text("\n".join(lines) + "\n")
    return crafted


ESCAPES = "\x1b]0;owned\x07\x1b[2J\x1b[31mred\u202e"


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_a_name_with_terminal_escapes_is_shown_never_sent(run_cli, runs: Path, tmp_path: Path, fmt: str) -> None:
    crafted = crafted_names(runs, tmp_path, ESCAPES)
    code, out, err = run_cli("report", str(crafted), "--format", fmt)
    assert code == 0, err
    assert "\x1b" not in out + err and "\x07" not in out and "\u202e" not in out
    assert "\\x1b]0;owned\\x07" in out.replace("\n", "") or "\\x1b]0;owned" in out, out


def test_markdown_cells_keep_their_table_and_carry_no_html(run_cli, runs: Path, tmp_path: Path) -> None:
    crafted = crafted_names(runs, tmp_path, "a|b\n| evil | row |\n<script>alert(1)</script>")
    code, out, err = run_cli("report", str(crafted), "--format", "markdown")
    assert code == 0, err
    summary, portfolio = out.strip().split("\n\n", 1)  # the comparison, then the portfolio table (two solvers)
    lines = summary.splitlines()
    assert len(lines) == 2 + 4  # header, rule, one row per solver and n: no row was injected
    widths = {len(line.replace("\\|", "").split("|")) for line in lines}
    assert len(widths) == 1, lines  # every row has the header's number of cells
    rows = [line for line in portfolio.splitlines() if line.startswith("|")]
    assert len(rows) == 2 + 4  # header, rule, virtual best, single best, the two solvers: none injected
    assert len({len(line.replace("\\|", "").split("|")) for line in rows}) == 1, rows
    assert "<script>" not in out and "&lt;script>" in out


def test_csv_never_carries_a_formula(run_cli, runs: Path, tmp_path: Path) -> None:
    import csv
    import io

    crafted = crafted_names(runs, tmp_path, '=HYPERLINK("http://example.com","click")')
    code, out, err = run_cli("report", str(crafted), "--format", "csv")
    assert code == 0, err
    cells = [cell for row in csv.reader(io.StringIO(out)) for cell in row]
    assert not [cell for cell in cells if cell.startswith(("=", "+", "@"))], cells
    assert "'=HYPERLINK" in out
    assert any(cell.startswith("-") for cell in cells) is False or all(
        float(cell) <= 0 for cell in cells if cell.startswith("-")
    )  # a negative number stays a number


def test_json_output_is_strict_json(run_cli, runs: Path) -> None:
    def refuse(token: str) -> None:
        raise ValueError(f"not JSON: {token}")

    for args in (("report", str(runs), "--json"), ("compare", "-s", "steepest-ascent", "-n", "8", "--json")):
        code, out, err = run_cli(*args)
        assert code == 0, err
        json.loads(out, parse_constant=refuse)  # no NaN, Infinity or -Infinity
