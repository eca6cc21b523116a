"""Proofs layer, worker side: the checker program, ``python -m nqueens_plugins.proofs.check_program``.

Started by ``execution/certificates.py`` for each certificate, in a process of
its own that imports no plugin: it reads one JSON request on standard input
(the instance, the proof's path and the certificate's limits), limits its own
data size first, rebuilds the canonical CNF from the instance itself, checks the
proof and writes one JSON line on standard output: ``status`` (``certified``,
``rejected`` or ``over-budget``), ``reason``, ``lemmas``, ``bytes``,
``seconds``. Anything wrong with the request is a ``rejected`` line too (the
request is ours, so that would be a bug worth seeing), never a traceback.
"""

from __future__ import annotations

import json
import os
import resource
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nqueens_plugins.core.canonical_cnf import canonical_cnf
from nqueens_plugins.core.problem import Problem

if TYPE_CHECKING:
    from nqueens_plugins.proofs import CheckReport

# A proof this small checks in milliseconds in plain Python; loading numba and its compiled kernels takes
# a second or more (many seconds the first time on a machine), so small ones are checked without it.
COMPILED_FROM_BYTES = 32 * 1024  # measured: 70 KB took 1.1 s in plain Python, 500 KB 15 s

# Words of a reason that mean the checker ran out of what it was given (time, memory, size), not that the
# proof is wrong: "out of checking time", "out of memory", "over the 1,073,741,824-byte limit", "max_literals".
OVER_BUDGET_WORDS = ("out of checking time", "out of memory", "-byte limit", "max_literals", "literals, over the")


def limit_memory(size: int) -> None:
    """Cap this process's data segment (heap, arrays) at ``size`` bytes, within the hard limit."""
    hard = resource.getrlimit(resource.RLIMIT_DATA)[1]
    limit = size if hard == resource.RLIM_INFINITY else min(size, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))


def problem_of(request: dict[str, Any]) -> Problem:
    n = int(request["n"])
    fixed = {int(c): int(r) for c, r in request.get("fixed", [])}
    blocked = frozenset((int(c), int(r)) for c, r in request.get("blocked", []))
    return Problem(n, fixed=fixed, blocked=blocked)


def status_of(report: CheckReport) -> str:
    if report.certified:
        return "certified"
    reason = report.reason or ""
    return "over-budget" if any(words in reason for words in OVER_BUDGET_WORDS) else "rejected"


def main() -> None:
    try:
        request = json.loads(sys.stdin.buffer.read(1 << 24))
        limit_memory(int(request["memory"]))
        with_numba = (
            os.path.getsize(request["proof"]) >= COMPILED_FROM_BYTES if os.path.isfile(request["proof"]) else False
        )
        if not with_numba:
            os.environ["NQUEENS_PROOFS_NO_JIT"] = "1"  # read when the checker is imported, next
        from nqueens_plugins.proofs import check_proof

        formula = canonical_cnf(problem_of(request))
        report = check_proof(
            formula, Path(request["proof"]), max_bytes=int(request["max_bytes"]), seconds=float(request["seconds"])
        )
        answer = {
            "status": status_of(report),
            "certified": report.certified,
            "reason": report.reason,
            "lemmas": report.lemmas,
            "bytes": report.bytes,
            "seconds": report.seconds,
        }
    except MemoryError:
        answer = {"status": "over-budget", "certified": False, "reason": "the checker ran out of memory"}
    except Exception as exc:  # noqa: BLE001 - one line back, whatever went wrong
        answer = {
            "status": "unchecked",
            "certified": False,
            "reason": f"the checker failed: {type(exc).__name__}: {exc}",
        }
    sys.stdout.write(json.dumps(answer) + "\n")


if __name__ == "__main__":
    main()
