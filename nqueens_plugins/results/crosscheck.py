"""Results layer, parent side: what a cross-check's answers settle (``nqueens cross-check``; the run itself is
``workflows/crosscheck.py``).

For each n, every counting solver counts (checked against OEIS A000170 and
against the other counts) and every solver solves (its board verified, run
isolated like a comparison). A ``no-solution`` answer is checked against the
counts of the complete solvers and against OEIS; a complete solver that gives
up is a disagreement too. Nothing passes on a solver's word.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from nqueens_plugins.core.problem import Problem, Status
from nqueens_plugins.core.solver import Variant
from nqueens_plugins.core.verify import known_count
from nqueens_plugins.execution.answers import Result
from nqueens_plugins.formats.published import read_results

SKIPPED = "skipped"  # a Check's answer where the solver refused the size before any run


@dataclass
class Check:
    n: int
    solver: str
    task: str  # "count" or "solve"
    answer: str
    expected: str
    agrees: bool
    detail: str = ""

    @property
    def inconclusive(self) -> bool:
        """No answer to compare: a count or solve that ran out of time, an incomplete method that gave up."""
        return self.answer in (Status.TIMED_OUT, Status.GAVE_UP) or self.detail.startswith("inconclusive")

    @property
    def skipped(self) -> bool:
        """The solver refused this size before any run (said, with its reason, not silently left out)."""
        return self.answer == SKIPPED

    def describe(self) -> str:
        detail = f" ({self.detail})" if self.detail else ""
        return f"n={self.n} {self.solver} {self.task}: got {self.answer}, expected {self.expected}{detail}"

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "inconclusive": self.inconclusive}


def count_checks(n: int, results: Sequence[tuple[Variant, Any]]) -> list[Check]:
    """Each count compared with OEIS and with the others."""
    checks = []
    expected = known_count(n)
    shown = "unknown" if expected is None else f"{expected:,}"
    counts: dict[str, int] = {}
    for variant, result in results:
        if result.status == Status.TIMED_OUT:
            checks.append(
                Check(n, variant.label, "count", "timed-out", shown, True, "inconclusive: " + (result.reason or ""))
            )
            continue
        if result.status != Status.SOLVED or result.solutions is None:
            checks.append(Check(n, variant.label, "count", result.status, shown, False, result.reason or ""))
            continue
        counts[variant.label] = result.solutions
        agrees = expected is None or expected == result.solutions
        checks.append(Check(n, variant.label, "count", f"{result.solutions:,}", shown, agrees, result.reason or ""))
    consensus = set(counts.values())
    if len(consensus) > 1:
        listed = ", ".join(f"{label}={value:,}" for label, value in counts.items())
        checks.append(Check(n, "all counters", "count", listed, "one count", False, "counts differ"))
    return checks


def judge_solve(
    n: int, variant: Variant, status: str, verified: bool | None, reason: str | None, solvable: bool | None
) -> Check:
    label = variant.label
    if status == Status.SOLVED:
        agrees = verified is True and solvable is not False
        return Check(n, label, "solve", "solved", "solvable" if solvable else "no solution", agrees, reason or "")
    if status == Status.NO_SOLUTION:
        agrees = solvable is False
        return Check(
            n, label, "solve", "no-solution", "no solution" if solvable is False else "solvable", agrees, reason or ""
        )
    if status in (Status.GAVE_UP, Status.TIMED_OUT) and not variant.complete:
        # Incomplete methods may fail; that is not a wrong answer.
        return Check(n, label, "solve", status, "any (incomplete)", True, reason or "")
    if status == Status.TIMED_OUT:
        return Check(n, label, "solve", status, "an answer", True, "inconclusive: " + (reason or ""))
    expected = "an answer" if variant.complete else "no error"
    return Check(n, label, "solve", status, expected, False, reason or "")


# --- instances -----------------------------------------------------------------


class Verdict(StrEnum):
    """What the answers settle of one instance (``InstanceCheck.verdict``). A ``StrEnum``: its value is the
    text JSON and the tables show, so code compares members and readers see words."""

    SATISFIABLE = "satisfiable"  # a verified board (or a count above 0)
    UNSATISFIABLE = "unsatisfiable"  # no solution, confirmed (the verifier, the published answer, two solvers)
    UNCONFIRMED = "unsatisfiable (unconfirmed)"  # one solver alone says no solution
    UNDECIDED = "undecided"  # no solver decided it within the limit
    DISAGREEMENT = "DISAGREEMENT"  # answers that contradict each other or the verifier

    @property
    def inconclusive(self) -> bool:
        """Nothing settled either way: no answer to hold against another (not a disagreement)."""
        return self in (Verdict.UNCONFIRMED, Verdict.UNDECIDED)


class Evidence(StrEnum):
    """What an unsatisfiable verdict rests on, strongest first (``InstanceCheck.evidence``)."""

    PUBLISHED = "published"  # the instance's published answer
    CERTIFIED = "certified"  # a proof the host's checker accepted (``docs/certificates.md``)
    VERIFIER = "verifier"  # the instance is impossible on its face (the verifier's own facts)
    CORROBORATED = "corroborated"  # two solvers or more said so, no proof checked: corroboration, not proof


@dataclass
class InstanceCheck:
    """Everything the solvers said about one instance, and the verdict drawn from it."""

    instance: str  # its source (file, file@d) or n and content hash
    id: str
    n: int
    verdict: Verdict
    answers: dict[str, Status] = field(default_factory=dict)  # solver variant -> status
    counts: dict[str, int] = field(default_factory=dict)  # counting variant -> solutions
    inconclusive: dict[str, str] = field(default_factory=dict)  # counting variant -> why its count did not end
    published: bool | None = None  # the published answer: satisfiable or not; None if none
    detail: str = ""
    refuting_families: list[str] = field(default_factory=list)  # families of the solvers that said no solution
    # Unsatisfiable by two solvers or more, all of one family: they may share a mistake in how they read the problem.
    within_one_family: bool = False
    evidence: Evidence | None = None  # what an unsatisfiable verdict rests on

    @property
    def agrees(self) -> bool:
        """No contradiction among our solvers, and none with the published answer."""
        if self.verdict == Verdict.DISAGREEMENT:
            return False
        if self.published is None or self.verdict == Verdict.UNDECIDED:
            return True
        return (self.verdict == Verdict.SATISFIABLE) == self.published

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "agrees": self.agrees}


def judge_instance(
    problem: Problem,
    results: Sequence[Result],
    counts: Mapping[str, int | str],
    published: bool | None,
    families: Mapping[str, str] | None = None,
) -> InstanceCheck:
    """The verdict on one instance, strongest evidence first: a verified board (whatever anyone
    claims), then a no-solution the verifier confirmed (the published answer, or an instance
    impossible on its face), then claims of no solution by two different solvers. A claim
    against a verified board is the claimant's mistake, named as such. ``families`` (solver
    name -> family) says which families of methods stand behind a no-solution."""
    answers = {r.solver: r.status for r in results}
    problems_seen = []
    solved = [r for r in results if r.solved]
    for r in results:
        if r.status == Status.INVALID:
            problems_seen.append(f"{r.solver} gave a rejected answer ({r.reason})")
        elif r.status == Status.ERROR:
            problems_seen.append(f"{r.solver} failed ({r.reason})")
    refuters = {r.name for r in results if r.status == Status.NO_SOLUTION}
    evidence: Evidence | None = None
    for label, value in counts.items():
        if value in (Status.ERROR, Status.INVALID):
            problems_seen.append(f"{label} could not count it ({value})")
    exact = {label: value for label, value in counts.items() if isinstance(value, int)}
    unfinished = {label: str(value) for label, value in counts.items() if value == Status.TIMED_OUT}
    if len(set(exact.values())) > 1:
        problems_seen.append("counts differ: " + ", ".join(f"{label}={value:,}" for label, value in exact.items()))
    refuters |= {label.split("[")[0] for label, value in exact.items() if value == 0}
    if solved and refuters:
        problems_seen.append(
            f"board verified ({solved[0].solver}): the no-solution of {', '.join(sorted(refuters))} is wrong"
        )
    if any(value > 0 for value in exact.values()) and refuters:
        problems_seen.append("a count above 0 contradicts a no-solution")
    if problems_seen:
        verdict, detail = Verdict.DISAGREEMENT, "; ".join(problems_seen)
    elif solved or any(value > 0 for value in exact.values()):
        verdict, detail = Verdict.SATISFIABLE, f"board verified ({solved[0].solver})" if solved else "counted"
    elif refuters and any(r.status == Status.NO_SOLUTION and r.verified for r in results):
        verdict, detail = Verdict.UNSATISFIABLE, "no solution according to " + ", ".join(sorted(refuters))
        certifiers = sorted(r.solver for r in results if r.certified)
        if published is False:
            evidence, detail = Evidence.PUBLISHED, detail + ", confirmed by the published answer"
        elif certifiers:
            evidence = Evidence.CERTIFIED
            detail += f", certified: the host checked the proof of {', '.join(certifiers)}"
        else:
            evidence, detail = Evidence.VERIFIER, detail + ", confirmed by the verifier"
    elif len(refuters) >= 2:
        verdict, detail = Verdict.UNSATISFIABLE, "no solution according to " + ", ".join(sorted(refuters))
        evidence = Evidence.CORROBORATED
    elif refuters:
        verdict, detail = Verdict.UNCONFIRMED, f"only {next(iter(refuters))} says no solution"
    else:
        verdict, detail = Verdict.UNDECIDED, "no solver decided it within the limit"
    refuting = sorted({(families or {}).get(name, name) for name in refuters})
    within_one_family = False
    if verdict == Verdict.UNSATISFIABLE and len(refuters) >= 2:
        # Two solvers of one family may share a mistake in how they read the problem; a checked proof may not.
        if len(refuting) == 1 and evidence != Evidence.CERTIFIED:
            detail += f"; confirmed within one family only ({refuting[0]})"
            within_one_family = True
        else:
            detail += f"; families: {', '.join(refuting)}"
    if unfinished:  # as cross-check -n lists a timed-out count: said, and settling nothing
        detail += "; count inconclusive: " + ", ".join(f"{label} {why}" for label, why in sorted(unfinished.items()))
    return InstanceCheck(
        problem.label,
        problem.id,
        problem.n,
        verdict,
        answers,
        dict(exact),
        unfinished,
        published,
        detail,
        refuting,
        within_one_family,
        evidence,
    )


def expected_key(problem: Problem) -> str:
    """How a published results file names an instance: the file's own name, with @d."""
    source = problem.source or problem.id
    return Path(source.rsplit(":", 1)[-1]).name


def read_expected(path: str) -> dict[str, bool]:
    """Published answers: {instance file name (with @d): satisfiable}, from CSPLib's lingeling or
    shiftqueens results file (plain or gzipped); ``formats/published.read_results`` reads it, bounded."""
    return read_results(path)


def tally(checks: Sequence[Check] | Sequence[InstanceCheck]) -> tuple[int, int, int]:
    """(checks, disagreements, inconclusive) of a cross-check, as its last line says them: a check that
    agrees only because nothing was there to compare (a timed-out count, an instance no solver settled)
    is inconclusive, never an agreement."""
    disagreements = sum(1 for check in checks if not check.agrees)
    inconclusive = sum(1 for check in checks if check.agrees and is_inconclusive(check))
    return len(checks), disagreements, inconclusive


def is_inconclusive(check: Check | InstanceCheck) -> bool:
    """A plain check with no answer to compare, or an instance whose verdict settles nothing."""
    return check.verdict.inconclusive if isinstance(check, InstanceCheck) else check.inconclusive
