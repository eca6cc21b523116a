"""The harness: which runs a comparison makes (solvers x sizes or instances x trials), and its records.

The runs themselves go through the execution service (``execution.py``:
isolated, warm-started, killed from outside, verified in this process). Records
are dicts (the JSON lines of ``records.py``), written and flushed as each run
ends. Every run's seed is derived from (seed, solver, instance, trial), so the
same grid gives the same records whatever the number of jobs or the backend.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nqueens_plugins.errors import BadInput
from nqueens_plugins.execution import LocalExecutor, Task
from nqueens_plugins.problem import Problem
from nqueens_plugins.records import ResultsWriter, now
from nqueens_plugins.run import Result, check_runnable
from nqueens_plugins.solver import Variant

DEFAULT_TIMEOUT = 10.0


def run_key(task: Task) -> tuple[Any, ...]:
    """What makes two runs the same run (matches ``records.run_key`` of its record)."""
    return (task.variant.label, task.problem.n, task.problem.id, task.trial, task.seed)


@dataclass
class Grid:
    """Which runs a comparison makes: solvers x (sizes or instances) x trials.

    Sizes (or instances) outermost, so small boards finish first. ``instances``,
    when given, take the place of ``sizes`` (and of ``fixed``).
    """

    variants: Sequence[Variant]
    sizes: Sequence[int] = ()
    trials: int = 1
    seed: int = 0
    timeout: float | None = DEFAULT_TIMEOUT  # None: no limit
    fixed: Mapping[int, int] = field(default_factory=dict)
    instances: Sequence[Problem] = ()
    memory: int | None = None  # bytes a run may allocate beyond its worker's own
    skip_refused: bool = False  # ("-s all") leave out what a solver refuses, instead of stopping
    skipped: dict[str, str] = field(default_factory=dict)  # variant label -> why, when skip_refused

    def problems(self) -> list[Problem]:
        from nqueens_plugins.inputs import make_problem

        if self.instances:
            return list(self.instances)
        if not self.sizes:
            raise BadInput("no board sizes or instances given")
        return [make_problem(n, self.fixed) for n in self.sizes]

    def describe(self) -> dict[str, Any]:
        """What the results file's header keeps, so that ``--resume`` can refuse another grid."""
        return {
            "seed": self.seed,
            "timeout": self.timeout,
            "trials": self.trials,
            "memory": self.memory,
            "solvers": [v.label for v in self.variants],
            "boards": [p.id for p in self.problems()],
        }

    def runs(self) -> list[Task]:
        if self.trials < 1:
            raise BadInput(f"--trials must be at least 1, not {self.trials}")
        if not self.variants:
            raise BadInput("no solvers given")
        tasks: list[Task] = []
        for problem in self.problems():
            takers = []
            for variant in self.variants:
                try:
                    check_runnable(variant, problem)
                except BadInput as refusal:
                    if not self.skip_refused:
                        raise
                    self.skipped.setdefault(variant.label, str(refusal))
                    continue
                takers.append(variant)
            for trial in range(self.trials):
                tasks.extend(
                    Task("solve", v, problem, seed=self.seed, trial=trial, timeout=self.timeout, memory=self.memory)
                    for v in takers
                )
        if not tasks:
            raise BadInput("no solver takes any of these boards: " + "; ".join(self.skipped.values()))
        return tasks


# --- the comparison ------------------------------------------------------------


def to_record(result: Result, sources: Mapping[str, Any], keep_queens: bool) -> dict[str, Any]:
    source = sources.get(result.name)
    record: dict[str, Any] = {"type": "run"}
    record.update(result.to_dict(keep_queens=True if keep_queens else None))
    record["plugin"] = getattr(source, "plugin", None)
    record["distribution"] = getattr(source, "distribution", None)
    record["version"] = getattr(source, "version", None)
    record["timestamp"] = now()
    return record


def stream(
    grid: Grid,
    *,
    jobs: int = 0,
    out: Path | None = None,
    resume: bool = False,
    keep_queens: bool = False,
    command: str | None = None,
    executor: Any = None,
    planned: list[int] | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield one record per run as it finishes, appending each to ``out`` first.

    With ``resume``, runs already in ``out`` are not run again and are not
    yielded. ``executor`` is a backend (default: local worker processes, ``jobs``
    of them); ``planned``, if given, receives the number of runs to make.
    """
    from nqueens_plugins import host

    tasks = grid.runs()
    writer = ResultsWriter(out, resume=resume, command=command, grid=grid.describe()) if out else None
    try:
        if writer:
            for warning in writer.warnings:
                print(f"nqueens: warning: {warning}", file=sys.stderr)
            tasks = [t for t in tasks if run_key(t) not in writer.done]
        if planned is not None:
            planned.append(len(tasks))
        sources = {r.solver.name: r.source for r in host.registry_for(v.name for v in grid.variants)}
        owned = executor is None
        backend = executor if executor is not None else LocalExecutor(jobs)  # starts workers only as tasks need them
        try:
            for _, result in backend.map(tasks):
                assert isinstance(result, Result)
                record = to_record(result, sources, keep_queens)
                record["timeout"] = grid.timeout  # the limit an unsolved run is censored at (report)
                if writer:
                    writer.write(record)
                yield record
        finally:
            if owned:
                backend.close()
    finally:
        if writer:
            writer.close()


def run_grid(grid: Grid, **kwargs: Any) -> list[dict[str, Any]]:
    """All records of a comparison (see ``stream``)."""
    return list(stream(grid, **kwargs))


def compare(
    solvers: Sequence[str] | str,
    sizes: Sequence[int] | str = (),
    trials: int = 1,
    *,
    seed: int = 0,
    timeout: float | None = DEFAULT_TIMEOUT,
    jobs: int = 0,
    out: str | Path | None = None,
    resume: bool = False,
    fixed: Mapping[int, int] | None = None,
    instances: Sequence[str] | str | Sequence[Problem] = (),
    keep_queens: bool = False,
    stream_records: bool = False,
    executor: Any = None,
    memory: int | str | None = None,
) -> Any:
    """Compare solvers over sizes and trials; a list of records, or an iterator with ``stream_records``.

    ``solvers`` is a list of ``NAME[key=value,...]`` (or one comma-separated
    string, or ``"all"``); ``sizes`` a list of ints or a string like ``"4..40:4"``;
    ``instances`` instead of sizes: files, globs or folders (``"hard/*.param"``,
    ``"diag-12.param@5"``; see ``nqueens_plugins.instances``) or Problems.
    """
    from nqueens_plugins import host, inputs
    from nqueens_plugins import instances as instance_files

    if not isinstance(solvers, str):
        solvers = [inputs.solver_spec(spec) for spec in solvers]
    trials = inputs.whole_number(trials, "trials", minimum=1)
    seed = inputs.whole_number(seed, "seed")
    jobs = inputs.whole_number(jobs, "jobs", minimum=0)
    timeout = inputs.time_limit(timeout)
    problems: list[Problem] = []
    if isinstance(instances, str) or (instances and not isinstance(instances[0], Problem)):
        problems = instance_files.load(instances)  # type: ignore[arg-type]
    elif instances:
        problems = list(instances)  # type: ignore[arg-type]
    size_list = inputs.parse_sizes(sizes) if isinstance(sizes, str) else [inputs.parse_size(n) for n in sizes]
    if problems and size_list:
        raise BadInput("give sizes or instances, not both")
    everything = isinstance(solvers, str) and solvers.strip() == "all"
    grid = Grid(host.registry_for_specs(solvers).variants(solvers), size_list, trials, seed, timeout, dict(fixed or {}), problems,
                skip_refused=everything)  # fmt: skip
    records = stream(grid, jobs=jobs, out=Path(out) if out else None, resume=resume, keep_queens=keep_queens,
                     executor=executor)  # fmt: skip
    return records if stream_records else list(records)
