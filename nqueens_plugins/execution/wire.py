"""Execution layer, both sides of the pipe: what a worker says, as data the parent parses and never runs.

The worker's process runs plugin code, so whatever arrives from it may have been
written by a plugin: a pickle would let that plugin run code in the parent
(an object's ``__reduce__`` is called as it is unpickled). So a worker's
message is a *frame* of plain data, and the parent rebuilds its own objects
from it after checking every value:

* 4 bytes, big-endian: the length of a JSON header (UTF-8; no ``NaN`` or
  ``Infinity``, at most ``MAX_HEADER_BYTES``);
* the header: ``{"message": ..., "arrays": [[dtype, length], ...], ...}``;
* the raw bytes of each array the header names, one after the other (a board
  of 10^7 queens crosses as its 40 MB, not as ten million JSON numbers).

Values are JSON with a few tagged forms for what JSON lacks (``{"$tuple": [...]}``,
``{"$map": [[key, value], ...]}``, ``{"$int": "hex"}`` past 64 bits, ``{"$float":
"nan"}``, ``{"$bytes": "base64"}``, ``{"$array": index}``) and for the contract's
classes (``$outcome``, ``$count``, ``$trace``), rebuilt as the parent's own
``Outcome``, ``Count`` and ``Trace`` with the values as they came: the judge
checks them as it checks any answer. Anything else a plugin returned becomes a
``Foreign`` (its type's name only), and a count's pieces (``Solver.count_parts``,
which only the plugin reads) cross as ``OpaquePart``: bytes the parent hands
back to a worker and never opens.

A frame that does not parse, or says what no worker says, is a ``WireError``:
the task's error in one line, the plugin's fault. The messages *to* a worker
stay pickled tasks: the parent wrote them.
"""

from __future__ import annotations

import base64
import binascii
import enum
import json
import math
import re
import struct
from typing import Any

import numpy as np

from nqueens_plugins.core.certificate_status import CertificateStatus
from nqueens_plugins.core.problem import Count, Outcome, Status, Trace
from nqueens_plugins.execution.measuring import METHODS, RunMeasure
from nqueens_plugins.execution.messages import (
    Compiled,
    Compiling,
    Done,
    Guessed,
    Guessing,
    Message,
    Ready,
    Started,
    WarmingUp,
)
from nqueens_plugins.execution.tasks import Certificate, Executed, Foreign, OpaquePart, ProofHandoff

__all__ = ["WireError", "decode", "decode_answer", "encode"]

LENGTH = struct.Struct(">I")
MAX_HEADER_BYTES = 256 << 20  # plenty for counters, traces, an export's text; arrays travel beside it
MAX_DEPTH = 48  # values nest a few levels; deeper is refused before anything is rebuilt
MAX_TEXT = 1 << 30  # characters of one string (an export of a large formula); the frame's bound holds first
MAX_NAME = 200  # characters of a foreign type's name kept
SHORT_LIST = 64  # a list of numbers longer than this crosses as an array
ARRAY_DTYPES = frozenset({"|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f4", "<f8", "|b1"})
INT64 = 1 << 63


class WireError(Exception):
    """A worker's frame that does not parse or says what no worker says; the message is one line."""


# ---------------------------------------------------------------------------------------------- encoding
# Worker side (and a Dask worker's): whatever the plugin returned, read once, as data. Reading a plugin's
# object can raise (a property, an ``__index__``): the caller turns that into the run's error.


class _Encoder:
    def __init__(self) -> None:
        self.arrays: list[np.ndarray] = []

    def array(self, array: np.ndarray) -> dict[str, Any]:
        contiguous = np.ascontiguousarray(array.astype(array.dtype.newbyteorder("<"), copy=False))
        self.arrays.append(contiguous)
        return {"$array": len(self.arrays) - 1}

    def numbers(self, values: Any) -> Any:
        """A board or any long list of numbers, as one array when it is one; else value by value."""
        if isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype.str.replace(">", "<") in ARRAY_DTYPES:
            return self.array(values)
        if isinstance(values, (list, tuple)) and len(values) > SHORT_LIST:
            try:
                array = np.asarray(values)
            except (TypeError, ValueError, OverflowError):
                array = None
            if array is not None and array.ndim == 1 and array.dtype.kind in "iu":
                return self.array(array)
        return self.value(values)

    def value(self, value: Any, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
        kind = type(value)
        if value is None or kind is bool or kind is str:
            return value
        if kind is int:
            return value if -INT64 <= value < INT64 else {"$int": hex(value)}
        if kind is float:
            return value if math.isfinite(value) else {"$float": repr(value)}
        if isinstance(value, enum.Enum):
            return self.value(value.value, depth + 1)
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        if isinstance(value, (int, np.integer)):
            return self.value(int(value), depth)
        if isinstance(value, (float, np.floating)):
            return self.value(float(value), depth)
        if isinstance(value, str):
            return str(value)
        if isinstance(value, np.ndarray):
            return self.numbers(value) if value.ndim == 1 else {"$foreign": "ndarray"}
        if isinstance(value, list):
            return [self.value(item, depth + 1) for item in value]
        if isinstance(value, tuple):
            return {"$tuple": [self.value(item, depth + 1) for item in value]}
        if isinstance(value, dict):
            return {"$map": [[self.value(k, depth + 1), self.value(v, depth + 1)] for k, v in value.items()]}
        if isinstance(value, (bytes, bytearray)):
            return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
        if isinstance(value, Outcome):
            return {"$outcome": self.contract(value, ("status", "iterations", "moves", "counters"), depth)}
        if isinstance(value, Count):
            return {"$count": self.contract(value, ("status", "solutions", "unique", "iterations", "counters"), depth)}
        if isinstance(value, OpaquePart):
            return {"$part": {"bytes": base64.b64encode(value.blob).decode("ascii"), "shown": value.shown}}
        return {"$foreign": type(value).__name__[:MAX_NAME]}

    def contract(self, value: Any, names: tuple[str, ...], depth: int) -> dict[str, Any]:
        fields = {name: self.value(getattr(value, name), depth + 1) for name in names}
        if isinstance(value, Outcome):
            fields["queens"] = None if value.queens is None else self.numbers(value.queens)
        return fields


def encode_executed(executed: Executed, encoder: _Encoder) -> dict[str, Any]:
    trace = executed.trace
    return {
        "outcome": encoder.value(executed.outcome),
        "seconds": executed.seconds,
        "error": executed.error,
        "status": str(executed.status),
        "trace": None
        if trace is None
        else {"n": trace.n, "events": encoder.value(trace.events), "limit": trace.limit, "truncated": trace.truncated},
        "prepare_seconds": executed.prepare_seconds,
        "output": executed.output,
        "output_bytes": executed.output_bytes,
        "certificate": None if executed.certificate is None else vars(executed.certificate),
        "proof": None if executed.proof is None else vars(executed.proof),
        "measure": None if executed.measure is None else executed.measure.to_dict(),
    }


def encode(message: Message | Executed) -> bytes:
    """One frame: a message of the worker's, or (for a Dask task's answers) an ``Executed`` alone."""
    encoder = _Encoder()
    header: dict[str, Any]
    if isinstance(message, Ready):
        header = {"message": "ready"}
    elif isinstance(message, WarmingUp):
        header = {"message": "warming-up"}
    elif isinstance(message, Compiling):
        header = {"message": "compiling", "kernel": message.kernel}
    elif isinstance(message, Compiled):
        header = {"message": "compiled"}
    elif isinstance(message, Guessing):
        header = {"message": "guessing"}
    elif isinstance(message, Guessed):
        header = {"message": "guessed"}
    elif isinstance(message, Started):
        header = {"message": "started", "seconds": message.seconds}
    elif isinstance(message, Done):
        header = {"message": "done", "executed": encode_executed(message.executed, encoder)}
    else:
        header = {"message": "executed", "executed": encode_executed(message, encoder)}
    header["arrays"] = [[array.dtype.str, len(array)] for array in encoder.arrays]
    text = json.dumps(header, separators=(",", ":"), allow_nan=False).encode()
    return b"".join([LENGTH.pack(len(text)), text, *(array.tobytes() for array in encoder.arrays)])


# ---------------------------------------------------------------------------------------------- decoding
# Parent side: every value checked before an object is made of it.


def _refuse_constant(name: str) -> Any:
    raise WireError(f"the frame holds {name}, which JSON does not")


class _Decoder:
    def __init__(self, arrays: list[np.ndarray]) -> None:
        self.arrays = arrays

    def value(self, value: Any, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise WireError(f"a value nested deeper than {MAX_DEPTH} levels")
        if value is None or isinstance(value, (bool, int, float)):
            return value
        if isinstance(value, str):
            if len(value) > MAX_TEXT:
                raise WireError("a string longer than any answer needs")
            return value
        if isinstance(value, list):
            return [self.value(item, depth + 1) for item in value]
        if not isinstance(value, dict) or len(value) != 1:
            raise WireError("a value that is neither plain JSON nor one tagged form")
        ((tag, inner),) = value.items()
        return self.tagged(tag, inner, depth)

    def tagged(self, tag: str, inner: Any, depth: int) -> Any:
        if tag == "$tuple":
            return tuple(self.value(item, depth + 1) for item in self.listed(inner, tag))
        if tag == "$map":
            pairs = [self.listed(pair, tag) for pair in self.listed(inner, tag)]
            if any(len(pair) != 2 for pair in pairs):
                raise WireError("a map entry that is not a key and a value")
            mapped = {}
            for key, item in pairs:
                key = self.value(key, depth + 1)
                try:
                    mapped[key] = self.value(item, depth + 1)
                except TypeError:  # an unhashable key (a list)
                    raise WireError("a map key that cannot be a key") from None
            return mapped
        if tag == "$int":
            try:
                return int(self.text(inner, tag), 16)
            except ValueError:
                raise WireError("an $int that is not hexadecimal") from None
        if tag == "$float":
            if inner not in ("nan", "inf", "-inf"):
                raise WireError("a $float other than nan, inf or -inf")
            return float(inner)
        if tag == "$bytes":
            return self.base64(inner)
        if tag == "$array":
            if type(inner) is not int or not 0 <= inner < len(self.arrays):
                raise WireError("an $array that names no array of the frame")
            return self.arrays[inner]
        if tag == "$foreign":
            return Foreign(self.text(inner, tag)[:MAX_NAME])
        if tag == "$part":
            fields = self.fields(inner, tag, {"bytes", "shown"})
            return OpaquePart(self.base64(fields["bytes"]), self.text(fields["shown"], tag))
        if tag == "$outcome":
            fields = self.fields(inner, tag, {"status", "queens", "iterations", "moves", "counters"})
            return Outcome(**{name: self.value(item, depth + 1) for name, item in fields.items()})
        if tag == "$count":
            fields = self.fields(inner, tag, {"status", "solutions", "unique", "iterations", "counters"})
            return Count(**{name: self.value(item, depth + 1) for name, item in fields.items()})
        raise WireError(f"an unknown tag {tag[:40]!r}")

    @staticmethod
    def listed(value: Any, tag: str) -> list[Any]:
        if not isinstance(value, list):
            raise WireError(f"a {tag} that is not a list")
        return value

    @staticmethod
    def text(value: Any, tag: str) -> str:
        if not isinstance(value, str):
            raise WireError(f"a {tag} that is not text")
        return value

    def base64(self, value: Any) -> bytes:
        try:
            return base64.b64decode(self.text(value, "$bytes"), validate=True)
        except (binascii.Error, ValueError):
            raise WireError("bytes that are not base64") from None

    @staticmethod
    def fields(value: Any, tag: str, names: set[str]) -> dict[str, Any]:
        if not isinstance(value, dict) or set(value) != names:
            raise WireError(f"a {tag} without exactly its fields")
        return value


def _seconds(value: Any, what: str, optional: bool = False) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
        raise WireError(f"{what} is not a number of seconds")
    return float(value)


def _count(value: Any, what: str) -> int:
    if type(value) is not int or value < 0:
        raise WireError(f"{what} is not a whole number from 0")
    return value


def _text(value: Any, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise WireError(f"{what} is not text")
    return value


def decode_executed(fields: Any, decoder: _Decoder) -> Executed:
    names = {"outcome", "seconds", "error", "status", "trace", "prepare_seconds", "output", "output_bytes"}
    if not isinstance(fields, dict) or not names <= set(fields) <= names | {"certificate", "proof", "measure"}:
        raise WireError("an answer without exactly its fields")
    try:
        status = Status(fields["status"])
    except ValueError:
        raise WireError("an answer whose status is not one") from None
    return Executed(
        outcome=decoder.value(fields["outcome"]),
        seconds=_seconds(fields["seconds"], "the call's seconds") or 0.0,
        error=_text(fields["error"], "the error"),
        status=status,
        trace=_trace(fields["trace"], decoder),
        prepare_seconds=_seconds(fields["prepare_seconds"], "the preparation's seconds", optional=True),
        output=_text(fields["output"], "the output"),
        output_bytes=_count(fields["output_bytes"], "output_bytes"),
        certificate=_certificate(fields.get("certificate")),
        proof=_proof(fields.get("proof")),
        measure=_measure(fields.get("measure")),
    )


MEASURE_COUNTS = ("peak_memory_bytes", "max_threads", "max_processes")
MEASURE_METHODS = ("cpu_method", "memory_method", "threads_method", "processes_method")
MEASURE_FIELDS = {"cpu_seconds", *MEASURE_COUNTS, *MEASURE_METHODS}


def _measure(value: Any) -> RunMeasure | None:
    """What the worker measured of its call: numbers from 0 or null, and each method one of the meter's
    words (``measuring.METHODS``) or null; anything else is a garbled answer."""
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != MEASURE_FIELDS:
        raise WireError("a measure without exactly its fields")
    for name in MEASURE_COUNTS:
        if value[name] is not None:
            _count(value[name], name)
    for name in MEASURE_METHODS:
        if value[name] is not None and value[name] not in METHODS:
            raise WireError(f"a measure's {name} is no method of the meter's")
    return RunMeasure(
        cpu_seconds=_seconds(value["cpu_seconds"], "the call's CPU seconds", optional=True),
        **{name: value[name] for name in (*MEASURE_COUNTS, *MEASURE_METHODS)},
    )


def _trace(value: Any, decoder: _Decoder) -> Trace | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"n", "events", "limit", "truncated"}:
        raise WireError("a trace without exactly its fields")
    events = decoder.value(value["events"])
    if not isinstance(events, list) or not all(isinstance(event, tuple) for event in events):
        raise WireError("a trace whose events are not a list of tuples")
    if not isinstance(value["truncated"], bool):
        raise WireError("a trace's truncated is not true or false")
    return Trace(
        _count(value["n"], "a trace's n"), events, _count(value["limit"], "a trace's limit"), value["truncated"]
    )


def _certificate(value: Any) -> Certificate | None:
    if value is None:
        return None
    names = {"status", "reason", "bytes", "lemmas", "seconds", "proof", "proof_sha256"}
    status = CertificateStatus.parse(value["status"]) if isinstance(value, dict) and set(value) == names else None
    if status is None:
        raise WireError("a certificate without exactly its fields")
    return Certificate(
        status,
        _text(value["reason"], "a certificate's reason"),
        _count(value["bytes"], "a certificate's bytes"),
        _count(value["lemmas"], "a certificate's lemmas"),
        _seconds(value["seconds"], "a certificate's seconds") or 0.0,
        _text(value["proof"], "a kept proof's path"),
        _text(value["proof_sha256"], "a kept proof's fingerprint"),
    )


def _proof(value: Any) -> ProofHandoff | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"path", "bytes", "lemmas", "overflowed"}:
        raise WireError("a proof's handoff without exactly its fields")
    path = _text(value["path"], "a proof's path")
    if not path or "\x00" in path or not isinstance(value["overflowed"], bool):
        raise WireError("a proof's handoff with no path")
    return ProofHandoff(path, _count(value["bytes"], "a proof's bytes"), _count(value["lemmas"], "a proof's lemmas"),
                        value["overflowed"])  # fmt: skip


def _arrays(frame: memoryview, start: int, specs: Any) -> list[np.ndarray]:
    if not isinstance(specs, list):
        raise WireError("a frame whose arrays are not a list")
    arrays = []
    offset = start
    for spec in specs:
        if not isinstance(spec, list) or len(spec) != 2 or spec[0] not in ARRAY_DTYPES:
            raise WireError("an array of a type no answer has")
        dtype, length = np.dtype(spec[0]), _count(spec[1], "an array's length")
        end = offset + length * dtype.itemsize
        if end > len(frame):
            raise WireError("a frame shorter than the arrays it names")
        arrays.append(np.frombuffer(frame[offset:end], dtype=dtype))
        offset = end
    if offset != len(frame):
        raise WireError("a frame longer than the arrays it names")
    return arrays


def _header(frame: memoryview) -> tuple[dict[str, Any], list[np.ndarray]]:
    if len(frame) < LENGTH.size:
        raise WireError("a frame shorter than its length")
    (length,) = LENGTH.unpack_from(frame)
    if length > MAX_HEADER_BYTES or LENGTH.size + length > len(frame):
        raise WireError("a frame whose header runs past it")
    try:
        header = json.loads(bytes(frame[LENGTH.size : LENGTH.size + length]), parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as exc:
        raise WireError(f"a header that is not JSON ({type(exc).__name__})") from None
    if not isinstance(header, dict):
        raise WireError("a header that is not a JSON object")
    return header, _arrays(frame, LENGTH.size + length, header.get("arrays"))


def decode(frame: bytes) -> Message:
    """A worker's message, rebuilt from its frame (``WireError`` if it is not one)."""
    header, arrays = _header(memoryview(frame))
    kind = header.get("message")
    if kind == "ready" and header.keys() == {"message", "arrays"}:
        return Ready()
    if kind == "warming-up" and header.keys() == {"message", "arrays"}:
        return WarmingUp()
    if kind == "compiling" and header.keys() == {"message", "arrays", "kernel"}:
        return Compiling(_kernel_name(header["kernel"]))
    if kind == "compiled" and header.keys() == {"message", "arrays"}:
        return Compiled()
    if kind == "guessing" and header.keys() == {"message", "arrays"}:
        return Guessing()
    if kind == "guessed" and header.keys() == {"message", "arrays"}:
        return Guessed()
    if kind == "started" and header.keys() == {"message", "arrays", "seconds"}:
        return Started(_seconds(header["seconds"], "the preparation's seconds") or 0.0)
    if kind == "done" and header.keys() == {"message", "arrays", "executed"}:
        return Done(decode_executed(header["executed"], _Decoder(arrays)))
    raise WireError("a frame that is no message a worker sends")


KERNEL_NAME = re.compile(r"[A-Za-z0-9_]{1,64}")


def _kernel_name(value: Any) -> str:
    """A kernel's name as the parent may show it on a terminal: a short identifier, nothing else."""
    if not isinstance(value, str) or KERNEL_NAME.fullmatch(value) is None:
        raise WireError("a compiling kernel's name that is not a short identifier")
    return value


def decode_answer(frame: bytes) -> Executed:
    """An ``Executed`` alone (what a Dask task sends back for each of its tasks)."""
    header, arrays = _header(memoryview(frame))
    if header.get("message") != "executed" or header.keys() != {"message", "arrays", "executed"}:
        raise WireError("a frame that is not a task's answer")
    return decode_executed(header["executed"], _Decoder(arrays))
