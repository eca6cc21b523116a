"""Execution layer, both sides: a run's certificate opened before the solver is called, handed over after it returns.

When a run is to be certified (``wanted``: the solver can, the instance's answer
is not otherwise known or ``Limits.certify`` says always), the worker opens a
``ProofLog`` on a file of the run's own in its scratch folder and hands it to
the solver as ``budget.proof``. If the solver claims no solution, the worker
hands the file over (``hand_over``: its path and size, a ``ProofHandoff``) and
does nothing else with it: the service takes it from there, fingerprints it and
has a checker of its own check it against the service's own copy of the problem
(``proof_checks.py``), in a process no plugin code has run in. Otherwise the
file is removed at once.

The checker program (``python -m nqueens_plugins.proofs.check_program``) runs
under the certificate's own limits (``Limits.check_timeout``, ``check_memory``),
not the run's; ``request`` is what it is asked and ``certificate`` what its answer
means. ``check`` asks and waits, for callers with nothing else to watch. A
certificate the checker could not finish (over its size, time or memory) is
``over-budget``: said in the record, never taken as proof and never as a wrong one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from nqueens_plugins.core.canonical_cnf import fits
from nqueens_plugins.core.certificate_status import CertificateStatus
from nqueens_plugins.core.limits import CertifyMode, Limits
from nqueens_plugins.core.problem import Outcome, Problem, Status
from nqueens_plugins.core.proof_log import ProofLog
from nqueens_plugins.core.solver import Variant
from nqueens_plugins.execution.checker_process import checker
from nqueens_plugins.execution.tasks import Certificate, Executed, ProofHandoff

CHECK_SLACK_SECONDS = 5.0  # past a check's own limit, which the checker keeps itself, before it is killed
REASON_LIMIT = 300  # characters of a checker's reason kept (it quotes the lemma that failed)


def wanted(variant: Variant, problem: Problem, limits: Limits) -> bool:
    """Whether this run writes a certificate: the variant can, ``limits.certify`` asks for one, and the
    canonical CNF is small enough to refute. Decided from n, the instance's kind and the solver alone (it is
    asked before every certified run, in the worker and in the service). ``auto`` asks where nothing else settles a no-solution claim:
    not on a plain board (2 and 3 are the only ones without a solution) and not on an instance with a
    published answer."""
    if limits.certify == CertifyMode.NEVER or not variant.solver.can_certify(dict(variant.options)):
        return False
    if limits.certify == CertifyMode.AUTO:
        if problem.is_plain:
            return False
        from nqueens_plugins.formats.published import published_answer

        if problem.source is not None and published_answer(problem.source, problem.n) is not None:
            return False
    return fits(problem)  # counted from n and the blocked squares: nothing of the formula is built


def open_log(problem: Problem, limits: Limits) -> ProofLog:
    """A proof log on a new file in this process's temp folder (the worker's scratch folder)."""
    descriptor, name = tempfile.mkstemp(prefix="nqueens-proof-", suffix=".drat")
    os.close(descriptor)
    return ProofLog(Path(name), problem, limits.certificate_size)


def claims_none(executed: Executed) -> bool:
    """Whether the call ended claiming that no solution exists (what a certificate is for)."""
    outcome = executed.outcome
    return executed.error is None and isinstance(outcome, Outcome) and outcome.status == Status.NO_SOLUTION


def hand_over(executed: Executed, log: ProofLog) -> Executed:
    """Close the run's proof; for a no-solution claim, say where it is (``Executed.proof``) and leave it there
    for the service to take; otherwise remove it."""
    log.close()
    if claims_none(executed):
        executed.proof = ProofHandoff(str(log.path), log.bytes_written, log.lemmas, log.overflowed)
    else:
        with contextlib.suppress(OSError):
            log.path.unlink()
    return executed


def request(path: Path, problem: Problem, limits: Limits) -> dict[str, Any]:
    """What the checker program is asked about ``path``: the instance itself, from which it builds the formula."""
    return {
        "n": problem.n,
        "fixed": sorted(problem.fixed.items()),
        "blocked": sorted(problem.blocked),
        "proof": str(path),
        "max_bytes": limits.certificate_size,
        "seconds": limits.check_timeout,
        "memory": limits.check_memory,  # the program limits its own data size (no preexec_fn: threads)
    }


def check_seconds(limits: Limits) -> float:
    """How long a check may take before its checker is killed from outside: its own limit, which the
    program keeps itself, and a margin."""
    return limits.check_timeout + CHECK_SLACK_SECONDS


def certificate(verdict: dict[str, Any] | str, size: int, seconds: float, limits: Limits) -> Certificate:
    """What a checker's answer (or the one line saying why there is none) means for the certificate.

    The verdict is the answer's ``status`` field, one of ``CertificateStatus``'s words; an answer without one
    (or with another word) is no verdict: unchecked, saying so. Nothing is read out of the reason's words."""
    over_budget = CertificateStatus.OVER_BUDGET
    if verdict == "timeout":
        return Certificate(over_budget, f"out of checking time ({limits.check_timeout:g} s)", size, 0, seconds)
    if verdict == "out of memory":
        return Certificate(
            over_budget, f"the checker ran out of memory ({limits.check_memory:,} bytes)", size, 0, seconds
        )
    if isinstance(verdict, str):
        return Certificate(CertificateStatus.UNCHECKED, verdict[:REASON_LIMIT], size, 0, seconds)
    reason = verdict.get("reason")
    status = CertificateStatus.parse(verdict.get("status"))
    if status is None:
        status, reason = CertificateStatus.UNCHECKED, f"the checker answered without a verdict: {reason}"
    return Certificate(
        status,
        None if reason is None else str(reason)[:REASON_LIMIT],
        number(verdict.get("bytes")) or size,
        number(verdict.get("lemmas")),
        float(verdict.get("seconds") or seconds) if isinstance(verdict.get("seconds"), (int, float)) else seconds,
    )


def number(value: Any) -> int:
    return value if type(value) is int and value >= 0 else 0


def check(path: Path, problem: Problem, limits: Limits) -> Certificate:
    """Ask this process's checker (``checker_process.py``) about ``path`` under the certificate's limits, and
    wait: its verdict, or why there is none. For a caller that watches nothing else meanwhile."""
    size = path.stat().st_size if path.exists() else 0
    start = time.perf_counter()
    verdict = checker().check(request(path, problem, limits), check_seconds(limits))
    return certificate(verdict, size, time.perf_counter() - start, limits)
