"""The field's solver families side by side (issue 25): search, CP, SAT, ASP, MIP, SMT.

    python benchmarks/families.py [--quick] [--limit SECONDS] [--out FILE] [--solvers SPECS] [--cpmpy]
                                  [--sets asp,diagonals,plain] [--asp-every K]
                                  [--executor local|dask --scheduler ADDR]

Every complete solver installed (one per family at least: ``bitset-mrv``, ``ortools-cpsat``,
``choco``, ``pysat`` with its default solver and with lingeling, ``clingo``, ``highs``,
``z3``, ``minizinc``) on the same instances, one run at a time, under the same limit:

* the 400 Blocked n-Queens instances of the ASP competitions (CSPLib 080), with lingeling's
  published answers and times (a 2017 machine); ``--asp-every K`` takes every K-th by
  lingeling's time, a sample from easiest to hardest;
* a phase-transition sample of Excluded Diagonals (CSPLib 079), n = 16..18, d/n in
  0.7-1.0 (where the published answers put the transition) and 1.2-1.6 (none satisfiable);
* plain boards n = 100..1000.

It prints, per solver: instances decided, agreement with the published answers, PAR-2
(a run that did not decide counts twice the limit), median and hardest; the virtual best
solver (the fastest of all, per instance); bitset-mrv's PAR-2 ratio against every other
family; the instances another family decided faster than bitset-mrv; and the issue's
targets. Runs go through the project's execution service (isolated, killed at the limit;
``--executor dask`` shares them with a cluster) and are appended to ``--out`` as each ends:
a run that is interrupted resumes where it stopped (the full run takes hours; ``--quick``
is a sample that takes minutes). ``--report-only`` prints the tables from ``--out``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from common import ASP, DIAGONALS, finish, header, lingeling_answers, report, shiftqueens_results

from nqueens_plugins.core.problem import Problem
from nqueens_plugins.formats import instances
from nqueens_plugins.formats.inputs import make_problem
from nqueens_plugins.formats.records import cpu_name
from nqueens_plugins.loading import host

DEFAULT_SOLVERS = (
    "bitset-mrv",
    "ortools-cpsat",
    "choco",
    "pysat",
    "pysat[solver=lingeling]",
    "clingo",
    "highs",
    "z3",
    "minizinc",
)
# ``--cpmpy``: every CPMpy backend (plugins/nqueens-cpmpy) that runs here, beside the solvers above; each
# backend is the one solver ``cpmpy``, so the table shows one row per backend (docs/cpmpy.md).
CPMPY_BACKENDS = ("ortools", "choco", "exact", "pumpkin", "z3", "pysat", "gurobi", "cplex", "highs", "gcs", "minizinc")
LINGELING_TOTAL = 6922.0  # seconds, the published run on the 400 ASP instances (2017 machine)
LINGELING_DECIDED_IN_60 = 376  # of the 400, within 60 s in the published run


# --- the instances ---------------------------------------------------------------


def asp_instances(every: int = 1) -> list[Problem]:
    """The 400 instances, or every ``every``-th by lingeling's published time (a sample from easiest to hardest)."""
    paths = sorted(ASP.glob("blockedqueens.*.param"), key=lambda p: (int(p.name.split(".")[1]), p.name))
    if every > 1:
        times = lingeling_answers()
        paths = sorted(paths, key=lambda p: times[p.name][1])[::every]
    return [instances.load_one(str(path)) for path in paths]


def diagonal_instances(quick: bool, seed: int = 2017, per_band: int | None = None) -> list[Problem]:
    """Per n = 16..18, instances with a published answer in the two bands of d/n, sampled with a fixed seed
    (``per_band`` each: 2 with ``quick``, else 10)."""
    answers = shiftqueens_results()
    chosen: list[Problem] = []
    rng = random.Random(seed)
    per_band = per_band or (2 if quick else 10)
    for n in (16, 17, 18):
        bands: dict[str, list[Any]] = {"transition": [], "beyond": []}
        for diagonals in instances.diagonal_lists(DIAGONALS / f"diag-{n}.tar.gz"):
            identifier = int(diagonals.source.rsplit("-", 1)[1].split(".")[0])
            for d in range(len(diagonals.diagonals) + 1):
                if (n, identifier, d) not in answers:
                    continue
                ratio = d / n
                if 0.7 <= ratio <= 1.0:
                    bands["transition"].append((diagonals, d))
                elif 1.2 <= ratio <= 1.6:
                    bands["beyond"].append((diagonals, d))
        for members in bands.values():
            for diagonals, d in rng.sample(members, min(per_band, len(members))):
                chosen.append(diagonals.instance(d))
    return chosen


def plain_instances(quick: bool) -> list[Problem]:
    return [make_problem(n) for n in ((100, 200) if quick else (100, 200, 300, 500, 700, 1000))]


def published_answer(record: Mapping[str, Any]) -> bool | None:
    """The published answer to a record's instance (the shipped CSPLib table; plain boards have solutions)."""
    from nqueens_plugins.formats.published import published_answer as lookup

    source = record.get("source")
    if not source:
        return True  # a plain board n >= 4 has solutions
    return lookup(str(source), int(record["n"]))


# --- running ---------------------------------------------------------------------


def installed(specs: Sequence[str]) -> tuple[list[str], list[str]]:
    """The specs whose solver is installed and complete, and a note for each left out."""
    registry = host.registry()
    kept, notes = [], []
    for spec in specs:
        name = spec.split("[")[0]
        if name not in registry:
            notes.append(f"{spec}: not installed (its plugin distribution is under plugins/)")
            continue
        variant = registry.variant(spec)
        if not variant.complete:
            notes.append(f"{spec}: not complete; left out")
            continue
        refused = variant.solver.precheck(8, variant.options)  # a backend or a program missing
        if refused is not None:
            notes.append(f"{spec}: {refused}")
            continue
        kept.append(spec)
    return kept, notes


def run_all(specs: Sequence[str], problems: Sequence[Problem], limit: float, out: Path, executor: Any) -> None:
    import nqueens_plugins as nq

    for done, record in enumerate(
        nq.compare_stream(
            list(specs),
            list(problems),
            limits=nq.Limits(timeout=limit),
            out=nq.ResultsFile(out, resume=out.exists()),
            executor=executor,  # one run at a time: the families are timed alike
            notify=lambda line: print(f"  {line}", flush=True),
        ),
        start=1,
    ):
        if done % 25 == 0:
            print(f"  ... {done:,} runs this call; last: {record['solver']} {record['status']}", flush=True)


# --- the tables ------------------------------------------------------------------


# What each CPMpy backend is (the one solver ``cpmpy`` says "CP" of itself): the family its solver belongs to.
CPMPY_FAMILIES = {
    "ortools": "CP", "choco": "CP", "gcs": "CP", "pumpkin": "CP", "minizinc": "CP", "exact": "PB",
    "pysat": "SAT", "z3": "SMT", "highs": "MIP", "gurobi": "MIP", "cplex": "MIP", "pysdd": "knowledge",
}  # fmt: skip


def family_of(registry: Any, solver: str) -> str | None:
    """The family of a solver spec (``pysat[solver=lingeling]`` is pysat's; a CPMpy backend's is its solver's),
    None when it is not installed."""
    name = solver.split("[")[0]
    if name not in registry:
        return None
    backend = re.search(r"backend=([a-z0-9_]+)", solver) if name == "cpmpy" else None
    if backend is not None and backend.group(1) in CPMPY_FAMILIES:
        return CPMPY_FAMILIES[backend.group(1)]
    return getattr(registry.get(name).solver, "family", None)


def instance_key(record: Mapping[str, Any]) -> str:
    return str(record.get("source") or f"n={record['n']}")


def par2(record: Mapping[str, Any], limit: float) -> float:
    decided = record["status"] in ("solved", "no-solution") and record.get("verified") is not False
    return float(record["seconds"]) if decided and record["status"] != "invalid" else 2 * limit


def load_runs(out: Path) -> list[dict[str, Any]]:
    records = []
    with out.open(encoding="utf-8") as handle:
        for line in handle:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if record.get("type") == "run":
                records.append(record)
    return records


def plain_table(records: Iterable[Mapping[str, Any]], limit: float) -> None:
    """Plain boards, one column per n: the seconds to a verified board, "-" past the limit, "refused" where
    the solver declines the size (each refusal's reason below: the largest n its model takes)."""
    cells: dict[str, dict[int, Mapping[str, Any]]] = defaultdict(dict)
    for record in records:
        cells[str(record["solver"])][int(record["n"])] = record
    if not cells:
        return
    sizes = sorted({n for runs in cells.values() for n in runs})
    registry = host.registry()
    header(f"Plain boards: seconds to a verified board, {limit:g} s limit, one run at a time ({cpu_name()})")
    print(f"{'solver':<40} {'family':<13}" + "".join(f"{'n=' + str(n):>10}" for n in sizes))
    reasons: dict[str, str] = {}
    for solver, runs in sorted(cells.items()):
        family = family_of(registry, solver)
        row = ""
        for n in sizes:
            record = runs.get(n)
            if record is None:
                cell = "not run"
            elif record["status"] == "solved" and record.get("verified") is not False:
                cell = f"{float(record['seconds']):.2f}"
            elif record["status"] == "refused":
                cell = "refused"
                reasons.setdefault(solver, str(record.get("reason") or ""))
            else:
                cell = "-" if record["status"] == "timed-out" else str(record["status"])
            row += f"{cell:>10}"
        print(f"{solver:<40} {family or '-':<13}{row}", flush=True)
    print(f'("-": not decided within {limit:g} s)')
    for solver, reason in sorted(reasons.items()):
        print(f"  {solver} refused: {reason}")


def tables(
    records: Iterable[Mapping[str, Any]], limit: float, asp: Mapping[str, tuple[bool, float]], title: str
) -> None:
    registry = host.registry()
    by_solver: dict[str, dict[str, Mapping[str, Any]]] = defaultdict(dict)
    for record in records:
        by_solver[str(record["solver"])][instance_key(record)] = record
    seen = {key for runs in by_solver.values() for key in runs}
    # Only the instances every solver has run: a partial --out (a run still going, or stopped) compares like
    # with like, and says how many it leaves for later.
    every = sorted(key for key in seen if all(key in runs for runs in by_solver.values()))
    if not every:
        return
    header(f"{title}: {len(every)} instances, {limit:g} s limit, one run at a time ({cpu_name()})")
    if len(every) < len(seen):
        print(f"({len(seen) - len(every)} more instances not yet run by every solver are left out)")
    print(
        f"{'solver':<28} {'family':<13} {'decided':>9} {'agree':>7} {'PAR-2 s':>10} {'median s':>9} {'hardest s':>10}"
    )
    totals: dict[str, float] = {}
    kept = set(every)
    for solver, all_runs in sorted(by_solver.items()):
        runs = {key: record for key, record in all_runs.items() if key in kept}
        family = family_of(registry, solver)
        decided = [r for r in runs.values() if r["status"] in ("solved", "no-solution") and r["status"] != "invalid"]
        agreeing = sum(
            1 for r in decided if (published := published_answer(r)) is None or (r["status"] == "solved") == published
        )
        scores = [par2(runs[key], limit) if key in runs else 2 * limit for key in every]
        totals[solver] = sum(scores)
        times = [float(r["seconds"]) for r in decided]
        print(
            f"{solver:<28} {family or '-':<13} {len(decided):>5}/{len(every):<3} {agreeing:>7} {sum(scores):>10.1f} "
            f"{statistics.median(scores):>9.2f} {max(times, default=0):>10.2f}",
            flush=True,
        )
        if agreeing != len(decided):
            report(f"{solver}: answers disagreeing with the published ones", len(decided) - agreeing, 0, "")
    best = [min(par2(runs[key], limit) for runs in by_solver.values() if key in runs) for key in every]
    print(f"{'virtual best solver':<28} {'':<13} {'':>9} {'':>7} {sum(best):>10.1f} {statistics.median(best):>9.2f}")
    if "bitset-mrv" in totals:
        ours = totals["bitset-mrv"]
        for solver, total in sorted(totals.items()):
            if solver != "bitset-mrv":
                report(f"PAR-2 of {solver} over bitset-mrv's (ratio)", total / max(ours, 1e-9), None, "x")
        ours_runs = by_solver["bitset-mrv"]
        lessons = [
            (key, solver, par2(runs[key], limit), par2(ours_runs[key], limit))
            for key in every
            for solver, runs in by_solver.items()
            if solver != "bitset-mrv"
            and key in runs
            and key in ours_runs
            and par2(runs[key], limit) < par2(ours_runs[key], limit)
        ]
        print(f"\ninstances another solver decided faster than bitset-mrv: {len(lessons)}")
        for key, solver, theirs, mine in sorted(lessons, key=lambda item: item[2] / item[3])[:20]:
            print(f"  {key}: {solver} {theirs:.2f} s, bitset-mrv {mine:.2f} s")


def asp_targets(records: Iterable[Mapping[str, Any]], limit: float, asp: Mapping[str, tuple[bool, float]]) -> None:
    runs: dict[str, dict[str, Mapping[str, Any]]] = defaultdict(dict)
    for record in records:
        name = Path(str(record.get("source") or "")).name
        if name in asp:
            runs[str(record["solver"])][name] = record
    common = set.intersection(*(set(found) for found in runs.values())) if runs else set()
    seen = set().union(*(set(found) for found in runs.values())) if runs else set()
    runs = defaultdict(
        dict, {solver: {k: r for k, r in found.items() if k in common} for solver, found in runs.items()}
    )
    if not common:
        return
    header(f"ASP Blocked n-Queens: against lingeling's published run (a 2017 machine; this one: {cpu_name()})")
    if len(common) < len(seen):
        print(
            f"({len(seen) - len(common)} instances not yet run by every solver are left out: the totals are not judged)"
        )
    lingeling_runs = runs.get("pysat[solver=lingeling]", {})
    if lingeling_runs:
        total = sum(par2(r, limit) for r in lingeling_runs.values())
        published = sum(asp[name][1] for name in lingeling_runs)
        full = len(lingeling_runs) == len(asp)
        report(
            f"pysat[solver=lingeling] total on {len(lingeling_runs)} instances (PAR-2)",
            total,
            LINGELING_TOTAL if full else None,
            note=f"published lingeling on the same instances: {published:,.0f} s",
        )
        worst = max(
            lingeling_runs.values(), key=lambda r: par2(r, limit) / max(asp[Path(str(r["source"])).name][1], 0.01)
        )
        name = Path(str(worst["source"])).name
        report(
            f"its worst ratio to the published time ({name})",
            par2(worst, limit) / max(asp[name][1], 0.01),
            3.0,
            "x",
            note="published times under 0.01 s counted as 0.01 s",
        )
    for solver, found in sorted(runs.items()):
        decided = sum(
            1 for r in found.values() if r["status"] in ("solved", "no-solution") and float(r["seconds"]) <= 60
        )
        report(f"{solver}: decided within 60 s, of {len(found)}", decided, None, "")
        if len(found) == len(asp) and solver.startswith(("clingo", "pysat")):
            report(
                f"{solver}: short of lingeling's {LINGELING_DECIDED_IN_60} decided within 60 s",
                max(0, LINGELING_DECIDED_IN_60 - decided),
                0,
                "",
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a sample that runs in minutes")
    parser.add_argument("--limit", type=float, default=None, help="seconds per run (default 60; --quick 10)")
    parser.add_argument("--out", default=None, help="the records file (default benchmarks/families[-quick].jsonl)")
    parser.add_argument("--solvers", default=",".join(DEFAULT_SOLVERS))
    parser.add_argument("--sets", default="asp,diagonals,plain")
    parser.add_argument("--cpmpy", action="store_true", help="also every CPMpy backend that runs here (nqueens-cpmpy)")
    parser.add_argument(
        "--asp-every",
        type=int,
        default=None,
        help="every K-th ASP instance by lingeling's published time (a sample; default all, --quick 25)",
    )
    parser.add_argument("--report-only", action="store_true", help="print the tables from --out; run nothing")
    parser.add_argument("--executor", default="local", choices=("local", "dask"))
    parser.add_argument("--scheduler", default=None)
    arguments = parser.parse_args()
    if arguments.asp_every is not None and arguments.asp_every < 1:
        parser.error("--asp-every takes a whole number from 1")
    every = arguments.asp_every or (25 if arguments.quick else 1)
    limit = arguments.limit or (10.0 if arguments.quick else 60.0)
    out = Path(
        arguments.out or Path(__file__).with_name("families-quick.jsonl" if arguments.quick else "families.jsonl")
    )
    from nqueens_plugins.core.solver import split_specs

    wanted = split_specs(arguments.solvers)
    if arguments.cpmpy:
        wanted += [f"cpmpy[backend={backend}]" for backend in CPMPY_BACKENDS]
    specs, notes = installed(wanted)
    for note in notes:
        print(f"note: {note}")
    asp = lingeling_answers() if ASP.exists() else {}
    if not arguments.report_only:
        sets = set(arguments.sets.split(","))
        problems: list[Problem] = []
        if "asp" in sets and ASP.exists():
            problems += asp_instances(every)
        if "diagonals" in sets and DIAGONALS.exists():
            problems += diagonal_instances(arguments.quick)
        if "plain" in sets:
            problems += plain_instances(arguments.quick)
        print(f"{len(specs)} solvers x {len(problems)} instances, {limit:g} s each, records in {out}", flush=True)
        from nqueens_plugins import api

        with api.executor_for(arguments.executor, arguments.scheduler, 1) as executor:
            run_all(specs, problems, limit, out, executor)
    records = load_runs(out)
    hard = [r for r in records if r.get("source") and r["status"] != "refused"]
    tables(hard, limit, asp, "Hard instances (ASP Blocked, Excluded Diagonals)")
    # Apart, size by size: most models stop at some n (bitset-mrv at 62), which a PAR-2 total would hide.
    plain_table([r for r in records if not r.get("source")], limit)
    asp_targets(hard, limit, asp)
    finish()


if __name__ == "__main__":
    main()
