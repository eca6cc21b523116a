"""Execution layer, worker side: a run's certificate opened before the solver is called, checked after it returns.

When a run is to be certified (``wanted``: the solver can, the instance's answer
is not otherwise known or ``Limits.certify`` says always), the worker opens a
``ProofLog`` on a file of the run's own in its scratch folder (removed with the
worker, however it ends) and hands it to the solver as ``budget.proof``. If the
solver claims no solution, ``check`` asks the checker program (``python -m
nqueens_plugins.proofs.check_program``), a process of the worker's own that
``checker_process.py`` keeps warm from one certificate to the next (``start_checker``
starts it as soon as a task wants a certificate): no plugin code is imported
there, and it runs under the certificate's own time and memory
limits (``Limits.check_timeout``, ``check_memory``), not the run's. What it says
travels back as a ``Certificate`` for the judge; the proof file is removed
whatever happened. A certificate the checker could not finish (over its size,
time or memory) is ``over-budget``: said in the record, never taken as proof and
never as a wrong one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from nqueens_plugins.core.canonical_cnf import canonical_cnf
from nqueens_plugins.core.limits import Limits
from nqueens_plugins.core.problem import Outcome, Problem, Status
from nqueens_plugins.core.proof_log import ProofLog
from nqueens_plugins.core.solver import Variant
from nqueens_plugins.execution.checker_process import STARTUP_SECONDS, checker
from nqueens_plugins.execution.tasks import Certificate, Executed

CHECK_SLACK_SECONDS = 5.0  # past a check's own limit, which the checker keeps itself, before it is killed
REASON_LIMIT = 300  # characters of a checker's reason kept (it quotes the lemma that failed)


def wanted(variant: Variant, problem: Problem, limits: Limits) -> bool:
    """Whether this run writes a certificate: the variant can, ``limits.certify`` asks for one, and the
    canonical CNF is small enough to refute. ``auto`` asks where nothing else settles a no-solution claim:
    not on a plain board (2 and 3 are the only ones without a solution) and not on an instance with a
    published answer."""
    if limits.certify == "never" or not variant.solver.can_certify(dict(variant.options)):
        return False
    if limits.certify == "auto":
        if problem.is_plain:
            return False
        from nqueens_plugins.formats.published import published_answer

        if problem.source is not None and published_answer(problem.source, problem.n) is not None:
            return False
    try:
        canonical_cnf(problem)  # a bound first; the exact count only for a board near the limit
    except ValueError:
        return False
    return True


def open_log(problem: Problem, limits: Limits) -> ProofLog:
    """A proof log on a new file in this process's temp folder (the worker's scratch folder)."""
    descriptor, name = tempfile.mkstemp(prefix="nqueens-proof-", suffix=".drat")
    os.close(descriptor)
    return ProofLog(Path(name), problem, limits.certificate_size)


def settle(
    executed: Executed, log: ProofLog, problem: Problem, limits: Limits, checking: Callable[[float], None]
) -> Executed:
    """Close the run's proof, check it if the run claims no solution (``checking`` is told the seconds the
    check may take first, so the service holds off its kill), remove it, and say what became of it."""
    log.close()
    try:
        outcome = executed.outcome
        claims_none = executed.error is None and isinstance(outcome, Outcome) and outcome.status == Status.NO_SOLUTION
        if not claims_none:
            return executed
        if log.overflowed:
            executed.certificate = Certificate(
                "over-budget",
                f"the proof grew past its {limits.certificate_size:,} bytes",
                log.bytes_written,
                log.lemmas,
            )
            return executed
        checking(limits.check_timeout + CHECK_SLACK_SECONDS + STARTUP_SECONDS)
        executed.certificate = check(log.path, problem, limits)
        return executed
    finally:
        with contextlib.suppress(OSError):
            log.path.unlink()


def start_checker(variant: Variant, problem: Problem, limits: Limits) -> None:
    """Start this process's checker now if this run will want it (``wanted``), so that its loading
    overlaps the solver's preparation and run instead of following them."""
    if wanted(variant, problem, limits):
        checker().start(limits.check_memory)


def check(path: Path, problem: Problem, limits: Limits) -> Certificate:
    """Ask this process's checker (``checker_process.py``) about ``path`` under the certificate's limits; its
    verdict, or why there is none."""
    size = path.stat().st_size if path.exists() else 0
    request = {
        "n": problem.n,
        "fixed": sorted(problem.fixed.items()),
        "blocked": sorted(problem.blocked),
        "proof": str(path),
        "max_bytes": limits.certificate_size,
        "seconds": limits.check_timeout,
        "memory": limits.check_memory,  # the program limits its own data size (no preexec_fn: threads)
    }
    start = time.perf_counter()
    verdict = checker().check(request, limits.check_timeout + CHECK_SLACK_SECONDS)
    seconds = time.perf_counter() - start
    if verdict == "timeout":
        return Certificate("over-budget", f"out of checking time ({limits.check_timeout:g} s)", size, 0, seconds)
    if verdict == "out of memory":
        return Certificate(
            "over-budget", f"the checker ran out of memory ({limits.check_memory:,} bytes)", size, 0, seconds
        )
    if isinstance(verdict, str):
        return Certificate("unchecked", verdict[:REASON_LIMIT], size, 0, seconds)
    reason = verdict.get("reason")
    status = "certified" if verdict.get("certified") is True else verdict.get("status") or "rejected"
    return Certificate(
        status,
        None if reason is None else str(reason)[:REASON_LIMIT],
        int(verdict.get("bytes") or size),
        int(verdict.get("lemmas") or 0),
        float(verdict.get("seconds") or seconds),
    )
