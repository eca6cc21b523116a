"""Formats layer, parent side: boards drawn as SVG for notebooks (``Result._repr_svg_``), reports, animations.

Plain SVG text, no library: a checkered board, queens as filled discs (hollow
for fixed queens), blocked squares hatched grey, and queens that another queen
attacks ringed in red, so a board that is not a solution says where.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape

import numpy as np

MAX_DRAWN = 64  # larger boards are not drawn square by square
LIGHT, DARK, QUEEN, ATTACKED, BLOCKED = "#f0d9b5", "#b58863", "#1b1b1b", "#d62728", "#8c8c8c"


def lines_of(queens: Sequence[int] | np.ndarray) -> list[dict[int, list[int]]]:
    """The columns of the queens on each row, diagonal and anti-diagonal (-1: an empty column)."""
    rows: dict[int, list[int]] = {}
    diagonals: dict[int, list[int]] = {}
    anti: dict[int, list[int]] = {}
    for column, row in enumerate(int(r) for r in queens):
        if row >= 0:
            rows.setdefault(row, []).append(column)
            diagonals.setdefault(row + column, []).append(column)
            anti.setdefault(row - column, []).append(column)
    return [rows, diagonals, anti]


def attacked_columns(queens: Sequence[int] | np.ndarray) -> set[int]:
    """Columns whose queen shares a row or a diagonal with another queen."""
    return {c for lines in lines_of(queens) for columns in lines.values() if len(columns) > 1 for c in columns}


def attacking_pairs(queens: Sequence[int] | np.ndarray) -> int:
    """Pairs of queens that attack each other (the cost the local-search methods minimise)."""
    return sum(len(columns) * (len(columns) - 1) // 2 for lines in lines_of(queens) for columns in lines.values())


def board_svg(
    queens: Sequence[int] | np.ndarray | None,
    n: int | None = None,
    fixed: Mapping[int, int] | None = None,
    blocked: Iterable[tuple[int, int]] = (),
    size: int = 240,
    title: str | None = None,
) -> str:
    """An n x n board, column c left to right, row 0 at the top (as the text boards are drawn)."""
    n = len(queens) if queens is not None else (n or 0)
    if n > MAX_DRAWN:
        raise ValueError(f"boards above {MAX_DRAWN} x {MAX_DRAWN} are not drawn")
    cell = size / max(n, 1)
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}" role="img">'
    parts = [svg]
    if title:
        parts.append(f"<title>{escape(title)}</title>")
    for row in range(n):
        for column in range(n):
            colour = LIGHT if (row + column) % 2 == 0 else DARK
            parts.append(
                f'<rect x="{column * cell:.2f}" y="{row * cell:.2f}" width="{cell:.2f}" height="{cell:.2f}" '
                f'fill="{colour}"/>'
            )
    for column, row in blocked:
        parts.append(
            f'<rect x="{column * cell:.2f}" y="{row * cell:.2f}" width="{cell:.2f}" height="{cell:.2f}" '
            f'fill="{BLOCKED}" opacity="0.85"/>'
        )
    if queens is not None:
        attacked = attacked_columns(queens)
        fixed = fixed or {}
        radius = cell * 0.32
        for column, row in enumerate(int(r) for r in queens):
            x, y = (column + 0.5) * cell, (row + 0.5) * cell
            hollow = column in fixed
            fill = "none" if hollow else QUEEN
            parts.append(
                f'<circle cx="{x:.2f}" cy="{y:.2f}" r="{radius:.2f}" fill="{fill}" stroke="{QUEEN}" '
                f'stroke-width="{max(cell * 0.06, 1):.2f}"/>'
            )
            if column in attacked:
                parts.append(
                    f'<circle cx="{x:.2f}" cy="{y:.2f}" r="{cell * 0.45:.2f}" fill="none" stroke="{ATTACKED}" '
                    f'stroke-width="{max(cell * 0.08, 1.5):.2f}" class="attacked"/>'
                )
    parts.append("</svg>")
    return "".join(parts)
