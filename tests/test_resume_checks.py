"""A file from someone else, again (issue 52): a resumed count's pieces and a resumed tune's runs checked.

A forged pieces line changed a count of an instance no published answer checks, and a forged
tune record changed the best configuration, both silently. Now a resume makes a sample of the
kept answers again (drawn by the operating system's randomness; ``--verify-resumed 1`` makes them
all, which every forged-file test here asks for, so none depends on luck) and refuses the file,
exit 3, when one comes out otherwise; a repeated key in a pieces line and iterations no run has
are refused outright.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import nqueens_plugins as nq
from nqueens_plugins import BadInput

# the checks' own module is imported where a test uses it, so that each test, run against the code before
# issue 52, fails on what it checks rather than all of them on a missing import

BLOCKED = ["count", "-n", "12", "--blocked", "0:0", "--no-progress"]  # 13,700 solutions in 64 pieces, no OEIS entry


def counted(run_cli: Any, out: Path, *more: str) -> tuple[int, str, str]:
    return run_cli(*BLOCKED, "--out", str(out), *more)


def pieces_of(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.read_text().splitlines()[1:]]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished pieces file of the blocked n = 12 count, copied by each test that changes it."""
    out = tmp_path_factory.mktemp("pieces") / "p.jsonl"
    result = nq.count("bitboard", 12, blocked="0:0", out=out)
    assert result.solutions == 13_700 and result.counters["parts"] == 64
    return out


def copy(finished: Path, tmp_path: Path) -> Path:
    out = tmp_path / "p.jsonl"
    out.write_bytes(finished.read_bytes())
    return out


# --- a count's pieces ---------------------------------------------------------------------------------------


def test_a_forged_piece_counted_again_refuses_the_resume_naming_the_piece_and_both_counts(
    finished: Path, tmp_path: Path, run_cli: Any
) -> None:
    out = copy(finished, tmp_path)
    lines = out.read_text().splitlines()
    piece = json.loads(lines[1])
    true = piece["solutions"]
    lines[1] = json.dumps({**piece, "solutions": 99_999})
    out.write_text("\n".join(lines) + "\n")
    before = out.read_bytes()
    code, shown, err = counted(run_cli, out, "--resume", "--verify-resumed", "1")
    assert code == 3, err
    assert f"piece {piece['index']} says 99,999 solutions, and counted again it has {true:,}" in err
    said = [line for line in err.splitlines() if "kernels once for this machine" not in line]  # a first compile's note
    assert "counted" not in shown and len(said) == 1 and "Traceback" not in err
    assert out.read_bytes() == before  # nothing written to a refused file


def test_verify_resumed_0_trusts_the_file_and_says_so(finished: Path, tmp_path: Path, run_cli: Any) -> None:
    out = copy(finished, tmp_path)
    lines = out.read_text().splitlines()
    piece = json.loads(lines[1])
    lines[1] = json.dumps({**piece, "solutions": piece["solutions"] + 1})
    out.write_text("\n".join(lines) + "\n")
    code, shown, err = counted(run_cli, out, "--resume", "--verify-resumed", "0", "--json")
    assert code == 0, err  # what the user asked for: the file's word, said to be that
    assert json.loads(shown)["solutions"] == 13_701 and json.loads(shown)["counters"]["parts_checked"] == 0
    assert "note: --verify-resumed 0: the pieces in " in err and "none counted again" in err


def test_a_piece_line_naming_a_key_twice_is_refused(finished: Path, tmp_path: Path, run_cli: Any) -> None:
    out = copy(finished, tmp_path)
    lines = out.read_text().splitlines()
    piece = json.loads(lines[1])
    # json.loads keeps the last of two keys: this line would read as 99,999 solutions
    lines[1] = lines[1].replace(
        f'"solutions": {piece["solutions"]},', f'"solutions": {piece["solutions"]}, "solutions": 99999,'
    )
    assert lines[1].count('"solutions"') == 2
    out.write_text("\n".join(lines) + "\n")
    code, _, err = counted(run_cli, out, "--resume")  # refused as it is read, before any piece is counted
    assert code == 2 and "line 2: a key twice in one object" in err and err.count("\n") == 1


def test_by_default_a_tenth_of_the_kept_pieces_is_counted_again_and_0_trusts_the_file(
    finished: Path, tmp_path: Path
) -> None:
    out = copy(finished, tmp_path)
    result = nq.count("bitboard", 12, blocked="0:0", out=out, resume=True)
    assert result.solutions == 13_700 and result.counters["parts_resumed"] == 64
    assert result.counters["parts_checked"] == 7  # a tenth of 64, rounded up
    trusted = nq.count("bitboard", 12, blocked="0:0", out=out, resume=True, verify_resumed=0)
    assert trusted.solutions == 13_700 and trusted.counters["parts_checked"] == 0
    every = nq.count("bitboard", 12, blocked="0:0", out=out, resume=True, verify_resumed=1)
    assert every.counters["parts_checked"] == 64


def test_a_count_kept_in_one_piece_is_counted_again_by_default(tmp_path: Path, run_cli: Any) -> None:
    # bitboard does not split n = 8: the file's one piece is the whole count, and at least one piece is checked
    out = tmp_path / "whole.jsonl"
    args = ["count", "-n", "8", "--blocked", "0:0", "--no-progress", "--json", "--out", str(out)]
    assert run_cli(*args)[0] == 0 and pieces_of(out)[0]["solutions"] == 88
    code, shown, err = run_cli(*args, "--resume")
    assert code == 0 and json.loads(shown)["counters"]["parts_checked"] == 1, err
    lines = out.read_text().splitlines()
    lines[1] = lines[1].replace('"solutions": 88,', '"solutions": 89,')
    out.write_text("\n".join(lines) + "\n")
    code, _, err = run_cli(*args, "--resume")
    assert code == 3 and "piece 0 says 89 solutions, and counted again it has 88" in err


def test_a_plain_board_is_checked_by_its_published_total_and_no_piece_is_counted_again(
    tmp_path: Path, run_cli: Any
) -> None:
    out = tmp_path / "plain.jsonl"
    assert nq.count("bitboard", 10, out=out).solutions == 724
    assert nq.count("bitboard", 10, out=out, resume=True, verify_resumed=1).counters["parts_checked"] == 0
    lines = out.read_text().splitlines()
    piece = json.loads(lines[1])
    lines[1] = json.dumps({**piece, "solutions": piece["solutions"] + 1})
    out.write_text("\n".join(lines) + "\n")
    code, _, err = run_cli("count", "-n", "10", "--no-progress", "--out", str(out), "--resume")
    assert code == 3, err  # OEIS refuses the total


@pytest.mark.parametrize("fraction", ["1.5", "-0.1", "nan"])
def test_a_fraction_out_of_range_is_one_line_and_exit_2(tmp_path: Path, run_cli: Any, fraction: str) -> None:
    code, _, err = counted(run_cli, tmp_path / "p.jsonl", "--resume", "--verify-resumed", fraction)
    assert code == 2 and "--verify-resumed is a fraction from 0" in err and err.count("\n") == 1
    with pytest.raises(BadInput, match="verify_resumed is a fraction"):
        nq.count("bitboard", 8, out=tmp_path / "q.jsonl", verify_resumed=float(fraction))
    with pytest.raises(BadInput, match="verify_resumed is a fraction"):
        nq.tune("simulated-annealing", "cooling=0.5..0.9", [8], budget=20, verify_resumed=float(fraction))
    code, _, err = run_cli(*TUNE, "--out", str(tmp_path / "t.jsonl"), "--resume", "--verify-resumed", fraction)
    assert code == 2 and "--verify-resumed is a fraction from 0" in err and err.count("\n") == 1


def test_the_sample_is_a_tenth_rounded_up_at_least_one_and_none_at_0() -> None:
    from nqueens_plugins.results.resume_checks import DEFAULT_FRACTION, draw_sample, sample_size

    assert DEFAULT_FRACTION == 0.1
    assert [sample_size(kept, 0.1) for kept in (0, 1, 9, 10, 11, 64, 256)] == [0, 1, 1, 1, 2, 7, 26]
    assert sample_size(64, 0) == 0 and sample_size(64, 1) == 64 and sample_size(3, 0.5) == 2
    chosen = draw_sample(range(64), 0.1, random.Random(1))
    assert len(chosen) == len(set(chosen)) == 7 and set(chosen) <= set(range(64))


def test_the_sample_is_drawn_by_the_operating_systems_randomness(monkeypatch: pytest.MonkeyPatch) -> None:
    from nqueens_plugins.results import resume_checks

    made: list[Any] = []

    class Recorded(random.Random):
        def __init__(self) -> None:
            made.append(self)
            super().__init__(0)

    monkeypatch.setattr(resume_checks.random, "SystemRandom", Recorded)
    assert (
        len(resume_checks.draw_sample(range(10), 0.5)) == 5 and len(made) == 1
    )  # not a seed of the file or the command


# --- a tune's runs ------------------------------------------------------------------------------------------

SPACE = "cooling=0.5..0.999,t0=0.1..1000:log,max_steps=1500"
TUNE = ["tune", "simulated-annealing", "--space", SPACE, "-n", "10,12", "--budget", "20", "--goal",
        "ert-iterations", "--test-runs", "2", "--seed", "5", "--timeout", "20", "--format", "json"]  # fmt: skip


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A finished tune's file and its best configuration."""
    out = tmp_path_factory.mktemp("tune") / "t.jsonl"
    tuning = nq.tune(
        "simulated-annealing", SPACE, [10, 12], budget=20, goal="ert-iterations", test_runs=2,
        limits=nq.Limits(seed=5, timeout=20),
        out=out,
    )  # fmt: skip
    return out, tuning.best


def forged_tune(tuned: tuple[Path, str], tmp_path: Path, change: dict[str, Any], pick: Any = None) -> Path:
    """A copy of the tune's file with one race run changed (the first not of the best configuration)."""
    source, best = tuned
    lines = source.read_text().splitlines()
    number = next(
        i for i, line in enumerate(lines)
        if '"type":"run"' in line.replace(" ", "") and json.loads(line)["solver"] != best
        and json.loads(line)["status"] == "solved" and (pick is None or pick(json.loads(line)))
    )  # fmt: skip
    lines[number] = json.dumps({**json.loads(lines[number]), **change})
    out = tmp_path / "t.jsonl"
    out.write_text("\n".join(lines) + "\n")
    return out


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"iterations": 1}, "says 1 iterations, made again: "),  # the issue's: a dropped configuration made best
        ({"status": "gave-up", "verified": None, "queens": None}, "says status gave-up, made again: solved"),
    ],
)
def test_a_forged_tune_run_made_again_refuses_the_resume_naming_the_run(
    tuned: tuple[Path, str], tmp_path: Path, run_cli: Any, change: dict[str, Any], words: str
) -> None:
    out = forged_tune(tuned, tmp_path, change, pick=lambda record: record["iterations"] != 1)
    before = out.read_bytes()
    code, shown, err = run_cli(*TUNE, "--out", str(out), "--resume", "--verify-resumed", "1")
    assert code == 3, err
    assert "the run of simulated-annealing[" in err and ", trial 0, seed 5 " in err and words in err
    assert shown == "" and err.count("\n") == 1 and "Traceback" not in err
    assert out.read_bytes() == before  # checked before it is opened for writing: not even a header is added


def test_iterations_no_run_has_refuse_the_resume_even_when_the_file_is_trusted(
    tuned: tuple[Path, str], tmp_path: Path, run_cli: Any
) -> None:
    out = forged_tune(tuned, tmp_path, {"iterations": 1e30})
    before = out.read_bytes()
    code, _, err = run_cli(*TUNE, "--out", str(out), "--resume", "--verify-resumed", "0")
    assert code == 3 and "iterations 1e+30 is not a whole number from 0 to 2^63 - 1" in err
    assert err.startswith("nqueens: note: --verify-resumed 0: the runs in ") and err.count("\n") == 2
    assert out.read_bytes() == before


def test_seconds_no_run_under_the_time_limit_has_refuse_the_resume(
    tuned: tuple[Path, str], tmp_path: Path, run_cli: Any
) -> None:
    from nqueens_plugins.results.resume_checks import absurd_numbers

    out = forged_tune(tuned, tmp_path, {"seconds": 1e300})
    code, _, err = run_cli(*TUNE, "--out", str(out), "--resume", "--verify-resumed", "0")
    assert code == 3 and "1e+300 seconds under a time limit of 20 s" in err
    assert absurd_numbers({"seconds": 260.0}, 20.0) is None and absurd_numbers({"seconds": 261.0}, 20.0) is not None
    assert absurd_numbers({"seconds": 1e9}, None) is None  # no limit: no bound


def test_a_tune_resumed_unchanged_and_checked_whole_ends_as_it_did(
    tuned: tuple[Path, str], tmp_path: Path, run_cli: Any
) -> None:
    source, best = tuned
    out = tmp_path / "t.jsonl"
    out.write_bytes(source.read_bytes())
    lines = len(out.read_text().splitlines())
    code, shown, err = run_cli(*TUNE, "--out", str(out), "--resume", "--verify-resumed", "1")
    assert code == 0, err
    assert json.loads(shown)["best"] == best and len(out.read_text().splitlines()) == lines + 1  # the header only


def test_runs_made_again_agree_within_noise_and_not_beyond() -> None:
    from nqueens_plugins.results.resume_checks import run_mismatch

    solved = {"status": "solved", "verified": True, "iterations": 500, "seconds": 0.2}
    assert run_mismatch(solved, solved, 10.0, deterministic=True) is None
    slower = {**solved, "seconds": 1.1}  # within the 1 s slack
    assert run_mismatch(solved, slower, 10.0, deterministic=True) is None
    assert run_mismatch(solved, {**solved, "iterations": 501}, 10.0, deterministic=True) is not None
    assert run_mismatch(solved, {**solved, "iterations": 900}, 10.0, deterministic=False) is None
    assert run_mismatch(solved, {**solved, "iterations": 50_000}, 10.0, deterministic=False) is not None
    assert run_mismatch(solved, {**solved, "seconds": 5.0}, 10.0, deterministic=True) is not None
    out_of_time = {"status": "timed-out", "verified": None, "iterations": 9_000, "seconds": 10.0}
    near = {**solved, "seconds": 4.0}  # a loaded machine may push a run of 4 s past a 10 s limit
    assert run_mismatch(near, out_of_time, 10.0, deterministic=True) is None
    assert run_mismatch(solved, out_of_time, 10.0, deterministic=True) == "status solved, made again: timed-out"
    assert run_mismatch(out_of_time, solved, 10.0, deterministic=True) is not None
    assert run_mismatch(out_of_time, out_of_time, 10.0, deterministic=True) is None


@pytest.mark.parametrize(
    ("iterations", "absurd"),
    [(None, False), (0, False), (2**63 - 1, False), (27.0, False), (2**63, True), (1e30, True), (-1, True),
     (2.5, True), (True, True), ("7", True)],
)  # fmt: skip
def test_iterations_are_a_64_bit_whole_number_or_null(iterations: Any, absurd: bool) -> None:
    from nqueens_plugins.results.resume_checks import absurd_iterations

    assert (absurd_iterations({"iterations": iterations}) is not None) == absurd


def test_a_rejected_file_is_bad_input_to_python_callers() -> None:
    from nqueens_plugins.core.errors import RejectedFile

    assert issubclass(RejectedFile, BadInput)  # an ``except BadInput`` around a resume still catches it
