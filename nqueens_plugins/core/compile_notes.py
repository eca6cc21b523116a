"""Core layer, both sides: who hears that the built-in engines are compiling their kernels (once per machine).

The built-in engines compile their numba kernels the first time a machine uses
them (``builtin/engines/kernel_cache.py``), which takes seconds, a minute on a
busy machine. That is our own work, not a plugin's: it must not count against
``--prepare-timeout`` (meant to catch a plugin that hangs while it prepares),
and the user should see it happen. Two hooks carry it, set by whoever listens:

* worker side, ``kernel_started``/``kernel_ended``: ``kernel_cache`` calls them when
  numba compiles one of our kernels (never when it loads one from the cache); the
  worker (``execution/worker.py``) sets them to send ``Compiling``/``Compiled`` to
  its parent while it prepares a solver;
* parent side, ``show``: the CLI sets it to write a line on stderr; the parent's
  handle on a worker (``worker_handle.WorkerProcess``) calls it with a note, for a
  built-in's compile only.

The hooks live here because the built-in plugins and the execution layer may
share nothing else (the built-ins import only the core).
"""

from __future__ import annotations

from collections.abc import Callable

kernel_started: Callable[[str], None] | None = None  # worker side: numba began compiling this kernel of ours
kernel_ended: Callable[[str], None] | None = None  # worker side: ... and is done with it
show: Callable[[str], None] | None = None  # parent side: a note for the user (the CLI: a line on stderr)


def started(kernel: str) -> None:
    """Numba began compiling ``kernel`` (one of the built-ins'): tell whoever listens."""
    if kernel_started is not None:
        kernel_started(kernel)


def ended(kernel: str) -> None:
    """Numba is done compiling ``kernel``: tell whoever listens."""
    if kernel_ended is not None:
        kernel_ended(kernel)


def note(line: str) -> None:
    """Show ``line`` to the user, if anyone shows notes (the CLI does; the API stays quiet)."""
    if show is not None:
        show(line)
