"""count --out FILE / --resume: a long count kept piece by piece, continued after a kill or a time limit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import nqueens_plugins as nq
from nqueens_plugins import BadInput, Solver, Status
from nqueens_plugins.formats.count_pieces import read

# A counting solver whose 24 pieces take 0.15 s each: slow enough to be stopped half way, and its pieces
# add up to A000170's 4 for n = 6. One source for both uses: a child script's __main__, and this process.
SLOW_PIECES = """
import time
from nqueens_plugins import Count, Outcome, Solver, Status


class SlowPieces(Solver):
    name = "slow-pieces"
    summary = "Counts n = 6 in 24 slow pieces."
    complete = True
    can_count = True

    def solve(self, problem, rng, budget, options):
        return Outcome(Status.GAVE_UP)

    def count(self, problem, budget, options, unique):
        return Count(Status.SOLVED, 4)

    def count_parts(self, problem, options, unique):
        return list(range(24))

    def count_part(self, problem, budget, options, unique, part):
        time.sleep(0.15)
        return Count(Status.SOLVED, 1 if part % 6 == 0 else 0, iterations=1)
"""

SLOW_COUNTER = (
    SLOW_PIECES
    + """
import sys
import nqueens_plugins as nq

nq.register(SlowPieces())
result = nq.count("slow-pieces", 6, out=sys.argv[1], resume=len(sys.argv) > 2)
print(result.solutions, result.verified, result.counters.get("parts_resumed", 0), flush=True)
"""
)


def slow_pieces_solver() -> Solver:
    """SLOW_PIECES' solver made in this process, in a module no worker can import: it travels by value."""
    namespace: dict[str, object] = {"__name__": "slow_pieces_in_a_test"}
    exec(SLOW_PIECES, namespace)  # noqa: S102 - the test's own source text
    return namespace["SlowPieces"]()  # type: ignore[operator]


def test_a_killed_count_resumes_and_loses_only_the_pieces_in_flight(tmp_path: Path) -> None:
    script, out = tmp_path / "slow.py", tmp_path / "pieces.jsonl"
    script.write_text(textwrap.dedent(SLOW_COUNTER))
    command = subprocess.Popen([sys.executable, str(script), str(out)], start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or out.read_text().count("\n") < 6):
        time.sleep(0.05)
    os.killpg(command.pid, signal.SIGKILL)
    command.wait()
    _, finished = read(out)
    assert 5 <= len(finished) < 24  # killed half way, the finished pieces kept
    done = subprocess.run(
        [sys.executable, str(script), str(out), "resume"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    solutions, verified, resumed = done.stdout.split()
    assert (solutions, verified) == ("4", "True") and int(resumed) == len(finished)
    _, finished = read(out)
    assert sorted(finished) == list(range(24))  # every piece once


def test_a_count_stopped_by_its_time_limit_resumes_to_the_oeis_total(tmp_path: Path) -> None:
    """24 pieces of 0.15 s each cannot all be counted in 1 s on two workers (3.6 s of sleeping)."""
    out = tmp_path / "pieces.jsonl"
    nq.register(slow_pieces_solver())
    stopped = nq.count("slow-pieces", 6, out=out, limits=nq.Limits(timeout=1.0))
    header, finished = read(out)
    assert stopped.status is Status.TIMED_OUT and header["pieces"] == stopped.counters["parts"] == 24
    assert stopped.counters["parts_counted"] == len(finished) < 24
    resumed = nq.count("slow-pieces", 6, out=out, resume=True)
    assert resumed.solutions == 4 and resumed.verified is True
    assert resumed.counters["parts_resumed"] == len(finished)
    assert resumed.counters["parts_counted"] == 24 and sorted(read(out)[1]) == list(range(24))


def test_a_line_cut_short_by_a_kill_is_left_behind(tmp_path: Path) -> None:
    out = tmp_path / "pieces.jsonl"
    nq.count("bitboard", 12, out=out)
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[:-3]) + "\n" + lines[-3][: len(lines[-3]) // 2])  # two lost, one cut
    resumed = nq.count("bitboard", 12, out=out, resume=True)
    assert resumed.solutions == 14_200 and resumed.verified is True
    assert resumed.counters["parts_resumed"] == len(lines) - 1 - 3
    after = out.read_text().splitlines()
    assert after[len(lines) - 3] == lines[-3][: len(lines[-3]) // 2]  # the cut line stays, on a line of its own
    assert all(json.loads(line) for line in after[len(lines) - 2 :])
    assert sorted(read(out)[1]) == list(range(len(lines) - 1))


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["-n", "13"], "holds the count of n = 12 with bitboard, not of n = 13 with bitboard: choose another --out"),
        (["-n", "12", "--unique"], "not of n = 12 with bitboard (--unique)"),
        (["-n", "12", "-s", "bitboard[kernel=python]"], "not of n = 12 with bitboard[kernel=python]"),
    ],
)
def test_resuming_another_count_is_one_line(run_cli, tmp_path: Path, args: list[str], words: str) -> None:
    out = str(tmp_path / "pieces.jsonl")
    assert run_cli("count", "-n", "12", "--out", out)[0] == 0
    code, _, err = run_cli("count", *args, "--out", out, "--resume")
    assert code == 2 and words in err and err.count("\n") == 1


def test_a_count_in_one_piece_is_kept_as_one(tmp_path: Path) -> None:
    """A solver that does not split its count (or a board too small to split) still keeps it in --out."""
    out = tmp_path / "pieces.jsonl"
    first = nq.count("backtracking", 8, out=out)
    header, finished = read(out)
    assert first.solutions == 92 and header["pieces"] == 1 and finished[0]["solutions"] == 92
    again = nq.count("backtracking", 8, out=out, resume=True)
    assert again.solutions == 92 and again.verified is True and again.counters["parts_resumed"] == 1


def test_what_cannot_be_kept_or_resumed_is_one_line(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "pieces.jsonl"
    assert run_cli("count", "-n", "9", "--out", str(out))[0] == 0
    for args, words in (
        (["-n", "9", "--out", str(out)], "already exists: add --resume"),
        (["-n", "9", "--resume"], "--resume continues the count kept in --out FILE"),
        (["-n", "9", "--out", str(tmp_path), "--resume"], "it is a folder"),
        (["-n", "9", "--out", __file__, "--resume"], "is not the pieces file of a count"),
    ):
        code, _, err = run_cli("count", *args)
        assert code == 2 and words in err and err.count("\n") == 1, (args, err)
    deep = tmp_path / "new" / "folder" / "pieces.jsonl"  # a missing folder is refused, as for every --out
    with pytest.raises(BadInput, match="does not exist; make it first"):
        nq.count("bitboard", 12, out=deep)
    assert not (tmp_path / "new").exists()
    deep.parent.mkdir(parents=True)
    assert nq.count("bitboard", 12, out=deep).verified is True and read(deep)[0]["n"] == 12
    with pytest.raises(BadInput, match="leave isolate on"):
        nq.count("bitboard", 8, out=tmp_path / "x.jsonl", isolate=False)
