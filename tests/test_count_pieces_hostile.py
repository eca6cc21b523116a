"""A count's pieces file from someone else (issue 37, rows 2 and 3): no forged count, no traceback, no hang.

What a pieces file holds is added to a count that no solver checks (an instance's
count has no OEIS entry), so resuming accepts only pieces of the count's own
split, each once, with whole non-negative counts; anything else refuses the file
in one line. One command at a time writes a pieces file, and a full disk is one
line that leaves the finished pieces in the file.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_count_pieces import SLOW_PIECES  # tests/ is on sys.path (conftest.py)

import nqueens_plugins as nq
from nqueens_plugins import BadInput, Count, Status
from nqueens_plugins.formats import count_pieces
from nqueens_plugins.formats.count_pieces import MAX_FILE_BYTES, MAX_LINE_BYTES, PiecesFile, read

HERE = Path(__file__).parent
HOSTILE = HERE / "data" / "hostile" / "pieces"
INSTANCE = str(HERE / "data" / "blockedqueens.28.1449787894.param")  # 10 solutions, in 130 pieces
SECONDS = 5  # the issue's bound for every refusal (each takes milliseconds)
RunCli = Callable[..., tuple[int, str, str]]


def one_line(message: str) -> bool:
    return "\n" not in message.strip() and "Traceback" not in message


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("index-out-of-range.jsonl", "line 3: piece 100,000 is not one of this count's 4 pieces (0 to 3)"),
        ("negative-index.jsonl", "line 2: piece -1 is not one of this count's 4 pieces"),
        ("index-not-whole.jsonl", "line 3: a piece without a whole-number index"),
        ("bare-line.jsonl", "line 3: not a piece"),
        ("negative-solutions.jsonl", "line 2: solutions -5 is negative"),
        ("bool-solutions.jsonl", "line 2: solutions missing or not a whole number"),
        ("float-solutions.jsonl", "line 2: solutions missing or not a whole number"),
        ("text-solutions.jsonl", "line 2: solutions missing or not a whole number"),
        ("missing-solutions.jsonl", "line 2: solutions missing or not a whole number"),
        ("negative-iterations.jsonl", "line 2: iterations -3 is negative"),
        ("conflicting-duplicate.jsonl", "line 4: piece 0 again, with 9 solutions, not 1"),
        ("nan-seconds.jsonl", "line 2: not a JSON line"),
        ("infinite-solutions.jsonl", "line 2: not a JSON line"),
        ("huge-solutions.jsonl", "line 2: not a JSON line"),
        ("text-counter.jsonl", "line 2: counters are not a table"),
        ("not-json.jsonl", "line 3: not a JSON line"),
        ("not-utf8.jsonl", "line 2: not UTF-8 text"),
        ("header-escape.jsonl", "line 1: the header's 'solver' is missing or not what a count writes"),
        ("header-pieces-negative.jsonl", "line 1: the header's 'pieces' is missing or not what a count writes"),
    ],
)
def test_a_crafted_pieces_file_is_refused_in_one_line(name: str, words: str) -> None:
    with pytest.raises(BadInput) as refused:
        read(HOSTILE / name)
    assert words in str(refused.value) and one_line(str(refused.value))
    assert "\x1b" not in str(refused.value)  # the file's own words never reach the terminal


def test_what_a_kill_leaves_is_passed_over_and_only_that(tmp_path: Path) -> None:
    """Lines cut short (mid-file after a resume, or last), a blank line, and a piece written twice with the
    same count (two commands appending before files were locked) are read: each piece counted once. Broken
    JSON that is not the start of a piece line is no kill's doing, and refuses the file."""
    _, torn = read(HOSTILE / "torn-lines.jsonl")
    assert sorted(torn) == [0, 2]  # 1 and 3 were cut short: counted again on resume
    _, twice = read(HOSTILE / "same-duplicate.jsonl")
    assert sorted(twice) == [0, 1, 2] and sum(piece["solutions"] for piece in twice.values()) == 2
    header, first, *_ = (HOSTILE / "torn-lines.jsonl").read_text().splitlines()
    for cut, refused in (('{"type": "piece", "index": 3, "sol', False), ('{"index": 3, "sol', True), ("[1, 2", True)):
        path = tmp_path / "cut.jsonl"
        path.write_text(f"{header}\n{cut}\n{first}\n")
        if refused:
            with pytest.raises(BadInput, match="line 2: not a JSON line"):
                read(path)
        else:
            assert sorted(read(path)[1]) == [0]


def count_instance(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "nqueens_plugins", "count", "--instance", INSTANCE, "--out", str(out), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def counted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The issue's count, kept piece by piece: 10 solutions of an ASP Blocked instance in 130 pieces."""
    out = tmp_path_factory.mktemp("pieces") / "p.jsonl"
    done = count_instance(out)
    assert done.returncode == 0 and "counted 10 solutions" in done.stdout, done.stderr
    return out


def solutions(line: str) -> int:
    return int(json.loads(line)["solutions"])


def add_a_piece_out_of_range(lines: list[str]) -> list[str]:
    forged = {"type": "piece", "index": 100000, "solutions": 77, "iterations": 1, "counters": {}, "seconds": 0.1}
    return [*lines, json.dumps(forged)]


def add_the_issue_line(lines: list[str]) -> list[str]:
    return [*lines, '{"index":100000,"solutions":77}']


def make_a_count_negative(lines: list[str]) -> list[str]:
    number = next(i for i, line in enumerate(lines) if i and solutions(line) == 0)
    return [*lines[:number], lines[number].replace('"solutions": 0', '"solutions": -5'), *lines[number + 1 :]]


def add_a_conflicting_duplicate(lines: list[str]) -> list[str]:
    zero = next(line for line in lines[1:] if solutions(line) == 0)
    return [*lines, zero.replace('"solutions": 0', '"solutions": 7')]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (add_a_piece_out_of_range, "line 132: piece 100,000 is not one of this count's 130 pieces (0 to 129)"),
        (add_the_issue_line, "line 132: not a piece"),
        (make_a_count_negative, "solutions -5 is negative"),
        (add_a_conflicting_duplicate, "line 132: piece"),
    ],
)
def test_resuming_a_forged_count_is_refused_and_the_file_left_as_it_was(
    counted: Path, tmp_path: Path, change: Callable[[list[str]], list[str]], words: str
) -> None:
    """Issue 37 row 2: exit 0 and "counted 87 solutions" (true: 10) before; now one line and exit 2."""
    out = tmp_path / "p.jsonl"
    out.write_text("\n".join(change(counted.read_text().splitlines())) + "\n")
    before = out.read_bytes()
    done = count_instance(out, "--resume")
    assert done.returncode == 2 and words in done.stderr and one_line(done.stderr), done.stderr
    assert done.stdout == "" and out.read_bytes() == before
    if change is add_a_conflicting_duplicate:
        assert "again, with 7 solutions, not 0" in done.stderr


def test_a_piece_written_twice_with_the_same_count_is_counted_once(counted: Path, tmp_path: Path) -> None:
    """As two commands appending to one file left it before files were locked; and pieces lost to a kill."""
    out = tmp_path / "p.jsonl"
    header, *body = counted.read_text().splitlines()
    found = [line for line in body if solutions(line)]  # the pieces that hold the 10 solutions
    out.write_text("\n".join([header, *(line for line in body[:60] if not solutions(line)), *found, *found]) + "\n")
    done = count_instance(out, "--resume")
    assert done.returncode == 0 and "counted 10 solutions" in done.stdout and "parts_counted 130 " in done.stdout
    _, finished = read(out)
    assert sorted(finished) == list(range(130))
    out.write_text(out.read_text() + found[0] + "\n")  # a third time: no two writers leave that
    done = count_instance(out, "--resume")
    assert done.returncode == 2 and "a third time" in done.stderr and one_line(done.stderr), done.stderr


def test_a_refusal_takes_no_time_and_reads_no_more_than_it_must(tmp_path: Path) -> None:
    """Nested 100,000 deep (a RecursionError before), nested 10,000 deep within the line limit, a line
    past the limit and a file past the size limit (sparse: refused by its size, never read)."""
    header = (HOSTILE / "same-duplicate.jsonl").read_text().splitlines()[0]
    cases = {
        "deep.jsonl": (header + "\n" + "[" * 100_000 + "]" * 100_000 + "\n", f"line 2: longer than {MAX_LINE_BYTES:,}"),
        "deep-short.jsonl": (header + "\n" + "[" * 10_000 + "]" * 10_000 + "\n", "line 2: nested too deep"),
        "deep-piece.jsonl": (header + '\n{"type": "piece", "index": ' + "[" * 10_000 + "\n", "line 2: nested too deep"),
        "deep-header.jsonl": ("{" * 30_000 + "\n", "is not the pieces file of a count"),
        "one-long-line.jsonl": (header + "\n" + " " * (10 * MAX_LINE_BYTES), f"line 2: longer than {MAX_LINE_BYTES:,}"),
    }
    for name, (text, words) in cases.items():
        (tmp_path / name).write_text(text)
        start = time.monotonic()
        with pytest.raises(BadInput, match=words.replace("(", r"\(")) as refused:
            read(tmp_path / name)
        assert time.monotonic() - start < SECONDS and one_line(str(refused.value)), name
    huge = tmp_path / "huge.jsonl"
    huge.write_text(header + "\n")
    os.truncate(huge, MAX_FILE_BYTES + 1)
    with pytest.raises(BadInput, match="more than a pieces file holds"):
        read(huge)


READ_ONE = """
import json, resource, sys, time
from pathlib import Path
resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, resource.RLIM_INFINITY))  # before the fix: a MemoryError
from nqueens_plugins import BadInput
from nqueens_plugins.formats.count_pieces import read
start = time.monotonic()
try:
    read(Path(sys.argv[1]))
    message = None
except BadInput as exc:
    message = str(exc)
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent's memory (a test worker's gigabyte)
used = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:")) * 1024
print(json.dumps({"message": message, "seconds": time.monotonic() - start, "resident": used}))
"""


@pytest.mark.parametrize(
    "special", ["fifo", "/dev/zero", "/proc/self/status", "/proc/self/mem", "folder", "link-to-zero"]
)
def test_the_reader_refuses_special_files_without_reading_them(tmp_path: Path, special: str) -> None:
    """Before: a FIFO blocked forever, /dev/zero read to a MemoryError, a /proc file was read whole."""
    path = {"fifo": tmp_path / "fifo", "folder": tmp_path, "link-to-zero": tmp_path / "link"}.get(
        special, Path(special)
    )
    if special == "fifo":
        os.mkfifo(path)
    if special == "link-to-zero":
        path.symlink_to("/dev/zero")
    done = subprocess.run(
        [sys.executable, "-c", READ_ONE, str(path)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["message"] is not None and one_line(report["message"]), report
    assert "is not a regular file" in report["message"]
    assert report["seconds"] < SECONDS and report["resident"] < 500 * 2**20, report


# A counting solver of 24 pieces (test_count_pieces's) whose pieces from the third on wait until the test
# releases them: the first command is still writing when the second meets it, however busy the machine.
SLOW_COUNT = (
    SLOW_PIECES.replace("time.sleep(0.15)", "held(part)")
    + """
import os
import sys
import nqueens_plugins as nq


def held(part):
    deadline = time.monotonic() + 120
    while part >= 2 and not os.path.exists(os.environ["NQUEENS_TEST_RELEASE"]) and time.monotonic() < deadline:
        time.sleep(0.02)


nq.register(SlowPieces())
result = nq.count("slow-pieces", 6, out=sys.argv[1], resume=True)
print(result.solutions, result.verified, flush=True)
"""
)


def test_a_second_count_on_a_pieces_file_being_written_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: two `count --out f --resume` both ran, each writing every piece (128 lines for 64 pieces)."""
    script, out, release = tmp_path / "slow.py", tmp_path / "pieces.jsonl", tmp_path / "release"
    monkeypatch.setenv("NQUEENS_TEST_RELEASE", str(release))
    script.write_text(textwrap.dedent(SLOW_COUNT))
    first = subprocess.Popen([sys.executable, str(script), str(out)], stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not out.exists() or out.read_text().count("\n") < 2):
        time.sleep(0.02)
    second = subprocess.run(
        [sys.executable, str(script), str(out)], capture_output=True, text=True, timeout=120, check=False
    )
    release.touch()
    assert second.returncode != 0 and "is being written by another nqueens command" in second.stderr, second.stderr
    stdout, _ = first.communicate(timeout=120)
    assert first.returncode == 0 and stdout.split() == ["4", "True"]
    lines = out.read_text().splitlines()
    assert len(lines) == 25 and sorted(read(out)[1]) == list(range(24))  # every piece once


def test_the_lock_is_held_from_open_to_close(tmp_path: Path) -> None:
    """The lock in PiecesFile.open itself (under the check before any work), and let go at close."""
    out = tmp_path / "pieces.jsonl"

    def open_pieces(resume: bool) -> PiecesFile:
        return PiecesFile.open(
            out, resume=resume, solver="bitboard", problem=nq.problem_of(8), unique=False, parts=[0, 1]
        )

    first = open_pieces(resume=False)
    first.record(0, Count(Status.SOLVED, 40), 0.1)
    before = out.read_bytes()
    with pytest.raises(BadInput, match="being written by another nqueens command") as refused:
        open_pieces(resume=True)
    assert one_line(str(refused.value)) and out.read_bytes() == before
    first.close()
    again = open_pieces(resume=True)
    assert again.finished[0]["solutions"] == 40
    again.close()


# Runs the rest of its arguments as a command whose files cannot grow past argv[1] bytes: a full disk as the
# kernel reports it to a writer (EFBIG; Python ignores SIGXFSZ), with no root and no special file.
FILE_SIZE_LIMITED = """
import os, resource, sys
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
os.execv(sys.executable, [sys.executable, *sys.argv[2:]])
"""


def test_a_count_onto_a_full_disk_is_one_line_and_keeps_what_was_finished(run_cli: RunCli, tmp_path: Path) -> None:
    """Issue 37 row 3: `count -n 12 --out` on a full disk ended in `OSError` from PiecesFile.close.
    /dev/full cannot stand in for the disk: a pieces file is a regular file, and a device is refused first."""
    code, _, err = run_cli("count", "-n", "8", "--out", "/dev/full")
    assert code == 2 and "'/dev/full': it is not a regular file" in err and one_line(err)
    out = tmp_path / "pieces.jsonl"
    count = ["-m", "nqueens_plugins", "count", "-n", "12", "-s", "bitboard[kernel=python]", "--out", str(out)]
    command = [sys.executable, "-c", FILE_SIZE_LIMITED, "4096", *count]  # 20-odd of the 64 pieces fit
    env = {**os.environ, "NQUEENS_CACHE_DIR": str(tmp_path / "cache")}  # the probe's small file fits under the limit
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False, env=env)
    assert done.returncode == 2 and one_line(done.stderr), done.stderr
    assert "cannot write the count's pieces to" in done.stderr and "File too large" in done.stderr
    header, finished = read(out)  # every line whole: the one that did not fit was taken back
    assert header["pieces"] == 64 and 5 <= len(finished) < 64
    assert out.read_text().endswith("}\n")
    resumed = nq.count("bitboard", 12, out=out, resume=True, kernel="python")
    assert (
        resumed.solutions == 14_200 and resumed.verified is True and resumed.counters["parts_resumed"] == len(finished)
    )


def test_no_space_left_while_writing_a_piece_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ENOSPC half way through a line: the half is taken back, close raises nothing, the finished piece stays."""
    out = tmp_path / "pieces.jsonl"
    pieces = PiecesFile.open(out, resume=False, solver="bitboard", problem=nq.problem_of(8), unique=False, parts=[0, 1])
    pieces.record(0, Count(Status.SOLVED, 40), 0.1)
    kept = out.read_bytes()

    def half_then_full(fd: int, data: bytes) -> None:
        os.write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(count_pieces, "write_all", half_then_full)
    with pytest.raises(BadInput, match="No space left on device") as refused:
        pieces.record(1, Count(Status.SOLVED, 52), 0.1)
    assert one_line(str(refused.value))
    pieces.close()  # before: the buffered half line raised OSError here
    assert out.read_bytes() == kept


def test_counters_a_file_cannot_hold_are_left_out_not_a_traceback(tmp_path: Path) -> None:
    """A plugin's counters reach the file: keys that are no short strings, numbers too large to read back."""
    out = tmp_path / "pieces.jsonl"
    pieces = PiecesFile.open(out, resume=False, solver="bitboard", problem=nq.problem_of(8), unique=False, parts=[0])
    counters: dict[Any, Any] = {
        (1, 2): 3,
        "x" * 1000: 1,
        "big": 10**1000,
        "flag": True,
        "kept": 7,
        **{f"c{i}": i for i in range(200)},
    }
    pieces.record(0, Count(Status.SOLVED, 92, counters=counters), 0.1)
    pieces.close()
    _, finished = read(out)
    assert finished[0]["solutions"] == 92 and finished[0]["counters"]["kept"] == 7
    assert len(finished[0]["counters"]) == count_pieces.MAX_COUNTERS


HEADER = {
    "type": "header",
    "format": "nqueens-count-pieces",
    "version": 1,
    "solver": "bitboard",
    "n": 6,
    "problem": "a4d3c8e5b1f0",
    "plain": True,
    "unique": False,
    "pieces": 4,
    "fingerprint": None,
}
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
NUMBERS = st.integers(-3, 6) | st.integers() | st.floats() | st.booleans() | st.none() | st.text(max_size=3)
PIECE_LIKE = st.fixed_dictionaries(
    {"type": st.just("piece"), "index": NUMBERS, "solutions": NUMBERS, "iterations": NUMBERS, "seconds": NUMBERS},
    optional={"counters": st.dictionaries(st.text(max_size=5), NUMBERS, max_size=3) | JSON},
)
LINES = st.lists(
    PIECE_LIKE.map(json.dumps)
    | JSON.map(json.dumps)
    | st.text(max_size=60)
    | PIECE_LIKE.map(lambda p: json.dumps(p)[:25]),
    max_size=8,
)


@settings(max_examples=300, deadline=None)
@given(header=st.just(json.dumps(HEADER)) | JSON.map(json.dumps) | st.text(max_size=40), lines=LINES)
def test_the_reader_gives_valid_pieces_or_one_line(header: str, lines: list[str]) -> None:
    """Any JSON and any text: valid pieces of the header's split, or BadInput in one line; nothing else."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "pieces.jsonl"
        path.write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
        try:
            written, finished = read(path)
        except BadInput as exc:
            assert one_line(str(exc))
            return
    for index, piece in finished.items():
        assert type(index) is int and 0 <= index < written["pieces"] and piece["index"] == index
        for key in ("solutions", "iterations"):
            assert type(piece[key]) is int and piece[key] >= 0
        assert all(type(value) is int for value in piece["counters"].values())
