"""Races (issue 42): several solvers on one board at once; the first decided answer wins, the rest are stopped,
and a member that lies, crashes or hangs never wins nor stops the race."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import nqueens_plugins as nq
from nqueens_plugins import Problem
from nqueens_plugins.execution import processes
from nqueens_plugins.results.race import LOST

# Blocking a square of each of the two solutions of n = 4 leaves none (test_certificates checks it).
NONE_EXISTS = Problem(4, blocked=frozenset({(0, 1), (0, 2)}))


@pytest.fixture
def hostile(fake_distribution) -> Path:  # type: ignore[no-untyped-def]
    return fake_distribution("nqueens-hostile", {"hostile": "hostile_solvers"}, {})


def workers_now() -> set[int]:
    return set(processes.descendants(os.getpid()))


def test_the_first_decided_answer_wins_and_the_rest_are_stopped(hostile: Path) -> None:
    before = workers_now()
    raced = nq.race("nap,hostile-sleeps", 12, limits=nq.Limits(timeout=60))
    assert raced.decided and raced.winner is not None and raced.winner.solver == "nap"
    assert raced.winner.verified is True and raced.status == "solved"
    members = {member.solver: member for member in raced.members}
    assert members["hostile-sleeps"].status == LOST and members["hostile-sleeps"].result is None
    assert raced.seconds >= 0.2 and raced.core_seconds >= 2 * 0.2  # nap sleeps 0.2 s; both held a core
    assert workers_now() <= before  # the sleeper's worker and the race's own workers are gone


def test_a_member_that_lies_does_not_win_nor_stop_the_race(hostile: Path) -> None:
    # long-nap answers after 3 s; the liar, prepared, answers in milliseconds: first, and rejected
    raced = nq.race("hostile-attacked,long-nap", 10, limits=nq.Limits(timeout=60))
    assert raced.winner is not None and raced.winner.solver == "long-nap" and raced.winner.verified is True
    liar = {member.solver: member for member in raced.members}["hostile-attacked"]
    assert liar.status == "invalid" and liar.result is not None and liar.result.reason  # it answered first, and lost


@pytest.mark.parametrize("crasher", ["hostile-exits", "hostile-raises", "hostile-wrong-type"])
def test_a_member_that_crashes_never_wins(hostile: Path, crasher: str) -> None:
    raced = nq.race(f"{crasher},nap", 10, limits=nq.Limits(timeout=60))
    assert raced.winner is not None and raced.winner.solver == "nap" and raced.winner.verified is True
    # error or invalid if it came back before nap's answer (a dead worker is replaced first), else stopped
    assert {member.solver: member.status for member in raced.members}[crasher] in ("error", "invalid", LOST)


def test_a_false_proof_of_no_solution_does_not_win(hostile: Path) -> None:
    # the false claim comes in milliseconds, long before long-nap's answer (3 s): it is refused, the race goes on
    raced = nq.race("hostile-no-solution,long-nap", 8, limits=nq.Limits(timeout=60))
    assert raced.winner is not None and raced.winner.solver == "long-nap" and raced.status == "solved"
    assert {member.solver: member.status for member in raced.members}["hostile-no-solution"] == "invalid"


def test_a_certified_no_solution_wins() -> None:
    raced = nq.race("bitset-mrv,pysat", NONE_EXISTS, limits=nq.Limits(timeout=60))
    assert raced.decided and raced.status == "no-solution"
    assert raced.winner is not None and raced.winner.certified


def test_a_race_nobody_decides_says_so(hostile: Path) -> None:
    raced = nq.race("hostile-raises,hostile-attacked", 8, limits=nq.Limits(timeout=30))
    assert not raced.decided and raced.winner is None and raced.status == "undecided"
    assert sorted(member.status for member in raced.members) == ["error", "invalid"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["-s", "bitset-mrv", "-n", "8"], "two solvers or more"),
        (["-s", "bitset-mrv,bitset-mrv", "-n", "8"], "twice"),
        (["-s", "bitset-mrv,min-conflicts", "-n", "3"], "min-conflicts cannot win this race"),
        (["-s", "bitset-mrv,backtracking,min-conflicts", "-n", "8"], "cores"),
        (["-s", "bitset-mrv,min-conflicts"], "board size"),
    ],
)
def test_a_race_that_cannot_be_run_is_one_line(run_cli, args: list[str], words: str) -> None:  # type: ignore[no-untyped-def]
    if "cores" in words and (os.cpu_count() or 1) >= 3:
        pytest.skip("this machine has cores for three")
    code, out, err = run_cli("race", *args)
    assert code == 2 and out == ""
    assert words in err and len(err.strip().splitlines()) == 1, err


def test_the_cli_says_who_won_and_how_each_member_ended(run_cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_cli("race", "-s", "bitset-mrv,min-conflicts", "-n", "20", "--json")
    assert code == 0, err
    raced = json.loads(out)
    assert raced["status"] == "solved" and raced["winner"] in ("bitset-mrv", "min-conflicts")
    assert {member["solver"] for member in raced["members"]} == {"bitset-mrv", "min-conflicts"}
    code, out, _ = run_cli("race", "-s", "bitset-mrv,min-conflicts", "-n", "20")
    assert code == 0 and "won in" in out and "core-seconds" in out


def test_a_race_is_a_row_of_a_comparison_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    specs = "bitset-mrv,min-conflicts,race(bitset-mrv,min-conflicts)"
    records = nq.compare(specs, [8, 12], trials=2, out=out)
    raced = [record for record in records if record["solver"] == "race(bitset-mrv,min-conflicts)"]
    assert len(raced) == 4 and all(record["status"] == "solved" and record["verified"] for record in raced)
    for record in raced:
        assert record["race"]["winner"] in ("bitset-mrv", "min-conflicts")
        assert {member["solver"] for member in record["race"]["members"]} == {"bitset-mrv", "min-conflicts"}
        assert record["counters"]["members"] == 2 and record["counters"]["core_seconds"] >= record["seconds"]
    rows = {(row.solver, row.n): row for row in nq.summary(str(out)).rows}
    assert rows[("race(bitset-mrv,min-conflicts)", 12)].decided == 2
    again = nq.compare(specs, [8, 12], trials=2, out=nq.ResultsFile(out, resume=True))
    assert again == []  # every run, the races included, is already in the file


def test_a_record_with_a_broken_race_field_is_refused(tmp_path: Path) -> None:
    from nqueens_plugins.formats.records import run_problem

    (record,) = nq.compare("race(bitset-mrv,min-conflicts)", 8)
    good = json.loads(json.dumps(record, default=str))  # as a file gives it back
    assert run_problem(good) is None
    for broken in ({"winner": 3, "members": []}, {"winner": None, "members": "none"}, "bitset-mrv",
                   {"winner": None, "members": [{"solver": "a", "status": "won", "seconds": 1.0}]},
                   {"winner": None, "members": [{"solver": "a", "status": "solved", "seconds": float("nan")}]}):  # fmt: skip
        assert "'race' must be" in (run_problem(dict(good, race=broken)) or ""), broken


def test_races_in_a_comparison_are_checked_before_anything_runs(run_cli) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_cli("compare", "-s", "bitset-mrv,race(bitset-mrv,min-conflicts)", "-n", "3")
    assert code == 2 and "min-conflicts cannot win this race" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli("compare", "-s", "race(bitset-mrv,min-conflicts),race(bitset-mrv,min-conflicts)", "-n", "8")
    assert code == 2 and "named twice" in err
