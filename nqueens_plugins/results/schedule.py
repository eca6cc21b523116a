"""Results layer, parent side: SUNNY's time-sliced schedule of a few solvers for a new instance, learnt from records.

A selector that picks one solver (``selector.py``) cannot beat the single best
where the single best is right almost everywhere and the features do not set its
few failures apart. SUNNY (Amadini, Gabbrielli and Mauro, TPLP 2014; the
sequential core of sunny-cp, MiniZinc Challenge) hedges instead: for a new
instance it takes the ``k`` nearest past instances and

1. chooses the smallest set of solvers that decides the most of those neighbours
   (ties: the least total time on them);
2. splits the time limit into slots, one per neighbour each chosen solver
   decides, plus one per neighbour none of them decides; each chosen solver gets
   its slots, and the *backup* solver gets the undecided neighbours' slots
   (SUNNY's backup is a fixed solver: here the single best of the training
   records);
3. runs the slices one after another, the solver with the least average time on
   the neighbours first.

Times on a neighbour are SUNNY's: a run's seconds if it decided, the time limit
if not. A neighbour a solver ran several times counts as the share of its runs
that decided (SUNNY's optimisation variant scores neighbours the same way).

A schedule is evaluated as the algorithm-selection literature evaluates SUNNY,
by simulating it on recorded runs (``simulate``): a slice of ``s`` seconds
decides the instance if that solver's run there decided within ``s``; the time
is every earlier slice in full, plus the deciding run's seconds; an undecided
instance counts twice the time limit (PAR-2). Cross-validation (``cross_validated``)
uses the selector's folds, so no instance is both learnt from and scored.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from nqueens_plugins.results.selector import FOLDS, Selector, fold_of

__all__ = ["MAX_CANDIDATES", "Schedule", "Scheduler", "cross_validated", "simulate", "sunny_slices"]

MAX_CANDIDATES = 12  # solvers considered for the set: 2^12 sets at most, whatever the records hold
TOLERANCE = 1e-9  # shares of runs are floats: equal coverage within this


@dataclass(frozen=True)
class Schedule:
    """What to run on an instance: each solver for its slice of seconds, in order, and why."""

    slices: tuple[tuple[str, float], ...]  # (solver, seconds), in the order they run
    limit: float  # the slices add up to it
    neighbours: tuple[tuple[str, str], ...]  # (past instance, the solver best there by PAR-2), nearest first
    trained_on: int  # past instances learnt from
    backup: str  # the solver the undecided neighbours' slots go to

    def describe(self) -> str:
        """One line: the slices, then the neighbours they were learnt from."""
        steps = ", then ".join(f"{solver} {seconds:.3g} s" for solver, seconds in self.slices)
        near = "; ".join(f"{instance}: {best}" for instance, best in self.neighbours)
        return (
            f"{steps} (a schedule of {self.limit:g} s from its {len(self.neighbours)} nearest of "
            f"{self.trained_on} past instances: {near})"
        )


@dataclass(frozen=True)
class Scheduler:
    """The selector's table of past instances (features, PAR-2), with what SUNNY also needs per solver."""

    selector: Selector  # features, PAR-2 scores, labels and k
    decided: np.ndarray  # instances x solvers: the share of the solver's runs there that decided
    times: np.ndarray  # instances x solvers: mean seconds, an undecided run counted as the time limit

    @property
    def backup(self) -> str:
        """The single best of the records (best mean PAR-2; the first listed on a tie)."""
        return self.selector.solvers[int(np.argmin(self.selector.scores.mean(axis=0)))]

    def schedule(self, point: Sequence[float], limit: float) -> Schedule:
        """SUNNY's schedule for an instance with these features, within ``limit`` seconds."""
        selector = self.selector
        rows = selector.nearest(point)
        slices = sunny_slices(self.decided[rows], self.times[rows], selector.solvers, limit, self.backup)
        best = [selector.solvers[int(np.argmin(selector.scores[row]))] for row in rows]
        neighbours = tuple((selector.instances[row], b) for row, b in zip(rows, best, strict=True))
        return Schedule(slices, limit, neighbours, len(selector.instances), self.backup)

    def without(self, rows: np.ndarray) -> Scheduler:
        keep = np.ones(len(self.selector.instances), dtype=bool)
        keep[rows] = False
        return Scheduler(self.selector.without(rows), self.decided[keep], self.times[keep])


def sunny_slices(
    decided: np.ndarray, times: np.ndarray, solvers: Sequence[str], limit: float, backup: str
) -> tuple[tuple[str, float], ...]:
    """SUNNY's slices from the neighbours' rows (``decided`` and ``times``: neighbours x solvers)."""
    chosen = smallest_set(decided, times)
    if not chosen:  # no solver decides any neighbour: every slot is the backup's
        return ((backup, limit),)
    shares = {solvers[s]: float(decided[:, s].sum()) for s in chosen}  # slots: the neighbours each decides
    undecided = len(decided) - float(decided[:, chosen].max(axis=1).sum())
    if undecided > TOLERANCE:
        shares[backup] = shares.get(backup, 0.0) + undecided
    slot = limit / sum(shares.values())
    total = {solver: float(times[:, s].sum()) for s, solver in enumerate(solvers)}
    order = sorted(shares, key=lambda solver: (total[solver], solver))
    return tuple((solver, shares[solver] * slot) for solver in order)


def smallest_set(decided: np.ndarray, times: np.ndarray) -> list[int]:
    """The columns of the smallest set of solvers deciding the most neighbours (ties: least total time;
    then the first in column order); empty when no solver decides any."""
    useful = [s for s in range(decided.shape[1]) if decided[:, s].sum() > TOLERANCE]
    total = times.sum(axis=0)
    # many solvers: keep those deciding the most neighbours (then the fastest), so the search stays small
    useful = sorted(sorted(useful, key=lambda s: (-decided[:, s].sum(), total[s]))[:MAX_CANDIDATES])
    if not useful:
        return []
    most = decided[:, useful].max(axis=1).sum()
    for size in range(1, len(useful) + 1):
        best = [
            list(subset)
            for subset in itertools.combinations(useful, size)
            if decided[:, list(subset)].max(axis=1).sum() >= most - TOLERANCE
        ]
        if best:
            return min(best, key=lambda subset: float(total[subset].sum()))
    return useful  # not reached: the whole set decides the most


def simulate(
    slices: Sequence[tuple[str, float]],
    runs: Mapping[str, tuple[np.ndarray, np.ndarray]],
    limit: float,
    factor: int = 2,
) -> tuple[float, float]:
    """The schedule's expected PAR-``factor`` seconds on an instance, and the chance it decides it, from each
    solver's recorded runs there (``runs``: solver -> (seconds, decided)) under the time ``limit``.

    A slice decides the instance if the run decided within it (a slice of the whole limit: if the run
    decided at all, as the records judged it under that limit); the time is every earlier slice in full
    plus the deciding run's seconds; ``factor`` times the limit if no slice decides. With several runs of a
    solver, each is equally likely, independently of the other solvers'."""
    expected, reach, elapsed = 0.0, 1.0, 0.0
    for solver, seconds in slices:
        times, succeeded = runs[solver]
        within = succeeded if seconds >= limit else succeeded & (times <= seconds)
        chance = float(within.mean()) if len(times) else 0.0
        if chance:
            expected += reach * chance * (elapsed + float(times[within].mean()))
        reach *= 1.0 - chance
        elapsed += seconds
    return expected + reach * factor * limit, 1.0 - reach


def cross_validated(scheduler: Scheduler, limits: Sequence[float], folds: int = FOLDS) -> list[Schedule | None]:
    """The schedule for each instance from a scheduler that never saw its fold, within that instance's time
    limit (None where the other folds hold no instance to learn from)."""
    labels = scheduler.selector.instances
    assigned = np.array([fold_of(label, folds) for label in labels])
    found: list[Schedule | None] = [None] * len(labels)
    for fold in range(folds):
        held_out = np.flatnonzero(assigned == fold)
        if not len(held_out) or len(held_out) == len(labels):
            continue
        trained = scheduler.without(held_out)
        for row in held_out:
            found[row] = trained.schedule(scheduler.selector.features[row], limits[int(row)])
    return found
