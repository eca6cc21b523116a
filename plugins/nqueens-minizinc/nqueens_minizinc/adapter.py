"""``minizinc``: N-Queens posed to MiniZinc (Gecode by default) through the ``minizinc`` package.

The model is the MiniZinc handbook's and the MiniZinc benchmarks' (CSPLib prob054), shipped
as ``nqueens.mzn`` beside this file: one variable per column, ``q[c]`` = its row in
``0..n-1``, and three ``alldifferent`` constraints over ``q[c]``, ``q[c] + c`` and
``q[c] - c``. A blocked square is a value left out of its column's domain; a fixed queen's
column keeps its row alone. ``nqueens-dual.mzn`` adds the dual viewpoint. The instance is
posed as MiniZinc data (``n``, ``fixed``, ``blocked``): the text ``export(..., "dzn")``
returns, byte for byte, handed to MiniZinc as its data file.

Options (defaults chosen by measurement, see the README):

* ``solver``: any solver id or tag the local MiniZinc lists (``minizinc --solvers``);
  checked when the run is planned, with one line naming what is installed;
* ``model``: ``classic``, ``dual`` (the classic model plus one variable per row, the column
  of its queen, channelled by ``inverse``, with its own diagonal ``alldifferent``
  constraints and first-fail over both, so a row left with few open squares is branched on
  early), or ``auto`` (the default): dual where squares are blocked, classic elsewhere. The
  dual model decided all 8 hard published Blocked n-Queens (n = 48/50) in 10 s each where
  the classic one decided 7, in less time; on plain boards it finds nothing from n = 100,
  where the classic one solves n = 300 in seconds;
* ``propagation``: how ``alldifferent`` is filtered: ``domain`` (domain consistency, the
  default: a fifth of the nodes of ``value`` on Blocked n-Queens), ``value`` (the solver's
  default, value consistency in Gecode) or ``decomposed`` (pairwise disequalities, the
  standard library's decomposition, on any solver);
* ``search``: the search annotation: ``first-fail`` (the handbook's ``first_fail,
  indomain_min``, the default), ``first-fail-split``, ``dom-wdeg``, ``input-order``, or
  ``free`` (no annotation: the solver's own search).

Debian's gecode 6.2 ships a MiniZinc library that predates the ``fzn_`` names of
MiniZinc 2.3, so with minizinc 2.6 ``alldifferent`` would silently become pairwise
disequalities; for such a Gecode the adapter puts ``mznlib/native`` first on the include
path, which hands Gecode its own ``distinct`` (what the MiniZinc bundle's Gecode gets).

The budget: its time limit is MiniZinc's own ``time_limit`` (flattening included), and an
iteration cap becomes Gecode's node cutoff (``-node``; solvers without one are held to the
time limit only). MiniZinc ends its solver process at its limit; should it not have answered
a moment later, the adapter cancels the run, which terminates the ``minizinc`` process, and
that ends its solver. A run stopped either way, or whose MiniZinc status is ``UNKNOWN``, is
``timed-out``: only MiniZinc's ``UNSATISFIABLE`` is a proof of no solution.

Counts: one **iteration** is one search node (MiniZinc's ``nodes`` statistic); **moves** is
the number of queens in the answer. Counters: MiniZinc's numeric statistics as it reports
them (``nodes``, ``failures``, ``propagations``, ``peakDepth``, ``flatTime``,
``solveTime``, ...; times in seconds); ``count`` adds ``solutions``. A count enumerates
with ``--all-solutions``, one solution at a time from the stream, none kept.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import json
import random
import re
import shutil
import subprocess
import tempfile
import warnings
from collections.abc import Callable, Coroutine, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import nqueens_plugins
from nqueens_plugins import Adapter, BadInput, Budget, Count, Option, Outcome, Problem, Requirement, SizeLimit, Status

PACKAGE = Requirement("minizinc needs the minizinc Python package: pip install minizinc", module="minizinc")
BINARY = Requirement(
    "minizinc needs the MiniZinc binary on the PATH: apt-get install minizinc (or the bundle from minizinc.org)",
    program="minizinc",
)
HERE = Path(__file__).resolve().parent
MODEL_FILES = {"classic": HERE / "nqueens.mzn", "dual": HERE / "nqueens-dual.mzn"}
MODELS = ("auto", *MODEL_FILES)  # auto: dual where squares are blocked, classic elsewhere (measured, see README)
NATIVE_LIBRARY = HERE / "mznlib" / "native"  # alldifferent as the solver's global, for an old Gecode library
DECOMPOSED_LIBRARY = HERE / "mznlib" / "decomposed"  # alldifferent as pairwise disequalities, for any solver
PROPAGATIONS = ("domain", "value", "decomposed")
DOMAIN_ANNOTATION = " :: domain_propagation"
SEARCHES = {  # option -> the annotation's variable choice and value choice (None: no annotation)
    "first-fail": ("first_fail", "indomain_min"),
    "first-fail-split": ("first_fail", "indomain_split"),
    "dom-wdeg": ("dom_w_deg", "indomain_min"),
    "input-order": ("input_order", "indomain_min"),
    "free": None,
}
SOLVE_ITEM = re.compile(r"^solve :: int_search\((?P<variables>.+), first_fail, indomain_min\) satisfy;$", re.MULTILINE)
DEFAULT_SOLVER = "gecode"
# MiniZinc ends its solver at its time limit and then writes the statistics; past this margin
# the adapter cancels the run itself (the host's kill comes 0.5 s past the limit).
CANCEL_MARGIN = 0.3
NODE_CUTOFF_FLAG = "-node"  # Gecode's node cutoff (its solver configuration's extra flag)
# The largest board per propagation, and why (measured, see README): Gecode reads its clock between
# nodes, and one node's domain-consistent propagation takes 85 ms at n = 1,000 and over a second at
# 2,000 (value propagation: 32 ms there); the decomposition's 3n^2/2 disequalities take 2 s and 300 MB
# to flatten at n = 300.
MAX_N = {"domain": 1000, "value": 2000, "decomposed": 300}
TOO_LARGE = {
    "domain": "one node's domain-consistent propagation outlasts the clock's checks beyond it",
    "decomposed": "its 3n^2/2 disequalities take seconds and hundreds of MB to flatten beyond it",
}
WARNING_NOISE = ".*overrides a global constraint file from the standard library"


def model_text(model: str, propagation: str, search: str) -> str:
    """The MiniZinc model of these options: the shipped file, with its alldifferent annotations and
    its search annotation changed as the options say (the defaults give the file unchanged)."""
    text = MODEL_FILES[model].read_text()
    if propagation != "domain":
        text = text.replace(DOMAIN_ANNOTATION, "")
    choice = SEARCHES[search]
    match = SOLVE_ITEM.search(text)
    assert match is not None, f"{MODEL_FILES[model].name} has no first_fail solve item"
    solve = (
        "solve satisfy;"
        if choice is None
        else f"solve :: int_search({match['variables']}, {', '.join(choice)}) satisfy;"
    )
    return text[: match.start()] + solve + text[match.end() :]


@dataclass(frozen=True)
class SolverInfo:
    """What the adapter needs to know of one MiniZinc solver configuration."""

    identifier: str  # its full id (org.gecode.gecode)
    flags: frozenset[str]  # its standard flags (-a: all solutions, -r: random seed)
    extra_flags: frozenset[str]  # its own flags (-node for Gecode)
    old_gecode_library: bool  # a Gecode whose MiniZinc library lacks fzn_all_different_int.mzn


def installed_solvers() -> dict[str, Any]:
    """MiniZinc's solver configurations by every name ``--solver`` takes (the package's own table)."""
    import minizinc

    if minizinc.default_driver is None:  # the package was imported while the binary was not on the PATH
        binary = shutil.which("minizinc")
        if binary is None:
            raise BadInput(BINARY.hint)
        minizinc.Driver(Path(binary)).make_default()
    solvers: dict[str, Any] = minizinc.default_driver.available_solvers()
    return solvers


def describe_installed() -> str:
    """The solvers MiniZinc lists, each by the last part of its id (``gecode`` for org.gecode.gecode),
    those that can run here apart from those that cannot (a GUI program, a library not installed)."""
    runnable, not_runnable = [], []
    for configuration in {c[0].id: c[0] for c in installed_solvers().values()}.values():
        short = configuration.id.rsplit(".", 1)[-1]
        if configuration.isGUIApplication or (not configuration.executable and run_failure(configuration.id)):
            not_runnable.append(short)
        else:
            runnable.append(short)
    listed = f"; listed but not runnable here: {', '.join(sorted(not_runnable))}" if not_runnable else ""
    return f"installed: {', '.join(sorted(runnable)) or 'none'}{listed}"


@functools.cache
def stdlib_folder() -> Path | None:
    """MiniZinc's standard library folder (``minizinc --config-dirs``), where ``-G`` libraries live."""
    binary = shutil.which("minizinc")
    if binary is None:
        return None
    out = subprocess.run([binary, "--config-dirs"], capture_output=True, text=True, check=False, timeout=30)
    try:
        return Path(json.loads(out.stdout)["mznStdlibDir"])
    except (ValueError, KeyError):
        return None


def library_folder(mznlib: str) -> Path | None:
    """The folder of a solver's MiniZinc library (``-Ggecode`` is a folder of the standard library's)."""
    if not mznlib:
        return None
    if mznlib.startswith("-G"):
        root = stdlib_folder()
        return None if root is None else root / mznlib[2:]
    return Path(mznlib)


@functools.cache
def solver_info(name: str) -> SolverInfo:
    """The configuration ``--solver name`` picks; BadInput naming what is installed when there is none,
    or when it cannot run here (a GUI program, a solver library MiniZinc cannot load)."""
    import minizinc

    try:
        configuration = minizinc.Solver.lookup(name)
    except LookupError:
        raise BadInput(f"MiniZinc here has no solver {name!r}; {describe_installed()} (minizinc --solvers)") from None
    if configuration.isGUIApplication:
        raise BadInput(f"MiniZinc's {configuration.name} ({name}) is a GUI program; {describe_installed()}")
    if not configuration.executable:  # loaded from a shared library at run time (the MIP solvers)
        failure = run_failure(configuration.id)
        if failure is not None:
            raise BadInput(f"MiniZinc lists {configuration.name} ({name}) but cannot run it here: {failure}")
    folder = library_folder(configuration.mznlib)
    old_gecode = (
        configuration.id.startswith("org.gecode.")
        and folder is not None
        and (folder / "all_different_int.mzn").exists()
        and not (folder / "fzn_all_different_int.mzn").exists()
    )
    return SolverInfo(
        configuration.id,
        frozenset(configuration.stdFlags),
        frozenset(flag[0] for flag in configuration.extraFlags),
        old_gecode,
    )


@functools.cache
def run_failure(identifier: str) -> str | None:
    """Why a trivial model does not run with this solver (the first line of MiniZinc's error), or None."""
    binary = shutil.which("minizinc")
    if binary is None:
        return BINARY.hint
    with tempfile.TemporaryDirectory() as folder:
        model = Path(folder) / "probe.mzn"
        model.write_text("var 1..2: x;\nsolve satisfy;\n")
        out = subprocess.run(
            [binary, "--solver", identifier, str(model)], capture_output=True, text=True, check=False, timeout=60
        )
    if out.returncode == 0:
        return None
    lines = [line.strip() for line in out.stderr.splitlines() if line.strip() and "Warning" not in line]
    return lines[0] if lines else f"minizinc exited with status {out.returncode}"


# One analysed instance per (solver, model text, include path) and process: MiniZinc is asked for
# the model's interface (a process of its own) once, not at every run.
INSTANCES: dict[tuple[str, str, str], Any] = {}


def model_for(problem: Problem, options: Mapping[str, Any]) -> str:
    """The model these options pose ``problem`` with: ``auto`` takes the dual one for blocked squares."""
    if options["model"] != "auto":
        return str(options["model"])
    return "dual" if problem.blocked else "classic"


def instance_for(options: Mapping[str, Any], model: str) -> tuple[Any, SolverInfo, dict[str, str]]:
    """The minizinc Instance of ``model`` with these options (data still to come), its solver and the
    flags it needs."""
    import minizinc

    info = solver_info(options["solver"])
    flags: dict[str, str] = {}
    if options["propagation"] == "decomposed":
        flags["-I"] = str(DECOMPOSED_LIBRARY)
    elif info.old_gecode_library:
        flags["-I"] = str(NATIVE_LIBRARY)
    text = model_text(model, options["propagation"], options["search"])
    key = (info.identifier, text, flags.get("-I", ""))
    if key not in INSTANCES:
        source = minizinc.Model()
        if text == MODEL_FILES[model].read_text():
            source.add_file(MODEL_FILES[model])
        else:
            source.add_string(text)
        instance = minizinc.Instance(minizinc.Solver.lookup(info.identifier), source)
        with quiet():
            instance.analyse()
        INSTANCES[key] = instance
    return INSTANCES[key], info, flags


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Drop the warnings Debian's old Gecode library makes MiniZinc give at every run (its files
    override standard-library globals): printed, they would be captured output inside the clock."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=WARNING_NOISE)
        yield


@dataclass
class Run:
    """What one MiniZinc run gave: its final status, the first board, how many solutions, its statistics."""

    status: str = "UNKNOWN"
    queens: list[int] | None = None
    solutions: int = 0
    statistics: dict[str, Any] = field(default_factory=dict)
    cancelled: bool = False  # the adapter stopped it: MiniZinc had not answered CANCEL_MARGIN past the limit

    def counters(self) -> dict[str, int | float]:
        """MiniZinc's numeric statistics, times in seconds (strings such as ``method`` are left out)."""
        counters: dict[str, int | float] = {"nodes": 0}
        for name, value in self.statistics.items():
            if isinstance(value, timedelta):
                counters[name] = value.total_seconds()
            elif isinstance(value, int | float) and not isinstance(value, bool):
                counters[name] = value
        return counters

    @property
    def nodes(self) -> int:
        return int(self.counters()["nodes"])


def run_minizinc(
    problem: Problem,
    budget: Budget,
    options: Mapping[str, Any],
    *,
    all_solutions: bool,
    seed: int | None,
    time_limit: bool = True,
) -> Run:
    """Run MiniZinc on ``problem`` under ``budget``: the first solution, or with ``all_solutions`` every
    one, counted as it streams in and none kept.

    ``time_limit=False`` leaves MiniZinc without its own limit, so only the adapter's cancellation
    stops it (the tests check that it ends the processes too)."""
    instance, info, flags = instance_for(options, model_for(problem, options))
    if all_solutions and "-a" not in info.flags:
        raise NotImplementedError(f"MiniZinc's {info.identifier} cannot list all solutions (no -a flag)")
    remaining = budget.remaining()
    if remaining is not None and remaining <= 0:
        return Run()
    if budget.iterations is not None and NODE_CUTOFF_FLAG in info.extra_flags:
        flags[NODE_CUTOFF_FLAG] = str(max(budget.iterations, 1))  # 0 would mean no cutoff
    arguments: dict[str, Any] = {"all_solutions": all_solutions, "intermediate_solutions": False}
    if seed is not None and "-r" in info.flags:
        arguments["random_seed"] = seed
    if remaining is not None and time_limit:
        arguments["time_limit"] = timedelta(milliseconds=max(int(remaining * 1000), 1))  # 0 would mean none
    outcome = Run()

    async def stream() -> None:
        async for result in instance.solutions(**arguments, **flags):
            outcome.statistics.update(result.statistics)
            outcome.status = result.status.name
            if result.solution is not None:
                outcome.solutions += 1
                if outcome.queens is None:
                    outcome.queens = [int(row) for row in result.solution.q]

    async def main() -> None:
        try:
            # Cancelling the stream terminates the minizinc process (the package's own cleanup),
            # which ends its solver; it waits for that before it returns.
            await asyncio.wait_for(stream(), None if remaining is None else remaining + CANCEL_MARGIN)
        except TimeoutError:
            outcome.cancelled = True

    with tempfile.TemporaryDirectory(prefix="nqueens-minizinc-") as folder:
        data = Path(folder) / "queens.dzn"
        data.write_text(nqueens_plugins.dzn_text(problem))  # exactly what export(..., "dzn") gives
        flags["--data"] = str(data)
        with quiet():
            run_to_end(main)
    return outcome


def run_to_end(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run ``main`` on an event loop of its own: on this thread (a worker's main thread), or on a thread
    of its own when this one already runs a loop (a notebook calling with isolate=False)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(main())
        return
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, main()).result()


class MiniZinc(Adapter):
    """MiniZinc on the models beside this module; one iteration is one search node, moves are the queens
    of the answer (see the module's docstring for the options, the budget and the counters)."""

    name = "minizinc"
    runs_on = "MiniZinc (the minizinc binary and its solver's process)"
    family = "CP"
    summary = "MiniZinc (Gecode by default): the three-alldifferent model, dual for blocked squares; complete."
    complete = True
    can_count = True  # --all-solutions, one solution at a time from the stream, none kept
    supports_fixed = True
    supports_blocked = True
    exports = ("dzn",)
    requires = (PACKAGE, BINARY)
    size_limits = (SizeLimit(MAX_N, TOO_LARGE, option="propagation"),)
    larger_value_text = "{value} up to {limit:,}"
    max_n = max(MAX_N.values())
    options = (
        Option("solver", str, DEFAULT_SOLVER, "a solver id or tag of the local MiniZinc (minizinc --solvers)"),
        Option(
            "model",
            str,
            "auto",
            "classic, dual (also a column per row), auto: dual for blocked squares",
            choices=MODELS,
        ),
        Option("propagation", str, "domain", "alldifferent filtering", choices=PROPAGATIONS),
        Option("search", str, "first-fail", "search annotation (free: the solver's own)", choices=tuple(SEARCHES)),
    )

    def engine(self, options: Mapping[str, Any]) -> str | None:
        return f"MiniZinc -> {options.get('solver', DEFAULT_SOLVER)} (processes of their own)"

    def precheck(self, n: int, options: Mapping[str, Any]) -> str | None:
        """What every library adapter checks, then that MiniZinc has the solver the options name."""
        refused = super().precheck(n, options)
        if refused is not None:
            return refused
        try:
            solver_info(options["solver"])
        except BadInput as bad:
            return str(bad)
        return None

    def warm_up(self, options: Mapping[str, Any], preparation: str = "") -> None:
        """Import the package, look the solver up, have MiniZinc analyse the model (both, for ``auto``) and
        solve a small board: each later run, solve or count, then costs one MiniZinc process and nothing else."""
        self.solve(Problem(6), random.Random(0), Budget(30.0), dict(options))  # a count runs the same instance
        if options["model"] == "auto":  # the dual model, for blocked squares
            self.solve(Problem(6, blocked=frozenset({(0, 0)})), random.Random(0), Budget(30.0), dict(options))

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        if problem.contradiction() is not None:
            return Outcome(Status.NO_SOLUTION, None, 0, 0, {"nodes": 0})
        seed = rng.randrange(2**31)
        run = run_minizinc(problem, budget, options, all_solutions=False, seed=seed)
        counters = run.counters()
        if run.queens is not None:
            return Outcome(Status.SOLVED, run.queens, run.nodes, problem.n, counters)
        if run.status == "UNSATISFIABLE" and not run.cancelled:  # a proof: MiniZinc says UNKNOWN when stopped
            return Outcome(Status.NO_SOLUTION, None, run.nodes, 0, counters)
        return Outcome(Status.TIMED_OUT, None, run.nodes, 0, counters)

    def count(self, problem: Problem, budget: Budget, options: Mapping[str, Any], unique: bool) -> Count:
        if unique:
            raise NotImplementedError("minizinc counts all solutions, not classes under symmetry")
        if problem.contradiction() is not None:
            return Count(Status.SOLVED, 0, False, 0, {"nodes": 0, "solutions": 0})
        run = run_minizinc(problem, budget, options, all_solutions=True, seed=0)
        counters = run.counters() | {"solutions": run.solutions}
        finished = not run.cancelled and run.status in ("ALL_SOLUTIONS", "UNSATISFIABLE")
        return Count(Status.SOLVED if finished else Status.TIMED_OUT, run.solutions, False, run.nodes, counters)

    def export(self, problem: Problem, options: Mapping[str, Any], format: str) -> str:
        if format != "dzn":
            raise BadInput(f"minizinc exports dzn (MiniZinc data for its nqueens.mzn), not {format}")
        return nqueens_plugins.dzn_text(problem)
