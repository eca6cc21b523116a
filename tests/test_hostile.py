"""Hostile plugins, one fault each, driven through the CLI and the API.

Each case says what the host must answer: the run's status, the words of its
reason, and the exit status of ``nqueens solve`` (0 solved and verified, 1 not
solved, 3 rejected by the verifier). A plugin never takes the host down and
never makes it claim what it did not check. The solvers are in
``tests/hostile_solvers.py``; import-time faults are in ``test_host.py``,
kill-anything-leaves-nothing in ``test_execution.py``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

import nqueens_plugins as nq

HERE = Path(__file__).parent

SOLVE_CASES = {
    # solver: (status, words in the reason, exit status of `nqueens solve`)
    "hostile-system-exit": ("error", "SystemExit: 0", 1),
    "hostile-interrupt": ("error", "KeyboardInterrupt: from the plugin", 1),
    "hostile-generator-exit": ("error", "GeneratorExit", 1),
    "hostile-exits": ("error", "worker process exited with status 7", 1),
    "hostile-segfaults": ("error", "worker process crashed (SIGSEGV)", 1),
    "hostile-raises": ("error", "RuntimeError: the plugin broke", 1),
    "hostile-huge-int": ("invalid", "row", 3),
    "hostile-mutates": ("invalid", "queens", 3),
    "hostile-attacked": ("invalid", "share the diagonal", 3),
    "hostile-wrong-type": ("invalid", "not an Outcome", 3),
    # Worker-side failures are named: what failed, where, and as much of the message as can be read.
    "hostile-mute-error": ("error", "Mute: Mute('the args still tell')", 1),
    "hostile-unreadable-error": ("error", "Unreadable: (its message cannot be read", 1),
    "hostile-unrebuildable": (
        "error",
        "rebuilding the solver in the worker failed: RuntimeError: this solver cannot be rebuilt",
        1,
    ),
    "hostile-failing-warm-up": (
        "error",
        "preparing the solver failed: its warm_up raised OSError: the kernel did not compile",
        1,
    ),
}


@pytest.fixture
def hostile(fake_distribution) -> Path:
    return fake_distribution("nqueens-hostile", {"hostile": "hostile_solvers"}, {})


def strict_json(text: str) -> dict:
    """json.loads that refuses NaN and Infinity, which are not JSON."""

    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("solver", list(SOLVE_CASES))
def test_solve_through_the_cli(hostile: Path, run_cli, solver: str) -> None:
    status, words, exit_status = SOLVE_CASES[solver]
    code, out, err = run_cli("solve", "-s", solver, "-n", "8", "--json", "--timeout", "20")
    assert code == exit_status, err
    record = strict_json(out)  # one JSON object, from the host alone
    assert record["status"] == status and words in record["reason"], record["reason"]
    assert record["verified"] is not True


@pytest.mark.parametrize("solver", list(SOLVE_CASES))
def test_solve_through_the_api(hostile: Path, solver: str) -> None:
    status, words, _ = SOLVE_CASES[solver]
    result = nq.solve(solver, 8, limits=nq.Limits(timeout=20))
    assert result.status == status and words in (result.reason or ""), result.reason
    assert result.verified is not True


def test_a_solver_that_changes_its_problem_is_judged_on_the_hosts_copy(hostile: Path) -> None:
    result = nq.solve("hostile-mutates", 8, isolate=False)  # in-process too, not only across a pipe
    assert result.status == "invalid" and result.n == 8


def test_a_problems_copy_shares_nothing_a_solver_can_change() -> None:
    original = nq.Problem(8, {0: 3}, frozenset({(1, 1)}), source="here")
    mine = original.copy()
    assert mine == original and mine.source == "here" and mine.id == original.id
    with pytest.raises(TypeError, match="read-only"):
        mine.fixed[5] = 5  # shared, and read-only: neither copy can change
    object.__setattr__(mine, "n", 4)  # a deliberate hack changes the copy alone
    assert original.fixed == {0: 3} and original.n == 8 and mine.n == 4


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: nq.solve(None, 8), "a solver is named by a string"),
        (lambda: nq.solve("min-conflicts", 8, fixed=[1, 2]), "mapping column -> row"),
        (lambda: nq.solve("min-conflicts", 8, limits=nq.Limits(seed="abc")), "seed must be a whole number"),
        (lambda: nq.solve("min-conflicts", 8, limits=nq.Limits(seed=1.5)), "seed must be a whole number"),
        (lambda: nq.solve("min-conflicts", 8, limits=nq.Limits(timeout=-1)), "timeout must be a positive number"),
        (lambda: nq.count("bitboard", 8, limits=nq.Limits(timeout="1")), "timeout must be a positive number"),
        (lambda: nq.compare(["min-conflicts"], [8], trials="3"), "trials must be a whole number"),
        (lambda: nq.compare(["min-conflicts"], [8], trials=True), "trials must be a whole number"),
        (lambda: nq.executor_for(jobs=1000), "more than this machine's"),
        (lambda: nq.solve("min-conflicts", 8, limits=nq.Limits(memory="lots")), "memory takes a size"),
    ],
)
def test_the_api_refuses_bad_arguments_with_bad_input(call, words: str) -> None:
    with pytest.raises(nq.BadInput, match=words):
        call()


def test_the_api_takes_no_timeout_as_no_limit() -> None:
    (record,) = nq.compare(["construction"], [8], limits=nq.Limits(timeout=None))
    assert record["status"] == "solved"


def test_a_plugin_that_sleeps_or_spins_is_stopped_from_outside(hostile: Path, run_cli) -> None:
    for solver in ("hostile-sleeps", "hostile-busy"):
        code, out, _ = run_cli("solve", "-s", solver, "-n", "8", "--timeout", "1", "--json")
        assert code == 1 and strict_json(out)["status"] == "timed-out"
        assert nq.solve(solver, 8, limits=nq.Limits(timeout=1)).status == "timed-out"


def test_cross_check_with_a_hanging_plugin_ends(hostile: Path, run_cli) -> None:
    start = time.monotonic()
    code, out, err = run_cli("cross-check", "-n", "4..8", "-s", "hostile-sleeps,backtracking", "--timeout", "1")
    assert code in (0, 1), err
    assert "hostile-sleeps" in out
    assert time.monotonic() - start < 300  # five 1 s limits, not five hours
    rows = [line for line in out.splitlines() if "hostile-sleeps" in line and "timed-out" in line]
    assert rows and all("inconclusive" in row and " yes " not in row for row in rows)  # never "agrees yes"


def test_plugin_output_stays_out_of_json(hostile: Path, run_cli, tmp_path: Path) -> None:
    code, out, _ = run_cli("solve", "-s", "hostile-prints", "-n", "8", "--json")
    assert code == 0 and strict_json(out)["status"] == "solved"
    code, out, _ = run_cli("compare", "-s", "hostile-prints", "-n", "8", "--format", "json")
    assert code == 0 and strict_json(out)
    code, out, _ = run_cli("cross-check", "-n", "8", "-s", "hostile-prints,backtracking", "--json")
    assert code == 0 and strict_json(out)


def test_nan_counters_are_dropped_and_said(hostile: Path, run_cli, tmp_path: Path) -> None:
    code, out, _ = run_cli("solve", "-s", "hostile-nan", "-n", "8", "--json")
    record = strict_json(out)
    assert code == 0 and record["status"] == "solved" and record["counters"] == {}
    assert "rate" in record["reason"] and "cap" in record["reason"]
    results = tmp_path / "r.jsonl"
    assert run_cli("compare", "-s", "hostile-nan", "-n", "8", "--out", str(results))[0] == 0
    for line in results.read_text().splitlines():
        strict_json(line)


def test_a_malformed_count_is_invalid_and_a_hanging_count_times_out(hostile: Path, run_cli) -> None:
    code, out, err = run_cli("count", "-s", "hostile-bad-count", "-n", "8", "--json")
    assert code == 3 and strict_json(out)["status"] == "invalid", err
    assert nq.count("hostile-bad-count", 8).status == "invalid"
    code, out, _ = run_cli("count", "-s", "hostile-bad-count", "-n", "9", "--timeout", "1", "--json")
    assert code == 1 and strict_json(out)["status"] == "timed-out"
    assert nq.count("hostile-bad-count", 9, limits=nq.Limits(timeout=1)).status == "timed-out"


@pytest.mark.parametrize(
    "solver, n, words",
    [
        ("hostile-bad-count", 8, "hostile-bad-count counted 92 solutions for n = 8; WRONG: unknown status"),
        ("hostile-bad-count", 9, "hostile-bad-count counted at least 0 solutions for n = 9 before it stopped"),
        ("hostile-count-raises", 8, "did not finish counting the solutions of n = 8: MemoryError: the library ran"),
    ],
)
def test_every_way_a_count_ends_is_said_in_a_sentence(hostile: Path, run_cli, solver: str, n: int, words: str) -> None:
    code, out, _ = run_cli("count", "-s", solver, "-n", str(n), "--timeout", "1")
    assert code != 0 and words in out and "?" not in out.splitlines()[0]


def processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                arguments = (entry / "cmdline").read_bytes().split(b"\0")
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if marker.encode() in arguments and state != "Z":
                found.append(int(entry.name))
    return found


def test_a_process_started_in_its_own_session_does_not_outlive_the_run(
    hostile: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = f"hostile-daemon-{time.time_ns()}"
    monkeypatch.setenv("HOSTILE_DAEMON_MARKER", marker)
    code, _, err = run_cli("solve", "-s", "hostile-daemon", "-n", "8")
    assert code == 0, err
    deadline = time.monotonic() + 30  # a wait, not a speed bound: it ends as soon as the daemon is gone
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_with(marker) == []


def test_memory_is_limited_per_run(hostile: Path, run_cli) -> None:
    code, out, err = run_cli("solve", "-s", "hostile-hog", "-n", "8", "--memory", "256M", "--timeout", "30", "--json")
    record = strict_json(out)
    assert code == 1 and record["status"] == "error", err
    assert "MemoryError" in record["reason"] and "over its --memory limit of 256 MiB" in record["reason"]
    result = nq.solve("hostile-hog", 8, limits=nq.Limits(memory="256M", timeout=30))
    assert result.status == "error" and "MemoryError" in result.reason
    # The limit is the run's, not the worker's: the next run in the same worker is unaffected.
    assert nq.solve("min-conflicts", 8).verified is True


def test_cross_check_limits_memory_too(hostile: Path, run_cli) -> None:
    code, out, err = run_cli(
        "cross-check", "-n", "6", "-s", "hostile-hog,backtracking", "--memory", "256M", "--timeout", "30", "--json"
    )
    checks = json.loads(out)
    hog = [c for c in checks if c["solver"] == "hostile-hog"]
    assert code == 1 and hog and all(not c["agrees"] for c in hog), err
    assert any("over its --memory limit of 256 MiB" in json.dumps(c) for c in hog)
    assert all(c["agrees"] for c in checks if c["solver"] == "backtracking")


def test_a_long_error_message_is_cut_to_a_bounded_length(hostile: Path) -> None:
    result = nq.solve("hostile-long-error", 8)
    assert result.status == "error" and result.reason.startswith("RuntimeError: xxx")
    assert len(result.reason) < 5_000 and "characters left out" in result.reason


@pytest.mark.parametrize("solver", list(SOLVE_CASES))
def test_no_worker_traceback_reaches_the_terminal(
    hostile: Path, capfd: pytest.CaptureFixture[str], solver: str
) -> None:
    from nqueens_plugins.execution.local import LocalExecutor

    with LocalExecutor(1) as executor:  # started here, so its workers write to the captured stderr
        result = nq.solve(solver, 8, executor=executor)
    if solver in ("hostile-exits", "hostile-segfaults"):  # the plugin itself ended its worker
        assert "worker process" in result.reason
    else:  # any other failure names the step, never only "the worker exited"
        assert "worker process" not in result.reason, result.reason
    assert "Traceback" not in capfd.readouterr().err


PATCHER = """
    import random

    from nqueens_plugins import Outcome, Solver, Status, hookimpl

    class Patcher(Solver):
        name = "patcher"
        summary = "Solves nothing, and leaves every random stream of its process changed."

        def solve(self, problem, rng, budget, options):
            bits, uniform = random.Random.getrandbits, random.Random.random
            random.Random.getrandbits = lambda self, k: bits(self, k) ^ (bits(self, k) >> 1)
            random.Random.random = lambda self: uniform(self) ** 2
            return Outcome(Status.GAVE_UP, None, 0, 0)

    @hookimpl
    def nqueens_register_solvers(register):
        register(Patcher())
"""


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_plugin_that_patches_its_process_changes_no_other_solvers_answers(fake_distribution, jobs: int) -> None:
    """Same seed, same answers, whatever else is in the grid: one worker serves one plugin."""
    fake_distribution("nqueens-patcher", {"patcher": "patcher_plugin"}, {"patcher_plugin": PATCHER})
    others = ["min-conflicts", "simulated-annealing", "random-restart"]

    def answers(solvers: list[str]) -> dict[tuple[str, int], tuple[object, ...]]:
        with nq.executor_for(jobs=jobs) as executor:
            records = nq.compare(solvers, [8], trials=10, limits=nq.Limits(timeout=10, seed=3), executor=executor)
        return {
            (r["solver"], r["trial"]): (r["status"], r["queens"], r["iterations"], r["moves"])
            for r in records
            if r["solver"] != "patcher"
        }

    alone = answers(others)
    assert answers(["patcher", *others]) == alone
    assert answers([others[0], "patcher", *others[1:]]) == alone  # the patcher between the others
