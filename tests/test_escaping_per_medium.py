"""Issue 52, "A file from someone else, again": names escaped for each medium they reach (CSV on a terminal,
library warnings, Markdown), no folder made that was not asked for, no traceback from a folder that changes
while it is walked."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.formats import instances, output_files
from nqueens_plugins.views import escaping
from nqueens_plugins.views.escaping import for_terminal

# --- no folder made that the user did not ask for -------------------------------------------------------------


def test_a_missing_folder_is_refused_not_made(tmp_path: Path) -> None:
    deep = tmp_path / "nonexistent" / "dir" / "r.html"
    with pytest.raises(BadInput, match="does not exist; make it first or correct -o"):
        output_files.check_output(deep, "a report")
    with pytest.raises(BadInput, match="correct --trace"):
        output_files.check_output(deep, "a trace", flag="--trace", keep_others=True)
    (tmp_path / "file").write_text("x")
    with pytest.raises(BadInput, match="is not a folder"):
        output_files.check_output(tmp_path / "file" / "r.html", "a report")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_a_folder_named_to_be_made_needs_its_parent(tmp_path: Path) -> None:
    output_files.check_new_folder(tmp_path / "proofs", "--keep-proofs")  # one new folder: asked for
    output_files.check_new_folder(tmp_path, "--keep-proofs")  # an existing folder is taken
    with pytest.raises(BadInput, match="does not exist"):
        output_files.check_new_folder(tmp_path / "nonexistent" / "proofs", "--keep-proofs")
    (tmp_path / "file").write_text("x")
    with pytest.raises(BadInput, match="is not a folder"):
        output_files.check_new_folder(tmp_path / "file", "--keep-proofs")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


OUTPUTS = [
    ("report", "{runs}", "--format", "html", "-o", "{deep}/r.html"),
    ("report", "{runs}", "--format", "markdown", "-o", "{deep}/r.md"),
    ("report", "{runs}", "--format", "aslib", "-o", "{deep}/scenario"),
    ("plot", "{runs}", "-o", "{deep}/p.svg"),
    ("solve", "-s", "min-conflicts", "-n", "8", "--trace", "{deep}/t.json"),
    ("compare", "-s", "construction", "-n", "8", "--out", "{deep}/c.jsonl"),
    ("count", "-s", "bitboard", "-n", "6", "--out", "{deep}/pieces.jsonl"),
    ("solve", "-s", "bitset-mrv", "-n", "3", "--keep-proofs", "{deep}/proofs"),
    ("instances", "generate", "completion", "-n", "8", "--out", "{deep}/family"),
    ("instances", "export", "-n", "8", "--format", "json", "-o", "{deep}/e.json"),
]


@pytest.mark.parametrize("args", OUTPUTS, ids=lambda args: " ".join(args[:2]) + " " + args[-2])
def test_every_output_flag_refuses_a_missing_folder(run_cli, tmp_path: Path, args: tuple[str, ...]) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text(RESULTS)
    deep = tmp_path / "nonexistent" / "dir"
    code, out, err = run_cli(*(arg.format(runs=runs, deep=deep) for arg in args))
    assert code == 2 and err.count("\n") == 1 and "does not exist" in err, (out, err)
    assert "wrote" not in out + err
    assert not (tmp_path / "nonexistent").exists()


def test_a_trace_never_replaces_a_file_that_is_not_a_trace(run_cli, tmp_path: Path) -> None:
    """As ``compare --out`` refuses an existing file that is not its own, ``--trace`` refuses one too: a user's
    notes are not replaced. An earlier trace (or an empty file) is replaced, as re-running a command does."""
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    code, _, err = run_cli("solve", "-s", "min-conflicts", "-n", "8", "--trace", str(notes))
    assert code == 2 and err.count("\n") == 1 and "is not a trace; it is not replaced" in err
    assert notes.read_text() == "my notes\n"
    code, _, err = run_cli("compare", "-s", "construction", "-n", "8", "--out", str(notes))
    assert code == 2 and notes.read_text() == "my notes\n"  # the rule --trace now follows
    trace = tmp_path / "t.json"
    trace.touch()
    for _ in range(2):
        code, _, err = run_cli("solve", "-s", "min-conflicts", "-n", "8", "--trace", str(trace))
        assert code == 0, err
        assert '"nqueens-trace"' in trace.read_text()


# --- a folder of instances that changes while it is walked ----------------------------------------------------


def instance_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "family"
    folder.mkdir()
    instances.generate("completion", 8, 2, 0, 3, folder)
    (folder / "gone").mkdir()
    (folder / "gone" / "deeper").mkdir()
    (folder / "locked").mkdir()
    return folder


def failing_scandir(monkeypatch: pytest.MonkeyPatch, name: str, error: type[OSError]) -> None:
    """``os.scandir`` of the subfolder ``name`` fails as it would had it vanished (or been locked) between the
    listing of its parent and its own: the race made certain, not timed."""
    real = os.scandir

    def scandir(path: Any = ".") -> Any:
        if Path(os.fspath(path)).name == name:
            raise error(
                2 if error is FileNotFoundError else 13,
                os.strerror(2 if error is FileNotFoundError else 13),
                os.fspath(path),
            )
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


def test_a_subfolder_that_vanishes_during_the_walk_is_passed_over(tmp_path: Path, monkeypatch) -> None:
    folder = instance_folder(tmp_path)
    failing_scandir(monkeypatch, "gone", FileNotFoundError)
    found = instances.load(str(folder))
    assert len(found) == 2


def test_a_subfolder_that_cannot_be_read_is_one_line(run_cli, tmp_path: Path, monkeypatch) -> None:
    folder = instance_folder(tmp_path)
    failing_scandir(monkeypatch, "locked", PermissionError)
    with pytest.raises(BadInput, match="cannot read the folder .*locked.* the instances below it would be missing"):
        instances.load(str(folder))
    code, _, err = run_cli("compare", "-s", "construction", "--instance", str(folder))
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err


def test_a_link_loop_in_a_folder_is_not_followed(tmp_path: Path) -> None:
    folder = instance_folder(tmp_path)
    (folder / "gone" / "loop").symlink_to(folder, target_is_directory=True)
    (folder / "dangling").symlink_to(folder / "nowhere")
    assert len(instances.load(str(folder))) == 2


def test_a_pattern_does_not_follow_a_link_back_up_the_tree(tmp_path: Path, monkeypatch) -> None:
    """``glob.glob`` followed ``sub/up -> ..`` forty levels deep (each instance read 41 times; two such links ran
    for minutes): a pattern is matched on a walk that follows no link to a folder, each file once."""
    folder = instance_folder(tmp_path)
    (folder / "gone" / "up").symlink_to("..", target_is_directory=True)
    (folder / "gone" / "deeper" / "x.param").write_text((next(folder.glob("*.param"))).read_text())
    (folder / ".hidden").mkdir()
    (folder / ".hidden" / "y.param").write_text("not read: hidden, as glob leaves it")
    monkeypatch.chdir(tmp_path)
    assert len(instances.load("family/**/*.param")) == 3
    assert len(instances.load(str(folder / "*" / "*" / "*.param"))) == 1
    assert len(instances.load("family/*.param")) == 2
    failing_scandir(monkeypatch, "locked", PermissionError)
    with pytest.raises(BadInput, match="cannot read the folder"):
        instances.load("family/**/*.param")
    assert len(instances.load("family/g*/*/*.param")) == 1  # a folder the pattern cannot reach is not listed


RESULTS = (
    '{"type":"header","format":"nqueens-results","format_version":1}\n'
    '{"type":"run","record_version":2,"solver":"min-conflicts","name":"min-conflicts","options":{},"seed":0,'
    '"trial":0,"status":"solved","verified":true,"reason":null,"queens":[4,2,0,5,3,1],"iterations":120,'
    '"moves":64,"counters":{},"seconds":0.0017,"n":6,"fixed":{},"blocked":[],"instance":null,"source":null,'
    '"timeout":10.0}\n'
)


# --- names escaped for each medium they reach -----------------------------------------------------------------

HOSTILE = "ev\x1b]0;TITLE\x07il\x9b31m|a\nb<img src=x>\r"
RAW = ("\x1b", "\x07", "\x9b", "\r")


def hostile_results(tmp_path: Path, name: str = HOSTILE) -> Path:
    runs = tmp_path / "names.jsonl"
    header, record = RESULTS.splitlines()
    hostile = json.loads(record)
    hostile["solver"] = hostile["name"] = name
    runs.write_text("\n".join([header, record, json.dumps(hostile)]) + "\n")
    return runs


def test_csv_on_stdout_is_escaped_as_the_table_is(run_cli, tmp_path: Path) -> None:
    runs = hostile_results(tmp_path)
    code, out, err = run_cli("report", str(runs), "--format", "csv")
    assert code == 0, err
    assert not any(char in out for char in RAW)
    lines = out.rstrip("\n").split("\n")
    assert len(lines) == 3  # the header and one line per row: a line break in a name is shown, not made
    rows = list(csv.reader(io.StringIO(out)))
    assert {row[0] for row in rows[1:]} == {"min-conflicts", "ev\\x1b]0;TITLE\\x07il\\x9b31m|a\\nb<img src=x>\\r"}
    assert all(len(row) == len(rows[0]) for row in rows)


def test_csv_written_with_o_keeps_the_exact_names(run_cli, tmp_path: Path) -> None:
    runs = hostile_results(tmp_path)
    target = tmp_path / "r.csv"
    code, _, err = run_cli("report", str(runs), "--format", "csv", "-o", str(target))
    assert code == 0, err
    with target.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert {row[0] for row in rows[1:]} == {"min-conflicts", HOSTILE}  # CSV's own quoting, every byte kept


@given(st.lists(st.lists(st.text(max_size=8), min_size=1, max_size=3), min_size=1, max_size=3))
@settings(max_examples=60, deadline=None)
def test_csv_reads_back_as_written_and_on_a_terminal_holds_no_control_character(rows: list[list[str]]) -> None:
    """``csv_text`` quotes a bare ``\\r`` too (Python's writer, ended by ``\\n``, did not: a reader split the
    row there); printed, each cell is ``for_terminal`` of itself, one line per row."""
    text = escaping.csv_text(rows)
    expected = [row if row != [""] else [""] for row in rows]
    assert [row or [""] for row in csv.reader(io.StringIO(text, newline=""))] == expected
    shown = escaping.csv_for_terminal(text)
    assert all(line.isprintable() for line in shown.split("\n"))
    printed = [row or [""] for row in csv.reader(io.StringIO(shown, newline=""))]
    assert printed == [[for_terminal(cell) for cell in row] for row in rows]


def test_a_carriage_return_in_a_name_stays_in_its_cell_in_a_csv_file(run_cli, tmp_path: Path) -> None:
    runs = hostile_results(tmp_path, "a\rb")
    target = tmp_path / "r.csv"
    assert run_cli("report", str(runs), "--format", "csv", "-o", str(target))[0] == 0
    with target.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert len(rows) == 3 and {row[0] for row in rows[1:]} == {"min-conflicts", "a\rb"}


def test_markdown_keeps_one_line_and_one_cell_per_name(run_cli, tmp_path: Path) -> None:
    """Every table of the page (the summary, the portfolio) keeps a line per row and as many cells per line as
    its header: a name's ``|``, line breaks and ``<img>`` are escaped inside its cell."""
    runs = hostile_results(tmp_path, "a|b\nc<img src=x>\r\n| d |\u2028e")
    code, out, err = run_cli("report", str(runs), "--format", "markdown")
    assert code == 0, err
    assert "<img" not in out and "\r" not in out and "\u2028" not in out
    tables = [block.split("\n") for block in out.strip("\n").split("\n\n") if block.startswith("|")]
    assert [len(table) for table in tables] == [4, 6]  # header, rule, 2 rows; header, rule, 4 rows
    for table in tables:
        assert len({len(re.findall(r"(?<!\\)(?:\\\\)*\|", line)) for line in table}) == 1, table


def nqueens(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command in a process of its own: what reaches stderr is what a terminal would get (in this process,
    pytest would record a library's warnings before they were printed)."""
    environment = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1]), "MPLBACKEND": "Agg"}
    return subprocess.run(
        [sys.executable, "-m", "nqueens_plugins", *args],
        check=False,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=environment,
        timeout=120,
    )


@pytest.mark.parametrize("fmt", ["html", "svg"])
def test_a_library_warning_never_carries_a_name_raw(tmp_path: Path, fmt: str) -> None:
    pytest.importorskip("matplotlib")
    runs = hostile_results(tmp_path, "名前\x1b]0;TITLE\x07\x9b31m\r")
    if fmt == "html":
        done = nqueens("report", str(runs), "--format", "html", "-o", str(tmp_path / "r.html"), cwd=tmp_path)
    else:
        done = nqueens("plot", str(runs), "-o", str(tmp_path / "p.svg"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not any(char in done.stderr for char in RAW)
    assert "UserWarning" not in done.stderr and ".py:" not in done.stderr
    warned = [line for line in done.stderr.splitlines() if "glyph" in line]
    assert len(warned) <= 1  # the characters a font lacks, in one line


def test_an_archive_members_name_is_shown_not_sent(run_cli, tmp_path: Path) -> None:
    """``instances show`` names the instance by its source: in an archive, a member name anyone may have chosen."""
    folder = tmp_path / "family"
    folder.mkdir()
    (made,) = instances.generate("completion", 8, 1, 0, 3, folder)
    archive = tmp_path / "family.tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(made, arcname="ev\x1b]0;TITLE\x07il\x9b.param")
    code, out, err = run_cli("instances", "show", str(archive))
    assert code == 0, err
    assert not any(char in out + err for char in RAW) and "\\x1b]0;TITLE\\x07il\\x9b" in out
