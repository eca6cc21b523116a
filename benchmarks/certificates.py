"""Certificates of no solution (issue 39): proof size and checking time against solving time.

    python benchmarks/certificates.py [--solvers SPECS] [--per-band K] [--asp-every K] [--limit S]
    python benchmarks/certificates.py --service-only   # the service's steps around a check alone

Every run goes the product's way (``nq.solve``: an isolated worker, the proof written
there through ``budget.proof``, taken by the service and checked by its checker program
in a process of its own), with ``Limits(certify="always")`` so that instances with a published answer are
certified too, and the certificate's record fields read back: ``seconds`` (the solver
call, the proof's writing included), ``certificate_seconds`` (the checker's own time:
reading the proof, rebuilding the canonical CNF, checking), ``certificate_bytes``.

Instances: the published Excluded Diagonals pairs at n = 16..18 (``--per-band`` per n in
each of the two bands of d/n of ``families.py``: 20 gives the 120 of the issue), a sample
of the ASP Blocked set (every K-th by lingeling's published time) and plain boards n = 2,
3. Solvers side by side: bitset-mrv and pysat with CaDiCaL by default.

It prints per solver and set: runs, no-solution claims, certified, over budget,
rejected; median and largest proof; median solving and checking seconds and the
median ratio check / solve over the certified runs; and the issue's targets
(median check <= 2x solve, none over 60 s, every no-solution of the diagonals
certified). ``benchmarks/results/certificates.txt`` is this output, with a line on the machine's load.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from typing import Any

from common import ASP, DIAGONALS, finish, header, machine, report
from families import asp_instances, diagonal_instances

import nqueens_plugins as nq
from nqueens_plugins.core.problem import Problem


def run(spec: str, problem: Problem, limit: float) -> dict[str, Any]:
    limits = nq.Limits(timeout=limit, certify="always")
    result = nq.solve(spec, problem, limits=limits)
    return {
        "status": str(result.status),
        "seconds": result.seconds,
        "certificate": result.certificate,
        "bytes": result.certificate_bytes,
        "check": result.certificate_seconds,
        "reason": result.reason,
    }


def table(spec: str, name: str, rows: list[dict[str, Any]], targets: bool) -> None:
    claims = [row for row in rows if row["status"] in ("no-solution", "invalid") and row["certificate"]]
    certified = [row for row in claims if row["certificate"] == "certified"]
    over = [row for row in claims if row["certificate"] in ("over-budget", "unchecked")]
    rejected = [row for row in claims if row["certificate"] == "rejected"]
    print(
        f"{spec:<26} {name:<12} runs {len(rows):>4}  no-solution {len(claims):>4}  certified {len(certified):>4}"
        f"  over budget {len(over):>3}  rejected {len(rejected):>3}"
    )
    for row in rejected[:3]:
        print(f"    rejected: {row['reason']}")
    if not certified:
        return
    sizes = [row["bytes"] for row in certified]
    solve = [row["seconds"] for row in certified]
    check = [row["check"] for row in certified]
    ratios = [c / max(s, 1e-6) for c, s in zip(check, solve, strict=True)]
    print(
        f"    proof bytes median {statistics.median(sizes):,.0f}, largest {max(sizes):,}; solve s median "
        f"{statistics.median(solve):.4f}; check s median {statistics.median(check):.4f}, largest {max(check):.2f};"
        f" check / solve median {statistics.median(ratios):.2f}"
    )
    if targets:
        report(f"{spec} on {name}: median check / solve", statistics.median(ratios), 2.0, "x")
        report(f"{spec} on {name}: slowest check", max(check), 60.0, "s")
        report(f"{spec} on {name}: no-solution claims not certified", len(claims) - len(certified), 0.0, "")


def service_steps(megabytes: int = 64) -> None:
    """What the service adds to a check since issue 50, per proof size: taking the proof from the worker's folder
    (a copy as it is hashed) and fingerprinting the copy again after the check. Measured on a synthetic text proof
    in a scratch folder of its own; the checker's own time is the table's ``check``."""
    import tempfile
    import time
    from pathlib import Path

    from nqueens_plugins.execution.proof_checks import fingerprint, take
    from nqueens_plugins.execution.tasks import Certificate, ProofHandoff

    header("The service's steps around a check (issue 50): take (copy + sha256), fingerprint again")
    line = b"-1 -2 -3 -4 -5 -6 -7 -8 0\n"
    seen: list[int] = []
    for size in (1 << 10, 1 << 10, 1 << 20, megabytes << 20):  # the first 1 KiB loads what the steps use
        with tempfile.TemporaryDirectory() as scratch, tempfile.TemporaryDirectory() as into:
            proof = Path(scratch) / "nqueens-proof-x.drat"
            proof.write_bytes(line * (size // len(line)))
            written = proof.stat().st_size
            start = time.perf_counter()
            taken = take(ProofHandoff(str(proof), written, 0, False), Path(scratch), Path(into), nq.Limits())
            took = time.perf_counter() - start
            assert not isinstance(taken, Certificate), taken
            start = time.perf_counter()
            assert fingerprint(taken.path) == taken.sha256
            again = time.perf_counter() - start
        if size == 1 << 10 and not seen:
            seen.append(size)
            continue
        report(f"take a {written:,}-byte proof (copy + sha256)", took, None, note=f"{written / took / 1e6:,.0f} MB/s")
        report("fingerprint it again after the check", again, None, note=f"{written / again / 1e6:,.0f} MB/s")


def main() -> None:
    if "--service-only" in sys.argv:
        print(machine())
        service_steps()
        finish()
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--solvers", default="bitset-mrv,pysat[solver=cadical195]")
    parser.add_argument("--per-band", type=int, default=20, help="diagonal pairs per n and band (20: the 120)")
    parser.add_argument("--asp-every", type=int, default=20, help="every K-th ASP instance (0: none)")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per solve")
    arguments = parser.parse_args()
    print(machine())
    sets: dict[str, list[Problem]] = {"plain 2, 3": [nq.problem_of(2), nq.problem_of(3)]}
    if DIAGONALS.exists():
        sets["diagonals"] = diagonal_instances(False, per_band=arguments.per_band)
    if ASP.exists() and arguments.asp_every:
        sets["asp sample"] = asp_instances(arguments.asp_every)
    specs = arguments.solvers.split(",")
    print(f"{len(specs)} solvers; " + ", ".join(f"{name}: {len(problems)}" for name, problems in sets.items()))
    rows: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for name, problems in sets.items():
        for problem in problems:
            for spec in specs:
                rows[(spec, name)].append(run(spec, problem, arguments.limit))
        print(f"  {name} done", file=sys.stderr, flush=True)
    header("Certificates: proofs written, checked, against solving")
    for (spec, name), found in rows.items():
        table(spec, name, found, targets=name == "diagonals")
    service_steps()
    finish()


if __name__ == "__main__":
    main()
