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

import dataclasses
import functools
import inspect
import json
import os
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, Unpack

from nqueens_plugins.core.certificate_status import CertificateStatus
from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.limits import DEFAULT_LIMITS, EXPORT_TIMEOUT, Limits, whole_number
from nqueens_plugins.core.problem import Problem
from nqueens_plugins.core.solver import Solver, Variant, split_specs
from nqueens_plugins.execution.answers import CountResult, Result
from nqueens_plugins.execution.executor import Executor
from nqueens_plugins.execution.local import LocalExecutor, shared_executor
from nqueens_plugins.execution.tasks import Task, check_countable, check_runnable
from nqueens_plugins.formats import inputs
from nqueens_plugins.formats import instances as instance_files
from nqueens_plugins.formats.output_files import check_new_folder, check_output
from nqueens_plugins.formats.reading import open_regular, read_bounded
from nqueens_plugins.formats.records import ReadLimits, ResultsFile
from nqueens_plugins.formats.run_record import RunRecord
from nqueens_plugins.loading import host
from nqueens_plugins.loading.registry import Registration
from nqueens_plugins.loading.session import SessionSolver
from nqueens_plugins.results.crosscheck import Check, InstanceCheck, read_expected
from nqueens_plugins.results.race import RaceResult
from nqueens_plugins.results.recheck import Certificates, Recheck
from nqueens_plugins.results.schedule import Schedule
from nqueens_plugins.views.animate import Animation
from nqueens_plugins.views.summary_view import Summary
from nqueens_plugins.workflows.crosscheck import CROSS_CHECK_LIMITS, cross_check_instances, cross_check_sizes
from nqueens_plugins.workflows.grid import COMPARE_LIMITS, Grid, stream
from nqueens_plugins.workflows.race import RaceEntry, race_members
from nqueens_plugins.workflows.race import race as run_race
from nqueens_plugins.workflows.tune import HELD_OUT_RUNS, Tuning

TUNE_FORMATS = ("table", "markdown", "json")  # a tune's file reported as its race (html and csv: as runs)

EXPORT_LIMITS = Limits(timeout=EXPORT_TIMEOUT)
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


def variants_and_races(solvers: str | Sequence[str]) -> tuple[list[Variant], list[RaceEntry]]:
    """The variants a comparison names, and its races (``race(A,B)``: a row of its own, see ``race``)."""
    if isinstance(solvers, str):
        specs = [] if solvers.strip() == "all" else split_specs(solvers)
        if all(race_members(spec) is None for spec in specs):
            return variants(solvers), []  # "all", sweeps and plain lists, as before
    else:
        specs = [inputs.solver_spec(spec) for spec in solvers]
    races: list[RaceEntry] = []
    plain: list[str] = []
    for spec in specs:
        members = race_members(spec)
        if members is None:
            plain.append(spec)
        else:
            races.append(RaceEntry(tuple(variants(members))))
    labels = [entry.label for entry in races]
    twice = next((label for label in labels if labels.count(label) > 1), None)
    if twice is not None:
        raise BadInput(f"{twice} is named twice")
    return (variants(plain) if plain else []), races


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
    fixed: Mapping[int, int] | str | None = None,
    blocked: Iterable[tuple[int, int]] | str | None = None,
    limits: Limits | None = None,
    trial: int = 0,
    isolate: bool = True,
    trace: bool | str | Path = False,
    executor: Executor | None = None,
    **options: Any,
) -> Result:
    """Solve one board and return the verified result.

    The board is ``n`` (with ``fixed`` queens, column -> row, and ``blocked``
    (column, row) squares), a ``Problem``, or ``instance="FILE"`` (any format of
    ``nqueens_plugins.formats.instances``, ``FILE@d`` for excluded diagonals).
    ``solver`` may carry options (``"simulated-annealing[cooling=0.99]"``) or take
    them as keywords (``cooling=0.99``). ``limits`` (a ``Limits``; None: no time
    limit, seed 0) holds the time limit, memory, iteration cap and seed, so the
    same call gives the same answer. Raises BadInput for anything the
    user can fix. The result's ``verified`` is True only when the verifier checked
    the answer; ``status`` is ``invalid`` when it rejected it. The limits may be
    given as keywords instead (``timeout=5, seed=1``; every field of ``Limits``:
    ``LimitKeywords``), not both.

    The solver runs in a warm worker process of the execution service (kept for
    the next call; or ``executor``'s), so a hang is killed at ``limits.timeout`` and a
    crash is a result, not the end of your program. Preparing the solver there
    (importing its plugin, its warm-up) is not timed; it has its own limit,
    ``limits.prepare_timeout`` seconds, and is reported as ``result.prepare_seconds``. ``isolate=False`` calls
    it in this process instead (no protection; for trusted solvers on small boards).

    ``trace=True`` records every step in ``result.trace`` (boards up to 64 and
    solvers that trace: every built-in does); a path also writes the trace file
    that ``nqueens animate`` reads (nothing is written when no trace came back:
    the run was killed or its worker died), in a folder that exists, over an
    earlier trace or an empty file only: any other file there is refused, as
    ``compare``'s ``out`` refuses a file that is not its own.
    """
    limits = limits_of(limits, DEFAULT_LIMITS, limit_keywords(options))
    chosen = variant(solver, **options)
    problem = problem_of(n, instance, fixed, blocked)
    trial = whole_number(trial, "trial", minimum=0)
    trace_file = Path(trace) if isinstance(trace, (str, Path)) else None
    if trace_file is not None:
        check_output(trace_file, "a trace", reading=files_read([problem]), flag="--trace", keep_others=True)
    traced = trace is not False and trace is not None
    if isolate:
        task = Task.solve(chosen, problem, limits, trial=trial, trace=traced)
        result = (executor or shared_executor()).run(task)
    else:
        from nqueens_plugins.execution.inprocess import run

        result = run(chosen, problem, limits, trial=trial, trace=traced)
    if trace_file is not None and result.trace is not None:
        from nqueens_plugins.views.animate import write_trace

        write_trace(result, trace_file)
    return result


def race(
    solvers: str | Sequence[str],
    n: int | str | Problem | None = None,
    *,
    instance: str | None = None,
    fixed: Mapping[int, int] | str | None = None,
    blocked: Iterable[tuple[int, int]] | str | None = None,
    limits: Limits | None = None,
    trial: int = 0,
    executor: Executor | None = None,
    **limit_keywords: Unpack[LimitKeywords],
) -> RaceResult:
    """Race ``solvers`` (``"a,b"`` or a list of specs, two or more) on one board: each in a worker of its own,
    all at once; the first *decided* answer wins (a verified board, or a no-solution claim the verifier
    confirmed) and the others are stopped. An answer that decides nothing (gave up, rejected, crashed) does
    not end the race. The board is given as for ``solve``; ``executor`` must be a ``LocalExecutor`` with a
    job per member (by default one is made for the race). ``limits`` (or its fields as keywords) hold for
    every member. See ``workflows/race.py`` for the times kept."""
    members = variants(solvers)
    problem = problem_of(n, instance, fixed, blocked)
    trial = whole_number(trial, "trial", minimum=0)
    return run_race(members, problem, limits_of(limits, DEFAULT_LIMITS, limit_keywords), executor, trial=trial)


def count(
    solver: str | Variant,
    n: int | str | Problem | None = None,
    *,
    instance: str | None = None,
    unique: bool = False,
    fixed: Mapping[int, int] | str | None = None,
    blocked: Iterable[tuple[int, int]] | str | None = None,
    limits: Limits | None = None,
    isolate: bool = True,
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
    out: str | Path | None = None,
    resume: bool = False,
    verify_resumed: float = 0.1,
    **options: Any,
) -> CountResult:
    """Count all solutions with a complete solver, checked against OEIS where known (plain boards).

    ``limits`` (a ``Limits``; None: no time limit) bounds the whole count; a
    count stopped at ``limits.timeout`` is a lower bound. Isolated like
    ``solve`` unless ``isolate=False``. With ``progress(done,
    total)``, the count is split into the pieces the solver offers and counted by
    all of ``executor``'s workers (a Dask executor always splits), and
    ``progress`` hears each piece come back. With ``out``, it is split too and
    each finished piece is kept in that file as it ends; ``resume=True`` then
    counts only the pieces the file does not hold (a stopped count continues).
    A file may have been changed since: unless OEIS knows the total, a sample of
    its pieces, ``verify_resumed`` of them (0.1: a tenth, at least one, drawn at
    random by the operating system; 1: all; 0: trust the file), is counted again,
    and one that comes out otherwise refuses the file (``RejectedFile``).
    The limits may be given as keywords instead (``timeout=60``).
    ``count_plan`` says beforehand what ``nqueens count`` decides: whether a count
    this long should be confirmed first, the solver's estimate, how many workers.
    """
    limits = limits_of(limits, DEFAULT_LIMITS, limit_keywords(options))
    chosen = variant(solver, **options)
    problem = problem_of(n, instance, fixed, blocked)
    if resume and out is None:
        raise BadInput("resume continues the count kept in out: give out too")
    from nqueens_plugins.results.resume_checks import check_fraction

    verify_resumed = check_fraction(verify_resumed, "verify_resumed")
    if out is not None:
        from nqueens_plugins.formats.count_pieces import KIND as PIECES_KIND
        from nqueens_plugins.formats.count_pieces import check_pieces_file

        check_output(Path(out), PIECES_KIND, reading=files_read([problem]), flag="--out")
        check_pieces_file(Path(out), resume)  # before any work, like every --out
    if not isolate:
        if out is not None:
            raise BadInput("a count kept piece by piece in out runs isolated: leave isolate on")
        from nqueens_plugins.execution.inprocess import count as count_here

        return count_here(chosen, problem, limits, unique=unique)
    task = Task.count(chosen, problem, limits, unique=unique)
    backend = executor or shared_executor()
    if progress is not None or out is not None or backend.splits_counts:
        from nqueens_plugins.workflows.counting import count_in_parts

        return count_in_parts(backend, task, progress, out, resume, verify_resumed)
    return backend.run(task)


COUNT_CONFIRM_FROM = 20  # plain boards from this n take days to count on one machine: ask first


@dataclass(frozen=True)
class CountPlan:
    """What a count will be, decided before it starts (``count_plan``): the solver, the board, whether it
    is long enough to ask first, the solver's estimate of its seconds, and how many workers to start."""

    variant: Variant
    problem: Problem
    unique: bool
    limits: Limits
    split: bool  # counted in the pieces the solver offers, by every worker (to show progress, keep pieces)

    @property
    def long(self) -> bool:
        """A plain board from ``COUNT_CONFIRM_FROM`` on: a count of days, whose estimate is worth a second."""
        return self.problem.is_plain and self.problem.n >= COUNT_CONFIRM_FROM

    @property
    def needs_confirmation(self) -> bool:
        """A long count with no time limit: the user should say yes first (``nqueens count --yes``)."""
        return self.long and self.limits.timeout is None

    @property
    def jobs(self) -> int:
        """Workers to start: one per core (0) when the count is split, else one (it is one task)."""
        return 0 if self.split else 1

    @functools.cached_property
    def seconds(self) -> float | None:
        """The solver's own estimate of the count's seconds, on first use (bitboard samples its search for a
        second or a few); None when it has none or fails to give one: it runs plugin code in this process,
        and a broken estimate must not stop a count that would run."""
        try:
            return count_seconds(self.variant, self.problem, unique=self.unique)
        except BadInput:
            raise
        except Exception:  # noqa: BLE001 - whatever a plugin's estimate raises, the count still runs
            return None

    @property
    def how_long(self) -> str | None:
        """The estimate in words (``about 3.2 hours``), or None without one."""
        from nqueens_plugins.views.report import format_duration

        return None if self.seconds is None else f"about {format_duration(self.seconds)}"

    def describe(self) -> str:
        """One line: how many solutions and how long, for a long count (``counting n = 20 ... with bitboard``)."""
        from nqueens_plugins.core.verify import known_count

        expected = known_count(self.problem.n)
        size_note = f"{expected:,} solutions" if expected else "more solutions than OEIS lists"
        how_long = self.how_long or "days or more"
        return f"counting n = {self.problem.n} ({size_note}) would take {how_long} with {self.variant.label}"


def count_plan(
    solver: str | Variant,
    n: int | str | Problem | None = None,
    *,
    instance: str | None = None,
    unique: bool = False,
    fixed: Mapping[int, int] | str | None = None,
    blocked: Iterable[tuple[int, int]] | str | None = None,
    limits: Limits | None = None,
    progress: bool = False,
    out: str | Path | None = None,
    kind: str = "local",
    **options: Any,
) -> CountPlan:
    """What ``count`` with these arguments will be, before it starts, as ``nqueens count`` decides it.

    A plain board from ``COUNT_CONFIRM_FROM`` (20) on is ``long``; one with no
    ``limits.timeout`` ``needs_confirmation`` (the command refuses it without
    ``--yes``, saying ``describe()``: the solver's estimate, ``seconds``, taken
    only when asked for). A count with ``progress``, kept in ``out`` or on a
    ``dask`` executor (``kind``) is split into pieces counted by every worker:
    ``jobs`` is 0 then (one per core, for ``executor_for``), else 1.
    """
    given = limit_keywords(options)
    return CountPlan(
        variant(solver, **options),
        problem_of(n, instance, fixed, blocked),
        unique,
        limits_of(limits, DEFAULT_LIMITS, given),
        split=bool(progress or out or kind == "dask"),
    )


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
    solvers: Sequence[str] | str, boards: Boards = (), trials: int = 1, **keywords: Unpack[CompareKeywords]
) -> list[dict[str, Any]]:
    """Compare solvers over boards and trials; the records of the runs, as a list (``compare_stream``
    yields them as they end).

    ``solvers`` is a list of ``NAME[key=value,...]`` (or one comma-separated
    string, or ``"all"``: then each solver is left out where it cannot run).
    ``boards`` are sizes or instances, in one argument: ints, or a size string
    like ``"4..40:4"`` or ``"8,16"``; instance files, globs or folders
    (``"hard/*.param"``, ``"diag-12.param@5"``; see
    ``nqueens_plugins.formats.instances``); or Problems (a board with fixed
    queens or blocked squares: ``nq.problem_of(8, fixed="0:2")``); a list may mix
    them. The keywords (``CompareKeywords``, all optional): ``limits`` is every run's
    (None: 10 s per run, seed 0), or give its fields as keywords (``timeout=5, seed=1``:
    the rest keep compare's defaults). ``executor`` runs them (default: local workers,
    ``jobs`` of them, one per core when 0 or None). ``out`` appends each record to a
    results file as it ends: a path, or ``ResultsFile(path, resume=True)`` to continue one.
    ``keep_queens`` (default False) keeps the queens in records above n = 1000.
    ``planned(count)`` hears how many runs will be made; ``notify(line)``
    hears warnings and notes (default: Python warnings).
    """
    return list(compare_stream(solvers, boards, trials, **keywords))


def compare_stream(
    solvers: Sequence[str] | str, boards: Boards = (), trials: int = 1, **keywords: Unpack[CompareKeywords]
) -> Iterator[dict[str, Any]]:
    """``compare``, yielding each record as its run ends (memory stays flat for any number of runs); it
    takes what ``compare`` takes.

    Everything is checked before the first run: a bad argument is a BadInput
    here, not on the first ``next``.
    """
    given: dict[str, Any] = dict(keywords)
    own = {name: given.pop(name, default) for name, default in COMPARE_DEFAULTS.items()}
    executor: Executor | None = own["executor"]
    limits = limits_of(own["limits"], COMPARE_LIMITS, given)
    workers = jobs_of(own["jobs"], executor)
    chosen, races = variants_and_races(solvers)
    trials = whole_number(trials, "trials", minimum=1)
    problems = boards_of(boards)
    out = own["out"]
    results = ResultsFile.of(out) if out is not None else None
    if results is not None:
        check_output(results.path, "a results file", reading=files_read(problems), flag="--out")
    everything = isinstance(solvers, str) and solvers.strip() == "all"
    tell: Notify = own["notify"] or python_warning
    if everything:
        say_what_failed_to_load(tell)
    grid = Grid(chosen, problems, trials, limits, skip_refused=everything, races=races)
    records = stream(
        grid,
        out=results,
        keep_queens=own["keep_queens"],
        executor=executor,
        jobs=workers,
        planned=own["planned"],
        warn=lambda text: tell(f"warning: {text}"),
    )
    return with_skipped_noted(records, grid, tell)


Boards = int | str | Path | Problem | Sequence[int | str | Path | Problem]


def boards_of(boards: Boards) -> list[Problem]:
    """The boards ``compare`` is given, as Problems in order: sizes (ints, ``"8,16"``, ``"4..40:4"``) made
    plain boards, instance files (names, globs, folders, ``FILE@d``) read, Problems as they are."""
    if isinstance(boards, (int, str, Path, Problem)):
        boards = [boards]
    found: list[Problem] = []
    for board in boards:
        if isinstance(board, Problem):
            found.append(board)
        elif isinstance(board, Path) or (isinstance(board, str) and not SIZES.fullmatch(board)):
            found.extend(instance_files.load(str(board)))
        else:
            sizes = inputs.parse_sizes(board) if isinstance(board, str) else [inputs.parse_size(board)]
            found.extend(inputs.make_problem(n) for n in sizes)
    if not found:
        raise BadInput("no board sizes or instances given")
    return found


SIZES = re.compile(r"[0-9\s,.:+]*")  # text that names sizes ("8,16", "4..40:4", ""), not instance files


class LimitKeywords(TypedDict, total=False):
    """The limits every function that runs solvers takes as keywords, beside or instead of ``limits=``
    (``nq.solve("min-conflicts", 8, timeout=5, seed=1)``): the fields of ``Limits``, as the field writes
    limits (``subprocess.run(timeout=)``). Those not given keep the function's own defaults."""

    timeout: float | None
    prepare_timeout: float
    memory: int | str | None
    max_iterations: int | None
    seed: int
    certify: str
    certificate_size: int | str
    check_timeout: float
    check_memory: int | str
    keep_proofs: str | os.PathLike[str] | None


LIMIT_NAMES = tuple(LimitKeywords.__annotations__)


class CompareKeywords(LimitKeywords, total=False):
    """What ``compare`` and ``compare_stream`` take beside the solvers, boards and trials (all optional;
    ``compare`` says what each does): written once here, so the two can never drift apart, and still
    every keyword's name and type for type checkers and editors. A TypedDict holds no defaults: the
    functions apply them (``None``, and ``keep_queens=False``)."""

    limits: Limits | None
    executor: Executor | None
    jobs: int | None
    out: str | Path | ResultsFile | None
    keep_queens: bool
    notify: Notify | None
    planned: Callable[[int], None] | None


COMPARE_DEFAULTS: dict[str, Any] = {
    "limits": None,
    "executor": None,
    "jobs": None,
    "out": None,
    "keep_queens": False,
    "notify": None,
    "planned": None,
}


def spell_out(function: Callable[..., Any]) -> None:
    """Show ``function``'s ``CompareKeywords`` one by one, with their defaults, to ``help()`` and
    ``inspect.signature``, as if its signature wrote them out; the limits stay ``**limit_keywords``."""
    signature = inspect.signature(function)
    head = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
    annotations = CompareKeywords.__annotations__
    own = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=default,
            annotation=getattr(annotations[name], "__forward_arg__", annotations[name]),
        )
        for name, default in COMPARE_DEFAULTS.items()
    ]
    limits = inspect.Parameter("limit_keywords", inspect.Parameter.VAR_KEYWORD, annotation="Unpack[LimitKeywords]")
    setattr(function, "__signature__", signature.replace(parameters=[*head, *own, limits]))  # noqa: B010


spell_out(compare)
spell_out(compare_stream)


def limit_keywords(options: dict[str, Any]) -> dict[str, Any]:
    """The limits among a function's keywords (``solve``'s and ``count``'s also carry solver options), taken
    out of ``options``: a solver option can never be named as a limit is."""
    return {name: options.pop(name) for name in LIMIT_NAMES if name in options}


def limits_of(limits: Limits | None, default: Limits, given: Mapping[str, Any] | None = None) -> Limits:
    """The limits a call was given (a ``Limits``, or its fields as keywords: ``given``), or its own default:
    the one place a function's defaults apply. Keywords change only the fields they name."""
    if limits is not None and not isinstance(limits, Limits):
        raise BadInput(f"limits is an nq.Limits (such as nq.Limits(timeout=5)), not {type(limits).__name__}")
    unknown = [name for name in given or () if name not in LIMIT_NAMES]
    if unknown:
        raise TypeError(f"unexpected keyword argument {unknown[0]!r} (the limits are: {', '.join(LIMIT_NAMES)})")
    if given:
        if limits is not None:
            named = ", ".join(f"{name}=" for name in given)
            raise BadInput(f"give the limits as keywords ({named}) or as limits=nq.Limits(...), not both")
        chosen = dataclasses.replace(default, **given)
    else:
        chosen = default if limits is None else limits
    if chosen.keep_proofs is not None:  # the folder is made when a proof is kept; its parent must exist now
        check_new_folder(Path(chosen.keep_proofs), "--keep-proofs")
    return chosen


def jobs_of(jobs: int | None, executor: Executor | None) -> int:
    """The local workers a call asked for (0: one per core); with an executor of its own, none may be asked."""
    if jobs is None:
        return 0
    if executor is not None:
        raise BadInput("give jobs or an executor, not both (an executor has its own workers)")
    return whole_number(jobs, "jobs", minimum=0)


def say_what_failed_to_load(tell: Notify) -> None:
    """A warning for each installed plugin that failed to load: "all" cannot include its solvers, and a
    comparison or cross-check that silently lacks them would look complete."""
    registry = host.registry()
    for error in registry.load_errors:
        tell(f"warning: {error.source.describe()} failed to load, so its solvers are left out: {error.message}")
    for failure in registry.probe_failures:  # the host's own failure, not a plugin's: said, never silent
        tell(f"warning: {failure}; every installed plugin was imported")


def with_skipped_noted(records: Iterator[RunRecord], grid: Grid, tell: Notify) -> Iterator[dict[str, Any]]:
    """The records as the dicts of their JSON form (what ``compare`` has always given), then a note for each
    solver the grid left out where it cannot run."""
    for record in records:
        yield record.to_json()
    for label, reason in grid.skipped.items():
        tell(f"note: {label} left out where it cannot run: {reason}")


def cross_check(
    solvers: str | Sequence[str] | None = None,
    sizes: Sequence[int] | str = "1..12",
    *,
    limits: Limits | None = None,
    executor: Executor | None = None,
    notify: Notify | None = None,
    **limit_keywords: Unpack[LimitKeywords],
) -> list[Check]:
    """Every solver (default: all) on each n: counts against OEIS and each other, boards verified,
    no-solution claims against the counts. A timed-out answer is inconclusive, not a disagreement.
    ``limits`` holds for each solve and count (None: 10 s each; or its fields as keywords).
    ``notify`` gets the warnings (default: Python warnings), such as a plugin that failed to load."""
    limits = limits_of(limits, CROSS_CHECK_LIMITS, limit_keywords)
    if solvers is None or (isinstance(solvers, str) and solvers.strip() == "all"):
        say_what_failed_to_load(notify or python_warning)
    return cross_check_sizes(
        variants(solvers or "all"),
        inputs.parse_sizes(sizes) if isinstance(sizes, str) else list(sizes),
        limits=limits,
        executor=executor,
    )


def cross_check_boards(
    sizes: str | None = None,
    instances: str | None = None,
    *,
    fixed: str | None = None,
    blocked: str | None = None,
    expected: str | None = None,
    counting: bool = False,
) -> list[Problem] | str | None:
    """What ``nqueens cross-check`` checks, from its board flags: None for plain boards (``cross_check`` over
    ``sizes``), else the instances for ``cross_check_files`` (the files named, or ``sizes`` posed with the
    fixed queens and blocked squares given). BadInput for a combination that means nothing: both sizes and
    files, ``fixed``/``blocked`` with files (a file carries its own), ``expected`` or ``counting`` with plain
    boards (OEIS is their published answer; they are counted anyway)."""
    if instances is not None and sizes is not None:
        raise BadInput("give -n or --instances, not both")
    posed = fixed is not None or blocked is not None  # boards with fixed queens or blocked squares are instances
    if instances is not None and posed:
        raise BadInput("--fixed and --blocked go with -n; an instance file carries its own")
    if instances is None and not posed and (expected is not None or counting):
        raise BadInput("--expected and --count go with --instances (or --fixed and --blocked)")
    if posed:
        return [problem_of(n, None, fixed, blocked) for n in inputs.parse_sizes(sizes or "1..12")]
    return instances


def cross_check_files(
    files: str | Sequence[str] | Sequence[Problem],
    solvers: str | Sequence[str] | None = None,
    *,
    expected: str | None = None,
    counting: bool = False,
    limits: Limits | None = None,
    executor: Executor | None = None,
    notify: Notify | None = None,
    **limit_keywords: Unpack[LimitKeywords],
) -> tuple[list[InstanceCheck], dict[str, str]]:
    """Decide every instance with every solver that takes it (default: every complete one), optionally count
    it too, and judge the answers against each other and the published ones (``expected``, a CSPLib results
    file). Returns the checks and the solvers skipped (label -> why). ``limits`` holds for each solve and
    count (None: 10 s each; or its fields as keywords). ``notify`` gets the warnings."""
    limits = limits_of(limits, CROSS_CHECK_LIMITS, limit_keywords)
    if solvers is None or (isinstance(solvers, str) and solvers.strip() == "all"):
        say_what_failed_to_load(notify or python_warning)
    chosen = variants(solvers or "all")
    if solvers is None:
        chosen = [v for v in chosen if v.complete]
    return cross_check_instances(
        chosen,
        problems_of(files),
        limits=limits,
        counting=counting,
        expected=read_expected(expected) if expected else None,
        executor=executor,
    )


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
    limits: Limits | None = None,
    executor: Executor | None = None,
    **limit_keywords: Unpack[LimitKeywords],
) -> tuple[str, str]:
    """An instance written in ``format``, as the solver that poses it to its library does: (text, solver label).

    ``json`` is the host's own instance format, and so is ``dimacs`` without a ``solver``: the
    canonical CNF (``canonical_cnf``), the formula every no-solution certificate refutes. Any
    other is a plugin's (``dimacs`` with ``solver``, ``asp``, ``dzn``, ``mps``, ``smt2``): the one
    solver that exports it, or ``solver`` (required where several do). The plugin writes it in a worker
    process, as every plugin call runs, under ``limits`` (None: 60 s); its answer must be text.
    """
    limits = limits_of(limits, EXPORT_LIMITS, limit_keywords)
    problem = problem_of(n, instance, fixed, blocked)
    if format == "json":
        return json.dumps(instance_files.to_json(problem)) + "\n", "nqueens-plugins"
    if format == "dimacs" and solver is None:  # the host's canonical CNF, the formula certificates refute
        from nqueens_plugins.core.canonical_cnf import canonical_cnf

        try:
            formula = canonical_cnf(problem)
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        return "\n".join(formula.dimacs_lines()) + "\n", "canonical CNF (nqueens-plugins)"
    if solver is None:
        offering = exporters(format)
        if not offering:
            raise BadInput(f"no installed solver exports {format}; its family's plugin is under plugins/")
        if len(offering) > 1:
            raise BadInput(f"{', '.join(offering)} export {format}: say whose encoding with -s")
        solver = offering[0]
    chosen = variant(solver)
    task = Task.export(chosen, problem, format, limits)
    executed = (executor or shared_executor()).run(task)
    if executed.error is not None:
        raise ExportFailed(f"{chosen.label} could not export {problem.label} as {format}: {executed.error}")
    if not isinstance(executed.outcome, str):
        raise ExportFailed(f"{chosen.label} exported {type(executed.outcome).__name__}, not text")
    return executed.outcome, chosen.label


class ExportFailed(Exception):
    """A plugin's export failed: its fault, not the user's (exit status 1, not 2)."""


@dataclass(frozen=True)
class ProofCheck:
    """What ``check_proof`` found, in the words of a run's certificate (``docs/certificates.md``).

    ``status``: ``certified`` (the proof refutes the instance's canonical CNF),
    ``rejected`` (it does not: ``reason`` names the first lemma that fails, by its
    line, or byte in a binary proof, or what else is wrong with the file),
    ``over-budget`` (past its time, memory or size: unknown either way), or
    ``unchecked`` (the checker itself failed). ``lemmas`` were read, ``bytes`` is
    the proof's size on disk, ``seconds`` the checking's own time.
    """

    status: CertificateStatus
    reason: str | None
    lemmas: int
    bytes: int
    seconds: float
    instance: str  # the instance's label
    proof: str  # the proof's path, as given

    @property
    def certified(self) -> bool:
        return self.status == CertificateStatus.CERTIFIED

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "certified": self.certified,
            "reason": self.reason,
            "lemmas": self.lemmas,
            "bytes": self.bytes,
            "seconds": self.seconds,
            "instance": self.instance,
            "proof": self.proof,
        }


def check_proof(
    instance: int | str | Path | Problem,
    proof: str | Path,
    *,
    fixed: Mapping[int, int] | str | None = None,
    blocked: Iterable[tuple[int, int]] | str | None = None,
    limits: Limits | None = None,
    **limit_keywords: Unpack[LimitKeywords],
) -> ProofCheck:
    """Check a DRUP or DRAT proof that the instance has no solution, whoever wrote it.

    The proof refutes the instance's canonical CNF, the formula ``export("dimacs", ...)``
    and ``nqueens instances export --format dimacs`` write, so any SAT solver that writes
    DRUP/DRAT can certify an instance: text or binary DRAT, plain or gzip, bzip2 or xz
    compressed. ``instance`` is a ``Problem``, a board size (with ``fixed`` queens and
    ``blocked`` squares, as for ``solve``) or an instance file (``"FILE@d"`` for excluded
    diagonals; ``fixed`` and ``blocked`` are then added to its own).

    The proof is checked by the host's own checker in a process of its own that imports
    no plugin (the same warm process a worker's certificates go to), under ``limits``'s
    ``check_timeout``, ``check_memory`` and ``certificate_size`` (the bytes the proof may
    take, on disk and unpacked; None: the defaults, 60 s, 4 GiB, 1 GiB; or as keywords,
    ``check_timeout=30``). What is wrong
    with the proof is an answer (``rejected``, ``over-budget``); what the user can fix is
    a ``BadInput``: a proof path that does not exist or is not a regular file (a folder,
    a FIFO, a device; a symbolic link is followed to its target, which must be regular),
    an instance that cannot be read. An empty proof is a proof like any other: rejected,
    unless unit propagation alone refutes the formula.
    """
    from nqueens_plugins.core.canonical_cnf import canonical_cnf
    from nqueens_plugins.execution.certificates import check
    from nqueens_plugins.formats.reading import TooLarge

    limits = limits_of(limits, DEFAULT_LIMITS, limit_keywords)
    problem = proof_instance(instance, fixed, blocked)
    try:
        canonical_cnf(problem)  # refused here in one line, not by the checker
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    given = os.fspath(proof) if isinstance(proof, (str, os.PathLike)) else None
    if not given:
        raise BadInput(f"proof must name a file, not {proof!r}")
    try:
        path = proof_file(given, limits.certificate_size)
    except TooLarge as exc:
        return ProofCheck(CertificateStatus.OVER_BUDGET, str(exc), 0, os.stat(given).st_size, 0.0, problem.label, given)
    certificate = check(path, problem, limits)
    return ProofCheck(
        certificate.status,
        certificate.reason,
        certificate.lemmas,
        certificate.bytes,
        certificate.seconds,
        problem.label,
        given,
    )


def proof_instance(
    instance: int | str | Path | Problem,
    fixed: Mapping[int, int] | str | None,
    blocked: Iterable[tuple[int, int]] | str | None,
) -> Problem:
    """The instance a proof refutes: a Problem, a board size (an int, or its digits as text), or an instance file."""
    if isinstance(instance, Problem) or (isinstance(instance, int) and not isinstance(instance, bool)):
        return problem_of(instance, None, fixed, blocked)
    if isinstance(instance, str) and re.fullmatch(r"\s*[0-9]+\s*", instance):
        return problem_of(instance, None, fixed, blocked)
    if isinstance(instance, (str, os.PathLike)):
        return problem_of(None, os.fspath(instance), fixed, blocked)
    raise BadInput(f"the instance is a Problem, a board size or an instance file, not {instance!r}")


def proof_file(name: str, limit: int) -> Path:
    """The proof's real path, checked here in the parent before the checker is asked: it exists and is a
    regular file of at most ``limit`` bytes (``open_regular``, which never waits on a FIFO). A symbolic link
    is the user's own and is followed; the checker then reads the target, which it refuses to reach through
    a link."""
    with open_regular(name, "proof", limit) as handle:
        opened = os.fstat(handle.fileno())
    real = Path(os.path.realpath(name))
    try:
        found = os.stat(real)
    except OSError as exc:
        raise BadInput(f"cannot read proof {name!r}: {exc.strerror or exc}") from None
    if (found.st_dev, found.st_ino) != (opened.st_dev, opened.st_ino):
        raise BadInput(f"proof {name!r} changed while it was opened; give it again")
    return real


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


def summary(
    records: str | Path | Iterable[Mapping[str, Any]],
    baseline: str | None = None,
    *,
    recheck: str = "auto",
    recheck_budget: float | None = None,
    check_timeout: float | None = None,
    max_lines: int | None = None,
    max_bytes: int | None = None,
    time: str = "wall",
) -> Summary:
    """What ``nqueens report`` prints, as one object: one row per solver variant and board, and with
    ``baseline`` (a solver variant in the records) every other one against it (ERT ratio with its
    interval, Mann-Whitney U; needs scipy). ``records`` is a results file (streamed: the records are not
    kept, only 18 bytes of each run, and nothing of a run that repeats the one before it) or what ``compare``
    returned. A notebook shows it as tables; ``summary(...).figure()`` is the
    ``nqueens plot`` figure. What the reader should know (lines of the file skipped, a file mixing seeds,
    what became of the file's certificates) is in ``notes``.

    A file's "certified" no-solution claims are re-checked from their kept proofs as ``nqueens report``
    does (``recheck``: ``auto``, ``all`` or ``never``; ``recheck_budget``: the total seconds of ``auto``,
    120 by default; ``check_timeout``: seconds per proof, 60 by default); a claim no check made now
    confirms is the file's word, never counted as decided. Records ``compare`` returned carry the host's
    own checks. ``max_lines`` and ``max_bytes`` bound the file's reading as ``report``'s do; ``time`` chooses
    the seconds the figures rank runs by, as ``report``'s does.
    """
    from nqueens_plugins.results.statistics import require_scipy
    from nqueens_plugins.results.summary import CPU_TIME_LINE, baseline_rows, summary_rows

    if baseline is not None:
        require_scipy("a baseline")
    read = grouped(records, recheck=Recheck.of(recheck, recheck_budget, check_timeout), limits=read_limits(
        max_lines, max_bytes), time=time)  # fmt: skip
    if not read.groups:
        raise BadInput("no runs to summarise")
    against = baseline_rows(read.groups, baseline) if baseline is not None else []
    said = read.certificates.lines() if read.certificates is not None else []
    said += [CPU_TIME_LINE] if time == "cpu" else []
    return Summary(summary_rows(read.groups), baseline, against, read.warnings + read.notes + said, read.groups)


REPORT_FORMATS = ("table", "markdown", "csv", "json", "html")


def report(
    results: str | Path,
    *,
    format: str = "table",
    baseline: str | None = None,
    output: str | Path | None = None,
    notify: Notify | None = None,
    recheck: str = "auto",
    recheck_budget: float | None = None,
    check_timeout: float | None = None,
    max_lines: int | None = None,
    max_bytes: int | None = None,
    time: str = "wall",
) -> Any:
    """``nqueens report``: a results file summarised (streamed: 18 bytes kept of each run, 24 more of a measured
    one, none of a run that repeats the one before it), as
    ``format``: ``markdown``, ``csv``, ``json`` and ``html`` (one self-contained page) are text, ``table``
    a rich table. With ``baseline`` (a variant in the file; needs scipy) every other variant is set against
    it. With ``output`` the report is written there, whole (a table as plain text), and what was written is
    returned; ``html`` needs ``output``. ``notify(line)`` hears what the reader should know, ``warning:``
    (lines of the file skipped) and ``note:`` (a file mixing seeds), before anything is refused (default:
    Python warnings). A file with no runs is refused: an empty table would look like nothing went wrong.

    The file's "certified" no-solution claims are the file's word until checked now: each kept proof is
    re-checked by the host's checker (``recheck``: ``auto``, each within ``check_timeout`` seconds (60)
    until ``recheck_budget`` seconds (120) were spent in all; ``all``, every one; ``never``, none), and only
    a claim certified now (or settled by the verifier's facts or a published answer) counts as decided; one
    whose proof is rejected now counts as invalid. The table, Markdown and HTML say what was re-checked
    (CSV and JSON carry the counts per row, and ``notify`` hears the same lines).

    A file may come from anyone, and a small compressed one can unpack to gigabytes: its reading is bounded by
    ``max_lines`` (blank lines count; 100 million by default) and ``max_bytes`` (what it unpacks to; 64 GiB).
    Past either, the report is refused (``BadInput``), not made from the part read, which would pass for the
    whole file's.

    ``time`` chooses the seconds ERT, PAR-10, the quartiles and the portfolio rank runs by: ``wall`` (the
    solver call's ``seconds``) or ``cpu`` (its ``cpu_seconds``, censored still at the run's wall ``timeout``;
    a run that did not decide and has none counts at that limit; one that decided without it makes the file
    refused, ``BadInput``). Under ``cpu`` a tune's file is summarised as any other, without the tune's view
    (which replays the race by the costs it was run on).
    """
    from nqueens_plugins.formats.output_files import write_whole
    from nqueens_plugins.results.portfolio import portfolio
    from nqueens_plugins.results.statistics import require_scipy
    from nqueens_plugins.results.summary import CPU_TIME_LINE, baseline_rows, check_time, summary_rows
    from nqueens_plugins.views.report import (
        plain_text,
        render_baseline,
        render_summary,
        with_certificates,
        with_portfolio,
    )

    if format not in REPORT_FORMATS:
        raise BadInput(f"format is one of {', '.join(REPORT_FORMATS)}, not {format!r}")
    if format == "html" and output is None:
        raise BadInput("--format html writes a file: give -o report.html")
    if baseline is not None:
        require_scipy("--baseline")
    target = Path(output) if output is not None else None
    if target is not None:
        check_output(target, "a report", reading=[Path(results)])
    chosen = Recheck.of(recheck, recheck_budget, check_timeout)  # refused before anything is read
    check_time(time)
    limits = read_limits(max_lines, max_bytes)
    tuned = tune_of(Path(results), limits) if baseline is None and time == "wall" else None  # a race's own costs
    if tuned is not None and format in TUNE_FORMATS:
        shown_tune = tune_report(Path(results), tuned, format, notify or python_warning, limits)
        if target is not None:
            write_whole(target, shown_tune + "\n")
        return shown_tune
    boards: list[dict[str, Any]] | None = [] if format == "html" else None
    read = grouped(results, boards, chosen, limits, time)
    tell = notify or python_warning
    said = read.certificates.lines() if read.certificates is not None else []
    shows_said = format == "html" or (baseline is None and format in ("table", "markdown"))  # else only told
    timed = [CPU_TIME_LINE] if time == "cpu" else []  # which seconds the figures are: beneath a table, else told
    notes = read.notes + ([] if shows_said else said) + ([] if format in ("table", "markdown", "html") else timed)
    for line in [f"warning: {warning}" for warning in read.warnings] + [f"note: {note}" for note in notes]:
        tell(line)
    if not read.groups:
        raise BadInput(f"{str(results)!r} holds no runs to report")
    compared = (baseline, baseline_rows(read.groups, baseline)) if baseline is not None else None
    if format == "html":
        from nqueens_plugins.views.html_report import render_html

        notes = read.notes + read.warnings + timed
        section = tune_report(Path(results), tuned, format, tell, limits) if tuned is not None else None
        page = render_html(
            Path(results).name, read.headers, read.groups, notes, boards or [], compared, section,
            certificates=read.certificates, output=target,
        )  # fmt: skip
        write_whole(target, page)  # type: ignore[arg-type]
        return page
    rows = summary_rows(read.groups)
    shown = render_summary(rows, format) if compared is None else render_baseline(*compared, format)
    if compared is None:
        shown = with_certificates(shown, said, format)
        shown = with_portfolio(shown, portfolio(read.groups), format)
    shown = with_certificates(shown, timed, format)  # lines beneath the tables: here, which seconds they show
    if target is None:
        return shown
    text = plain_text(shown)
    text = text if text.endswith("\n") else text + "\n"
    write_whole(target, text)
    return text


@dataclass(frozen=True)
class Selection:
    """What ``select`` chose for a board: the solver, and the past instances it learnt that from."""

    solver: str
    neighbours: list[tuple[str, str]]  # (instance, the solver best on it), nearest first
    trained_on: int  # instances in the records that every single solver ran

    def describe(self) -> str:
        near = "; ".join(f"{instance}: {best}" for instance, best in self.neighbours)
        return (
            f"{self.solver} (best over its {len(self.neighbours)} nearest of {self.trained_on} past instances: {near})"
        )


def select(
    records: str | Path | Iterable[Mapping[str, Any]],
    n: int | str | Problem | None = None,
    *,
    instance: str | None = None,
    fixed: Mapping[int, int] | str | None = None,
    blocked: Iterable[tuple[int, int]] | str | None = None,
    notify: Notify | None = None,
    time: str = "wall",
) -> Selection:
    """The solver a selector trained on ``records`` (a results file, or ``compare``'s records) would run on
    the board: the best total PAR-2 over the nearest past instances by their features (``results/selector.py``).
    The board is given as for ``solve``. The records need two single solvers or more with a time limit,
    on common instances with their boards. ``notify`` (default: a Python warning) hears a warning when
    the records hold fewer instances than the report's portfolio section measures a selector from
    (``selector.MIN_INSTANCES``): the choice is still made. ``time`` chooses the seconds the past runs are
    scored by, as ``report``'s does (``cpu``: their CPU seconds; records where a run decided without them are
    refused)."""
    import numpy as np

    from nqueens_plugins.results.features import features
    from nqueens_plugins.results.portfolio import score_table, selector_of
    from nqueens_plugins.results.selector import few_instances

    problem = problem_of(n, instance, fixed, blocked)
    read = grouped(records, time=time)
    table = score_table(read.groups)
    selector = selector_of(table) if table is not None else None
    if table is None or selector is None:
        raise BadInput("these records cannot train a selector: they need two single solvers or more, with a time "
                       "limit, on common instances")  # fmt: skip
    warning = few_instances(len(selector.instances))
    if warning is not None:
        (notify or python_warning)(warning)
    point = features(problem.n, problem.fixed, problem.blocked)
    nearest = selector.nearest(point)
    best = [selector.solvers[int(np.argmin(selector.scores[row]))] for row in nearest]
    return Selection(selector.choose(point), [(selector.instances[row], b) for row, b in zip(nearest, best, strict=True)],
                     len(selector.instances))  # fmt: skip


def tune(
    solver: str,
    space: str | Path,
    boards: Boards = (),
    *,
    budget: int | str,
    goal: str = "par10",
    test_runs: int = HELD_OUT_RUNS,
    limits: Limits | None = None,
    executor: Executor | None = None,
    out: str | Path | ResultsFile | None = None,
    notify: Notify | None = None,
    progress: Callable[[int], None] | None = None,
    verify_resumed: float = 0.1,
    **limit_keywords: Unpack[LimitKeywords],
) -> Tuning:
    """Tune ``solver``'s options by iterated racing (irace's scheme, ``results/tuning.py``) and test the best
    configuration against the solver's defaults on held-out runs.

    ``space`` is the text of the ranges to try (``"cooling=0.8..0.999,t0=1..10000:log,init=random|greedy"``)
    or a file holding it (a ``Path``, or a string starting with ``@``). ``boards`` are sizes or instance
    files, as ``compare`` takes them. ``budget`` is the race's runs (``500``) or the solver's own seconds
    summed over runs (``"600s"``, ``"10m"``). ``goal``: ``par10`` (decided first, then PAR-10 seconds),
    ``ert`` (decided first, then seconds) or ``ert-iterations`` (decided first, then iterations: the one
    a machine's speed does not move). ``test_runs`` held-out blocks each for the best and the defaults
    (0: none). ``limits`` hold each run's time limit and the seed the race draws from (None: 10 s, seed 0;
    or its fields as keywords).
    Every run is made as ``compare`` makes it and appended to ``out`` as it ends;
    ``ResultsFile(path, resume=True)`` resumes a tune: a file may have been changed since, so its runs'
    iterations must be whole numbers, and ``verify_resumed`` of its runs (0.1: a tenth, at least one, drawn
    at random by the operating system; 1: all; 0: trust the file) are made again, one that comes out
    otherwise refusing the file (``RejectedFile``). ``progress(runs)`` hears the runs made so far.
    Needs scipy (the ``report`` extra) for the Friedman test."""
    from nqueens_plugins.core.space import parse_space
    from nqueens_plugins.results.resume_checks import check_fraction
    from nqueens_plugins.results.statistics import require_scipy
    from nqueens_plugins.results.tuning import TuningBudget
    from nqueens_plugins.workflows.tune import TuneSetup, split_boards
    from nqueens_plugins.workflows.tune import tune as run_tune

    limits = limits_of(limits, COMPARE_LIMITS, limit_keywords)
    verify_resumed = check_fraction(verify_resumed, "verify_resumed")
    require_scipy("tuning (the Friedman test)")
    chosen = variant(solver)
    if chosen.given:
        raise BadInput(f"name the solver without options ({chosen.name}); options to hold fixed go in the space")
    parsed = parse_space(space_text(space), chosen.name, chosen.solver.options)
    runs, seconds = inputs.parse_budget(budget)
    test_runs = whole_number(test_runs, "test_runs", minimum=0)
    problems = boards_of(boards)
    for problem in problems:
        check_runnable(chosen, problem)
    # no held-out test, no instance set aside: the race runs on every board
    race_boards, held_out, note = split_boards(problems) if test_runs else (tuple(problems), tuple(problems), None)
    setup = TuneSetup(
        chosen.solver, parsed, race_boards, held_out, TuningBudget(runs, seconds), goal, test_runs, limits
    )
    results = ResultsFile.of(out) if out is not None else None
    if results is not None:
        check_output(results.path, "a results file", reading=files_read(problems), flag="--out")
    tell = notify or python_warning
    if note:
        tell(f"note: {note}")
    tuned = run_tune(
        setup,
        out=results,
        executor=executor,
        progress=progress,
        warn=lambda text: tell(f"warning: {text}"),
        verify_resumed=verify_resumed,
    )
    if note:
        tuned.notes.append(f"Note: {note}.")
    return tuned


def space_text(space: str | Path) -> str:
    """A tuning space's text: given as it is, or read from a file (a Path, or ``@FILE``) someone else may
    have written: a regular file of at most 64 KB, UTF-8."""
    if isinstance(space, str) and not space.startswith("@"):
        return space
    if not isinstance(space, (str, Path)):
        raise BadInput(f"a space is its text or a file's path, not {type(space).__name__}")
    path = Path(space[1:]) if isinstance(space, str) else space
    with open_regular(path, "space file", inputs.SPACE_FILE_LIMIT) as handle:
        data = read_bounded(handle, inputs.SPACE_FILE_LIMIT, f"space file {str(path)!r}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadInput(f"space file {str(path)!r} is not UTF-8 text") from None


def tune_view(tuning: Tuning, format: str = "table") -> str:
    """A tune just made, shown as ``nqueens tune`` prints it (``table``, ``markdown`` or ``json``)."""
    from nqueens_plugins.views.tune_view import TuneShown, render_tune

    shown = TuneShown(
        tuning.setup.solver.name,
        tuning.setup.goal,
        tuning.setup.budget,
        tuning.outcome.iterations,
        tuning.outcome,
        tuning.held_out(),
        tuning.overhead_seconds,
        tuple(tuning.notes),
    )
    return render_tune(shown, format)


def tune_report(
    results: Path, grid: Mapping[str, Any], format: str, notify: Notify, limits: ReadLimits | None = None
) -> str:
    """A results file a tune wrote, shown from the race replayed out of the file (``results/tuning.replay``),
    read within ``limits`` (the report's)."""
    from nqueens_plugins.formats.records import Loaded, read_runs
    from nqueens_plugins.results.held_out import held_out
    from nqueens_plugins.results.statistics import require_scipy
    from nqueens_plugins.results.tuning import replay
    from nqueens_plugins.views.tune_view import TuneShown, render_tune, tune_html

    require_scipy("a tune's report (the Friedman test)")
    loaded = Loaded(limits=limits or ReadLimits())
    replayed = replay(grid, read_runs(results, loaded))
    for warning in loaded.warnings:
        notify(f"warning: {warning}")
    test = None
    if replayed.outcome is not None and replayed.test_records:
        best, defaults = replayed.outcome.best, replayed.space.baseline
        test = held_out(replayed.test_records, best, defaults, replayed.goal, replayed.timeout)
    shown = TuneShown(
        replayed.space.solver, replayed.goal, replayed.budget, replayed.iterations, replayed.outcome, test
    )
    return tune_html(shown) if format == "html" else render_tune(shown, format)


def select_schedule(
    records: str | Path | Iterable[Mapping[str, Any]],
    n: int | str | Problem | None = None,
    *,
    instance: str | None = None,
    fixed: Mapping[int, int] | str | None = None,
    blocked: Iterable[tuple[int, int]] | str | None = None,
    timeout: float | None = None,
    notify: Notify | None = None,
) -> Schedule:
    """SUNNY's time-sliced schedule for the board, learnt from ``records``: a few solvers run one after another,
    each for its slice of ``timeout`` seconds (by default the records' time limit; ``results/schedule.py``).
    The board is given as for ``solve``. ``notify`` hears the warning ``select``'s does, from as few instances."""
    from nqueens_plugins.results.portfolio import schedule_for_board
    from nqueens_plugins.results.selector import few_instances

    problem = problem_of(n, instance, fixed, blocked)
    schedule = schedule_for_board(grouped(records).groups, problem.n, problem.fixed, problem.blocked, timeout)
    warning = few_instances(schedule.trained_on)
    if warning is not None:
        (notify or python_warning)(warning)
    return schedule


def export_aslib(results: str | Path, folder: str | Path, *, notify: Notify | None = None) -> tuple[int, int]:
    """A results file written as an ASlib scenario in the new folder ``folder`` (``formats/aslib.py``): the single
    solvers' runs on the instances they all ran, the host's features of each instance and the folds the
    selector is cross-validated on. Returns (algorithms, instances). ``notify`` hears the file reader's warnings."""
    from nqueens_plugins.formats.aslib import Scenario, write_scenario
    from nqueens_plugins.formats.records import Loaded, instance_label, read_runs
    from nqueens_plugins.results.features import FEATURE_NAMES, features
    from nqueens_plugins.results.selector import fold_of

    target = Path(folder)
    if os.path.lexists(target):
        raise BadInput(f"{str(target)!r} exists: an ASlib scenario is written into a new folder")
    check_new_folder(target, "-o")  # the scenario's folder is made; the one it goes in must exist
    loaded = Loaded()
    scenario = Scenario()
    for record in read_runs(Path(results), loaded):
        scenario.add(record, instance_label(record) or "")
    for warning in loaded.warnings:
        (notify or python_warning)(f"warning: {warning}")
    return write_scenario(target, Path(results).stem, scenario, FEATURE_NAMES, features, fold_of)


def plot(results: str | Path, output: str | Path, *, notify: Notify | None = None) -> Path:
    """``nqueens plot``: run-time distributions, ERT and success against n (or against an instance
    family's parameter) of a results file, written to ``output`` (``.png``, ``.svg`` or ``.pdf``; needs
    matplotlib), whole or not at all; returns its path. ``notify(line)`` hears the warnings (lines of the
    file skipped, a file mixing seeds; default: Python warnings). A file with no runs is refused."""
    from nqueens_plugins.views.plot import check_output as check_figure_output
    from nqueens_plugins.views.plot import plot_results

    target = Path(output)
    check_figure_output(target)
    check_output(target, "a figure", reading=[Path(results)])
    read = grouped(results)
    tell = notify or python_warning
    for warning in read.warnings + read.notes:
        tell(f"warning: {warning}")
    for line in read.certificates.lines() if read.certificates is not None else []:
        tell(f"note: {line}")  # what the success curves count as decided rests on these
    plot_results(read.groups, target)
    return target


@dataclass
class Grouped:
    """Runs grouped for a summary, a report or a plot, with what reading them found."""

    groups: dict[Any, Any]  # results.summary.group_runs: (solver, n, instance, seed, version) -> Group
    notes: list[str]  # what the reader should know of the runs (a file mixing seeds or versions)
    warnings: list[str]  # what the file reader skipped (a line cut short, a line that is not a record)
    headers: list[dict[str, Any]]  # the file's headers (provenance), none for records given as they are
    certificates: Certificates | None = None  # how a file's certificates were settled (None: records given as
    # they are, this process's own)


def tune_of(results: Path, limits: ReadLimits) -> Mapping[str, Any] | None:
    """The tune a results file's first header describes (``workflows.tune.read_tune_header``'s answer), read
    within the report's own limits."""
    from nqueens_plugins.formats.records import first_header

    grid = (first_header(results, limits) or {}).get("grid")
    return grid if isinstance(grid, dict) and isinstance(grid.get("tune"), dict) else None


def read_limits(max_lines: int | None, max_bytes: int | None) -> ReadLimits:
    """The bounds of one reading of a results file: the defaults (``records.MAX_LINES``, ``MAX_BYTES``) where
    not given; BadInput for a bound that is not a whole number from 1."""
    defaults = ReadLimits()
    return ReadLimits(
        defaults.lines if max_lines is None else max_lines, defaults.bytes if max_bytes is None else max_bytes
    )


def grouped(
    records: str | Path | Iterable[Mapping[str, Any]],
    boards: list[dict[str, Any]] | None = None,
    recheck: Recheck | None = None,
    limits: ReadLimits | None = None,
    time: str = "wall",
) -> Grouped:
    """The runs of a results file (streamed, ``records.read_runs``) or of the records given, grouped;
    with ``boards``, a few verified boards kept for the HTML page as they stream past. A file's certificates
    are settled as they stream past, their kept proofs re-checked as ``recheck`` says (a
    ``results.recheck.Recheck``; None: the default, ``auto``), its reading bounded by ``limits``."""
    from nqueens_plugins.formats.records import Loaded, read_runs
    from nqueens_plugins.results.summary import group_runs

    loaded = Loaded(limits=limits or ReadLimits())
    certificates = None
    if isinstance(records, (str, Path)):
        runs: Iterable[RunRecord] = read_runs(Path(records), loaded)
        certificates = Certificates(Path(records), recheck or Recheck())
    else:
        runs = map(RunRecord.given, records)  # compare's records (dicts), records_frame's rows: as given
    if boards is not None:
        from nqueens_plugins.views.html_report import sample_boards

        runs = sample_boards(runs, boards)
    groups, notes = group_runs(runs, certificates, time)
    return Grouped(groups, notes, loaded.warnings, loaded.headers, certificates)


def read_records_of(
    records: str | Path | Iterable[Mapping[str, Any]], warnings: list[str] | None = None
) -> Iterable[Mapping[str, Any]]:
    """The run records of a results file (each with its time limit), or the given records as they are;
    ``warnings`` hears what the file reader skipped (a line cut short, a line that is not a record)."""
    if isinstance(records, (str, Path)):
        from nqueens_plugins.formats.records import Loaded, read_runs

        loaded = Loaded()
        read = list(read_runs(Path(records), loaded))
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
