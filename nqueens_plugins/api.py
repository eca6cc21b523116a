"""API layer, parent side: the one front door. User arguments become a Problem, a run, a grid here.

``import nqueens_plugins as nq`` and the ``nqueens`` command both call these
functions, so a rule about how a run is made (what a size may be, which limit
applies, which executor runs it) is written once. Arguments may be Python
values or the text a command line gives (``"8"``, ``"0:2,3:1"``); every
failure the user can fix is a ``BadInput`` with one line to show.

The CLI adds only what a terminal needs, through keyword hooks: an executor of
its choosing, progress callbacks, and notes to print.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import Problem
from nqueens_plugins.core.solver import Solver, Variant
from nqueens_plugins.execution.judge import CountResult, Result
from nqueens_plugins.execution.service import Executor, LocalExecutor, shared_executor
from nqueens_plugins.execution.tasks import PREPARE_TIMEOUT, Executed, Task, check_countable
from nqueens_plugins.formats import inputs
from nqueens_plugins.formats import instances as instance_files
from nqueens_plugins.formats.output_files import check_output
from nqueens_plugins.loading import host
from nqueens_plugins.loading.registry import Registration
from nqueens_plugins.loading.session import SessionSolver
from nqueens_plugins.results.crosscheck import (
    Check,
    InstanceCheck,
    cross_check_instances,
    cross_check_sizes,
    read_expected,
)
from nqueens_plugins.results.grid import DEFAULT_TIMEOUT, Grid, stream
from nqueens_plugins.views.animate import Animation
from nqueens_plugins.views.summary import Summary

CROSS_CHECK_TIMEOUT = 10.0
Notify = Callable[[str], None]  # hears "warning: ..." and "note: ..." lines meant for the user


def solvers() -> list[Registration]:
    """Every registered solver, with the plugin and distribution that supplied it."""
    return list(host.registry())


def register(solver: Solver) -> SessionSolver:
    """Make ``solver`` (an instance of a ``Solver`` subclass, defined anywhere: a notebook cell, a script)
    usable by name in this process: solve, count, compare, cross-check and the contract kit find it, and it
    runs isolated in a worker like any plugin (sent by value, so a class from ``__main__`` works there).

    The rules are an installed plugin's: a name already taken is refused, as is a solver that cannot be sent
    to a worker, with one ``BadInput`` line. ``with nq.register(MySolver()):`` unregisters it at the end.
    """
    return host.register(solver)


def unregister(solver: str | Solver) -> None:
    """Withdraw a solver ``register`` added, by name or as the object."""
    host.unregister(solver)


def variant(solver: str | Variant, **options: Any) -> Variant:
    """The variant ``solver`` names (``"NAME[key=value,...]"``, options also as keywords), loading only the
    plugins that supply it."""
    if isinstance(solver, Variant):
        if options:
            raise BadInput("give options in the solver's name or as keywords, not to a resolved variant")
        return solver
    spec = inputs.solver_spec(solver)
    return host.registry_for_specs([spec]).variant(spec, **options)


def files_read(problems: Iterable[Problem]) -> list[Path]:
    """The instance files the problems came from (``FILE@d`` names FILE): never to be written over."""
    found = []
    for problem in problems:
        if problem.source:
            whole = Path(problem.source)
            found.append(whole if whole.exists() else Path(problem.source.rpartition("@")[0] or problem.source))
    return found


def variants(solvers: str | Sequence[str]) -> list[Variant]:
    """The variants of ``"all"``, ``"a,b[x=1|2]"`` or a list of specs (a sweep ``x=1|2`` stands for each value)."""
    if not isinstance(solvers, str):
        solvers = [inputs.solver_spec(spec) for spec in solvers]
    return host.registry_for_specs(solvers).variants(solvers)


def problem_of(
    n: int | str | Problem | None = None,
    instance: str | None = None,
    fixed: Mapping[int, int] | str | None = None,
    blocked: Iterable[Any] | str | None = None,
) -> Problem:
    """The board a call names: a size (with fixed queens and blocked squares), a Problem, or an instance file.

    ``fixed`` and ``blocked`` given with an instance are added to its own; ``n``
    given with one must match it. Text is read as the command line writes it:
    ``"0:2,3:1"`` (column:row, 0-based).
    """
    if isinstance(fixed, str):
        fixed = inputs.parse_fixed(fixed)
    if isinstance(blocked, str):
        blocked = inputs.parse_blocked(blocked)
    if isinstance(n, Problem):
        if fixed or blocked or instance:
            raise BadInput("give a Problem, or n with fixed and blocked, or an instance file; not several")
        return n
    if instance is not None:
        problem = instance_files.load_one(instance)
        if n is not None and inputs.parse_size(n) != problem.n:
            raise BadInput(f"-n {n} does not match the instance's n = {problem.n}")
        if not fixed and not blocked:
            return problem
        return inputs.make_problem(
            problem.n,
            {**problem.fixed, **(fixed or {})},
            set(problem.blocked) | set(map(tuple, blocked or ())),
            source=problem.source,
        )
    if n is None:
        raise BadInput("give a board size (-n N) or an instance file (--instance FILE)")
    return inputs.make_problem(n, fixed, blocked or ())


def executor_for(kind: str = "local", scheduler: str | None = None, jobs: int = 0) -> Executor:
    """A backend by name: ``local`` worker processes (``jobs`` of them, 0: one per core) or a ``dask`` cluster."""
    if kind == "dask":
        from nqueens_plugins.execution.dask_cluster import DaskExecutor

        return DaskExecutor(scheduler)
    if kind != "local":
        raise BadInput(f"executor is local or dask, not {kind!r}")
    if scheduler:
        raise BadInput("--scheduler goes with --executor dask")
    return LocalExecutor(jobs)


def solve(
    solver: str | Variant,
    n: int | str | Problem | None = None,
    *,
    instance: str | None = None,
    seed: int | None = None,
    timeout: float | None = None,
    fixed: Mapping[int, int] | str | None = None,
    blocked: Iterable[tuple[int, int]] | str | None = None,
    max_iterations: int | None = None,
    trial: int = 0,
    isolate: bool = True,
    memory: int | str | None = None,
    trace: bool | str | Path = False,
    executor: Executor | None = None,
    prepare_timeout: float = PREPARE_TIMEOUT,
    **options: Any,
) -> Result:
    """Solve one board and return the verified result.

    The board is ``n`` (with ``fixed`` queens, column -> row, and ``blocked``
    (column, row) squares), a ``Problem``, or ``instance="FILE"`` (any format of
    ``nqueens_plugins.formats.instances``, ``FILE@d`` for excluded diagonals).
    ``solver`` may carry options (``"simulated-annealing[cooling=0.99]"``) or take
    them as keywords (``cooling=0.99``). ``seed`` None means 0, as on the command
    line, so the same call gives the same answer. Raises BadInput for anything the
    user can fix. The result's ``verified`` is True only when the verifier checked
    the answer; ``status`` is ``invalid`` when it rejected it.

    The solver runs in a warm worker process of the execution service (kept for
    the next call; or ``executor``'s), so a hang is killed at ``timeout`` and a
    crash is a result, not the end of your program. Preparing the solver there
    (importing its plugin, its warm-up) is not timed; it has its own limit,
    ``prepare_timeout`` seconds, and is reported as ``result.prepare_seconds``. ``isolate=False`` calls it in
    this process instead (no protection; for trusted solvers on small boards).

    ``trace=True`` records every step in ``result.trace`` (boards up to 64 and
    solvers that trace: every built-in does); a path also writes the trace file
    that ``nqueens animate`` reads (nothing is written when no trace came back:
    the run was killed or its worker died).
    """
    chosen = variant(solver, **options)
    problem = problem_of(n, instance, fixed, blocked)
    seed = inputs.whole_number(seed or 0, "seed")
    trial = inputs.whole_number(trial, "trial", minimum=0)
    timeout = inputs.time_limit(timeout)
    prepare = inputs.preparation_limit(prepare_timeout)
    if max_iterations is not None:
        max_iterations = inputs.whole_number(max_iterations, "max_iterations", minimum=1)
    trace_file = Path(trace) if isinstance(trace, (str, Path)) else None
    if trace_file is not None:
        check_output(trace_file, "a trace", reading=files_read([problem]), flag="--trace")
    traced = trace is not False and trace is not None
    limits: dict[str, Any] = {
        "seed": seed,
        "trial": trial,
        "timeout": timeout,
        "max_iterations": max_iterations,
        "trace": traced,
    }
    if isolate:
        limit = None if memory is None else inputs.parse_memory(memory)
        task = Task.solve(chosen, problem, memory=limit, prepare_timeout=prepare, **limits)
        result = (executor or shared_executor()).run(task)
    else:
        from nqueens_plugins.execution.inprocess import run

        result = run(chosen, problem, **limits)
    assert isinstance(result, Result)
    if trace_file is not None and result.trace is not None:
        from nqueens_plugins.views.animate import write_trace

        write_trace(result, trace_file)
    return result


def count(
    solver: str | Variant,
    n: int | str | Problem | None = None,
    *,
    instance: str | None = None,
    unique: bool = False,
    timeout: float | None = None,
    fixed: Mapping[int, int] | str | None = None,
    blocked: Iterable[tuple[int, int]] | str | None = None,
    isolate: bool = True,
    memory: int | str | None = None,
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
    prepare_timeout: float = PREPARE_TIMEOUT,
    out: str | Path | None = None,
    resume: bool = False,
    **options: Any,
) -> CountResult:
    """Count all solutions with a complete solver, checked against OEIS where known (plain boards).

    Isolated like ``solve`` unless ``isolate=False``. With ``progress(done,
    total)``, the count is split into the pieces the solver offers and counted by
    all of ``executor``'s workers (a Dask executor always splits), and
    ``progress`` hears each piece come back. With ``out``, it is split too and
    each finished piece is kept in that file as it ends; ``resume=True`` then
    counts only the pieces the file does not hold (a stopped count continues).
    """
    chosen = variant(solver, **options)
    problem = problem_of(n, instance, fixed, blocked)
    timeout = inputs.time_limit(timeout)
    if resume and out is None:
        raise BadInput("resume continues the count kept in out: give out too")
    if out is not None:
        from nqueens_plugins.formats.count_pieces import KIND as PIECES_KIND
        from nqueens_plugins.formats.count_pieces import check_pieces_file

        check_output(Path(out), PIECES_KIND, reading=files_read([problem]), flag="--out")
        check_pieces_file(Path(out), resume)  # before any work, like every --out
    if not isolate:
        if out is not None:
            raise BadInput("a count kept piece by piece in out runs isolated: leave isolate on")
        from nqueens_plugins.execution.inprocess import count as count_here

        return count_here(chosen, problem, unique=unique, timeout=timeout)
    limit = None if memory is None else inputs.parse_memory(memory)
    prepare = inputs.preparation_limit(prepare_timeout)
    task = Task.count(chosen, problem, unique=unique, timeout=timeout, memory=limit, prepare_timeout=prepare)
    backend = executor or shared_executor()
    if progress is not None or out is not None:
        from nqueens_plugins.execution.counting import count_in_parts

        return count_in_parts(backend, task, progress, out, resume)
    result = backend.run(task)
    assert isinstance(result, CountResult)
    return result


def count_seconds(
    solver: str | Variant,
    n: int | str | Problem | None = None,
    *,
    instance: str | None = None,
    unique: bool = False,
    fixed: Mapping[int, int] | str | None = None,
    blocked: Iterable[tuple[int, int]] | str | None = None,
    **options: Any,
) -> float | None:
    """About how many seconds ``count`` would take on this machine, by the solver's own estimate (None
    when it cannot tell); refuses what ``count`` would refuse. ``bitboard`` samples its search (a second
    or a few), so a count of days can be declined before it starts."""
    chosen = variant(solver, **options)
    problem = problem_of(n, instance, fixed, blocked)
    check_countable(chosen, problem, unique)
    return chosen.solver.count_seconds(problem, chosen.options)


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
    fixed: Mapping[int, int] | str | None = None,
    instances: Sequence[str] | str | Sequence[Problem] = (),
    keep_queens: bool = False,
    blocked: Iterable[tuple[int, int]] | str | None = None,
    stream_records: bool = False,
    executor: Executor | None = None,
    memory: int | str | None = None,
    command: str | None = None,
    planned: Callable[[int], None] | None = None,
    notify: Notify | None = None,
    prepare_timeout: float = PREPARE_TIMEOUT,
) -> Any:
    """Compare solvers over sizes and trials; a list of records, or an iterator with ``stream_records``.

    ``solvers`` is a list of ``NAME[key=value,...]`` (or one comma-separated
    string, or ``"all"``: then each solver is left out where it cannot run);
    ``sizes`` a list of ints or a string like ``"4..40:4"``; ``instances``
    instead of sizes: files, globs or folders (``"hard/*.param"``,
    ``"diag-12.param@5"``; see ``nqueens_plugins.formats.instances``) or Problems.
    ``out`` appends each record to a results file as it ends; ``resume``
    continues one. ``planned(count)`` hears how many runs will be made;
    ``notify(line)`` hears warnings and notes (default: Python warnings).
    """
    chosen = variants(solvers)
    trials = inputs.whole_number(trials, "trials", minimum=1)
    seed = inputs.whole_number(seed, "seed")
    jobs = inputs.whole_number(jobs, "jobs", minimum=0)
    timeout = inputs.time_limit(timeout)
    if isinstance(fixed, str):
        fixed = inputs.parse_fixed(fixed)
    if isinstance(blocked, str):
        blocked = inputs.parse_blocked(blocked)
    problems = problems_of(instances) if instances else []
    size_list = inputs.parse_sizes(sizes) if isinstance(sizes, str) else [inputs.parse_size(n) for n in sizes]
    if problems and size_list:
        raise BadInput("give sizes or instances, not both")
    if problems and (fixed or blocked):
        raise BadInput("--fixed and --blocked go with -n; an instance file carries its own")
    if resume and not out:
        raise BadInput("--resume needs --out FILE (from Python: resume=True needs out=)")
    if out:
        check_output(Path(out), "a results file", reading=files_read(problems), flag="--out")
    everything = isinstance(solvers, str) and solvers.strip() == "all"
    tell = notify or python_warning
    if everything:
        say_what_failed_to_load(tell)
    grid = Grid(
        chosen,
        size_list,
        trials,
        seed,
        timeout,
        dict(fixed or {}),
        problems,
        blocked=frozenset(map(tuple, blocked or ())),  # type: ignore[arg-type]
        memory=None if memory is None else inputs.parse_memory(memory),
        skip_refused=everything,
        prepare_timeout=inputs.preparation_limit(prepare_timeout),
    )
    records = stream(
        grid,
        jobs=jobs,
        out=Path(out) if out else None,
        resume=resume,
        keep_queens=keep_queens,
        command=command,
        executor=executor,
        planned=planned,
        warn=lambda text: tell(f"warning: {text}"),
    )
    records = with_skipped_noted(records, grid, tell)
    return records if stream_records else list(records)


def say_what_failed_to_load(tell: Notify) -> None:
    """A warning for each installed plugin that failed to load: "all" cannot include its solvers, and a
    comparison or cross-check that silently lacks them would look complete."""
    for error in host.registry().load_errors:
        tell(f"warning: {error.source.describe()} failed to load, so its solvers are left out: {error.message}")


def with_skipped_noted(records: Iterator[dict[str, Any]], grid: Grid, tell: Notify) -> Iterator[dict[str, Any]]:
    """The records, then a note for each solver the grid left out where it cannot run."""
    yield from records
    for label, reason in grid.skipped.items():
        tell(f"note: {label} left out where it cannot run: {reason}")


def cross_check(
    solvers: str | Sequence[str] | None = None,
    sizes: Sequence[int] | str = "1..12",
    *,
    seed: int = 0,
    timeout: float | None = CROSS_CHECK_TIMEOUT,
    memory: int | str | None = None,
    executor: Executor | None = None,
    prepare_timeout: float = PREPARE_TIMEOUT,
    notify: Notify | None = None,
) -> list[Check]:
    """Every solver (default: all) on each n: counts against OEIS and each other, boards verified,
    no-solution claims against the counts. A timed-out answer is inconclusive, not a disagreement.
    ``notify`` gets the warnings (default: Python warnings), such as a plugin that failed to load."""
    if solvers is None or (isinstance(solvers, str) and solvers.strip() == "all"):
        say_what_failed_to_load(notify or python_warning)
    return cross_check_sizes(
        variants(solvers or "all"),
        inputs.parse_sizes(sizes) if isinstance(sizes, str) else list(sizes),
        seed=inputs.whole_number(seed, "seed"),
        timeout=inputs.time_limit(timeout),
        executor=executor,
        memory=None if memory is None else inputs.parse_memory(memory),
        prepare_timeout=inputs.preparation_limit(prepare_timeout),
    )


def cross_check_files(
    files: str | Sequence[str] | Sequence[Problem],
    solvers: str | Sequence[str] | None = None,
    *,
    expected: str | None = None,
    counting: bool = False,
    seed: int = 0,
    timeout: float | None = CROSS_CHECK_TIMEOUT,
    memory: int | str | None = None,
    executor: Executor | None = None,
    prepare_timeout: float = PREPARE_TIMEOUT,
    notify: Notify | None = None,
) -> tuple[list[InstanceCheck], dict[str, str]]:
    """Decide every instance with every solver that takes it (default: every complete one), optionally count
    it too, and judge the answers against each other and the published ones (``expected``, a CSPLib results
    file). Returns the checks and the solvers skipped (label -> why). ``notify`` gets the warnings."""
    if solvers is None or (isinstance(solvers, str) and solvers.strip() == "all"):
        say_what_failed_to_load(notify or python_warning)
    chosen = variants(solvers or "all")
    if solvers is None:
        chosen = [v for v in chosen if v.complete]
    return cross_check_instances(
        chosen,
        problems_of(files),
        seed=inputs.whole_number(seed, "seed"),
        timeout=inputs.time_limit(timeout),
        counting=counting,
        expected=read_expected(expected) if expected else None,
        executor=executor,
        memory=None if memory is None else inputs.parse_memory(memory),
        prepare_timeout=inputs.preparation_limit(prepare_timeout),
    )


EXPORT_TIMEOUT = 60.0  # seconds a plugin may take to write an instance out


def exporters(format: str) -> list[str]:
    """The installed solvers that write ``format`` (``Solver.exports``), by name."""
    return sorted(r.solver.name for r in host.registry() if format in getattr(r.solver, "exports", ()))


def export(
    format: str,
    n: int | str | Problem | None = None,
    *,
    instance: str | None = None,
    solver: str | Variant | None = None,
    fixed: Mapping[int, int] | str | None = None,
    blocked: Iterable[tuple[int, int]] | str | None = None,
    timeout: float | None = EXPORT_TIMEOUT,
    memory: int | str | None = None,
    prepare_timeout: float = PREPARE_TIMEOUT,
    executor: Executor | None = None,
) -> tuple[str, str]:
    """An instance written in ``format``, as the solver that poses it to its library does: (text, solver label).

    ``json`` is the host's own instance format; any other is a plugin's
    (``dimacs`` for SAT, ``asp``, ``dzn``, ``mps``, ``smt2``): the one solver that
    exports it, or ``solver`` (required where several do). The plugin writes it in a worker
    process, as every plugin call runs; its answer must be text.
    """
    problem = problem_of(n, instance, fixed, blocked)
    if format == "json":
        return json.dumps(instance_files.to_json(problem)) + "\n", "nqueens-plugins"
    if solver is None:
        offering = exporters(format)
        if not offering:
            raise BadInput(f"no installed solver exports {format}; its family's plugin is under plugins/")
        if len(offering) > 1:
            raise BadInput(f"{', '.join(offering)} export {format}: say whose encoding with -s")
        solver = offering[0]
    chosen = variant(solver)
    task = Task.export(
        chosen,
        problem,
        format,
        timeout=inputs.time_limit(timeout),
        memory=None if memory is None else inputs.parse_memory(memory),
        prepare_timeout=inputs.preparation_limit(prepare_timeout),
    )
    executed = (executor or shared_executor()).run(task)
    assert isinstance(executed, Executed)
    if executed.error is not None:
        raise ExportFailed(f"{chosen.label} could not export {problem.label} as {format}: {executed.error}")
    if not isinstance(executed.outcome, str):
        raise ExportFailed(f"{chosen.label} exported {type(executed.outcome).__name__}, not text")
    return executed.outcome, chosen.label


class ExportFailed(Exception):
    """A plugin's export failed: its fault, not the user's (exit status 1, not 2)."""


def problems_of(files: str | Sequence[str] | Sequence[Problem]) -> list[Problem]:
    """Instance files (names, globs, folders; ``FILE@d``) read, or Problems as they are."""
    if isinstance(files, str) or not files or not isinstance(files[0], Problem):
        return instance_files.load(files)  # type: ignore[arg-type]
    return list(files)  # type: ignore[arg-type]


def animation(run: Result | str | Path) -> Animation:
    """A traced run's steps as the ``nqueens animate`` player: a notebook shows it, ``save(path)`` writes it
    (``.html``, ``.svg``, ``.gif``). ``run`` is a result of ``solve(..., trace=True)`` or a trace file."""
    from nqueens_plugins.views.animate import read_trace, trace_document

    if isinstance(run, (str, Path)):
        return Animation(read_trace(Path(run)))
    if getattr(run, "trace", None) is None:
        raise BadInput("this run was not traced: solve it with trace=True (boards up to 64, a solver that traces)")
    return Animation(trace_document(run))


def summary(records: str | Path | Iterable[Mapping[str, Any]], baseline: str | None = None) -> Summary:
    """What ``nqueens report`` prints, as one object: one row per solver variant and board, and with
    ``baseline`` (a solver variant in the records) every other one against it (ERT ratio with its
    interval, Mann-Whitney U; needs scipy). ``records`` is a results file or what ``compare`` returned.
    A notebook shows it as tables; ``summary(...).figure()`` is the ``nqueens plot`` figure.
    """
    from nqueens_plugins.results.statistics import require_scipy
    from nqueens_plugins.results.summary import baseline_rows, group_runs, summary_rows

    if baseline is not None:
        require_scipy("a baseline")
    warnings: list[str] = []
    groups, notes = group_runs(read_records_of(records, warnings))
    if not groups:
        raise BadInput("no runs to summarise")
    against = baseline_rows(groups, baseline) if baseline is not None else []
    return Summary(summary_rows(groups), baseline, against, warnings + notes, groups)


def read_records_of(
    records: str | Path | Iterable[Mapping[str, Any]], warnings: list[str] | None = None
) -> Iterable[Mapping[str, Any]]:
    """The run records of a results file (each with its time limit), or the given records as they are;
    ``warnings`` hears what the file reader skipped (a line cut short, a line that is not a record)."""
    if isinstance(records, (str, Path)):
        from nqueens_plugins.formats.records import Loaded, scan_records, with_time_limits

        loaded = Loaded()
        read = list(with_time_limits(scan_records(Path(records), loaded), loaded))
        if warnings is not None:
            warnings.extend(loaded.warnings)
        return read
    return records


def records_frame(records: str | Path | Iterable[Mapping[str, Any]]) -> Any:
    """A comparison's records as a pandas DataFrame: one row per run, counters as ``counters.NAME`` columns.

    ``records`` is a results file (written by ``compare --out``) or the records
    ``compare`` returned. pandas is optional: ``pip install pandas``.
    """
    try:
        import pandas
    except ImportError:
        raise BadInput("records_frame needs pandas: pip install pandas") from None
    return pandas.json_normalize([dict(record) for record in read_records_of(records)], max_level=1)


def python_warning(text: str) -> None:
    warnings.warn(text, stacklevel=4)
