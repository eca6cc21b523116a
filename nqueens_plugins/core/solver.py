"""Core layer, any process: what a solver is. The base class plugin authors subclass, its options, variants.

A solver is an object with a few class attributes that describe it and a
``solve`` method (plus ``count`` when it is complete). The host never looks
inside ``solve``; it relies on the declared attributes to decide what to ask.

A *variant* is a solver with some options set, written ``NAME[key=value,...]``
on the command line (``simulated-annealing[cooling=0.99]``). In a comparison
each variant is its own row.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import itertools
import math
import random
import re
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from nqueens_plugins.core import guess_notes
from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import Budget, Count, Outcome, Problem

NAME_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
OPTION_TYPES: tuple[type, ...] = (bool, int, float, str)

# The families of methods, as the field names them. A solver's ``family`` is one of
# these or a name of its own; cross-check says which families confirmed a no-solution,
# since two solvers of one family may share a mistake in how they read the problem.
FAMILIES: tuple[str, ...] = ("search", "local search", "random", "construction", "CP", "SAT", "ASP", "MIP", "SMT")
"""The families a solver's ``family`` usually names (a short name of its own is taken too)."""


@dataclass(frozen=True)
class Option:
    """One tunable setting of a solver: typed, defaulted, documented.

    ``choices`` restricts a ``str`` option to a fixed set; ``minimum`` and
    ``maximum`` bound a number. ``None`` is allowed as a default for "no limit".
    """

    name: str
    type: type
    default: Any
    help: str
    choices: tuple[str, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None

    def parse(self, raw: Any, solver: str) -> Any:
        """Turn ``raw`` (a string from the command line, or a Python value) into a typed value."""
        where = f"option {self.name!r} of {solver}"
        if raw is None or (isinstance(raw, str) and raw.lower() in ("none", "null")):
            if self.default is None:
                return None
            raise BadInput(f"{where} needs a value ({self.describe_type()})")
        value: Any
        if self.type is bool:
            if isinstance(raw, bool):
                value = raw
            elif isinstance(raw, str) and raw.lower() in ("true", "yes", "on", "1"):
                value = True
            elif isinstance(raw, str) and raw.lower() in ("false", "no", "off", "0"):
                value = False
            else:
                raise BadInput(f"{where} takes true or false, not {raw!r}")
        elif self.type is int:
            if isinstance(raw, bool) or (isinstance(raw, float) and not raw.is_integer()):
                raise BadInput(f"{where} takes a whole number, not {raw!r}")
            try:
                value = int(raw)
            except (TypeError, ValueError):
                raise BadInput(f"{where} takes a whole number, not {raw!r}") from None
        elif self.type is float:
            try:
                value = float(raw)
            except (TypeError, ValueError):
                raise BadInput(f"{where} takes a number, not {raw!r}") from None
            if not math.isfinite(value):
                raise BadInput(f"{where} takes a finite number, not {raw!r}")
        else:
            value = str(raw)
        if self.choices is not None and value not in self.choices:
            raise BadInput(f"{where} is one of {', '.join(self.choices)}; not {raw!r}")
        if self.minimum is not None and value < self.minimum:
            raise BadInput(f"{where} must be at least {self.minimum:g}, not {raw!r}")
        if self.maximum is not None and value > self.maximum:
            raise BadInput(f"{where} must be at most {self.maximum:g}, not {raw!r}")
        return value

    def describe_type(self) -> str:
        if self.choices:
            return "|".join(self.choices)
        return self.type.__name__


class Solver:
    """Base class for solvers. Subclass it, set the class attributes, implement ``solve``.

    ``supports_fixed`` and ``supports_blocked`` say which instances it takes
    (pre-placed queens, blocked squares); the host refuses the others with one
    line before any run. ``solve`` receives a validated ``Problem``, a ``random.Random`` that is the
    only source of randomness it may use (the host seeds it from the run's
    seed, solver, n and trial, so runs repeat exactly), a started ``Budget``
    to poll, and ``options``: every declared option, typed, defaults filled in.
    """

    name: ClassVar[str]
    summary: ClassVar[str]
    complete: ClassVar[bool] = False  # can prove no-solution (and, unless can_count is False, count)
    can_count: ClassVar[bool | None] = None  # None: same as complete
    supports_fixed: ClassVar[bool] = True  # honours pre-placed queens
    supports_blocked: ClassVar[bool] = False  # never places a queen on a blocked square (opt in)
    counts_unique: ClassVar[bool] = False  # can count up to rotation and reflection
    traces: ClassVar[bool] = False  # reports its steps to budget.trace (see Trace)
    certifies: ClassVar[bool] = False  # writes a proof of every no-solution claim to budget.proof (see ProofLog)
    max_n: ClassVar[int | None] = None  # the largest board this solver accepts
    options: ClassVar[tuple[Option, ...]] = ()
    runs_on: ClassVar[str | None] = None  # what executes the search ("python", "numba", "CP-SAT (C++)"); see engine()
    stops_at_budget: ClassVar[bool] = True  # returns by itself when its Budget runs out (see Budget.interrupting)
    family: ClassVar[str | None] = None  # the family of methods (see FAMILIES); None: not said
    exports: ClassVar[tuple[str, ...]] = ()  # file formats export() writes ("dimacs", "asp", "mps", "smt2", "dzn")

    def is_complete(self, options: Mapping[str, Any]) -> bool:
        """Whether this variant is complete; override when an option changes it."""
        return self.complete

    def can_certify(self, options: Mapping[str, Any]) -> bool:
        """Whether this variant writes a certificate of its no-solution claims (``certifies``); override when an
        option decides it (a SAT library whose solvers differ: some log DRUP proofs, some cannot)."""
        return self.certifies and self.is_complete(options)

    def stops_itself(self, options: Mapping[str, Any]) -> bool:
        """Whether this variant returns by itself when its budget runs out (``stops_at_budget``); override
        when an option decides it (a SAT library whose solvers differ: some take an interrupt, some never stop)."""
        return self.stops_at_budget

    def counts(self, options: Mapping[str, Any]) -> bool:
        """Whether this variant can count all solutions."""
        return self.is_complete(options) if self.can_count is None else self.can_count

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        """Find one solution of ``problem`` (the one method every solver implements).

        Use only ``rng`` for randomness (the host seeds it, so a run repeats exactly), poll ``budget``
        (``budget.exhausted()``) and return ``TIMED_OUT`` when it says so, and return an ``Outcome``:
        ``SOLVED`` with ``queens`` (``queens[column] = row``), ``NO_SOLUTION`` only with a proof (a
        complete solver), ``GAVE_UP`` otherwise, with the method's ``iterations`` and ``moves``. The host
        verifies every board; it runs this on the worker process's main thread.
        """
        raise NotImplementedError

    def count(self, problem: Problem, budget: Budget, options: Mapping[str, Any], unique: bool) -> Count:
        """Count every solution (or, with ``unique``, every class under symmetry)."""
        raise NotImplementedError(f"{self.name} does not count")

    def count_precheck(
        self, problem: Problem, options: Mapping[str, Any], unique: bool, memory: int | None = None
    ) -> str | None:
        """Why this count cannot be made, said before any work starts (a method that would need more than
        ``memory`` bytes, a run's ``--memory``; None: what the machine has), or None. The host shows it as
        bad input. Optional; it runs in the host, so it must be quick and never start anything."""
        return None

    def count_parts(self, problem: Problem, options: Mapping[str, Any], unique: bool) -> list[Any] | None:
        """Independent pieces of this count, for a cluster to count apart; None: count in one piece.

        Each piece must be picklable and small; ``count_part`` counts one, and the
        host adds the pieces up and verifies the total. Optional.
        """
        return None

    def count_part(
        self, problem: Problem, budget: Budget, options: Mapping[str, Any], unique: bool, part: Any
    ) -> Count:
        """Count the solutions in one piece from ``count_parts`` (SOLVED, or TIMED_OUT: a lower bound)."""
        raise NotImplementedError(f"{self.name} does not count in parts")

    def count_seconds(self, problem: Problem, options: Mapping[str, Any]) -> float | None:
        """About how many seconds counting ``problem`` would take on this machine; None when the solver
        cannot tell. ``nqueens count`` asks before starting a count without a limit that would take days."""
        return None

    def engine(self, options: Mapping[str, Any]) -> str | None:
        """What will execute this variant's search, as ``nqueens plugins`` shows it (None: not said).

        Override when an option or an installed extra decides it (a compiled
        kernel when numba is installed, plain Python otherwise).
        """
        return self.runs_on

    def warm_up(self, options: Mapping[str, Any], preparation: str = "") -> None:
        """Load what the first timed call would otherwise pay for (imports, compiled kernels).

        A worker calls it once per solver and preparation (``preparation``: the name
        ``Solver.preparation`` gave for the problem, "" unless the solver names them),
        untimed, before that solver's first run there, held to ``--prepare-timeout``;
        if it raises, the run is an error saying so.

        The default guesses: it solves a 4x4 board, which loads what ``solve``
        imports, and says it is guessing (``core.guess_notes``), so the host holds it to a
        short limit of its own (a solver that ignores its budget would make it endless:
        past it the solver runs cold) and leaves its failure to the timed call. Override
        it when counting or large boards load more, or when what ``solve`` loads takes
        longer than that short limit: then it is your own warm-up, held to
        ``--prepare-timeout`` (``bitboard`` loads its compiled counters here).
        """
        with guess_notes.guessing(), contextlib.suppress(BaseException):  # a guess: the timed call meets its failure
            solve_a_small_board(self, options)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass written for the one-argument ``warm_up(self, options)`` of contract 1.1 and before keeps
        working, adapted here, once, when its class is made (never by the worker at each call), and warns."""
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("warm_up")
        if own is not None and takes_options_only(own):
            warnings.warn(
                f"{cls.__module__}.{cls.__qualname__}.warm_up(self, options) is deprecated since nqueens-plugins "
                "0.3.0 and goes in 0.4.0: define warm_up(self, options, preparation) (the preparation's name, "
                '"" unless the solver names its preparations)',
                DeprecationWarning,
                stacklevel=2,
            )
            cls.warm_up = with_preparation(own)  # type: ignore[method-assign]

    def preparation(self, problem: Problem, options: Mapping[str, Any]) -> str:
        """What a first call on ``problem`` needs loaded, as a name ("" by default: the same for every problem).

        A worker prepares a solver once per name: ``warm_up(options, name)``.
        ``bitboard`` names "python" for the boards its pure-Python counter takes and
        "numba" for the rest, so a small count never waits for compiled kernels it
        will not use, and a large one still never loads them inside the clock.
        """
        return ""

    def export(self, problem: Problem, options: Mapping[str, Any], format: str) -> str:
        """The text of ``problem`` in ``format`` (one of ``exports``), exactly as this variant poses it to its library.

        ``nqueens instances export`` writes it, so a user can run a solver binary of
        their own (a SAT solver on DIMACS CNF, clingo on ASP facts, any MIP solver on
        MPS) on exactly what this plugin ran. Optional.
        """
        raise NotImplementedError(f"{self.name} exports no file format")

    bytes_per_queen: ClassVar[int | None] = None  # peak memory per queen, measured; None if small

    def precheck(self, n: int, options: Mapping[str, Any]) -> str | None:
        """Why this variant refuses an n x n board (too large to hold, a library missing), or None.

        The host asks before any run, so the user gets one clear line instead of
        a failure half way through an allocation.
        """
        if self.max_n is not None and n > self.max_n:
            return f"{self.name} accepts n up to {self.max_n:,}; {n:,} is too large"
        if self.bytes_per_queen is not None:
            needed, available = n * self.bytes_per_queen, available_memory()
            if available is not None and needed > available:
                return (
                    f"{self.name} needs about {needed / 2**30:.1f} GiB for n = {n:,}; "
                    f"this machine has {available / 2**30:.1f} GiB available"
                )
        return None

    def __repr__(self) -> str:
        return f"<solver {self.name}>"


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation, where the platform says (Linux, macOS)."""
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        import os

        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


@dataclass(frozen=True)
class Variant:
    """A solver together with the options a user set on it."""

    solver: Solver
    options: Mapping[str, Any] = field(default_factory=dict)  # every option, typed
    given: Mapping[str, Any] = field(default_factory=dict)  # only those set by the user

    @property
    def name(self) -> str:
        return self.solver.name

    @property
    def label(self) -> str:
        """``name`` or ``name[k=v,...]`` with the options the user set, in declared order."""
        if not self.given:
            return self.solver.name
        inner = ",".join(f"{k}={format_value(v)}" for k, v in self.given.items())
        return f"{self.solver.name}[{inner}]"

    @property
    def complete(self) -> bool:
        return self.solver.is_complete(self.options)

    @property
    def counts(self) -> bool:
        return self.solver.counts(self.options)


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def resolve_options(solver: Solver, raw: Mapping[str, Any]) -> Variant:
    """Type-check ``raw`` against the solver's declared options and fill in defaults."""
    declared = {o.name: o for o in solver.options}
    unknown = [k for k in raw if k not in declared]
    if unknown:
        known = ", ".join(declared) or "none"
        raise BadInput(f"{solver.name} has no option {unknown[0]!r} (its options: {known})")
    given = {o.name: o.parse(raw[o.name], solver.name) for o in solver.options if o.name in raw}
    options = {o.name: o.default for o in solver.options} | given
    return Variant(solver, options, given)


SPEC_PATTERN = re.compile(r"^\s*([^\[\],=\s]+)\s*(?:\[(.*)\])?\s*$")


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name[key=value,...]`` into the name and the raw option strings."""
    match = SPEC_PATTERN.match(spec)
    if not match:
        raise BadInput(f"cannot read solver {spec!r}: expected NAME or NAME[key=value,...]")
    name, inner = match.group(1), match.group(2)
    raw: dict[str, str] = {}
    if inner is not None and inner.strip():
        for item in inner.split(","):
            key, sep, value = item.partition("=")
            key = key.strip()
            if not sep or not key:
                raise BadInput(f"cannot read option {item.strip()!r} in {spec!r}: expected key=value")
            if key in raw:
                raise BadInput(f"option {key!r} is given twice in {spec!r}")
            raw[key] = value.strip()
    return name, raw


def spec_identity(spec: str) -> tuple[str, frozenset[tuple[str, Any]]] | None:
    """What a spec means, whatever its spelling: its name and its options' values, in any order, numbers
    compared as numbers (``t0=8`` is ``t0=8.0``), ``true``/``false``/``none`` as such; None if it cannot be read.

    For matching a spec a user types against the labels in a results file, where the solver may not be
    installed to type the options for us."""
    try:
        name, raw = parse_spec(spec)
    except BadInput:
        return None
    return name, frozenset((key, option_value(value)) for key, value in raw.items())


def option_value(text: str) -> Any:
    """An option's text as the value it names, for comparison (``spec_identity``)."""
    if text.lower() in ("true", "false", "none"):
        return text.lower()  # a word, never equal to a number (True == 1.0 in Python)
    try:
        number = float(text)
    except ValueError:
        return text
    return number if math.isfinite(number) else text


def matching_spec(spec: str, labels: Iterable[str]) -> str | None:
    """The one of ``labels`` that means what ``spec`` means (the same text first), or None."""
    labels = list(labels)
    if spec in labels:
        return spec
    wanted = spec_identity(spec)
    if wanted is None:
        return None
    return next((label for label in labels if spec_identity(label) == wanted), None)


def expand_sweep(spec: str) -> list[str]:
    """``name[a=1|2,b=x|y]`` -> the four specs of every combination (in order); a spec without ``|`` is itself.

    A parameter sweep, so that a grid of option values need not be typed out
    variant by variant; each variant is labelled by its own options.
    """
    name, raw = parse_spec(spec)
    if not any("|" in value for value in raw.values()):
        return [spec.strip()]
    choices: list[list[tuple[str, str]]] = []
    for key, value in raw.items():
        alternatives = [alternative.strip() for alternative in value.split("|")]
        if any(not alternative for alternative in alternatives):
            raise BadInput(f"option {key!r} in {spec!r} has an empty alternative")
        choices.append([(key, alternative) for alternative in alternatives])
    return [
        f"{name}[{','.join(f'{key}={value}' for key, value in combination)}]"
        for combination in itertools.product(*choices)
    ]


def split_specs(text: str) -> list[str]:
    """Split ``a,b[x=1,y=2],race(c,d),e`` on the commas that are outside brackets and parentheses."""
    specs: list[str] = []
    depth = 0
    current = ""
    for char in text:
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
            if depth < 0:
                raise BadInput(f"unbalanced {char!r} in solvers {text!r}")
        if char == "," and depth == 0:
            specs.append(current)
            current = ""
        else:
            current += char
    if depth != 0:
        raise BadInput(f"unbalanced '[' or '(' in solvers {text!r}")
    specs.append(current)
    specs = [s.strip() for s in specs]
    if any(not s for s in specs):
        raise BadInput(f"empty solver name in {text!r}")
    return specs


def solve_a_small_board(solver: Solver, options: Mapping[str, Any]) -> None:
    """Solve a 4x4 board, which loads what ``solve`` imports: the default warm-up's guess, and the warm-up of a
    solver whose ``solve`` loads all it needs but takes longer than a guess may (its own, not a guess)."""
    solver.solve(Problem(4), random.Random(0), Budget(2.0), dict(options))


def takes_options_only(warm_up: Any) -> bool:
    """Whether a ``warm_up`` a class defines is the old one-argument form, ``warm_up(self, options)``: it cannot
    be given a preparation's name. Asked once per class, when it is made (``Solver.__init_subclass__``)."""
    if getattr(warm_up, ADAPTED, False) or not inspect.isfunction(warm_up):
        return False  # adapted already (a class rebuilt from a pickle), or not a plain method: left as it is
    try:
        parameters = list(inspect.signature(warm_up).parameters.values())
    except (TypeError, ValueError):
        return False
    if any(parameter.kind is inspect.Parameter.VAR_POSITIONAL for parameter in parameters):
        return False
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(parameter.kind in positional for parameter in parameters) <= 2  # self, options


ADAPTED = "_nqueens_adapted_warm_up"


def with_preparation(warm_up: Callable[[Any, Mapping[str, Any]], None]) -> Callable[..., None]:
    """An old one-argument ``warm_up(self, options)`` as the contract's ``warm_up(self, options, preparation)``:
    it prepares everything at once, whatever the name (as the worker called it before contract 1.2)."""

    @functools.wraps(warm_up, updated=())
    def adapted(self: Any, options: Mapping[str, Any], preparation: str = "") -> None:
        warm_up(self, options)

    del adapted.__wrapped__  # its signature is the new one: a class rebuilt from it is not adapted twice
    setattr(adapted, ADAPTED, True)
    return adapted
