"""Formats layer, parent side: the results file, JSON lines appended and flushed one run at a time. Its only owner.

Everything that writes a record (``compare``, ``solve --json``) or reads one
(``report``, ``plot``, ``records_frame``, ``--resume``) goes through here: the
fields of a run record are made by ``instance_fields`` and ``RunRecord.written`` (``formats/run_record.py``),
read back by ``scan_records`` (``read_runs`` for every reader of runs) and named in tables by ``instance_label``.

Line 1 (and the first line of every later session that resumes the file) is a
header describing the environment; every other line is one run. Because each
record is flushed as its run ends, a comparison killed with -9 loses at most
the runs in flight, and ``--resume`` continues where it stopped.

Reading is forgiving but never silent, and trusts nothing: a file may come
from anyone. The whole reading is bounded (``ReadLimits``: lines, blank ones
counted, and the bytes the file unpacks to; past either, refused in one line),
each line is bounded (length, nesting) before it is parsed, its
numbers must be finite, and every field a summary, plot or page uses is checked
(types, ranges, n within bounds, fixed queens and blocked squares on the board,
times finite and not negative), so no other module meets a value it cannot use.
A line that fails is reported with its line number and skipped; a header field
of the wrong type is reported and dropped; an incomplete last line (a write cut
short) is reported, and dropped when the file is resumed. A file kept compressed
(gzip, bzip2, xz) is read as it unpacks, streamed like a plain one; where its
compressed data is cut or damaged, the records before the break are kept, with
a warning. Records are only ever appended to a plain file: ``--resume`` of a
compressed one is refused.
"""

from __future__ import annotations

import fcntl
import functools
import io
import json
import math
import os
import platform
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import IO, Any

import numpy as np

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import Problem, Status
from nqueens_plugins.core.verify import board_error
from nqueens_plugins.formats.reading import (
    RESULTS_MAX_BYTES,
    RESULTS_MAX_LINES,
    Bounded,
    TooLarge,
    compressed,
    decompressor,
    open_regular,
)
from nqueens_plugins.formats.run_record import (
    RunRecord,
    natural,
    now,
    remember,
    run_problem,
    seconds,
    share_known,
    text,
    whole,
)

FORMAT = "nqueens-results"
FORMAT_VERSION = 1


def instance_fields(problem: Problem) -> dict[str, Any]:
    """What a record says of its instance: our JSON form's fields, the content hash, the source."""
    return {
        "n": problem.n,
        "fixed": {str(c): r for c, r in problem.fixed.items()},
        "blocked": [list(square) for square in sorted(problem.blocked)],
        "instance": problem.id,
        "source": problem.source,
    }


def instance_label(record: Mapping[str, Any]) -> str | None:
    """How a record's instance is named in tables: None for a plain board."""
    if record.get("source"):
        return str(record["source"])
    if not record.get("fixed") and not record.get("blocked"):
        return None
    return f"n={record['n']} #{record.get('instance') or '?'}"


def run_key(record: Mapping[str, Any]) -> tuple[Any, ...]:
    """What makes two runs the same run: solver variant, instance, trial, seed.

    The instance is its content hash; records written before instances had one
    (plain boards and ``--fixed``) get it computed from n and the fixed queens.
    """
    instance = record.get("instance")
    if not isinstance(instance, str):
        fixed = {int(c): int(r) for c, r in (record.get("fixed") or {}).items()}
        instance = Problem(int(record["n"]), fixed).id
    return (record["solver"], int(record["n"]), instance, int(record["trial"]), int(record["seed"]))


def environment(command: str | None) -> dict[str, Any]:
    """The header: enough to tell later on what machine and software the runs were made."""
    packages = {}
    for name in ("nqueens-plugins", "pluggy", "numpy", "numba", "ortools", "python-constraint2"):
        try:
            packages[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return {
        "type": "header",
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "created": now(),
        "command": command,
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpu": cpu_name(),
        "cpu_count": os.cpu_count(),
        "packages": packages,
    }


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# Reading. A results file may come from anyone: each line is bounded (length, nesting), parsed with
# only finite numbers, and checked field by field here, so no other module meets a value of the wrong
# type or range. A bad line is a warning naming it; only a file that is not ours is refused.

MAX_LINE_BYTES = 32 << 20  # a record keeping 4 million queens (--queens); a longer line is skipped unread
MAX_LINES = RESULTS_MAX_LINES  # what one reading may take in all (``ReadLimits``): formats/reading.py says why
MAX_BYTES = RESULTS_MAX_BYTES
MAX_DEPTH = 32  # records nest 3 deep; json recurses once a level, so depth is bounded before parsing
MAX_HEADERS = 1_000  # one per session of the file; past this, only the latest is kept
MAX_WARNINGS = 100  # warnings about lines kept; the rest are counted in one line
BRACKETS = b"[]{}"
NOT_BRACKETS = bytes(byte for byte in range(256) if byte not in BRACKETS)
DEPTH_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")  # open +1, close -1 (as int8)
STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"?', re.DOTALL)  # never fails once started: linear on any line
SURROGATE = re.compile(rb"\\u[dD][89abAB]")  # an escape that may leave a lone surrogate (unprintable text)


@dataclass(frozen=True)
class ReadLimits:
    """How much one reading of a results file may take: ``lines`` (blank ones count) and ``bytes`` (what the
    file unpacks to, or its size when plain). Past either the reading is refused (``TooLarge``, one line):
    a summary of the part read would pass for the file's, so nothing is reported from a file cut short by
    its limit; a user whose file is larger raises the limit (``nqueens report --max-lines/--max-bytes``)."""

    lines: int = MAX_LINES
    bytes: int = MAX_BYTES

    def __post_init__(self) -> None:
        for name, value in (("lines", self.lines), ("bytes", self.bytes)):
            if type(value) is not int or value < 1:
                raise BadInput(f"the most {name} a results file may hold is a whole number from 1, not {value!r}")


@dataclass
class Loaded:
    """What reading a results file found besides its runs (filled in as ``scan_records`` streams), and the
    limits that reading is held to (``limits``)."""

    headers: list[dict[str, Any]] = field(default_factory=list)
    records: list[RunRecord] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    torn_tail: int | None = None  # byte offset of an incomplete last line
    unlisted: int = 0  # warnings past MAX_WARNINGS, counted, not kept
    headers_dropped: int = 0  # headers past MAX_HEADERS (the latest is kept in the last place)
    limits: ReadLimits = field(default_factory=ReadLimits)

    def warn(self, text: str) -> None:
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(text)
        else:
            self.unlisted += 1


def read_records(path: Path) -> Loaded:
    """Read a whole results file; BadInput if it is missing or not this tool's."""
    loaded = Loaded()
    loaded.records.extend(scan_records(path, loaded))
    return loaded


def first_header(path: Path, limits: ReadLimits | None = None) -> dict[str, Any] | None:
    """A results file's first header, read only as far as the first run, within ``limits`` (a file of a header
    and a hundred million blank lines stops at the limit the user gave, not at the default); BadInput as
    ``scan_records`` for a file that is not this tool's."""
    loaded = Loaded(limits=limits or ReadLimits())
    for _ in scan_records(path, loaded):
        break  # the generator, dropped here, closes the file
    return loaded.headers[0] if loaded.headers else None


def read_runs(path: Path, loaded: Loaded | None = None) -> Iterator[RunRecord]:
    """The one way a results file is read for its runs (``report``, ``plot``, ``nq.summary``,
    ``records_frame``, the table after ``compare --resume``): every valid run record, streamed (flat memory
    for any file size), each with its time limit (from the header, for files written before records
    carried it). Headers and warnings go to ``loaded`` as the file is read; BadInput if it is missing
    or not this tool's (on the first record asked for)."""
    loaded = loaded if loaded is not None else Loaded()
    return with_time_limits(scan_records(path, loaded), loaded)


def with_time_limits(records: Iterable[RunRecord], loaded: Loaded) -> Iterator[RunRecord]:
    """Records that lack their ``timeout`` (files written before records carried it) get their header's."""
    for record in records:
        if "timeout" not in record and loaded.headers:
            grid = loaded.headers[-1].get("grid")
            record = record.with_time_limit(grid.get("timeout") if isinstance(grid, dict) else None)
        yield record


def scan_records(path: Path, loaded: Loaded) -> Iterator[RunRecord]:
    """Yield the run records of a results file one at a time (flat memory for any file size).

    Headers, warnings and a torn last line are collected in ``loaded`` as the
    file is read; the file must start with a header. Every record yielded has
    passed ``run_problem``; records are read-only (the runs on one instance
    share its fixed queens and blocked squares, ``share_known``). Solved
    records whose board is wrong (a file edited or damaged since it was
    written) are re-verified here and come out ``verified: false``, with a
    warning.
    """
    # A regular file only, checked on the open descriptor (a device such as /dev/zero would never end, a FIFO
    # never open, a kernel file under /proc claims size 0); a plain one larger than the bytes it may hold is
    # refused before it is read.
    handle = open_regular(path, "results file", loaded.limits.bytes)
    with handle:
        unpacking = None
        try:
            unpacking = decompressor(handle)  # a results file kept gzipped (or bzip2, xz) reads as it is
            advice = "; nqueens report --max-bytes (max_bytes=) reads more"
            bounded = Bounded(handle if unpacking is None else unpacking, loaded.limits.bytes, str(path), advice)
            yield from parse_lines(io.BufferedReader(bounded, 1 << 20), str(path), loaded)
        except OSError as exc:  # opened but unreadable: /proc/self/mem, a failing disk
            raise BadInput(f"cannot read results file {str(path)!r}: {exc.strerror or exc}") from None
        except BadInput as exc:  # nothing could be read: where the compression broke first, that is the cause
            if isinstance(exc, TooLarge) or unpacking is None or unpacking.broken is None:
                raise
            where = ", within its first line" if unpacking.cut else ", before the end of its first line"
            raise BadInput(f"{str(path)!r} {unpacking.broken}{where}: there are no records to read") from None
        if unpacking is not None and unpacking.broken is not None:
            kept = "the records before the cut are kept" if unpacking.cut else "the records before the damage are kept"
            loaded.warnings.append(f"{path} {unpacking.broken}: {kept}")


def parse_lines(handle: IO[bytes], name: str, loaded: Loaded) -> Iterator[RunRecord]:
    """The valid run records of an open results file; headers and warnings go to ``loaded``."""
    offset = 0
    seen_any = False
    rejected = 0
    most = loaded.limits.lines
    for number, (raw, size, complete) in enumerate(lines_of(handle), start=1):
        if number > most:  # blank lines count: a file of nothing but newlines is bounded too
            raise TooLarge(
                f"{name}: more than the {most:,} lines a results file may hold (blank ones count); "
                "nqueens report --max-lines (max_lines=) reads more"
            )
        start = offset
        offset += size
        if raw is not None and raw.isspace():  # (readline never gives an empty line)
            continue
        item, why = decode(raw) if raw is not None else (None, f"longer than {MAX_LINE_BYTES >> 20} MiB")
        if not isinstance(item, dict):
            if not seen_any:
                because = f": {why}" if why else ""
                raise BadInput(f"{name!r} is not an nqueens results file (line {number} is not a header{because})")
            if not complete:  # no newline after it: the write may have been cut (said even past the cap)
                loaded.torn_tail = start
                loaded.warnings.append(f"{name}:{number}: incomplete last line (an interrupted write); skipped")
            else:
                loaded.warn(f"{name}:{number}: {why or 'malformed line'}; skipped")
            continue
        seen_any = True
        kind = item.get("type")
        if kind == "header":
            if item.get("format") != FORMAT:
                raise BadInput(f"{name!r} is not an nqueens results file")
            for dropped in header_problems(item):
                loaded.warn(f"{name}:{number}: header {dropped}; ignored")
            keep_header(loaded, item)
        elif not loaded.headers:
            raise BadInput(f"{name!r} is not an nqueens results file (no header line)")
        elif kind != "run":
            loaded.warn(f"{name}:{number}: not a run record; skipped")
        elif (problem := run_problem(share_known(item))) is not None:
            loaded.warn(f"{name}:{number}: not a valid run record ({problem}); skipped")
        else:
            remember(item)
            wrong = board_problem(item)
            if wrong is not None:
                rejected += 1
                item["status"] = "invalid"  # what the host says of a board the verifier rejects
                item["verified"] = False
                item["reason"] = f"re-verified on reading: {wrong}"
            yield RunRecord.trusted(item)
    if not loaded.headers:
        raise BadInput(f"{name!r} is not an nqueens results file (it is empty)")
    if loaded.unlisted:
        loaded.warnings.append(f"{name}: {loaded.unlisted:,} more line(s) skipped or repaired, not listed")
    if loaded.headers_dropped:
        loaded.warnings.append(
            f"{name}: {loaded.headers_dropped:,} header(s) past the first {MAX_HEADERS:,} not kept, but the latest"
        )
    if rejected:
        loaded.warnings.append(
            f"{name}: {rejected:,} record(s) claim a solution the verifier rejects (edited or damaged since written); "
            "they count as invalid"
        )


def lines_of(handle: IO[bytes]) -> Iterator[tuple[bytes | None, int, bool]]:
    """Each line as (its bytes, or None past MAX_LINE_BYTES; its length; whether a newline ends it).

    A line too long is read past in pieces, never held whole: one line of a
    file of gigabytes costs no more memory than a record.
    """
    while raw := handle.readline(MAX_LINE_BYTES):
        complete = raw.endswith(b"\n")
        if complete or len(raw) < MAX_LINE_BYTES:
            yield raw, len(raw), complete
            continue
        size = len(raw)
        while (piece := handle.readline(1 << 20)) and not piece.endswith(b"\n"):
            size += len(piece)
        yield None, size + len(piece), piece.endswith(b"\n")


class NotFinite(ValueError):
    """A number no figure can use: NaN or Infinity (not JSON, though json reads them), or 1e400 (past a float)."""


def refuse_constant(token: str) -> Any:
    raise NotFinite(token)


def finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise NotFinite(text)
    return value


DECODER = json.JSONDecoder(parse_constant=refuse_constant, parse_float=finite_float)


def decode(raw: bytes) -> tuple[Any, str | None]:
    """One line's JSON value, or (None, why not); numbers come out finite, nesting at most MAX_DEPTH."""
    if nesting_bound(raw) > MAX_DEPTH and depth(raw) > MAX_DEPTH:
        return None, f"nested deeper than {MAX_DEPTH} levels"
    try:
        text = raw.decode("utf-8")
        try:  # a line as written: the value from its first character, then its newline
            item, end = DECODER.raw_decode(text)
        except ValueError:  # or with space or a byte-order mark before it, as json.loads takes
            item, end = DECODER.decode(text.removeprefix("\ufeff")), len(text)
        if end < len(text) and not text[end:].isspace():
            return None, None
    except NotFinite:
        return None, "a number that is not finite (NaN, Infinity or past 1.8e308)"
    except ValueError:  # syntax, UTF-8, an int past 4,300 digits
        return None, None
    if b"\\u" in raw and SURROGATE.search(raw) and not printable(item):
        return None, "text with a lone surrogate (not Unicode)"
    return item, None


def nesting_bound(raw: bytes) -> int:
    """At least how deep a line nests, counted in C: its opening brackets, less those that open a container
    right after a sibling closed ("],[", "},{"; 600 of them in a record blocking 600 squares).

    Along the deepest chain, each level holds a run of adjacent sibling containers whose first one follows
    no such closing, so the count never falls below the depth; brackets inside strings only raise it (each
    "],[" brings its own "["). Only a line above it needs ``depth``."""
    opening = raw.count(b"[") + raw.count(b"{")
    if opening <= MAX_DEPTH:
        return opening
    opening -= raw.count(b"],[")
    return opening if opening <= MAX_DEPTH else opening - raw.count(b"},{")


def depth(raw: bytes) -> int:
    """How deep a line's brackets nest outside its strings (an unclosed string runs to the end)."""
    if b"\\" in raw:  # an escape: only a parse finds where each string ends
        outside = STRING.sub(b"", raw)
    else:  # none: quotes open and close strings in turn
        outside = b"".join(raw.split(b'"')[::2])
    brackets = outside.translate(None, NOT_BRACKETS)
    if not brackets:
        return 0
    return int(np.cumsum(np.frombuffer(brackets.translate(DEPTH_STEPS), dtype=np.int8), dtype=np.int64).max())


def printable(item: Any) -> bool:
    """Whether every string in ``item`` can be written as UTF-8 (json keeps lone surrogates)."""
    try:
        json.dumps(item, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def keep_header(loaded: Loaded, header: dict[str, Any]) -> None:
    """Keep a header; past MAX_HEADERS only the latest (the one a resume checks), so memory stays bounded."""
    if len(loaded.headers) < MAX_HEADERS:
        loaded.headers.append(header)
    else:
        loaded.headers[-1] = header
        loaded.headers_dropped += 1


def strings(value: Any) -> bool:
    return type(value) is list and all(type(item) is str for item in value)


GRID_CHECKS: dict[str, Callable[[Any], bool]] = {
    "seed": whole,
    "timeout": seconds,
    "memory": natural,
    "trials": natural,
    "solvers": strings,
    "boards": strings,
    "tune": lambda value: type(value) is dict,  # read in full by the tune's report (``Space.from_description``)
}


def grid_ok(value: Any) -> bool:
    """The grid a resume is checked against (``grid_difference``): each field it reads, of its type."""
    return value is None or (
        type(value) is dict and all(check(value[key]) for key, check in GRID_CHECKS.items() if key in value)
    )


def packages_ok(value: Any) -> bool:
    return value is None or (type(value) is dict and all(type(version) is str for version in value.values()))


HEADER_FIELDS: tuple[tuple[str, Callable[[Any], bool], str], ...] = (
    ("format_version", natural, "a whole number"),
    ("cpu_count", natural, "a whole number or null"),
    ("packages", packages_ok, "a map of package names to versions"),
    ("grid", grid_ok, "a grid (seed, timeout, memory, trials: numbers; solvers, boards: lists of strings)"),
    *((name, text, "a string or null") for name in ("created", "command", "python", "implementation", "platform")),
    ("cpu", text, "a string or null"),
)


def header_problems(header: dict[str, Any]) -> list[str]:
    """Drop each header field of the wrong type (the header's other fields stay), saying which."""
    problems = []
    for name, check, expected in HEADER_FIELDS:
        if name in header and not check(header[name]):
            del header[name]
            problems.append(f"field {name!r} is not {expected}")
    return problems


def board_problem(record: Mapping[str, Any]) -> str | None:
    """Why a record that claims a verified solution is wrong, or None (also when it keeps no queens).
    The record has passed ``run_problem``: its fields have their types."""
    queens = record.get("queens")
    if record["status"] != Status.SOLVED or record.get("verified") is not True or queens is None:
        return None
    n, fixed, blocked = record["n"], record.get("fixed"), record.get("blocked")
    fixed_items = tuple(fixed.items()) if fixed else ()
    if not blocked:
        blocked = ()
    if n <= CACHED_UP_TO and len(queens) <= CACHED_UP_TO and len(fixed_items) + len(blocked) <= CACHED_UP_TO:
        return cached_verdict(n, tuple(queens), fixed_items, tuple(map(tuple, blocked)) if blocked else ())
    return board_error(n, queens, {int(column): row for column, row in fixed_items} or None, squares_of(blocked))


_last_squares: tuple[Any, frozenset[tuple[int, int]]] | None = None


def squares_of(blocked: Sequence[Sequence[int]]) -> frozenset[tuple[int, int]]:
    """The blocked squares as a set, built once for the list that the records of one instance share
    (``share_known``): a published instance blocks ~600 squares, and building the set for every record
    took most of reading a file of its runs. Matched by identity, with the list kept alive here."""
    global _last_squares
    if _last_squares is not None and _last_squares[0] is blocked:
        return _last_squares[1]
    squares = frozenset((column, row) for column, row in blocked)
    _last_squares = (blocked, squares)
    return squares


def verdict(
    n: int, queens: Sequence[int], fixed: tuple[tuple[str, int], ...], blocked: Sequence[Sequence[int]]
) -> str | None:
    """The verifier's word on one board."""
    return board_error(
        n,
        queens,
        {int(column): row for column, row in fixed} if fixed else None,
        frozenset((column, row) for column, row in blocked) if blocked else (),
    )


CACHED_UP_TO = 64  # boards this small (and their fixed and blocked squares) repeat in a comparison: n = 8 has 92
# Verdicts kept by the board's content, never by what a record says of it (its instance id): a file of
# 100,000 runs at n = 8 meets the same boards again and again. At most a few MB: every key is short.
cached_verdict = functools.lru_cache(maxsize=1024)(verdict)


@dataclass(frozen=True)
class ResultsFile:
    """Where a comparison appends its records: ``path``; ``resume`` continues the comparison it holds
    (runs already there are not made again); ``command`` is the command line its header keeps."""

    path: Path
    resume: bool = False
    command: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", Path(self.path))  # a str is a path too

    @classmethod
    def of(cls, out: str | Path | ResultsFile) -> ResultsFile:
        """A results file named by a path, or given whole."""
        if isinstance(out, ResultsFile):
            return out
        if not isinstance(out, (str, Path)) or not str(out):
            raise BadInput(f"out is a file's path or nq.ResultsFile(path, resume=True), not {out!r}")
        return cls(Path(out))


class ResultsWriter:
    """Appends one JSON line per record and flushes it, so a kill loses nothing finished."""

    def __init__(self, path: Path, *, resume: bool, command: str | None, grid: Mapping[str, Any] | None = None) -> None:
        self.path = path
        self.done: set[tuple[Any, ...]] = set()
        self.refused: set[tuple[Any, ...]] = set()  # the refusals already written, kept once
        self.headers: list[dict[str, Any]] = []
        self.warnings: list[str] = []
        exists = path.exists() and path.stat().st_size > 0
        if exists and not resume:
            raise BadInput(
                f"{str(path)!r} already exists: add --resume (from Python: out=nq.ResultsFile(path, resume=True)) to "
                "continue it, or choose another --out (out=)"
            )
        if exists and (kind := compressed(path)) is not None:
            raise BadInput(
                f"{str(path)!r} is {kind}-compressed: records are appended to a plain results file; unpack it "
                "first, or choose another --out (out=)"
            )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file: IO[str] = path.open("a", encoding="utf-8")
        except OSError as exc:
            raise BadInput(f"cannot write results to {str(path)!r}: {exc.strerror}") from None
        try:  # one writer at a time: two comparisons appending to one file would double every record
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._file.close()
            raise BadInput(
                f"{str(path)!r} is being written by another nqueens command; wait for it or choose another --out (out=)"
            ) from None
        if exists:  # read under the lock, so what is skipped is what is there
            loaded = Loaded()
            for record in scan_records(path, loaded):
                # A refusal is no run: once the solver takes the board (its library installed), it runs.
                (self.refused if record["status"] == Status.REFUSED else self.done).add(run_key(record))
            self.headers = loaded.headers
            self.warnings = loaded.warnings
            difference = grid_difference(loaded.headers, self.done, grid)
            if difference:
                self._file.close()
                raise BadInput(f"{str(path)!r} holds another comparison ({difference}); choose another --out (out=)")
            if loaded.torn_tail is not None:
                self._truncate(loaded.torn_tail)
        if exists and not ends_with_newline(path):
            self._file.write("\n")  # a complete last record whose newline was cut off
        header = environment(command)
        if grid is not None:
            header["grid"] = dict(grid)
        self._write(header)

    def _truncate(self, offset: int) -> None:
        try:
            with self.path.open("r+b") as handle:
                handle.truncate(offset)
        except OSError as exc:
            raise BadInput(f"cannot repair {str(self.path)!r}: {exc.strerror}") from None

    def _write(self, item: Mapping[str, Any]) -> None:
        try:
            self._file.write(json.dumps(item, separators=(",", ":")) + "\n")
            self._file.flush()
        except OSError as exc:  # a full disk: what was written before stays written
            raise BadInput(f"cannot write results to {str(self.path)!r}: {exc.strerror}") from None

    def write(self, record: RunRecord) -> None:
        self._write(record.to_json())

    def close(self) -> None:
        try:
            self._file.close()
        except OSError:
            pass  # a failed last flush has been reported by _write


def grid_difference(
    headers: Sequence[Mapping[str, Any]], done: Iterable[tuple[Any, ...]], grid: Mapping[str, Any] | None
) -> str | None:
    """How the comparison about to resume a file differs from the one that wrote it, or None.

    Pooling runs made with another seed, limit, solver list, boards or trial
    count would make the file's statistics mean nothing, so resuming is only for
    finishing the same grid. Files older than the grid header are checked by
    the seeds of their records.
    """
    if grid is None:
        return None
    written = next((h["grid"] for h in reversed(headers) if isinstance(h.get("grid"), dict)), None)
    if written is None:
        seeds = {key[4] for key in done}
        other = sorted(seeds - {grid["seed"]})
        return f"written with --seed {other[0]}, resumed with --seed {grid['seed']}" if other else None
    if written.get("seed") != grid["seed"]:
        return f"written with --seed {written.get('seed')}, resumed with --seed {grid['seed']}"
    if written.get("timeout") != grid["timeout"]:
        shown = ["none" if t is None else f"{t:g} s" for t in (written.get("timeout"), grid["timeout"])]
        return f"written with --timeout {shown[0]}, resumed with --timeout {shown[1]}"
    if written.get("memory") != grid.get("memory"):
        shown = ["none" if m is None else f"{m:,} bytes" for m in (written.get("memory"), grid.get("memory"))]
        return f"written with --memory {shown[0]}, resumed with --memory {shown[1]}"
    if written.get("trials") != grid["trials"]:
        return f"written with --trials {written.get('trials')}, resumed with --trials {grid['trials']}"
    old, new = list(written.get("solvers") or []), list(grid["solvers"])
    if set(old) != set(new):
        added, missing = [s for s in new if s not in old], [s for s in old if s not in new]
        parts = [
            f"not in it: {', '.join(added)}" if added else "",
            f"only in it: {', '.join(missing)}" if missing else "",
        ]
        return "other solvers (" + "; ".join(part for part in parts if part) + ")"
    if set(written.get("boards") or []) != set(grid["boards"]):
        return "other board sizes or instances"
    if written.get("tune") != grid.get("tune"):
        return "another tune (its space, budget, goal or held-out test differ)" if grid.get("tune") else "a tune"
    return None


def ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(0, os.SEEK_END)
        if handle.tell() == 0:
            return True
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"
