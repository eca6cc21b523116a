"""Portfolios (issue 42): a race against the virtual best of its members, and the learned selector's gap closed.

    python benchmarks/portfolio.py [--race A,B] [--solvers SPECS] [--timeout S] [--per-band K] [--asp-every K]
                                   [--out FILE | --records FILE]

One comparison, the product's own way (``nq.compare``: isolated workers, every answer
verified), over the published Excluded Diagonals pairs at n = 16..18 (``--per-band``
per n and band: 20 gives the 120) and a sample of the ASP Blocked set (every K-th by
lingeling's published time: 10 gives 40): every complete solver of ``--solvers`` alone,
and the race ``race(A,B)``. Then, from its records:

* the race's PAR-2 against the virtual best of its two members on the same runs
  (target: within 5 %), and what racing cost beyond the winner's own time, per race
  (``overhead_seconds``: sending, the answer's way back, verifying, killing; target:
  median at most 50 ms);
* the portfolio table of every solver (``nqueens report``'s), whose learned rows, the
  single-solver selector and SUNNY's schedule (``results/schedule.py``, simulated on the
  recorded runs), are cross-validated by instance (target: at least half the single
  best - virtual best gap closed).

``--out FILE`` keeps the records, so that ``nqueens report FILE`` can show them again
(by default they go to a temporary file). ``--records FILE`` runs nothing: it scores the
records of an earlier run again (plain or gzipped), e.g. after a change to the selector;
``benchmarks/results/portfolio-records.jsonl.gz`` holds the run that ``portfolio.txt`` shows.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from common import ASP, DIAGONALS, finish, header, machine, report
from families import asp_instances, diagonal_instances

import nqueens_plugins as nq
from nqueens_plugins.api import grouped, read_records_of
from nqueens_plugins.results.portfolio import portfolio
from nqueens_plugins.views.report import plain_text, render_portfolio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--race", default="bitset-mrv,pysat")
    parser.add_argument("--solvers", default="bitset-mrv,pysat,clingo,ortools-cpsat,z3,forward-checking[order=mrv]")
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--per-band", type=int, default=20)
    parser.add_argument("--asp-every", type=int, default=10)
    parser.add_argument("--out", default=None, help="keep the records here (default: a temporary file)")
    parser.add_argument("--records", default=None, help="run nothing: score this earlier run's records")
    arguments = parser.parse_args()
    print(machine())
    members = arguments.race.split(",")
    race_label = f"race({arguments.race})"
    if arguments.records:
        print(f"the records of an earlier run: {arguments.records}")
        score(Path(arguments.records), members, race_label)  # the reader takes gzipped records as they are
    else:
        out = run_comparison(arguments, members, race_label)
        print(machine().split("; ")[-1] + " when the runs ended")
        score(out, members, race_label)
    finish()


def run_comparison(arguments: argparse.Namespace, members: list[str], race_label: str) -> Path:
    """One comparison of every solver and the race over the instances, its records in a file."""
    boards = []
    if DIAGONALS.exists():
        boards += diagonal_instances(False, per_band=arguments.per_band)
    if ASP.exists() and arguments.asp_every:
        boards += asp_instances(arguments.asp_every)
    specs = list(dict.fromkeys(arguments.solvers.split(",") + members)) + [race_label]
    print(f"{len(boards)} instances; {len(specs)} rows: {', '.join(specs)}; --timeout {arguments.timeout:g}")
    out = Path(arguments.out or tempfile.mkstemp(prefix="portfolio-", suffix=".jsonl")[1])
    out.unlink(missing_ok=True)
    runs = nq.compare_stream(specs, boards, limits=nq.Limits(timeout=arguments.timeout), out=out)
    for done, _ in enumerate(runs, start=1):
        if done % 100 == 0:
            print(f"  {done} runs", file=sys.stderr, flush=True)
    return out


def score(out: Path, members: list[str], race_label: str) -> None:
    """The race against its members' virtual best, and every solver's portfolio table with its learned rows."""
    groups = grouped(out).groups

    header("The race against the virtual best of its members")
    theirs = {key: group for key, group in groups.items() if key[0] in (*members, race_label)}
    two = portfolio(theirs)
    if two is None:
        print("no common instances: nothing to compare")
    else:
        print(plain_text(render_portfolio(two, "table")))
        rows = {row.solver: row for row in two.rows}
        report(f"{race_label}: PAR-2 / VBS of its members", rows[race_label].par / rows["virtual best"].par, 1.05, "x")
    flat = race_overheads(out, race_label)
    if flat:
        report(f"{race_label}: median seconds racing costs beyond the winner's", statistics.median(flat), 0.05)
        print(f"    largest {max(flat):.4f} s over {len(flat)} races")

    header("Every solver, the virtual best, the single best and the learned selector")
    everything = portfolio(groups)
    if everything is None:
        print("no common instances: nothing to compare")
    else:
        print(plain_text(render_portfolio(everything, "table")))
        for kind in ("selector", "schedule"):
            row = next((row for row in everything.rows if row.solver.startswith(kind)), None)
            if row is None or row.gap_closed is None:
                print(f"no {kind} figure: " + "; ".join(everything.notes))
                continue
            # reported as the gap left open, so that the common "at most" reads right: at most half left open
            report(f"{kind}: share of the SBS-VBS gap left open (held out)", 1 - row.gap_closed, 0.5, "")


def race_overheads(out: Path, label: str) -> list[float]:
    """The ``overhead_seconds`` of each race in the records file."""
    return [
        float(record.get("overhead_seconds") or 0.0)
        for record in read_records_of(out)
        if record.get("type", "run") == "run" and record.get("solver") == label
    ]


if __name__ == "__main__":
    main()
