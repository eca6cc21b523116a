"""Text made safe for the place it is printed (``views/escaping.py``): properties over arbitrary text."""

from __future__ import annotations

import json
import math
import re

from hypothesis import given
from hypothesis import strategies as st

from nqueens_plugins.views.escaping import for_csv, for_markdown, for_terminal, strict_json


@given(st.text())
def test_the_terminal_gets_only_printable_characters(text: str) -> None:
    shown = for_terminal(text)
    assert shown.isprintable()
    if text.isprintable():
        assert shown == text  # ordinary names are left as they are


@given(st.text())
def test_a_markdown_cell_stays_one_cell_on_one_line_without_html(text: str) -> None:
    cell = for_markdown(text)
    assert "\n" not in cell and "<" not in cell
    assert not re.search(r"(?<!\\)(\\\\)*\|", cell)  # every | escaped by an odd run of backslashes


@given(st.text())
def test_a_csv_cell_never_starts_a_formula(text: str) -> None:
    cell = for_csv(text)
    assert not cell.startswith(("=", "+", "@", "\t", "\r")) or cell == text and re.fullmatch(r"[+-][\d.eE+-]+", text)
    if cell.startswith("-"):
        float(cell)  # only a number keeps a leading minus


@given(
    st.recursive(
        st.floats() | st.integers() | st.text() | st.none(),
        lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    )
)
def test_strict_json_writes_only_json(value: object) -> None:
    def refuse(token: str) -> None:
        raise ValueError(token)

    parsed = json.loads(strict_json(value), parse_constant=refuse)
    if isinstance(value, float) and not math.isfinite(value):
        assert parsed is None
