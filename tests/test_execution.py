"""The execution service: kill anything, leave nothing; limits from outside; warm-start timing."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import nqueens_plugins as nq
from nqueens_plugins.execution import wire, worker_handle
from nqueens_plugins.execution.local import LocalExecutor
from nqueens_plugins.execution.messages import Ready
from nqueens_plugins.execution.tasks import Task
from nqueens_plugins.formats.inputs import make_problem
from nqueens_plugins.loading import host
from nqueens_plugins.testing import cpu_share

HERE = Path(__file__).parent


@pytest.fixture
def hostile_env(fake_distribution) -> dict[str, str]:
    """An environment in which a fresh ``nqueens`` process finds the hostile test plugins."""
    site = fake_distribution("nqueens-hostile", {"hostile": "hostile_solvers"}, {})
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join([str(site), str(HERE), *sys.path])
    return environment


def descendants_of(pid: int) -> list[int]:
    """Live processes started (directly or not) by ``pid``, or naming it as their parent program."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
            status = (entry / "stat").read_text()
        except OSError:
            continue
        state = status.rsplit(")", 1)[1].split()[0]
        if state == "Z":
            continue
        if b"nqueens_plugins.execution.worker" in b" ".join(arguments) and str(pid).encode() in arguments:
            found.append(int(entry.name))
    return found


def nqueens(*args: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", "from nqueens_plugins.cli import main; main()", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.mark.parametrize("signal_number", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize(
    "args",
    [
        ["solve", "-s", "hostile-sleeps", "-n", "8"],
        ["count", "-s", "bitboard[kernel=python,workers=2]", "-n", "18", "--yes"],
        ["compare", "-s", "hostile-busy,hostile-sleeps", "-n", "8,9", "--trials", "3", "--timeout", "60"],
        ["cross-check", "-n", "16..17", "-s", "backtracking,bitboard[kernel=python]", "--timeout", "60"],
        ["race", "-s", "hostile-busy,hostile-sleeps", "-n", "8"],
    ],
    ids=["solve", "count", "compare", "cross-check", "race"],
)
def test_killing_a_command_leaves_nothing_behind(
    hostile_env: dict[str, str], args: list[str], signal_number: int
) -> None:
    command = nqueens(*args, env=hostile_env)
    try:
        deadline = time.monotonic() + 60  # a wait, not a speed bound: a starved machine starts workers late
        while not descendants_of(command.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert descendants_of(command.pid), "the command never started a worker"
        time.sleep(0.5)  # let the workers get into the plugin's code
        command.send_signal(signal_number)
        command.wait(timeout=10)
        deadline = time.monotonic() + 10  # a wait, not a speed bound: it ends as soon as all are gone
        while descendants_of(command.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert descendants_of(command.pid) == []
    finally:  # whatever happened above, this test leaves nothing running
        command.kill()
        command.wait()
        for pid in descendants_of(command.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@pytest.mark.parametrize(
    "signal_number",
    [
        pytest.param(
            signal.SIGKILL,
            marks=pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="no pidfds: no watchdog process here"),
        ),
        signal.SIGTERM,
        signal.SIGINT,
    ],
)
def test_a_killed_command_ends_a_worker_whose_plugin_holds_the_gil(
    hostile_env: dict[str, str], signal_number: int
) -> None:
    """The worker's orphan-watch thread starves while a plugin holds the GIL: the command itself ends its
    workers when told to stop, and after SIGKILL the worker's watchdog process does (``start_watchdog``)."""
    test_killing_a_command_leaves_nothing_behind(
        hostile_env, ["solve", "-s", "hostile-holds-gil", "-n", "8"], signal_number
    )


@pytest.mark.skipif(not Path("/proc/self/autogroup").exists(), reason="the kernel schedules no autogroups")
def test_a_niced_command_keeps_its_workers_niced(hostile_env: dict[str, str]) -> None:
    """Each worker is a session, which autogroup scheduling weighs as one group whatever the nice
    values in it: the worker carries the command's nice value over to its group."""
    command = subprocess.Popen(
        ["nice", "-n", "6", sys.executable, "-c", "from nqueens_plugins.cli import main; main()"]
        + ["solve", "-s", "hostile-sleeps", "-n", "8"],
        env=hostile_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # 20 s on a quiet machine, stretched by the share of a core this process gets now (measured, not guessed)
        deadline = time.monotonic() + min(600.0, 20 / max(cpu_share(), 0.01))
        while not descendants_of(command.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        workers = descendants_of(command.pid)
        assert workers, "the command never started a worker"
        expected = f"nice {min(19, os.nice(0) + 6)}"  # nice adds to the suite's own (run under nice, say)
        deadline = time.monotonic() + 10  # the worker sets it as it starts
        while expected not in Path(f"/proc/{workers[0]}/autogroup").read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert Path(f"/proc/{workers[0]}/autogroup").read_text().split()[-2:] == expected.split()
    finally:
        command.kill()
        command.wait()
        for pid in descendants_of(command.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "-s", "hostile-sleeps", "-n", "8", "--timeout", "1"],
        ["solve", "-s", "hostile-busy", "-n", "8", "--timeout", "1"],
        ["count", "-s", "bitboard[kernel=python,workers=2]", "-n", "18", "--timeout", "1"],
        ["count", "-s", "bitboard[kernel=python]", "-n", "18", "--timeout", "1", "--progress"],  # in 64 pieces
    ],
)
def test_a_timeout_holds_from_outside(hostile_env: dict[str, str], args: list[str]) -> None:
    start = time.monotonic()
    command = nqueens(*args, env=hostile_env)
    out, err = command.communicate(timeout=30)
    assert command.returncode == 1, err
    assert b"timed-out" in out
    # 1 s limit + 0.5 s grace, plus starting Python twice: seconds. The plugin asks for an
    # hour, so ending within two minutes shows the limit held, and no load stretches 2 s to 120.
    assert time.monotonic() - start < 120
    deadline = time.monotonic() + 10  # a wait, not a speed bound: a SIGKILLed worker's watchdog ends with it
    while descendants_of(command.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert descendants_of(command.pid) == []


def test_warm_start_keeps_import_time_out_of_the_timing(fake_distribution) -> None:
    # A plugin whose first call in a process is slow (as an import or a JIT compilation is):
    # the worker's untimed warm-up on a 4x4 board pays for it, not the timed run.
    slow_start = """
        import time
        from nqueens_plugins import Outcome, Solver, Status, hookimpl
        from nqueens_plugins.builtin.construction import construct

        CALLS = []

        class SlowStart(Solver):
            name = "slow-start"
            summary = "Its first call in a process sleeps a second."

            def solve(self, problem, rng, budget, options):
                if not CALLS:
                    time.sleep(1.0)
                CALLS.append(problem.n)
                queens = construct(problem.n)
                status = Status.SOLVED if queens is not None else Status.GAVE_UP
                return Outcome(status, queens, 1, problem.n, {"calls_before": len(CALLS) - 1})

        @hookimpl
        def nqueens_register_solvers(register):
            register(SlowStart())
    """
    fake_distribution("nqueens-slow-start", {"slow": "slow_start_plugin"}, {"slow_start_plugin": slow_start})
    variant = host.registry().variant("slow-start")
    with LocalExecutor(1) as executor:
        result = executor.run(Task.solve(variant, make_problem(8), nq.Limits(timeout=30)))
    assert result.solved
    assert result.counters["calls_before"] == 1  # the warm-up came first
    # Had the warm-up been timed, its 1 s sleep alone would put the figure at 1 s or more (load
    # only lengthens a sleep); the timed call itself is one construction of an 8-queen board.
    assert result.seconds < 1.0
    assert result.overhead_seconds >= 0


def test_a_plugin_slow_to_import_is_prepared_not_timed(fake_distribution, run_cli) -> None:
    """A plugin that takes 5 s to import (a heavy library, a model loaded at import): its own
    ``solve --timeout 3`` is solved; the import is the worker's preparation, apart in the record."""
    slow_import = """
        import time

        from nqueens_plugins import Outcome, Solver, Status, hookimpl
        from nqueens_plugins.builtin.construction import construct

        time.sleep(5)

        class SlowImport(Solver):
            name = "slow-import"
            summary = "Takes 5 s to import, then solves at once."

            def solve(self, problem, rng, budget, options):
                return Outcome(Status.SOLVED, construct(problem.n), 1, problem.n)

        @hookimpl
        def nqueens_register_solvers(register):
            register(SlowImport())
    """
    fake_distribution("nqueens-slow-import", {"slow": "slow_import_plugin"}, {"slow_import_plugin": slow_import})
    code, out, _ = run_cli("solve", "-s", "slow-import", "-n", "8", "--timeout", "3", "--json")
    record = json.loads(out)
    assert code == 0 and record["status"] == "solved" and record["verified"], record["reason"]
    assert record["prepare_seconds"] >= 5  # a sleep: load only lengthens it
    code, out, _err = run_cli("solve", "-s", "slow-import", "-n", "8", "--timeout", "3", "--json")
    assert json.loads(out)["prepare_seconds"] is None  # the worker is prepared once, then kept


def test_a_long_preparation_is_shown_by_solve(fake_distribution, run_cli) -> None:
    slow_warm_up = """
        import time

        from nqueens_plugins import hookimpl
        from nqueens_plugins.builtin.min_conflicts import MinConflicts

        class SlowWarmUp(MinConflicts):
            name = "slow-warm-up"

            def warm_up(self, options, preparation=""):
                time.sleep(1.5)

        @hookimpl
        def nqueens_register_solvers(register):
            register(SlowWarmUp())
    """
    fake_distribution("nqueens-slow-warm-up", {"slow": "slow_warm_up_plugin"}, {"slow_warm_up_plugin": slow_warm_up})
    code, out, err = run_cli("solve", "-s", "slow-warm-up", "-n", "8")
    assert code == 0, err
    assert re.search(r"before it, \d+\.\d s preparing the solver", out), out


def test_a_preparation_over_its_own_limit_is_an_error_and_not_tried_again(hostile_env, run_cli) -> None:
    limits = nq.Limits(timeout=60, prepare_timeout=1)
    with nq.executor_for(jobs=1) as one_worker:
        records = nq.compare(["hostile-endless-warm-up", "min-conflicts"], [8], 3, limits=limits, executor=one_worker)
    endless = [r for r in records if r["solver"] == "hostile-endless-warm-up"]
    assert [r["status"] for r in endless] == ["error"] * 3
    first, *others = endless
    assert "preparing the solver" in first["reason"] and "took more than 1 s" in first["reason"], first["reason"]
    assert first["prepare_seconds"] >= 1
    # The call does not spend the limit again on each of the solver's runs: they end with the first's failure.
    assert all(r["reason"].startswith("not started: for an earlier task of this solver") for r in others)
    assert all(r["status"] == "solved" for r in records if r["solver"] == "min-conflicts")
    code, out, _err = run_cli("solve", "-s", "hostile-endless-warm-up", "-n", "8", "--prepare-timeout", "1")
    assert code == 1 and "took more than 1 s" in out and "--prepare-timeout" in out, out


@pytest.mark.parametrize(
    ("solver", "where"),
    [
        ("hostile-endless-warm-up", "(in its warm_up)"),
        ("hostile-endless-rebuild", "(importing its plugin and rebuilding it)"),
    ],
)
def test_a_preparation_over_its_limit_says_where_it_hung(hostile_env, solver: str, where: str) -> None:
    result = nq.solve(solver, 8, limits=nq.Limits(timeout=1, prepare_timeout=1))
    assert result.status == "error" and where in (result.reason or ""), result.reason


def test_a_default_warm_up_that_never_ends_runs_the_solver_cold_under_the_users_limit(hostile_env, run_cli) -> None:
    # Every solve of it sleeps, the default warm-up's 4x4 one too: the runs end timed-out at --timeout,
    # not after the 120 s preparation limit, and a grid pays for the warm-up once, not once a run.
    started = time.monotonic()
    with nq.executor_for(jobs=1) as one_worker:
        records = nq.compare(
            ["hostile-hangs-everywhere", "min-conflicts"],
            [8],
            trials=3,
            limits=nq.Limits(timeout=1),
            executor=one_worker,
        )
    hanging = [r for r in records if r["solver"] == "hostile-hangs-everywhere"]
    assert [r["status"] for r in hanging] == ["timed-out"] * 3, [r["reason"] for r in hanging]
    assert all("run cold" in r["reason"] for r in hanging), hanging[0]["reason"]
    assert all(r["status"] == "solved" for r in records if r["solver"] == "min-conflicts")
    assert time.monotonic() - started < 60  # about 1 + 3 x 1.5 s; the preparation limit alone is 120 s
    code, out, _err = run_cli("solve", "-s", "hostile-hangs-everywhere", "-n", "8", "--timeout", "1")
    assert code == 1 and "timed-out" in out and "run cold" in out, out


@pytest.mark.parametrize("value", ["none", "0", "-1", "abc"])
def test_a_bad_prepare_timeout_is_one_line(run_cli, value: str) -> None:
    code, _out, err = run_cli("solve", "-s", "min-conflicts", "-n", "8", "--prepare-timeout", value)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


def test_a_split_count_does_not_pay_for_its_workers_preparation(fake_distribution) -> None:
    """Each worker prepares the counter for a second longer than the whole count's limit; the pieces get
    that time back on the worker that spent it, so the count ends exact.

    The limit is the yardstick's, measured here and now: four times what a fresh worker takes to start and
    answer, and the same split count takes on warm workers (together half a second on a quiet machine; 5 s
    and more under ``nice`` beside busy loops, where the second worker's start, which is not preparation,
    alone used up a 2 s limit), and at least 2 s: the count itself always fits, its workers' preparation
    never does."""
    with LocalExecutor(1) as fresh:
        started = time.monotonic()
        assert nq.solve("construction", 8, executor=fresh).solved
        worker_start = time.monotonic() - started
    with LocalExecutor(2) as executor:
        nq.count("bitboard", 12, limits=nq.Limits(timeout=600), executor=executor)  # both workers prepared
        started = time.monotonic()
        yardstick = nq.count("bitboard", 12, limits=nq.Limits(timeout=600), executor=executor)
        limit = max(2.0, 4 * (worker_start + time.monotonic() - started))
    assert yardstick.solutions == 14_200
    slow_warm_counter = f"""
        import time

        from nqueens_plugins import hookimpl
        from nqueens_plugins.builtin.bitboard import Bitboard

        class SlowWarmCounter(Bitboard):
            name = "slow-warm-counter"

            def warm_up(self, options, preparation=""):
                time.sleep({limit + 1.0!r})
                super().warm_up(options, preparation)  # and load the compiled counters

        @hookimpl
        def nqueens_register_solvers(register):
            register(SlowWarmCounter())
    """
    fake_distribution("nqueens-slow-count", {"slow": "slow_warm_counter"}, {"slow_warm_counter": slow_warm_counter})
    pieces: list[int] = []
    with LocalExecutor(2) as executor:
        result = nq.count(
            "slow-warm-counter",
            12,
            limits=nq.Limits(timeout=limit),
            executor=executor,
            progress=lambda d, t: pieces.append(t),
        )
    why = f"{result.status}: {result.reason} (limit {limit:.1f} s, a worker's start {worker_start:.1f} s)"
    assert pieces and pieces[0] > 2, why  # it was split
    assert result.status == "solved" and result.solutions == 14_200 and result.verified, why
    # the plan's worker, then the other: each slept past the whole limit
    assert result.prepare_seconds is not None and result.prepare_seconds >= 2 * (limit + 1.0)


def test_a_solver_prepares_once_per_preparation_it_names(fake_distribution, tmp_path: Path) -> None:
    """Small boards need less loaded than large ones (bitboard's Python and compiled counters): a worker
    prepares per name, so a small first run waits for nothing it will not use, and a large later run
    still has its preparation outside the clock."""
    log = tmp_path / "warm-ups.txt"
    by_size = f"""
        from nqueens_plugins import hookimpl
        from nqueens_plugins.builtin.construction import Construction

        class BySize(Construction):
            name = "by-size"

            def preparation(self, problem, options):
                return "large" if problem.n >= 20 else "small"

            def warm_up(self, options, preparation="large"):
                with open({str(log)!r}, "a") as out:
                    out.write(preparation + "\\n")

        @hookimpl
        def nqueens_register_solvers(register):
            register(BySize())
    """
    fake_distribution("nqueens-by-size", {"by": "by_size_plugin"}, {"by_size_plugin": by_size})
    with LocalExecutor(1) as executor:
        results = [nq.solve("by-size", n, limits=nq.Limits(timeout=30), executor=executor) for n in (8, 9, 24, 25, 10)]
    assert all(r.solved for r in results), [(r.n, r.status, r.reason) for r in results]
    assert log.read_text().split() == ["small", "large"]  # each once, in the one worker
    assert [r.prepare_seconds is not None for r in results] == [True, False, True, False, False]


def test_the_workers_own_failure_goes_to_a_log_the_record_names(tmp_path: Path) -> None:
    log = tmp_path / "worker.log"
    code = (
        "from pathlib import Path\n"
        "from nqueens_plugins.execution.worker import log_own_failures\n"
        f"log_own_failures(Path({str(log)!r}))\n"
        "raise RuntimeError('a bug in the worker itself')\n"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert completed.returncode == 1 and "Traceback" not in completed.stderr, completed.stderr
    assert "RuntimeError: a bug in the worker itself" in log.read_text()
    assert worker_handle.death_message(1, log) == f"worker process exited with status 1; its traceback is in {log}"
    assert worker_handle.death_message(-11, tmp_path / "none.log") == "worker process crashed (SIGSEGV)"


def test_a_worker_whose_service_is_gone_ends_quietly_and_leaves_no_log(tmp_path: Path) -> None:
    """The service stops listening (its command was killed) while its worker holds a task: the worker
    finds the pipe broken at its next message and ends with status 0, writing no traceback file (that
    is not a failure of the worker's own). Its parent here is this test, which stays alive, so no
    orphan watch ends it first."""
    from multiprocessing.connection import Connection

    import cloudpickle

    to_child_read, to_child_write = os.pipe()
    from_child_read, from_child_write = os.pipe()
    log = tmp_path / "worker.log"
    worker = subprocess.Popen(
        [sys.executable, "-m", "nqueens_plugins.execution.worker"]
        + [str(to_child_read), str(from_child_write), str(os.getpid()), str(log)],
        pass_fds=(to_child_read, from_child_write),
        start_new_session=True,
    )
    os.close(to_child_read)
    os.close(from_child_write)
    sender, receiver = Connection(to_child_write, readable=False), Connection(from_child_read, writable=False)
    try:
        assert receiver.poll(60) and wire.decode(receiver.recv_bytes()) == Ready()
        receiver.close()  # the service is gone: nobody reads what the worker says next
        variant = host.registry().variant("min-conflicts")
        sender.send_bytes(cloudpickle.dumps(Task.solve(variant, make_problem(8), nq.Limits(timeout=5))))
        assert worker.wait(timeout=60) == 0
    finally:
        sender.close()
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert not log.exists()


LEAVES_A_TEMP_FILE = """
import sys, tempfile, time
import nqueens_plugins as nq
from nqueens_plugins.testing import cpu_share
from nqueens_plugins import Outcome, Solver, Status


class Litter(Solver):
    name = "litter"
    summary = "Leaves a file in the temp folder, then sleeps past its limit."

    def solve(self, problem, rng, budget, options):
        if problem.n > 4:
            with tempfile.NamedTemporaryFile("w", prefix="litter-", delete=False) as handle:
                print(handle.name, flush=True)
            time.sleep(600)
        return Outcome(Status.GAVE_UP)


nq.register(Litter())
result = nq.solve("litter", 8, limits=nq.Limits(timeout=float(sys.argv[1])))
print(result.status, result.output.strip(), flush=True)
"""


@pytest.mark.parametrize("how", ["timed-out", "command killed"])
def test_what_a_plugin_leaves_in_the_temp_folder_goes_with_its_worker(tmp_path: Path, how: str) -> None:
    """Each worker's TMPDIR is a folder of its own, removed when the worker ends: killed at a time limit
    by the service, or by itself when its command was killed (kill -9) -- MiniZinc's FlatZinc files go there."""
    script = tmp_path / "litter.py"
    script.write_text(LEAVES_A_TEMP_FILE)
    environment = {**os.environ, "TMPDIR": str(tmp_path)}
    if how == "timed-out":
        done = subprocess.run(
            [sys.executable, str(script), "0.5"],
            capture_output=True,
            text=True,
            timeout=120,
            env=environment,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        status, litter = done.stdout.split()
        assert status == "timed-out"
    else:
        command = subprocess.Popen([sys.executable, str(script), "60"], env=environment, start_new_session=True)
        deadline = time.monotonic() + 60
        litter_files: list[Path] = []
        while not litter_files and time.monotonic() < deadline:
            litter_files = list(tmp_path.glob("nqueens-worker-*/litter-*"))
            time.sleep(0.05)
        assert litter_files, "the plugin never wrote its file"
        litter = str(litter_files[0])
        workers = descendants_of(command.pid)
        os.killpg(command.pid, signal.SIGKILL)
        command.wait()
        deadline = time.monotonic() + 30
        while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
    assert Path(litter).parent.name.startswith("nqueens-worker-")  # the worker's own temp folder
    assert not Path(litter).exists() and not Path(litter).parent.exists()
    assert not list(tmp_path.glob("nqueens-worker-*"))


def test_api_calls_are_isolated_and_the_api_example_runs_as_a_script(tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(
        "import nqueens_plugins as nq\n"
        "with nq.executor_for(jobs=2) as executor:\n"
        "    records = nq.compare(['min-conflicts', 'simulated-annealing[cooling=0.99]'], [8, 16], trials=2,\n"
        "                         limits=nq.Limits(seed=0, timeout=10), executor=executor)\n"
        "print(len(records), nq.solve('min-conflicts', 8, limits=nq.Limits(seed=1)).status)\n"
    )  # no `if __name__ == '__main__'` guard: worker processes must not re-import it
    done = subprocess.run([sys.executable, str(script)], capture_output=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [b"8", b"solved"]


def test_plugin_output_never_reaches_our_stdout(run_cli, fake_distribution) -> None:
    chatty = """
        from nqueens_plugins import Outcome, Solver, Status, hookimpl
        from nqueens_plugins.builtin.construction import construct

        class Chatty(Solver):
            name = "chatty"
            summary = "Prints while it solves."

            def solve(self, problem, rng, budget, options):
                print("hello from the plugin")
                return Outcome(Status.SOLVED, construct(problem.n), 1, problem.n)

        @hookimpl
        def nqueens_register_solvers(register):
            register(Chatty())
    """
    fake_distribution("nqueens-chatty", {"chatty": "chatty_plugin"}, {"chatty_plugin": chatty})
    result = nq.solve("chatty", 8)
    assert result.solved
    assert result.output == "hello from the plugin\n" and result.output_bytes == 22  # kept with the run
    code, out, err = run_cli("solve", "-s", "chatty", "-n", "8", "--json")
    assert code == 0 and len(out.splitlines()) == 1  # our stdout is the one JSON object: the print is data in it
    assert json.loads(out)["output"] == "hello from the plugin\n"
    assert "chatty printed 22 bytes (kept, not shown: --show-output shows its end)" in err


def test_a_worker_that_dies_while_its_child_holds_the_pipe_is_noticed(fake_distribution) -> None:
    orphaning = """
        import os, time
        from nqueens_plugins import Solver, hookimpl

        class ForksThenExits(Solver):
            name = "forks-then-exits"
            summary = "Leaves a child holding the worker's pipe, then exits."

            def solve(self, problem, rng, budget, options):
                if problem.n < 5:
                    return None  # the warm-up
                if os.fork() == 0:
                    time.sleep(120)
                    os._exit(0)
                os._exit(3)

        @hookimpl
        def nqueens_register_solvers(register):
            register(ForksThenExits())
    """
    fake_distribution("nqueens-forks", {"forks": "forks_plugin"}, {"forks_plugin": orphaning})
    start = time.monotonic()
    result = nq.solve("forks-then-exits", 8)  # no time limit: only noticing the death ends it
    assert result.status == "error" and "exited with status 3" in result.reason
    assert time.monotonic() - start < 60  # the child holds the pipe for 120 s; the death is noticed at once


def test_a_count_in_parts_adds_up_to_the_whole() -> None:
    from nqueens_plugins.workflows.counting import count_in_parts

    with LocalExecutor(2) as executor:
        shown: list[tuple[int, int]] = []
        result = count_in_parts(
            executor, Task.count(host.registry().variant("bitboard"), make_problem(12)), lambda *p: shown.append(p)
        )
        plain = count_in_parts(executor, Task.count(host.registry().variant("backtracking"), make_problem(9)))
    assert result.solutions == 14_200 and result.verified is True and result.counters["parts"] == 64
    assert shown[0] == (0, 64) and shown[-1] == (64, 64) and len(shown) == 65
    assert plain.solutions == 352 and plain.verified is True  # a solver without pieces counts in one


def test_worker_temp_folders_whose_service_is_gone_are_removed_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A service that ended without removing its workers' temp folders (a Dask worker process shut down
    from outside) leaves them to the next service, which removes every one whose service is gone."""
    import tempfile

    from nqueens_plugins.execution import processes

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    gone, alive = (
        tmp_path / f"nqueens-worker-{finished.stdout.strip()}-abc",
        tmp_path / f"nqueens-worker-{os.getpid()}-def",
    )
    for folder in (gone, alive):
        folder.mkdir()
        (folder / "mznfile.fzn").write_text("left behind")
    made = processes.scratch_folder()
    assert not gone.exists() and alive.exists() and made.parent == tmp_path
    assert made.name.startswith(f"nqueens-worker-{os.getpid()}-")
