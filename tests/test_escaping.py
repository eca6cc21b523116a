"""Text made safe for the place it is printed (``views/escaping.py``): properties over arbitrary text."""

from __future__ import annotations

import html
import json
import math
import os
import re
import urllib.parse
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from nqueens_plugins.views.escaping import for_csv, for_href, for_markdown, for_terminal, strict_json


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


NAMES = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00/"), min_size=1, max_size=20)


@given(st.lists(NAMES, min_size=1, max_size=3), st.booleans())
def test_a_link_to_a_local_file_names_that_file_and_nothing_else(parts: list[str], below: bool) -> None:
    """A kept proof's name from a results file: the href stays in its attribute, carries no scheme but
    ``file:``, and leads back to the file, relative to the page's folder when the file is below it."""
    page_folder = Path("/reports/site")
    target = (page_folder if below else Path("/elsewhere")).joinpath(*parts)  # ".." and "." included
    href = for_href(target, page_folder)
    assert not set("\"<>'") & set(href) and " " not in href
    url = html.unescape(href)
    scheme = re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", url)
    assert scheme is None or scheme.group() == "file:"
    where = os.path.abspath(target)
    if scheme is None:  # relative: resolved against the page's folder, it is the file
        assert os.path.abspath(page_folder / urllib.parse.unquote(url)) == where
    else:
        assert urllib.parse.unquote(url.removeprefix("file://")) == where


def test_a_link_to_a_local_file_is_relative_only_below_the_page() -> None:
    assert for_href("/reports/site/proofs/a b.drat", "/reports/site") == "proofs/a%20b.drat"
    assert for_href("/reports/site/../x.drat", "/reports/site") == "file:///reports/x.drat"
    assert for_href('/reports/site/j:s"<.drat', "/reports/site") == "j%3As%22%3C.drat"
