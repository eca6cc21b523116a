"""Execution layer, both sides of the pipe: what a worker tells the process that started it.

The worker program (``worker.serve``) sends these, in this order for each task,
and the parent's handle on it (``worker_handle.WorkerProcess.hear``) reads them:

* ``Ready``: started, Python and this package imported (sent once): no task's
  clock runs before it;
* ``WarmingUp``: the task is rebuilt and its solver is being prepared (its
  untimed ``warm_up``), only when it needs a preparation;
* ``Compiling``/``Compiled``: while preparing, numba began/ended compiling one
  of the built-in engines' kernels (``core.compile_notes``; once per machine): the
  parent holds that time to its own ``COMPILE_LIMIT``, not to ``prepare_timeout``,
  but only for a built-in solver, which it recognises itself
  (``worker_handle.compiles_our_kernels``): from any other, it is ignored;
* ``Guessing``/``Guessed``: while preparing, the solver's default warm-up (a
  4x4 solve, the host's guess at what it loads, ``core.guess_notes``) began/ended:
  the parent holds it to a short limit of its own (it can only make its own
  worker's limit tighter by saying so);
* ``Started``: preparing took ``seconds``; the run's time limit starts now;
* ``Done``: what came back from the call (``Executed``), unverified.

Small frozen dataclasses, sent as frames of plain data (``wire.py``: the parent
parses what a worker says and never unpickles it).
"""

from __future__ import annotations

from dataclasses import dataclass

from nqueens_plugins.execution.tasks import Executed


@dataclass(frozen=True)
class Ready:
    """The worker has started: its imports are done, its first task's clock may run."""


@dataclass(frozen=True)
class WarmingUp:
    """The first task's solver is rebuilt and its preparation (``warm_up``) under way."""


@dataclass(frozen=True)
class Compiling:
    """numba began compiling ``kernel``, one of the built-in engines' (a cache miss: once per machine)."""

    kernel: str


@dataclass(frozen=True)
class Compiled:
    """numba is done compiling the kernel named in the last ``Compiling``."""


@dataclass(frozen=True)
class Guessing:
    """The solver's default warm-up (``Solver.warm_up``'s 4x4 solve, a guess) began."""


@dataclass(frozen=True)
class Guessed:
    """The default warm-up named in the last ``Guessing`` ended."""


@dataclass(frozen=True)
class Started:
    """The first task's solver is prepared, in ``seconds`` (rebuilding and warming up); its run starts."""

    seconds: float


@dataclass(frozen=True)
class Done:
    """The first task has ended: what came back, unverified (the parent judges it)."""

    executed: Executed


Message = Ready | WarmingUp | Compiling | Compiled | Guessing | Guessed | Started | Done
