"""The service's warm certificate checker (``execution/checker_process.py``): one process answers every
certificate of a worker slot, a check past its time is killed from outside and the next starts afresh, and
the checker never outlives the process that started it."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import nqueens_plugins as nq
from nqueens_plugins import Outcome, Problem, Solver, Status
from nqueens_plugins.core.proof_log import ProofLog
from nqueens_plugins.execution.checker_process import CheckerProcess
from nqueens_plugins.execution.local import LocalExecutor
from nqueens_plugins.proofs.jit import NO_JIT_VARIABLE

NONE_EXISTS = Problem(4, blocked=frozenset({(0, 1), (0, 2)}))  # test_certificates checks it by brute force


def request(problem: Problem, proof: Path, seconds: float = 60.0) -> dict[str, Any]:
    return {
        "n": problem.n,
        "fixed": sorted(problem.fixed.items()),
        "blocked": sorted(problem.blocked),
        "proof": str(proof),
        "max_bytes": 1 << 30,
        "seconds": seconds,
        "memory": 4 << 30,
    }


def written(path: Path, problem: Problem, lines: list[str]) -> Path:
    log = ProofLog(path, problem, 1 << 30)
    log.write_lines(lines)
    log.close()
    return path


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def search_with_proof(problem: Problem, log: ProofLog) -> Outcome:
    from nqueens_plugins.builtin.bitset_mrv import BitsetMrv
    from nqueens_plugins.core.solver import resolve_options

    solver = BitsetMrv()
    return solver.solve(problem, random.Random(0), nq.Budget(10, proof=log), resolve_options(solver, {}).options)


def test_one_process_answers_certificate_after_certificate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(NO_JIT_VARIABLE)  # the compiled checker, as users run it (when numba is installed)
    proof = tmp_path / "real.drat"
    log = ProofLog(proof, NONE_EXISTS, 1 << 30)
    assert search_with_proof(NONE_EXISTS, log).status == Status.NO_SOLUTION  # a real proof, from a real search
    log.close()
    wrong = written(tmp_path / "wrong.drat", NONE_EXISTS, ["1 0", "0"])
    checker = CheckerProcess()
    try:
        first = checker.check(request(NONE_EXISTS, proof), 30)
        pid = checker.pid
        rejected = checker.check(request(NONE_EXISTS, wrong), 30)
        again = checker.check(request(NONE_EXISTS, proof), 30)
        assert isinstance(first, dict) and first["status"] == "certified" and first["seconds"] >= 0
        assert isinstance(rejected, dict) and rejected["status"] == "rejected" and "not implied" in rejected["reason"]
        assert isinstance(again, dict) and again["status"] == "certified"
        assert pid is not None and checker.pid == pid  # a rejected proof is an answer, not a reason to restart
    finally:
        checker.close()
    assert pid is not None and gone_within(pid, 5)


def test_a_check_past_its_time_is_killed_and_the_next_starts_afresh(tmp_path: Path) -> None:
    # column 0's "at least one" again and again (its open squares are variables 1 and 2): each lemma is
    # implied, so the checker works through all of them, which takes seconds
    slow = written(tmp_path / "slow.drat", NONE_EXISTS, ["1 2 0"] * 3_000_000)
    short = written(tmp_path / "short.drat", NONE_EXISTS, ["1 0", "0"])
    checker = CheckerProcess()
    try:
        assert isinstance(checker.check(request(NONE_EXISTS, short), 30), dict)  # started and loaded
        pid = checker.pid
        assert pid is not None
        # the program's own clock would allow 60 s: only the caller's deadline stops it
        started = time.monotonic()
        assert checker.check(request(NONE_EXISTS, slow, seconds=60), 0.2) == "timeout"
        assert time.monotonic() - started < 5 and checker.pid is None and gone_within(pid, 5)
        answer = checker.check(request(NONE_EXISTS, short), 30)
        assert isinstance(answer, dict) and answer["status"] == "rejected" and checker.pid not in (None, pid)
    finally:
        checker.close()


def test_a_program_that_cannot_start_is_one_line() -> None:
    checker = CheckerProcess()
    try:
        answer = checker.check({"memory": 1 << 16}, 30)  # 64 KiB: Python cannot load the checker in that
        assert isinstance(answer, str) and "\n" not in answer and checker.pid is None
    finally:
        checker.close()


STARTER = """
import sys, time
from nqueens_plugins.execution.checker_process import checker
checker().start(4 << 30)
print(checker().pid, flush=True)
time.sleep(120)
"""


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_the_checker_never_outlives_the_process_that_started_it(sig: signal.Signals) -> None:
    starter = subprocess.Popen(
        [sys.executable, "-c", STARTER], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert starter.stdout is not None
        pid = int(starter.stdout.readline())
        assert alive(pid)
        os.kill(starter.pid, sig)
        starter.wait(10)
        assert gone_within(pid, 3)
    finally:
        starter.kill()
        starter.wait()


def checker_pid_recorder(path: Path) -> Solver:
    """A certifying solver that notes the checker pid of its own worker's process (there should be none: the
    service checks), then proves no solution."""

    class Recorder(Solver):
        name = "checker-pid-recorder"
        summary = "Writes down its worker's checker pid, then a true proof of no solution."
        complete = True
        certifies = True
        supports_blocked = True

        def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
            from nqueens_plugins.execution.checker_process import checker

            with path.open("a", encoding="ascii") as notes:
                notes.write(f"{checker().pid}\n")
            return search_with_proof(problem, budget.proof)

    return Recorder()


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        return int(stat.read().rpartition(")")[2].split()[1])


def test_the_service_keeps_one_checker_across_runs_outside_the_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(NO_JIT_VARIABLE)
    notes = tmp_path / "pids"
    nq.register(checker_pid_recorder(notes))
    checkers: list[int | None] = []
    try:
        executor = LocalExecutor(jobs=1)
        try:
            for seed in range(3):
                records = nq.compare(
                    ["checker-pid-recorder"],
                    [NONE_EXISTS],
                    limits=nq.Limits(timeout=30, seed=seed),
                    executor=executor,
                )
                assert [record["certificate"] for record in records] == ["certified"]
                checkers.append(executor.checkers.idle[0].pid if executor.checkers.idle else None)
            checker_pid = checkers[0]
            assert checker_pid is not None and parent_of(checker_pid) == os.getpid()  # the service's child
        finally:
            executor.close()
    finally:
        nq.unregister("checker-pid-recorder")
    assert len(set(checkers)) == 1, checkers  # kept warm from one certificate to the next
    assert set(notes.read_text(encoding="ascii").split()) == {"None"}  # no checker in the plugin's worker
    assert gone_within(checker_pid, 5)  # and ended with its executor
