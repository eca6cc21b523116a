"""``compare`` and ``compare_stream`` take one set of keywords, written once (``api.CompareKeywords``), and still
show each keyword to ``help()`` as a signature written out would."""

from __future__ import annotations

import inspect

import pytest

import nqueens_plugins as nq
from nqueens_plugins import api


def test_compare_and_compare_stream_show_the_same_keywords_with_their_defaults() -> None:
    shown = inspect.signature(nq.compare).parameters
    assert shown == inspect.signature(nq.compare_stream).parameters
    assert list(shown)[:3] == ["solvers", "boards", "trials"]
    assert shown["keep_queens"].default is False and shown["keep_queens"].kind is inspect.Parameter.KEYWORD_ONLY
    assert shown["limits"].default is None and shown["limit_keywords"].kind is inspect.Parameter.VAR_KEYWORD
    assert "keep_queens: bool = False" in inspect.getdoc(nq.compare) or "keep_queens" in str(
        inspect.signature(nq.compare)
    )


def test_every_keyword_has_its_default_and_a_type() -> None:
    """The defaults and the TypedDict name the same keywords: one written without the other fails here."""
    own = [name for name in api.CompareKeywords.__annotations__ if name not in api.LIMIT_NAMES]
    assert own == list(api.COMPARE_DEFAULTS)


def test_a_misspelt_keyword_is_still_a_type_error_naming_it() -> None:
    with pytest.raises(TypeError, match="'keep_queen'"):
        nq.compare_stream(["min-conflicts"], 6, keep_queen=True)
