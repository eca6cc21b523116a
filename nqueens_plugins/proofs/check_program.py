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
``rejected``, ``over-budget`` or ``unchecked``: the checker's verdict as it
decided it, a ``CertificateStatus``, never guessed from the reason's words),
``reason``, ``lemmas``,
``bytes``, ``seconds`` (the checking's own time: reading the proof and checking
it). A formula the request's memory cannot hold (``over_memory``: its size,
counted without building it, against what is left under the limit) is over
budget before anything of it is built. Anything wrong with a request is an
answer too (the request is ours, so that would be a bug worth seeing), never a
traceback. After a failure it cannot
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
from typing import IO, Any

from nqueens_plugins.core.canonical_cnf import FormulaSize, canonical_cnf, formula_size
from nqueens_plugins.core.certificate_status import CertificateStatus
from nqueens_plugins.core.limits import CHECK_MEMORY
from nqueens_plugins.core.problem import Problem

MAX_REQUEST_BYTES = 1 << 24  # a request names an instance, not its proof: far smaller than this
PARENT_POLL_SECONDS = 0.25


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


# Bytes the checker allocates to load a formula (``checker._Checker.load_formula`` into ``_Database``), per
# literal, clause, square of the board and variable. Per literal: the Python list it is gathered in (a pointer
# and, for a negated literal, an int object: ~41 B), the batch's int32 array and the int64 array numpy
# converts the list through (12 B), the database's arena (``lits``, 4 B) and ``max_variable_in``'s copy (4 B).
# Per clause: the lengths' list (8 B), the batch's kinds, starts, lengths and where (25 B), numpy's cumulative
# sums (16 B) and the database's cstart, clen, alive, nxt, hnext and hhead (33 to 41 B). Per square: the
# numbering (a tuple entry and an int object, 40 B); per variable the database's assign, reason, trail, head
# and mark (19 B). The sums are rounded to what was measured under RLIMIT_DATA (the limit the checker keeps):
# a plain board of n = 60, 90, 120, 150 (0.35 to 5.6 million clauses) loaded with 282, 424, 692 and 1,139 MB,
# 221 MB of it in use before, about 162 B a clause where this says 162 (an estimate a little under, never
# over: a formula it refuses cannot be loaded).
LITERAL_BYTES = 50
CLAUSE_BYTES = 62
SQUARE_BYTES = 40
VARIABLE_BYTES = 19


def formula_bytes(size: FormulaSize, n: int) -> int:
    """About the bytes the checker allocates to load a formula of ``size`` over an ``n`` x ``n`` board."""
    return (
        LITERAL_BYTES * size.literals
        + CLAUSE_BYTES * size.clauses
        + SQUARE_BYTES * n * n
        + (VARIABLE_BYTES * size.variables)
    )


def data_in_use() -> int:
    """The bytes of this process's data that count against RLIMIT_DATA now (``VmData``), 0 where unknown."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def over_memory(size: FormulaSize, n: int) -> str | None:
    """Why a formula of ``size`` cannot be loaded within this process's data limit, or None: decided from its
    size alone, before anything is built, instead of filling the memory and failing (then restarting)."""
    limit = resource.getrlimit(resource.RLIMIT_DATA)[0]
    if limit == resource.RLIM_INFINITY:
        return None
    need, in_use = formula_bytes(size, n), data_in_use()
    if need <= limit - in_use:
        return None
    return (
        f"the formula needs about {need:,} bytes, over the checker's memory of {limit:,} "
        f"({in_use:,} of it in use before loading)"
    )


def problem_of(request: dict[str, Any]) -> Problem:
    n = int(request["n"])
    fixed = {int(c): int(r) for c, r in request.get("fixed", [])}
    blocked = frozenset((int(c), int(r)) for c, r in request.get("blocked", []))
    return Problem(n, fixed=fixed, blocked=blocked)


def answer_to(line: bytes) -> tuple[dict[str, Any], bool]:
    """The answer to one request line, and whether this process is still fit to answer another."""
    try:
        request = json.loads(line)
        limit_memory(int(request["memory"]))
        from nqueens_plugins.proofs.checker import check_proof

        problem = problem_of(request)
        size = formula_size(problem)
        too_large = over_memory(size, problem.n)
        if too_large is None:
            try:
                formula = canonical_cnf(problem)
            except ValueError as exc:  # over the clauses the host builds at all
                too_large = str(exc)
        if too_large is not None:
            nothing = {"lemmas": 0, "bytes": 0, "seconds": 0.0}  # nothing read: the proof's size is the caller's
            return {"status": CertificateStatus.OVER_BUDGET, "reason": too_large, **nothing}, True
        report = check_proof(
            formula, Path(request["proof"]), max_bytes=int(request["max_bytes"]), seconds=float(request["seconds"])
        )
        answer = {
            "status": report.status,
            "reason": report.reason,
            "lemmas": report.lemmas,
            "bytes": report.bytes,
            "seconds": report.seconds,
        }
        # The checker itself turns a MemoryError into a reason; whatever it held is freed, but the
        # process's heap may be left fragmented near the limit: a fresh one answers the next request.
        return answer, "out of memory" not in (report.reason or "")
    except MemoryError:
        reason = "the checker ran out of memory"
        return {"status": CertificateStatus.OVER_BUDGET, "reason": reason}, False
    except Exception as exc:  # noqa: BLE001 - one line back, whatever went wrong
        reason = f"the checker failed: {type(exc).__name__}: {exc}"
        return {"status": CertificateStatus.UNCHECKED, "reason": reason}, False


def write(out: IO[str], answer: dict[str, Any]) -> None:
    out.write(json.dumps(answer) + "\n")
    out.flush()


def main() -> None:
    leave_with_parent(os.getppid())
    limit_memory(int(sys.argv[1]) if len(sys.argv) > 1 else CHECK_MEMORY)
    from nqueens_plugins.proofs.checker import warm_up
    from nqueens_plugins.proofs.jit import JIT

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
