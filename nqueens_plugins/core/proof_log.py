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

from collections.abc import Iterable
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

    def delete(self, literals: Iterable[int]) -> None:
        """Say a clause (of the formula or a lemma) is no longer needed."""
        self._write("d " + " ".join(map(str, literals)))

    def write_lines(self, lines: Iterable[str]) -> None:
        """Pass DRUP/DRAT text through: each item one line of it (``"1 -2 0"``, ``"d 3 0"``), with or without the end of line."""
        for line in lines:
            text = line.rstrip("\n")
            if text.endswith(" 0"):
                text = text[:-2]
            elif text == "0":
                text = ""
            self._write(text)
            if not text.startswith("d"):
                self.lemmas += 1

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
