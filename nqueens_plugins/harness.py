"""The harness: a grid of runs (solvers x sizes x trials) in isolated, reused worker processes.

Why worker processes: a plugin may raise, loop forever ignoring its budget,
call ``os._exit`` or crash the interpreter. Each run therefore happens in a
worker process that is reused for the next run (starting a process costs more
than a fast run) and replaced when it dies or is killed:

* a run past its time limit (plus ``KILL_GRACE``) is killed from outside, with
  its whole process group, and recorded ``timed-out``;
* a worker that dies (an ``os._exit``, a segfault) gives a record with status
  ``error`` and the exit status or signal;
* whatever comes back is verified here, in the parent: an answer the verifier
  rejects is recorded ``invalid``, never counted as solved.

Records are dicts (the JSON lines of ``records.py``), written and flushed as
each run ends. Every run's seed is derived from (seed, solver, n, trial), so
the same grid gives the same records whatever the number of jobs.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from nqueens_plugins.errors import BadInput
from nqueens_plugins.problem import Budget, Problem
from nqueens_plugins.records import ResultsWriter, now
from nqueens_plugins.run import Executed, Result, check_runnable, execute, judge
from nqueens_plugins.solver import Variant

DEFAULT_TIMEOUT = 10.0
KILL_GRACE = 0.5  # seconds past the time limit before a run is killed from outside
ORPHAN_CHECK_SECONDS = 0.5
START_METHOD = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


@dataclass(frozen=True)
class RunSpec:
    variant: Variant
    problem: Problem
    trial: int
    seed: int

    def key(self) -> tuple[Any, ...]:
        return (self.variant.label, self.problem.n, self.problem.id, self.trial, self.seed)


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
    timeout: float = DEFAULT_TIMEOUT
    fixed: Mapping[int, int] = field(default_factory=dict)
    instances: Sequence[Problem] = ()

    def problems(self) -> list[Problem]:
        from nqueens_plugins.inputs import make_problem

        if self.instances:
            return list(self.instances)
        if not self.sizes:
            raise BadInput("no board sizes or instances given")
        return [make_problem(n, self.fixed) for n in self.sizes]

    def runs(self) -> list[RunSpec]:
        if self.trials < 1:
            raise BadInput(f"--trials must be at least 1, not {self.trials}")
        if not self.variants:
            raise BadInput("no solvers given")
        specs: list[RunSpec] = []
        for problem in self.problems():
            for variant in self.variants:
                check_runnable(variant, problem)
            for trial in range(self.trials):
                specs.extend(RunSpec(v, problem, trial, self.seed) for v in self.variants)
        return specs


# --- worker processes ----------------------------------------------------------


def exit_when_orphaned(parent: int) -> None:
    """Leave as soon as the harness process is gone (even after kill -9), so that a hung
    plugin is never left running. A thread, because the worker's own parent is the
    fork server, not the harness."""

    def watch() -> None:
        while True:
            time.sleep(ORPHAN_CHECK_SECONDS)
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:
                pass

    threading.Thread(target=watch, name="orphan-watch", daemon=True).start()


def worker_main(connection: Connection, parent: int) -> None:
    """Run jobs until told to stop. In its own process group, so a kill takes its children too."""
    os.setpgrp()
    exit_when_orphaned(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    while True:
        try:
            job = connection.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        variant, problem, seed, trial, timeout = job
        executed = execute(variant, problem, seed, trial, Budget(timeout))
        try:
            connection.send(executed)
        except Exception as exc:  # noqa: BLE001 - e.g. a result that cannot be pickled
            connection.send(Executed(None, executed.seconds, f"result could not be sent back: {exc}"))


class Worker:
    def __init__(self, context: Any) -> None:
        self.connection, child = context.Pipe()
        self.process = context.Process(target=worker_main, args=(child, os.getpid()), daemon=False)
        self.process.start()
        child.close()
        self.spec: RunSpec | None = None
        self.started = 0.0

    def submit(self, spec: RunSpec, timeout: float) -> None:
        self.spec = spec
        self.started = time.perf_counter()
        self.connection.send((spec.variant, spec.problem, spec.seed, spec.trial, timeout))

    def kill_group(self) -> None:
        """SIGKILL the worker's process group: the worker and anything a plugin started."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def kill(self) -> None:
        self.kill_group()
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)
        self.connection.close()

    def stop(self) -> None:
        try:
            self.connection.send(None)
        except (OSError, BrokenPipeError):
            pass
        self.process.join(timeout=1)
        if self.process.is_alive():
            self.kill()
        else:
            self.kill_group()  # children a plugin left behind
            self.connection.close()


def death_message(process: Any) -> str:
    code = process.exitcode
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"worker process crashed ({name})"
    return f"worker process exited with status {code}"


def execute_isolated(specs: Sequence[RunSpec], jobs: int, timeout: float) -> Iterator[Result]:
    """Run ``specs`` across ``jobs`` worker processes; yield each verified result as it ends."""
    context = multiprocessing.get_context(START_METHOD)
    if START_METHOD == "forkserver":
        context.set_forkserver_preload(["nqueens_plugins.run"])
    pending = deque(specs)
    workers = [Worker(context) for _ in range(max(1, min(jobs, len(specs))))]
    idle = list(workers)
    busy: dict[Connection, Worker] = {}
    try:
        while pending or busy:
            while pending and idle:
                worker = idle.pop()
                try:
                    worker.submit(pending[0], timeout)
                except (OSError, BrokenPipeError):
                    worker.kill()
                    idle.append(Worker(context))
                    continue
                pending.popleft()
                busy[worker.connection] = worker
            deadline = min(w.started + timeout + KILL_GRACE for w in busy.values())
            waits = list(busy) + [w.process.sentinel for w in busy.values()]
            ready = wait(waits, timeout=max(0.0, deadline - time.perf_counter()))
            for worker in list(busy.values()):
                spec = worker.spec
                assert spec is not None
                elapsed = time.perf_counter() - worker.started
                reusable = False
                if worker.connection in ready or worker.process.sentinel in ready:
                    try:
                        executed = worker.connection.recv()
                        executed.seconds = elapsed  # the harness's clock, not the plugin's
                        reusable = True
                    except (EOFError, OSError):
                        worker.process.join(timeout=1)
                        executed = Executed(None, elapsed, death_message(worker.process))
                    result = judge(spec.variant, spec.problem, spec.seed, spec.trial, executed)
                elif elapsed >= timeout + KILL_GRACE:
                    result = killed_result(spec, elapsed, timeout)
                else:
                    continue
                busy.pop(worker.connection)
                if not reusable:
                    worker.kill()
                    worker = Worker(context)
                idle.append(worker)
                yield result
    finally:
        for worker in idle:
            worker.stop()
        for worker in busy.values():
            worker.kill()


def killed_result(spec: RunSpec, elapsed: float, timeout: float) -> Result:
    return Result(
        solver=spec.variant.label, name=spec.variant.name, options=dict(spec.variant.given), problem=spec.problem,
        seed=spec.seed, trial=spec.trial, status="timed-out", verified=None,
        reason=f"killed after {elapsed:.2f} s: still running {KILL_GRACE} s past its {timeout:g} s limit",
        queens=None, seconds=elapsed,
    )  # fmt: skip


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
    progress: bool = False,
    command: str | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield one record per run as it finishes, appending each to ``out`` first.

    With ``resume``, runs already in ``out`` are not run again and are not yielded.
    """
    from nqueens_plugins import host

    specs = grid.runs()
    writer = ResultsWriter(out, resume=resume, command=command) if out else None
    if writer:
        for warning in writer.warnings:
            print(f"nqueens: warning: {warning}", file=sys.stderr)
        specs = [s for s in specs if s.key() not in writer.done]
    sources = {r.solver.name: r.source for r in host.registry()}
    jobs = jobs or os.cpu_count() or 1
    bar = Progress(len(specs)) if progress and specs else None
    try:
        for result in execute_isolated(specs, jobs, grid.timeout):
            record = to_record(result, sources, keep_queens)
            if writer:
                writer.write(record)
            if bar:
                bar.advance(record)
            yield record
    finally:
        if bar:
            bar.close()
        if writer:
            writer.close()


def run_grid(grid: Grid, **kwargs: Any) -> list[dict[str, Any]]:
    """All records of a comparison (see ``stream``)."""
    return list(stream(grid, **kwargs))


class Progress:
    """A live progress bar on stderr (rich), with the count of runs that did not solve."""

    def __init__(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress as RichProgress, TextColumn, TimeElapsedColumn

        self._progress = RichProgress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TextColumn("{task.fields[latest]}"), console=Console(stderr=True), transient=True,
        )  # fmt: skip
        self._task = self._progress.add_task("runs", total=total, latest="")
        self._progress.start()

    def advance(self, record: Mapping[str, Any]) -> None:
        latest = f"{record['solver']} n={record['n']}: {record['status']}"
        self._progress.update(self._task, advance=1, latest=latest)

    def close(self) -> None:
        self._progress.stop()


def compare(
    solvers: Sequence[str] | str,
    sizes: Sequence[int] | str = (),
    trials: int = 1,
    *,
    seed: int = 0,
    timeout: float = DEFAULT_TIMEOUT,
    jobs: int = 0,
    out: str | Path | None = None,
    resume: bool = False,
    fixed: Mapping[int, int] | None = None,
    instances: Sequence[str] | str | Sequence[Problem] = (),
    keep_queens: bool = False,
    stream_records: bool = False,
) -> Any:
    """Compare solvers over sizes and trials; a list of records, or an iterator with ``stream_records``.

    ``solvers`` is a list of ``NAME[key=value,...]`` (or one comma-separated
    string, or ``"all"``); ``sizes`` a list of ints or a string like ``"4..40:4"``;
    ``instances`` instead of sizes: files, globs or folders (``"hard/*.param"``,
    ``"diag-12.param@5"``; see ``nqueens_plugins.instances``) or Problems.
    """
    from nqueens_plugins import host, inputs
    from nqueens_plugins import instances as instance_files

    problems: list[Problem] = []
    if isinstance(instances, str) or (instances and not isinstance(instances[0], Problem)):
        problems = instance_files.load(instances)  # type: ignore[arg-type]
    elif instances:
        problems = list(instances)  # type: ignore[arg-type]
    size_list = inputs.parse_sizes(sizes) if isinstance(sizes, str) else [inputs.parse_size(n) for n in sizes]
    if problems and size_list:
        raise BadInput("give sizes or instances, not both")
    grid = Grid(host.registry().variants(solvers), size_list, trials, seed, timeout, dict(fixed or {}), problems)
    records = stream(grid, jobs=jobs, out=Path(out) if out else None, resume=resume, keep_queens=keep_queens)
    return records if stream_records else list(records)
