"""Results layer, parent side: what a race found (``RaceResult``): the winner's verified result and each member's end.

A race is run by ``workflows/race.py``; this is only what it found, so that the views
can show it without importing the workflow that drives the executor. "Race" in the code
names this portfolio race alone, as ``nq.race`` and ``nqueens race`` do; how a tune's
races drop configurations is ``results/elimination.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nqueens_plugins.core.problem import Problem
from nqueens_plugins.execution.answers import Result

__all__ = ["LOST", "Member", "RaceResult"]

LOST = "stopped"  # a member killed because another won


@dataclass(frozen=True)
class Member:
    """What became of one member: its own verified result if it answered, else ``stopped`` when another won."""

    solver: str
    status: str  # a Status, or LOST
    seconds: float  # its solver call's seconds if it answered, else the race's seconds (it ran until stopped)
    result: Result | None  # None when stopped

    def to_dict(self) -> dict[str, Any]:
        return {
            "solver": self.solver,
            "status": self.status,
            "seconds": self.seconds,
            "verified": None if self.result is None else self.result.verified,
            "reason": None if self.result is None else self.result.reason,
        }


@dataclass(frozen=True)
class RaceResult:
    """A race: the winner's verified result (None if no member decided), each member's outcome, the time."""

    problem: Problem
    winner: Result | None
    members: tuple[Member, ...]
    seconds: float  # the winner's solver call (the clock of any single run); else the longest member's
    core_seconds: float  # each member's seconds, added: the cores the race held
    overhead_seconds: float  # the rest of the race's wall time: sending, the answer's way back, verifying, killing

    @property
    def decided(self) -> bool:
        return self.winner is not None

    @property
    def status(self) -> str:
        """The winner's status; else ``undecided``."""
        return str(self.winner.status) if self.winner is not None else "undecided"

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.problem.n,
            "instance": self.problem.source,
            "status": self.status,
            "winner": None if self.winner is None else self.winner.solver,
            "seconds": self.seconds,
            "core_seconds": self.core_seconds,
            "overhead_seconds": self.overhead_seconds,
            "members": [member.to_dict() for member in self.members],
        }
