"""Certified runs: the library's DRUP proof of the instance's canonical CNF, passed through to ``budget.proof``.

A no-solution claim is certified against the host's canonical CNF (``budget.proof.formula``),
not this plugin's encoding, so a certified run poses that formula itself: one variable per open
square, numbered by the host (``queens_on`` reads a model back through that numbering). The SAT
solver is built ``with_proof=True`` and, on UNSAT, ``get_proof()``'s lines go to the ``ProofLog``
(``write_proof``).

Which solvers, by trying each on 14 unsatisfiable Excluded Diagonals instances (n = 10..12) and small
boards, every proof checked by a forward RUP checker:

* CaDiCaL (1.5.3, 1.9.5, 3.0.0) and Lingeling: every proof checked, deletions included;
* Glucose 4 and 4.2, MapleChrono, MapleCM: their lemmas check, but two of the fourteen Glucose proofs
  delete clauses a later lemma needs (MiniSat's line deletes clauses satisfied at the root, reasons of
  root units among them), so their deletions are dropped (sound: a lemma that is RUP with fewer
  clauses is RUP with more; the checker only works harder). MapleCM's proofs may end without the
  empty clause (its final conflict is at the root): ``write_proof`` adds it;
* MapleSAT is left out: its first lemmas are not RUP at all. MiniSat 2.2, MergeSat 3 and Kissat log
  no proof in python-sat.

Memory: python-sat keeps the proof in a temporary file during the search, but ``get_proof()`` reads
all of it and returns it as one list of text lines (CaDiCaL's binary proof is decoded to text by a
Python loop first): the whole proof is in memory, as Python strings (about 100 bytes a line), once
the solver is done. That is the library's behaviour; the ``ProofLog`` then streams it to disk.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from nqueens_plugins import BadInput, canonical_cnf
from nqueens_pysat.encoding import Clause, Size

if TYPE_CHECKING:
    from nqueens_plugins import CanonicalCnf, ProofLog

# python-sat solvers whose proofs check (see the docstring), and those whose deletions are kept.
PROOF_SOLVERS = (
    "cadical195",
    "cadical153",
    "cadical300",
    "lingeling",
    "glucose4",
    "glucose42",
    "maplechrono",
    "maplecm",
)
KEEPS_DELETIONS = ("cadical195", "cadical153", "cadical300", "lingeling")
BATCH = 10_000  # clauses per append_formula call: the caller polls its budget between batches


def certified_formula(log: ProofLog, max_clauses: int) -> CanonicalCnf:
    """The formula to refute (``log.formula``); BadInput when it has more than ``max_clauses`` clauses."""
    try:
        canonical_cnf(log.problem, max_clauses)
    except ValueError:
        raise BadInput(
            f"pysat certifies boards whose canonical CNF has at most {max_clauses:,} clauses "
            "(a plain board up to n = 144): this one has more"
        ) from None
    return log.formula


def canonical_batches(formula: CanonicalCnf, size: Size) -> Iterator[list[Clause]]:
    """The canonical CNF in batches of ``BATCH`` clauses, ``size`` kept up to date."""
    size.variables = formula.variables
    batch: list[Clause] = []
    for clause in formula.clauses():
        batch.append(clause)
        if len(batch) == BATCH:
            size.clauses += len(batch)
            yield batch
            batch = []
    size.clauses += len(batch)
    yield batch


def queens_on(formula: CanonicalCnf, model: list[int]) -> list[int]:
    """The board of a model of the canonical CNF: the row of the true square in each column."""
    n = formula.problem.n
    true = {literal for literal in model if literal > 0}
    return [next(r for r in range(n) if formula.variable(c, r) in true) for c in range(n)]


def write_proof(log: ProofLog, lines: Iterable[str], keep_deletions: bool) -> None:
    """Pass the library's proof lines to ``log``, ending with the empty clause.

    Lines after the first empty clause are not written (nothing after it is needed); deletions are
    dropped unless ``keep_deletions``; the empty clause is added when the library's proof lacks it.
    """
    ended = False

    def passed() -> Iterator[str]:
        nonlocal ended
        for line in lines:
            text = line.strip()
            if not text or (text.startswith("d") and not keep_deletions):
                continue
            yield text
            if text == "0":
                ended = True
                return

    log.write_lines(passed())
    if not ended:
        log.add([])


def log_state(log: ProofLog) -> tuple[int, int, bool]:
    """What a child process wrote to the log, for the parent's copy of it (``adopt_state``)."""
    return log.bytes_written, log.lemmas, log.overflowed


def adopt_state(log: ProofLog, state: Any) -> None:
    """Take over the counters of the child's copy of ``log``, which wrote the file."""
    log.bytes_written, log.lemmas, log.overflowed = int(state[0]), int(state[1]), bool(state[2])
