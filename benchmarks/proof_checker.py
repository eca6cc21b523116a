"""The no-solution certificate's checker (issue 39): checking a proof against finding it.

    python benchmarks/proof_checker.py [--per-n K] [--seed S]

For Excluded Diagonals instances (CSPLib 079) that the published shiftqueens run
says have no solution, n = 16..18, sampled with a fixed seed from d/n in 0.7-1.0
(where the hard refutations are), the canonical CNF is solved by pysat's
cadical195 with its DRUP proof, the proof written to a file, and checked by
``nqueens_plugins.proofs.check_proof``. It prints per instance the solve and
check times and the proof's size, then the medians and the median ratio
check / solve. The checker's compile (numba, once per process) is measured
apart, on a tiny proof first.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from common import DIAGONALS, finish, header, machine, report, shiftqueens_results
from pysat.solvers import Solver

from nqueens_plugins.core.canonical_cnf import CanonicalCnf, canonical_cnf
from nqueens_plugins.core.problem import Problem
from nqueens_plugins.formats import instances
from nqueens_plugins.proofs import check_proof
from nqueens_plugins.proofs.checker import JIT


def unsat_sample(n: int, per_n: int, rng: random.Random) -> list[Problem]:
    """``per_n`` instances of size ``n`` the published run found to have no solution, d/n in 0.7-1.0."""
    answers = shiftqueens_results()
    members = []
    for diagonals in instances.diagonal_lists(DIAGONALS / f"diag-{n}.tar.gz"):
        identifier = int(diagonals.source.rsplit("-", 1)[1].split(".")[0])
        for d in range(len(diagonals.diagonals) + 1):
            answer = answers.get((n, identifier, d))
            if answer is not None and not answer[0] and 0.7 <= d / n <= 1.0:
                members.append((diagonals, d))
    return [diagonals.instance(d) for diagonals, d in rng.sample(members, min(per_n, len(members)))]


def solve_with_proof(formula: CanonicalCnf, path: Path) -> float:
    """Seconds cadical195 takes to refute ``formula``; its DRUP proof goes to ``path``."""
    started = time.perf_counter()
    with Solver(name="cadical195", bootstrap_with=list(formula.clauses()), with_proof=True) as sat:
        if sat.solve():
            raise SystemExit("an instance published as unsatisfiable has a model: stale data?")
        lines = sat.get_proof()
    seconds = time.perf_counter() - started
    with path.open("w") as handle:
        handle.writelines(line + "\n" for line in lines)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-n", type=int, default=5, help="instances per board size (default 5)")
    parser.add_argument("--seed", type=int, default=39)
    arguments = parser.parse_args()
    print(machine(), flush=True)
    print(f"checker compiled by numba: {JIT}")
    rng = random.Random(arguments.seed)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "proof.drat"
        samples = {n: unsat_sample(n, arguments.per_n, rng) for n in (16, 17, 18)}
        warm_up = canonical_cnf(samples[16][0])
        solve_with_proof(warm_up, path)
        started = time.perf_counter()
        assert check_proof(warm_up, path).certified
        first = time.perf_counter() - started
        header("compile (or load from numba's cache) and a first check")
        report("first check in this process", first, None, note=f"then {check_proof(warm_up, path).seconds:.3f} s")
        header("cadical195 solve with proof vs check_proof, Excluded Diagonals without a solution")
        solves, checks, ratios = [], [], []
        for problems in samples.values():
            for problem in problems:
                formula = canonical_cnf(problem)
                solve = solve_with_proof(formula, path)
                result = check_proof(formula, path)
                if not result.certified:
                    raise SystemExit(f"{problem.label}: a cadical proof was refused: {result.reason}")
                solves.append(solve)
                checks.append(result.seconds)
                ratios.append(result.seconds / solve)
                note = f"solve {solve:.3f} s; {result.lemmas:,} lemmas, {result.bytes / 1e6:.1f} MB"
                report(f"{problem.label}: check", result.seconds, None, note=note)
        header("medians")
        report("solve with proof (cadical195)", statistics.median(solves), None)
        report("check_proof", statistics.median(checks), None)
        report("check / solve", statistics.median(ratios), None, unit="x", note=f"max {max(ratios):.2f}")
    finish()


if __name__ == "__main__":
    main()
