"""Core layer, worker side: where a complete solver writes the certificate of a no-solution claim.

A certificate is a DRUP/DRAT proof that the instance's canonical CNF
(``core/canonical_cnf.py``) has no model: lemmas, each implied by what came
before (by unit propagation, RUP; or, for DRAT, by the resolution-asymmetric-
tautology rule on its first literal), ending in the empty clause. The host
checks it with a checker of its own (``nqueens_plugins.proofs``) that shares
no code with any solver; a certificate that fails makes the run invalid.

The host opens a ``ProofLog`` on a file of the run's own and hands it to the
solver as ``budget.proof`` when the run is certified (``None`` otherwise: one
comparison is the whole cost). The proof goes to disk as it is written, never
held in memory, and the log stops writing at ``max_bytes`` (``overflowed``):
the solver runs on and its claim is reported as over the certificate's budget,
never as certified.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cached_property
from pathlib import Path
from typing import IO

from nqueens_plugins.core.canonical_cnf import CanonicalCnf, canonical_cnf
from nqueens_plugins.core.problem import Problem

__all__ = ["ProofLog"]

BUFFER = 1 << 20


class ProofLog:
    """A DRAT proof in text form, written line by line to ``path`` over ``problem``'s canonical CNF.

    ``add(literals)`` writes a lemma; ``delete(literals)`` a deletion (optional:
    it makes checking faster); ``variable(column, row)`` is a square's variable
    in the canonical numbering. A solver whose library writes DRUP/DRAT text of
    its own over the canonical CNF passes its lines through with ``write_lines``.
    """

    def __init__(self, path: Path, problem: Problem, max_bytes: int) -> None:
        self.path = path
        self.problem = problem
        self.max_bytes = max_bytes
        self.bytes_written = 0
        self.lemmas = 0
        self.overflowed = False
        self._file: IO[str] | None = None
        self._pending: list[tuple[int, ...]] = []  # refute(): lemmas not yet subsumed by a parent's

    @cached_property
    def formula(self) -> CanonicalCnf:
        return canonical_cnf(self.problem)

    def variable(self, column: int, row: int) -> int:
        """The canonical variable of a square (0 for a blocked one, which has none)."""
        return self.formula.variable(column, row)

    def add(self, literals: Iterable[int]) -> None:
        """Write a lemma (a clause implied by the formula and the lemmas before it); ``[]`` is the empty clause."""
        self._write(" ".join(map(str, literals)))
        self.lemmas += 1

    def refute(self, lemma: Sequence[int]) -> None:
        """Write the lemma of a node a depth-first search refuted (the negation of the decisions down to it),
        in post-order, and delete the lemmas of its subtree, which it subsumes: a checker then keeps only the
        lemmas beside the current path, not the whole tree (a proof of millions of lemmas checks in a
        fraction of the time). Every lemma of the search must go through here for the bookkeeping to hold."""
        depth = len(lemma)
        pending = self._pending
        self.add(lemma)  # first: its check needs the lemmas below it
        while pending and len(pending[-1]) > depth:
            below = pending.pop()
            if depth:  # after the empty clause nothing is worth deleting
                self.delete(below)
        pending.append(tuple(lemma))

    def delete(self, literals: Iterable[int]) -> None:
        """Say a clause (of the formula or a lemma) is no longer needed."""
        self._write("d " + " ".join(map(str, literals)))

    def write_lines(self, lines: Iterable[str]) -> None:
        """Pass DRUP/DRAT text through: each item one line of it (``"1 -2 0"``, ``"d 3 0"``, ``"0"``), with or
        without its end of line. Blank lines and comments (``c ...``) are skipped: only ``"0"`` is the empty
        clause. Written in batches: a library's proof may have millions of lines."""
        batch: list[str] = []
        size = 0
        for line in lines:
            text = line.strip()
            if not text or text.startswith("c"):
                continue
            if not text.endswith(" 0") and text != "0":
                text += " 0"  # a line given without its terminating 0
            batch.append(text)
            size += len(text) + 1
            if not text.startswith("d"):
                self.lemmas += 1
            if size >= BUFFER:
                self._write_block(batch, size)
                batch, size = [], 0
        if batch:
            self._write_block(batch, size)

    def _write_block(self, batch: list[str], size: int) -> None:
        if self.overflowed:
            return
        if self.bytes_written + size > self.max_bytes:
            for text in batch:  # the last lines that fit, then the log stops
                self._write(text[:-2] if text.endswith(" 0") else "")
            return
        if self._file is None:
            self._file = self.path.open("w", encoding="ascii", buffering=BUFFER)
        self._file.write("\n".join(batch) + "\n")
        self.bytes_written += size

    def _write(self, clause_text: str) -> None:
        if self.overflowed:
            return
        line = f"{clause_text} 0\n" if clause_text else "0\n"
        if self.bytes_written + len(line) > self.max_bytes:
            self.overflowed = True
            self.close()
            return
        if self._file is None:
            self._file = self.path.open("w", encoding="ascii", buffering=BUFFER)
        self._file.write(line)
        self.bytes_written += len(line)

    def close(self) -> None:
        """Flush the proof to disk (the host calls this after the solver returns)."""
        if self._file is not None:
            self._file.close()
            self._file = None
