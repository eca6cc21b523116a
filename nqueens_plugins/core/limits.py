"""Core layer, any process: ``Limits``, what a run may spend, made once at the front door and carried down.

Every limit a run has (its time limit, the limit on preparing its solver, its
memory, its iteration cap, its base seed) travels as one frozen, validated
``Limits``: the API (or the CLI, from its flags) makes it, and grids, tasks,
results and records carry it as it is. Its fields are checked once, here, with
the one-line ``BadInput`` messages the user sees; and every default is written
once, here: the CLI's flags and the API's defaults read these constants.
"""

from __future__ import annotations

import enum
import hashlib
import math
import operator
import os
import re
import struct
import threading
from dataclasses import dataclass

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import Problem

# Seconds a worker may take to prepare a solver (rebuild it, import its plugin, run its untimed
# warm-up) by default. Generous: a first numba compilation or a heavy import takes seconds.
PREPARE_TIMEOUT = 120.0
COMPARE_TIMEOUT = 10.0  # seconds per run of a comparison (nqueens compare, nq.compare)
CROSS_CHECK_TIMEOUT = 10.0  # seconds per solve or count of a cross-check
EXPORT_TIMEOUT = 60.0  # seconds a plugin may take to write an instance out
CERTIFICATE_SIZE = 1 << 30  # bytes a certificate may take on disk before the log stops (over budget)
CHECK_TIMEOUT = 60.0  # seconds the checker may take over one certificate
CHECK_MEMORY = 4 << 30  # bytes of data the checker's process may allocate
RECHECK_BUDGET = 120.0  # seconds a report may spend re-checking kept proofs in all (nqueens report --recheck auto)
MIN_MEMORY = 1 << 20  # a memory limit below 1 MiB would fail the worker's own first allocation

MEMORY_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20,
                "g": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tib": 1 << 40}  # fmt: skip


class CertifyMode(enum.StrEnum):
    """When a complete solver that can prove its no-solution claims is asked to (``Limits.certify``).

    A ``StrEnum``: a user passes the word (``certify="always"``), ``Limits`` keeps the member, and both compare
    equal to the string; its ``repr`` is the string's, so a ``Limits`` reads as it did when the field was one.
    """

    AUTO = "auto"  # where nothing else settles the claim: not a plain board, no published answer
    ALWAYS = "always"  # every instance the canonical CNF can be built for
    NEVER = "never"

    __repr__ = str.__repr__


CERTIFY_CHOICES = tuple(mode.value for mode in CertifyMode)  # the words, for the CLI's --certify and messages


def whole_number(value: object, what: str, minimum: int | None = None) -> int:
    """An argument that must be an int (not a bool, str or float): BadInput otherwise."""
    if isinstance(value, bool):
        raise BadInput(f"{what} must be a whole number, not {value!r}")
    if not isinstance(value, int):
        try:
            value = operator.index(value)  # type: ignore[arg-type]  # numpy integers are fine
        except TypeError:
            raise BadInput(f"{what} must be a whole number, not {value!r}") from None
    if minimum is not None and value < minimum:
        raise BadInput(f"{what} must be at least {minimum}, not {value}")
    return int(value)


def longest_wait() -> float:
    """The most seconds every wait of this platform accepts: ``threading.TIMEOUT_MAX`` (lock and condition
    waits; ``select.select``, ``time.sleep`` and ``signal.setitimer`` convert through the same 64-bit
    nanoseconds, 292 years) and ``poll``/``epoll``'s C int of milliseconds (24.8 days), which
    ``multiprocessing``'s ``Connection.poll`` and ``wait``, ``selectors`` and ``subprocess``'s ``communicate``
    go through."""
    c_int_max = (1 << (8 * struct.calcsize("i") - 1)) - 1
    return min(threading.TIMEOUT_MAX, c_int_max / 1000)


# The longest time limit a run, a preparation or a check may have. A limit is waited for as it is (a worker
# polls its pipe for the run's remaining time, a plugin passes ``budget.remaining()`` to its library) and
# added to the clocks (a deadline is ``time.monotonic()`` plus the limit, plus a grace, or plus the check's
# time and the checker's start): ``--check-timeout 1e10`` passed and crashed the worker ("timestamp out of
# range" in ``select.select``). Half of ``longest_wait()`` leaves room for a deadline's sums, and a power
# of ten reads well: 1,000,000 seconds (11.6 days) on Linux, macOS and Windows alike.
MAX_SECONDS = 10.0 ** math.floor(math.log10(longest_wait() / 2))


def time_limit(value: object, what: str = "timeout") -> float | None:
    """A time limit: None (no limit) or a positive number of seconds, at most ``MAX_SECONDS``."""
    if value is None:
        return None
    shown = repr(value)
    if len(shown) > 40:  # a whole number of hundreds of digits, say: the message stays one short line
        shown = f"{shown[:12]}... ({len(shown)} characters)"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:  # NaN is not > 0
        raise BadInput(f"{what} must be a positive number of seconds or None, not {shown}")
    if not value <= MAX_SECONDS:
        raise BadInput(
            f"{what} must be at most {MAX_SECONDS:,.0f} seconds ({MAX_SECONDS / 86400:.1f} days: the longest wait "
            f"this platform's clocks hold, with room for deadlines), not {shown}"
        )
    return float(value)


def folder_name(value: object, what: str) -> str:
    """A folder's name as text (a str or a path object; the folder need not exist yet)."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value or "\x00" in value:
        raise BadInput(f"{what} must name a folder, not {value!r}")
    return value


def parse_memory(value: object, what: str = "memory") -> int:
    """A memory size: bytes as a whole number, or with a binary unit: 512M, 1.5G, 2GiB."""
    if isinstance(value, int) and not isinstance(value, bool):
        size = value
    else:
        match = re.fullmatch(r"\s*([0-9]{1,15}(?:\.[0-9]{1,6})?)\s*([a-zA-Z]{0,3})\s*", str(value))
        unit = match.group(2).lower() if match else ""
        if match is None or unit not in MEMORY_UNITS:
            raise BadInput(f"{what} takes a size such as 512M or 2G, not {value!r}")
        size = int(float(match.group(1)) * MEMORY_UNITS[unit])
    if size < MIN_MEMORY:
        raise BadInput(f"{what} limit must be at least 1M, not {value!r}")
    return size


@dataclass(frozen=True)
class Limits:
    """What each run may spend, and the seed its random stream is derived from.

    ``timeout``: seconds the solver call may take (None: no limit), killed from
    outside past it. ``prepare_timeout``: seconds a worker may take to prepare
    the solver (import, warm-up, compiled kernels), never counted in ``timeout``
    and never None. ``memory``: bytes a run may allocate beyond its worker's own
    (an int, or text such as ``"512M"`` or ``"2G"``, kept as bytes; None: no
    limit). ``max_iterations``: the budget's iteration cap (None: none).
    ``seed``: the base seed; each run's own is ``seed_for(solver, problem, trial)``.

    Certificates (``docs/certificates.md``): ``certify`` says when a complete
    solver that can prove its no-solution claims is asked to: ``"auto"`` (on
    every instance whose answer is not already known: not a plain board, no
    published answer), ``"always"`` (every instance) or ``"never"``.
    ``certificate_size`` bounds the proof on disk (bytes or text, ``"1G"``),
    ``check_timeout`` and ``check_memory`` the checker's own process: a proof over
    any of them is reported as over budget, never as certified or as wrong.
    ``keep_proofs``: a folder where each checked certificate is kept (named after its
    run), beside its instance's canonical CNF as DIMACS, for an outside checker
    (drat-trim) to check again; None: proofs are removed once checked.

    A ``Limits`` is used whole: a field you leave out takes the default shown
    here, not a function's (``nq.compare(limits=nq.Limits(memory="1G"))`` runs
    with no time limit; say ``timeout=10`` to keep compare's). ``limits=None``
    gives a function its own defaults.
    """

    timeout: float | None = None  # a single solve or count runs until it ends unless told otherwise
    prepare_timeout: float = PREPARE_TIMEOUT
    memory: int | None = None
    max_iterations: int | None = None
    seed: int = 0
    certify: CertifyMode | str = CertifyMode.AUTO  # a word is accepted; a CertifyMode is kept
    certificate_size: int = CERTIFICATE_SIZE
    check_timeout: float = CHECK_TIMEOUT
    check_memory: int = CHECK_MEMORY
    keep_proofs: str | None = None

    def __post_init__(self) -> None:
        set_field = object.__setattr__  # frozen: normalized once, here
        set_field(self, "timeout", time_limit(self.timeout))
        if self.prepare_timeout is None:
            raise BadInput("prepare_timeout must be a positive number of seconds, not None")
        set_field(self, "prepare_timeout", time_limit(self.prepare_timeout, "prepare_timeout"))
        if self.memory is not None:
            set_field(self, "memory", parse_memory(self.memory))
        if self.max_iterations is not None:
            set_field(self, "max_iterations", whole_number(self.max_iterations, "max_iterations", minimum=1))
        set_field(self, "seed", whole_number(self.seed, "seed"))
        if type(self.certify) is not CertifyMode and self.certify not in CERTIFY_CHOICES:
            raise BadInput(f"certify is one of {', '.join(CERTIFY_CHOICES)}, not {self.certify!r}")
        set_field(self, "certify", CertifyMode(self.certify))
        set_field(self, "certificate_size", parse_memory(self.certificate_size, "certificate_size"))
        if self.check_timeout is None:
            raise BadInput("check_timeout must be a positive number of seconds, not None")
        set_field(self, "check_timeout", time_limit(self.check_timeout, "check_timeout"))
        set_field(self, "check_memory", parse_memory(self.check_memory, "check_memory"))
        if self.keep_proofs is not None:
            set_field(self, "keep_proofs", folder_name(self.keep_proofs, "keep_proofs"))

    def seed_for(self, solver: str, problem: Problem, trial: int) -> int:
        """The seed of one run, from (seed, solver, instance, trial): stable across processes and runs.

        A plain board is named by its n; any other instance by n and its content
        hash, so instances of one size get different random streams. Variants of
        one solver share the seed, so ``annealing[cooling=0.99]`` and plain
        ``annealing`` start from the same random board: options are compared fairly.
        """
        instance = str(problem.n) if problem.is_plain else f"{problem.n}#{problem.id}"
        digest = hashlib.sha256(f"{self.seed}|{solver}|{instance}|{trial}".encode()).digest()
        return int.from_bytes(digest[:8], "big")


DEFAULT_LIMITS = Limits()  # a single solve, count or task when none are given: no time limit, seed 0
