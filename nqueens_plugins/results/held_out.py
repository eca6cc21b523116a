"""Results layer, parent side: the tuned configuration against the solver's defaults, on runs the race never saw.

Two tests, as ``report --baseline`` gives them and one more. The project's
baseline test (``statistics.compare_to_baseline``: the ERT ratio with its
bootstrap 95 % interval, and Mann-Whitney U on censored times) treats the two
samples as independent. The held-out runs are paired, though (each block runs
both on the same board with the same seed), so the Wilcoxon signed-rank test on
the blocks' cost differences is given beside it: the test irace itself uses to
compare two configurations, and the stronger of the two when runs are paired.
Costs are the race's (``elimination.run_cost``): a decided run by its seconds or
iterations, below an undecided one, below a rejected one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nqueens_plugins.results.elimination import PAR_FACTOR, SIGNIFICANCE, decided, run_cost
from nqueens_plugins.results.statistics import BaselineComparison, Runs, compare_to_baseline, ert


@dataclass(frozen=True)
class Side:
    """One configuration's held-out runs, scored."""

    label: str
    runs: int
    decided: int
    score: float  # the goal's: mean PAR-10 seconds, ERT seconds or ERT iterations (inf: none decided)


@dataclass(frozen=True)
class HeldOut:
    """The best configuration against the defaults on the same held-out blocks."""

    goal: str
    best: Side
    defaults: Side
    baseline: BaselineComparison  # the best as the variant, the defaults as the baseline
    paired_p: float | None  # Wilcoxon signed-rank, two-sided; None when every pair tied
    best_wins: int  # blocks where the best cost less
    defaults_wins: int

    def verdict(self) -> str:
        """Better, worse or no significant difference by the paired test, with the baseline test's verdict."""
        if self.paired_p is None or not self.paired_p < SIGNIFICANCE:
            paired = "no significant difference (paired test)"
        else:
            paired = "better (paired test)" if self.best_wins > self.defaults_wins else "worse (paired test)"
        return f"{paired}; baseline test: {self.baseline.verdict()}"


def held_out(
    records: Sequence[Mapping[str, Any]], best: str, defaults: str, goal: str, timeout: float | None
) -> HeldOut:
    """Score ``records`` (the test's runs of ``best`` and ``defaults``, paired by board and trial)."""
    from scipy.stats import wilcoxon

    by_side: dict[str, dict[tuple[Any, ...], Mapping[str, Any]]] = {best: {}, defaults: {}}
    for record in records:
        if record["solver"] in by_side:
            by_side[record["solver"]][(record["n"], record.get("instance"), record["trial"])] = record
    blocks = sorted(set(by_side[best]) & set(by_side[defaults]), key=repr)
    mine = [by_side[best][block] for block in blocks]
    theirs = [by_side[defaults][block] for block in blocks]
    a = np.array([finite_cost(run_cost(r, goal)) for r in mine])
    b = np.array([finite_cost(run_cost(r, goal)) for r in theirs])
    paired_p = None
    if len(blocks) and np.any(a != b):
        paired_p = float(wilcoxon(a, b, zero_method="wilcox", alternative="two-sided").pvalue)
    return HeldOut(
        goal,
        side(best, mine, goal, timeout),
        side(defaults, theirs, goal, timeout),
        compare_to_baseline(runs_of(mine, goal, timeout), runs_of(theirs, goal, timeout)),
        paired_p,
        int(np.count_nonzero(a < b)),
        int(np.count_nonzero(b < a)),
    )


def finite_cost(cost: float) -> float:
    """A cost the signed-rank test can subtract: a rejected run just above an undecided one."""
    return 2e300 if math.isinf(cost) else cost


def runs_of(records: Sequence[Mapping[str, Any]], goal: str, timeout: float | None) -> Runs:
    """The runs in the goal's unit (iterations for ``ert-iterations``, which has no time limit to censor at)."""
    spent = [float(r.get("iterations") or 0.0) if goal == "ert-iterations" else float(r["seconds"]) for r in records]
    iterations = [float(r.get("iterations") or 0.0) for r in records]
    limit = None if goal == "ert-iterations" else timeout
    return Runs.of(spent, iterations, [decided(r) for r in records], limit)


def side(label: str, records: Sequence[Mapping[str, Any]], goal: str, timeout: float | None) -> Side:
    runs = runs_of(records, goal, timeout)
    if goal == "par10" and timeout is not None:
        score = float(np.where(runs.succeeded, runs.seconds, PAR_FACTOR * timeout).mean()) if len(runs) else math.inf
    else:
        score = ert(runs.seconds, runs.succeeded)
    return Side(label, len(runs), int(runs.succeeded.sum()), score)
