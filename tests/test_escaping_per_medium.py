"""Issue 52, "A file from someone else, again": names escaped for each medium they reach (CSV on a terminal,
library warnings, Markdown), no folder made that was not asked for, no traceback from a folder that changes
while it is walked."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.formats import instances, output_files

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


RESULTS = (
    '{"type":"header","format":"nqueens-results","format_version":1}\n'
    '{"type":"run","record_version":2,"solver":"min-conflicts","name":"min-conflicts","options":{},"seed":0,'
    '"trial":0,"status":"solved","verified":true,"reason":null,"queens":[4,2,0,5,3,1],"iterations":120,'
    '"moves":64,"counters":{},"seconds":0.0017,"n":6,"fixed":{},"blocked":[],"instance":null,"source":null,'
    '"timeout":10.0}\n'
)
