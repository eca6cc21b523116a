"""Proofs layer, worker side: the checker program, ``python -m nqueens_plugins.proofs.check_program [MEMORY]``.

Started by ``execution/checker_process.py``, once per worker, in a process of its
own that imports no plugin, and kept warm: loading numba and the checker's
compiled kernels takes most of a second (10 s or more the first time on a
machine), far more than checking a typical proof, so it is paid once, not per
certificate.

It limits its own data size first (``MEMORY`` bytes, else the default
``Limits.check_memory``), loads the checker, and says ``{"ready": true}`` on a
line of standard output. Then, for each line of standard input, a JSON request
(the instance, the proof's path and the certificate's limits), it rebuilds the
canonical CNF from the instance itself, checks the proof under the request's
memory and time, and writes one JSON line: ``status`` (``certified``,
``rejected``, ``over-budget`` or ``unchecked``), ``reason``, ``lemmas``,
``bytes``, ``seconds`` (the checking's own time: reading the proof and checking
it). Anything wrong with a request is an answer too (the request is ours, so
that would be a bug worth seeing), never a traceback. After a failure it cannot
vouch for (out of memory, an exception) it answers and exits: the next request
gets a fresh process. It exits when its input ends, and within a quarter of a
second of its parent's end, whatever it is doing.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import threading
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from nqueens_plugins.core.canonical_cnf import canonical_cnf
from nqueens_plugins.core.limits import CHECK_MEMORY
from nqueens_plugins.core.problem import Problem

if TYPE_CHECKING:
    from nqueens_plugins.proofs import CheckReport

MAX_REQUEST_BYTES = 1 << 24  # a request names an instance, not its proof: far smaller than this
PARENT_POLL_SECONDS = 0.25

# Words of a reason that mean the checker ran out of what it was given (time, memory, size), not that the
# proof is wrong: "out of checking time", "out of memory", "over the 1,073,741,824-byte limit", "max_literals".
OVER_BUDGET_WORDS = ("out of checking time", "out of memory", "-byte limit", "max_literals", "literals, over the")


def limit_memory(size: int) -> None:
    """Cap this process's data segment (heap, arrays) at ``size`` bytes, within the hard limit."""
    hard = resource.getrlimit(resource.RLIMIT_DATA)[1]
    limit = size if hard == resource.RLIM_INFINITY else min(size, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))


def leave_with_parent(parent: int) -> None:
    """Exit at once when the process that started this one is gone (``kill -9`` of a worker included):
    a thread of its own, which runs while a compiled kernel (GIL released) or Python checks."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="leave-with-parent", daemon=True).start()


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


def answer_to(line: bytes) -> tuple[dict[str, Any], bool]:
    """The answer to one request line, and whether this process is still fit to answer another."""
    try:
        request = json.loads(line)
        limit_memory(int(request["memory"]))
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
        # The checker itself turns a MemoryError into a reason; whatever it held is freed, but the
        # process's heap may be left fragmented near the limit: a fresh one answers the next request.
        return answer, "out of memory" not in (report.reason or "")
    except MemoryError:
        return {"status": "over-budget", "certified": False, "reason": "the checker ran out of memory"}, False
    except Exception as exc:  # noqa: BLE001 - one line back, whatever went wrong
        reason = f"the checker failed: {type(exc).__name__}: {exc}"
        return {"status": "unchecked", "certified": False, "reason": reason}, False


def write(out: IO[str], answer: dict[str, Any]) -> None:
    out.write(json.dumps(answer) + "\n")
    out.flush()


def main() -> None:
    leave_with_parent(os.getppid())
    limit_memory(int(sys.argv[1]) if len(sys.argv) > 1 else CHECK_MEMORY)
    from nqueens_plugins.proofs.checker import JIT, warm_up

    warm_up()  # numba's kernels loaded (or compiled) now, before any request's clock
    out = sys.stdout
    write(out, {"ready": True, "compiled": JIT})
    while True:
        line = sys.stdin.buffer.readline(MAX_REQUEST_BYTES)
        if not line.strip():
            return  # our parent closed the pipe: done
        answer, fit = answer_to(line)
        write(out, answer)
        if not fit:
            return


if __name__ == "__main__":
    main()
