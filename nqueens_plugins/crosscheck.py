"""``nqueens cross-check``: every solver against OEIS and against each other.

For each n, every counting solver counts (checked against OEIS A000170 and
against the other counts) and every solver solves (its board verified, run
isolated like a comparison). A ``no-solution`` answer is checked against the
counts of the complete solvers and against OEIS; a complete solver that gives
up is a disagreement too. Nothing passes on a solver's word.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from nqueens_plugins.harness import RunSpec, execute_isolated
from nqueens_plugins.inputs import make_problem
from nqueens_plugins.run import count
from nqueens_plugins.solver import Variant
from nqueens_plugins.verify import known_count


@dataclass
class Check:
    n: int
    solver: str
    task: str  # "count" or "solve"
    answer: str
    expected: str
    agrees: bool
    detail: str = ""

    def describe(self) -> str:
        detail = f" ({self.detail})" if self.detail else ""
        return f"n={self.n} {self.solver} {self.task}: got {self.answer}, expected {self.expected}{detail}"

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def cross_check(variants: Sequence[Variant], sizes: Sequence[int], *, seed: int = 0, timeout: float | None = 10.0) -> list[Check]:
    checks: list[Check] = []
    for n in sizes:
        problem = make_problem(n)
        counts: dict[str, int] = {}
        for variant in (v for v in variants if v.counts and v.solver.precheck(n, v.options) is None):
            result = count(variant, problem, timeout=timeout)
            expected = known_count(n)
            if result.status != "solved" or result.solutions is None:
                checks.append(Check(n, variant.label, "count", result.status, str(expected), False, result.reason or ""))
                continue
            counts[variant.label] = result.solutions
            checks.append(
                Check(n, variant.label, "count", f"{result.solutions:,}", "unknown" if expected is None else f"{expected:,}",
                      expected is None or expected == result.solutions, result.reason or "")  # fmt: skip
            )
        consensus = set(counts.values())
        if len(consensus) > 1:
            listed = ", ".join(f"{label}={value:,}" for label, value in counts.items())
            checks.append(Check(n, "all counters", "count", listed, "one count", False, "counts differ"))
        reference = known_count(n)
        if reference is None and len(consensus) == 1:
            reference = consensus.pop()
        solvable = None if reference is None else reference > 0
        runnable = [v for v in variants if v.solver.precheck(n, v.options) is None]
        specs = [RunSpec(v, problem, 0, seed) for v in runnable]
        for result in execute_isolated(specs, jobs=os.cpu_count() or 1, timeout=timeout or 10.0):
            variant = next(v for v in runnable if v.label == result.solver)
            checks.append(judge_solve(n, variant, result.status, result.verified, result.reason, solvable))
    return checks


def judge_solve(n: int, variant: Variant, status: str, verified: bool | None, reason: str | None, solvable: bool | None) -> Check:
    label = variant.label
    if status == "solved":
        agrees = verified is True and solvable is not False
        return Check(n, label, "solve", "solved", "solvable" if solvable else "no solution", agrees, reason or "")
    if status == "no-solution":
        agrees = solvable is False
        return Check(n, label, "solve", "no-solution", "no solution" if solvable is False else "solvable", agrees, reason or "")
    if status in ("gave-up", "timed-out") and not variant.complete:
        # Incomplete methods may fail; that is not a wrong answer.
        return Check(n, label, "solve", status, "any (incomplete)", True, reason or "")
    expected = "an answer" if variant.complete else "no error"
    return Check(n, label, "solve", status, expected, False, reason or "")
