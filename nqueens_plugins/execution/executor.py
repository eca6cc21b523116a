"""Execution layer, parent side: the ``Executor`` interface every backend offers.

Solve and count from the CLI and the API, comparisons, cross-checks and the
contract kit all hand ``Task``s to an ``Executor`` and get verified results back,
typed by the task: ``run(task: Task[R]) -> R`` (a ``Result`` for ``Task.solve``,
a ``CountResult`` for ``Task.count``, the unverified ``Executed`` of a count's
pieces and of an export). Why one path, and what isolation means, is
``local.py``'s docstring; the backends are ``LocalExecutor`` (``local.py``) and
``DaskExecutor`` (``dask_cluster.py``), which runs the same worker program.

The interface imports no backend: ``given_or_local`` and ``shared_executor``,
which make a ``LocalExecutor``, live beside it in ``local.py``.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Iterator
from typing import ClassVar, Self, TypeVar

from nqueens_plugins.execution.tasks import Task

R = TypeVar("R")


class Executor(abc.ABC):
    """What every backend offers: ``map`` (tasks in, verified answers out as they end),
    ``run`` (one task), ``close``; usable as a context manager.

    The pieces of a split count (``TaskKind.COUNT_PLAN``, ``COUNT_PART``) come back
    unverified, as ``Executed``: ``workflows/counting.count_in_parts`` verifies their total.
    ``splits_counts`` says a count should be spread over the backend's workers in those
    pieces even when nobody watches its progress (a cluster, where one whole count would
    keep one machine busy and the rest idle); the workflow, not the backend, does the split.
    """

    splits_counts: ClassVar[bool] = False

    @abc.abstractmethod
    def map(self, tasks: Iterable[Task[R]]) -> Iterator[tuple[Task[R], R]]:
        """Run every task; yield (task, its verified result) as each ends, in the order they end."""

    def run(self, task: Task[R]) -> R:
        """One task, its result."""
        for _, answer in self.map([task]):
            return answer
        raise RuntimeError("the executor returned nothing")  # pragma: no cover

    def close(self) -> None:
        """Release what the backend holds (idle workers, a cluster connection)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
