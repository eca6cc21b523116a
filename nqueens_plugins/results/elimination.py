"""Results layer, parent side: which configurations a tune's race eliminates, by the Friedman test irace uses.

Named for what it decides, elimination, so that "race" alone names one thing in the code: the portfolio race
(``race``, ``workflows/race.py``: several solvers on one board, the first decided answer wins). The tune's
races are irace's, and their words stay those of its papers and of the tune file.

A race runs every surviving configuration on the same block (an instance and a
seed, common to all of them, so they are compared on equal terms) and, once
``FIRST_TEST`` blocks are in, ranks the configurations within each block and
asks the Friedman test whether the ranks differ at all. If they do (p below
``SIGNIFICANCE``), Conover's multiple comparison (Practical Nonparametric
Statistics, 3rd ed., 1999, pp. 369-371) keeps the configurations whose rank sum
lies within the critical difference of the best one and drops the rest. This is
irace's ``F-test`` elimination (López-Ibáñez et al., "The irace package:
Iterated racing for automatic algorithm configuration", 2016), its formulas
followed line by line, ties included.

A run's cost orders runs within a block: a decided run by what it spent (its
seconds or iterations), below every run that did not decide, which are tied
with one another, below every run the verifier rejected or that failed (tied
too): a fast wrong answer is the worst outcome a configuration can have.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nqueens_plugins.core.problem import Status

SIGNIFICANCE = 0.05
FIRST_TEST = 5  # blocks before the first test (irace's firstTest)
EACH_TEST = 1  # blocks between tests (irace's eachTest)
GOALS = ("par10", "ert", "ert-iterations")
PAR_FACTOR = 10
UNDECIDED = 1e300  # a run that did not decide: below every decided one, tied with the others
WRONG = math.inf  # a rejected or failed run: below everything


def decided(record: Mapping[str, Any]) -> bool:
    """A verified board, or a no-solution claim the host confirmed (certified or published)."""
    return record.get("verified") is True and record.get("status") in (Status.SOLVED, Status.NO_SOLUTION)


def rejected(record: Mapping[str, Any]) -> bool:
    """An answer the verifier refused, or a run that failed: the worst a configuration can do."""
    return record.get("status") in (Status.INVALID, Status.ERROR) or (
        record.get("status") in (Status.SOLVED, Status.NO_SOLUTION) and record.get("verified") is False
    )


def run_cost(record: Mapping[str, Any], goal: str) -> float:
    """Where a run stands within its block, lower better (module docstring)."""
    if rejected(record):
        return WRONG
    if not decided(record):
        return UNDECIDED
    spent = record.get("iterations") if goal == "ert-iterations" else record.get("seconds")
    return float(spent or 0.0)


@dataclass(frozen=True)
class Test:
    """One Friedman test of a race: what it saw and what it kept."""

    blocks: int
    configurations: tuple[str, ...]  # those tested, best rank sum first
    rank_sums: tuple[float, ...]
    p_value: float | None  # None: every block tied everything, nothing to test
    critical: float | None  # Conover's critical difference of rank sums, when p < SIGNIFICANCE
    kept: tuple[str, ...]

    @property
    def dropped(self) -> tuple[str, ...]:
        return tuple(c for c in self.configurations if c not in self.kept)


def block_ranks(costs: np.ndarray) -> np.ndarray:
    """Ranks within each block (row), ties sharing their mean rank: R's ``rank``."""
    from scipy.stats import rankdata

    return np.asarray(rankdata(costs, axis=1), dtype=float)


def friedman(labels: Sequence[str], costs: np.ndarray, protected: frozenset[str] = frozenset()) -> Test:
    """The Friedman test over ``costs`` (blocks x configurations, columns in ``labels``'s order) and
    Conover's comparison with the best; ``protected`` configurations are kept whatever the test says
    (irace's elitism: an elite is not dropped before the new configurations have seen its blocks)."""
    from scipy.stats import chi2, t

    n, k = costs.shape
    ranks = block_ranks(costs)
    sums = ranks.sum(axis=0)
    order = np.argsort(sums, kind="stable")
    ordered = tuple(labels[i] for i in order)
    ties = 0.0
    for row in ranks:
        _, counts = np.unique(row, return_counts=True)
        ties += float((counts**3 - counts).sum())
    denominator = n * k * (k + 1) - ties / (k - 1)
    if k < 2 or n < 2 or denominator <= 0:
        return Test(n, ordered, tuple(sums[order]), None, None, ordered)
    statistic = 12 * float(((sums - n * (k + 1) / 2) ** 2).sum()) / denominator
    p_value = float(chi2.sf(statistic, k - 1))
    if not p_value < SIGNIFICANCE:
        return Test(n, ordered, tuple(sums[order]), p_value, None, ordered)
    square_sum = float((ranks**2).sum())
    spread = 2 * (n * square_sum - float((sums**2).sum())) / ((n - 1) * (k - 1))
    critical = float(t.ppf(1 - SIGNIFICANCE / 2, (n - 1) * (k - 1))) * math.sqrt(max(spread, 0.0))
    best = sums[order[0]]
    kept = tuple(labels[i] for i in order if abs(sums[i] - best) <= critical or labels[i] in protected)
    return Test(n, ordered, tuple(sums[order]), p_value, critical, kept)


def mean_ranks(labels: Sequence[str], costs: np.ndarray) -> dict[str, float]:
    """Each configuration's mean rank over the blocks (how irace orders its elites)."""
    ranks = block_ranks(costs)
    return {label: float(ranks[:, i].mean()) for i, label in enumerate(labels)}
