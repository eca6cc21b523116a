"""Execution layer, parent side: the service through which every call into plugin code goes.

Solve and count from the CLI and the API, comparisons, cross-checks and the
contract kit all hand ``Task``s to an ``Executor`` and get verified results back.
Why one path: a plugin may raise, loop forever ignoring its budget, call
``os._exit``, crash the interpreter, print to stdout or start processes of its
own. Here each task runs in a worker process (``worker.py``, started as
``python -m nqueens_plugins.execution.worker``) that

* lives in its own process group: a kill takes whatever the plugin started;
* says when it has started (Python and this package imported): no task's
  clock runs during a worker's startup, however loaded the machine;
* prepares a solver the first time it meets it (rebuilds it, which imports its
  plugin, and runs its untimed ``warm_up``) under a limit of its own, the
  task's ``prepare_timeout``, never the run's: imports and compiled kernels
  never count as solving time, and the record keeps the preparation apart
  (``prepare_seconds``). One that outlasts its limit is an ``error`` saying so,
  and the solver's other tasks in the same call end with it, unstarted (a
  preparation that took minutes once would take them again). The default
  warm-up (a 4x4 solve: a guess at what a first call loads) gets only
  half the run's time limit (``Task.default_warm_up_limit``): past it the worker
  is ended and the solver runs cold in a new one, under the run's own limit (a
  solver that ignores its budget hangs there first, and the user's ``--timeout``
  must still hold);
* serves one plugin only, so nothing a plugin leaves in its process reaches
  another plugin's runs;
* times the solver call alone; this process records its own wall time beside
  it, and the difference is reported as ``overhead_seconds``;
* is killed from outside ``KILL_GRACE`` seconds past the task's time limit
  (the run is recorded ``timed-out``), and replaced when it dies (``error``,
  with the exit status or signal);
* is reused for the next task, since starting a process costs more than a
  fast run.

Whatever comes back is verified here, in this process (``judge.conclude``): a
solver never vouches for its own answer. Workers leave by themselves when this
process is gone, however it died.

Backends: ``LocalExecutor`` (worker processes on this machine, the default)
and ``DaskExecutor`` (``dask_cluster.py``), which runs the same worker program
inside each Dask task.
"""

from __future__ import annotations

import abc
import atexit
import contextlib
import itertools
import os
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import replace
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Self

import cloudpickle

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import Status
from nqueens_plugins.execution import processes
from nqueens_plugins.execution.judge import Answer, conclude
from nqueens_plugins.execution.output import CapturedOutput
from nqueens_plugins.execution.tasks import Executed, Task

KILL_GRACE = 0.5  # seconds past the time limit before a task is killed from outside
STARTUP_LIMIT = 60.0  # seconds a new worker may take to start (a loaded machine) before it counts as dead
DEATH_CHECK = 0.5  # seconds between looks at whether a busy worker is still alive


def grace(task: Task) -> float:
    """Seconds past its limit before a run is killed: none for a solver that says it never stops itself."""
    try:
        stops = task.variant.solver.stops_itself(task.variant.options)
    except Exception:  # noqa: BLE001 - plugin code; a solver that cannot say gets the grace
        stops = True
    return KILL_GRACE if stops is not False else 0.0


def killed(task: Task, elapsed: float) -> Executed:
    """A run killed at its time limit: ``timed-out``."""
    if task.deadline is not None:
        limit = "its job's deadline"  # a piece of a split count: the whole count's limit
    else:
        limit = f"its {task.limits.timeout if task.limits.timeout is not None else 0.0:g} s limit"
    if not grace(task):
        reason = f"stopped by the host at {limit} after {elapsed:.2f} s (the solver does not stop itself)"
    else:
        reason = f"killed after {elapsed:.2f} s: still running {KILL_GRACE} s past {limit}"
    return Executed(None, elapsed, reason, status=Status.TIMED_OUT)


def unprepared(task: Task, elapsed: float, warming_up: bool) -> Executed:
    """A solver whose preparation outlasted its own limit: an ``error`` (the run never started)."""
    where = "in its warm_up" if warming_up else "importing its plugin and rebuilding it"
    reason = (
        f"preparing the solver took more than {task.limits.prepare_timeout:g} s ({where}) and was stopped; "
        "the run never started (allow more with --prepare-timeout)"
    )
    return Executed(None, 0.0, reason, status=Status.ERROR, prepare_seconds=elapsed)


def not_tried(failure: Executed) -> Executed:
    """A task not started because preparing its solver failed for an earlier task in the same call."""
    reason = f"not started: for an earlier task of this solver in the same call, {failure.error}"
    return Executed(None, 0.0, reason, status=Status.ERROR)


def with_output(executed: Executed, printed: tuple[int, str | None]) -> Executed:
    """``executed`` (made here: the worker died or was killed) with what its last run printed."""
    executed.output_bytes, executed.output = printed
    return executed


def death_message(code: int | None, log: Path) -> str:
    """How a worker ended, naming the debug log its own traceback went to, if it wrote one."""
    how = processes.how_it_ended(code)
    message = (
        f"worker process crashed ({how})" if code is not None and code < 0 else f"worker process exited with {how}"
    )
    if log.exists():
        message += f"; its traceback is in {log}"
    return message


_logs = itertools.count()


def log_path() -> Path:
    """Where a new worker writes its own traceback if it fails (``worker.log_own_failures``); unique to
    this process and worker, and only written if the worker itself breaks."""
    path = Path(tempfile.gettempdir()) / f"nqueens-worker-{os.getpid()}-{next(_logs)}.log"
    path.unlink(missing_ok=True)  # left by an earlier process of the same number
    return path


LOOKAHEAD = 256  # pending tasks a free worker looks through for one of its own plugin


def first_served(worker: WorkerProcess, pending: deque[Task]) -> int | None:
    """Where the first of the next ``LOOKAHEAD`` pending tasks that ``worker`` may take stands, if any."""
    for index, task in enumerate(itertools.islice(pending, LOOKAHEAD)):
        if worker.serves(task):
            return index
    return None


def plugin_of(task: Task) -> str:
    """The plugin a task's solver belongs to, as the one-plugin-per-worker rule counts it: the
    top-level package its class is defined in (every built-in is ``nqueens_plugins``: one plugin)."""
    return type(task.variant.solver).__module__.partition(".")[0]


class WorkerProcess:
    """One worker program, its two pipes and the tasks it holds (the one running first).

    A worker serves the solvers of one plugin only (``plugin_of``), fixed by its first
    task: whatever a plugin leaves changed in its process (a patched ``random``, a
    leaked cache) can reach its own later runs, never another plugin's.
    """

    def __init__(self) -> None:
        to_child_read, to_child_write = os.pipe()
        from_child_read, from_child_write = os.pipe()
        environment = processes.worker_environment()  # the plugins refused here are refused there too
        self.log = log_path()
        self.output = CapturedOutput()  # its stdout and stderr: what plugins print stays out of the terminal
        self.scratch = processes.scratch_folder()  # its TMPDIR, removed when it ends (kill, or its own end)
        for name in ("TMPDIR", "TEMP", "TMP", processes.SCRATCH_VARIABLE):
            environment[name] = str(self.scratch)
        try:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "nqueens_plugins.execution.worker",
                    str(to_child_read),
                    str(from_child_write),
                    str(os.getpid()),
                    str(self.log),
                ],
                pass_fds=(to_child_read, from_child_write),
                stdin=subprocess.DEVNULL,
                stdout=self.output.fileno(),
                stderr=self.output.fileno(),
                start_new_session=True,
                env=environment,
            )
        finally:
            os.close(to_child_read)
            os.close(from_child_write)
        self.sender = Connection(to_child_write, readable=False)
        self.receiver = Connection(from_child_read, writable=False)
        self.path = tuple(sys.path)  # what it was started with; a changed sys.path needs a new worker
        self.created = time.perf_counter()
        self.ready = False  # it said it has started: task clocks run from then, never during startup
        self.tasks: deque[Task] = deque()  # sent, not answered; the first is running or warming up
        self.started = 0.0  # when the first task's timed call started (or, while preparing, came up)
        self.running = False  # the first task's timed call is under way
        self.warming_up = False  # the first task's solver is rebuilt and warming up
        self.warm_up_began = 0.0  # when it said so
        self.warm_up_limit = float("inf")  # what a default warm-up may take then (Task.default_warm_up_limit)
        self.warmed: set[str] = set()  # solvers this worker has prepared: it starts their calls at once
        # A job's deadline (a split count's pieces share one) -> what preparing took here: its pieces here
        # get that time back (the worker moves their deadline the same way, ``worker.Preparations``).
        self.extensions: dict[float, float] = {}
        self.plugin: str | None = None  # the one plugin whose tasks it takes, from its first task on

    def serves(self, task: Task) -> bool:
        return self.plugin is None or self.plugin == plugin_of(task)

    def submit(self, task: Task) -> None:
        # cloudpickle sends a solver class defined in __main__ (nq.register from a notebook) whole,
        # and every importable one by reference, as pickle does; the worker unpickles with pickle.
        message = cloudpickle.dumps(task)  # first: a task that cannot be pickled leaves the worker as it was
        self.sender.send_bytes(message)
        self.plugin = plugin_of(task)
        self.tasks.append(task)
        if len(self.tasks) == 1:
            self.begin()

    def begin(self) -> None:
        """The first task starts now: at once if its solver is prepared, else after its preparation."""
        self.started = time.perf_counter()
        self.running = self.tasks[0].variant.name in self.warmed
        self.warming_up = False

    def deadline(self) -> float:
        if not self.ready:
            return self.created + STARTUP_LIMIT
        if not self.tasks:
            return float("inf")
        task = self.tasks[0]
        if not self.running:  # preparing its solver: the preparation's own limit, never the run's
            end = self.started + task.limits.prepare_timeout + KILL_GRACE
            if self.in_default_warm_up():
                end = min(end, self.warm_up_began + self.warm_up_limit)
            return end
        end = float("inf") if task.limits.timeout is None else self.started + task.limits.timeout
        if task.deadline is not None:
            job_end = task.deadline + self.extensions.get(task.deadline, 0.0)
            end = min(end, time.perf_counter() + job_end - time.time())
        return end + grace(task)

    def preparing(self) -> None:
        """The worker says it is preparing the first task's solver: a solver it met before may need more
        for this problem (``Solver.preparation``), so a run taken for started waits, and its clock restarts."""
        self.warming_up = True
        self.warm_up_began = time.perf_counter()
        self.warm_up_limit = self.tasks[0].default_warm_up_limit() or float("inf")
        if self.running:
            self.running = False
            self.started = time.perf_counter()

    def prepared(self, seconds: float) -> None:
        """The worker says it prepared the first task's solver in ``seconds``: its run starts now."""
        task = self.tasks[0]
        self.running = True
        self.started = time.perf_counter()
        self.warmed.add(task.variant.name)
        if task.deadline is not None:
            self.extensions[task.deadline] = self.extensions.get(task.deadline, 0.0) + seconds

    def in_default_warm_up(self) -> bool:
        """Whether the first task's solver is in a default warm-up held to a short limit of its own."""
        task = self.tasks[0]
        limited = self.warm_up_limit != float("inf")
        return self.warming_up and not self.running and task.default_warm_up and not task.cold and limited

    def kill(self) -> None:
        """SIGKILL the worker's process group and its descendants: the worker and anything a plugin started."""
        processes.kill_tree(self.process.pid)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.close_pipes()
        self.output.close()
        processes.remove_scratch(self.scratch)

    def close_pipes(self) -> None:
        for connection in (self.sender, self.receiver):
            try:
                connection.close()
            except OSError:
                pass

    @property
    def alive(self) -> bool:
        return self.process.poll() is None and not self.receiver.closed


class Executor(abc.ABC):
    """What every backend offers: ``map`` (tasks in, verified answers out as they end),
    ``run`` (one task), ``close``; usable as a context manager.

    The pieces of a split count (``TaskKind.COUNT_PLAN``, ``COUNT_PART``) come back
    unverified, as ``Executed``: ``counting.count_in_parts`` verifies their total.
    """

    @abc.abstractmethod
    def map(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, Answer | Executed]]:
        """Run every task; yield (task, its verified result) as each ends, in the order they end."""

    def run(self, task: Task) -> Answer | Executed:
        """One task, its result."""
        for _, answer in self.map([task]):
            return answer
        raise RuntimeError("the executor returned nothing")  # pragma: no cover

    def close(self) -> None:
        """Release what the backend holds (idle workers, a cluster connection)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LocalExecutor(Executor):
    """Worker processes on this machine. Reusable: workers stay warm between calls of ``map``.

    Each worker holds up to ``QUEUED_PER_WORKER`` tasks, so it starts the next as
    soon as it sends an answer, without waiting for this process to read it.
    """

    QUEUED_PER_WORKER = 2

    def __init__(self, jobs: int = 0) -> None:
        cores = os.cpu_count() or 1
        if jobs > cores:
            raise BadInput(
                f"--jobs {jobs} is more than this machine's {cores} cores: runs would share cores and their "
                f"times would mean nothing; use at most {cores} (0 means one per core)"
            )
        self.jobs = max(1, jobs or cores)
        self.idle: list[WorkerProcess] = []
        self.unprepared: dict[str, Executed] = {}  # variant name -> its preparation's failure, in this call
        self.unsent: list[tuple[Task, Executed]] = []  # tasks that could not be pickled, with that failure
        # Variant names whose default warm-up did not end: their tasks run cold from then on, in any worker.
        self.cold: set[str] = set()

    def map(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, Answer | Executed]]:
        for task, executed, wall in self.execute(tasks):
            yield task, conclude(task, executed, wall)

    def execute(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, Executed, float | None]]:
        """Run every task; yield (task, what came back unverified, wall seconds) as each ends."""
        pending = deque(tasks)
        busy: dict[Connection, WorkerProcess] = {}
        self.unprepared.clear()
        self.unsent.clear()
        try:
            while pending or busy:
                if self.unprepared:
                    yield from self.not_started(pending)
                    if not (pending or busy):
                        break
                self.fill(pending, busy)
                while self.unsent:
                    task, failure = self.unsent.pop()
                    yield task, failure, None
                if not busy:
                    continue
                deadline = min(worker.deadline() for worker in busy.values())
                # Wake at least every DEATH_CHECK seconds: a worker's death is noticed even when
                # no end-of-pipe comes (a process the plugin forked holds the pipe open).
                remaining = max(0.0, min(deadline - time.perf_counter(), DEATH_CHECK))
                wait(list(busy), timeout=remaining)
                for worker in list(busy.values()):
                    worker.output.bound()
                    answers = self.collect(worker, pending)
                    # Settle the worker before yielding: a caller may stop after any answer. A worker
                    # that died keeps its tasks until its pipe's end is read (then they are answered
                    # or requeued), so none is lost.
                    if not worker.tasks:
                        busy.pop(worker.receiver)
                        if worker.alive:
                            self.idle.append(worker)
                    yield from answers
        finally:
            for worker in busy.values():
                worker.kill()

    def not_started(self, pending: deque[Task]) -> Iterator[tuple[Task, Executed, float | None]]:
        """The pending tasks of solvers whose preparation failed in this call, ended with that failure."""
        for task in [task for task in pending if task.variant.name in self.unprepared]:
            pending.remove(task)
            yield task, not_tried(self.unprepared[task.variant.name]), None

    def fill(self, pending: deque[Task], busy: dict[Connection, WorkerProcess]) -> None:
        """Hand pending tasks to workers: idle or new ones first, then a second task to each. A worker
        takes only tasks of its own plugin (``WorkerProcess``), the first such among the next
        ``LOOKAHEAD`` pending, so a grid that alternates plugins does not restart workers."""
        while pending and (self.idle or len(busy) < self.jobs):
            worker, first = self.next_assignment(pending, busy)
            if self.send(worker, pending, first):
                busy[worker.receiver] = worker
            elif worker.alive and not worker.tasks:
                self.idle.append(worker)  # only its task could not be sent (pickled); the worker is fine
        for worker in busy.values():
            while len(worker.tasks) < self.QUEUED_PER_WORKER and worker.alive:
                index = first_served(worker, pending)
                if index is None or not self.send(worker, pending, index):
                    break

    def next_assignment(self, pending: deque[Task], busy: dict[Connection, WorkerProcess]) -> tuple[WorkerProcess, int]:
        """An idle worker and the first pending task of its plugin, else a new worker for the first task.
        At the number of jobs, the least recently used idle worker ends to make room (it holds nothing)."""
        for stale in [worker for worker in self.idle if worker.path != tuple(sys.path)]:
            self.idle.remove(stale)  # plugins became importable from somewhere new
            stale.kill()
        for worker in reversed(self.idle):  # the most recently used first: it is the warmest
            index = first_served(worker, pending)
            if index is not None:
                self.idle.remove(worker)
                return worker, index
        if self.idle and len(busy) + len(self.idle) >= self.jobs:
            self.idle.pop(0).kill()
        return WorkerProcess(), 0

    def send(self, worker: WorkerProcess, pending: deque[Task], index: int = 0) -> bool:
        """Hand ``pending[index]`` to ``worker``. A task that cannot be pickled (a solver given an open file
        or a lock after it was registered) leaves ``pending`` as an error of its own (``unsent``)."""
        if pending[index].variant.name in self.cold and not pending[index].cold:
            pending[index] = replace(pending[index], cold=True)
        try:
            worker.submit(pending[index])
        except OSError:
            return False
        except Exception as exc:  # noqa: BLE001 - pickling plugin objects may raise anything
            task = pending[index]
            del pending[index]
            why = f"cannot be sent to a worker process ({type(exc).__name__}: {exc})"
            self.unsent.append((task, Executed(None, 0.0, why, status=Status.ERROR)))
            return False
        del pending[index]
        return True

    def collect(self, worker: WorkerProcess, pending: deque[Task]) -> list[tuple[Task, Executed, float | None]]:
        """The answers the worker has sent; a dead or overdue worker's first task ends as error or
        timed-out, and the tasks queued behind it go back to ``pending`` (they never started)."""
        answers: list[tuple[Task, Executed, float | None]] = []
        try:
            while worker.tasks and worker.receiver.poll():
                message = worker.receiver.recv()
                task = worker.tasks[0]
                if message[0] == "ready":
                    worker.ready = True
                    worker.begin()  # the first task's clock starts now, not while Python started
                    continue
                if message[0] == "warming-up":
                    worker.preparing()
                    continue
                if message[0] == "started":
                    worker.prepared(message[1])
                    continue
                worker.tasks.popleft()
                executed = message[1]
                executed.output_bytes = worker.output.counted(executed.output_bytes)
                answers.append((task, executed, time.perf_counter() - worker.started))
                if worker.tasks:
                    worker.begin()
            # Dead without an end-of-pipe: a process the plugin forked may still hold the pipe open.
            died = bool(worker.tasks) and worker.process.poll() is not None
        except (EOFError, OSError):
            died = bool(worker.tasks)
        if died:
            code = worker.process.wait()
            printed = worker.output.remains()
            worker.kill()  # and whatever the plugin left running
            task = worker.tasks.popleft()
            reason = death_message(code, worker.log)
            answers.append(
                (task, with_output(Executed(None, time.perf_counter() - worker.started, reason), printed), None)
            )
            self.requeue(worker, pending)
        elif worker.tasks and time.perf_counter() >= worker.deadline():
            elapsed = time.perf_counter() - worker.started
            printed = worker.output.remains()
            cut_warm_up = worker.ready and worker.in_default_warm_up()
            worker.kill()
            task = worker.tasks.popleft()
            if worker.ready and worker.running:
                answers.append((task, with_output(killed(task, elapsed), printed), None))
            elif cut_warm_up:
                self.cold.add(task.variant.name)  # the run itself, cold, in a new worker: no answer yet
                worker.tasks.appendleft(replace(task, cold=True))  # back to pending first, below
            elif worker.ready:
                self.unprepared[task.variant.name] = with_output(unprepared(task, elapsed, worker.warming_up), printed)
                answers.append((task, self.unprepared[task.variant.name], None))
            else:
                answers.append(
                    (task, Executed(None, 0.0, f"worker process did not start within {STARTUP_LIMIT:g} s"), None)
                )
            self.requeue(worker, pending)
        return answers

    @staticmethod
    def requeue(worker: WorkerProcess, pending: deque[Task]) -> None:
        while worker.tasks:
            pending.appendleft(worker.tasks.pop())

    def close(self) -> None:
        """End the idle workers (their groups are killed: an idle worker holds nothing)."""
        while self.idle:
            self.idle.pop().kill()


@contextlib.contextmanager
def given_or_local(executor: Executor | None, jobs: int) -> Iterator[Executor]:
    """``executor`` as it is, or local workers made for the caller and ended when it is done."""
    if executor is not None:
        yield executor
        return
    with LocalExecutor(jobs) as local:  # starts workers only as tasks need them
        yield local


_shared: LocalExecutor | None = None


def shared_executor() -> LocalExecutor:
    """One warm executor for the process (the API's and the contract kit's single calls)."""
    global _shared
    if _shared is None:
        _shared = LocalExecutor()
        atexit.register(_shared.close)
    return _shared
