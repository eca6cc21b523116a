"""Formats layer, parent side: the file of a count's finished pieces (``count --out FILE``), so a long count resumes.

A count that its solver splits into pieces (``Solver.count_parts``: bitboard's
subtrees or start constellations) can take hours; killed or out of time, it
should lose only the pieces in flight, as the record counters' own files do.

Line 1 is the header: what is counted (the solver's label, n, the problem's id,
``--unique``) and how it was split (the number of pieces and, where the pieces
print the same in every run, a fingerprint of them). Each later line is one
finished piece: its index in the split, its solutions, iterations, whole-number
counters and seconds. Lines are appended as pieces come back; a last line cut
short by a kill is ignored on resume.

A pieces file may come from anyone, and what it holds is added to the count
without being counted again (``workflows/counting.py`` counts only a sample of it
again, unless OEIS checks the total), so it is read as untrusted input: a regular file of at
most ``MAX_FILE_BYTES`` (special files, folders and /proc files are refused before
anything is read), lines of at most ``MAX_LINE_BYTES``, and every piece one of
this count's split, each index once (a repeat with the same count aside), its counts
whole numbers, none negative, no key twice in a line (``json.loads`` would keep the last).
Anything else refuses the whole file in one line naming the line: a count that
quietly skipped a forged line would still be wrong. One command at a time
writes a pieces file (an exclusive ``flock``, as ``records.ResultsWriter`` takes).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import math
import os
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import Count, Problem
from nqueens_plugins.formats.output_files import check_output

FORMAT = "nqueens-count-pieces"
KIND = "a count's pieces file"  # as formats.output_files names what a file is
VERSION = 1
MAX_FILE_BYTES = 16 * 2**20  # about 100,000 pieces as written (bitboard splits into 256 at most), read in 3 s
MAX_SKIPPED = 1_000  # lines cut short by a kill (one a session at most) or blank
MAX_LINE_BYTES = 64 * 2**10  # a piece as written is under 200 bytes; its counters are capped below
MAX_COUNTERS = 64  # counters kept per piece, so a line stays far under MAX_LINE_BYTES
MAX_NAME = 100  # characters of a counter's name, of the header's solver label and problem id
MAX_BITS = 256  # a whole number in the file: no count of any board comes near 2**256
PIECE_KEYS = ("index", "solutions", "iterations", "counters", "seconds")
TORN_START = '{"type": "piece", '  # how every piece line starts: a line cut short by a kill still does
OPEN_FLAGS = os.O_CLOEXEC | os.O_NONBLOCK  # a FIFO opened by mistake never blocks the open


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
    """An open pieces file, locked for this count: the pieces finished before (on resume) and the
    descriptor new ones are appended to (unbuffered, so nothing is left to fail at close)."""

    path: Path
    finished: dict[int, dict[str, Any]] = field(default_factory=dict)
    fd: int | None = None

    @classmethod
    def open(
        cls, path: str | Path, *, resume: bool, solver: str, problem: Problem, unique: bool, parts: Sequence[Any]
    ) -> PiecesFile:
        """Start ``path`` for this count, or (``resume``) continue it: BadInput, one line, if it holds
        something else, is being written by another command or cannot be written. Nothing is written
        to a file that is refused."""
        path = Path(path)
        refuse_special(path)
        check_output(path, KIND, flag="--out")
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
        pieces = cls(path)
        try:
            pieces.fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | OPEN_FLAGS, 0o666)
        except OSError as exc:
            raise BadInput(f"cannot write the count's pieces to {str(path)!r}: {exc.strerror}") from None
        try:
            pieces.start(header, resume)
        except BaseException:
            pieces.close()
            raise
        return pieces

    def start(self, header: Mapping[str, Any], resume: bool) -> None:
        """Under the lock, read what is there (on resume) or write the header."""
        assert self.fd is not None
        regular_size(self.fd, self.path)
        lock(self.fd, self.path)
        size = regular_size(self.fd, self.path)  # what another command may have written before we held the lock
        if size == 0:
            self.append(json.dumps(header) + "\n", undo_to=0)  # a header cut short would refuse the file
            return
        if not resume:
            raise already_exists(self.path)
        _, self.finished = read_descriptor(self.fd, self.path, size, wanted=header)
        try:
            last = os.pread(self.fd, 1, size - 1)
        except OSError as exc:
            raise BadInput(f"cannot read {str(self.path)!r}: {exc.strerror}") from None
        if last != b"\n":
            self.append("\n")  # the line a kill cut short stays behind, ignored

    def record(self, index: int, counted: Count, seconds: float) -> None:
        """Keep one finished piece (written at once: a kill loses only the pieces in flight). A piece
        whose count the file could not hold (see ``MAX_BITS``) is not kept: it is counted again."""
        solutions = whole(counted.solutions)
        if solutions is None or solutions < 0:
            return
        iterations = whole(counted.iterations)
        counters = kept_counters(counted.counters)
        line = {
            "type": "piece",
            "index": index,
            "solutions": solutions,
            "iterations": iterations if iterations is not None and iterations >= 0 else 0,
            "counters": counters,
            "seconds": round(seconds, 6) if math.isfinite(seconds) and seconds >= 0 else 0.0,
        }
        text = json.dumps(line) + "\n"
        if len(text) > MAX_LINE_BYTES:  # cannot happen with the caps above; never a line the reader refuses
            text = json.dumps({**line, "counters": {}}) + "\n"
        self.append(text)

    def append(self, text: str, undo_to: int | None = None) -> None:
        """Append one line whole; on a write error (a full disk), cut the file back to where the line
        began, so what was finished stays and no torn line is left, and raise BadInput (one line)."""
        assert self.fd is not None
        data = text.encode("utf-8")
        begin = undo_to
        try:
            if begin is None:
                begin = os.fstat(self.fd).st_size  # we hold the lock: nobody else appends
            write_all(self.fd, data)
        except OSError as exc:
            if begin is not None:
                with contextlib.suppress(OSError):
                    os.ftruncate(self.fd, begin)
            raise BadInput(f"cannot write the count's pieces to {str(self.path)!r}: {exc.strerror}") from None

    def close(self) -> None:
        """Release the file (and its lock). Never raises: every line was written whole or reported."""
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is written (a write may take only part)."""
    written = 0
    while written < len(data):
        count = os.write(fd, data[written:])
        if count == 0:  # never for a regular file; an endless loop if it were
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        written += count


def check_pieces_file(path: Path, resume: bool) -> None:
    """Refuse, before any work, a pieces file that cannot be written or would be overwritten (its
    missing folders are made, as for every ``--out``); on resume, one that is not a valid pieces file
    or that another command is writing."""
    refuse_special(path)
    check_output(path, KIND, flag="--out")
    if not path.exists():
        return
    with open_for_reading(path) as fd:
        size = regular_size(fd, path)
        if size == 0:
            return
        if not resume:
            raise already_exists(path)
        read_descriptor(fd, path, size, keep=False)
        try:  # only a writer holds the lock: shared, and let go at once
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            raise being_written(path) from None


def read(path: str | Path) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """The header and the finished pieces (by index) of a pieces file, each piece checked against the
    header's split; BadInput, one line, if it is not one or cannot be trusted."""
    path = Path(path)
    refuse_special(path)
    with open_for_reading(path) as fd:
        return read_descriptor(fd, path, regular_size(fd, path))


@contextlib.contextmanager
def open_for_reading(path: Path) -> Iterator[int]:
    try:
        fd = os.open(path, os.O_RDONLY | OPEN_FLAGS)
    except OSError as exc:
        raise BadInput(f"cannot read {str(path)!r}: {exc.strerror}") from None
    try:
        yield fd
    finally:
        os.close(fd)


def read_descriptor(
    fd: int, path: Path, size: int, wanted: Mapping[str, Any] | None = None, *, keep: bool = True
) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """Read the first ``size`` bytes of an open pieces file (what it held when it was measured: a
    line being appended meanwhile is not read). With ``wanted`` (the header of the count about to
    resume it), a file of another count is refused before its pieces are read."""
    if size > MAX_FILE_BYTES:
        raise BadInput(
            f"{str(path)!r} is {size:,} bytes, more than a pieces file holds ({MAX_FILE_BYTES:,}): "
            "it is not one this command reads; choose another --out (out=)"
        )
    try:
        with os.fdopen(os.dup(fd), "rb") as handle:
            handle.seek(0)
            return parse(bounded_lines(handle, size), str(path), wanted, keep=keep)
    except OSError as exc:
        raise BadInput(f"cannot read {str(path)!r}: {exc.strerror}") from None


def bounded_lines(handle: Any, size: int) -> Iterator[bytes]:
    """The lines of the first ``size`` bytes, none longer than ``MAX_LINE_BYTES`` (a longer one is
    yielded cut at the limit plus one byte, for ``parse`` to refuse): never more held at once."""
    left = size
    while left > 0:
        line = handle.readline(min(left, MAX_LINE_BYTES + 1))
        if not line:
            return
        left -= len(line)
        yield line


def parse(
    lines: Iterable[bytes], name: str, wanted: Mapping[str, Any] | None = None, *, keep: bool = True
) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """The header and the pieces of a pieces file's lines; BadInput, one line, for anything else.

    Every piece must be one of the header's split (``pieces``; the plan's own number when resuming,
    since ``wanted`` must match the header), each index once: a second line for an index is allowed
    only with the same solutions, as two commands writing one file before files were locked left,
    and it adds nothing (the piece is counted once). Blank lines and lines cut short by a kill (the
    start of a piece line, not valid JSON) are passed over, up to ``MAX_SKIPPED``; nothing else is.
    So the lines read are bounded by the split (two a piece, and ``MAX_SKIPPED`` more) as well as by
    the file's size. Without ``keep``, only each piece's solutions are kept (a check before any work
    need not hold the counters)."""
    numbered = enumerate(lines, start=1)
    first = next(numbered, None)
    header = header_of(first[1] if first else b"", name)
    if wanted is not None:
        difference = mismatch(header, wanted)
        if difference:
            raise BadInput(f"{name!r} {difference}: choose another --out (out=)")
    finished: dict[int, dict[str, Any]] = {}
    twice: set[int] = set()
    skipped = 0
    for number, raw in numbered:
        piece = piece_of(raw, header["pieces"], name, number)
        if piece is None:
            skipped += 1
            if skipped > MAX_SKIPPED:
                refuse(name, number, f"more than {MAX_SKIPPED:,} lines cut short or blank")
            continue
        index = piece["index"]
        if index in finished:
            if finished[index]["solutions"] != piece["solutions"]:
                again = f"{piece['solutions']:,} solutions, not {finished[index]['solutions']:,}"
                refuse(name, number, f"piece {index} again, with {again}")
            if index in twice:
                refuse(name, number, f"piece {index} a third time")
            twice.add(index)
            continue
        finished[index] = piece if keep else {"solutions": piece["solutions"]}
    return header, finished


def header_of(raw: bytes, name: str) -> dict[str, Any]:
    """The header line, checked field by field (its words reach messages)."""
    header = decode(raw)
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise BadInput(f"{name!r} is not the pieces file of a count (nqueens count --out writes those)")
    if header.get("version") != VERSION:
        version = header.get("version")
        shown = version if isinstance(version, int) and whole(version) is not None else "unknown"
        raise BadInput(f"{name!r} was written by another version of the pieces format ({shown})")
    for key, valid in (
        ("solver", printable),
        ("problem", printable),
        ("n", lambda value: positive(value)),
        ("pieces", lambda value: positive(value)),
        ("plain", lambda value: isinstance(value, bool)),
        ("unique", lambda value: isinstance(value, bool)),
        ("fingerprint", lambda value: value is None or printable(value)),
    ):
        if not valid(header.get(key)):
            refuse(name, 1, f"the header's {key!r} is missing or not what a count writes")
    return header


def piece_of(raw: bytes, pieces: int, name: str, number: int) -> dict[str, Any] | None:
    """One piece line checked, keeping only what a count adds up; None for a blank or torn line."""
    if len(raw) > MAX_LINE_BYTES:
        refuse(name, number, f"longer than {MAX_LINE_BYTES:,} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        refuse(name, number, "not UTF-8 text")
    if not text.strip():
        return None
    try:
        piece = decode_strict(text)
    except RecursionError:
        refuse(name, number, "nested too deep")
    except json.JSONDecodeError as exc:
        if cut_short(text, exc):
            return None  # nothing of it is counted, so nothing can be forged by it: the piece is counted again
        refuse(name, number, "not a JSON line")
    except ValueError as exc:  # NaN, Infinity, a number of more than 4,300 digits, a key twice
        refuse(name, number, "a key twice in one object" if "key twice" in str(exc) else "not a JSON line")
    if not isinstance(piece, dict) or piece.get("type") != "piece":
        refuse(name, number, "not a piece")
    if "index" not in piece or whole(piece["index"]) is None:
        refuse(name, number, "a piece without a whole-number index")
    index = piece["index"]
    if not 0 <= index < pieces:
        refuse(name, number, f"piece {shown(index)} is not one of this count's {pieces:,} pieces (0 to {pieces - 1:,})")
    for key in ("solutions", "iterations"):
        if whole(piece.get(key)) is None:
            refuse(name, number, f"{key} missing or not a whole number")
        if piece[key] < 0:
            refuse(name, number, f"{key} {shown(piece[key])} is negative")
    counters = piece.get("counters")
    if not isinstance(counters, dict) or len(counters) > MAX_COUNTERS:
        refuse(name, number, f"counters are not a table of at most {MAX_COUNTERS} whole numbers")
    for key, value in counters.items():
        if len(key) > MAX_NAME or whole(value) is None:
            refuse(name, number, f"counters are not a table of at most {MAX_COUNTERS} whole numbers")
    seconds = piece.get("seconds")
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds < math.inf:
        refuse(name, number, "seconds is not a non-negative number")
    return {"type": "piece", **{key: piece[key] for key in PIECE_KEYS}}


def cut_short(text: str, error: json.JSONDecodeError) -> bool:
    """Whether a line that is not JSON is the start of a piece line a kill cut short: it starts as one and
    the decoder ran out of text (an open string, or a failure within the last characters: a number cut
    in its exponent), rather than meet something a count never writes."""
    line = text.rstrip()
    starts = line.startswith(TORN_START) or TORN_START.startswith(line)
    return starts and (error.msg.startswith("Unterminated string") or error.pos >= len(line) - 3)


def decode(raw: bytes) -> Any:
    """A JSON value, or None for anything that is not one (header lines: refused by the caller)."""
    try:
        return decode_strict(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return None


def decode_strict(text: str) -> Any:
    """json.loads without NaN and Infinity (not JSON; a count never writes them), and without a key twice
    in one object: ``json.loads`` keeps the last of two, so ``{"solutions": 237, "solutions": 99999}``
    would read as a line it was never written as (a count writes each key once)."""
    return json.loads(text, parse_constant=no_constant, object_pairs_hook=no_repeated_key)


def no_repeated_key(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object of a pieces line, refused (ValueError: "not a JSON line") if it names a key twice."""
    table = dict(pairs)
    if len(table) != len(pairs):
        raise ValueError("a key twice in one object")
    return table


def no_constant(word: str) -> NoReturn:
    raise ValueError(f"{word} is not JSON")


def refuse(name: str, number: int, why: str) -> NoReturn:
    """The one line that refuses a pieces file: its own words, never the file's."""
    raise BadInput(
        f"{name!r} line {number}: {why}: not a piece of this count as nqueens writes one, so nothing of "
        "the file is used; remove the line or choose another --out (out=)"
    )


def whole(value: Any) -> int | None:
    """``value`` if it is a whole number the file holds (not a bool, under ``MAX_BITS`` bits), else None."""
    if isinstance(value, bool) or not isinstance(value, int) or value.bit_length() > MAX_BITS:
        return None
    return value


def positive(value: Any) -> bool:
    return whole(value) is not None and value > 0


def printable(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_NAME and value.isprintable()


def shown(value: int) -> str:
    """A whole number of the file in a message, cut short when long."""
    text = f"{value:,}"
    return text if len(text) <= 30 else f"{text[:12]}...({len(str(abs(value)))} digits)"


def kept_counters(counters: Any) -> dict[str, int]:
    """The piece's whole-number counters the file keeps: named by short strings, at most ``MAX_COUNTERS``."""
    if not isinstance(counters, dict):
        return {}
    kept = {
        key: value
        for key, value in counters.items()
        if isinstance(key, str) and len(key) <= MAX_NAME and whole(value) is not None
    }
    return dict(list(kept.items())[:MAX_COUNTERS])


def refuse_special(path: Path) -> None:
    """Refuse a path that is there but is no regular file (a folder, a FIFO, a device), before opening it."""
    try:
        status = path.stat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise BadInput(f"cannot read {str(path)!r}: {exc.strerror}") from None
    if not stat.S_ISREG(status.st_mode):
        raise BadInput(f"{str(path)!r} is not a regular file")


def regular_size(fd: int, path: Path) -> int:
    """The size of an open file, refused unless it is a regular file that says its size (a /proc or
    /sys file says 0 and has content; a path may have been swapped since it was checked)."""
    status = os.fstat(fd)
    if not stat.S_ISREG(status.st_mode):
        raise BadInput(f"{str(path)!r} is not a regular file")
    if status.st_size == 0:
        try:
            hidden = os.pread(fd, 1, 0)
        except OSError as exc:  # /proc/self/mem
            raise BadInput(f"{str(path)!r} is not a regular file (reading it: {exc.strerror})") from None
        if hidden:
            raise BadInput(f"{str(path)!r} is not a regular file (it says it is empty, yet has content)")
    return status.st_size


def lock(fd: int, path: Path) -> None:
    """One command at a time: two counts appending to one file would write every piece twice."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        raise being_written(path) from None


def being_written(path: Path) -> BadInput:
    return BadInput(
        f"{str(path)!r} is being written by another nqueens command; wait for it or choose another --out (out=)"
    )


def already_exists(path: Path) -> BadInput:
    return BadInput(
        f"{str(path)!r} already exists: add --resume (resume=True in Python) to continue that count, "
        "or choose another --out (out=)"
    )


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
