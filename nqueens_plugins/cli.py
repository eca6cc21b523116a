"""CLI layer, parent side: the ``nqueens`` command. It reads flags, calls ``api.py``, prints.

Every command turns its flags into API calls (the same functions ``import
nqueens_plugins`` offers), adding only what a terminal needs: progress bars, an
executor chosen by flag, notes on stderr. ``BadInput`` raised anywhere below is
caught once, in ``main``.

Exit statuses differ by command and are kept in one place, ``EXIT_STATUSES``,
shown at the end of each command's ``--help``: 2 is always bad input (one line
on stderr, never a traceback) and 130 an interruption. Options shared by
commands are spelled the same everywhere (``solver_option``,
``instance_option``, ``--json`` beside ``--format``); tests/test_cli.py walks
every command to keep it so.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any, TextIO, TypeVar, cast

import click

from nqueens_plugins.core import compile_notes
from nqueens_plugins.core.errors import BadInput, RejectedFile
from nqueens_plugins.core.limits import (
    CERTIFICATE_SIZE,
    CERTIFY_CHOICES,
    CHECK_MEMORY,
    CHECK_TIMEOUT,
    COMPARE_TIMEOUT,
    CROSS_CHECK_TIMEOUT,
    EXPORT_TIMEOUT,
    PREPARE_TIMEOUT,
    RECHECK_BUDGET,
    Limits,
)
from nqueens_plugins.core.problem import Status
from nqueens_plugins.formats.output_files import check_output, write_whole
from nqueens_plugins.formats.reading import RESULTS_MAX_BYTES, RESULTS_MAX_LINES
from nqueens_plugins.views.escaping import csv_for_terminal, for_terminal, printed_lines, strict_json

EXIT_NOT_SOLVED = 1
EXIT_BAD_INPUT = 2
EXIT_REJECTED = 3
EXIT_INTERRUPTED = 130

# What each command's exit status means, shown at the end of its --help (and in the README).
EXIT_STATUSES = {
    "solve": "0 solved (a verified board) or proved no solution; 1 not decided (gave-up, timed-out, an error, or "
    "a no-solution claim nothing confirms)",
    "count": "0 the count finished and nothing contradicts it; 1 not finished (timed-out: a lower bound) or an error",
    "compare": "0 every run recorded, whatever its outcome (the table scores them)",
    "race": "0 a member decided (a verified board, or a confirmed proof of no solution); 1 none did",
    "cross-check": "0 every answer agrees; 1 a disagreement, or an error where an answer was expected",
    "instances export": "0 written; 1 the plugin failed to write it",
    "tune": "0 the tune ended (the table says how the best fared against the defaults)",
    "check-proof": "0 certified: the proof refutes the instance; 1 not checked to its end (over its time, memory "
    "or size, or the checker failed)",
}
BAD_INPUT_STATUS = "2 bad input (one line on stderr)"
REJECTED_STATUS = "3 the verifier rejected an answer or a count"
PROOF_REJECTED_STATUS = "3 the proof is rejected (the first lemma that fails, or what else is wrong with it)"
RESUME_REJECTED_STATUS = "3 --resume refused: a kept answer made again came out otherwise (the file was changed)"
INTERRUPTED_STATUS = "130 interrupted"


def exit_statuses(command: str) -> str:
    """The epilog of a command's --help: its exit statuses."""
    statuses = [EXIT_STATUSES.get(command, "0 done"), BAD_INPUT_STATUS]
    if command in ("solve", "compare"):
        statuses.append(REJECTED_STATUS)
    if command == "count":
        statuses.append(f"{REJECTED_STATUS}, or {RESUME_REJECTED_STATUS[2:]}")
    if command == "tune":
        statuses.append(RESUME_REJECTED_STATUS)
    if command == "check-proof":
        statuses.append(PROOF_REJECTED_STATUS)
    return "Exit status: " + "; ".join([*statuses, INTERRUPTED_STATUS]) + "."


BOARD_DEFAULT_MAX = 32
COUNT_CONFIRM_FROM = 20  # api.COUNT_CONFIRM_FROM, for --help without importing the API (a test keeps them equal)

F = TypeVar("F", bound=Callable[..., Any])


class Whole(click.ParamType):
    """A whole number in plain ASCII digits (no 8_0, no full-width ８), optionally at least ``minimum``."""

    name = "integer"

    def __init__(self, minimum: int | None = None) -> None:
        self.minimum = minimum

    def convert(self, value: Any, param: Any, ctx: Any) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        else:
            text = str(value).strip()
            if not re.fullmatch(r"[+-]?[0-9]{1,30}", text):
                self.fail(f"takes a whole number, not {value!r}", param, ctx)
            number = int(text)
        if self.minimum is not None and number < self.minimum:
            self.fail(f"must be at least {self.minimum}, not {number}", param, ctx)
        return number


class Seconds(click.ParamType):
    """A positive, finite number of seconds, or ``none`` for no limit (where a limit may be lifted)."""

    name = "seconds"

    def __init__(self, allow_none: bool = True) -> None:
        self.allow_none = allow_none

    def convert(self, value: Any, param: Any, ctx: Any) -> float | None:
        if value is None or isinstance(value, float):
            return value
        text = str(value).strip().lower()
        if text in ("", "none"):
            if not self.allow_none:
                self.fail(f"takes a number of seconds; this limit cannot be lifted, not {value!r}", param, ctx)
            return None
        if not re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)(e[+-]?[0-9]+)?", text):
            self.fail(f"takes seconds, not {value!r}", param, ctx)
        seconds = float(text)
        if not 0 < seconds < float("inf"):
            self.fail(f"must be a positive number of seconds, not {value!r}", param, ctx)
        return seconds


class MemorySize(click.ParamType):
    """Bytes, or a size with a binary unit (512M, 2G)."""

    name = "size"

    def convert(self, value: Any, param: Any, ctx: Any) -> int | None:
        if value is None:
            return None
        try:
            return Limits(memory=value).memory
        except BadInput as exc:
            self.fail(str(exc), param, ctx)


WHOLE, COUNT, SECONDS, MEMORY = Whole(), Whole(minimum=0), Seconds(), MemorySize()
MEMORY_HELP = "Memory a run may allocate beyond its worker's own (512M, 2G); past it allocations fail."
PREPARE_HELP = (
    "Seconds a worker may take to prepare a solver (import its plugin, warm up, compile kernels) before "
    "its run is an error; preparation is never part of --timeout, and the built-in solvers' compile "
    "(once per machine) is not part of this limit either."
)


def fail(message: str, status: int = EXIT_BAD_INPUT) -> None:
    click.echo(f"nqueens: error: {for_terminal(message)}", err=True)  # it may quote a file: one line, shown
    sys.exit(status)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="nqueens-plugins")
def cli() -> None:
    """Solve N-Queens with many methods side by side; every answer is verified.

    \b
    The same command is installed as `nqueens` and as `nqueens-plugins` (for when
    another package's `nqueens` command shadows this one), and runs as
    `python -m nqueens_plugins` wherever the package is importable.
    """


# --- plugins -------------------------------------------------------------------


@cli.command(epilog=exit_statuses("plugins"))
@click.option("--json", "as_json", is_flag=True, help="One JSON object: solvers, load errors, blocked plugins.")
def plugins(as_json: bool) -> None:
    """List the solvers, who supplied them, and plugins that failed to load."""
    from nqueens_plugins.loading import host
    from nqueens_plugins.views.report import plugins_table, registry_to_dict

    registry = host.registry()
    if as_json:
        click.echo(json.dumps(registry_to_dict(registry), indent=2))
        return
    console = make_console()
    console.print(plugins_table(registry))
    for error in registry.load_errors:
        source = error.source
        origin = f"{source.distribution} {source.version}" if source.distribution else "not installed"
        console.print(f"plugin {source.plugin!r} ({origin}) failed to load: {error.message}", style="red")
    for failure in registry.probe_failures:
        console.print(f"warning: {failure}; every installed plugin was imported", style="red", highlight=False)
    if registry.blocked:
        console.print(f"blocked by NQUEENS_DISABLE_PLUGINS: {', '.join(registry.blocked)}", highlight=False)


# --- solve ---------------------------------------------------------------------


def limit_options(
    timeout: float | None,
    timeout_help: str,
    *,
    seed: str | None = None,
    iterations: bool = False,
    certify: bool = False,
) -> Callable[[F], F]:
    """The flags of a run's limits, made into one ``Limits`` at the front door: the command gets ``limits``.

    ``--timeout`` (its default ``timeout``, from ``core/limits.py``), ``--prepare-timeout`` and ``--memory``
    on every command that runs solvers; ``--seed`` (with ``seed`` as its help) and ``--max-iterations``
    where the command takes them; ``--certify``, ``--check-timeout`` and ``--keep-proofs`` where it solves
    (certificates of no-solution claims). A limit the flags get wrong is refused by ``Limits`` itself.
    """

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def with_limits(
            *args: Any,
            timeout: float | None,
            prepare_timeout: float,
            memory: int | None,
            seed: int = 0,
            max_iterations: int | None = None,
            certify: str = "auto",
            check_timeout: float = CHECK_TIMEOUT,
            keep_proofs: str | None = None,
            **kwargs: Any,
        ) -> Any:
            limits = Limits(
                timeout,
                prepare_timeout,
                memory,
                max_iterations,
                seed,
                certify=certify,
                check_timeout=check_timeout,
                keep_proofs=keep_proofs,
            )
            return command(*args, limits=limits, **kwargs)

        decorated: Any = with_limits
        if certify:
            decorated = click.option(
                "--keep-proofs",
                type=click.Path(file_okay=False, dir_okay=True, writable=True),
                default=None,
                metavar="DIR",
                help="Keep each checked certificate in DIR (made if missing, in a folder that exists), named after its run, beside its "
                "instance's canonical CNF as DIMACS, for an outside checker (drat-trim); the record names it.",
            )(decorated)
            decorated = click.option(
                "--check-timeout",
                type=Seconds(allow_none=False),
                default=f"{CHECK_TIMEOUT:g}",
                show_default=True,
                help="Seconds the checker may take over one certificate (its own limit, not the run's).",
            )(decorated)
            decorated = click.option(
                "--certify",
                type=click.Choice(CERTIFY_CHOICES),
                default="auto",
                show_default=True,
                help="Which runs of a solver that certifies prove a no-solution claim with a certificate the "
                "host checks: auto (where nothing else settles the claim: no published answer, not a plain "
                "board), always, never.",
            )(decorated)
        if iterations:
            decorated = click.option(
                "--max-iterations",
                type=Whole(minimum=1),
                default=None,
                help="Iteration cap (the budget's second limit).",
            )(decorated)
        if seed is not None:
            decorated = click.option("--seed", type=WHOLE, default=0, show_default=True, help=seed or None)(decorated)
        decorated = click.option(
            "--prepare-timeout",
            type=Seconds(allow_none=False),
            default=f"{PREPARE_TIMEOUT:g}",
            show_default=True,
            help=PREPARE_HELP,
        )(decorated)
        decorated = click.option("--memory", type=MEMORY, default=None, help=MEMORY_HELP)(decorated)
        shown = "none" if timeout is None else True
        default = None if timeout is None else f"{timeout:g}"
        decorated = click.option("--timeout", type=SECONDS, default=default, show_default=shown, help=timeout_help)(
            decorated
        )
        return decorated

    return decorate


def output_option(command: F) -> F:
    """``--show-output``: what a solver printed is captured per run (``execution/output.py``); this shows it."""
    return click.option(
        "--show-output",
        is_flag=True,
        help="Show the end of what the solver printed in each run (captured, never streamed to the terminal).",
    )(command)


def tell_output(label: str, printed: int, tail: str | None, shown: bool) -> None:
    """A run's captured output on stderr: its end when asked for (or when the run failed), else how much."""
    if not printed:
        return
    from nqueens_plugins.execution.output import format_size

    if shown and tail is not None:
        cut = "" if len(tail.encode()) >= printed else f", its last {len(tail):,} characters"
        click.echo(f"nqueens: {label} printed {format_size(printed)}{cut}:", err=True)
        click.echo(tail.rstrip("\n"), err=True)
        click.echo("nqueens: (end of what it printed)", err=True)
    else:
        click.echo(
            f"nqueens: note: {label} printed {format_size(printed)} (kept, not shown: --show-output shows its end)",
            err=True,
        )


class RunsWatched:
    """What a comparison's records leave for the end, kept while they stream past (never the records: a
    grid of a million runs holds a few numbers per solver): how many, whether any was rejected, and what
    the solvers printed (each printing run's end when ``--show-output`` asks, else a total per solver)."""

    def __init__(self, show_output: bool) -> None:
        self.show_output = show_output
        self.runs = 0
        self.rejected = False
        self.printed: dict[str, list[int]] = {}  # solver -> [bytes, runs]
        self.tails: list[tuple[str, int, str | None]] = []  # with --show-output: (label, bytes, its end)

    def follow(self, records: Iterable[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
        for record in records:
            self.runs += 1
            self.rejected = self.rejected or record["status"] == Status.INVALID
            printed = int(record.get("output_bytes") or 0)
            if printed and self.show_output:
                label = f"{record['solver']} on n={record['n']} (trial {record['trial']})"
                self.tails.append((label, printed, record.get("output")))
            elif printed:
                total = self.printed.setdefault(str(record["solver"]), [0, 0])
                total[0] += printed
                total[1] += 1
            yield record

    def tell(self) -> None:
        for label, printed, tail in self.tails:
            tell_output(label, printed, tail, True)
        from nqueens_plugins.execution.output import format_size

        for solver, (printed, runs) in self.printed.items():
            click.echo(
                f"nqueens: note: {solver} printed {format_size(printed)} in {runs:,} run{'s' if runs != 1 else ''} "
                "(each run's end is in its record; --show-output shows it)",
                err=True,
            )


def executor_options(command: F) -> F:
    """``--executor local|dask`` and ``--scheduler ADDRESS`` for the commands that run many tasks."""
    command = click.option(
        "--scheduler", default=None, help="Dask scheduler address (default: $NQUEENS_DASK_SCHEDULER)."
    )(command)
    return click.option(
        "--executor",
        "executor_kind",
        type=click.Choice(["local", "dask"]),
        default="local",
        show_default=True,
        help="Where solver calls run: worker processes here, or a Dask cluster.",
    )(command)


INSTANCE_HELP = "An instance file (CSPLib Essence', Excluded Diagonals FILE@d, or nqueens JSON) instead of -n."
INSTANCES_HELP = "Instead of -n: instance files, folders or globs (FILE@d, FILE@a..b for excluded diagonals)."
FIXED_HELP = "Pre-placed queens COLUMN:ROW,... (0-based), on every board."
BLOCKED_HELP = "Blocked squares COLUMN:ROW,... (0-based): no queen may stand there, on every board."

# The shared options, spelled the same in every command (tests/test_cli.py walks them).
SOLVER_NAMES = ("-s", "--solver", "--solvers")
INSTANCE_NAMES = ("--instance", "--instances")


def solver_option(help: str, **kwargs: Any) -> Callable[[F], F]:
    return click.option(*SOLVER_NAMES, "spec", help=help, **kwargs)


def instance_option(help: str) -> Callable[[F], F]:
    return click.option(*INSTANCE_NAMES, "instance", default=None, help=help)


def json_format(fmt: str, as_json: bool) -> str:
    """``--json``, the short form of ``--format json`` wherever --format offers json."""
    if as_json and fmt not in ("table", "json"):
        raise BadInput(f"--json and --format {fmt} ask for two formats; give one")
    return "json" if as_json else fmt


@cli.command(epilog=exit_statuses("solve"))
@solver_option("NAME or NAME[key=value,...]", required=True)
@click.option("-n", "size", default=None, help="Board size.")
@instance_option(INSTANCE_HELP)
@limit_options(
    None,
    "Seconds before the solver must stop.",
    seed="Seed; the same command gives the same answer.",
    iterations=True,
    certify=True,
)
@click.option("--fixed", default=None, help=FIXED_HELP)
@click.option("--blocked", default=None, help=BLOCKED_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option(
    "--queens/--no-queens", "show_queens", default=None, help="Include queens in --json (default: n <= 1000)."
)
@click.option(
    "--board/--no-board",
    default=None,
    help=f"Draw the board (default: n <= {BOARD_DEFAULT_MAX}); only a verified solution is drawn, never a board "
    "that is not one.",
)
@output_option
@click.option(
    "--trace", "trace_file", default=None, help="Record every step to this file (n <= 64), for nqueens animate."
)
def solve(
    spec: str,
    size: str | None,
    instance: str | None,
    limits: Limits,
    fixed: str | None,
    blocked: str | None,
    as_json: bool,
    show_queens: bool | None,
    board: bool | None,
    show_output: bool,
    trace_file: str | None,
) -> None:
    """Solve one board or instance, verify the answer, show it."""
    from nqueens_plugins import api
    from nqueens_plugins.views.report import render_board, result_summary

    # The solver and the board first, outside the note: an unknown solver or a refused file is one line however
    # long finding it took (on a busy machine, a 4 GiB archive bomb took 3 s to refuse, and the note came first).
    chosen = api.variant(spec)
    problem = api.problem_of(size, instance, fixed, blocked)
    with elapsed_on_terminal(f"solving with {spec}"):
        result = api.solve(chosen, problem, limits=limits, trace=trace_file if trace_file is not None else False)
    if trace_file is not None and result.trace is None:  # the worker died or was killed: nothing came back
        click.echo(f"nqueens: note: no trace written: the run ended with {result.status}", err=True)
    elif trace_file is not None and result.trace is not None:
        steps = f"{len(result.trace.events):,} steps" + (", cut short" if result.trace.truncated else "")
        click.echo(
            f"nqueens: wrote {trace_file} ({steps}); nqueens animate {trace_file} -o run.html draws it", err=True
        )
    if as_json:
        click.echo(strict_json(result.to_dict(keep_queens=show_queens)))
    else:
        console = make_console()
        show_board = board if board is not None else result.n <= BOARD_DEFAULT_MAX
        if show_board and result.queens is not None and result.solved:  # only an answer is drawn as one
            console.print(render_board(result.queens, result.problem.fixed, result.problem.blocked), highlight=False)
        console.print(result_summary(result), highlight=False)
    failed = result.status in (Status.ERROR, Status.INVALID)
    tell_output(result.solver, result.output_bytes, result.output, show_output or failed)
    if result.status == Status.INVALID:
        sys.exit(EXIT_REJECTED)
    if not result.decided:
        sys.exit(EXIT_NOT_SOLVED)


# --- race ----------------------------------------------------------------------


@cli.command(epilog=exit_statuses("race"))
@solver_option("A,B[key=value,...]: two solvers or more, at most one per core.", required=True)
@click.option("-n", "size", default=None, help="Board size.")
@instance_option(INSTANCE_HELP)
@limit_options(None, "Seconds before every member must stop.", seed="Seed of every member's run.", certify=True)
@click.option("--fixed", default=None, help=FIXED_HELP)
@click.option("--blocked", default=None, help=BLOCKED_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def race(
    spec: str,
    size: str | None,
    instance: str | None,
    limits: Limits,
    fixed: str | None,
    blocked: str | None,
    as_json: bool,
) -> None:
    """Race solvers on one board, each on a core of its own: the first decided answer wins, the rest are stopped."""
    from nqueens_plugins import api
    from nqueens_plugins.views.report import race_summary

    problem = api.problem_of(size, instance, fixed, blocked)  # before the note, as solve's: a bad board is one line
    with elapsed_on_terminal(f"racing {spec}"):
        raced = api.race(spec, problem, limits=limits)
    if as_json:
        click.echo(strict_json(raced.to_dict()))
    else:
        make_console().print(race_summary(raced), highlight=False)
    if not raced.decided:
        sys.exit(EXIT_NOT_SOLVED)


# --- count ---------------------------------------------------------------------


@cli.command(epilog=exit_statuses("count"))
@solver_option("A complete solver.", default="bitboard", show_default=True)
@click.option("-n", "size", default=None, help="Board size.")
@instance_option(INSTANCE_HELP)
@click.option("--unique", is_flag=True, help="Count solutions up to rotation and reflection (OEIS A002562).")
@limit_options(None, "Seconds before counting stops (the count is then a lower bound).")
@click.option("--fixed", default=None, help=FIXED_HELP)
@click.option("--blocked", default=None, help=BLOCKED_HELP)
@click.option("--yes", is_flag=True, help=f"Start a count for n >= {COUNT_CONFIRM_FROM} without a --timeout.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--progress/--no-progress", default=None, help="Live progress, piece by piece (default: on a terminal).")
@click.option(
    "--out",
    default=None,
    help="Keep each finished piece of the count in this file as it ends, so --resume can continue a stopped count.",
)
@click.option("--resume", is_flag=True, help="Count only the pieces --out does not hold yet, and add them up.")
@click.option(
    "--verify-resumed",
    "verify_resumed",
    type=float,
    default=0.1,
    show_default=True,
    metavar="FRACTION",
    help="With --resume, the share of the pieces in --out counted again to check the file (at least one; "
    "1: all, 0: trust the file); none when OEIS checks the total. One that comes out otherwise: exit 3.",
)
@output_option
@executor_options
def count(
    spec: str,
    size: str | None,
    instance: str | None,
    unique: bool,
    limits: Limits,
    fixed: str | None,
    blocked: str | None,
    yes: bool,
    as_json: bool,
    progress: bool | None,
    out: str | None,
    resume: bool,
    verify_resumed: float,
    show_output: bool,
    executor_kind: str,
    scheduler: str | None,
) -> None:
    """Count every solution; check the count against OEIS (plain boards).

    A long count is kept piece by piece with --out FILE; after a kill or a --timeout, the same
    command with --resume counts only the pieces not in FILE yet.
    """
    from nqueens_plugins import api
    from nqueens_plugins.views.report import count_summary

    if progress is None:
        progress = sys.stderr.isatty()
    plan = api.count_plan(
        spec,
        size,
        instance=instance,
        unique=unique,
        fixed=fixed,
        blocked=blocked,
        limits=limits,
        progress=progress,
        out=out,
        kind=executor_kind,
    )
    if resume and out is None:
        fail("--resume continues the count kept in --out FILE: give --out too")
    from nqueens_plugins.results.resume_checks import check_fraction

    trusted = check_fraction(verify_resumed) == 0
    if resume and trusted:
        tell(f"note: --verify-resumed 0: the pieces in {out} are added up as the file says, none counted again")
    how_long = None  # the solver's estimate for a count that takes days, said before the count and after
    refused = plan.needs_confirmation and not yes
    if plan.long and (refused or not as_json):  # the estimate takes a second: only where it is shown
        how_long = plan.how_long
        if refused:
            fail(f"{plan.describe()} on this machine; add --timeout SEC to count for that long, or --yes")
        if how_long:
            timeout = limits.timeout
            limit = f"; counting for {timeout:g} s" if timeout is not None else ""
            click.echo(f"nqueens: note: {plan.describe()} on this machine (its estimate){limit}", err=True)
    with api.executor_for(executor_kind, scheduler, plan.jobs) as executor, count_progress(progress) as shown:
        result = api.count(
            plan.variant,
            plan.problem,
            unique=unique,
            limits=limits,
            executor=executor,
            progress=shown,
            out=out,
            resume=resume,
            verify_resumed=verify_resumed,
        )
    if as_json:
        click.echo(strict_json(result.to_dict()))
    else:
        make_console().print(count_summary(result, how_long), highlight=False)
    failed = result.status in (Status.ERROR, Status.INVALID)
    tell_output(result.solver, result.output_bytes, result.output, show_output or failed)
    if result.status == Status.INVALID:
        sys.exit(EXIT_REJECTED)
    if result.status != Status.SOLVED:
        sys.exit(EXIT_NOT_SOLVED)


# --- cross-check ---------------------------------------------------------------


@cli.command("cross-check", epilog=exit_statuses("cross-check"))
@click.option("-n", "sizes", default=None, help="Sizes: 8,10 or 1..12 or 4..40:4 (default 1..12).")
@instance_option(INSTANCES_HELP)
@solver_option(
    "Comma-separated solvers, or all (default: all for plain boards, every complete solver for instances, "
    "--fixed and --blocked)."
)
@click.option("--fixed", default=None, help=FIXED_HELP + " Checked as instances.")
@click.option("--blocked", default=None, help=BLOCKED_HELP + " Checked as instances.")
@click.option(
    "--expected", default=None, help="Published answers to agree with (CSPLib lingeling or shiftqueens results)."
)
@click.option(
    "--count", "counting", is_flag=True, help="With --instances: also count every instance and compare the counts."
)
@limit_options(CROSS_CHECK_TIMEOUT, "Seconds per solve or count.", seed="", certify=True)
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
@executor_options
def cross_check(
    sizes: str | None,
    instance: str | None,
    spec: str | None,
    fixed: str | None,
    blocked: str | None,
    expected: str | None,
    counting: bool,
    limits: Limits,
    as_json: bool,
    executor_kind: str,
    scheduler: str | None,
) -> None:
    """Every solver on each n (or instance); all must agree with each other and with what is published."""
    from nqueens_plugins import api
    from nqueens_plugins.results.crosscheck import tally
    from nqueens_plugins.views.report import crosscheck_table, crosscheck_verdict, instance_checks_summary

    instances = api.cross_check_boards(
        sizes, instance, fixed=fixed, blocked=blocked, expected=expected, counting=counting
    )
    with api.executor_for(executor_kind, scheduler) as executor:
        if instances is not None:
            found, skipped = api.cross_check_files(
                instances,
                spec,
                expected=expected,
                counting=counting,
                limits=limits,
                executor=executor,
                notify=tell,
            )
        else:
            checks = api.cross_check(
                spec,
                sizes or "1..12",
                limits=limits,
                executor=executor,
                notify=tell,
            )
    if instances is not None:
        if as_json:
            click.echo(strict_json({"checks": [c.to_dict() for c in found], "skipped": skipped}, indent=2))
        else:
            for label, reason in skipped.items():
                click.echo(f"nqueens: note: {label} skipped where it cannot take the instance: {reason}", err=True)
            show(instance_checks_summary(found, expected is not None))
            click.echo(crosscheck_verdict(*tally(found)))
        sys.exit(0 if all(c.agrees for c in found) else EXIT_NOT_SOLVED)
    if as_json:
        click.echo(strict_json([c.to_dict() for c in checks], indent=2))
    else:
        make_console().print(crosscheck_table(checks))
    problems = [c for c in checks if not c.agrees]
    if not as_json:
        for check in problems:
            click.echo(f"disagreement: {check.describe()}", err=True)
        click.echo(crosscheck_verdict(*tally(checks)))
    sys.exit(0 if not problems else EXIT_NOT_SOLVED)


# --- compare, report, plot -----------------------------------------------------


@cli.command(epilog=exit_statuses("compare"))
@solver_option("A,B[key=value,...] or all.", required=True)
@click.option("-n", "sizes", default=None, help="Sizes: 8,16,32 or 4..40:4.")
@instance_option(INSTANCES_HELP)
@click.option("--trials", type=Whole(minimum=1), default=1, show_default=True, help="Runs per solver and size.")
@limit_options(
    COMPARE_TIMEOUT, "Seconds per run, killed from outside after that; none for no limit.", seed="", certify=True
)
@click.option("--jobs", type=COUNT, default=0, show_default=True, help="Worker processes; 0 means one per core.")
@click.option("--out", default=None, help="Append each record to this JSON-lines file as it finishes.")
@click.option("--resume", is_flag=True, help="Skip runs already recorded in --out.")
@click.option("--fixed", default=None, help=FIXED_HELP)
@click.option("--blocked", default=None, help=BLOCKED_HELP)
@click.option("--queens", "keep_queens", is_flag=True, help="Keep queens in records for every n (default n <= 1000).")
@click.option(
    "--format", "fmt", type=click.Choice(["table", "markdown", "csv", "json"]), default="table", show_default=True
)
@click.option("--json", "as_json", is_flag=True, help="Short for --format json.")
@click.option("--progress/--no-progress", default=None, help="Live progress bar (default: on a terminal).")
@output_option
@executor_options
def compare(
    spec: str,
    sizes: str | None,
    instance: str | None,
    trials: int,
    limits: Limits,
    jobs: int,
    out: str | None,
    resume: bool,
    fixed: str | None,
    blocked: str | None,
    keep_queens: bool,
    fmt: str,
    as_json: bool,
    progress: bool | None,
    show_output: bool,
    executor_kind: str,
    scheduler: str | None,
) -> None:
    """Run every solver on every size (or instance) for some trials, isolated in worker processes; summarise."""
    from nqueens_plugins import api
    from nqueens_plugins.results.summary import summarise
    from nqueens_plugins.views.report import render_summary

    fmt = json_format(fmt, as_json)
    if (sizes is None) == (instance is None):
        raise BadInput("give board sizes (-n 8,16) or instance files (--instances FILES), one of the two")
    if instance is not None and (fixed is not None or blocked is not None):
        raise BadInput("--fixed and --blocked go with -n; an instance file carries its own")
    if resume and out is None:
        raise BadInput("--resume needs --out FILE")
    from nqueens_plugins.formats import inputs

    boards: Any
    if instance is not None:
        boards = api.problems_of(instance)
    elif fixed is not None or blocked is not None:
        boards = [api.problem_of(n, None, fixed, blocked) for n in inputs.parse_sizes(sizes or "")]
    else:
        boards = inputs.parse_sizes(sizes or "")  # -n is sizes, never a file
    command = " ".join(["nqueens", *sys.argv[1:]])
    results = api.ResultsFile(Path(out), resume, command) if out is not None else None
    show_progress = progress if progress is not None else sys.stderr.isatty()
    planned: list[int] = []
    with api.executor_for(executor_kind, scheduler, jobs) as executor:
        stream = api.compare_stream(
            spec,
            boards,
            trials,
            limits=limits,
            executor=executor,
            out=results,
            keep_queens=keep_queens,
            notify=tell,
            planned=planned.append,
        )
        watched = RunsWatched(show_output)
        runs = watched.follow(with_progress(stream, planned) if show_progress else stream)
        made: set[tuple[Any, ...]] = set()
        if resume and out is not None:  # the table is of the file this call completed, not only of its runs
            from nqueens_plugins.formats.records import run_key

            made.update(run_key(record) for record in runs)  # the host checked these as they ran
        else:
            rows = summarise(runs)  # streamed: the records are not kept
    if resume and out is not None:
        from nqueens_plugins.formats.records import read_runs
        from nqueens_plugins.results.recheck import Certificates

        certificates = Certificates(Path(out), made_here=frozenset(made))  # the earlier runs' are the file's word
        rows = summarise(read_runs(Path(out)), certificates=certificates)  # streamed: any size
        tell(f"note: the table covers every run in {out}; this call added {watched.runs:,}")
        for line in certificates.lines():
            tell(f"note: {line}")
    show(render_summary(rows, fmt), fmt)
    watched.tell()
    if watched.rejected:
        sys.exit(EXIT_REJECTED)


@cli.command(epilog=exit_statuses("report"))
@click.argument("results")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "markdown", "csv", "json", "html", "aslib"]),
    default="table",
    show_default=True,
    help="html: one self-contained page (needs -o); aslib: an ASlib scenario, a new folder (needs -o).",
)
@click.option("--json", "as_json", is_flag=True, help="Short for --format json.")
@click.option(
    "--baseline", default=None, help="A variant in the file: is each other one faster or slower than it, per n?"
)
@click.option("-o", "--output", default=None, help="Write here instead of the terminal (html: required).")
@click.option(
    "--recheck",
    type=click.Choice(["auto", "all", "never"]),
    default="auto",
    show_default=True,
    help="Re-check each kept proof of a 'certified' no-solution claim with the host's checker: auto, until "
    "--recheck-budget seconds are spent; all, every one; never, none. A claim no check made now confirms is "
    "shown as the file's word, never counted as decided.",
)
@click.option(
    "--recheck-budget",
    type=Seconds(allow_none=False),
    default=f"{RECHECK_BUDGET:g}",
    show_default=True,
    help="Seconds --recheck auto may spend re-checking kept proofs in all.",
)
@click.option(
    "--check-timeout",
    type=Seconds(allow_none=False),
    default=f"{CHECK_TIMEOUT:g}",
    show_default=True,
    help="Seconds the checker may take over one kept proof.",
)
@click.option(
    "--max-lines",
    type=click.IntRange(min=1),
    default=RESULTS_MAX_LINES,
    show_default=True,
    help="The most lines the file may hold, blank ones counted; past it the report is refused (exit 2), "
    "not made from the part read.",
)
@click.option(
    "--max-bytes",
    type=click.IntRange(min=1),
    default=RESULTS_MAX_BYTES,
    show_default=True,
    help="The most bytes the file may unpack to (its size, when plain); past it the report is refused (exit 2).",
)
@click.option(
    "--time",
    "time_kind",
    type=click.Choice(["wall", "cpu"]),
    default="wall",
    show_default=True,
    help="The seconds ERT, PAR-10, the quartiles and the portfolio rank runs by: wall, the solver call's; cpu, "
    "its CPU seconds (record version 3), still censored at the wall time limit. A file where some run decided "
    "without CPU seconds is refused with cpu (exit 2).",
)
def report(
    results: str,
    fmt: str,
    as_json: bool,
    baseline: str | None,
    output: str | None,
    recheck: str,
    recheck_budget: float | None,
    check_timeout: float | None,
    max_lines: int,
    max_bytes: int,
    time_kind: str,
) -> None:
    """Summarise a results file written by compare --out (streamed; plain or kept compressed with gzip, bzip2 or
    xz; its reading bounded by --max-lines and --max-bytes). A 'certified' no-solution claim counts as decided
    only where its kept proof is checked again now (--recheck)."""
    from nqueens_plugins import api

    fmt = json_format(fmt, as_json)
    if fmt == "aslib":
        if output is None or baseline is not None:
            raise BadInput("--format aslib writes a folder: give -o FOLDER (and no --baseline)")
        algorithms, instances = api.export_aslib(results, output, notify=tell)
        click.echo(f"wrote {output}: an ASlib scenario of {algorithms} algorithms on {instances} instances")
        return
    shown = api.report(
        results,
        format=fmt,
        baseline=baseline,
        output=output,
        notify=tell,
        recheck=recheck,
        recheck_budget=recheck_budget,
        check_timeout=check_timeout,
        max_lines=max_lines,
        max_bytes=max_bytes,
        time=time_kind,
    )
    if output is None:
        show(shown, fmt)
    elif fmt == "html":
        click.echo(f"wrote {output} ({len(shown.encode()) / 1024:,.0f} KiB)")
    else:
        click.echo(f"wrote {output}")


@cli.command(epilog=exit_statuses("select"))
@click.argument("results")
@click.option("-n", "size", default=None, help="Board size.")
@instance_option(INSTANCE_HELP)
@click.option("--fixed", default=None, help=FIXED_HELP)
@click.option("--blocked", default=None, help=BLOCKED_HELP)
@click.option("--schedule", is_flag=True, help="SUNNY's time-sliced schedule of a few solvers, not one solver.")
@click.option("--timeout", type=float, default=None, show_default="the records' time limit",
              help="With --schedule: the seconds the slices add up to.")  # fmt: skip
@click.option("--time", "time_kind", type=click.Choice(["wall", "cpu"]), default="wall", show_default=True,
              help="The seconds the past runs are scored by (PAR-2): wall, or cpu (as report --time); not with "
              "--schedule, whose slices are wall seconds.")  # fmt: skip
def select(
    results: str, size: str | None, instance: str | None, fixed: str | None, blocked: str | None, schedule: bool,
    timeout: float | None, time_kind: str,
) -> None:  # fmt: skip
    """Which solver to run on a board, learnt from a results file: the best over the nearest past instances."""
    from nqueens_plugins import api

    if timeout is not None and not schedule:
        raise BadInput("--timeout goes with --schedule: a selection runs one solver under your own limit")
    if schedule and time_kind != "wall":
        raise BadInput("--time cpu goes without --schedule: a schedule's slices are wall seconds")
    if schedule:
        sliced = api.select_schedule(
            results, size, instance=instance, fixed=fixed, blocked=blocked, timeout=timeout, notify=tell
        )
        click.echo(for_terminal(sliced.describe()))
        return
    chosen = api.select(results, size, instance=instance, fixed=fixed, blocked=blocked, notify=tell, time=time_kind)
    click.echo(for_terminal(chosen.describe()))


@cli.command(epilog=exit_statuses("tune"))
@click.argument("solver")
@click.option(
    "--space",
    required=True,
    help="The options to tune: cooling=0.8..0.999,t0=1..10000:log,init=random|greedy (ranges, :log, choices; "
    "name=value holds one fixed); @FILE reads them from a file.",
)
@click.option("-n", "sizes", default=None, help="Sizes: 64,128,256.")
@instance_option(INSTANCES_HELP + " One in three is set aside for the held-out test.")
@click.option(
    "--budget", required=True, help="What the race may spend: runs (500), or the solver's own seconds (600s, 10m)."
)
@click.option(
    "--goal",
    type=click.Choice(["par10", "ert", "ert-iterations"]),
    default="par10",
    show_default=True,
    help="Decided first, then PAR-10 seconds, ERT seconds or ERT in iterations (the same on any machine).",
)
@click.option(
    "--test-runs",
    type=Whole(minimum=0),
    default=20,
    show_default=True,
    help="Held-out blocks each for the best configuration and the defaults (0: no test).",
)
@limit_options(
    COMPARE_TIMEOUT,
    "Seconds per run, killed from outside after that; none for no limit.",
    seed="The seed configurations are sampled from and runs seeded by.",
)
@click.option("--jobs", type=COUNT, default=0, show_default=True, help="Worker processes; 0 means one per core.")
@click.option("--out", default=None, help="Append each run's record to this JSON-lines file as it finishes.")
@click.option("--resume", is_flag=True, help="Continue the tune in --out: runs already there are not made again.")
@click.option(
    "--verify-resumed",
    "verify_resumed",
    type=float,
    default=0.1,
    show_default=True,
    metavar="FRACTION",
    help="With --resume, the share of the runs in --out made again to check the file (at least one; 1: all, "
    "0: trust the file). One that comes out otherwise: exit 3.",
)
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "json"]), default="table", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Short for --format json.")
@click.option("--progress/--no-progress", default=None, help="Live count of runs (default: on a terminal).")
@executor_options
def tune(
    solver: str,
    space: str,
    sizes: str | None,
    instance: str | None,
    budget: str,
    goal: str,
    test_runs: int,
    limits: Limits,
    jobs: int,
    out: str | None,
    resume: bool,
    verify_resumed: float,
    fmt: str,
    as_json: bool,
    progress: bool | None,
    executor_kind: str,
    scheduler: str | None,
) -> None:
    """Tune a solver's options by iterated racing (irace's scheme and Friedman test); test the best on held-out runs.

    Prints the best configuration as a spec -s takes as it is, those no test separated from it, which
    configuration each race dropped and on what evidence, and the best against the solver's defaults on
    runs the race never saw."""
    from nqueens_plugins import api
    from nqueens_plugins.formats import inputs

    fmt = json_format(fmt, as_json)
    if (sizes is None) == (instance is None):
        raise BadInput("give board sizes (-n 64,128) or instance files (--instances FILES), one of the two")
    if resume and out is None:
        raise BadInput("--resume needs --out FILE")
    from nqueens_plugins.results.resume_checks import check_fraction

    trusted = check_fraction(verify_resumed) == 0
    if resume and trusted:
        tell(f"note: --verify-resumed 0: the runs in {out} are taken as the file says, none made again")
    boards: Any = api.problems_of(instance) if instance is not None else inputs.parse_sizes(sizes or "")
    command = " ".join(["nqueens", *sys.argv[1:]])
    results = api.ResultsFile(Path(out), resume, command) if out is not None else None
    show_progress = progress if progress is not None else sys.stderr.isatty()
    with api.executor_for(executor_kind, scheduler, jobs) as executor, runs_counter(show_progress) as counted:
        tuned = api.tune(solver, space, boards, budget=budget, goal=goal, test_runs=test_runs, limits=limits,
                         executor=executor, out=results, notify=tell, progress=counted,
                         verify_resumed=verify_resumed)  # fmt: skip
    show(api.tune_view(tuned, fmt))


@contextlib.contextmanager
def runs_counter(enabled: bool) -> Iterator[Callable[[int], None] | None]:
    """A callback that shows, live on stderr, how many runs a tune has made."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn("tuning: {task.completed:,} runs"), TimeElapsedColumn(),
                   console=Console(stderr=True), transient=True)  # fmt: skip
    with bar:
        task = bar.add_task("runs", total=None)
        yield lambda runs: bar.update(task, completed=runs)


@cli.command(epilog=exit_statuses("plot"))
@click.argument("results")
@click.option("-o", "--output", required=True, help="Figure file: .png, .svg or .pdf.")
def plot(results: str, output: str) -> None:
    """Plot run-time distributions, ERT and success against n from a results file (.png, .svg or .pdf)."""
    from nqueens_plugins import api

    api.plot(results, output, notify=tell)
    click.echo(f"wrote {output}")


@cli.command(epilog=exit_statuses("animate"))
@click.argument("trace")
@click.option("-o", "--output", required=True, help="run.html (play/step controls), run.svg or run.gif.")
def animate(trace: str, output: str) -> None:
    """Show a traced run step by step: the board, the attacked queens, the cost curve."""
    from nqueens_plugins.views.animate import animate as write_animation
    from nqueens_plugins.views.animate import read_trace

    target = Path(output)
    check_output(target, "an animation", reading=[Path(trace)])
    frames = write_animation(read_trace(Path(trace)), target)
    click.echo(f"wrote {output} ({frames:,} frames)")


@contextlib.contextmanager
def count_progress(enabled: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A callback for ``count_in_parts`` that draws a live bar of pieces counted on stderr."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn("counting"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = bar.add_task("pieces", total=None)

    def shown(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    with bar:
        yield shown


def with_progress(records: Any, planned: list[int]) -> Any:
    """Pass records through while a live progress bar on stderr (rich) counts them."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[latest]}"),
        console=Console(stderr=True),
        transient=True,
    )
    task = None
    with bar:
        for record in records:
            if task is None:
                task = bar.add_task("runs", total=planned[0] if planned else None, latest="")
            bar.update(task, advance=1, latest=f"{record['solver']} n={record['n']}: {record['status']}")
            yield record


# --- instances -----------------------------------------------------------------


@cli.group(epilog=exit_statuses("instances"))
def instances() -> None:
    """Instance files: generate families of hard instances, show one."""


@instances.command("generate", epilog=exit_statuses("instances generate"))
@click.argument("kind", type=click.Choice(["completion", "blocked", "diagonals"]))
@click.option("-n", "size", required=True, help="Board size.")
@click.option("--count", "how_many", type=Whole(minimum=1), default=10, show_default=True, help="How many instances.")
@click.option("--seed", type=WHOLE, default=0, show_default=True, help="The same seed gives the same files.")
@click.option("-k", "--queens", type=COUNT, default=None, help="completion: pre-placed queens (default n/2).")
@click.option("-b", "--blocks", type=COUNT, default=None, help="blocked: blocked squares (default n^2/2).")
@click.option(
    "-m",
    "--min-free",
    type=COUNT,
    default=4,
    show_default=True,
    help="diagonals: open squares kept per row and column.",
)
@click.option("--out", required=True, help="Folder to write the files to.")
def generate(
    kind: str, size: str, how_many: int, seed: int, queens: int | None, blocks: int | None, min_free: int, out: str
) -> None:
    """Write a family of instances in the CSPLib formats (completion, blocked squares, excluded diagonals)."""
    from nqueens_plugins.formats import inputs
    from nqueens_plugins.formats.instances import generate as write_family

    n = inputs.parse_size(size)
    parameter = {
        "completion": queens if queens is not None else n // 2,
        "blocked": blocks if blocks is not None else n * n // 2,
        "diagonals": min_free,
    }[kind]
    paths = write_family(kind, n, how_many, seed, parameter, Path(out))
    hint = "@d (0..numdiags) chooses how many diagonals" if kind == "diagonals" else ""
    click.echo(f"wrote {len(paths)} {kind} instances of n = {n} to {out}" + (f"; {hint}" if hint else ""))


@instances.command("show", epilog=exit_statuses("instances show"))
@click.argument("instance")
@click.option("--json", "as_json", is_flag=True, help="Print the instance in nqueens JSON.")
def show_instance(instance: str, as_json: bool) -> None:
    """Print one instance: size, fixed queens, blocked squares, content hash, and the board."""
    from nqueens_plugins.formats.instances import load_one, to_json
    from nqueens_plugins.views.report import render_board

    problem = load_one(instance)
    if as_json:
        click.echo(json.dumps(to_json(problem)))
        return
    click.echo(
        f"{for_terminal(problem.label)}: n = {problem.n}, {len(problem.fixed)} fixed queens, "
        f"{len(problem.blocked)} blocked squares, id {problem.id}"
    )
    reason = problem.contradiction()
    if reason:
        click.echo(f"no solution on its face: {reason}")
    if problem.n <= BOARD_DEFAULT_MAX:
        click.echo(render_board(None, problem.fixed, problem.blocked, n=problem.n))
    else:
        click.echo(f"(the board is not drawn above n = {BOARD_DEFAULT_MAX}; --json lists its squares)")


EXPORT_FORMATS = ("dimacs", "asp", "dzn", "mps", "smt2", "json")


@instances.command("export", epilog=exit_statuses("instances export"))
@click.option("-n", "size", default=None, help="A plain board of this size (with --fixed, --blocked).")
@instance_option(INSTANCE_HELP)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(EXPORT_FORMATS),
    default=None,
    help="dimacs (SAT), asp (ASP facts and rules), dzn (MiniZinc data), mps (MIP), smt2 (SMT-LIB 2), json (ours).",
)
@click.option("--json", "as_json", is_flag=True, help="Short for --format json.")
@solver_option(
    "The solver whose encoding to write (needed only where several export the format; dimacs without it: "
    "the canonical CNF that certificates refute)."
)
@click.option("--fixed", default=None, help=FIXED_HELP)
@click.option("--blocked", default=None, help=BLOCKED_HELP)
@limit_options(EXPORT_TIMEOUT, "Seconds the plugin may take to write it.")
@click.option("-o", "--output", default=None, help="Write here instead of standard output.")
def export_instance(
    size: str | None,
    instance: str | None,
    fmt: str | None,
    as_json: bool,
    spec: str | None,
    fixed: str | None,
    blocked: str | None,
    limits: Limits,
    output: str | None,
) -> None:
    """Write an instance exactly as a family's plugin poses it to its library (DIMACS CNF for a SAT solver,
    an ASP program, MPS for any MIP solver, SMT-LIB 2), to run a solver binary of your own on it."""
    from nqueens_plugins import api

    if (size is None) == (instance is None):
        raise BadInput("give an instance file (--instance FILE) or -n SIZE, one of the two")
    if as_json and fmt not in (None, "json"):
        raise BadInput(f"--json and --format {fmt} ask for two formats; give one")
    fmt = "json" if as_json else fmt
    if fmt is None:
        raise BadInput(f"say which format: --format {'|'.join(EXPORT_FORMATS)}")
    if output is not None:
        check_output(Path(output), "an exported instance", reading=[Path(instance)] if instance else [])
    try:
        text, written_by = api.export(
            fmt,
            size,
            instance=instance,
            solver=spec,
            fixed=fixed,
            blocked=blocked,
            limits=limits,
        )
    except api.ExportFailed as failure:
        click.echo(f"nqueens: {for_terminal(str(failure))}", err=True)  # a plugin's words: shown, not sent
        sys.exit(EXIT_NOT_SOLVED)
    if output is None:
        click.echo(text, nl=False)
    else:
        write_whole(Path(output), text)
        click.echo(f"nqueens: wrote {output} ({fmt}, as {written_by} poses it)", err=True)


# --- check-proof ---------------------------------------------------------------


CHECK_PROOF_EXIT = {"certified": 0, "rejected": EXIT_REJECTED, "over-budget": EXIT_NOT_SOLVED}
CHECK_PROOF_WORDS = {"certified": "certified", "rejected": "rejected", "over-budget": "over budget"}


@cli.command("check-proof", epilog=exit_statuses("check-proof"))
@click.argument("files", nargs=-1, required=True, metavar="[INSTANCE] PROOF")
@click.option(
    "-n", "size", default=None, help="A plain board of this size (with --fixed, --blocked) instead of INSTANCE."
)
@click.option("--fixed", default=None, help=FIXED_HELP)
@click.option("--blocked", default=None, help=BLOCKED_HELP)
@click.option(
    "--check-timeout",
    type=Seconds(allow_none=False),
    default=f"{CHECK_TIMEOUT:g}",
    show_default=True,
    help="Seconds the checker may take over the proof.",
)
@click.option(
    "--check-memory",
    type=MEMORY,
    default=f"{CHECK_MEMORY >> 30}G",
    show_default=True,
    help="Memory the checker may use.",
)
@click.option(
    "--certificate-size",
    type=MEMORY,
    default=f"{CERTIFICATE_SIZE >> 30}G",
    show_default=True,
    help="Bytes the proof may hold, on disk and unpacked (a small file that unpacks past it is over budget).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def check_proof(
    files: tuple[str, ...],
    size: str | None,
    fixed: str | None,
    blocked: str | None,
    check_timeout: float,
    check_memory: int,
    certificate_size: int,
    as_json: bool,
) -> None:
    """Check a DRUP/DRAT proof, written by any SAT solver, that an instance has no solution.

    \b
    The proof refutes the instance's canonical CNF, the formula
    `nqueens instances export --format dimacs` writes: text or binary DRAT,
    plain or gzip, bzip2, xz compressed. INSTANCE is an instance file as
    --instance takes it (FILE@d for excluded diagonals), or give -n (with
    --fixed, --blocked) and the PROOF alone. The host's own checker reads it in
    a process of its own, under the limits below.
    """
    from nqueens_plugins import api

    instance, proof = proof_arguments(files, size)
    limits = Limits(certificate_size=certificate_size, check_timeout=check_timeout, check_memory=check_memory)
    checked = api.check_proof(api.problem_of(size, instance, fixed, blocked), proof, limits=limits)
    if as_json:
        click.echo(strict_json(checked.to_dict()))
    elif checked.certified:
        click.echo(
            for_terminal(
                f"certified: {checked.proof} refutes {checked.instance} ({checked.lemmas:,} lemmas, "
                f"{checked.bytes:,} bytes, checked in {checked.seconds:.3f} s)"
            )
        )
    else:
        click.echo(for_terminal(f"{CHECK_PROOF_WORDS.get(checked.status, checked.status)}: {checked.reason}"))
    code = CHECK_PROOF_EXIT.get(checked.status, EXIT_NOT_SOLVED)
    if code:
        sys.exit(code)


def proof_arguments(files: tuple[str, ...], size: str | None) -> tuple[str | None, str]:
    """(instance file, proof) from ``[INSTANCE] PROOF``; with ``-n`` there is no file, and only one argument."""
    if len(files) > 2:
        raise BadInput(f"check-proof takes [INSTANCE] PROOF, not {len(files)} arguments")
    if len(files) == 2 and size is not None:
        raise BadInput("give an instance file (INSTANCE PROOF) or -n SIZE with the PROOF alone, not both")
    if len(files) == 1 and size is None:
        raise BadInput("give the instance the proof refutes: INSTANCE PROOF, or -n SIZE (with --fixed, --blocked)")
    return (files[0], files[1]) if len(files) == 2 else (None, files[0])


# --- helpers -------------------------------------------------------------------


SHOW_ELAPSED_AFTER = 1.0  # seconds: a solve that takes longer says, on a terminal, that it is still at work


@contextlib.contextmanager
def elapsed_on_terminal(what: str, after: float = SHOW_ELAPSED_AFTER, stream: TextIO | None = None) -> Iterator[None]:
    """From ``after`` seconds on, keep one line on a terminal's stderr saying how long ``what`` has run
    (the first call of a solver includes preparing it: imports, compiling kernels); cleared when done.
    Where stderr is not a terminal, one note at three times ``after``, so a log shows why it waited."""
    out = stream or sys.stderr
    if not out.isatty():  # a pipe or a log: one line, once, so a long first call is not mistaken for a hang
        note = threading.Timer(
            after * 3,
            lambda: out.write(
                f"nqueens: note: {what}: still at work (the first call of a solver "
                "includes preparing it: imports, compiling kernels)\n"
            ),
        )
        note.daemon = True
        note.start()
        try:
            yield
        finally:
            note.cancel()
        return
    done = threading.Event()
    start = time.monotonic()
    shown = threading.Event()

    def keep_showing() -> None:
        if done.wait(after):
            return
        while not done.is_set():
            elapsed = time.monotonic() - start
            out.write(f"\r{what}: {elapsed:.0f} s (the first call of a solver includes preparing it)")
            out.flush()
            shown.set()
            done.wait(0.5)

    watcher = threading.Thread(target=keep_showing, name="elapsed", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
        if shown.is_set():
            out.write("\r\x1b[K")  # the line is cleared: the answer follows on a clean terminal
            out.flush()


def show_compile_note(line: str) -> None:
    """The built-in engines compiling their kernels (once per machine, ``core.compile_notes``): a line of
    its own on stderr (on a terminal, over the still-at-work line, which comes back below it)."""
    sys.stderr.write(("\r\x1b[K" if sys.stderr.isatty() else "") + for_terminal(line) + "\n")
    sys.stderr.flush()


def tell(line: str) -> None:
    """A warning or note from the API (``warning: ...``, ``note: ...``), on stderr (names in it shown, not sent)."""
    click.echo(f"nqueens: {for_terminal(line)}", err=True)


def show(renderable: Any, fmt: str | None = None) -> None:
    """Print a table, or text in ``fmt`` (CSV's cells escaped for the terminal: ``escaping.csv_for_terminal``;
    every line of any text shown, never sent, as a last guard)."""
    if isinstance(renderable, str):
        click.echo(printed_lines(csv_for_terminal(renderable) if fmt == "csv" else renderable))
    elif not sys.stdout.isatty():  # piped: the table whole, without the padding rich fills its lines with
        from nqueens_plugins.views.report import plain_text

        click.echo(plain_text(renderable), nl=False)
    else:
        make_console().print(renderable)


def make_console() -> Any:
    from rich.console import Console

    from nqueens_plugins.views.report import PIPED_WIDTH

    # Piped output (a file, a CI log, grep) gets room for whole tables: a table never folds its cells there.
    # A terminal keeps its own width, and the tables of views/report.py split themselves to fit it.
    if sys.stdout.isatty():
        return Console(highlight=False, markup=False)
    return Console(highlight=False, markup=False, width=PIPED_WIDTH, file=cast(IO[str], TrimmedLines(sys.stdout)))


class TrimmedLines:
    """A text stream that writes each line to ``out`` without its trailing blanks: rich pads every line to the
    console's width, which piped (200 columns) fills a file or a log with spaces."""

    def __init__(self, out: Any) -> None:
        self.out = out
        self.pending = ""

    def write(self, text: str) -> int:
        *lines, self.pending = (self.pending + text).split("\n")
        for line in lines:
            self.out.write(line.rstrip() + "\n")
        return len(text)

    def flush(self) -> None:
        if self.pending:
            self.out.write(self.pending.rstrip())
            self.pending = ""
        self.out.flush()

    def isatty(self) -> bool:
        return False


def terminated(signum: int, frame: Any) -> None:
    """SIGTERM as Ctrl-C: a KeyboardInterrupt, which no ``except Exception`` on its way up can swallow (click's
    Abort is a RuntimeError: raised while a task was being sent, it was taken for a task that cannot be sent,
    and a tune went on to its end)."""
    raise KeyboardInterrupt


def one_line_warning(
    message: Warning | str, category: type[Warning], filename: str, lineno: int, file: Any = None, line: Any = None
) -> None:
    """A library's Python warning (matplotlib's, numpy's) as one line on stderr, its text shown, never sent: it
    may quote a name from a results file, a byte of it; its source line and path are for the library's
    authors, not for the user of a command."""
    click.echo(f"nqueens: warning: {for_terminal(str(message))}", err=True)


def main() -> None:
    """Entry point: bad input (ours, or click's usage errors) becomes one line and exit status 2."""
    # A command started in the background inherits SIGINT ignored; an explicit `kill -INT`
    # must still stop it (and so its workers), as Ctrl-C does in the foreground.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # SIGTERM unwinds like Ctrl-C, so the executor ends its workers' process groups itself: a
    # worker's own orphan watch is a Python thread, which a plugin holding the GIL in native code
    # (pychoco's solve) would keep waiting until its own time limit.
    signal.signal(signal.SIGTERM, terminated)
    compile_notes.show = show_compile_note
    try:
        with warnings.catch_warnings():  # restored on return: a test calling main() keeps its own
            warnings.showwarning = one_line_warning
            cli.main(standalone_mode=False)
    except RejectedFile as exc:  # a forged file to resume: refused as a rejected answer is
        fail(str(exc), EXIT_REJECTED)
    except BadInput as exc:
        fail(str(exc))
    except click.exceptions.Abort:
        click.echo("nqueens: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except click.ClickException as exc:
        fail(exc.format_message().replace("\n", " "))
    except BrokenPipeError:
        sys.exit(0)
