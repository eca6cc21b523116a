"""Tuning by racing, our tuner beside irace (issue 43): python benchmarks/tuning.py [--quick | --large]

    python benchmarks/tuning.py [--quick | --large] [--budget RUNS] [--test-runs K] [--jobs J]
                                [--settings annealing,diagonals,big-boards] [--seed S] [--keep DIR]

Three settings, chosen by measurement (the issue's two, and one more where the defaults leave room):

* ``annealing``: simulated annealing on plain boards n = 64, 128, 256. Its defaults
  (``max_steps=50000``, ``cooling=0.95``, ``t0=n^2``) solve n = 64 most of the time and give up on
  n = 128 and 256 in a tenth of a second; a larger step budget and a slower or colder schedule
  solve all three in about a second. Space ``cooling=0.8..0.9999,t0=0.1..10000:log,
  max_steps=10000..5000000:log``; a 4 s limit a run.
* ``diagonals``: min-conflicts on published Excluded Diagonals pairs (CSPLib 079) that have
  solutions (shiftqueens' published answers), n = 16..20 with d/n in 0.65..0.8. Measured on
  20 pairs x 3 seeds, 1 s a run: here the defaults decide 28/60 and ``init=minton`` 36/60;
  below the band (0.5..0.65) no configuration tried beat the defaults (51/60 against 43..49/60);
  at the transition (the last d with solutions) min-conflicts decided 0..8 of 24 runs in 2 s
  whatever its options, so a budget of runs buys almost no evidence. The options matter far
  less here than for annealing: what a run decides depends mostly on the instance. Instances
  held out come from lists the race never saw. Space ``init=random|minton|sosic-gu,
  noise=0..0.3,max_steps=50..20000:log,restarts=1..100000:log``; a 1 s limit a run.
  (Simulated annealing does worse there whatever its options: 6/30 and 2/30 decided in the two
  bands, with up to 2 million steps.)
* ``big-boards``: min-conflicts on plain boards n = 2000, 10000, 30000, where its start matters: from
  its default random start it takes 0.04, 0.25 and about 1 s, from Minton's or Sosič and Gu's
  greedy start 0.006, 0.02 and under 0.1 s. Space ``init=random|minton|sosic-gu,
  greedy_tries=1..256:log,noise=0..0.2``; a 5 s limit a run.

Each tuner gets the same budget of runs and the same race instances, ``--jobs`` runs at a time: ours
(``nq.tune``, every run isolated and verified by the execution service) and irace 3.5 (Debian's
``r-cran-irace``; ``benchmarks/irace_runner.py`` writes its scenario and its target runner, which calls
``nqueens solve``). Each one's best configuration and the solver's defaults are then run on held-out
runs (fresh seeds; for the instance set, held-out instances), the same runs each, through ``nq.compare``,
and scored alike: PAR-10 (an undecided run counts ten times the limit), the decided rate (95 % Wilson
interval), the ERT ratio to the defaults with its bootstrap 95 % interval and the baseline test's verdict
(``results/statistics.py``'s ``compare_to_baseline``). Overhead a run is the worker-seconds a tuner
spends beyond the solver's own: (wall x jobs - the solver's seconds summed) / runs (with ``--jobs 1``,
(wall - solver seconds) / runs).

``--quick`` (budget 100, irace's minimum of 180 for the diagonals' four options, 1 or 2 held-out runs
a board: a check that the script runs) took 13 minutes on two busy cores; the default (budget 200)
14 minutes at load 2-6 and 23 at load 6-14, nearly all of it irace's (its target runner starts ``nqueens solve`` for
every run); ``--large`` (budget 500, three times the held-out runs) about an hour. Each setting
prints its table and the issue's targets; ``--settings`` picks some.
irace must be installed (``apt-get install -y r-cran-irace``); the test suite never needs it.
"""

from __future__ import annotations

import argparse
import math
import random
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from common import DIAGONALS, finish, header, machine, report, shiftqueens_results
from irace_runner import PENALTY, cli_seconds, run_irace

import nqueens_plugins as nq
from nqueens_plugins.formats import instances
from nqueens_plugins.results.statistics import Runs, compare_to_baseline, percentile_interval, wilson_interval

TUNE_SEED = 1  # both tuners' seed
HELD_OUT_SEED = 20261126  # the held-out runs' base seed: neither tuner drew from it


@dataclass
class Setting:
    """One tuning problem: a solver, its space, the race's boards and the held-out ones."""

    name: str
    solver: str
    space: str
    race: list[int | str]  # sizes, or instance files as FILE@d
    held_out: list[int | str]
    timeout: float
    trials: int  # held-out runs on each held-out board
    why: str
    minimum_budget: int  # irace refuses fewer runs for this many parameters (3: 96, 4: 180)


@dataclass
class Tuned:
    """What one tuner found and spent."""

    tuner: str
    best: str
    others: list[str]
    runs: int
    wall_seconds: float
    solver_seconds: float
    note: str = ""

    def overhead(self, jobs: int) -> float:
        """Worker-seconds a run beyond the solver's own."""
        return (self.wall_seconds * jobs - self.solver_seconds) / max(self.runs, 1)


@dataclass
class Scored:
    """One configuration's held-out runs, scored."""

    spec: str
    runs: Runs
    costs: np.ndarray  # PAR-10 cost of each run
    sizes: np.ndarray  # each run's n
    decided: int
    rejected: int = 0
    comparison: Any = None  # compare_to_baseline against the defaults
    ratio: tuple[float, float, float] | None = None  # PAR-10 / the defaults', with its bootstrap 95 % interval

    @property
    def par10(self) -> float:
        return float(self.costs.mean())


# --- the settings ----------------------------------------------------------------


def annealing(trials: int) -> Setting:
    sizes: list[int | str] = [64, 128, 256]
    return Setting(
        "annealing",
        "simulated-annealing",
        "cooling=0.8..0.9999,t0=0.1..10000:log,max_steps=10000..5000000:log",
        sizes,
        sizes,
        4.0,
        trials,
        "plain boards n = 64..256: the defaults give up on n = 128 and 256 within 0.2 s",
        96,
    )


def diagonal_pairs(folder: Path, race: int, held_out: int, seed: int = 2026) -> tuple[list[str], list[str]]:
    """Published Excluded Diagonals pairs with solutions, n = 16..20, d/n in 0.65..0.8: ``race`` and
    ``held_out`` per n, one pair per list, the held-out lists apart from the race's. Each list is written to
    ``folder`` as its own file, named ``FILE@d``, so that ``nqueens solve --instance`` and ``nq.tune`` read
    the same instance."""
    answers = shiftqueens_results()
    rng = random.Random(seed)
    race_pairs: list[str] = []
    held_pairs: list[str] = []
    for n in (16, 17, 18, 19, 20):
        lists = instances.diagonal_lists(DIAGONALS / f"diag-{n}.tar.gz")
        rng.shuffle(lists)
        chosen = []
        for diagonals in lists:
            identifier = int(diagonals.source.rsplit("-", 1)[1].split(".")[0])
            band = [
                d
                for d in range(len(diagonals.diagonals) + 1)
                if 0.65 <= d / n <= 0.8 and answers.get((n, identifier, d), (False, 0))[0]
            ]
            if band:
                path = folder / Path(diagonals.source).name
                path.write_text(instances.diagonals_text(n, diagonals.diagonals))
                chosen.append(f"{path}@{rng.choice(band)}")
            if len(chosen) == race + held_out:
                break
        race_pairs += chosen[:race]
        held_pairs += chosen[race:]
    return race_pairs, held_pairs


def diagonals(folder: Path, trials: int, quick: bool) -> Setting:
    race, held = diagonal_pairs(folder, 3 if quick else 5, 3)
    return Setting(
        "diagonals",
        "min-conflicts",
        "init=random|minton|sosic-gu,noise=0..0.3,max_steps=50..20000:log,restarts=1..100000:log",
        list(race),
        list(held),
        1.0,
        trials,
        f"{len(race)} race and {len(held)} held-out Excluded Diagonals pairs with solutions, n = 16..20, "
        "d/n 0.65..0.8 (where the defaults decide about half the runs in 1 s)",
        180,
    )


def big_boards(trials: int) -> Setting:
    sizes: list[int | str] = [2000, 10000, 30000]
    return Setting(
        "big-boards",
        "min-conflicts",
        "init=random|minton|sosic-gu,greedy_tries=1..256:log,noise=0..0.2",
        sizes,
        sizes,
        5.0,
        trials,
        "plain boards n = 2000..30000: the default random start is 5-20 times slower than a greedy one",
        96,
    )


# --- the tuners --------------------------------------------------------------------


def ours(setting: Setting, budget: int, jobs: int, seed: int) -> tuple[Tuned, set[str]]:
    """``nq.tune`` on the race's boards, no held-out test of its own (this script makes the same one for both);
    and the instances it raced on (it may set some aside for a held-out test of its own)."""
    with nq.executor_for("local", jobs=jobs) as executor:
        start = time.perf_counter()
        tuning = nq.tune(
            setting.solver,
            setting.space,
            setting.race,
            budget=budget,
            goal="par10",
            test_runs=0,
            limits=nq.Limits(timeout=setting.timeout, seed=seed),
            executor=executor,
            notify=lambda line: print(f"  nq.tune: {line}", flush=True),
        )
        wall = time.perf_counter() - start
    runs = tuning.runs if hasattr(tuning, "runs") else len(tuning.race_records)
    solver_seconds = (
        tuning.solver_seconds
        if hasattr(tuning, "solver_seconds")
        else sum(float(r.get("seconds") or 0.0) for r in tuning.race_records.values())
    )
    raced = {str(record.get("instance")) for record in tuning.race_records.values()}
    found = Tuned(
        "ours (nq.tune)",
        tuning.best,
        list(getattr(tuning, "tied", [])),
        runs,
        wall,  # timed here, as irace's is: the whole call
        solver_seconds,
    )
    return found, raced


def same_race(boards: Sequence[int | str], raced: set[str]) -> list[int | str]:
    """The instance files among ``boards`` that ours raced on (all of them if it raced on none we know)."""
    files = [board for board in boards if isinstance(board, str)]
    kept = [board for board in files if instances.load_one(board).id in raced]
    return [board for board in boards if not isinstance(board, str) or board in kept] if kept else list(boards)


def theirs(setting: Setting, budget: int, jobs: int, seed: int, folder: Path) -> Tuned:
    found = run_irace(
        folder / f"irace-{setting.name}",
        setting.solver,
        setting.space,
        setting.race,
        budget=budget,
        seed=seed,
        timeout=setting.timeout,
        parallel=jobs,
    )
    runner = (found.runner_seconds - found.solver_seconds) / max(found.runs, 1)
    return Tuned(
        f"irace {found.version}",
        found.best,
        found.elites,
        found.runs,
        found.wall_seconds,
        found.solver_seconds,
        f"of which {runner:.2f} s a run is its target runner's `nqueens solve` beyond the solver",
    )


# --- the held-out test -------------------------------------------------------------


def decided(record: dict[str, Any]) -> bool:
    """A verified board, or a confirmed no-solution claim (as ``compare`` and ``nq.tune`` count)."""
    return record.get("verified") is True and record.get("status") in ("solved", "no-solution")


def held_out_runs(setting: Setting, spec: str, jobs: int) -> Scored:
    """``spec`` on the held-out boards, ``setting.trials`` runs each, from the held-out seed: every spec of
    the solver gets the same seeds (``Limits.seed_for`` names the solver, not its options)."""
    with nq.executor_for("local", jobs=jobs) as executor:
        records = nq.compare(
            [spec],
            setting.held_out,
            setting.trials,
            limits=nq.Limits(timeout=setting.timeout, seed=HELD_OUT_SEED),
            executor=executor,
        )
    seconds = [float(r.get("seconds") or 0.0) for r in records]
    solved = [decided(r) for r in records]
    runs = Runs.of(seconds, [float(r.get("iterations") or 0) for r in records], solved, setting.timeout)
    costs = np.where(runs.succeeded, runs.seconds, PENALTY * setting.timeout)
    rejected = sum(r.get("status") in ("invalid", "error") or r.get("verified") is False for r in records)
    return Scored(spec, runs, costs, np.array([int(r["n"]) for r in records]), sum(solved), rejected)


def by_size(variant: Scored, defaults: Scored) -> list[tuple[int, Any]]:
    """The baseline test on the runs of each n apart: pooled over sizes, the ERT of defaults that give up
    fast on the boards they cannot solve is cheap runs averaged with solved small boards."""

    def runs_of(score: Scored, n: int) -> Runs:
        at = score.sizes == n
        return Runs(score.runs.seconds[at], score.runs.iterations[at], score.runs.succeeded[at], score.runs.limit)

    return [
        (int(n), compare_to_baseline(runs_of(variant, int(n)), runs_of(defaults, int(n))))
        for n in sorted(set(defaults.sizes.tolist()))
    ]


def par10_ratio(variant: Scored, defaults: Scored) -> tuple[float, float, float]:
    """PAR-10 over another's (the defaults'), with a bootstrap 95 % interval (runs resampled within each)."""

    def ratio_of(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
        mine = variant.costs[a.astype(int)].mean(axis=axis)
        theirs = defaults.costs[b.astype(int)].mean(axis=axis)
        return np.asarray(mine / theirs)

    low, high = percentile_interval((len(variant.costs), len(defaults.costs)), ratio_of, seed=0)
    return variant.par10 / defaults.par10, low, high


def held_out(setting: Setting, tuned: Sequence[Tuned], jobs: int) -> dict[str, Scored]:
    """The defaults and each tuner's best, scored on the same held-out runs (a spec found twice runs once)."""
    scored: dict[str, Scored] = {}
    for spec in [setting.solver, *(t.best for t in tuned)]:
        if spec not in scored:
            scored[spec] = held_out_runs(setting, spec, jobs)
    defaults = scored[setting.solver]
    for spec, score in scored.items():
        if spec != setting.solver:
            score.comparison = compare_to_baseline(score.runs, defaults.runs)
            score.ratio = par10_ratio(score, defaults)
    return scored


# --- printing ------------------------------------------------------------------------


def ratio_shown(ratio: tuple[float, float, float] | None) -> str:
    if ratio is None:
        return "1 (itself)"
    value, low, high = ratio
    if math.isnan(low) or math.isnan(high):
        return f"{value:.3f}"
    return f"{value:.3f} ({low:.3f}-{high:.3f})"


def ert_shown(comparison: Any) -> str:
    if comparison is None or math.isnan(comparison.ert_ratio):
        return "-"
    if comparison.ert_ratio == 0:
        return "0 (the defaults decided none)"
    if comparison.ratio_low is None or comparison.ratio_high is None:
        return f"{comparison.ert_ratio:.2f}"
    return f"{comparison.ert_ratio:.2f} ({comparison.ratio_low:.2f}-{comparison.ratio_high:.2f})"


def table(setting: Setting, tuned: Sequence[Tuned], scored: dict[str, Scored], jobs: int) -> None:
    runs = len(scored[setting.solver].runs)
    print(
        f"\n== {setting.name}: {setting.solver}, {setting.why}\n"
        f"space {setting.space}; limit {setting.timeout:g} s a run; held out: {runs} runs a configuration "
        f"({len(setting.held_out)} boards x {setting.trials}, seed {HELD_OUT_SEED}); "
        f"{machine()}; /proc/loadavg {loadavg()}"
    )
    print(
        f"{'tuner':<16} {'best configuration':<66} {'PAR-10 s':>9} {'decided (95% CI)':>19} "
        f"{'PAR-10 / defaults (95% CI)':>27} {'runs':>5} {'overhead s/run':>14}  "
        "baseline test, runs pooled: ERT ratio (95% CI); verdict"
    )
    rows: list[tuple[str, str, Tuned | None]] = [("defaults", setting.solver, None)]
    rows += [(t.tuner, t.best, t) for t in tuned]
    for name, spec, tuner in rows:
        score = scored[spec]
        low, high = wilson_interval(score.decided, len(score.runs))
        decided_shown = f"{score.decided}/{len(score.runs)} ({100 * low:.0f}-{100 * high:.0f}%)"
        baseline = "-" if score.comparison is None else f"{ert_shown(score.comparison)}; {score.comparison.verdict()}"
        spent = "-" if tuner is None else f"{tuner.runs}"
        overhead = "-" if tuner is None else f"{tuner.overhead(jobs):.3f}"
        shown = spec if len(spec) <= 66 else spec[:63] + "..."
        print(
            f"{name:<16} {shown:<66} {score.par10:>9.3f} {decided_shown:>19} {ratio_shown(score.ratio):>27} "
            f"{spent:>5} {overhead:>14}  {baseline}"
        )
    for tuner in tuned:
        print(
            f"  {tuner.tuner}: {tuner.runs} runs in {tuner.wall_seconds:.1f} s wall ({jobs} at a time), the solver's "
            f"own {tuner.solver_seconds:.1f} s ((wall - solver seconds) / runs = "
            f"{(tuner.wall_seconds - tuner.solver_seconds) / max(tuner.runs, 1):.3f} s); "
            f"{tuner.note or 'every run through the execution service'}"
        )
        if len(tuner.best) > 66 or tuner.others:
            print(f"    best {tuner.best}; also {', '.join(tuner.others) or 'none'}")
        if tuner.best != setting.solver:
            print("    baseline test by n (ERT ratio to defaults, 95% CI; verdict):")
            for n, comparison in by_size(scored[tuner.best], scored[setting.solver]):
                print(f"      n = {n}: {ert_shown(comparison)}; {comparison.verdict()}")
    rejected = sum(s.rejected for s in scored.values())
    if rejected:
        print(f"  {rejected} held-out runs rejected or failed (counted undecided)")


def targets(setting: Setting, tuned: Sequence[Tuned], scored: dict[str, Scored], jobs: int) -> None:
    """The issue's targets: ours beats the defaults (p < 0.05), our held-out PAR-10 at most irace's, our
    overhead a run below irace's."""
    header(f"targets: {setting.name}")
    mine = next((t for t in tuned if t.tuner.startswith("ours")), None)
    irace = next((t for t in tuned if t.tuner.startswith("irace")), None)
    for tuner in tuned:
        comparison = scored[tuner.best].comparison
        if comparison is not None and comparison.p_value is not None:
            beats = comparison.ranks_faster is True  # a small p on the slower side is no win: shown as 1
            report(
                f"{setting.name}: {tuner.tuner} best beats defaults, Mann-Whitney p",
                comparison.p_value if beats else 1.0,
                0.05 if tuner is mine else None,
                "",
                f"p = {comparison.p_value:.3g}; {comparison.verdict()}",
            )
    if mine is not None and irace is not None:
        ratio, low, high = par10_ratio(scored[mine.best], scored[irace.best])
        report(
            f"{setting.name}: held-out PAR-10, ours / irace's",
            ratio,
            1.0,
            "x",
            f"{scored[mine.best].par10:.3f} s / {scored[irace.best].par10:.3f} s; 95% CI {low:.2f}-{high:.2f}"
            + (" (includes 1: no significant difference)" if low <= 1 <= high else ""),
        )
        report(
            f"{setting.name}: overhead a run, ours / irace's",
            mine.overhead(jobs) / irace.overhead(jobs),
            1.0,
            "x",
            f"{mine.overhead(jobs):.3f} s / {irace.overhead(jobs):.3f} s",
        )


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


# --- main ----------------------------------------------------------------------------


def run_setting(setting: Setting, budget: int, jobs: int, seed: int, folder: Path) -> None:
    if budget < setting.minimum_budget:
        print(f"\n({setting.name}: budget raised to {setting.minimum_budget}, irace's minimum for its space)")
        budget = setting.minimum_budget
    print(f"\n-- {setting.name}: tuning with {budget} runs each (loadavg {loadavg()})", flush=True)
    tuned: list[Tuned] = []
    if hasattr(nq, "tune"):
        mine, raced = ours(setting, budget, jobs, seed)
        tuned.append(mine)
        race = same_race(setting.race, raced)
        print(f"  ours: {mine.best} ({mine.wall_seconds:.0f} s; raced on {len(race)} of {len(setting.race)} "
              f"boards; loadavg {loadavg()})", flush=True)  # fmt: skip
        setting = replace(setting, race=race)  # irace races on the same boards
    else:
        print("  ours: nq.tune does not exist in this tree: left out", flush=True)
    try:
        tuned.append(theirs(setting, budget, jobs, seed, folder))
        print(f"  irace: {tuned[-1].best} ({tuned[-1].wall_seconds:.0f} s; loadavg {loadavg()})", flush=True)
    except RuntimeError as failed:
        print(f"  irace failed: {failed}", flush=True)
    scored = held_out(setting, tuned, jobs)
    table(setting, tuned, scored, jobs)
    targets(setting, tuned, scored, jobs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="budget 100, 1 held-out run a board (a check)")
    size.add_argument("--large", action="store_true", help="budget 500, three times the held-out runs")
    parser.add_argument("--budget", type=int, help="runs each tuner may make (default 200)")
    parser.add_argument(
        "--test-runs", type=int, help="held-out runs on each held-out board (default 16 a size, 4 a pair)"
    )
    parser.add_argument("--jobs", type=int, default=2, help="runs at a time, for both tuners (default 2)")
    parser.add_argument("--settings", default="annealing,diagonals,big-boards")
    parser.add_argument("--seed", type=int, default=TUNE_SEED, help="both tuners' seed")
    parser.add_argument("--keep", type=Path, help="keep irace's folders here (default: a temporary folder)")
    arguments = parser.parse_args()
    budget = arguments.budget or (100 if arguments.quick else 500 if arguments.large else 200)
    print(f"tuning: ours (nq.tune) and irace, {budget} runs each (or irace's minimum); {machine()}; "
          f"/proc/loadavg {loadavg()}")  # fmt: skip
    print(f"a bare `nqueens solve -s min-conflicts -n 8` (what irace's target runner pays a run before solving): "
          f"{cli_seconds():.2f} s wall, the median of 3")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="nqueens-tuning-") as temporary:
        folder = arguments.keep or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        chosen = arguments.settings.split(",")
        scale = 1 if arguments.quick else 3 if arguments.large else 1
        if "annealing" in chosen:
            trials = arguments.test_runs or 16 * scale
            run_setting(annealing(trials if not arguments.quick else 2), budget, arguments.jobs, arguments.seed, folder)
        if "diagonals" in chosen:
            trials = arguments.test_runs or 4 * scale
            setting = diagonals(folder, trials if not arguments.quick else 1, arguments.quick)
            run_setting(setting, budget, arguments.jobs, arguments.seed, folder)
        if "big-boards" in chosen:
            trials = arguments.test_runs or 16 * scale
            run_setting(
                big_boards(trials if not arguments.quick else 2), budget, arguments.jobs, arguments.seed, folder
            )
    finish()


if __name__ == "__main__":
    main()
