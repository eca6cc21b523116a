"""Formats layer, parent side: what users type. Sizes, size lists, fixed queens, blocked squares (limits: ``core.limits``).

Every failure is a BadInput.

These are shared by the CLI and the Python API, so both refuse the same things
with the same words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import Problem

MAX_N = 2**31 - 1  # rows fit int32 (the lean boards); each solver may set a lower max_n or refuse by memory
MAX_SIZES = 10_000  # sizes in one comparison


def parse_size(value: object) -> int:
    """A board size: a whole number from 1 to MAX_N."""
    if isinstance(value, bool):
        raise BadInput(f"board size must be a whole number, not {value!r}")
    if isinstance(value, int):
        n = value
    else:
        text = str(value).strip()
        if not re.fullmatch(r"[+-]?[0-9]+", text):  # ASCII digits only: not 8_0, not a full-width ８
            raise BadInput(f"board size must be a whole number, not {value!r}")
        if len(text.lstrip("+-")) > 12:  # int() of thousands of digits is slow, then refused anyway
            raise BadInput(f"board size must be at most {MAX_N:,}, not a {len(text)}-digit number")
        n = int(text)
    if n < 1:
        raise BadInput(f"board size must be at least 1, not {n}")
    if n > MAX_N:
        raise BadInput(f"board size must be at most {MAX_N:,}, not {n:,}")
    return n


RANGE = re.compile(r"^\s*([0-9]+)\s*\.\.\s*([0-9]+)\s*(?::\s*([0-9]+)\s*)?$")


def solver_spec(value: object) -> str:
    if not isinstance(value, str):
        raise BadInput(f"a solver is named by a string such as 'min-conflicts', not {value!r}")
    return value


def parse_sizes(text: str) -> list[int]:
    """``8,16,32`` or ``4..40:4`` (start..stop:step, stop included) or a mix, in order, no repeats."""
    sizes: list[int] = []
    if not text.strip():
        raise BadInput("no board sizes given")
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise BadInput(f"empty size in {text!r}")
        if ".." in part:
            match = RANGE.match(part)
            if not match:
                raise BadInput(f"cannot read size range {part!r}: expected START..STOP or START..STOP:STEP")
            start, stop = parse_size(match.group(1)), parse_size(match.group(2))
            step = int(match.group(3) or 1)
            if step < 1:
                raise BadInput(f"size range {part!r} needs a step of at least 1")
            if stop < start:
                raise BadInput(f"size range {part!r} is empty (stop below start)")
            if (stop - start) // step + 1 > MAX_SIZES:
                raise BadInput(f"size range {part!r} has more than {MAX_SIZES:,} sizes")
            sizes.extend(range(start, stop + 1, step))
        else:
            sizes.append(parse_size(part))
        if len(sizes) > MAX_SIZES:
            raise BadInput(f"sizes {text!r} give more than {MAX_SIZES:,} boards")
    return list(dict.fromkeys(sizes))


def parse_squares(text: str | None, what: str) -> list[tuple[int, int]]:
    """``C:R,C:R`` (0-based column:row) into a list of squares; positions are checked by make_problem."""
    if text is None or not text.strip():
        return []
    squares = []
    for item in text.split(","):
        match = re.fullmatch(r"\s*([0-9]{1,9})\s*:\s*([0-9]{1,9})\s*", item)
        if not match:
            raise BadInput(f"cannot read {what} {item.strip()!r}: expected COLUMN:ROW, 0-based")
        squares.append((int(match.group(1)), int(match.group(2))))
    return squares


def parse_fixed(text: str | None) -> dict[int, int]:
    """``C:R,C:R`` (0-based column:row) into a mapping column -> row."""
    fixed: dict[int, int] = {}
    for column, row in parse_squares(text, "fixed queen"):
        if column in fixed:
            raise BadInput(f"two fixed queens in column {column}")
        fixed[column] = row
    return fixed


def parse_blocked(text: str | None) -> list[tuple[int, int]]:
    """``C:R,C:R`` (0-based column:row): squares where no queen may stand."""
    return parse_squares(text, "blocked square")


def whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def make_problem(
    n: object,
    fixed: Mapping[Any, Any] | None = None,
    blocked: Iterable[Any] = (),
    source: str | None = None,
) -> Problem:
    """A validated Problem: a good size, fixed queens and blocked squares on the board.

    Fixed queens that attack each other, or stand on a blocked square, are
    accepted: as in CSPLib, such an instance simply has no solution.
    """
    size = parse_size(n)
    if fixed is not None and not isinstance(fixed, Mapping):
        raise BadInput(f"fixed queens are a mapping column -> row, not {type(fixed).__name__}")
    clean: dict[int, int] = {}
    for column, row in (fixed or {}).items():
        if not whole(column) or not whole(row):
            raise BadInput(f"fixed queens map whole-number columns to rows, not {column!r}: {row!r}")
        if not (0 <= column < size and 0 <= row < size):
            raise BadInput(f"fixed queen {column}:{row} is off the {size}x{size} board")
        clean[column] = row
    squares = set()
    for square in blocked:
        if not isinstance(square, (tuple, list)) or len(square) != 2 or not all(whole(v) for v in square):
            raise BadInput(f"a blocked square is a (column, row) pair of whole numbers, not {square!r}")
        column, row = square
        if not (0 <= column < size and 0 <= row < size):
            raise BadInput(f"blocked square {column}:{row} is off the {size}x{size} board")
        squares.add((column, row))
    return Problem(size, clean, frozenset(squares), source)


BUDGET = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(s|m|h)?\s*$")
BUDGET_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0}
MAX_BUDGET_RUNS = 10_000_000
SPACE_FILE_LIMIT = 64 << 10  # bytes: a space is a few lines


def parse_budget(value: object) -> tuple[int | None, float | None]:
    """A tune's budget: a number of runs (``500``) or of the solver's seconds (``600s``, ``10m``, ``2h``);
    returned as (runs, seconds), one of them None."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise BadInput(f"a budget is a number of runs (such as 500) or of seconds (such as 600s), not {value!r}")
    if isinstance(value, int):
        runs = value
    else:
        match = BUDGET.match(value)
        if not match:
            raise BadInput(f"a budget is a number of runs (such as 500) or of seconds (such as 600s), not {value!r}")
        if match.group(2):
            seconds = float(match.group(1)) * BUDGET_UNITS[match.group(2)]
            if seconds <= 0 or seconds > 1e9:
                raise BadInput(f"a budget of seconds must be above 0 and at most 10^9, not {value!r}")
            return None, seconds
        if "." in match.group(1):
            raise BadInput(f"a budget of runs is a whole number, not {value!r} (seconds are written 600s)")
        if len(match.group(1)) > 12:
            raise BadInput(f"a budget of runs must be at most {MAX_BUDGET_RUNS:,}, not {value!r}")
        runs = int(match.group(1))
    if not 1 <= runs <= MAX_BUDGET_RUNS:
        raise BadInput(f"a budget of runs must be from 1 to {MAX_BUDGET_RUNS:,}, not {runs}")
    return runs, None
