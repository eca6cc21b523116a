"""Results layer, parent side: a selector that learns from records which solver to run on a new instance.

The method is SUNNY's core (Amadini, Gabbrielli and Mauro, MiniZinc Challenge):
the k nearest past instances by their features (``features.py``, each feature
scaled to zero mean and unit spread over the training instances), and the solver
with the best total PAR-2 over those neighbours. SUNNY goes on to build a
time-sliced schedule of a few solvers from the same neighbours: ``schedule.py``,
which stands on this table. Nearest neighbours need no training beyond storing the table,
explain themselves (the neighbours can be shown), and work from a few dozen
instances, which is what a user's records hold.

It is measured as algorithm-selection research measures one: cross-validated by
instance (``FOLDS`` folds, no instance ever both trained on and tested), its mean
PAR-2 on the held-out instances set against the single best and the virtual best
of the same instances (``portfolio.py``'s table shows it as a row).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["FOLDS", "K_NEAREST", "MIN_INSTANCES", "Selector", "cross_validated", "few_instances", "fold_of"]

K_NEAREST = 5
FOLDS = 5
MIN_INSTANCES = 10  # fewer, and a held-out fold is one or two instances: no measure at all


def few_instances(trained_on: int) -> str | None:
    """The warning a choice learnt from fewer past instances than ``MIN_INSTANCES`` carries (None from enough):
    the threshold below which the report's portfolio section will not measure a selector, so that a choice
    ``select`` makes from as few is said to be unmeasured, not given as if it were as sound as one from many."""
    if trained_on >= MIN_INSTANCES:
        return None
    return (
        f"warning: learnt from only {trained_on} past instance{'s' if trained_on != 1 else ''}; the report measures "
        f"a selector from {MIN_INSTANCES} or more, so this choice is not measured: take it as a guess"
    )


@dataclass(frozen=True)
class Selector:
    """A table of past instances: their features, and each solver's PAR-2 on each."""

    solvers: tuple[str, ...]
    instances: tuple[str, ...]  # labels, for showing the neighbours
    features: np.ndarray  # instances x features
    scores: np.ndarray  # instances x solvers, PAR-2 seconds
    k: int = K_NEAREST

    def nearest(self, point: Sequence[float]) -> np.ndarray:
        """The rows of the ``k`` instances nearest ``point`` (scaled features; ties in table order)."""
        mean = self.features.mean(axis=0)
        spread = self.features.std(axis=0)
        spread[spread == 0] = 1.0
        scaled = (self.features - mean) / spread
        target = (np.asarray(point, dtype=float) - mean) / spread
        distances = ((scaled - target) ** 2).sum(axis=1)
        return np.argsort(distances, kind="stable")[: min(self.k, len(distances))]

    def choose(self, point: Sequence[float]) -> str:
        """The solver with the best total PAR-2 over the nearest instances (the first listed on a tie)."""
        totals = self.scores[self.nearest(point)].sum(axis=0)
        return self.solvers[int(np.argmin(totals))]

    def without(self, rows: np.ndarray) -> Selector:
        keep = np.ones(len(self.instances), dtype=bool)
        keep[rows] = False
        instances = tuple(label for label, kept in zip(self.instances, keep, strict=True) if kept)
        return Selector(self.solvers, instances, self.features[keep], self.scores[keep], self.k)


def fold_of(instance: str, folds: int = FOLDS) -> int:
    """An instance's fold: by a hash of its label, so the same file always splits the same way."""
    return int.from_bytes(hashlib.sha256(instance.encode()).digest()[:4], "big") % folds


def cross_validated(selector: Selector, folds: int = FOLDS) -> list[str | None]:
    """The solver chosen for each instance by a selector that never saw its fold (None where the other
    folds hold no instance to learn from)."""
    assigned = np.array([fold_of(label, folds) for label in selector.instances])
    chosen: list[str | None] = [None] * len(selector.instances)
    for fold in range(folds):
        held_out = np.flatnonzero(assigned == fold)
        if not len(held_out):
            continue
        trained = selector.without(held_out)
        if not len(trained.instances):  # every instance in one fold: nothing to learn from, no measure
            continue
        for row in held_out:
            chosen[row] = trained.choose(selector.features[row])
    return chosen
