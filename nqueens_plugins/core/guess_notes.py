"""Core layer, both sides: who hears that a solver's default warm-up (the host's guess, a 4x4 solve) is under way.

``Solver.warm_up`` by default solves a 4x4 board: a guess at what a first
``solve`` loads, which a solver that ignores its budget can make endless. So
the parent holds that guess, and only it, to a short limit of its own
(``Task.default_warm_up_limit``), past which the solver runs cold. The parent
learns when the guess runs from the worker's frames (``Guessing``/``Guessed``),
not by looking at which class defines ``warm_up``: the default says so itself,
through the hooks here, wherever it is called from (a solver's own ``warm_up``
may call it through ``super()``). A worker that says nothing is held to the
longer ``prepare_timeout``; one that says it guesses is only held tighter.

Worker side, ``guess_started``/``guess_ended``: the worker (``execution/worker.py``)
sets them to send the frames while it prepares a solver. Here because the core
(``Solver``) may not import the execution layer.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

guess_started: Callable[[], None] | None = None  # worker side: a default warm-up began
guess_ended: Callable[[], None] | None = None  # worker side: ... and ended


@contextlib.contextmanager
def guessing() -> Iterator[None]:
    """Tell whoever listens that a default warm-up runs for as long as the block does."""
    if guess_started is not None:
        guess_started()
    try:
        yield
    finally:
        if guess_ended is not None:
            guess_ended()
