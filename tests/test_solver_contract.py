"""Options, variants and the spec syntax NAME[key=value,...]."""

from __future__ import annotations

import pytest

from nqueens_plugins import BadInput, Option, Solver
from nqueens_plugins.core.solver import parse_spec, resolve_options, split_specs


class Tunable(Solver):
    name = "tunable"
    summary = "A solver with one option of each type."
    options = (
        Option("flag", bool, False, "a switch"),
        Option("steps", int, 10, "a count", minimum=1),
        Option("rate", float, 0.5, "a number", minimum=0.0, maximum=1.0),
        Option("mode", str, "a", "a choice", choices=("a", "b")),
        Option("limit", int, None, "optional"),
    )


def test_spec_parsing() -> None:
    assert parse_spec("min-conflicts") == ("min-conflicts", {})
    assert parse_spec("simulated-annealing[cooling=0.99, max_steps=10]") == (
        "simulated-annealing",
        {"cooling": "0.99", "max_steps": "10"},
    )
    assert split_specs("a,b[x=1,y=2],c") == ["a", "b[x=1,y=2]", "c"]


@pytest.mark.parametrize("spec", ["a[x]", "a[x=1,x=2]", "[x=1]", "a b", ""])
def test_bad_specs(spec: str) -> None:
    with pytest.raises(BadInput):
        parse_spec(spec)


@pytest.mark.parametrize("text", ["a[x=1", "a]", "a,,b", ","])
def test_bad_spec_lists(text: str) -> None:
    with pytest.raises(BadInput):
        split_specs(text)


def test_options_are_typed_and_defaulted() -> None:
    variant = resolve_options(Tunable(), {"flag": "true", "steps": "3", "rate": "0.25", "mode": "b"})
    assert variant.options == {"flag": True, "steps": 3, "rate": 0.25, "mode": "b", "limit": None}
    assert variant.label == "tunable[flag=true,steps=3,rate=0.25,mode=b]"
    assert resolve_options(Tunable(), {}).label == "tunable"
    assert resolve_options(Tunable(), {"limit": "none"}).options["limit"] is None


@pytest.mark.parametrize(
    "raw, words",
    [
        ({"steps": "x"}, "whole number"),
        ({"steps": "0"}, "at least 1"),
        ({"steps": "1.5"}, "whole number"),
        ({"rate": "2"}, "at most 1"),
        ({"rate": "nan"}, "finite"),
        ({"flag": "maybe"}, "true or false"),
        ({"mode": "c"}, "one of a, b"),
        ({"other": "1"}, "has no option 'other'"),
        ({"steps": "none"}, "needs a value"),
    ],
)
def test_bad_options_are_bad_input(raw: dict[str, str], words: str) -> None:
    with pytest.raises(BadInput, match=words):
        resolve_options(Tunable(), raw)
