"""Execution layer, parent side: the one state of a worker process, and the moves between states, in one table.

The parent's handle on a worker (``worker_handle.WorkerProcess``) is in exactly
one ``WorkerState`` at a time, and each state has a clock of its own (which
limit holds it: ``WorkerProcess.deadline``). It moves only along ``MOVES``, on
what it did itself (a task sent, the worker killed) or what the worker said
(``messages.py``); a move the table does not hold raises ``IllegalMove``. The
worker's frames come from a process that runs plugin code, so a worker that
says something out of its order is refused as a garbled answer
(``WorkerProcess.hear``), never believed.

Why one state, not flags: separate flags (started, running, warming up, a
compile under way) could say things no worker ever is (running and warming up),
and which message may follow which was nowhere written down; the table is.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class WorkerState(enum.Enum):
    """What a worker is doing, as its parent knows it (the first of its tasks is the one it works on)."""

    STARTING = "starting"  # Python starting and importing: no clock of a task runs (STARTUP_LIMIT)
    IDLE = "idle"  # ready, no task
    PREPARING = "preparing"  # rebuilding its first task's solver, new to it (prepare_timeout)
    WARMING_UP = "warming up"  # said WarmingUp: the solver's untimed warm_up (prepare_timeout)
    GUESSING = "guessing"  # said Guessing: the default warm-up, a guess (its short limit, within prepare_timeout)
    COMPILING = "compiling"  # said Compiling, for a built-in: our own kernels compile (COMPILE_LIMIT)
    RUNNING = "running"  # said Started, or its solver was prepared before: the run's limit
    ENDED = "ended"  # killed by its parent: nothing more is read from it


S = WorkerState

MOVES: dict[WorkerState, frozenset[WorkerState]] = {
    S.STARTING: frozenset({S.IDLE, S.PREPARING, S.ENDED}),  # Ready: its first task (if any) begins
    S.IDLE: frozenset({S.PREPARING, S.RUNNING, S.ENDED}),  # a task sent: new solver, or one prepared here
    # Done (a solver that could not be rebuilt): the next task begins, if any; WarmingUp.
    S.PREPARING: frozenset({S.IDLE, S.PREPARING, S.RUNNING, S.WARMING_UP, S.ENDED}),
    # Compiling (one of ours) / a message that changes nothing here; Guessing; Started.
    S.WARMING_UP: frozenset({S.WARMING_UP, S.GUESSING, S.COMPILING, S.RUNNING, S.ENDED}),
    # Compiling (one of ours, in the guess's solve) / a message that changes nothing here; Guessed.
    S.GUESSING: frozenset({S.GUESSING, S.COMPILING, S.WARMING_UP, S.ENDED}),
    # Compiled: back to the guess or the warm-up it was in; a kernel nested in the one compiling; Guessed (a
    # compile that raised in a guess says no Compiled); Started (nor in a solver's own warm-up).
    S.COMPILING: frozenset({S.COMPILING, S.GUESSING, S.WARMING_UP, S.RUNNING, S.ENDED}),
    # Done: the next task begins, if any; WarmingUp: a solver met before needs a new preparation for this problem.
    S.RUNNING: frozenset({S.IDLE, S.PREPARING, S.RUNNING, S.WARMING_UP, S.ENDED}),
    S.ENDED: frozenset({S.ENDED}),  # killing twice is harmless; nothing else follows an end
}
"""From each state, the states it may move to: every legal move of a worker, and no other."""

PREPARING_STATES = frozenset({S.PREPARING, S.WARMING_UP, S.GUESSING, S.COMPILING})
"""The states in which a task's solver is being prepared: its run's clock has not started."""


class IllegalMove(Exception):
    """A move ``MOVES`` does not hold: from the worker's frames, a worker out of its protocol."""

    def __init__(self, old: WorkerState, new: WorkerState, why: str = "") -> None:
        self.old, self.new = old, new
        super().__init__(f"a worker {old.value} cannot become {new.value}" + (f" ({why})" if why else ""))


def checked_move(old: WorkerState, new: WorkerState, why: str = "") -> WorkerState:
    """``new``, if ``MOVES`` lets a worker in ``old`` move to it; ``IllegalMove`` (saying ``why``) if not."""
    if new not in MOVES[old]:
        raise IllegalMove(old, new, why)
    return new


@dataclass
class PreparationClock:
    """The parent's own clock of its worker's first task while its solver warms up (from ``WarmingUp``), by
    ``time.perf_counter()``: what the parent holds it to, never what the worker says it took.

    ``compiled_seconds`` is the time the built-in engines spent compiling (``Compiling`` to ``Compiled``, believed
    for a built-in solver only): given back to the preparation's limit, which it never counts against.
    """

    guess_began: float | None = None  # when the default warm-up (a guess) began, while it runs
    guess_limit: float = float("inf")  # what that guess may take (Task.default_warm_up_limit)
    compiled_before_guess: float = 0.0  # compiled_seconds when it began: what it compiled is given back to it
    compile_began: float | None = None  # when the kernel now compiling began, if one is
    compiled_seconds: float = 0.0  # what compiling took in this preparation
    kernels: int = 0  # kernels compiled in this preparation

    def guess_started(self, now: float, limit: float) -> None:
        """The default warm-up began: it may take ``limit`` seconds (besides what our kernels' compile takes)."""
        self.guess_began, self.guess_limit, self.compiled_before_guess = now, limit, self.compiled_seconds

    def guess_deadline(self) -> float:
        """When the guess under way is over its limit (``inf`` if none is, or it has none)."""
        if self.guess_began is None:
            return float("inf")
        return self.guess_began + self.guess_limit + self.compiled_seconds - self.compiled_before_guess

    def compile_started(self, now: float) -> int:
        """A kernel began compiling: the number of kernels this preparation has compiled, this one included."""
        self.compile_began = now
        self.kernels += 1
        return self.kernels

    def compile_ended(self, now: float) -> None:
        """The kernel compiling is done: its time is given back to the preparation's limit."""
        if self.compile_began is not None:
            self.compiled_seconds += now - self.compile_began
            self.compile_began = None
