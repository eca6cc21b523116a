"""The data contract shared by the host, every solver and the verifier.

Plain data only: nothing here knows about plugins, processes or output. The one
convention that holds everywhere (API, JSON, files) is ``queens[c] = r``: the
queen of column ``c`` stands in row ``r``, both 0-based.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    import numpy as np

# A board: any integer sequence, a numpy array included (10^7 queens stay compact).
Queens: TypeAlias = "Sequence[int] | np.ndarray"


class Status(str, enum.Enum):
    """How a run ended. The string values are what JSON and tables show."""

    SOLVED = "solved"
    NO_SOLUTION = "no-solution"  # proved: only a complete solver may say it
    GAVE_UP = "gave-up"  # the method's own limit (local minimum, step cap)
    TIMED_OUT = "timed-out"  # the budget ran out first

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Problem:
    """An n-queens instance: an ``n`` x ``n`` board, optionally with queens pre-placed.

    ``fixed`` maps column -> row. With fixed queens this is the n-queens
    *completion* problem, which is NP-complete, unlike the plain puzzle.
    Validation of user input lives in ``nqueens_plugins.inputs``; a Problem that
    reaches a solver has been checked there.
    """

    n: int
    fixed: Mapping[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Freeze the mapping into a plain, sorted dict so that equal problems compare
        # and serialise equally.
        object.__setattr__(self, "fixed", dict(sorted(self.fixed.items())))

    @property
    def is_plain(self) -> bool:
        """True for the classic puzzle with nothing pre-placed."""
        return not self.fixed


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


@dataclass
class Budget:
    """A wall-clock limit and an iteration cap, both optional.

    The host starts the clock when it hands the budget to a solver. Solvers poll
    ``exhausted(iterations)`` every so often (not on every step of a hot loop: a
    clock read costs more than a conflict update) and return TIMED_OUT when it
    says so. The harness also enforces the time limit from outside, so a solver
    that never polls is stopped rather than waited for.
    """

    seconds: float | None = None
    iterations: int | None = None
    started: float = field(default_factory=time.perf_counter)

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
        """The same limits with the clock starting now."""
        return Budget(self.seconds, self.iterations)


def outcome_to_dict(outcome: Outcome) -> dict[str, Any]:
    """A JSON-ready view of an outcome (queens as a plain list)."""
    return {
        "status": str(outcome.status),
        "queens": None if outcome.queens is None else [int(r) for r in outcome.queens],
        "iterations": int(outcome.iterations),
        "moves": int(outcome.moves),
        "counters": dict(outcome.counters),
    }
