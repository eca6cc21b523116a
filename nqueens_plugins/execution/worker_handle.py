"""Execution layer, parent side: the handle on one worker process, and what it makes of the worker's messages.

A ``WorkerProcess`` starts the worker program (``python -m
nqueens_plugins.execution.worker``) in a process group of its own, sends it
pickled tasks, reads its messages as frames of data (``wire.py``) and keeps its
one state (``worker_state.WorkerState``, moved only along ``worker_state.MOVES``;
a message out of order is a garbled answer), each state held to a limit of its
own: starting (no clock runs until the worker says ``Ready``), preparing its
solver (from the task's beginning, then ``WarmingUp``: held to the task's
``prepare_timeout``), guessing (``Guessing``: the solver's default warm-up,
held to half the run's limit), the built-in engines compiling their kernels
(``Compiling``: held to ``COMPILE_LIMIT`` instead, and shown, only for a solver
this process knows for one of the built-ins, ``compiles_our_kernels``), running
(from ``Started``, held to the run's limit plus ``KILL_GRACE``; a job's pieces
get back what preparing took here, by this process's clock, and the worker is
told the end that makes, ``JobEnd``), then idle or the next task (``Done``).
The messages are ``messages.py``'s; the worker's half is ``worker.serve``. The
helpers here make the ``Executed`` of a run the parent had to end itself:
killed at its limit, unprepared, not tried, a dead worker.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
import sys
import tempfile
import time
from collections import deque
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import cloudpickle

from nqueens_plugins.core import compile_notes
from nqueens_plugins.core.cache_folder import cache_folder
from nqueens_plugins.core.problem import Status
from nqueens_plugins.execution import processes, wire
from nqueens_plugins.execution.messages import (
    Compiled,
    Compiling,
    Guessed,
    Guessing,
    Message,
    Ready,
    Started,
    WarmingUp,
)
from nqueens_plugins.execution.output import CapturedOutput
from nqueens_plugins.execution.tasks import Executed, JobEnd, Task, TaskKind
from nqueens_plugins.execution.worker_state import (
    PREPARING_STATES,
    IllegalMove,
    PreparationClock,
    WorkerState,
    checked_move,
)

KILL_GRACE = 0.5  # seconds past the time limit before a task is killed from outside
STARTUP_LIMIT = 60.0  # seconds a new worker may take to start (a loaded machine) before it counts as dead
FRAME_BYTES = 64 << 20  # a frame's room beside a board's queens: counters, a trace, what the run printed
EXPORT_BYTES = 1 << 30  # an export's text (a large instance's formula)
# Seconds the built-in engines may spend compiling their kernels while a solver prepares (on top of its
# --prepare-timeout, which that time never counts against): once per machine, about 7 s of one core for
# the join counter and 2.5 s for bitset-mrv (benchmarks/first_use.py), a minute or two on a loaded machine.
# A bound from outside all the same, so that a compile that hangs (a numba bug, a machine that swaps)
# cannot hang the command: ten minutes, far past any compile seen, well short of "hung for good".
COMPILE_LIMIT = 600.0
BUILTIN_PACKAGE = "nqueens_plugins.builtin."
INF = float("inf")


def frame_limit(task: Task) -> int:
    """The longest frame a worker may send for ``task`` (``wire.py``): its board's queens as 8-byte numbers and
    room for the rest; a longer one is refused unread, whatever the plugin put in it."""
    return FRAME_BYTES + 8 * task.problem.n + (EXPORT_BYTES if task.kind is TaskKind.EXPORT else 0)


def grace(task: Task, allowed: float = KILL_GRACE) -> float:
    """Seconds past its limit before a run is killed (``allowed``: ``KILL_GRACE`` unless the executor was given
    another): none for a solver that says it never stops itself."""
    try:
        stops = task.variant.solver.stops_itself(task.variant.options)
    except Exception:  # noqa: BLE001 - plugin code; a solver that cannot say gets the grace
        stops = True
    return allowed if stops is not False else 0.0


def killed(task: Task, elapsed: float, allowed: float = KILL_GRACE) -> Executed:
    """A run killed at its time limit: ``timed-out``."""
    if task.deadline is not None:
        limit = "its job's deadline"  # a piece of a split count: the whole count's limit
    else:
        limit = f"its {task.limits.timeout if task.limits.timeout is not None else 0.0:g} s limit"
    if not grace(task, allowed):
        reason = f"stopped by the host at {limit} after {elapsed:.2f} s (the solver does not stop itself)"
    else:
        reason = f"killed after {elapsed:.2f} s: still running {allowed:.3g} s past {limit}"
    return Executed(None, elapsed, reason, status=Status.TIMED_OUT)


def unprepared(task: Task, elapsed: float, warming_up: bool, compiling: bool = False) -> Executed:
    """A solver whose preparation outlasted its own limit: an ``error`` (the run never started)."""
    where = "in its warm_up" if warming_up else "importing its plugin and rebuilding it"
    reason = (
        f"preparing the solver took more than {task.limits.prepare_timeout:g} s ({where}) and was stopped; "
        "the run never started (allow more with --prepare-timeout)"
    )
    if compiling:
        reason = (
            f"compiling the built-in kernels took more than {COMPILE_LIMIT:g} s and was stopped; the run never "
            "started (the compile is done once per machine: try again on a less loaded machine)"
        )
    return Executed(None, 0.0, reason, status=Status.ERROR, prepare_seconds=elapsed)


def compiles_our_kernels(task: Task) -> bool:
    """Whether ``task``'s solver is one of the built-ins, by what this process loaded, never by what its
    worker says: its class is the very object of that name in a module of ``nqueens_plugins.builtin``
    imported from this package's folder (a plugin's subclass, or a class that only borrows a built-in's
    module name, is not). Only then is a ``Compiling`` believed to be our own compile."""
    solver_class = type(task.variant.solver)
    module = sys.modules.get(solver_class.__module__)
    if module is None or not solver_class.__module__.startswith(BUILTIN_PACKAGE):
        return False
    package = Path(__file__).resolve().parent.parent / "builtin"  # nqueens_plugins/builtin, beside execution/
    loaded_here = Path(getattr(module, "__file__", None) or "/").resolve().parent == package
    return loaded_here and getattr(module, solver_class.__qualname__, None) is solver_class


def compile_note(task: Task, kernel: str, count: int, seconds: float) -> str:
    """What the user is told while the built-in engines compile (``Compiling``): that it happens once."""
    try:  # where kernel_cache keeps them: the user's own NUMBA_CACHE_DIR if set, else our cache folder
        folder = os.environ.get("NUMBA_CACHE_DIR") or str(cache_folder())
    except RuntimeError:  # no home: numba compiles in every process then (kernel_cache), but says nothing else
        folder = "the user's cache folder"
    if count == 1:
        return (
            f"nqueens: note: compiling {task.variant.name}'s kernels once for this machine (kept in {folder}; "
            f"later calls load them): {kernel}"
        )
    return f"nqueens: note: compiling {task.variant.name}'s kernels: {kernel} ({count}, {seconds:.0f} s so far)"


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

    def __init__(self, kill_grace: float = KILL_GRACE) -> None:
        self.kill_grace = kill_grace  # seconds past a run's limit before it is killed (grace)
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
        self.state = WorkerState.STARTING  # the one state it is in (worker_state.MOVES: how it changes)
        self.started = time.perf_counter()  # when that state's clock started: startup, preparation or run
        self.clock = PreparationClock()  # the first task's warm-up, by this process's clock
        self.tasks: deque[Task] = deque()  # sent, not answered; the first is the one it works on
        self.warmed: set[str] = set()  # solvers this worker has prepared: it starts their calls at once
        # A job's deadline (a split count's pieces share one) -> what preparing took here, by this process's
        # clock: its pieces here get that time back, and the worker is told the end it makes (``JobEnd``).
        self.time_back: dict[float, float] = {}
        self.plugin: str | None = None  # the one plugin whose tasks it takes, from its first task on

    def move(self, state: WorkerState, why: str = "") -> None:
        """Enter ``state`` (``IllegalMove`` if ``worker_state.MOVES`` does not let it)."""
        self.state = checked_move(self.state, state, why)

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

    def receive(self) -> Message:
        """The worker's next message, parsed as data (``wire.decode``); ``WireError`` for a frame that is
        none, or longer than its task's answer can be (``frame_limit``)."""
        limit = frame_limit(self.tasks[0]) if self.tasks else FRAME_BYTES
        try:
            frame = self.receiver.recv_bytes(limit)
        except OSError as exc:
            if str(exc) == "bad message length":
                raise wire.WireError(f"a frame longer than the {limit:,} bytes its answer may take") from None
            raise
        return wire.decode(frame)

    def hear(self, message: Message) -> tuple[Task[Any], Executed, float] | None:
        """What the worker said (``messages.py``, sent by ``worker.serve``), as a move of its state; for
        ``Done``, the first task, what came back unverified and the wall seconds since its run started.
        A message out of the worker's order is a ``WireError``: a garbled answer, never a state believed."""
        try:
            return self.heard(message)
        except IllegalMove as exc:
            raise wire.WireError(f"{type(message).__name__} out of order: {exc}") from None

    def heard(self, message: Message) -> tuple[Task[Any], Executed, float] | None:
        if isinstance(message, Ready):
            if self.state is not WorkerState.STARTING:
                raise IllegalMove(self.state, self.state, "Ready twice")
            if self.tasks:
                self.begin(since=WorkerState.STARTING)  # the first task's clock starts now, not while Python started
            else:
                self.move(WorkerState.IDLE, "Ready")
            return None
        if isinstance(message, WarmingUp):
            self.preparing()
            return None
        if isinstance(message, Started):
            self.prepared()
            return None
        if isinstance(message, Compiling | Compiled):
            self.compiling(message)
            return None
        if isinstance(message, Guessing | Guessed):
            self.guessing(message)
            return None
        if self.state not in (WorkerState.PREPARING, WorkerState.RUNNING):
            raise IllegalMove(self.state, WorkerState.IDLE, "Done")
        task = self.tasks.popleft()
        executed = message.executed
        executed.output_bytes = self.output.counted(executed.output_bytes)
        answer = (task, executed, time.perf_counter() - self.started)
        if self.tasks:
            self.begin()
        else:
            self.move(WorkerState.IDLE)
        return answer

    def begin(self, since: WorkerState | None = None) -> None:
        """The first task starts now: at once if its solver is prepared, else after its preparation (its
        worker still ``STARTING``: once it says ``Ready``, which ``since`` says it did)."""
        if self.state is WorkerState.STARTING and since is not WorkerState.STARTING:
            return  # no task's clock runs while Python starts
        self.started = time.perf_counter()
        self.clock = PreparationClock()
        prepared = self.tasks[0].variant.name in self.warmed
        self.move(WorkerState.RUNNING if prepared else WorkerState.PREPARING)

    def deadline(self) -> float:
        """When this worker is overdue (``perf_counter``): the limit of the state it is in."""
        if self.state is WorkerState.STARTING:
            return self.started + STARTUP_LIMIT
        if not self.tasks or self.state in (WorkerState.IDLE, WorkerState.ENDED):
            return float("inf")
        task = self.tasks[0]
        clock = self.clock
        if self.state is WorkerState.COMPILING and clock.compile_began is not None:  # our own compile's limit
            return clock.compile_began + COMPILE_LIMIT - clock.compiled_seconds
        if self.state in PREPARING_STATES:  # preparing its solver: the preparation's own limit, never the run's
            end = self.started + task.limits.prepare_timeout + KILL_GRACE + clock.compiled_seconds
            return min(end, clock.guess_deadline()) if self.in_guess() else end
        end = float("inf") if task.limits.timeout is None else self.started + task.limits.timeout
        if task.deadline is not None:
            job_end = task.deadline + self.time_back.get(task.deadline, 0.0)
            end = min(end, time.perf_counter() + job_end - time.time())
        return end + grace(task, self.kill_grace)

    def preparing(self) -> None:
        """The worker says it is preparing the first task's solver: a solver it met before may need more
        for this problem (``Solver.preparation``), so a run taken for started waits, and its clock restarts."""
        if self.state not in (WorkerState.PREPARING, WorkerState.RUNNING):  # a warm-up's clock never restarts
            raise IllegalMove(self.state, WorkerState.WARMING_UP, "WarmingUp twice")
        now = time.perf_counter()
        if self.state is WorkerState.RUNNING:
            self.started = now
        self.move(WorkerState.WARMING_UP, "WarmingUp")
        self.clock = PreparationClock()

    def compiling(self, message: Compiling | Compiled) -> None:
        """The worker says the built-in engines began (``Compiling``) or ended (``Compiled``) compiling a kernel
        while the first task's solver prepares. Believed only for a built-in solver (``compiles_our_kernels``)
        and only while warming up: that time is held to ``COMPILE_LIMIT``, not to ``prepare_timeout``, and
        shown (``core.compile_notes``). From any other solver, or at any other time, it changes nothing."""
        if not self.tasks or not self.warming_up or not compiles_our_kernels(self.tasks[0]):
            return
        now = time.perf_counter()
        if isinstance(message, Compiling):
            if self.state is not WorkerState.COMPILING:
                count = self.clock.compile_started(now)
                self.move(WorkerState.COMPILING)
                compile_notes.note(compile_note(self.tasks[0], message.kernel, count, self.clock.compiled_seconds))
        elif self.state is WorkerState.COMPILING:
            self.clock.compile_ended(now)
            self.move(WorkerState.GUESSING if self.clock.guess_began is not None else WorkerState.WARMING_UP)

    def guessing(self, message: Guessing | Guessed) -> None:
        """The worker says the solver's default warm-up (``Solver.warm_up``'s 4x4 solve, a guess at what it loads)
        began or ended: a guess is held to a short limit of its own (``Task.default_warm_up_limit``), past which
        the solver runs cold. Saying so only makes its own worker's limit tighter."""
        if isinstance(message, Guessing):
            if self.state is not WorkerState.WARMING_UP:
                raise IllegalMove(self.state, WorkerState.GUESSING, "Guessing outside a warm-up")
            self.move(WorkerState.GUESSING)
            self.clock.guess_started(time.perf_counter(), self.tasks[0].default_warm_up_limit() or INF)
            return
        if self.state not in (WorkerState.GUESSING, WorkerState.COMPILING) or self.clock.guess_began is None:
            raise IllegalMove(self.state, WorkerState.WARMING_UP, "Guessed without Guessing")
        self.clock.compile_ended(time.perf_counter())  # a compile that raised in the guess said no Compiled
        self.clock.guess_began = None
        self.move(WorkerState.WARMING_UP)

    @property
    def compiling_now(self) -> bool:
        """Whether the built-in engines are compiling for the first task (its limit is ``COMPILE_LIMIT``)."""
        return self.state is WorkerState.COMPILING

    @property
    def warming_up(self) -> bool:
        """Whether the first task's solver is in its ``warm_up`` (a guess, or our kernels compiling there, included)."""
        return self.state in (WorkerState.WARMING_UP, WorkerState.GUESSING, WorkerState.COMPILING)

    def prepared(self) -> None:
        """The worker says it prepared the first task's solver: its run starts now. Its job's pieces here get
        back what preparing took, as this process timed it (from the task's beginning, or its ``WarmingUp``)."""
        if self.state not in (WorkerState.WARMING_UP, WorkerState.COMPILING):
            raise IllegalMove(self.state, WorkerState.RUNNING, "Started outside a warm-up, or in a guess")
        task = self.tasks[0]
        now = time.perf_counter()
        self.clock.compile_ended(now)
        if task.deadline is not None:  # the worker waits for its job's end here: the one arithmetic of it
            self.time_back[task.deadline] = self.time_back.get(task.deadline, 0.0) + now - self.started
            with contextlib.suppress(OSError):  # a worker gone: collect() finds it dead
                self.sender.send_bytes(JobEnd(task.deadline, task.deadline + self.time_back[task.deadline]).frame())
        self.move(WorkerState.RUNNING, "Started")
        self.started = now
        self.warmed.add(task.variant.name)

    def in_guess(self) -> bool:
        """Whether the first task's solver is in its default warm-up (a guess) held to a short limit of its own."""
        return self.warming_up and self.clock.guess_deadline() != INF and not self.tasks[0].cold

    def kill(self) -> None:
        """SIGKILL the worker's process group and its descendants: the worker and anything a plugin started."""
        self.move(WorkerState.ENDED)
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
