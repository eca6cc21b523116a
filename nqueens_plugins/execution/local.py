"""Execution layer, parent side: ``LocalExecutor``, the service every call into plugin code goes through.

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
* is killed from outside ``KILL_GRACE`` seconds (or the executor's ``kill_grace``) past the task's time limit
  (the run is recorded ``timed-out``), and replaced when it dies (``error``,
  with the exit status or signal);
* is reused for the next task, since starting a process costs more than a
  fast run.

Whatever comes back is parsed as data (``wire.py``) and verified here, in this
process (``judge.conclude``): a solver never vouches for its own answer. A
no-solution claim's proof is taken from its worker and checked by a checker
program this service owns, against the task's own problem
(``proof_checks.ProofChecks``), while the workers go on being watched. Workers leave by themselves when this
process is gone, however it died.

This module is the scheduler: which worker takes which task, when a worker is
overdue, dead or idle. Each worker's own state (starting, preparing, running)
is its handle's (``worker_handle.WorkerProcess``); the interface is
``executor.py``. Backends: ``LocalExecutor`` (worker processes on this machine,
the default) and ``DaskExecutor`` (``dask_cluster.py``), which runs the same
worker program inside each Dask task.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import sys
import time
from collections import deque
from collections.abc import Generator, Iterable, Iterator
from dataclasses import replace
from multiprocessing.connection import Connection, wait
from typing import TypeVar

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import Status
from nqueens_plugins.execution.executor import Executor
from nqueens_plugins.execution.judge import conclude
from nqueens_plugins.execution.proof_checks import Checkers, ProofChecks, wanted
from nqueens_plugins.execution.tasks import Executed, Task
from nqueens_plugins.execution.wire import WireError
from nqueens_plugins.execution.worker_handle import (
    KILL_GRACE,
    STARTUP_LIMIT,
    WorkerProcess,
    death_message,
    killed,
    not_tried,
    unprepared,
    with_output,
)
from nqueens_plugins.execution.worker_state import WorkerState

R = TypeVar("R")

DEATH_CHECK = 0.5  # seconds between looks at whether a busy worker is still alive

LOOKAHEAD = 256  # pending tasks a free worker looks through for one of its own plugin


def first_served(worker: WorkerProcess, pending: deque[Task], prepared_only: bool = False) -> int | None:
    """Where the first of the next ``LOOKAHEAD`` pending tasks that ``worker`` may take stands (with
    ``prepared_only``, of a solver it has prepared already), if any."""
    for index, task in enumerate(itertools.islice(pending, LOOKAHEAD)):
        if worker.serves(task) and (not prepared_only or task.variant.name in worker.warmed):
            return index
    return None


class LocalExecutor(Executor):
    """Worker processes on this machine. Reusable: workers stay warm between calls of ``map``.

    Each worker holds up to ``QUEUED_PER_WORKER`` tasks, so it starts the next as
    soon as it sends an answer, without waiting for this process to read it.
    """

    QUEUED_PER_WORKER = 2

    def __init__(self, jobs: int = 0, kill_grace: float = KILL_GRACE) -> None:
        """``jobs`` workers at most (0: one per core); a run still going ``kill_grace`` seconds past its limit is
        killed (the contract kit stretches it by the load it measures, so a busy machine fails no plugin)."""
        cores = os.cpu_count() or 1
        if jobs > cores:
            raise BadInput(
                f"--jobs {jobs} is more than this machine's {cores} cores: runs would share cores and their "
                f"times would mean nothing; use at most {cores} (0 means one per core)"
            )
        self.jobs = max(1, jobs or cores)
        self.kill_grace = kill_grace
        self.idle: list[WorkerProcess] = []
        self.unprepared: dict[str, Executed] = {}  # variant name -> its preparation's failure, in this call
        self.unsent: list[tuple[Task, Executed]] = []  # tasks that could not be pickled, with that failure
        # Variant names whose default warm-up did not end: their tasks run cold from then on, in any worker.
        self.cold: set[str] = set()
        self.checkers = Checkers(self.jobs)  # the certificates' checkers, one warm per slot

    def map(self, tasks: Iterable[Task[R]], *, quickest_first: bool = False) -> Iterator[tuple[Task[R], R]]:
        """Verified answers as tasks end; closing the stream early kills the workers still busy (a race's losers).
        ``quickest_first``: answers that arrive together come quickest run first (a race's winner is the run
        that finished first); otherwise in the order the workers are read, which a split count relies on:
        a worker's first answer, which carries its preparation, comes before its later ones."""
        answers = self.execute(tasks, quickest_first)
        try:
            for task, executed, wall in answers:
                yield task, conclude(task, executed, wall)
        finally:
            answers.close()

    def execute(
        self, tasks: Iterable[Task[R]], quickest_first: bool = False
    ) -> Generator[tuple[Task[R], Executed, float | None], None, None]:
        """Run every task; yield (task, what came back unverified but for its certificate, wall seconds) as
        each ends."""
        pending = deque(tasks)
        busy: dict[Connection, WorkerProcess] = {}
        checks = ProofChecks(self.checkers)
        self.unprepared.clear()
        self.unsent.clear()
        try:
            while pending or busy or checks.active:
                if self.unprepared:
                    yield from self.not_started(pending)
                    if not (pending or busy or checks.active):
                        break
                self.fill(pending, busy, checks)
                while self.unsent:
                    task, failure = self.unsent.pop()
                    yield task, failure, None
                if not busy and not checks.running:
                    continue
                deadline = min([worker.deadline() for worker in busy.values()] + [checks.deadline()])
                # Wake at least every DEATH_CHECK seconds: a worker's death is noticed even when
                # no end-of-pipe comes (a process the plugin forked holds the pipe open).
                remaining = max(0.0, min(deadline - time.perf_counter(), DEATH_CHECK))
                wait([*busy, *checks.waitables()], timeout=remaining)
                batch = []
                for worker in list(busy.values()):
                    worker.output.bound()
                    for task, executed, wall in self.collect(worker, pending):
                        settled = checks.submit(task, executed, wall, worker.scratch)
                        if settled is not None:
                            batch.append(settled)
                    # Settle the worker before yielding: a caller may stop after any answer. A worker
                    # that died keeps its tasks until its pipe's end is read (then they are answered
                    # or requeued), so none is lost.
                    if not worker.tasks:
                        busy.pop(worker.receiver)
                        if worker.alive:
                            self.idle.append(worker)
                batch.extend(checks.finished())
                if quickest_first:  # a race: the winner is the run that finished first, not the worker read first
                    batch.sort(key=lambda answer: answer[1].seconds)
                yield from batch
        finally:
            for worker in busy.values():
                worker.kill()
            checks.cancel()

    def not_started(self, pending: deque[Task]) -> Iterator[tuple[Task, Executed, float | None]]:
        """The pending tasks of solvers whose preparation failed in this call, ended with that failure."""
        for task in [task for task in pending if task.variant.name in self.unprepared]:
            pending.remove(task)
            yield task, not_tried(self.unprepared[task.variant.name]), None

    def fill(self, pending: deque[Task], busy: dict[Connection, WorkerProcess], checks: ProofChecks) -> None:
        """Hand pending tasks to workers: idle or new ones first, then a second task to each. A worker
        takes only tasks of its own plugin (``WorkerProcess``), the first such among the next
        ``LOOKAHEAD`` pending, so a grid that alternates plugins does not restart workers."""
        # A certificate's check holds its worker's slot, as the run did: no run is timed beside more
        # processes than there are slots.
        while pending and len(busy) + len(checks.running) < self.jobs:
            worker, first = self.next_assignment(pending, busy)
            if self.send(worker, pending, first):
                busy[worker.receiver] = worker
            elif worker.alive and not worker.tasks:
                self.idle.append(worker)  # only its task could not be sent (pickled); the worker is fine
        for worker in busy.values():
            # Nothing queued behind a run that may bring a proof: its check takes the slot before the next run.
            while len(worker.tasks) < self.QUEUED_PER_WORKER and worker.alive and not wanted(worker.tasks[-1]):
                index = first_served(worker, pending)
                if index is None or not self.send(worker, pending, index):
                    break

    def next_assignment(self, pending: deque[Task], busy: dict[Connection, WorkerProcess]) -> tuple[WorkerProcess, int]:
        """An idle worker and the first pending task of its plugin, else a new worker for the first task.
        At the number of jobs, the least recently used idle worker ends to make room (it holds nothing)."""
        for stale in [worker for worker in self.idle if worker.path != tuple(sys.path)]:
            self.idle.remove(stale)  # plugins became importable from somewhere new
            stale.kill()
        for prepared_only in (True, False):  # a worker that has prepared the task's solver first (no warm-up)
            for worker in reversed(self.idle):  # the most recently used first: it is the warmest
                index = first_served(worker, pending, prepared_only)
                if index is not None:
                    self.idle.remove(worker)
                    return worker, index
        if self.idle and len(busy) + len(self.idle) >= self.jobs:
            self.idle.pop(0).kill()
        return WorkerProcess(self.kill_grace), 0

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
        garbled: str | None = None
        try:
            while worker.tasks and worker.receiver.poll():
                answer = worker.hear(worker.receive())
                if answer is not None:
                    answers.append(answer)
            # Dead without an end-of-pipe: a process the plugin forked may still hold the pipe open.
            died = bool(worker.tasks) and worker.process.poll() is not None
        except (EOFError, OSError):
            died = bool(worker.tasks)
        except WireError as exc:  # written by the plugin, or its worker is broken: the answer is its error
            garbled, died = f"its worker's answer could not be read: {exc}", False
        if garbled is not None:
            printed = worker.output.remains()
            worker.kill()
            task = worker.tasks.popleft()
            answers.append(
                (task, with_output(Executed(None, time.perf_counter() - worker.started, garbled), printed), None)
            )
            self.requeue(worker, pending)
        elif died:
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
            state = worker.state  # what it was doing when its limit came (killing it ends it)
            cut_warm_up = worker.in_guess()
            warming_up = worker.warming_up
            worker.kill()
            task = worker.tasks.popleft()
            if state is WorkerState.RUNNING:
                answers.append((task, with_output(killed(task, elapsed, worker.kill_grace), printed), None))
            elif cut_warm_up:
                self.cold.add(task.variant.name)  # the run itself, cold, in a new worker: no answer yet
                worker.tasks.appendleft(replace(task, cold=True))  # back to pending first, below
            elif state is not WorkerState.STARTING:
                failure = unprepared(task, elapsed, warming_up, state is WorkerState.COMPILING)
                self.unprepared[task.variant.name] = with_output(failure, printed)
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
        """End the idle workers (their groups are killed: an idle worker holds nothing) and the checkers."""
        while self.idle:
            self.idle.pop().kill()
        self.checkers.close()


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
