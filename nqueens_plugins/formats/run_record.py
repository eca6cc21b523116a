"""Formats layer, both sides: ``RunRecord``, one run's record, typed, owning its JSON form and its validation.

A run's record is written by the execution layer (``Result.record``, one per run) and read back by this
layer's reader (``records.scan_records``), so it lives here, below both. Its JSON form is the results file's
line, byte for byte as releases before it wrote (key order included: ``to_json`` gives the keys in the order
they were read, or the writer's order for a record made here); ``from_json`` checks a line's fields (the
checks below, cheap enough for every record of a file: a few microseconds) and says in one phrase what is
wrong (``RecordError``, the message ``run_problem`` gives).

Why a frozen dataclass with slots, not pydantic: a file of a million records is read in seconds by these
straight-line checks, which also say exactly which field is wrong in the words the warnings have always
used; a model library would add a dependency, a second description of each field and its own messages, and
cost more per record. ``RunRecord`` is also a read-only ``Mapping`` over its JSON form (``record["solver"]``,
``record.get("proof")``), so that every reader written against the dicts of before reads it unchanged while
the readers move to attributes one module at a time (issue 54, item 1).
"""

from __future__ import annotations

import datetime as dt
import itertools
import sys
from collections.abc import Iterator, Mapping
from types import NoneType
from typing import Any

from nqueens_plugins.core.certificate_status import CertificateStatus
from nqueens_plugins.core.problem import Status
from nqueens_plugins.formats.inputs import MAX_N

# The schema of a run record, in each record: 1 (nqueens-plugins 0.1, whose records do not say it), 2 (0.2: the
# fields ``proof`` and ``proof_sha256`` added), 3 (0.3: what the run cost, ``cpu_seconds``, ``peak_memory_bytes``,
# ``max_threads``, ``max_processes`` and ``measured_by``). A reader takes every version up to its own; a later one is read
# for the fields this release knows (later releases only add fields: docs/compatibility.md).
RECORD_VERSION = 3

LARGEST_NUMBER = int(sys.float_info.max)  # an int past this cannot become a float (statistics use floats)
STATUSES = frozenset(status.value for status in Status)
# What became of a run's certificate (``execution.tasks.Certificate``); null: the run wrote none.
CERTIFICATE_STATUSES = frozenset(status.value for status in CertificateStatus)
INT = frozenset({int})
LIST = frozenset({list})
NUMBER = frozenset({int, float})  # not bool: type(True) is bool
TEXT_FIELDS = (
    "name", "reason", "output", "plugin", "distribution", "version", "source", "instance", "timestamp",
    "proof", "proof_sha256",
)  # fmt: skip


class RecordError(ValueError):
    """A line that is no valid run record: its message says which field is wrong and what it must be."""


# The fields of a record in the order the writer gives them (``Result.record``; a race's and a tune's record add
# ``race`` and ``tune``). A record read keeps the order of its line instead.
WRITTEN_ORDER = (
    "type", "record_version", "solver", "name", "options", "seed", "trial", "status", "verified", "reason",
    "queens", "iterations", "moves", "counters", "seconds", "overhead_seconds", "prepare_seconds", "output",
    "output_bytes", "complete", "certificate", "certificate_bytes", "certificate_seconds", "proof", "proof_sha256",
    "cpu_seconds", "peak_memory_bytes", "max_threads", "max_processes", "measured_by", "n", "fixed", "blocked",
    "instance", "source", "race", "plugin", "distribution", "version", "timestamp", "timeout", "tune",
)  # fmt: skip
KNOWN_FIELDS = frozenset(WRITTEN_ORDER) - {"type"}
PLAIN_RUN = tuple(key for key in WRITTEN_ORDER if key not in ("race", "tune"))  # a record made here, not a race's


class RunRecord(Mapping[str, Any]):
    """One run's record, read-only. Each field is None where the line had null or left it out (``in`` tells the
    two apart); nested values (``options``, ``counters``, ``fixed``, ``blocked``, ``queens``, ``race``,
    ``tune``) are their JSON form and, like the record, never changed once made.

    The record's attributes are its JSON object itself (the instance's ``__dict__`` is the line's dict, key
    order as read, the statuses as their enums, which ``json.dumps`` writes as their words): reading a file
    makes a record in a fraction of a microsecond, where setting forty fields one by one cost five. A field
    the line left out falls back to the class's None. A line with fields of a later release keeps them apart
    (``extra``), so that no name in a file can stand in for a method of this class."""

    type: str  # always "run": the line's kind, first in its JSON form
    solver: str
    n: int
    seed: int
    trial: int
    status: Status
    seconds: float
    record_version: int | None = None  # absent in 0.1's records
    name: str | None = None
    options: dict[str, Any] | None = None
    verified: bool | None = None
    reason: str | None = None
    queens: list[int] | None = None
    iterations: float | None = None
    moves: float | None = None
    counters: dict[str, Any] | None = None
    overhead_seconds: float | None = None
    prepare_seconds: float | None = None
    output: str | None = None
    output_bytes: int | None = None
    complete: bool | None = None
    certificate: CertificateStatus | None = None
    certificate_bytes: int | None = None
    certificate_seconds: float | None = None
    proof: str | None = None
    proof_sha256: str | None = None
    cpu_seconds: float | None = None  # what the run cost (record version 3): None where not measured
    peak_memory_bytes: int | None = None
    max_threads: int | None = None
    max_processes: int | None = None
    measured_by: dict[str, str | None] | None = None  # cpu, memory, threads, processes: how each was measured
    fixed: dict[str, int] | None = None  # as written: columns (decimal strings) to rows
    blocked: list[list[int]] | None = None
    instance: str | None = None
    source: str | None = None
    race: dict[str, Any] | None = None
    plugin: str | None = None
    distribution: str | None = None
    version: str | None = None
    timestamp: str | None = None
    timeout: float | None = None  # the run's time limit, which an unsolved run is censored at
    tune: dict[str, Any] | None = None

    def __init__(self, **fields: Any) -> None:
        """A record made from its fields by keyword (the writer's): its JSON form has the keys in the writer's
        order, every field of a plain run (null where not given) and ``race`` / ``tune`` where given."""
        unknown = fields.keys() - KNOWN_FIELDS
        missing = REQUIRED - fields.keys()
        if unknown or missing:
            raise TypeError(f"RunRecord: unknown fields {sorted(unknown)}, missing fields {sorted(missing)}")
        form: dict[str, Any] = {"type": "run"}
        for key in WRITTEN_ORDER[1:]:
            if key in fields or key in PLAIN_RUN:
                form[key] = fields.get(key)
        enum_statuses(form)
        object.__setattr__(self, "__dict__", form)

    @classmethod
    def written(
        cls, fields: Mapping[str, Any], source: Any = None, timeout: float | None = None, **more: Any
    ) -> RunRecord:
        """A run's record as this host writes it: ``fields`` (a result's, ``Result.to_dict``; a race's), this
        schema's version, the plugin that supplied the solver (a ``Source``, or None), when it was written, the
        time limit an unsolved run is censored at (``report``), and ``more`` (a tune's ``tune``)."""
        return cls(
            record_version=RECORD_VERSION,
            **fields,
            plugin=getattr(source, "plugin", None),
            distribution=getattr(source, "distribution", None),
            version=getattr(source, "version", None),
            timestamp=now(),
            timeout=timeout,
            **more,
        )

    @classmethod
    def from_json(cls, item: dict[str, Any]) -> RunRecord:
        """The record of a line's JSON object (``"type": "run"``), checked field by field; RecordError if a
        field is wrong or missing. The record takes ``item`` over: the caller no longer changes it."""
        problem = run_problem(item)
        if problem is not None:
            raise RecordError(problem)
        return cls.trusted(item)

    @classmethod
    def trusted(cls, item: dict[str, Any]) -> RunRecord:
        """The record of a line's fields already checked (``from_json``, the reader's ``run_problem``), taking
        ``item`` over as its own."""
        enum_statuses(item)
        return cls.trusted_as_is(item)

    @classmethod
    def given(cls, record: Mapping[str, Any]) -> RunRecord:
        """A record as the summaries have always taken one from Python, unchecked: a ``RunRecord`` as it is; a
        mapping (what ``compare`` returned, this process's own; a row of ``records_frame``, its counters flat as
        ``counters.NAME``) copied into one. A status that is no word of ours stays as given (a summary counts
        it as no answer). Never for a file's lines, which ``from_json`` checks."""
        if type(record) is cls:
            return record
        form = dict(record)
        flat = [key for key in form if key.startswith("counters.")]
        if flat and not isinstance(form.get("counters"), Mapping):
            form["counters"] = {key.removeprefix("counters."): form.pop(key) for key in flat}
        form.setdefault("type", "run")
        status, certificate = form.get("status"), form.get("certificate")
        if type(status) is not Status and status in STATUS_OF:
            form["status"] = STATUS_OF[status]
        if type(certificate) is not CertificateStatus and certificate in CERTIFICATE_OF:
            form["certificate"] = CERTIFICATE_OF[certificate]
        return cls.trusted_as_is(form)

    @classmethod
    def trusted_as_is(cls, form: dict[str, Any]) -> RunRecord:
        """A record over ``form`` as it is (its statuses already enums where they can be), taken over."""
        record = object.__new__(cls)
        if not KNOWN_ORDER.issuperset(form):  # a later release's fields: kept apart, in their place
            order = tuple(form)
            known = {key: value for key, value in form.items() if key in KNOWN_ORDER}
            known[EXTRA] = {key: value for key, value in form.items() if key not in KNOWN_ORDER}
            known[ORDER] = order
            form = known
        object.__setattr__(record, "__dict__", form)
        return record

    @property
    def extra(self) -> dict[str, Any]:
        """Fields of a later release, as read (this release does not know them)."""
        return self.__dict__.get(EXTRA, {})

    def with_time_limit(self, timeout: float | None) -> RunRecord:
        """The record with the time limit its file's header gave (records written before they carried one:
        the reader's), the key added last as the reader of before added it."""
        form = self.to_json()
        form["timeout"] = timeout
        return RunRecord.trusted(form)

    def to_json(self) -> dict[str, Any]:
        """The JSON form: the record's line as a new dict, its keys in their order (``json.dumps`` of it with
        the results file's separators is the line, byte for byte; the statuses are StrEnums, written as their words)."""
        form = self.__dict__
        if ORDER not in form:
            return dict(form)
        extra = form[EXTRA]
        return {key: extra[key] if key in extra else form[key] for key in form[ORDER]}

    def __getitem__(self, key: str) -> Any:
        form = self.__dict__
        if ORDER not in form:
            if key in form:  # (never EXTRA nor ORDER: those are only in a record with a later release's fields)
                return form[key]
            raise KeyError(key)
        if key in form[EXTRA]:
            return form[EXTRA][key]
        if key not in KNOWN_ORDER or key not in form:
            raise KeyError(key)
        return form[key]

    def __contains__(self, key: object) -> bool:
        form = self.__dict__
        if ORDER in form:
            return key in form[ORDER]
        return key in form

    def __iter__(self) -> Iterator[str]:
        form = self.__dict__
        return iter(form.get(ORDER, form))

    def __len__(self) -> int:
        form = self.__dict__
        return len(form.get(ORDER, form))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a RunRecord cannot be changed (its field {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a RunRecord cannot be changed (its field {name!r})")

    def __eq__(self, other: object) -> bool:
        """Equal to another record or mapping of the same JSON form (as the dicts of before compared)."""
        if isinstance(other, Mapping):
            return dict(self.items()) == dict(other.items())
        return NotImplemented

    def __repr__(self) -> str:
        return f"RunRecord({self.to_json()!r})"

    __hash__ = None  # type: ignore[assignment]  # like the dict it stands for


def now() -> str:
    """The time a record or header is written: UTC, to the millisecond, ISO 8601."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


# Where a record with a later release's fields keeps them and its key order (names no JSON field of ours has).
EXTRA, ORDER = "\0extra", "\0order"
STATUS_OF = {status.value: status for status in Status}
CERTIFICATE_OF = {status.value: status for status in CertificateStatus}


def enum_statuses(form: dict[str, Any]) -> None:
    """The run's and the certificate's status as their enums, in place (words read from JSON, or the enums)."""
    status = form["status"]
    if type(status) is not Status:
        form["status"] = STATUS_OF[status]
    certificate = form.get("certificate")
    if certificate is not None and type(certificate) is not CertificateStatus:
        form["certificate"] = CERTIFICATE_OF[certificate]


KNOWN_ORDER = KNOWN_FIELDS | {"type"}


# Field checks. Each says whether a value fits; None stands for null, or for absent where a field may be
# left out. Every record of a file meets them, so they are written to be cheap.


def is_number(value: Any) -> bool:
    """A finite number (floats are finite once parsed) that a float can hold; not a bool."""
    kind = type(value)
    return kind is float or (kind is int and -LARGEST_NUMBER <= value <= LARGEST_NUMBER)


def seconds(value: Any) -> bool:
    """None, or a number of seconds: finite, from 0."""
    kind = type(value)
    return value is None or (kind is float and value >= 0) or (kind is int and 0 <= value <= LARGEST_NUMBER)


def natural(value: Any) -> bool:
    return value is None or (type(value) is int and value >= 0)


def text(value: Any) -> bool:
    return value is None or type(value) is str


def whole(value: Any) -> bool:
    return type(value) is int


def all_on_board(values: list[Any], n: int) -> bool:
    """Whole numbers from 0 to n - 1, checked in C (an instance may block thousands of squares)."""
    return not values or (set(map(type, values)) <= INT and min(values) >= 0 and max(values) < n)


def fixed_ok(value: Any, n: int) -> bool:
    """None, or a map of columns (as written: decimal digits, no leading zero) to rows, all on the board."""
    if type(value) is not dict:
        return value is None
    if is_known("fixed", value, n):
        return True
    keys = list(value)
    if not keys:
        return True
    if max(map(len, keys)) > 10 or not all(map(str.isascii, keys)) or not all(map(str.isdigit, keys)):
        return False  # (an empty key is no digit)
    columns = list(map(int, keys))
    return list(map(str, columns)) == keys and all_on_board(columns, n) and all_on_board(list(value.values()), n)


def blocked_ok(value: Any, n: int) -> bool:
    """None, or a list of [column, row] squares on the board."""
    if type(value) is not list:
        return value is None
    if not value or is_known("blocked", value, n):
        return True
    if not set(map(type, value)) <= LIST or set(map(len, value)) != {2}:
        return False
    return all_on_board(list(itertools.chain.from_iterable(value)), n)


# The fixed queens and blocked squares last found valid, by kind: (n, the value). The runs on one
# instance follow each other in a file, so a record's squares are most often the last record's: found
# equal (ten times cheaper than checking 600 squares again), that one validated value stands in for them
# (``share_known``). Records of one instance then share it: read-only, like every record read.
KNOWN: dict[str, tuple[int, Any]] = {}


def share_known(record: dict[str, Any]) -> dict[str, Any]:
    """The record, its fixed queens and blocked squares replaced by the known valid ones they equal."""
    n = record.get("n")
    for kind in ("fixed", "blocked"):
        value, known = record.get(kind), KNOWN.get(kind)
        if value and known is not None and known[0] == n and type(n) is int and known[1] == value:
            record[kind] = known[1]  # equal as values, and of the types checked (a 1.0 or true becomes the 1)
    return record


def is_known(kind: str, value: Any, n: int) -> bool:
    known = KNOWN.get(kind)
    return known is not None and known[1] is value and known[0] == n


def remember(record: Mapping[str, Any]) -> None:
    """Keep a valid record's fixed queens and blocked squares as the known ones (``share_known``)."""
    for kind in ("fixed", "blocked"):
        if record.get(kind):
            KNOWN[kind] = (record["n"], record[kind])


def queens_ok(value: Any) -> bool:
    return value is None or (type(value) is list and set(map(type, value)) <= INT)


def counters_ok(value: Any) -> bool:
    """None, or a map of names to numbers (finite once parsed; no figure is made of them, so an int
    of any size will do)."""
    return value is None or (type(value) is dict and set(map(type, value.values())) <= NUMBER)


RACE_MEMBER_STATUSES = STATUSES | {"stopped"}  # a race's member is stopped once another wins


def race_ok(value: Any) -> bool:
    """None, or a race's details: the winner (a member's label, or null) and each member's end."""
    if value is None:
        return True
    if type(value) is not dict or type(value.get("winner")) not in STRING_OR_NULL:
        return False
    members = value.get("members")
    return type(members) is list and all(
        type(member) is dict
        and type(member.get("solver")) is str
        and member.get("status") in RACE_MEMBER_STATUSES
        and seconds(member.get("seconds"))
        and member.get("seconds") is not None
        for member in members
    )


TUNE_PHASES = frozenset({"race", "test"})


def tune_ok(value: Any) -> bool:
    """None, or which part of a tune made the run (``nqueens tune``): its race or its held-out test."""
    return value is None or (type(value) is dict and value.get("phase") in TUNE_PHASES)


REQUIRED = frozenset({"n", "solver", "seed", "status", "trial", "seconds"})
EXPECTED = {  # what each field of a run record must be, for the warning that names it
    "n": f"a whole number from 1 to {MAX_N:,}",
    "solver": "a string",
    "seed": "a whole number",
    "status": "one of " + ", ".join(sorted(STATUSES)),
    "trial": "a whole number from 0",
    "seconds": "a finite number of seconds from 0",
    "timeout": "a finite number of seconds from 0, or null",
    "overhead_seconds": "a finite number of seconds from 0, or null",
    "prepare_seconds": "a finite number of seconds from 0, or null",
    "iterations": "a finite number or null",
    "moves": "a finite number or null",
    "output_bytes": "a whole number from 0, or null",
    "record_version": "a whole number from 1 (the record's schema), or absent (0.1's records)",
    "certificate": "one of " + ", ".join(sorted(CERTIFICATE_STATUSES)) + ", or null",
    "certificate_bytes": "a whole number from 0, or null",
    "cpu_seconds": "a finite number of seconds from 0, or null",
    "peak_memory_bytes": "a whole number from 0, or null",
    "max_threads": "a whole number from 0, or null",
    "max_processes": "a whole number from 0, or null",
    "measured_by": "null, or a map of cpu, memory, threads and processes to a word (how each was measured) or null",
    "certificate_seconds": "a finite number of seconds from 0, or null",
    "fixed": "a map of columns to rows on the board",
    "blocked": "a list of [column, row] squares on the board",
    "queens": "a list of whole numbers",
    "counters": "a map of names to finite numbers",
    "verified": "true, false or null",
    "complete": "true, false or null",
    "options": "a map or null",
    "race": "null, or a race's winner and members (each a solver, a status and seconds)",
    "tune": 'null, or {"phase": "race"} or {"phase": "test"}',
    **dict.fromkeys(TEXT_FIELDS, "a string or null"),
}
STRING_OR_NULL = frozenset({str, NoneType})
FLAG = frozenset({bool, NoneType})
MAP_OR_NULL = frozenset({dict, NoneType})


def run_problem(record: Mapping[str, Any]) -> str | None:
    """Why a run record cannot be used (its first wrong field), or None: what summaries, statistics,
    plots and the HTML report may rely on for every record ``scan_records`` yields."""
    name = wrong_field(record)
    if name is None:
        return None
    if name == "board":
        return "a verified record's 'queens' must be one row on the board per column"
    if name in REQUIRED and name not in record:
        return f"{name!r} is missing"
    return f"{name!r} must be {EXPECTED[name]}"


def wrong_field(record: Mapping[str, Any]) -> str | None:
    """The first field of a run record that is wrong or missing, or None ("board": see ``drawn_board_ok``).
    One straight run of checks, most common case first, rather than a table walked field by field: it
    runs on every record of a file, and this way costs a few microseconds."""
    get = record.get
    n, status, trial, spent = get("n"), get("status"), get("trial"), get("seconds")
    if type(n) is not int or not 1 <= n <= MAX_N:
        return "n"
    if type(get("solver")) is not str:
        return "solver"
    if type(status) is not str or status not in STATUSES:
        return "status"
    if type(get("seed")) is not int:
        return "seed"
    if type(trial) is not int or trial < 0:
        return "trial"
    if spent is None or not seconds(spent):
        return "seconds"
    if not set(map(type, map(get, TEXT_FIELDS))) <= STRING_OR_NULL:  # one pass in C
        return next(name for name in TEXT_FIELDS if not text(get(name)))
    for name in ("verified", "complete"):
        if type(get(name)) not in FLAG:
            return name
    if type(get("options")) not in MAP_OR_NULL:
        return "options"
    for name in ("timeout", "overhead_seconds", "prepare_seconds", "certificate_seconds", "cpu_seconds"):
        if not seconds(get(name)):
            return name
    for name in ("iterations", "moves"):
        if get(name) is not None and not is_number(get(name)):
            return name
    if not natural(get("output_bytes")):
        return "output_bytes"
    version = get("record_version")
    if version is not None and (type(version) is not int or version < 1):
        return "record_version"
    certificate = get("certificate")
    if certificate is not None and (type(certificate) is not str or certificate not in CERTIFICATE_STATUSES):
        return "certificate"
    for name in ("certificate_bytes", "peak_memory_bytes", "max_threads", "max_processes"):
        if not natural(get(name)):
            return name
    if not measured_by_ok(get("measured_by")):
        return "measured_by"
    fixed, blocked = get("fixed"), get("blocked")
    if fixed is not None and (type(fixed) is not dict or (fixed and not fixed_ok(fixed, n))):  # {}: no call
        return "fixed"
    if blocked is not None and (type(blocked) is not list or (blocked and not blocked_ok(blocked, n))):
        return "blocked"
    if not queens_ok(get("queens")):
        return "queens"
    if not counters_ok(get("counters")):
        return "counters"
    if "race" in record and not race_ok(get("race")):
        return "race"
    if "tune" in record and not tune_ok(get("tune")):
        return "tune"
    if status != Status.SOLVED and get("verified") is True and not drawn_board_ok(get("queens"), n):
        return "board"
    return None


MEASURED = frozenset({"cpu", "memory", "threads", "processes"})


def measured_by_ok(value: Any) -> bool:
    """None, or how each figure of the run's cost was measured: a short word or null, for each of four."""
    return value is None or (
        type(value) is dict
        and value.keys() == MEASURED
        and all(word is None or (type(word) is str and len(word) <= 40) for word in value.values())
    )


def drawn_board_ok(queens: list[int] | None, n: int) -> bool:
    """The queens of a verified record that is not a solved one (the HTML report draws any verified
    record's board) are on the board; a solved one's are re-verified instead (``board_problem``)."""
    return queens is None or (len(queens) == n and min(queens) >= 0 and max(queens) < n)
