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

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.results.features import features
from nqueens_plugins.results.schedule import Schedule, Scheduler, simulate
from nqueens_plugins.results.schedule import cross_validated as schedules_cross_validated
from nqueens_plugins.results.selector import FOLDS, K_NEAREST, MIN_INSTANCES, Selector, cross_validated, fold_of
from nqueens_plugins.results.statistics import Runs, par

__all__ = [
    "PORTFOLIO_PAR",
    "Portfolio",
    "PortfolioRow",
    "is_portfolio",
    "portfolio",
    "schedule_for_board",
    "scheduler_of",
    "score_table",
    "selector_of",
]

PORTFOLIO_PAR = 2  # undecided runs count as twice the time limit

# A gap (SBS - VBS) narrower than either of these is not shown as a share closed: a share of a sliver is a
# huge number (-4,500,077 % once, where the single best was almost the virtual best) that says nothing.
GAP_MIN_SECONDS = 0.01  # mean PAR-2 seconds: below it the gap is the jitter of timing a solver call on a busy
# machine (a process switched out for a few milliseconds), not a difference between solvers
GAP_MIN_SHARE = 0.05  # of the single best's PAR-2: below it the single best is as good as the virtual best


@dataclass(frozen=True)
class PortfolioRow:
    """One line of the portfolio table: a reference point (VBS, SBS), a single solver or a portfolio."""

    solver: str
    kind: str  # "virtual best", "single best", "single" or "portfolio"
    par: float  # mean PAR-2 seconds over the compared instances
    decided: float  # fraction of its runs on them that decided the instance (the VBS: of the instances)
    gap_closed: float | None  # (SBS - this) / (SBS - VBS); None for the references or a gap too narrow to share


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
    # Its groups' runs there, as they are (typed arrays, weighted where runs repeat): one entry a run only when a
    # schedule is simulated on them (``seconds``, ``succeeded``), not Python lists of 40 bytes a run.
    kept: dict[tuple[int, str], list[Runs]] = field(default_factory=lambda: defaultdict(list))
    limit: dict[tuple[int, str], float] = field(default_factory=dict)  # the largest of its groups there

    def add(self, instance: tuple[int, str], runs: Runs, score: float) -> None:
        self.total[instance] += score * len(runs)
        self.runs[instance] += len(runs)
        self.decided[instance] += runs.successes
        self.kept[instance].append(runs)
        self.limit[instance] = max(self.limit.get(instance, 0.0), float(runs.limit or 0.0))

    def seconds(self, instance: tuple[int, str]) -> np.ndarray:
        """Each run's seconds on the instance."""
        return np.concatenate([runs.expanded().seconds for runs in self.kept[instance]])

    def succeeded(self, instance: tuple[int, str]) -> np.ndarray:
        """Whether each run on the instance succeeded (in the order of ``seconds``)."""
        return np.concatenate([runs.expanded().succeeded for runs in self.kept[instance]])

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

    def recorded(self, instance: tuple[int, str]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Each single solver's runs on the instance: (seconds, whether each decided)."""
        return {
            label: (self.scores[label].seconds(instance), self.scores[label].succeeded(instance))
            for label in self.singles
        }

    def limit(self, instance: tuple[int, str]) -> float:
        """The instance's time limit: the smallest of the single solvers' there (every run is known up to it)."""
        return min(self.scores[label].limit[instance] for label in self.singles)


def score_table(groups: Mapping[Any, Any]) -> Table | None:
    """Every solver's PAR-2 per instance, and the single solvers' on their common instances; None when
    fewer than two single solvers share an instance with a time limit."""
    scores: dict[str, Scores] = defaultdict(Scores)
    boards: dict[tuple[int, str], tuple[int, Any, Any]] = {}
    unlimited: set[str] = set()
    for (solver, n, instance, _, _), group in groups.items():
        if not group.has_runs:
            continue  # a refusal: no runs
        runs = group.runs()
        score = par(runs, PORTFOLIO_PAR)
        if score is None:
            unlimited.add(solver)
            continue
        scores[solver].add((n, instance), runs, score)
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

    narrow = narrow_gap(sbs, vbs)
    if narrow is not None:
        notes.insert(0, f"gap closed not shown: {narrow}")

    def closed(value: float) -> float | None:
        return (sbs - value) / (sbs - vbs) if narrow is None else None

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
    rows += learned_rows(found, closed, notes)
    return Portfolio(len(instances), rows, notes)


def narrow_gap(sbs: float, vbs: float) -> str | None:
    """Why the gap between the single best and the virtual best is too narrow for a share of it to mean
    anything (``GAP_MIN_SECONDS``, ``GAP_MIN_SHARE``), or None when it is wide enough to be shared out."""
    gap = sbs - vbs
    if gap >= GAP_MIN_SECONDS and gap >= GAP_MIN_SHARE * sbs:
        return None
    return (
        f"the single best ({sbs:.4f} s) is within {gap:.4f} s of the virtual best ({vbs:.4f} s); a gap under "
        f"{GAP_MIN_SECONDS:g} s or {GAP_MIN_SHARE:.0%} of the single best is timing noise, not a gap to close"
    )


def learnable(table: Table) -> Scheduler | str:
    """What a selector and a schedule learn from (the scheduler holds the selector), or why nothing can be
    learnt and scored from the table."""
    if len(table.instances) < MIN_INSTANCES:
        return f"{len(table.instances)} instances, {MIN_INSTANCES} needed to hold some out"
    scheduler = scheduler_of(table)
    if scheduler is None:
        return "some instances have no board in the records to compute features from"
    if not np.ptp(scheduler.selector.features, axis=0).any():
        return "every instance has the same features, so the nearest ones would be chosen by file order"
    if len({fold_of(label) for label in scheduler.selector.instances}) < 2:
        return "the instances all fell in one fold"
    return scheduler


def learned_rows(table: Table, closed: Callable[[float], float | None], notes: list[str]) -> list[PortfolioRow]:
    """The learned selector's and schedule's rows, cross-validated by instance, or a note saying why not."""
    scheduler = learnable(table)
    if isinstance(scheduler, str):
        notes.append(f"no selector or schedule row: {scheduler}")
        return []
    return [selector_row(table, scheduler.selector, closed), schedule_row(table, scheduler, closed)]


def selector_row(table: Table, selector: Selector, closed: Callable[[float], float | None]) -> PortfolioRow:
    """The single-solver selector's row: each instance gets the solver chosen without its fold (two folds or
    more, so every instance gets one)."""
    picks = [(str(solver), i) for solver, i in zip(cross_validated(selector), table.instances, strict=True)]
    value = float(np.mean([table.par[solver][table.instances.index(i)] for solver, i in picks]))
    decided = sum(table.scores[solver].decided[i] for solver, i in picks)
    runs = sum(table.scores[solver].runs[i] for solver, i in picks)
    label = f"selector: {K_NEAREST} nearest, {FOLDS}-fold cross-validated"
    return PortfolioRow(label, "portfolio", value, decided / runs, closed(value))


def scheduler_of(table: Table) -> Scheduler | None:
    """SUNNY's knowledge base from every compared instance (None if one has no board for its features)."""
    selector = selector_of(table)
    if selector is None:
        return None
    decided, times = [], []
    for instance in table.instances:
        runs, limit = table.recorded(instance), table.limit(instance)
        decided.append([float(runs[label][1].mean()) for label in table.singles])
        times.append([float(np.where(runs[label][1], runs[label][0], limit).mean()) for label in table.singles])
    return Scheduler(selector, np.array(decided), np.array(times))


def schedule_row(table: Table, scheduler: Scheduler, closed: Callable[[float], float | None]) -> PortfolioRow:
    """SUNNY's schedule's row: each instance's schedule learnt without its fold, simulated on its recorded runs."""
    limits = [table.limit(instance) for instance in table.instances]
    schedules = schedules_cross_validated(scheduler, limits)
    simulated = []
    for schedule, instance, limit in zip(schedules, table.instances, limits, strict=True):
        if schedule is not None:  # always: ``learnable`` saw two folds or more
            simulated.append(simulate(schedule.slices, table.recorded(instance), limit, PORTFOLIO_PAR))
    value = float(np.mean([par2 for par2, _ in simulated]))
    decided = float(np.mean([chance for _, chance in simulated]))
    label = f"schedule: SUNNY, {scheduler.selector.k} nearest, {FOLDS}-fold cross-validated"
    return PortfolioRow(label, "portfolio", value, decided, closed(value))


def schedule_for_board(
    groups: Mapping[Any, Any],
    n: int,
    fixed: Mapping[int, int],
    blocked: Iterable[tuple[int, int]],
    limit: float | None = None,
) -> Schedule:
    """SUNNY's schedule for a board, learnt from summarised groups (``api.grouped(records).groups``), within
    ``limit`` seconds (by default the records' most common time limit). Raises ``BadInput`` saying why the
    records cannot train one."""
    table = score_table(groups)
    scheduler = scheduler_of(table) if table is not None else None
    if table is None or scheduler is None:
        raise BadInput("these records cannot train a schedule: they need two single solvers or more, with a "
                       "time limit, on common instances")  # fmt: skip
    if not np.ptp(scheduler.selector.features, axis=0).any() and len(table.instances) > 1:
        raise BadInput("these records cannot train a schedule: every instance has the same features")
    if limit is None:
        limits = Counter(table.limit(instance) for instance in table.instances)
        limit = max(limits, key=lambda value: (limits[value], value))
    if not (math.isfinite(limit) and limit > 0):
        raise BadInput(f"a schedule needs a time limit above 0 seconds, not {limit:g}")
    return scheduler.schedule(features(n, fixed, blocked), limit)
