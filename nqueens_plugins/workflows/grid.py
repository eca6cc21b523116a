"""Workflows layer, parent side: a comparison grid (solvers x sizes or instances x trials) and the records of its runs.

The runs themselves go through an executor (``execution/local.py`` by default:
isolated, warm-started, killed from outside, verified in this process). Records
are dicts in the results-file format that ``records.py`` owns, written and
flushed as each run ends. Every run's seed is derived from (seed, solver,
instance, trial) (``Limits.seed_for``), so the same grid gives the same records whatever the number
of jobs or the backend.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.limits import COMPARE_TIMEOUT, Limits
from nqueens_plugins.core.problem import Problem
from nqueens_plugins.core.solver import Variant
from nqueens_plugins.execution.answers import Result
from nqueens_plugins.execution.executor import Executor
from nqueens_plugins.execution.judge import refusal
from nqueens_plugins.execution.local import LocalExecutor, given_or_local
from nqueens_plugins.execution.tasks import Task
from nqueens_plugins.formats.records import ResultsFile, ResultsWriter
from nqueens_plugins.formats.records import run_key as record_key
from nqueens_plugins.formats.run_record import RunRecord
from nqueens_plugins.loading import host
from nqueens_plugins.workflows.race import RaceEntry, check_race, race, race_record_fields

COMPARE_LIMITS = Limits(timeout=COMPARE_TIMEOUT)  # a comparison's limits when none are given


def run_key(task: Task) -> tuple[Any, ...]:
    """What makes two runs the same run (matches ``records.run_key`` of its record)."""
    return (task.variant.label, task.problem.n, task.problem.id, task.trial, task.limits.seed)


@dataclass
class Grid:
    """Which runs a comparison makes: solvers x boards x trials, every run under ``limits``.

    Boards outermost, in the order given (sizes ascending put small boards first).
    """

    variants: Sequence[Variant]
    boards: Sequence[Problem] = ()
    trials: int = 1
    limits: Limits = COMPARE_LIMITS
    skip_refused: bool = False  # ("-s all") leave out, with a note, what a solver refuses, instead of recording it
    skipped: dict[str, str] = field(default_factory=dict)  # variant label -> why, when skip_refused
    refused: list[tuple[Variant, Problem, str]] = field(default_factory=list)  # cells a named solver refused, and why
    races: Sequence[RaceEntry] = ()  # rows that race several solvers (``race.py``), run after the single solvers

    def problems(self) -> list[Problem]:
        if not self.boards:
            raise BadInput("no board sizes or instances given")
        return list(self.boards)

    def describe(self) -> dict[str, Any]:
        """What the results file's header keeps, so that ``--resume`` can refuse another grid."""
        return {
            "seed": self.limits.seed,
            "timeout": self.limits.timeout,
            "trials": self.trials,
            "memory": self.limits.memory,
            "solvers": [v.label for v in self.variants] + [entry.label for entry in self.races],
            "boards": [p.id for p in self.problems()],
        }

    def runs(self) -> list[Task[Result]]:
        """The runs to make. A board a named solver refuses (too large for it, a library missing, fixed
        queens it cannot honour) is a fact of the comparison, kept in ``refused``; only a grid where
        nothing at all can run is bad input."""
        if self.trials < 1:
            raise BadInput(f"--trials must be at least 1, not {self.trials}")
        if not self.variants and not self.races:
            raise BadInput("no solvers given")
        tasks: list[Task[Result]] = []
        self.refused.clear()
        for problem in self.problems():
            takers: list[Task[Result]] = []  # each solver's first trial on this board
            for variant in self.variants:
                try:
                    first = Task.solve(variant, problem, self.limits)
                except BadInput as refusal:
                    if self.skip_refused:
                        self.skipped.setdefault(variant.label, str(refusal))
                    else:
                        self.refused.append((variant, problem, str(refusal)))
                    continue
                takers.append(first)
            for trial in range(self.trials):
                tasks.extend(replace(task, trial=trial) for task in takers)
        if not tasks and not self.races:
            reasons = dict.fromkeys([*self.skipped.values(), *(reason for _, _, reason in self.refused)])
            raise BadInput("no solver takes any of these boards: " + "; ".join(reasons))
        return tasks

    def race_runs(self) -> list[RaceRun]:
        """The races to run: each race on each board, each trial; a race that cannot run on a board
        (``race.check_race``) is bad input, said before anything runs."""
        runs: list[RaceRun] = []
        for problem in self.problems():
            for entry in self.races:
                check_race(entry.members, problem, None)
                runs.extend(RaceRun(entry, problem, trial) for trial in range(self.trials))
        return runs


@dataclass(frozen=True)
class RaceRun:
    """One race of a comparison: an entry, a board, a trial."""

    entry: RaceEntry
    problem: Problem
    trial: int

    def key(self, limits: Limits) -> tuple[Any, ...]:
        """What makes it the same run as a record (``records.run_key``)."""
        return (self.entry.label, self.problem.n, self.problem.id, self.trial, limits.seed)


# --- the comparison ------------------------------------------------------------


def stream(
    grid: Grid,
    *,
    out: ResultsFile | Path | None = None,
    keep_queens: bool = False,
    executor: Executor | None = None,
    jobs: int = 0,
    planned: Callable[[int], None] | None = None,
    warn: Callable[[str], None] | None = None,
) -> Iterator[RunRecord]:
    """Yield one record per run as it finishes, appending each to ``out`` first.

    With ``out.resume``, runs already in the file are not run again and are not
    yielded. ``executor`` is a backend (default: ``jobs`` local worker processes,
    0: one per core). ``planned(count)`` hears how many runs will be made before the
    first starts; ``warn(text)`` hears what the reader of ``out`` should know (a
    damaged line skipped on resume). Each record's time limit is its own
    result's (``Result.timeout``).
    """
    tasks = grid.runs()
    races = grid.race_runs()
    if races and executor is not None and not isinstance(executor, LocalExecutor):
        raise BadInput("a race runs on this machine's workers only (it must stop the losers at once): "
                       "compare races without --executor dask")  # fmt: skip
    results = ResultsFile.of(out) if out is not None else None
    writer = None
    if results is not None:
        writer = ResultsWriter(results.path, resume=results.resume, command=results.command, grid=grid.describe())
    try:
        if writer:
            for warning in writer.warnings:
                if warn is not None:
                    warn(warning)
            tasks = [t for t in tasks if run_key(t) not in writer.done]
            races = [r for r in races if r.key(grid.limits) not in writer.done]
        sources = {r.solver.name: r.source for r in host.registry_for(v.name for v in grid.variants)}
        refusals = []
        for variant, problem, reason in grid.refused:
            refused = refusal(variant, problem, grid.limits, reason)
            refusals.append(refused.record(sources.get(variant.name)))
        if writer:  # a refusal already in the file (a resumed comparison) is kept once
            refusals = [r for r in refusals if record_key(r) not in writer.refused]
        if planned is not None:
            planned(len(tasks) + len(refusals) + len(races))
        for record in refusals:
            if writer:
                writer.write(record)
            yield record
        with given_or_local(executor, jobs) as backend:
            for _, result in backend.map(tasks):
                record = result.record(sources.get(result.name), keep_queens=True if keep_queens else None)
                if writer:
                    writer.write(record)
                yield record
        for record in race_records(races, grid.limits, executor):
            if writer:
                writer.write(record)
            yield record
    finally:
        if writer:
            writer.close()


def race_records(races: Sequence[RaceRun], limits: Limits, executor: Executor | None) -> Iterator[RunRecord]:
    """Run a comparison's races one after another, each member on a core of its own (the comparison's local
    executor when it has the cores, else one made for the races), and yield each race's record."""
    if not races:
        return
    cores = max(len(run.entry.members) for run in races)
    given = executor if isinstance(executor, LocalExecutor) and executor.jobs >= cores else None
    with given_or_local(given, cores) as backend:
        for run in races:
            raced = race(run.entry.members, run.problem, limits, backend, trial=run.trial)
            yield RunRecord.written(race_record_fields(raced, run.entry, limits, run.trial), None, limits.timeout)
