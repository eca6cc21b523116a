"""irace's side of benchmarks/tuning.py (issue 43): its scenario, written from our space text, and its target runner.

irace (López-Ibáñez et al. 2016; Debian's ``r-cran-irace``, ``apt-get install -y r-cran-irace``) tunes a
solver through a *target runner*, a program it calls once per run with a configuration, an instance and a
seed, which prints the cost to minimise. Ours calls ``nqueens solve`` as a user's script would
(``-s SPEC -n N`` or ``--instance FILE@d``, ``--seed``, ``--timeout``, ``--json``) and prints the same cost
``nq.tune`` scores by: PAR-10, the solver's own seconds when it decided the board (a verified board), else
ten times the time limit (a rejected answer, a timeout, a give-up: all the worst). It also appends one
line per run to a log, so that the benchmark can add up the solver's own seconds beside irace's wall time.

    python benchmarks/irace_runner.py target --solver NAME --timeout T --log FILE \\
        CONFIG_ID INSTANCE_ID SEED INSTANCE [name=value ...]

is what irace calls (through the shell wrapper ``write_scenario`` puts beside the scenario); an instance is
``n=64`` (a plain board) or an instance file ``PATH@d``. ``run_irace`` writes the scenario, runs irace and
reads back its best configurations as specs ``-s`` takes.
"""

from __future__ import annotations

import json
import math
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PENALTY = 10  # PAR-10: an undecided run costs ten times the limit

# --- the space, as irace writes it ------------------------------------------------


@dataclass(frozen=True)
class Parameter:
    """One option to tune: a range (``low``..``high``, on a log scale or not) or a set of ``choices``."""

    name: str
    kind: str  # "r" real, "i" integer, "c" categorical (irace's letters)
    low: float = 0.0
    high: float = 0.0
    log: bool = False
    choices: tuple[str, ...] = ()

    def irace_line(self) -> str:
        """The line of irace's parameters file: name, the switch put before the value, type, domain."""
        switch = f'"{self.name}="'
        if self.kind == "c":
            values = ", ".join(f'"{choice}"' for choice in self.choices)
            return f"{self.name} {switch} c ({values})"
        kind = f"{self.kind},log" if self.log else self.kind
        low, high = (int(self.low), int(self.high)) if self.kind == "i" else (self.low, self.high)
        return f"{self.name} {switch} {kind} ({low}, {high})"


def option_types(solver: str) -> dict[str, type]:
    """The solver's declared options and their Python types (``nq.solvers()``)."""
    import nqueens_plugins as nq

    for registration in nq.solvers():
        if registration.solver.name == solver:
            return {option.name: option.type for option in registration.solver.options}
    raise SystemExit(f"no solver named {solver!r}")


def parse_space(text: str, types: dict[str, type]) -> list[Parameter]:
    """``name=LOW..HIGH[:log]`` or ``name=a|b|c``, comma-separated, as ``nqueens tune --space`` takes it; a
    range is integer or real by the option's declared type."""
    parameters = []
    for item in (part.strip() for part in text.split(",")):
        name, _, domain = item.partition("=")
        if name not in types:
            raise SystemExit(f"space: {name!r} is not an option of the solver ({', '.join(types)})")
        if "|" in domain:
            parameters.append(Parameter(name, "c", choices=tuple(domain.split("|"))))
            continue
        log = domain.endswith(":log")
        low, separator, high = domain.removesuffix(":log").partition("..")
        if not separator:
            raise SystemExit(f"space: {item!r} is neither LOW..HIGH nor a|b|c")
        kind = "i" if types[name] is int else "r"
        parameters.append(Parameter(name, kind, float(low), float(high), log))
    return parameters


# --- the scenario -------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    folder: Path
    scenario: Path
    log: Path  # the target runner's one line per run


def instance_names(boards: Sequence[int | str]) -> list[str]:
    """irace's instance list: ``n=N`` for a plain board, the instance file (``PATH@d``) as it is."""
    return [f"n={board}" if isinstance(board, int) else str(board) for board in boards]


def write_scenario(
    folder: Path,
    solver: str,
    parameters: Sequence[Parameter],
    boards: Sequence[int | str],
    *,
    budget: int,
    seed: int,
    timeout: float,
    parallel: int,
) -> Scenario:
    """irace's files in ``folder``: parameters, instances, the target runner's wrapper and the scenario
    (``maxExperiments`` = the run budget, irace's own seed, ``parallel`` runs at a time)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "parameters.txt").write_text("".join(p.irace_line() + "\n" for p in parameters))
    (folder / "instances.txt").write_text("".join(name + "\n" for name in instance_names(boards)))
    log = folder / "runs.jsonl"
    log.write_text("")
    runner = folder / "target-runner"
    command = [sys.executable, str(Path(__file__).resolve()), "target", "--solver", solver]
    command += ["--timeout", repr(timeout), "--log", str(log)]
    runner.write_text(f'#!/bin/sh\nexec {shlex.join(command)} "$@"\n')
    runner.chmod(0o755)
    scenario = folder / "scenario.txt"
    scenario.write_text(
        f'parameterFile = "{folder / "parameters.txt"}"\n'
        f'trainInstancesDir = ""\n'
        f'trainInstancesFile = "{folder / "instances.txt"}"\n'
        f'targetRunner = "{runner}"\n'
        f'execDir = "{folder}"\n'
        f'logFile = "{folder / "irace.Rdata"}"\n'
        f"maxExperiments = {budget}\n"
        f"seed = {seed}\n"
        f"parallel = {parallel if parallel > 1 else 0}\n"
        "digits = 4\n"
        "targetRunnerRetries = 2\n"  # the tree is shared: a run that found it mid-edit is tried again
    )
    return Scenario(folder, scenario, log)


# --- running irace ------------------------------------------------------------------


@dataclass(frozen=True)
class IraceRun:
    """What irace found and what it spent."""

    best: str  # a spec ``-s`` takes
    elites: list[str]  # the others it returned, best first
    runs: int  # target runner calls
    wall_seconds: float  # irace from start to end (R's start included)
    solver_seconds: float  # the solver's own seconds, summed over runs
    runner_seconds: float  # the target runner's calls of ``nqueens solve``, wall, summed over runs
    version: str


def irace_command() -> list[str]:
    """How to start irace: Debian's ``irace`` program if on PATH, else R's ``irace::irace.cmdline()``."""
    found = shutil.which("irace") or "/usr/lib/R/site-library/irace/bin/irace"
    if Path(found).is_file():
        return [found]
    rscript = shutil.which("Rscript")
    if rscript is None:
        raise RuntimeError("irace is not installed: apt-get install -y r-cran-irace (as root)")
    return [rscript, "-e", "irace::irace.cmdline()"]


def irace_version() -> str:
    rscript = shutil.which("Rscript")
    if rscript is None:
        return "unknown"
    found = subprocess.run(
        [rscript, "-e", 'cat(as.character(packageVersion("irace")))'], capture_output=True, text=True, check=False
    )
    return found.stdout.strip() or "unknown"


def best_configurations(output: str, solver: str) -> list[str]:
    """The configurations irace prints last ("Best configurations as commandlines"), best first, as specs."""
    lines = output.splitlines()
    marks = [i for i, line in enumerate(lines) if line.startswith("# Best configurations as commandlines")]
    if not marks:
        raise RuntimeError("irace printed no best configuration:\n" + "\n".join(lines[-30:]))
    specs = []
    for line in lines[marks[-1] + 1 :]:
        fields = line.split()
        if not fields or not fields[0].isdigit():
            break
        specs.append(f"{solver}[{','.join(fields[1:])}]" if len(fields) > 1 else solver)
    return specs


def run_irace(
    folder: Path,
    solver: str,
    space: str,
    boards: Sequence[int | str],
    *,
    budget: int,
    seed: int,
    timeout: float,
    parallel: int,
) -> IraceRun:
    """irace on ``boards`` with ``budget`` runs; its output is kept in ``folder/irace.out``."""
    parameters = parse_space(space, option_types(solver))
    scenario = write_scenario(
        folder, solver, parameters, boards, budget=budget, seed=seed, timeout=timeout, parallel=parallel
    )
    start = time.perf_counter()
    done = subprocess.run(
        [*irace_command(), "--scenario", str(scenario.scenario)],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    (folder / "irace.out").write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-20:])
        raise RuntimeError(f"irace exited with status {done.returncode} (its output: {folder / 'irace.out'}):\n{tail}")
    runs = [json.loads(line) for line in scenario.log.read_text().splitlines() if line.strip()]
    specs = best_configurations(done.stdout, solver)
    return IraceRun(
        specs[0],
        specs[1:],
        len(runs),
        wall,
        sum(run["seconds"] for run in runs),
        sum(run["runner_seconds"] for run in runs),
        irace_version(),
    )


# --- the target runner ----------------------------------------------------------------


def cost_of(answer: dict[str, Any], timeout: float) -> float:
    """PAR-10: the solver's own seconds if it decided the board (verified), else ten times the limit."""
    decided = answer.get("verified") is True and answer.get("status") in ("solved", "no-solution")
    seconds = answer.get("seconds")
    if decided and isinstance(seconds, (int, float)) and math.isfinite(seconds):
        return float(seconds)
    return PENALTY * timeout


def solve_command(spec: str, instance: str, seed: int, timeout: float) -> list[str]:
    board = ["-n", instance.removeprefix("n=")] if instance.startswith("n=") else ["--instance", instance]
    return [
        *nqueens_program(),
        "solve",
        "-s",
        spec,
        *board,
        "--seed",
        str(seed),
        "--timeout",
        repr(timeout),
        "--json",
        "--no-queens",
    ]


def nqueens_program() -> list[str]:
    """The ``nqueens`` command beside this Python (the venv's), else ``python -m nqueens_plugins``."""
    beside = Path(sys.executable).with_name("nqueens")
    return [str(beside)] if beside.is_file() else [sys.executable, "-m", "nqueens_plugins"]


def cli_seconds(repeats: int = 3) -> float:
    """The median wall seconds of a bare ``nqueens solve`` on n = 8: what the target runner pays per run
    before any solving (Python, the CLI's imports, a worker, the verifier)."""
    times = []
    for seed in range(repeats):
        start = time.perf_counter()
        subprocess.run(solve_command("min-conflicts", "n=8", seed, 10.0), check=False, capture_output=True)
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def target(arguments: list[str]) -> int:
    """One run for irace: ``--solver NAME --timeout T --log FILE CONFIG_ID INSTANCE_ID SEED INSTANCE [opt=v ...]``;
    prints the cost; exit 1 (irace stops) when ``nqueens solve`` refused its input or printed no answer."""
    options = {"--solver": "", "--timeout": "", "--log": ""}
    while arguments and arguments[0] in options:
        options[arguments[0]] = arguments[1]
        arguments = arguments[2:]
    config_id, instance_id, seed, instance, *values = arguments
    solver, timeout = options["--solver"], float(options["--timeout"])
    spec = f"{solver}[{','.join(values)}]" if values else solver
    start = time.perf_counter()
    done = subprocess.run(
        solve_command(spec, instance, int(seed), timeout), check=False, capture_output=True, text=True
    )
    runner_seconds = time.perf_counter() - start
    try:
        answer = json.loads(done.stdout)
    except json.JSONDecodeError:
        print(f"nqueens solve exited {done.returncode} with no answer: {done.stderr.strip()[-500:]}", file=sys.stderr)
        return 1
    cost = cost_of(answer, timeout)
    line = {
        "config": config_id,
        "instance": instance,
        "instance_id": instance_id,
        "seed": int(seed),
        "spec": spec,
        "status": answer.get("status"),
        "verified": answer.get("verified"),
        "seconds": float(answer.get("seconds") or 0.0),
        "runner_seconds": runner_seconds,
        "cost": cost,
    }
    with open(options["--log"], "a", encoding="utf-8") as log:
        log.write(json.dumps(line) + "\n")  # one short write: whole lines even with parallel runs
    print(repr(cost))
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] != "target":
        raise SystemExit(__doc__)
    sys.exit(target(sys.argv[2:]))
