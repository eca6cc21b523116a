"""Workflows layer, parent side: a tune, its iterated race fed with runs the execution service makes.

``results/tuning.iterated_race`` decides which runs are needed; this module
makes them as ``compare`` makes its runs (isolated workers, killed from
outside, every answer verified here), appends each record to ``--out`` as it
ends, and sends the race what each run cost. A run already in the file being
resumed is not made again: its record answers, so a tune killed at any moment
and resumed asks the same questions in the same order and, where the runs are
deterministic (a seeded heuristic that stops on its step limit), ends with the
same configuration as one run straight through.

Blocks: block ``b`` is board ``b mod B`` of the race's ``B`` boards with trial
``b div B``; every configuration of a block runs with the same seed
(``Limits.seed_for`` leaves the options out), so they meet the same random
start. The held-out test runs the best configuration and the solver's defaults
on trials from ``HELD_OUT_TRIAL`` on, seeds the race never used, and on the
instances set aside for it when the boards are instance files.

A file being resumed may have been changed since the tune wrote it, and one forged
record can decide a race. So before the race, every kept run's iterations must be
a 64-bit whole number and its seconds within reach of the time limit, and a sample of the kept runs (``verify_resumed``: 10 % by
default, at least one, drawn by the operating system's randomness) is made again
through the same service with the same seed and trial and compared with what the
file says (``results/resume_checks.run_mismatch``): one that differs refuses the
file (``RejectedFile``).
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nqueens_plugins.core.errors import BadInput, RejectedFile
from nqueens_plugins.core.limits import Limits
from nqueens_plugins.core.problem import Problem
from nqueens_plugins.core.solver import Solver, Variant, parse_spec, resolve_options
from nqueens_plugins.core.space import Space
from nqueens_plugins.execution.executor import Executor
from nqueens_plugins.execution.local import LocalExecutor, given_or_local
from nqueens_plugins.execution.tasks import Task
from nqueens_plugins.formats.reading import compressed
from nqueens_plugins.formats.records import (
    Loaded,
    ResultsFile,
    ResultsWriter,
    grid_difference,
    instance_label,
    read_runs,
    scan_records,
)
from nqueens_plugins.formats.records import run_key as record_key
from nqueens_plugins.results.elimination import GOALS, run_cost
from nqueens_plugins.results.held_out import HeldOut, held_out
from nqueens_plugins.results.resume_checks import DEFAULT_FRACTION, absurd_numbers, draw_sample, run_mismatch
from nqueens_plugins.results.tuning import RunCost, TuneOutcome, TuningBudget, iterated_race, smallest_budget
from nqueens_plugins.workflows.grid import run_key

HELD_OUT_RUNS = 20  # held-out blocks the best configuration and the defaults each run, by default
HELD_OUT_TRIAL = 1_000_000  # the held-out test's first trial: its seeds are ones no race block used
HELD_OUT_SHARE = 3  # one instance file in three is set aside for the held-out test (when there are 3 or more)

Notify = Callable[[str], None]


@dataclass(frozen=True)
class TuneSetup:
    """What a tune is: a solver's space, the boards it races on and tests on, its budget, goal and limits."""

    solver: Solver
    space: Space
    boards: tuple[Problem, ...]  # the race's
    held_out: tuple[Problem, ...]  # the held-out test's (the same sizes, or instances set aside)
    budget: TuningBudget
    goal: str
    test_runs: int
    limits: Limits

    def __post_init__(self) -> None:
        if self.goal not in GOALS:
            raise BadInput(f"--goal is one of {', '.join(GOALS)}, not {self.goal!r}")
        runs, seconds = self.budget.runs, self.budget.seconds
        if runs is None and seconds is None:
            raise BadInput("give a budget: a number of runs, or seconds of the solver's time (such as 600s)")
        if runs is not None and runs < smallest_budget():
            raise BadInput(f"a budget of {runs} runs is smaller than one race block to its first test "
                           f"({smallest_budget()} runs: two configurations on five blocks)")  # fmt: skip
        timeout = self.limits.timeout
        if seconds is not None and timeout is not None and seconds < 2 * timeout:
            raise BadInput(f"a budget of {seconds:g} s is smaller than one block (two runs of up to {timeout:g} s)")
        if self.goal == "par10" and self.limits.timeout is None:
            raise BadInput("the par10 goal counts an undecided run as 10 x the time limit: give a --timeout")
        if self.test_runs < 0:
            raise BadInput(f"--test-runs must be 0 or more, not {self.test_runs}")

    def describe(self) -> dict[str, Any]:
        """The results file's header: what a resume must match, and all a report needs to replay the race."""
        return {
            "seed": self.limits.seed,
            "timeout": self.limits.timeout,
            "memory": self.limits.memory,
            "trials": 1,
            "solvers": [self.space.solver],
            "boards": [p.id for p in self.boards],
            "tune": {
                "space": self.space.describe(),
                "budget": self.budget.describe(),
                "goal": self.goal,
                "test_runs": self.test_runs,
                "held_out": [p.id for p in self.held_out],
            },
        }

    def block(self, number: int) -> tuple[Problem, int]:
        """The board and trial of race block ``number``."""
        return self.boards[number % len(self.boards)], number // len(self.boards)

    def held_out_block(self, number: int) -> tuple[Problem, int]:
        return self.held_out[number % len(self.held_out)], HELD_OUT_TRIAL + number // len(self.held_out)


def split_boards(problems: Sequence[Problem]) -> tuple[tuple[Problem, ...], tuple[Problem, ...], str | None]:
    """The race's boards and the held-out test's, and a note when they share instances.

    Plain sizes are shared (the held-out runs get seeds the race never used). Of three or
    more instance files, one in ``HELD_OUT_SHARE`` (by a hash of its content, stable) is set
    aside; with fewer, or when the hash leaves one side empty, both sides share them."""
    if all(p.is_plain for p in problems) or len(problems) < HELD_OUT_SHARE:
        note = None if all(p.is_plain for p in problems) else "fewer than 3 instances: held out by seeds only"
        return tuple(problems), tuple(problems), note
    aside = [p for p in problems if zlib.crc32(p.id.encode()) % HELD_OUT_SHARE == 0]
    kept = [p for p in problems if p not in aside]
    if not aside or not kept:
        return tuple(problems), tuple(problems), "the instances did not split: held out by seeds only"
    return tuple(kept), tuple(aside), None


@dataclass
class Tuning:
    """What ``nq.tune`` returns: the best configuration, its rivals, the race, and the held-out test's records."""

    setup: TuneSetup
    outcome: TuneOutcome
    race_records: dict[tuple[str, int], dict[str, Any]]
    test_records: list[dict[str, Any]] = field(default_factory=list)  # the held-out test's runs
    wall_seconds: float = 0.0
    workers: int = 1  # the runs' workers (cores) on this machine; 1 for a cluster, whose size is not ours to know
    notes: list[str] = field(default_factory=list)

    @property
    def best(self) -> str:
        """The best configuration, as a spec ``-s`` takes as it is."""
        return self.outcome.best

    @property
    def tied(self) -> list[str]:
        return list(self.outcome.tied)

    @property
    def runs(self) -> int:
        return self.outcome.runs

    @property
    def solver_seconds(self) -> float:
        return self.outcome.seconds

    @property
    def defaults(self) -> str:
        """What the best was tested against: the solver's defaults with the space's fixed options."""
        return self.setup.space.baseline

    @property
    def overhead_seconds(self) -> float:
        """Core seconds per run beyond the solver's own: the wall time times the workers, less every run's
        solver seconds, over the runs. It counts starting, sending, verifying, deciding and writing, and a
        core left idle while a block waits for its slowest run. (On a cluster, the wall time alone.)"""
        made = self.outcome.runs + len(self.test_records)
        spent = self.outcome.seconds + sum(float(r["seconds"]) for r in self.test_records)
        return max(self.wall_seconds * self.workers - spent, 0.0) / made if made else 0.0

    def held_out(self) -> HeldOut | None:
        """The best configuration against the defaults on the held-out runs (None: no test was asked for)."""
        if not self.test_records:
            return None
        return held_out(self.test_records, self.best, self.defaults, self.setup.goal, self.setup.limits.timeout)


class RunMaker:
    """Makes the runs a tune asks for, through an executor, writing each record; answers from the file first."""

    def __init__(
        self, setup: TuneSetup, backend: Executor, writer: ResultsWriter | None, known: dict[tuple[Any, ...], Any]
    ) -> None:
        self.setup = setup
        self.backend = backend
        self.writer = writer
        self.known = known  # run key -> a record from the file being resumed
        self.variants: dict[str, Variant] = {}

    def variant(self, label: str) -> Variant:
        """The variant a configuration's label names (the label is the spec ``-s`` takes)."""
        if label not in self.variants:
            made = resolve_options(self.setup.solver, parse_spec(label)[1])
            if made.label != label:  # the space and the solver must label a configuration alike
                raise AssertionError(f"{made.label} is not {label}")
            self.variants[label] = made
        return self.variants[label]

    def make(self, wanted: Sequence[tuple[Variant, Problem, int]], tag: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The records of ``wanted`` (variant, board, trial), in that order: from the file, or run now."""
        asked = [Task.solve(variant, problem, self.setup.limits, trial=trial) for variant, problem, trial in wanted]
        keys = [run_key(task) for task in asked]  # the grid's key, which ``records.run_key`` gives a record
        found = {key: self.known[key] for key in keys if key in self.known}
        tasks = list({key: task for key, task in zip(keys, asked, strict=True) if key not in found}.values())
        for task, result in self.backend.map(tasks):
            record = result.record(tune=dict(tag))
            if self.writer is not None:
                self.writer.write(record)
            found[run_key(task)] = record.to_json()  # the public ``Tuning`` gives its runs as dicts
        return [found[key] for key in keys]


def tune(
    setup: TuneSetup,
    *,
    out: ResultsFile | None = None,
    executor: Executor | None = None,
    progress: Callable[[int], None] | None = None,
    warn: Notify | None = None,
    verify_resumed: float = DEFAULT_FRACTION,
) -> Tuning:
    """Run the tune ``setup`` describes and its held-out test (module docstring); seed: ``setup.limits.seed``.
    ``verify_resumed``: the share of the resumed file's runs made again to check it (0: trust the file)."""
    started = time.monotonic()
    writer = None

    def open_writer(out: ResultsFile) -> ResultsWriter:
        opened = ResultsWriter(out.path, resume=out.resume, command=out.command, grid=setup.describe())
        for warning in opened.warnings:
            if warn is not None:
                warn(warning)
        return opened

    # the runs of a file this tune resumes, checked before it is opened for writing: a refused file is left as it was
    known = resumed_runs(out, setup) if out is not None else {}
    if out is not None and not known:
        writer = open_writer(out)  # nothing to check: refused at once if it cannot be written or is another tune's
    try:
        with given_or_local(executor, 0) as backend:
            workers = backend.jobs if isinstance(backend, LocalExecutor) else 1
            if out is not None and known:
                check_resumed(RunMaker(setup, backend, None, known), out.path, verify_resumed)
                writer = open_writer(out)
                if not writer.done:  # emptied since it was read: nothing of it answers
                    known = {}
            maker = RunMaker(setup, backend, writer, known)
            outcome, race_records = race_with(maker, setup, progress)
            test_records = held_out_test(maker, setup, outcome.best)
    finally:
        if writer is not None:
            writer.close()
    return Tuning(setup, outcome, race_records, test_records, time.monotonic() - started, workers)


def resumed_runs(out: ResultsFile, setup: TuneSetup) -> dict[tuple[Any, ...], dict[str, Any]]:
    """The tune runs of the file ``out`` resumes, by run key, read before it is opened for writing; none
    when it is not resumed, is empty or compressed, or holds another tune (``ResultsWriter`` then says why)."""
    path = out.path
    if not out.resume or not path.is_file() or path.stat().st_size == 0 or compressed(path) is not None:
        return {}
    loaded = Loaded()
    runs = {record_key(record): record for record in read_runs(path, loaded)}
    if grid_difference(loaded.headers, runs, setup.describe()):
        return {}
    # As dicts: they stand in the tune's records (``Tuning``, public) for runs made now, which are dicts.
    return {key: record.to_json() for key, record in runs.items() if "tune" in record}


def run_named(record: Mapping[str, Any]) -> str:
    """A kept run as a message names it: its configuration, board, trial and seed."""
    board = instance_label(record) or f"n = {record.get('n')}"
    return f"the run of {record.get('solver')} on {board}, trial {record.get('trial')}, seed {record.get('seed')}"


def check_resumed(maker: RunMaker, path: Path, fraction: float) -> None:
    """Refuse (``RejectedFile``) a resumed file whose runs cannot be what the tune made: iterations or seconds
    that are no run's (always), or a sample of its runs, ``fraction`` of them, that made again come out otherwise."""
    setup = maker.setup
    for record in maker.known.values():
        absurd = absurd_numbers(record, setup.limits.timeout)
        if absurd is not None:
            raise RejectedFile(
                f"{str(path)!r}: {run_named(record)}: {absurd}, so the file was changed since the tune wrote it "
                "and nothing of it is used; tune again with another --out"
            )
    boards = {problem.id: problem for problem in (*setup.boards, *setup.held_out)}
    runs: list[tuple[Task[Any], dict[str, Any]]] = []
    for key, record in maker.known.items():
        label, _, instance, trial, seed = key
        if instance not in boards or seed != setup.limits.seed:
            continue  # a run this tune never asks for: never used, so never checked
        try:
            variant = maker.variant(label)
        except (BadInput, AssertionError):
            continue  # a configuration this solver does not label so: never asked for either
        runs.append((Task.solve(variant, boards[instance], setup.limits, trial=trial), record))
    chosen = draw_sample(range(len(runs)), fraction)
    if not chosen:
        return
    kept = {run_key(runs[i][0]): runs[i][1] for i in chosen}
    for task, result in maker.backend.map([runs[i][0] for i in chosen]):
        again = result.record()
        record = kept[run_key(task)]
        differs = run_mismatch(record, again, setup.limits.timeout, deterministic=builtin(task.variant))
        if differs is not None:
            raise RejectedFile(f"{str(path)!r}: {run_named(record)} says {differs}, " + REFUSED)


def builtin(variant: Variant) -> bool:
    """Whether a configuration's solver is a built-in one: seeded, it takes the same steps on any machine."""
    return type(variant.solver).__module__.startswith("nqueens_plugins.builtin.")


REFUSED = (
    "so the file was changed since the tune wrote it and nothing of it is used; tune again with another "
    "--out, or --verify-resumed 0 (verify_resumed=0) to trust its runs as they are"
)


def race_with(
    maker: RunMaker, setup: TuneSetup, progress: Callable[[int], None] | None
) -> tuple[TuneOutcome, dict[tuple[str, int], dict[str, Any]]]:
    """Drive the iterated race to its end, making each run it asks for."""
    machine = iterated_race(setup.space, setup.budget, setup.limits.seed)
    records: dict[tuple[str, int], dict[str, Any]] = {}
    try:
        wanted = next(machine)
        while True:
            runs = [(maker.variant(label), *setup.block(block)) for label, block in wanted]
            made = maker.make(runs, {"phase": "race"})
            answers = {}
            for (label, block), record in zip(wanted, made, strict=True):
                records[(label, block)] = record
                answers[(label, block)] = RunCost(run_cost(record, setup.goal), float(record["seconds"]))
            if progress is not None:
                progress(len(records))
            wanted = machine.send(answers)
    except StopIteration as stop:
        return stop.value, records


def held_out_test(maker: RunMaker, setup: TuneSetup, best: str) -> list[dict[str, Any]]:
    """The best configuration and the defaults (with the space's fixed options), each on ``test_runs``
    held-out blocks."""
    if setup.test_runs == 0:
        return []
    defaults = maker.variant(setup.space.baseline)
    champion = maker.variants[best]
    wanted = []
    for number in range(setup.test_runs):
        problem, trial = setup.held_out_block(number)
        wanted.extend([(champion, problem, trial), (defaults, problem, trial)])
    return maker.make(wanted, {"phase": "test"})


def read_tune_header(path: Path) -> Mapping[str, Any] | None:
    """The tune description in a results file's first header, or None when the file holds no tune. Reads
    only as far as the first run (a tune writes its header first; a resume repeats it, checked equal)."""
    loaded = Loaded()
    for _ in scan_records(path, loaded):
        break  # the generator, dropped here, closes the file
    grid = loaded.headers[0].get("grid") if loaded.headers else None
    return grid if isinstance(grid, dict) and isinstance(grid.get("tune"), dict) else None
