"""Results layer, parent side: a comparison's records summarised, one row per solver variant and board.

Summaries are computed from records alone (dicts as written to a results file,
streamed, never kept), so ``nqueens report`` shows exactly what ``nqueens
compare`` showed. The figures come from ``statistics.py``; ``report.py``,
``plot.py`` and ``html_report.py`` render them.
"""

from __future__ import annotations

import math
import re
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.formats.records import instance_label
from nqueens_plugins.results.statistics import Runs, censored_quantile, compare_to_baseline, ert, par, wilson_interval


@dataclass
class SummaryRow:
    """One variant on one board. Seconds are the solver call's; censored figures are None (see statistics.py)."""

    solver: str
    n: int
    instance: str | None  # None for plain boards; else the instance's file (or n and content hash)
    runs: int
    solved: int
    success_rate: float
    success_low: float  # 95 % Wilson interval
    success_high: float
    time_limit: float | None  # seconds; unsolved runs are censored there
    median_seconds: float | None  # None: the median run did not solve (more than the limit)
    q25_seconds: float | None
    q75_seconds: float | None
    ert_seconds: float | None  # None: no run solved (infinite)
    ert_iterations: float | None
    par10_seconds: float | None  # None without a time limit
    mean_iterations: float | None
    mean_moves: float | None
    no_solution: int
    gave_up: int
    timed_out: int
    error: int
    invalid: int
    seed: int | None = None
    version: str | None = None


def natural_order(key: tuple[str, int, str]) -> tuple[Any, ...]:
    """Solver, n, then the instance name with its numbers compared as numbers (file@9 before file@10)."""
    solver, n, instance = key
    parts = tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", instance))
    return (solver, n, parts)


@dataclass
class Group:
    """What a summary keeps of one group's runs while the file streams past: numbers, not records."""

    # Typed arrays (8 bytes a number, 1 a flag), not lists of objects: a million runs stay small.
    seconds: array[float] = field(default_factory=lambda: array("d"))
    iterations: array[float] = field(default_factory=lambda: array("d"))
    moves: array[float] = field(default_factory=lambda: array("d"))
    solved: array[int] = field(default_factory=lambda: array("b"))
    counted: array[int] = field(default_factory=lambda: array("b"))  # not error or invalid: its counters mean something
    answered: array[int] = field(default_factory=lambda: array("b"))  # solved and verified, or no-solution
    statuses: Counter[str] = field(default_factory=Counter)
    limits: set[float | None] = field(default_factory=set)
    family: tuple[str, int] | None = None  # the instance family's parameter (family_parameter), for plots

    def add(self, record: Mapping[str, Any]) -> None:
        if self.family is None:
            self.family = family_parameter(record)
        self.seconds.append(float(record["seconds"]))
        self.iterations.append(float(record.get("iterations") or 0))
        self.moves.append(float(record.get("moves") or 0))
        self.solved.append(record["status"] == "solved" and record.get("verified") is True)
        self.counted.append(record["status"] not in ("error", "invalid"))
        self.answered.append(bool(self.solved[-1]) or record["status"] == "no-solution")
        self.statuses[str(record["status"])] += 1
        limit = record.get("timeout")
        self.limits.add(float(limit) if isinstance(limit, (int, float)) and not isinstance(limit, bool) else None)

    def runs(self) -> Runs:
        limits = [limit for limit in self.limits if limit is not None]
        limit = max(limits) if limits and None not in self.limits else None
        return Runs.of(self.seconds, self.iterations, self.solved, limit)


def family_parameter(record: Mapping[str, Any]) -> tuple[str, int] | None:
    """What an instance family varies, read off a record: the prefix d of an Excluded Diagonals
    file (FILE@d), else the number of blocked squares, else of fixed queens; None for plain boards."""
    source = str(record.get("source") or "")
    match = re.search(r"@(\d+)$", source)
    if match:
        return ("excluded diagonals d", int(match.group(1)))
    if record.get("blocked"):
        return ("blocked squares", len(record["blocked"]))
    if record.get("fixed"):
        return ("fixed queens", len(record["fixed"]))
    return None


GroupKey = tuple[str, int, str, Any, Any]  # solver, n, instance, seed, version


def group_runs(records: Iterable[Mapping[str, Any]]) -> tuple[dict[GroupKey, Group], list[str]]:
    """Runs grouped by variant and board; split by seed and version too where the file mixes them (said)."""
    groups: dict[GroupKey, Group] = defaultdict(Group)
    seeds: set[Any] = set()
    versions: dict[str, set[Any]] = defaultdict(set)
    for record in records:
        seed, version = record.get("seed"), record.get("version")
        seeds.add(seed)
        versions[str(record["solver"])].add(version)
        groups[(str(record["solver"]), int(record["n"]), instance_label(record) or "", seed, version)].add(record)
    notes = []
    mixed_seeds = len(seeds) > 1
    mixed_versions = sorted(solver for solver, found in versions.items() if len(found) > 1)
    if mixed_seeds:
        notes.append(
            f"the file mixes runs made with seeds {', '.join(str(s) for s in sorted(seeds, key=str))}: "
            "each seed is summarised apart, not pooled"
        )
    if mixed_versions:
        notes.append(
            f"the file mixes versions of {', '.join(mixed_versions)}: each version is summarised apart, not pooled"
        )
    merged: dict[GroupKey, Group] = defaultdict(Group)  # keyed by seed and version only where they vary
    for (solver, n, instance, seed, version), group in groups.items():
        target = merged[
            (solver, n, instance, seed if mixed_seeds else None, version if solver in mixed_versions else None)
        ]
        for name in ("seconds", "iterations", "moves", "solved", "counted", "answered"):
            getattr(target, name).extend(getattr(group, name))
        target.statuses.update(group.statuses)
        target.limits |= group.limits
        target.family = target.family or group.family
    return merged, notes


def summarise(records: Iterable[Mapping[str, Any]], notes: list[str] | None = None) -> list[SummaryRow]:
    """One row per solver variant and board (n, or instance), streaming: records are not kept.

    ``notes`` receives what the reader should know (a file mixing seeds or versions).
    """
    groups, found_notes = group_runs(records)
    if notes is not None:
        notes.extend(found_notes)
    return summary_rows(groups)


def summary_rows(groups: Mapping[GroupKey, Group]) -> list[SummaryRow]:
    rows = []
    for key in sorted(groups, key=lambda k: (*natural_order(k[:3]), str(k[3]), str(k[4]))):
        solver, n, instance, seed, version = key
        group = groups[key]
        runs = group.runs()
        solved = int(runs.solved.sum())
        low, high = wilson_interval(solved, len(runs))
        counted = np.asarray(group.counted, dtype=bool)
        quartiles = [censored_quantile(runs, q) for q in (0.25, 0.5, 0.75)]
        rows.append(
            SummaryRow(
                solver=solver,
                n=n,
                instance=instance or None,
                runs=len(runs),
                solved=solved,
                success_rate=solved / len(runs),
                success_low=low,
                success_high=high,
                time_limit=runs.limit,
                q25_seconds=finite(quartiles[0]),
                median_seconds=finite(quartiles[1]),
                q75_seconds=finite(quartiles[2]),
                ert_seconds=finite(ert(runs.seconds, runs.solved)),
                ert_iterations=finite(ert(runs.iterations, runs.solved)),
                par10_seconds=par(runs),
                mean_iterations=float(np.mean(runs.iterations[counted])) if counted.any() else None,
                mean_moves=float(np.mean(np.asarray(group.moves)[counted])) if counted.any() else None,
                no_solution=group.statuses["no-solution"],
                gave_up=group.statuses["gave-up"],
                timed_out=group.statuses["timed-out"],
                error=group.statuses["error"],
                invalid=group.statuses["invalid"],
                seed=seed,
                version=version,
            )
        )
    return rows


def finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


@dataclass
class BaselineRow:
    solver: str
    n: int
    instance: str | None
    runs: int
    baseline_runs: int
    ert_ratio: float | None  # this variant's ERT over the baseline's: below 1 is faster; None if undefined
    ratio_low: float | None  # bootstrap 95 % interval
    ratio_high: float | None
    p_value: float | None  # Mann-Whitney U, two-sided, censored at the smaller limit
    verdict: str


def baseline_rows(groups: Mapping[GroupKey, Group], baseline: str) -> list[BaselineRow]:
    """Every other variant against ``baseline`` on each board both ran (``statistics.compare_to_baseline``)."""
    solvers = sorted({key[0] for key in groups})
    if baseline not in solvers:
        raise BadInput(f"baseline {baseline!r} is not in the file; it holds {', '.join(solvers)}")
    base = {(key[1], key[2]): group for key, group in groups.items() if key[0] == baseline}
    rows = []
    for key in sorted(groups, key=lambda k: (*natural_order(k[:3]), str(k[3]), str(k[4]))):
        solver, n, instance = key[:3]
        if solver == baseline or (n, instance) not in base:
            continue
        mine, theirs = groups[key].runs(), base[(n, instance)].runs()
        compared = compare_to_baseline(mine, theirs)
        rows.append(
            BaselineRow(
                solver,
                n,
                instance or None,
                len(mine),
                len(theirs),
                finite(compared.ert_ratio) if not math.isnan(compared.ert_ratio) else None,
                compared.ratio_low,
                compared.ratio_high,
                compared.p_value,
                compared.verdict(),
            )
        )
    return rows
