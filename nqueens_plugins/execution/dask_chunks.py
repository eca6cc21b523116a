"""Execution layer, on a Dask worker: the function each Dask task runs, and the versions installed there.

``run_chunk`` is sent to the cluster by reference, so this module must import
the same on every Dask worker; it runs its chunk of tasks through a
``LocalExecutor`` of one worker process per Dask worker thread (the very
isolated, warm, killable worker program used on this machine) and sends back
what came out unverified: the process that submitted the chunk verifies it
(``dask_cluster.py``).
"""

from __future__ import annotations

import atexit
import threading
from importlib import metadata
from typing import Any

from nqueens_plugins.core.hookspecs import ENTRY_POINT_GROUP
from nqueens_plugins.execution import wire
from nqueens_plugins.execution.local import LocalExecutor
from nqueens_plugins.execution.tasks import Task

_local = threading.local()


def installed_plugins() -> dict[str, str]:
    """Versions of nqueens-plugins and of every distribution that provides an ``nqueens`` plugin."""
    versions = {"nqueens-plugins": metadata.version("nqueens-plugins")}
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry_point.dist is not None:
            versions[entry_point.dist.name] = entry_point.dist.version
    return versions


def run_chunk(tasks: list[Task[Any]]) -> list[tuple[bytes, float | None]]:
    """Run the chunk in this thread's isolated worker process; results unverified, each as a frame of data
    (``wire.encode``): what Dask brings back to the submitting process is parsed there, never unpickled
    into objects. Certificates are checked here, on the Dask worker, by the service's own checkers."""
    executor = getattr(_local, "executor", None)
    if executor is None:
        executor = _local.executor = LocalExecutor(1)
        atexit.register(executor.close)  # the Dask worker's end ends its worker process and its temp folder
    by_task = {id(task): (wire.encode(executed), wall) for task, executed, wall in executor.execute(tasks)}
    return [by_task[id(task)] for task in tasks]
