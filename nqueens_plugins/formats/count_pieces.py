"""Formats layer, parent side: the file of a count's finished pieces (``count --out FILE``), so a long count resumes.

A count that its solver splits into pieces (``Solver.count_parts``: bitboard's
subtrees or start constellations) can take hours; killed or out of time, it
should lose only the pieces in flight, as the record counters' own files do.

Line 1 is the header: what is counted (the solver's label, n, the problem's id,
``--unique``) and how it was split (the number of pieces and, where the pieces
print the same in every run, a fingerprint of them). Each later line is one
finished piece: its index in the split, its solutions, iterations, whole-number
counters and seconds. Lines are appended and flushed as pieces come back; a last
line cut short by a kill is ignored on resume.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import Count, Problem
from nqueens_plugins.formats.inputs import check_writable

FORMAT = "nqueens-count-pieces"
VERSION = 1


def plan_fingerprint(parts: Sequence[Any]) -> str | None:
    """A digest of the pieces as they print, or None when they do not print the same in every run
    (an object shown by its address): then only their number is compared on resume."""
    shown = repr(list(parts))
    if " at 0x" in shown:
        return None
    return hashlib.sha256(shown.encode()).hexdigest()[:16]


def describe(header: Mapping[str, Any]) -> str:
    """What a header counts, for messages: "n = 18 with bitboard (--unique)"."""
    unique = " (--unique)" if header.get("unique") else ""
    board = f"n = {header.get('n')}" + ("" if header.get("plain") else f" #{header.get('problem')}")
    return f"{board} with {header.get('solver')}{unique}"


@dataclass
class PiecesFile:
    """An open pieces file: the pieces finished before (on resume) and the handle new ones go to."""

    path: Path
    finished: dict[int, dict[str, Any]] = field(default_factory=dict)
    handle: IO[str] | None = None

    @classmethod
    def open(
        cls, path: str | Path, *, resume: bool, solver: str, problem: Problem, unique: bool, parts: Sequence[Any]
    ) -> PiecesFile:
        """Start ``path`` for this count, or (``resume``) continue it: BadInput, one line, if it holds
        something else or cannot be written."""
        path = Path(path)
        check_pieces_file(path, resume)
        header = {
            "type": "header",
            "format": FORMAT,
            "version": VERSION,
            "solver": solver,
            "n": problem.n,
            "problem": problem.id,
            "plain": problem.is_plain,
            "unique": unique,
            "pieces": len(parts),
            "fingerprint": plan_fingerprint(parts),
        }
        exists = path.is_file() and path.stat().st_size > 0
        pieces = cls(path)
        if exists:
            written, pieces.finished = read(path)
            difference = mismatch(written, header)
            if difference:
                raise BadInput(f"{str(path)!r} {difference}: choose another --out")
        try:
            pieces.handle = path.open("a", encoding="utf-8")
            if not exists:
                pieces.write(header)
            elif not ends_with_newline(path):
                pieces.handle.write("\n")  # the line a kill cut short stays behind, ignored
        except OSError as exc:
            raise BadInput(f"cannot write the count's pieces to {str(path)!r}: {exc.strerror}") from None
        return pieces

    def record(self, index: int, counted: Count, seconds: float) -> None:
        """Keep one finished piece (flushed at once: a kill loses only the pieces in flight)."""
        counters = {
            key: value
            for key, value in (counted.counters or {}).items()
            if isinstance(value, int) and not isinstance(value, bool)
        }
        self.write(
            {
                "type": "piece",
                "index": index,
                "solutions": int(counted.solutions),
                "iterations": int(counted.iterations) if isinstance(counted.iterations, int) else 0,
                "counters": counters,
                "seconds": round(seconds, 6),
            }
        )

    def write(self, line: Mapping[str, Any]) -> None:
        assert self.handle is not None
        try:
            self.handle.write(json.dumps(line) + "\n")
            self.handle.flush()
        except OSError as exc:
            raise BadInput(f"cannot write the count's pieces to {str(self.path)!r}: {exc.strerror}") from None

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None


def check_pieces_file(path: Path, resume: bool) -> None:
    """Refuse, before any work, a pieces file that cannot be written or would be overwritten (its
    missing folders are made, as for every ``--out``); on resume, one that is not a pieces file."""
    if path.exists() and not path.is_file():
        raise BadInput(f"{str(path)!r} is not a regular file")
    check_writable(path)
    if path.is_file() and path.stat().st_size > 0:
        if not resume:
            raise BadInput(
                f"{str(path)!r} already exists: add --resume to continue that count, or choose another --out"
            )
        read(path)


def read(path: Path) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """The header and the finished pieces (by index) of a pieces file; BadInput if it is not one."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read {str(path)!r}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        header = json.loads(lines[0])
    except (IndexError, json.JSONDecodeError):
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise BadInput(f"{str(path)!r} is not the pieces file of a count (nqueens count --out writes those)")
    if header.get("version") != VERSION:
        raise BadInput(f"{str(path)!r} was written by another version of the pieces format ({header.get('version')})")
    finished: dict[int, dict[str, Any]] = {}
    for line in lines[1:]:
        try:
            piece = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line a kill cut short
        if isinstance(piece, dict) and piece.get("type") == "piece" and isinstance(piece.get("index"), int):
            finished[piece["index"]] = piece
    return header, finished


def mismatch(written: Mapping[str, Any], wanted: Mapping[str, Any]) -> str | None:
    """How the count in a file differs from the one about to resume it, or None."""
    for key in ("solver", "n", "problem", "unique"):
        if written.get(key) != wanted.get(key):
            return f"holds the count of {describe(written)}, not of {describe(wanted)}"
    if written.get("pieces") != wanted.get("pieces") or (
        written.get("fingerprint") and wanted.get("fingerprint") and written["fingerprint"] != wanted["fingerprint"]
    ):
        return (
            f"holds {describe(written)} split into {written.get('pieces')} pieces, and this run splits it "
            f"into {wanted.get('pieces')} others (another version of the solver?)"
        )
    return None


def ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"
