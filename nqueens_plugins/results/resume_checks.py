"""Results layer, parent side: what a resumed file's kept answers are worth, judged against answers made again now.

A count's pieces file (``count --out``) and a tune's results file (``tune --out``) are
handed on and edited; ``--resume`` adds what they hold to a count or feeds it to a race
without running it again. Nothing in a line says whether it was forged, so on resume
a sample of the kept answers is made again through the same execution service and
compared here: a forger cannot know which ones, because the sample is drawn from the
operating system's randomness (``random.SystemRandom``), never from the file or the
command's seed. A kept answer that the run made again contradicts refuses the whole
file (``RejectedFile``, exit status 3 as a rejected answer is).

The share re-made is ``--verify-resumed FRACTION``: ``DEFAULT_FRACTION`` (10 %) of
the kept answers, at least one; 1 re-makes them all; 0 trusts the file. A count whose
total has a published answer (OEIS, a plain board) is checked by that total instead.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import Status
from nqueens_plugins.results.elimination import decided

DEFAULT_FRACTION = 0.1  # a tenth of what a resume keeps is made again: a forged line among ten is caught 1 time in 10
# a seeded built-in solver makes the same run again step by step; any other solver's numbers, and every
# solver's seconds, may move with the machine: two of them are told apart only past this factor
NOISE_FACTOR = 10.0
SECONDS_SLACK = 1.0  # seconds two runs may differ by whatever their ratio (a run of 0.001 s against 0.05 s)
MAX_ITERATIONS = 2**63 - 1  # a run's iterations as a solver counts them: a 64-bit whole number

T = TypeVar("T")


def check_fraction(fraction: Any, flag: str = "--verify-resumed") -> float:
    """The share of kept answers to make again, checked: a number from 0 to 1 (BadInput otherwise)."""
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 <= fraction <= 1:
        raise BadInput(f"{flag} is a fraction from 0 (trust the file) to 1 (check every kept answer), not {fraction!r}")
    return float(fraction)


def sample_size(kept: int, fraction: float) -> int:
    """How many of ``kept`` answers to make again: ``fraction`` of them rounded up, at least one when any
    is kept and the fraction is not 0 (a resume of a single kept answer checks it), never more than kept."""
    if kept <= 0 or fraction <= 0:
        return 0
    return min(kept, max(1, math.ceil(fraction * kept - 1e-9)))


def draw_sample(kept: Iterable[T], fraction: float, chooser: random.Random | None = None) -> list[T]:
    """The kept answers to make again, drawn at random by the operating system (``SystemRandom``, unless a
    test passes its own ``chooser``): nothing in the file or the command says which."""
    items: Sequence[T] = list(kept)
    size = sample_size(len(items), fraction)
    return (chooser or random.SystemRandom()).sample(list(items), size) if size else []


def absurd_numbers(record: Mapping[str, Any], timeout: float | None) -> str | None:
    """Why a kept run's numbers cannot be a run's, or None: its iterations (``absurd_iterations``), and
    its seconds, which under a time limit cannot pass ``NOISE_FACTOR`` times it plus a minute (a run is
    killed from outside soon after its limit; the reader takes any finite number, such as 1e300, which
    would sink a configuration in a time-based race)."""
    absurd = absurd_iterations(record)
    if absurd is not None:
        return absurd
    seconds = record.get("seconds")
    if timeout is not None and isinstance(seconds, (int, float)) and seconds > NOISE_FACTOR * timeout + 60:
        return f"{seconds:.3g} seconds under a time limit of {timeout:g} s"
    return None


def absurd_iterations(record: Mapping[str, Any]) -> str | None:
    """Why a kept run's iterations cannot be a run's, or None: they are null or a whole number from 0 to
    ``MAX_ITERATIONS`` (the results file's reader takes any finite number, such as 1e30, which would
    decide an ``ert-iterations`` race by itself)."""
    value = record.get("iterations")
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ITERATIONS:
        shown = f"{value:.3g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else repr(value)[:40]
        return f"iterations {shown} is not a whole number from 0 to 2^63 - 1"
    return None


def run_mismatch(
    kept: Mapping[str, Any], again: Mapping[str, Any], timeout: float | None, *, deterministic: bool
) -> str | None:
    """How a kept run differs from the same run made again now (same solver options, board, seed and
    trial), or None when they agree within noise:

    - the status must be the same, unless one of them ran out of time and the other took at least
      1/``NOISE_FACTOR`` of the time limit (a loaded machine may push a run past its limit);
    - a ``deterministic`` solver (the built-ins: seeded, the same steps on any machine) must take exactly
      the same iterations when both runs are decided; any other solver within ``NOISE_FACTOR`` either way;
    - decided runs' seconds within ``NOISE_FACTOR`` either way, or within ``SECONDS_SLACK``.
    """
    status, fresh = kept.get("status"), again.get("status")
    if status != fresh:
        undecided = {status, fresh} & {Status.TIMED_OUT}
        other = again if status == Status.TIMED_OUT else kept
        near_limit = timeout is not None and float(other.get("seconds") or 0.0) * NOISE_FACTOR >= timeout
        if not (undecided and near_limit):
            return f"status {status}, made again: {fresh}"
        return None
    if not (decided(kept) and decided(again)):
        return None
    mine, theirs = kept.get("iterations"), again.get("iterations")
    if isinstance(mine, (int, float)) and isinstance(theirs, (int, float)):
        if deterministic and mine != theirs:
            return f"{mine:,} iterations, made again: {theirs:,} (a seeded built-in solver repeats its steps)"
        if not deterministic and not within(float(mine), float(theirs), 0.0):
            return f"{mine:,} iterations, made again: {theirs:,}"
    seconds, again_seconds = float(kept.get("seconds") or 0.0), float(again.get("seconds") or 0.0)
    if not within(seconds, again_seconds, SECONDS_SLACK):
        return f"{seconds:.3g} s, made again: {again_seconds:.3g} s"
    return None


def within(first: float, second: float, slack: float) -> bool:
    """Whether two measures agree within ``NOISE_FACTOR`` either way, or differ by at most ``slack``."""
    if abs(first - second) <= slack:
        return True
    low, high = sorted((first, second))
    return low > 0 and high <= low * NOISE_FACTOR
