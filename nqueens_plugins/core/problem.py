"""Core layer, any process: the data contract shared by the host, every solver and the verifier.

Plain data only: nothing here knows about plugins, processes or output. The one
convention that holds everywhere (API, JSON, files) is ``queens[c] = r``: the
queen of column ``c`` stands in row ``r``, both 0-based.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import hashlib
import inspect
import json
import signal
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn, Self, TypeAlias

if TYPE_CHECKING:
    import numpy as np

    from nqueens_plugins.core.proof_log import ProofLog

# A board: any integer sequence, a numpy array included (10^7 queens stay compact).
Queens: TypeAlias = "Sequence[int] | np.ndarray"


class Status(enum.StrEnum):
    """How a run ended. The string values are what JSON and tables show.

    A solver returns one of the first four; the host adds the last three.
    """

    SOLVED = "solved"
    NO_SOLUTION = "no-solution"  # proved: only a complete solver may say it
    GAVE_UP = "gave-up"  # the method's own limit (local minimum, step cap)
    TIMED_OUT = "timed-out"  # the budget ran out first (or the host stopped it)
    ERROR = "error"  # the host's verdict: the solver raised, crashed its process or returned the wrong type
    INVALID = "invalid"  # the host's verdict: the verifier rejected the answer
    REFUSED = "refused"  # the host's, before any run: the solver cannot take the board (its precheck, say; not a run)


SOLVER_STATUSES = frozenset({Status.SOLVED, Status.NO_SOLUTION, Status.GAVE_UP, Status.TIMED_OUT})


Square: TypeAlias = "tuple[int, int]"  # (column, row), 0-based, like fixed queens


READ_ONLY = "the problem a solver is handed is read-only"


class ReadOnlyProblem(dataclasses.FrozenInstanceError, TypeError):
    """Raised at once when code tries to change a ``Problem``: its fields, its fixed queens or its blocked squares.

    A solver is handed the instance it must solve and the host judges the answer against
    its own copy; a solver that changed the object it was given would be solving (and
    a certificate would be checked against) another instance. Failing at the change,
    with a message that says how to work on a copy, is clearer than a wrong verdict
    later. It is a ``FrozenInstanceError`` (an ``AttributeError``), what assigning to a
    frozen dataclass's field raised before, and a ``TypeError``, what changing an
    immutable mapping raises.
    """


def _refuse(what: str, copy_it: str) -> NoReturn:
    raise ReadOnlyProblem(f"{READ_ONLY}: {what} (copy it: {copy_it})")


class FixedQueens(dict[int, int]):
    """A problem's fixed queens, column -> row: a dict that cannot be changed.

    A ``dict`` subclass so that everything a plain dict does with it keeps working
    (``json.dumps``, ``dict(fixed)``, equality with a plain dict, numba-free code that
    checks ``isinstance(x, dict)``); every mutator raises ``ReadOnlyProblem``, and
    ``copy()`` (as ``dict(fixed)``) gives a plain, changeable dict. It is hashable
    (by its items), and it pickles by its items (a dict subclass would otherwise be
    rebuilt through ``__setitem__``, which refuses). Its repr is a plain dict's. Writing through ``dict``'s own
    methods (``dict.__setitem__(fixed, 1, 2)``) is not prevented: that is a deliberate
    hack, and the host judges every answer against its own copy anyway.
    """

    __slots__ = ()

    def __new__(cls, items: Mapping[int, int] | Iterable[tuple[int, int]] = ()) -> Self:
        made = super().__new__(cls)
        dict.update(made, sorted(dict(items).items()))  # in column order, the canonical form; dict's own update
        return made

    def __init__(self, items: Mapping[int, int] | Iterable[tuple[int, int]] = ()) -> None:
        """Filled by ``__new__``: calling ``__init__`` again (``dict.__init__`` would update in place) does nothing."""

    def __reduce__(self) -> tuple[type[FixedQueens], tuple[dict[int, int]]]:
        return (FixedQueens, (dict(self),))

    def __hash__(self) -> int:  # type: ignore[override]  # a dict is unhashable; this one never changes
        return hash(frozenset(self.items()))

    def copy(self) -> dict[int, int]:
        """A plain dict with the same queens, to change at will."""
        return dict(self)

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse("its fixed queens cannot be changed", "dict(problem.fixed)")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse


class BlockedSquares(frozenset[tuple[int, int]]):
    """A problem's blocked squares: a frozenset whose would-be mutators (``add``, ``discard``...) raise
    ``ReadOnlyProblem`` saying how to copy it, rather than an ``AttributeError`` that names none.

    Operators that make a new set (``|``, ``|=`` on a name of one's own) work as for any frozenset.
    """

    __slots__ = ()

    def __repr__(self) -> str:  # as a plain frozenset's, so a problem's repr reads as it always did
        return repr(frozenset(self))

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse("its blocked squares cannot be changed", "set(problem.blocked)")

    add = discard = remove = pop = clear = _refuse
    update = intersection_update = difference_update = symmetric_difference_update = _refuse


@dataclass(frozen=True, eq=False)
class Problem:
    """An n-queens instance: an ``n`` x ``n`` board, optionally with queens pre-placed
    and squares blocked.

    ``fixed`` maps column -> row: the *n-Queens Completion* problem. ``blocked``
    holds (column, row) squares where no queen may stand: *Blocked n-Queens*
    (an excluded diagonal is all of its squares blocked). Both variants are
    NP-complete, unlike the plain puzzle (Gent, Jefferson and Nightingale, JAIR
    2017). Fixed queens that attack each other or stand on a blocked square make
    an instance with no solution, not an invalid one.

    ``source`` names where the instance came from (a file, ``file@d``); it is a
    label only: two problems are equal when their board, fixed queens and blocked
    squares are, and ``id`` is a short hash of exactly those.
    Validation of user input lives in ``nqueens_plugins.formats.inputs``.

    A problem is read-only all the way down: ``fixed`` is a ``FixedQueens`` (a dict
    that refuses changes), ``blocked`` a ``BlockedSquares`` (a frozenset), and setting
    a field raises ``ReadOnlyProblem`` too. A solver that needs to change what it was
    handed works on its own copy (``dict(problem.fixed)``, ``set(problem.blocked)``).
    """

    n: int
    fixed: Mapping[int, int] = field(default_factory=dict)
    blocked: frozenset[Square] = frozenset()
    source: str | None = None

    def __post_init__(self) -> None:
        # Freeze into canonical, read-only forms so that equal problems compare and serialise equally and a
        # solver cannot change the instance it was handed; ones already frozen (``copy``'s) are kept as given.
        if type(self.fixed) is not FixedQueens:
            object.__setattr__(self, "fixed", FixedQueens(self.fixed))
        if type(self.blocked) is not BlockedSquares:
            object.__setattr__(self, "blocked", BlockedSquares(self.blocked))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Problem):
            return NotImplemented
        return (self.n, self.fixed, self.blocked) == (other.n, other.fixed, other.blocked)

    def __hash__(self) -> int:
        return hash((self.n, tuple(self.fixed.items()), self.blocked))

    def copy(self) -> Problem:
        """An equal problem, a new object, for a solver run in this process (``execution/inprocess.py``). Nothing
        of a problem can change through its own methods (``ReadOnlyProblem``), but a deliberate hack can write a
        dict (``dict.__setitem__(problem.fixed, ...)``): the copy has fixed queens of its own, so the host's
        problem stays as it was; the blocked squares, a frozenset nothing in Python can write, are shared. The
        cached ``id`` and ``allowed_rows`` are computed again when asked. ``copy.deepcopy`` walked every blocked
        square: 1.1 ms a call on an ASP n = 28 instance, 3.9 ms at n = 50, which the adapter benchmarks counted
        as adapter overhead."""
        return dataclasses.replace(self, fixed=FixedQueens(self.fixed))

    @property
    def is_plain(self) -> bool:
        """True for the classic puzzle: nothing pre-placed, nothing blocked."""
        return not self.fixed and not self.blocked

    @functools.cached_property
    def id(self) -> str:
        """A short content hash: the same instance has the same id wherever it came from."""
        canonical = json.dumps([self.n, sorted(self.fixed.items()), sorted(self.blocked)], separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:12]

    @property
    def label(self) -> str:
        """How tables name the instance: its source, else ``n=N`` for a plain board, else its id."""
        if self.source:
            return self.source
        return f"n={self.n}" if self.is_plain else f"n={self.n} #{self.id}"

    @functools.cached_property
    def allowed_rows(self) -> tuple[int, ...]:
        """Per column, a bit mask of the rows a queen may take: not blocked, or just the fixed row.

        Row r is bit r. The bit-mask searches start from these; a plain board
        gives ``(1 << n) - 1`` everywhere.
        """
        full = (1 << self.n) - 1
        masks = [full] * self.n
        for column, row in self.blocked:
            masks[column] &= ~(1 << row)
        for column, row in self.fixed.items():
            masks[column] &= 1 << row
        return tuple(masks)

    def contradiction(self) -> str | None:
        """Why this instance obviously has no solution (fixed queens attacking each other or
        blocked, a column or row with every square blocked), or None.

        Solvers use it to answer at once; the verifier does its own check.
        """
        seen: dict[tuple[str, int], int] = {}
        for column, row in self.fixed.items():
            if (column, row) in self.blocked:
                return f"fixed queen {column}:{row} stands on a blocked square"
            for key in (("row", row), ("diagonal", row + column), ("anti-diagonal", row - column)):
                if key in seen:
                    return f"fixed queens {seen[key]}:{self.fixed[seen[key]]} and {column}:{row} attack each other"
                seen[key] = column
        if len(self.blocked) >= self.n:  # fewer cannot fill a line; counting is linear in the squares
            # (not ``allowed_rows``: n bits a column, 1.25 GB at n = 100,000, for a yes or no)
            in_column = Counter(column for column, _ in self.blocked)
            in_row = Counter(row for _, row in self.blocked)
            full = sorted(column for column, count in in_column.items() if count >= self.n)
            if full:
                return f"every square of column {full[0]} is blocked"
            full = sorted(row for row, count in in_row.items() if count >= self.n)
            if full:
                return f"every square of row {full[0]} is blocked"
        return None


def _no_setting(problem: Problem, name: str, value: object = None) -> NoReturn:
    _refuse(f"{name} cannot be set", f"dataclasses.replace(problem, {name}=...)")


def _no_deleting(problem: Problem, name: str) -> NoReturn:
    _refuse(f"{name} cannot be deleted", f"dataclasses.replace(problem, {name}=...)")


# After the class is made: a frozen dataclass may not define these itself. Its own raise a bare
# FrozenInstanceError ("cannot assign to field 'n'"); these say the problem is read-only and how to copy it.
# The cached properties write ``__dict__`` directly, and ``__init__``/``__post_init__``/unpickling do not
# go through ``__setattr__``: all unaffected.
Problem.__setattr__ = _no_setting  # type: ignore[assignment,method-assign]
Problem.__delattr__ = _no_deleting  # type: ignore[assignment,method-assign]


@dataclass
class Outcome:
    """What a solver returns from ``solve``.

    ``queens`` is required when ``status`` is SOLVED and may be given otherwise
    (a heuristic's last board, for example); it is any integer sequence,
    including a numpy array, so large boards need not become Python lists.

    ``iterations`` counts state transitions and ``moves`` counts queens placed or
    moved: the two figures the seed tutorials report for every method. Each
    solver's docstring says exactly what one of each is for it. ``counters``
    holds anything else the method counts (restarts, backtracks, nodes...).
    """

    status: Status
    queens: Queens | None = None
    iterations: int = 0
    moves: int = 0
    counters: dict[str, Any] = field(default_factory=dict)


@dataclass
class Count:
    """What a complete solver returns from ``count``.

    ``solutions`` is exact when ``status`` is SOLVED (the count finished) and a
    lower bound when the budget ran out (TIMED_OUT).
    """

    status: Status
    solutions: int
    unique: bool = False
    iterations: int = 0
    counters: dict[str, Any] = field(default_factory=dict)


TRACED_UP_TO = 64  # the largest board traced step by step
TRACE_EVENTS = 200_000  # events kept at most; a longer run's trace says it was cut short


@dataclass
class Trace:
    """Every state change of one run, for step-by-step views (``nqueens solve --trace``, ``nqueens animate``).

    A solver that traces reads ``budget.trace`` once and, when it is not None,
    reports each change as it makes it: a queen placed, taken back or moved, or
    a whole new board (a random start, a restart). Replaying the events from an
    empty board must give the board the solver returns. When tracing is off
    ``budget.trace`` is None and the cost is one comparison per step.
    """

    n: int
    events: list[tuple[Any, ...]] = field(default_factory=list)
    limit: int = TRACE_EVENTS
    truncated: bool = False

    def _add(self, event: tuple[Any, ...]) -> None:
        if len(self.events) < self.limit:
            self.events.append(event)
        else:
            self.truncated = True

    def place(self, column: int, row: int) -> None:
        self._add(("place", int(column), int(row)))

    def remove(self, column: int) -> None:
        self._add(("remove", int(column)))

    def move(self, column: int, row: int) -> None:
        self._add(("move", int(column), int(row)))

    def board(self, queens: Queens) -> None:
        """A whole new board (every column's row; -1 for an empty column)."""
        tolist = getattr(queens, "tolist", None)  # a numpy array converts in one call
        self._add(("board", tolist() if tolist is not None else list(queens)))

    def boards(self, many: Sequence[Sequence[int]]) -> None:
        """Several new boards in a row (a method that draws boards in batches); each is kept as given."""
        room = self.limit - len(self.events)
        self.events.extend(("board", queens) for queens in many[: max(room, 0)])
        if len(many) > room:
            self.truncated = True


def replay(n: int, events: Sequence[Sequence[Any]], fixed: Mapping[int, int] | None = None) -> Iterator[list[int]]:
    """The board after each event (-1: an empty column), starting from the fixed queens alone."""
    queens = [-1] * n
    for column, row in (fixed or {}).items():
        queens[int(column)] = int(row)
    for event in events:
        kind = event[0]
        if kind in ("place", "move"):
            queens[int(event[1])] = int(event[2])
        elif kind == "remove":
            queens[int(event[1])] = -1
        elif kind == "board":
            queens = [int(r) for r in event[1]]
        else:
            raise ValueError(f"unknown trace event {kind!r}")
        yield list(queens)


@dataclass
class Budget:
    """A wall-clock limit and an iteration cap, both optional.

    The host starts the clock when it hands the budget to a solver. Solvers poll
    ``exhausted(iterations)`` every so often (not on every step of a hot loop: a
    clock read costs more than a conflict update) and return TIMED_OUT when it
    says so. The execution service also enforces the limit from outside, so a solver
    that never polls is stopped rather than waited for.
    """

    seconds: float | None = None
    iterations: int | None = None
    started: float = field(default_factory=time.perf_counter)
    trace: Trace | None = None  # set when the run is traced (see Trace); None costs nothing
    proof: ProofLog | None = None  # set when a no-solution claim is to be certified (see ProofLog)

    @property
    def deadline(self) -> float:
        """The ``time.perf_counter()`` value at which time runs out (inf if never)."""
        return float("inf") if self.seconds is None else self.started + self.seconds

    def out_of_time(self) -> bool:
        return self.seconds is not None and time.perf_counter() >= self.deadline

    def exhausted(self, iterations: int = 0) -> bool:
        """True once the time limit has passed or ``iterations`` reached the cap."""
        if self.iterations is not None and iterations >= self.iterations:
            return True
        return self.out_of_time()

    def remaining(self) -> float | None:
        """Seconds left, or None when there is no time limit."""
        if self.seconds is None:
            return None
        return max(0.0, self.deadline - time.perf_counter())

    def restarted(self) -> Budget:
        """The same limits (and trace and proof) with the clock starting now."""
        return Budget(self.seconds, self.iterations, trace=self.trace, proof=self.proof)

    @contextlib.contextmanager
    def interrupting(self) -> Iterator[Interruption]:
        """Stop code that has no time limit of its own (a wrapped library) when this budget's time runs out:

            with budget.interrupting() as stop:
                boards = library.all_solutions(problem.n)
            if stop.fired:
                return Outcome(Status.TIMED_OUT, None, iterations, moves)

        When time runs out, the code inside the block gets ``OutOfTime``, raised by a
        SIGALRM timer; the block ends there and ``stop.fired`` is True. It is a
        ``BaseException``, as ``KeyboardInterrupt`` is, so a library's ``except
        Exception`` does not swallow it. Signals reach only the main thread: a solver
        run isolated (the default) is called on its worker's main thread, and there it
        always works; called in a thread of the caller's own, the block runs to its end.
        Code that holds the interpreter in C for long is interrupted when it returns to
        Python; for one that never does, declare ``stops_at_budget = False`` instead, and
        the host stops it at the limit.
        """
        stop = Interruption()
        remaining = self.remaining()
        if remaining is None or threading.current_thread() is not threading.main_thread():
            yield stop
            return
        armed = True
        own_frame = inspect.currentframe()

        def alarm(signum: int, frame: Any) -> None:
            if not armed:  # a timer that fires as the block ends must not raise outside it
                return
            if frame is own_frame or (frame is not None and frame.f_code in _CONTEXT_MANAGER_CODE):
                # Still arming or already disarming, outside the block: raised here, OutOfTime would leave the
                # ``with`` statement instead of ending its block. Fire again a moment later, inside it.
                signal.setitimer(signal.ITIMER_REAL, _ALARM_RETRY_SECONDS)
                return
            raise OutOfTime

        previous = signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, max(remaining, 1e-6))  # 0 would disarm it
        try:
            yield stop
        except OutOfTime:
            stop.fired = True
        finally:
            armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


# Where a SIGALRM finds the interpreter when it lands between arming the timer and entering the block (or
# between the block's end and the disarming): contextlib's own frames around ``interrupting``'s generator.
_CONTEXT_MANAGER_CODE = frozenset(
    {contextlib._GeneratorContextManager.__enter__.__code__, contextlib._GeneratorContextManager.__exit__.__code__}
)
_ALARM_RETRY_SECONDS = 1e-3


class OutOfTime(BaseException):
    """Raised inside ``Budget.interrupting()`` when time runs out; a BaseException so that a
    library's ``except Exception`` cannot swallow it."""


@dataclass
class Interruption:
    """What ``Budget.interrupting()`` yields: whether it stopped the block."""

    fired: bool = False
