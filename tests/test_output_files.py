"""One rule for every file the suite writes whole (``formats/output_files.py``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.formats.output_files import check_output, existing_kind, write_whole

RESULTS_HEADER = json.dumps({"type": "header", "format": "nqueens-results", "format_version": 1}) + "\n"


def test_the_file_being_read_is_never_the_output_however_it_is_spelled(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text(RESULTS_HEADER)
    (tmp_path / "sub").mkdir()
    for spelling in (runs, tmp_path / "sub" / ".." / "runs.jsonl"):
        with pytest.raises(BadInput, match="is the file this command reads"):
            check_output(spelling, "a results file", reading=[runs])
    os.link(runs, tmp_path / "hard-link.jsonl")
    with pytest.raises(BadInput, match="is the file this command reads"):
        check_output(tmp_path / "hard-link.jsonl", "a results file", reading=[runs])


def test_a_data_file_of_another_kind_is_not_replaced(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text(RESULTS_HEADER)
    with pytest.raises(BadInput, match="is a results file; it is not replaced by a report"):
        check_output(runs, "a report")
    instance = tmp_path / "board.param"
    instance.write_text("letting n = 8\n")
    with pytest.raises(BadInput, match="is an instance file"):
        check_output(instance, "a trace", flag="--trace")
    notes = tmp_path / "report.md"
    notes.write_text("an earlier report\n")
    check_output(notes, "a report")  # not a data file of ours: replaced, as any -o would
    check_output(runs, "a results file")  # the same kind: its own writer decides


def test_links_folders_and_special_files_are_refused(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    link = tmp_path / "link.html"
    link.symlink_to(target)
    with pytest.raises(BadInput, match="is a symbolic link"):
        check_output(link, "a report")
    with pytest.raises(BadInput, match="it is a folder"):
        check_output(tmp_path, "a report")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(BadInput, match="not a regular file"):
        check_output(fifo, "a report")
    assert existing_kind(fifo) is None  # sniffing never opens a FIFO (it would block)
    assert target.read_text() == "keep me\n"


def test_a_failed_write_leaves_the_earlier_file_and_no_temporary(tmp_path: Path, monkeypatch) -> None:
    page = tmp_path / "report.html"
    page.write_text("the earlier report")
    page.chmod(0o640)

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(BadInput, match="No space left on device; nothing was written there"):
        write_whole(page, "x" * 100_000)
    assert page.read_text() == "the earlier report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]
    monkeypatch.undo()
    write_whole(page, "the new report")
    assert page.read_text() == "the new report"
    assert (page.stat().st_mode & 0o777) == 0o640  # a replaced file keeps its permissions
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]
