"""Execution layer, parent side: the execution service's tasks on a Dask cluster (``--executor dask``).

The grid is cut into chunks of tasks; each chunk is one Dask task. On the Dask
worker the chunk runs (``dask_chunks.run_chunk``) through the very same isolated, warm, killable worker
program as on this machine (a ``LocalExecutor`` of one worker per Dask worker
thread), so a plugin that hangs on the cluster is killed there, and what comes
back is unverified: this process verifies every answer and writes the records,
in the order the chunks arrive. Hence ``--resume`` and the results file are
exactly the local ones, and the same seed gives the same records.

A count is split into the pieces its solver offers (``Solver.count_parts``:
``bitboard`` deals its subtrees into 64), each piece one Dask task, and the
total is verified here. A Dask worker that dies mid-chunk loses nothing: Dask runs the chunk again
elsewhere, and its records are written once, when it completes. At most
``WINDOW_PER_WORKER`` chunks per worker are in flight, so a grid of any size
keeps this process's memory flat.

Start a cluster with Dask's own commands (``dask scheduler``, then ``dask worker
tcp://HOST:8786 --nthreads 1`` on each machine, each with nqueens-plugins and the
same plugin distributions installed); this module checks those versions first.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any, TypeVar

from nqueens_plugins.core.errors import BadInput, install_hint
from nqueens_plugins.execution import dask_chunks
from nqueens_plugins.execution.dask_chunks import installed_plugins, run_chunk
from nqueens_plugins.execution.executor import Executor
from nqueens_plugins.execution.judge import conclude
from nqueens_plugins.execution.tasks import Executed, Task, TaskKind
from nqueens_plugins.execution.wire import WireError, decode_answer

SCHEDULER_VARIABLE = "NQUEENS_DASK_SCHEDULER"
CHUNK_SIZE = 25  # tasks per Dask task: a lost worker costs at most this many reruns
WINDOW_PER_WORKER = 4  # chunks in flight per Dask worker
CONNECT_SECONDS = 10

R = TypeVar("R")
T = TypeVar("T")


def in_chunks(tasks: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive lists of ``size`` tasks, read lazily (a long grid is never copied whole). A piece of a
    split count travels alone: pieces are long (seconds to minutes each), so a chunk of them would hold
    finished pieces back from ``--out`` until the slowest ended, and a kill would lose them all."""
    chunk: list[T] = []
    for task in tasks:
        if isinstance(task, Task) and task.kind is TaskKind.COUNT_PART:
            if chunk:
                yield chunk
                chunk = []
            yield [task]
            continue
        chunk.append(task)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def answered(results: Any, tasks: int) -> list[tuple[Executed, float | None]]:
    """A chunk's answers as ``run_chunk`` sends them (a frame of data and a wall time each), parsed: a chunk
    whose answers do not parse is the cluster's failure, in one line."""
    try:
        if not isinstance(results, list) or len(results) != tasks:
            raise WireError("a chunk's answers are not one per task")
        parsed = []
        for frame, wall in results:
            if not isinstance(frame, bytes) or not (wall is None or (type(wall) is float and math.isfinite(wall))):
                raise WireError("an answer that is not a frame and a wall time")
            parsed.append((decode_answer(frame), wall))
    except (WireError, TypeError, ValueError) as exc:
        raise BadInput(f"the Dask cluster sent back what is not a chunk's answers ({exc})") from None
    return parsed


def scheduler_address(given: str | None) -> str:
    address = given or os.environ.get(SCHEDULER_VARIABLE)
    if not address:
        raise BadInput(f"--executor dask needs --scheduler ADDRESS (or {SCHEDULER_VARIABLE})")
    return address


class DaskExecutor(Executor):
    """The execution service's interface (``map``, ``run``, ``close``) over a Dask cluster."""

    splits_counts = True  # a count spreads over the cluster in its solver's pieces (workflows/counting.py)

    def __init__(
        self,
        address: str | None = None,
        *,
        client: Any = None,
        chunk_size: int = CHUNK_SIZE,
        connect_seconds: float = CONNECT_SECONDS,
    ) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise BadInput(f"--executor dask needs dask.distributed: {install_hint('dask')}") from None
        self.chunk_size = chunk_size
        self.owned = client is None
        if client is None:
            address = scheduler_address(address)
            try:
                client = Client(address, timeout=connect_seconds, set_as_default=False)
            except (OSError, TimeoutError) as exc:
                raise BadInput(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        self.client = client
        self.check_versions()

    def check_versions(self) -> None:
        """Refuse a cluster whose workers have other versions of this package or its plugins."""
        mine = installed_plugins()
        try:
            theirs = self.client.run(dask_chunks.installed_plugins)  # the worker-side function, by reference
        except Exception as exc:  # noqa: BLE001 - a worker without this package raises ImportError there
            raise BadInput(
                f"the Dask workers cannot run nqueens-plugins ({type(exc).__name__}: {exc}); install it there"
            ) from None
        for worker, versions in sorted(theirs.items()):
            differences = [
                f"{name} {versions.get(name, 'missing')} there, {version} here"
                for name, version in sorted(mine.items())
                if versions.get(name) != version
            ] + [
                f"{name} {version} there, missing here"
                for name, version in sorted(versions.items())
                if name not in mine
            ]
            if differences:
                raise BadInput(f"Dask worker {worker} has other plugin versions: {'; '.join(differences)}")
        if not theirs:
            raise BadInput("the Dask cluster has no workers")
        self.workers = len(theirs)

    def map(self, tasks: Iterable[Task[R]]) -> Iterator[tuple[Task[R], R]]:
        """Run every task on the cluster; yield (task, verified result) chunk by chunk as they end."""
        from distributed import as_completed

        chunks = in_chunks(tasks, self.chunk_size)
        submitted: dict[Any, list[Task[R]]] = {}

        def submit(chunk: list[Task[R]]) -> Any:
            future = self.client.submit(run_chunk, chunk, pure=False)
            submitted[future] = chunk
            return future

        first = [submit(chunk) for chunk in islice(chunks, WINDOW_PER_WORKER * self.workers)]
        if not first:
            return
        completed = as_completed(first, loop=self.client.loop)
        try:
            for future in completed:
                chunk = submitted.pop(future)
                try:
                    results = future.result()
                except Exception as exc:  # noqa: BLE001 - KilledWorker, a lost scheduler, a cancelled future
                    raise BadInput(
                        f"the Dask cluster failed ({type(exc).__name__}: {exc}); every finished run is kept: "
                        "run again with --resume"
                    ) from None
                following = next(chunks, None)
                if following is not None:
                    completed.add(submit(following))
                for task, answer in zip(chunk, answered(results, len(chunk))):
                    yield task, conclude(task, *answer)
        finally:
            for future in submitted:
                future.cancel()

    def close(self) -> None:
        if self.owned:
            self.client.close()
