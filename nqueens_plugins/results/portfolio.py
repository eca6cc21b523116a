"""Results layer, parent side: the virtual best and the single best solver of a records file, and what a portfolio closes.

Algorithm-selection research scores a portfolio against two reference points
(the SAT competitions report the first; ASlib scores selectors by both):

* the **virtual best solver** (VBS): on each instance, the best of the single
  solvers' scores there, as an oracle that knew which to run would get;
* the **single best solver** (SBS): the one single solver with the best score
  over all the instances.

A race or a selector is then scored by the fraction of the SBS-VBS gap it closes:
1 is the oracle, 0 no better than always running the single best, below 0 worse.

The score of a solver on an instance is its PAR-2 there: the mean over its runs
of the run's seconds if it decided the instance, else twice the time limit (the
issue's measure; the comparison table shows PAR-10). Only the instances that
every single solver ran are compared (any other would favour whoever ran the
easy ones), and a race is scored on them only if it ran them all. Rows whose
label starts with ``race(`` are portfolios; every other row is a single solver.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqueens_plugins.results.features import features
from nqueens_plugins.results.selector import FOLDS, K_NEAREST, MIN_INSTANCES, Selector, cross_validated
from nqueens_plugins.results.statistics import par

__all__ = ["PORTFOLIO_PAR", "Portfolio", "PortfolioRow", "is_portfolio", "portfolio", "score_table", "selector_of"]

PORTFOLIO_PAR = 2  # undecided runs count as twice the time limit


@dataclass(frozen=True)
class PortfolioRow:
    """One line of the portfolio table: a reference point (VBS, SBS), a single solver or a portfolio."""

    solver: str
    kind: str  # "virtual best", "single best", "single" or "portfolio"
    par: float  # mean PAR-2 seconds over the compared instances
    decided: float  # fraction of its runs on them that decided the instance (the VBS: of the instances)
    gap_closed: float | None  # (SBS - this) / (SBS - VBS); None for the references or when SBS is the VBS


@dataclass(frozen=True)
class Portfolio:
    """The compared instances' count, the rows (VBS, SBS, every single solver, every portfolio), and notes."""

    instances: int
    rows: list[PortfolioRow]
    notes: list[str] = field(default_factory=list)


def is_portfolio(label: str) -> bool:
    return label.startswith("race(")


@dataclass
class Scores:
    """One solver's PAR-2 per instance, accumulated over its groups (seeds, versions) as sums of runs."""

    total: dict[tuple[int, str], float] = field(default_factory=lambda: defaultdict(float))
    runs: dict[tuple[int, str], int] = field(default_factory=lambda: defaultdict(int))
    decided: dict[tuple[int, str], int] = field(default_factory=lambda: defaultdict(int))

    def add(self, instance: tuple[int, str], score: float, runs: int, decided: int) -> None:
        self.total[instance] += score * runs
        self.runs[instance] += runs
        self.decided[instance] += decided

    def par(self, instance: tuple[int, str]) -> float:
        return self.total[instance] / self.runs[instance]


@dataclass
class Table:
    """The single solvers' PAR-2 on the instances they all ran, with what was left out and why."""

    singles: list[str]
    instances: list[tuple[int, str]]
    scores: dict[str, Scores]
    par: dict[str, np.ndarray]  # single solver -> its PAR-2 on each instance, in ``instances`` order
    boards: dict[tuple[int, str], tuple[int, Any, Any]]  # instance -> (n, fixed, blocked) of a run on it
    notes: list[str]


def score_table(groups: Mapping[Any, Any]) -> Table | None:
    """Every solver's PAR-2 per instance, and the single solvers' on their common instances; None when
    fewer than two single solvers share an instance with a time limit."""
    scores: dict[str, Scores] = defaultdict(Scores)
    boards: dict[tuple[int, str], tuple[int, Any, Any]] = {}
    unlimited: set[str] = set()
    for (solver, n, instance, _, _), group in groups.items():
        if not group.seconds:
            continue  # a refusal: no runs
        runs = group.runs()
        score = par(runs, PORTFOLIO_PAR)
        if score is None:
            unlimited.add(solver)
            continue
        scores[solver].add((n, instance), score, len(runs), int(runs.succeeded.sum()))
        if group.board is not None:
            boards.setdefault((n, instance), group.board)
    singles = sorted(label for label in scores if not is_portfolio(label))
    if len(singles) < 2:
        return None
    common = set.intersection(*(set(scores[label].runs) for label in singles))
    if not common:
        return None
    instances = sorted(common)
    notes = [f"{label}: no time limit, no PAR-2" for label in sorted(unlimited)]
    left_out = len(set().union(*(scores[label].runs for label in singles))) - len(common)
    if left_out:
        notes.append(f"{left_out} instances left out: not every single solver ran them")
    table = {label: np.array([scores[label].par(i) for i in instances]) for label in singles}
    return Table(singles, instances, scores, table, boards, notes)


def selector_of(table: Table) -> Selector | None:
    """A selector trained on every compared instance (None if one has no board to compute features from)."""
    if any(instance not in table.boards for instance in table.instances):
        return None
    points = []
    for instance in table.instances:
        n, fixed, blocked = table.boards[instance]
        points.append(features(int(n), {int(c): int(r) for c, r in dict(fixed).items()}, [tuple(s) for s in blocked]))
    labels = tuple(f"n={n} {name}".strip() for n, name in table.instances)
    scores = np.column_stack([table.par[label] for label in table.singles])
    return Selector(tuple(table.singles), labels, np.array(points, dtype=float), scores)


def portfolio(groups: Mapping[Any, Any]) -> Portfolio | None:
    """The portfolio table of summarised groups (``summary.group_runs``, settled), or None when the file has
    fewer than two single solvers on common instances with a time limit (there is no gap to speak of)."""
    found = score_table(groups)
    if found is None:
        return None
    singles, instances, scores, table, notes = found.singles, found.instances, found.scores, found.par, found.notes
    virtual = np.min(np.vstack(list(table.values())), axis=0)
    best = min(singles, key=lambda label: (float(table[label].mean()), label))
    vbs, sbs = float(virtual.mean()), float(table[best].mean())

    def closed(value: float) -> float | None:
        return (sbs - value) / (sbs - vbs) if sbs > vbs else None

    def decided(label: str) -> float:
        score = scores[label]
        return sum(score.decided[i] for i in instances) / sum(score.runs[i] for i in instances)

    decided_anywhere = sum(any(scores[label].decided[i] for label in singles) for i in instances)
    rows = [
        PortfolioRow("virtual best", "virtual best", vbs, decided_anywhere / len(instances), None),
        PortfolioRow(f"single best: {best}", "single best", sbs, decided(best), None),
    ]
    rows += [PortfolioRow(label, "single", float(table[label].mean()), decided(label), closed(float(table[label].mean())))
             for label in singles]  # fmt: skip
    for label in sorted(label for label in scores if is_portfolio(label)):
        if not set(instances) <= set(scores[label].runs):
            notes.append(f"{label} is not scored: it did not run every compared instance")
            continue
        value = float(np.mean([scores[label].par(i) for i in instances]))
        rows.append(PortfolioRow(label, "portfolio", value, decided(label), closed(value)))
    rows += selector_rows(found, closed, notes)
    return Portfolio(len(instances), rows, notes)


def selector_rows(table: Table, closed: Callable[[float], float | None], notes: list[str]) -> list[PortfolioRow]:
    """The learned selector's row, cross-validated by instance, where the file has enough instances."""
    if len(table.instances) < MIN_INSTANCES:
        notes.append(f"no selector row: {len(table.instances)} instances, {MIN_INSTANCES} needed to hold some out")
        return []
    selector = selector_of(table)
    if selector is None:
        notes.append("no selector row: some instances have no board in the records to compute features from")
        return []
    chosen = cross_validated(selector)
    if any(solver is None for solver in chosen):
        notes.append("no selector row: the instances all fell in one fold")
        return []
    picks = [(str(solver), i) for solver, i in zip(chosen, table.instances, strict=True)]
    value = float(np.mean([table.par[solver][table.instances.index(i)] for solver, i in picks]))
    decided = sum(table.scores[solver].decided[i] for solver, i in picks)
    runs = sum(table.scores[solver].runs[i] for solver, i in picks)
    label = f"selector: {K_NEAREST} nearest, {FOLDS}-fold cross-validated"
    return [PortfolioRow(label, "portfolio", value, decided / runs, closed(value))]
