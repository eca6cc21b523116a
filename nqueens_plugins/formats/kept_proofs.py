"""Formats layer, parent side: certificates kept for an outside checker (``--keep-proofs DIR``, ``Limits.keep_proofs``).

The SAT world checks a refutation with a checker of its choosing (drat-trim, the
SAT competition's UNSAT track): a formula in DIMACS and a DRAT proof of it. So a
kept certificate is two files in the folder the user named:

* ``<run>.drat`` (``.drat.gz`` past ``COMPRESS_FROM`` bytes): the proof exactly as
  the solver wrote it, text or binary DRAT, named after its run: the instance's
  id, the solver's label (made safe for a file name, with a hash of the label so
  two labels never share a name), the trial and the seed;
* ``<instance id>.cnf`` (``.cnf.gz`` for a large formula), written once per
  instance: the canonical CNF the proof refutes, as ``nqueens instances export
  --format dimacs`` writes it.

``drat-trim 1a2b3c4d5e6f.cnf 1a2b...-bitset-mrv-....drat`` re-checks a proof
(``docs/certificates.md``; drat-trim reads the gzip-compressed files after
``gunzip``). Each file is written whole or not at all: to a temporary name beside
it, then renamed.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, BinaryIO, cast

from nqueens_plugins.core.canonical_cnf import CanonicalCnf, clause_count
from nqueens_plugins.core.problem import Problem

__all__ = ["formula_name", "keep_proof", "proof_name"]

COMPRESS_FROM = 1 << 20  # bytes of a proof (or clauses of a formula x 8) past which the kept file is gzipped
UNSAFE = re.compile(r"[^A-Za-z0-9._=,-]+")


def proof_name(label: str, problem: Problem, trial: int, seed: int) -> str:
    """The kept proof's file name (without ``.gz``): one per run, the same for the same run."""
    digest = hashlib.sha256(label.encode()).hexdigest()[:8]
    safe = UNSAFE.sub("_", label).strip("._")[:60] or "solver"
    return f"{problem.id}-{safe}-{digest}-t{trial}-s{seed}.drat"


def formula_name(problem: Problem) -> str:
    return f"{problem.id}.cnf"


def keep_proof(source: Path, folder: Path, label: str, problem: Problem, trial: int, seed: int) -> str:
    """Copy the checked proof at ``source`` into ``folder`` (made if missing, but not its parent: a user names one
    folder, ``output_files.check_new_folder`` checked its parent before any work) beside its instance's canonical CNF
    (written once); the kept proof's path, as ``folder`` was given. OSError if either cannot be written."""
    folder.mkdir(exist_ok=True)
    name = proof_name(label, problem, trial, seed)
    compress = source.stat().st_size > COMPRESS_FROM
    target = folder / (name + ".gz" if compress else name)

    def copy(out: IO[bytes]) -> None:
        with source.open("rb") as proof:
            shutil.copyfileobj(proof, out, 1 << 20)

    written_whole(target, copy, compress)
    keep_formula(folder, problem)
    return str(target)


def keep_formula(folder: Path, problem: Problem) -> None:
    """The instance's canonical CNF as DIMACS beside its proofs, unless it is there already."""
    name = formula_name(problem)
    if (folder / name).exists() or (folder / f"{name}.gz").exists():
        return
    compress = clause_count(problem) * 8 > COMPRESS_FROM

    def write(out: IO[bytes]) -> None:
        for block in blocks(CanonicalCnf(problem).dimacs_lines()):
            out.write(block)

    written_whole(folder / (f"{name}.gz" if compress else name), write, compress)


def blocks(lines: Iterator[str], size: int = 1 << 16) -> Iterator[bytes]:
    batch: list[str] = []
    for line in lines:
        batch.append(line)
        if len(batch) >= size:
            yield ("\n".join(batch) + "\n").encode("ascii")
            batch = []
    if batch:
        yield ("\n".join(batch) + "\n").encode("ascii")


def written_whole(target: Path, write: Callable[[IO[bytes]], None], compress: bool) -> None:
    """``write`` into a temporary file beside ``target`` (gzipped if ``compress``), then renamed over it."""
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")
    try:
        with os.fdopen(descriptor, "wb") as raw:
            if compress:
                with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as packed:
                    write(cast(BinaryIO, packed))
            else:
                write(raw)
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
