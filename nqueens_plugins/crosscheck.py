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
    """Counts (in this process, budgeted) for every n, then every solve isolated in one batch."""
    checks: list[Check] = []
    references: dict[int, int | None] = {}
    for n in sizes:
        counted, references[n] = count_checks(variants, n, timeout)
        checks.extend(counted)
    specs = [
        RunSpec(v, make_problem(n), 0, seed) for n in sizes for v in variants if v.solver.precheck(n, v.options) is None
    ]
    by_label = {v.label: v for v in variants}
    for result in execute_isolated(specs, jobs=os.cpu_count() or 1, timeout=timeout or 10.0):
        reference = references[result.n]
        solvable = None if reference is None else reference > 0
        checks.append(judge_solve(result.n, by_label[result.solver], result.status, result.verified, result.reason, solvable))
    order = {label: index for index, label in enumerate(by_label)}
    checks.sort(key=lambda c: (c.n, c.task != "count", order.get(c.solver, -1)))
    return checks


def count_checks(variants: Sequence[Variant], n: int, timeout: float | None) -> tuple[list[Check], int | None]:
    """Every counting variant counts n; each count is compared with OEIS and with the others.

    Also returns the reference count for n (OEIS, else the counters' consensus, else None).
    """
    checks = []
    problem = make_problem(n)
    expected = known_count(n)
    counts: dict[str, int] = {}
    for variant in (v for v in variants if v.counts and v.solver.precheck(n, v.options) is None):
        result = count(variant, problem, timeout=timeout)
        if result.status != "solved" or result.solutions is None:
            checks.append(Check(n, variant.label, "count", result.status, str(expected), False, result.reason or ""))
            continue
        counts[variant.label] = result.solutions
        shown = "unknown" if expected is None else f"{expected:,}"
        agrees = expected is None or expected == result.solutions
        checks.append(Check(n, variant.label, "count", f"{result.solutions:,}", shown, agrees, result.reason or ""))
    consensus = set(counts.values())
    if len(consensus) > 1:
        listed = ", ".join(f"{label}={value:,}" for label, value in counts.items())
        checks.append(Check(n, "all counters", "count", listed, "one count", False, "counts differ"))
    reference = expected if expected is not None else (consensus.pop() if len(consensus) == 1 else None)
    return checks, reference


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
