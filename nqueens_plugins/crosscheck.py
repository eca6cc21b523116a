"""``nqueens cross-check``: every solver against published answers and against each other.

Plain boards (``-n``) are checked against OEIS; instances (``--instances``)
against each other and, with ``--expected``, against published CSPLib answers.

For each n, every counting solver counts (checked against OEIS A000170 and
against the other counts) and every solver solves (its board verified, run
isolated like a comparison). A ``no-solution`` answer is checked against the
counts of the complete solvers and against OEIS; a complete solver that gives
up is a disagreement too. Nothing passes on a solver's word.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from nqueens_plugins.errors import BadInput
from nqueens_plugins.harness import RunSpec, execute_isolated
from nqueens_plugins.inputs import make_problem
from nqueens_plugins.problem import Problem
from nqueens_plugins.run import Result, check_runnable, count
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


# --- instances -----------------------------------------------------------------

SATISFIABLE, UNSATISFIABLE, UNCONFIRMED, UNDECIDED, DISAGREEMENT = (
    "satisfiable", "unsatisfiable", "unsatisfiable (unconfirmed)", "undecided", "DISAGREEMENT",
)  # fmt: skip


@dataclass
class InstanceCheck:
    """Everything the solvers said about one instance, and the verdict drawn from it."""

    instance: str  # its source (file, file@d) or n and content hash
    id: str
    n: int
    verdict: str  # one of the constants above
    answers: dict[str, str] = field(default_factory=dict)  # solver variant -> status
    counts: dict[str, int] = field(default_factory=dict)  # counting variant -> solutions
    published: bool | None = None  # the published answer: satisfiable or not; None if none
    detail: str = ""

    @property
    def agrees(self) -> bool:
        """No contradiction among our solvers, and none with the published answer."""
        if self.verdict == DISAGREEMENT:
            return False
        if self.published is None or self.verdict == UNDECIDED:
            return True
        return (self.verdict == SATISFIABLE) == self.published

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "agrees": self.agrees}


def cross_check_instances(
    variants: Sequence[Variant],
    problems: Sequence[Problem],
    *,
    seed: int = 0,
    timeout: float = 10.0,
    counting: bool = False,
    expected: Mapping[str, bool] | None = None,
    jobs: int = 0,
) -> tuple[list[InstanceCheck], dict[str, str]]:
    """Decide every instance with every variant that accepts it (isolated, one batch), then judge.

    A satisfiable verdict needs a verified board; an unsatisfiable one needs a
    no-solution (or a count of 0) from at least two different complete solvers,
    else it is reported unconfirmed. Any solved-versus-no-solution clash, a board
    the verifier rejects, a complete solver's error or differing counts is a
    disagreement, and so is any solver's error. Returns the checks and the
    variants skipped (label -> why).
    """
    skipped: dict[str, str] = {}
    specs = []
    for problem in problems:
        for variant in variants:
            try:
                check_runnable(variant, problem)
            except BadInput as exc:
                skipped.setdefault(variant.label, str(exc))
                continue
            specs.append(RunSpec(variant, problem, 0, seed))
    results: dict[str, list[Result]] = {problem.id: [] for problem in problems}
    for result in execute_isolated(specs, jobs=jobs or os.cpu_count() or 1, timeout=timeout):
        results[result.problem.id].append(result)
    checks = []
    seen: set[str] = set()
    for problem in problems:
        if problem.id in seen:
            continue
        seen.add(problem.id)
        counts = count_instance(variants, problem, timeout) if counting else {}
        published = None if expected is None else expected.get(expected_key(problem))
        checks.append(judge_instance(problem, results[problem.id], counts, published))
    return checks, skipped


def count_instance(variants: Sequence[Variant], problem: Problem, timeout: float) -> dict[str, int | str]:
    """Every counting variant that accepts the instance counts it (in this process, budgeted)."""
    counted: dict[str, int | str] = {}
    for variant in variants:
        if not variant.counts:
            continue
        try:
            check_runnable(variant, problem)
        except BadInput:
            continue
        result = count(variant, problem, timeout=timeout)
        counted[variant.label] = result.solutions if result.status == "solved" and result.solutions is not None else result.status
    return counted


def judge_instance(problem: Problem, results: Sequence[Result], counts: Mapping[str, int | str], published: bool | None) -> InstanceCheck:
    answers = {r.solver: r.status for r in results}
    problems_seen = []
    solved = [r for r in results if r.solved]
    for r in results:
        if r.status == "invalid":
            problems_seen.append(f"{r.solver} gave a rejected answer ({r.reason})")
        elif r.status == "error":
            problems_seen.append(f"{r.solver} failed ({r.reason})")
    refuters = {r.name for r in results if r.status == "no-solution"}
    exact = {label: value for label, value in counts.items() if isinstance(value, int)}
    if len(set(exact.values())) > 1:
        problems_seen.append("counts differ: " + ", ".join(f"{label}={value:,}" for label, value in exact.items()))
    refuters |= {label.split("[")[0] for label, value in exact.items() if value == 0}
    if solved and refuters:
        problems_seen.append(f"solved by {solved[0].solver}, but no solution according to {', '.join(sorted(refuters))}")
    if any(value > 0 for value in exact.values()) and refuters:
        problems_seen.append("a count above 0 contradicts a no-solution")
    if problems_seen:
        verdict, detail = DISAGREEMENT, "; ".join(problems_seen)
    elif solved or any(value > 0 for value in exact.values()):
        verdict, detail = SATISFIABLE, f"board verified ({solved[0].solver})" if solved else "counted"
    elif len(refuters) >= 2:
        verdict, detail = UNSATISFIABLE, "no solution according to " + ", ".join(sorted(refuters))
    elif refuters:
        verdict, detail = UNCONFIRMED, f"only {next(iter(refuters))} says no solution"
    else:
        verdict, detail = UNDECIDED, "no solver decided it within the limit"
    return InstanceCheck(problem.label, problem.id, problem.n, verdict, answers, dict(exact), published, detail)


def expected_key(problem: Problem) -> str:
    """How a published results file names an instance: the file's own name, with @d."""
    source = problem.source or problem.id
    return Path(source.rsplit(":", 1)[-1]).name


def read_expected(path: str) -> dict[str, bool]:
    """Published answers: {instance file name (with @d): satisfiable}.

    Reads the two CSPLib results files (plain or gzipped): lingeling's run on the
    ASP Blocked n-Queens set (``N -1 ID SATISFIABLE|UNSATISFIABLE ...``) and the
    shiftqueens run on the Excluded Diagonals set
    (``N D 4 ID FILE:Solutions: S Nodes: ...``).
    """
    opener: Any = gzip.open if path.endswith(".gz") else open
    answers: dict[str, bool] = {}
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                fields = line.split()
                if not fields:
                    continue
                if len(fields) >= 4 and fields[3] in ("SATISFIABLE", "UNSATISFIABLE"):
                    answers[f"blockedqueens.{fields[0]}.{fields[2]}.param"] = fields[3] == "SATISFIABLE"
                elif len(fields) >= 6 and "Solutions:" in fields[4]:
                    n, diagonals, minimum, identifier = fields[:4]
                    answers[f"diag-{n}-{minimum}-{identifier}.param@{diagonals}"] = fields[5] != "0"
                else:
                    raise BadInput(f"{path}:{number}: not a line of the lingeling or shiftqueens results")
    except FileNotFoundError:
        raise BadInput(f"expected-answers file {path!r} does not exist") from None
    except (OSError, UnicodeDecodeError, EOFError) as exc:
        raise BadInput(f"cannot read expected answers from {path!r}: {exc}") from None
    if not answers:
        raise BadInput(f"{path!r} holds no published answers")
    return answers
