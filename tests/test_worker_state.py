"""Issue 54, item 3: a worker's one state, its moves in one table (``worker_state.MOVES``), and a worker that
says something out of its order refused as a garbled answer, never believed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from nqueens_plugins.builtin.backtracking import Backtracking
from nqueens_plugins.core.limits import Limits
from nqueens_plugins.core.problem import Status
from nqueens_plugins.core.solver import Variant
from nqueens_plugins.execution import wire
from nqueens_plugins.execution.messages import Compiled, Compiling, Done, Guessed, Guessing, Ready, Started, WarmingUp
from nqueens_plugins.execution.tasks import Executed, Task
from nqueens_plugins.execution.worker_handle import WorkerProcess
from nqueens_plugins.execution.worker_state import MOVES, IllegalMove, WorkerState, checked_move
from nqueens_plugins.formats.inputs import make_problem

S = WorkerState


def test_every_state_has_its_moves_and_only_the_table_moves_it() -> None:
    assert set(MOVES) == set(WorkerState)
    for old in WorkerState:
        for new in WorkerState:
            if new in MOVES[old]:
                assert checked_move(old, new) is new
            else:
                with pytest.raises(IllegalMove, match=f"a worker {old.value} cannot become {new.value}"):
                    checked_move(old, new)


def test_an_ended_worker_stays_ended_and_any_worker_can_be_ended() -> None:
    assert MOVES[S.ENDED] == {S.ENDED}
    assert all(S.ENDED in MOVES[state] for state in WorkerState)
    assert S.RUNNING not in MOVES[S.STARTING]  # a new worker has prepared nothing: its first task prepares


def task(limits: Limits | None = None) -> Task:
    solver = Backtracking()
    variant = Variant(solver, {o.name: o.default for o in solver.options})
    return Task.solve(variant, make_problem(6)) if limits is None else Task.solve(variant, make_problem(6), limits)


@pytest.fixture
def worker() -> Iterator[WorkerProcess]:
    """A real worker's handle, told messages by the test (what its worker sends is never read)."""
    handle = WorkerProcess()
    try:
        yield handle
    finally:
        handle.kill()
    assert handle.state is S.ENDED


def done() -> Done:
    return Done(Executed(None, 0.1, "stopped", status=Status.ERROR))


def test_a_workers_messages_move_it_through_its_states(worker: WorkerProcess) -> None:
    assert worker.state is S.STARTING
    worker.submit(task())
    assert worker.state is S.STARTING  # no task's clock runs while Python starts
    worker.hear(Ready())
    assert worker.state is S.PREPARING and worker.deadline() < float("inf")
    worker.hear(WarmingUp())
    assert worker.state is S.WARMING_UP and worker.warming_up
    worker.hear(Compiling("kernel"))  # believed: backtracking is a built-in
    assert worker.state is S.COMPILING and worker.compiling_now
    worker.hear(Compiled())
    assert worker.state is S.WARMING_UP and worker.clock.kernels == 1
    worker.hear(Started(0.2))
    assert worker.state is S.RUNNING and worker.warmed == {task().variant.name}
    worker.hear(Compiling("kernel"))  # during a run: changes nothing
    assert worker.state is S.RUNNING
    answer = worker.hear(done())
    assert answer is not None and worker.state is S.IDLE and worker.deadline() == float("inf")
    worker.submit(task())
    assert worker.state is S.RUNNING  # a solver it prepared starts at once


@pytest.mark.parametrize(
    ("with_task", "said", "refusal"),
    [
        (False, [Ready(), Ready()], "Ready out of order: a worker idle cannot become idle (Ready twice)"),
        (False, [Started(0.1)], "Started out of order: a worker starting cannot become running"),
        (True, [Ready(), Started(0.1)], "Started out of order: a worker preparing cannot become running"),
        (True, [Ready(), WarmingUp(), done()], "Done out of order: a worker warming up cannot become idle"),
        (True, [Ready(), WarmingUp(), WarmingUp()], "WarmingUp out of order: a worker warming up cannot become"),
        (True, [Ready(), WarmingUp(), Started(0.1), Started(0.1)], "Started out of order: a worker running"),
        (True, [Ready(), Guessing()], "Guessing out of order: a worker preparing cannot become guessing"),
        (True, [Ready(), WarmingUp(), Guessed()], "Guessed out of order: a worker warming up cannot become"),
        (True, [Ready(), WarmingUp(), Guessing(), Started(0.1)], "Started out of order: a worker guessing"),
        (True, [Ready(), WarmingUp(), Guessing(), Guessing()], "Guessing out of order: a worker guessing"),
    ],
)
def test_a_message_out_of_order_is_a_garbled_answer(
    worker: WorkerProcess, with_task: bool, said: list, refusal: str
) -> None:
    if with_task:
        worker.submit(task())
    *before, last = said
    for message in before:
        worker.hear(message)
    state, started = worker.state, worker.started
    with pytest.raises(wire.WireError) as refused:
        worker.hear(last)
    assert str(refused.value).startswith(refusal), refused.value
    assert (worker.state, worker.started) == (state, started)  # nothing believed


def test_only_a_guess_is_held_to_the_guess_limit(worker: WorkerProcess) -> None:
    """The default warm-up says it guesses (``Guessing``): then, and only then, the short limit holds (half the
    run's 2 s, well under the 120 s a preparation may take)."""
    worker.submit(task(Limits(timeout=2.0)))
    worker.hear(Ready())
    worker.hear(WarmingUp())
    assert worker.deadline() - worker.started > 100
    worker.hear(Guessing())
    assert worker.state is S.GUESSING and worker.in_guess()
    assert worker.deadline() - worker.clock.guess_began <= 1.0 + 1e-9  # type: ignore[operator]
    worker.hear(Compiling("kernel"))  # our own compile in the guess: its own limit, then back to the guess
    assert worker.state is S.COMPILING
    worker.hear(Compiled())
    assert worker.state is S.GUESSING
    worker.hear(Guessed())
    assert worker.state is S.WARMING_UP and not worker.in_guess() and worker.deadline() - worker.started > 100
    worker.hear(Started(0.1))
    assert worker.state is S.RUNNING
