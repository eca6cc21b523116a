"""Formats layer, parent side: the results file, JSON lines appended and flushed one run at a time. Its only owner.

Everything that writes a record (``compare``, ``solve --json``) or reads one
(``report``, ``plot``, ``records_frame``, ``--resume``) goes through here: the
fields of a run record are made by ``instance_fields`` and ``run_record``, read
back by ``scan_records`` and named in tables by ``instance_label``.

Line 1 (and the first line of every later session that resumes the file) is a
header describing the environment; every other line is one run. Because each
record is flushed as its run ends, a comparison killed with -9 loses at most
the runs in flight, and ``--resume`` continues where it stopped.

Reading is forgiving but never silent: a malformed line is reported with its
line number and skipped; an incomplete last line (a write cut short) is
reported, and dropped when the file is resumed.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
import platform
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import IO, Any

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import Problem
from nqueens_plugins.core.verify import board_error

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


def run_record(result: Mapping[str, Any], source: Any, timeout: float | None) -> dict[str, Any]:
    """A run's record: the result's fields (``Result.to_dict``), the plugin that supplied the solver
    (a ``Source``, or None), and the time limit an unsolved run is censored at (``report``)."""
    record: dict[str, Any] = {"type": "run"}
    record.update(result)
    record["plugin"] = getattr(source, "plugin", None)
    record["distribution"] = getattr(source, "distribution", None)
    record["version"] = getattr(source, "version", None)
    record["timestamp"] = now()
    record["timeout"] = timeout
    return record


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


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


@dataclass
class Loaded:
    headers: list[dict[str, Any]] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    torn_tail: int | None = None  # byte offset of an incomplete last line


def read_records(path: Path) -> Loaded:
    """Read a whole results file; BadInput if it is missing or not this tool's."""
    loaded = Loaded()
    loaded.records.extend(scan_records(path, loaded))
    return loaded


def with_time_limits(records: Iterable[dict[str, Any]], loaded: Loaded) -> Iterator[dict[str, Any]]:
    """Records that lack their ``timeout`` (files written before records carried it) get their header's."""
    for record in records:
        if "timeout" not in record and loaded.headers:
            grid = loaded.headers[-1].get("grid")
            record["timeout"] = grid.get("timeout") if isinstance(grid, dict) else None
        yield record


def scan_records(path: Path, loaded: Loaded) -> Iterator[dict[str, Any]]:
    """Yield the run records of a results file one at a time (flat memory for any file size).

    Headers, warnings and a torn last line are collected in ``loaded`` as the
    file is read; the file must start with a header. Solved records whose board
    is wrong (a file edited or damaged since it was written) are re-verified
    here and come out ``verified: false``, with a warning.
    """
    if path.exists() and not path.is_file():  # a device such as /dev/zero would never end
        raise BadInput(f"{str(path)!r} is not a regular file")
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise BadInput(f"results file {str(path)!r} does not exist") from None
    except OSError as exc:
        raise BadInput(f"cannot read results file {str(path)!r}: {exc.strerror}") from None
    with handle:
        try:
            yield from parse_lines(handle, str(path), loaded)
        except OSError as exc:  # opened but unreadable: /proc/self/mem, a failing disk
            raise BadInput(f"cannot read results file {str(path)!r}: {exc.strerror or exc}") from None


def parse_lines(lines: Iterable[bytes], name: str, loaded: Loaded) -> Iterator[dict[str, Any]]:
    offset = 0
    seen_any = False
    rejected = 0
    for number, raw in enumerate(lines, start=1):
        start = offset
        offset += len(raw)
        complete = raw.endswith(b"\n")  # no newline after it: the write may have been cut
        if not raw.strip():
            continue
        try:
            item = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            item = None
        if not isinstance(item, dict):
            if not seen_any:
                raise BadInput(f"{name!r} is not an nqueens results file (line {number} is not a header)") from None
            if not complete:
                loaded.torn_tail = start
                loaded.warnings.append(f"{name}:{number}: incomplete last line (an interrupted write); skipped")
            else:
                loaded.warnings.append(f"{name}:{number}: malformed line; skipped")
            continue
        seen_any = True
        if item.get("type") == "header":
            if item.get("format") != FORMAT:
                raise BadInput(f"{name!r} is not an nqueens results file")
            loaded.headers.append(item)
        elif not loaded.headers:
            raise BadInput(f"{name!r} is not an nqueens results file (no header line)")
        elif item.get("type") == "run" and valid_record(item):
            problem = board_problem(item)
            if problem is not None:
                rejected += 1
                item["status"] = "invalid"  # what the host says of a board the verifier rejects
                item["verified"] = False
                item["reason"] = f"re-verified on reading: {problem}"
            yield item
        else:
            loaded.warnings.append(f"{name}:{number}: not a run record; skipped")
    if not loaded.headers:
        raise BadInput(f"{name!r} is not an nqueens results file (it is empty)")
    if rejected:
        loaded.warnings.append(
            f"{name}: {rejected:,} record(s) claim a solution the verifier rejects (edited or damaged since written); "
            "they count as invalid"
        )


def board_problem(record: Mapping[str, Any]) -> str | None:
    """Why a record that claims a verified solution is wrong, or None (also when it keeps no queens)."""
    if record.get("status") != "solved" or record.get("verified") is not True or record.get("queens") is None:
        return None
    try:
        n = int(record["n"])
        queens = [int(q) for q in record["queens"]]
        fixed = {int(c): int(r) for c, r in (record.get("fixed") or {}).items()}
        blocked = frozenset((int(c), int(r)) for c, r in (record.get("blocked") or []))
    except (KeyError, TypeError, ValueError):
        return "the record's board is malformed"
    return board_error(n, queens, fixed, blocked)


def valid_record(item: Mapping[str, Any]) -> bool:
    try:
        run_key(item)
        float(item["seconds"])
        str(item["status"])
        return True
    except (KeyError, TypeError, ValueError):
        return False


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
            raise BadInput(f"{str(path)!r} already exists: add --resume to continue it, or choose another --out")
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
                f"{str(path)!r} is being written by another nqueens command; wait for it or choose another --out"
            ) from None
        if exists:  # read under the lock, so what is skipped is what is there
            loaded = Loaded()
            for record in scan_records(path, loaded):
                # A refusal is no run: once the solver takes the board (its library installed), it runs.
                (self.refused if record["status"] == "refused" else self.done).add(run_key(record))
            self.headers = loaded.headers
            self.warnings = loaded.warnings
            difference = grid_difference(loaded.headers, self.done, grid)
            if difference:
                self._file.close()
                raise BadInput(f"{str(path)!r} holds another comparison ({difference}); choose another --out")
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

    def write(self, record: Mapping[str, Any]) -> None:
        self._write(record)

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
    return None


def ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(0, os.SEEK_END)
        if handle.tell() == 0:
            return True
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"
