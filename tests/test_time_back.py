"""Issue 54, item 3: the time a job's pieces get back for their worker's preparation is the parent's arithmetic
alone, by its own clock (``WorkerProcess.time_back``); the worker takes the end it is told (``JobEnd``)."""

from __future__ import annotations

import pickle
import threading
import time
from dataclasses import replace
from multiprocessing import Pipe

from nqueens_plugins.builtin.backtracking import Backtracking
from nqueens_plugins.core.limits import Limits
from nqueens_plugins.core.solver import Variant
from nqueens_plugins.execution.messages import Ready, Started, WarmingUp
from nqueens_plugins.execution.tasks import JobEnd, Task
from nqueens_plugins.execution.worker import Inbox
from nqueens_plugins.execution.worker_handle import KILL_GRACE, WorkerProcess
from nqueens_plugins.formats.inputs import make_problem


def piece(deadline: float) -> Task:
    solver = Backtracking()
    task = Task.solve(Variant(solver, {o.name: o.default for o in solver.options}), make_problem(6), Limits(timeout=60))
    return replace(task, deadline=deadline)


def test_a_job_end_is_a_frame_no_task_pickle_is() -> None:
    told = JobEnd(1_700_000_000.25, 1_700_000_003.5)
    assert JobEnd.read(told.frame()) == told
    assert JobEnd.read(pickle.dumps(piece(1.0))) is None


def test_the_parent_gives_a_job_back_its_preparation_by_its_own_clock_and_tells_the_worker() -> None:
    worker = WorkerProcess()
    ours, worker.sender = Pipe(duplex=False)  # what the handle sends next comes to the test, not to the worker
    try:
        job = time.time() + 30
        worker.tasks.append(piece(job))
        began = time.perf_counter()
        worker.hear(Ready())
        worker.hear(WarmingUp())
        worker.hear(Started(1_000.0))  # what the worker says it took is not what the parent gives back
        given = worker.time_back[job]
        assert 0 <= given <= time.perf_counter() - began
        assert JobEnd.read(ours.recv_bytes()) == JobEnd(job, job + given)
        t1, p1 = time.time(), time.perf_counter()
        deadline = worker.deadline()  # the run's: the job's end here, and the grace past it
        p2, t2 = time.perf_counter(), time.time()
        assert p1 - t2 + job + given + KILL_GRACE <= deadline <= p2 - t1 + job + given + KILL_GRACE
    finally:
        worker.kill()


def test_the_worker_runs_to_the_end_it_is_told_and_keeps_the_tasks_sent_before_it() -> None:
    reader, writer = Pipe(duplex=False)
    inbox = Inbox(reader)
    job = time.time() + 30
    queued = pickle.dumps(piece(job))
    writer.send_bytes(queued)  # the next piece, sent before the parent heard Started

    def answer() -> None:
        time.sleep(0.05)
        writer.send_bytes(JobEnd(job, job + 7.0).frame())

    parent = threading.Thread(target=answer)
    parent.start()
    inbox.prepared(piece(job), ran=True)  # waits for the parent's word
    parent.join()
    assert inbox.as_told(piece(job)).deadline == job + 7.0
    assert inbox.next_task() == queued
    assert inbox.as_told(piece(job + 1)).deadline == job + 1  # another job: as it was sent


def test_a_failed_preparation_does_not_wait_and_its_job_end_is_read_with_the_next_task() -> None:
    reader, writer = Pipe(duplex=False)
    inbox = Inbox(reader)
    job = time.time() + 30
    inbox.prepared(piece(job), ran=False)  # returns at once
    writer.send_bytes(JobEnd(job, job + 2.0).frame())
    nxt = pickle.dumps(piece(job))
    writer.send_bytes(nxt)
    assert inbox.next_task() == nxt and inbox.owed == 0
    assert inbox.as_told(piece(job)).deadline == job + 2.0
