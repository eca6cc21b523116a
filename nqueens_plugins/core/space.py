"""Core layer, any process: a tuning space, the ranges a tuner may try for a solver's declared options.

Written as ``name=LOW..HIGH`` (a number option; ``:log`` samples it on a log
scale, as irace's ``log`` and Optuna's ``log=True`` do), ``name=a|b|c`` (the
values to choose from, any option type) or ``name=value`` (held fixed), items
separated by commas or new lines, ``#`` starting a comment (so a space can live
in a file). Every item is checked against the option it names before any run:
the name must be the solver's, a range must lie inside the option's bounds and
be of its type, and the space must hold more than one point.

A configuration is a dict of option values. Its ``label`` is the spec
``nqueens -s`` takes as it is (``simulated-annealing[cooling=0.9712,t0=103.2]``);
sampled floats are kept to ``DIGITS`` significant digits (irace's default), so
labels stay readable and two samples that round alike are one configuration.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.solver import Option, format_value

DIGITS = 4  # significant digits a sampled float keeps (irace's --digits default)
RANGE = re.compile(r"^(?P<low>[^.].*?)\.\.(?P<high>[^:]+?)(?::(?P<scale>[a-z]+))?$")
KINDS = ("float", "int", "choice")

Config = Mapping[str, Any]


@dataclass(frozen=True)
class Parameter:
    """One option a tuner varies: a number range (``low``..``high``, ``log`` or not) or a set of ``choices``."""

    name: str
    kind: str  # "float", "int" or "choice"
    low: float | None = None
    high: float | None = None
    log: bool = False
    choices: tuple[Any, ...] = ()

    def rounded(self, value: float) -> Any:
        """A sampled number as the configuration keeps it: an int, or a float of ``DIGITS`` digits, in range."""
        assert self.low is not None and self.high is not None
        value = min(max(value, self.low), self.high)
        if self.kind == "int":
            return int(min(max(round(value), math.ceil(self.low)), math.floor(self.high)))
        return float(f"{value:.{DIGITS}g}")

    def describe(self) -> dict[str, Any]:
        """What a results file's header keeps, so a report can replay the race without the solver."""
        if self.kind == "choice":
            return {"name": self.name, "kind": self.kind, "choices": list(self.choices)}
        return {"name": self.name, "kind": self.kind, "low": self.low, "high": self.high, "log": self.log}

    @classmethod
    def from_description(cls, item: Any) -> Parameter:
        """The inverse of ``describe``, for a header someone else may have written: BadInput if it is wrong."""
        if not isinstance(item, dict) or item.get("kind") not in KINDS or not isinstance(item.get("name"), str):
            raise BadInput("the tune header's space is not a list of parameters")
        if item["kind"] == "choice":
            choices = item.get("choices")
            if not isinstance(choices, list) or len(choices) < 2 or len(choices) > 1000:
                raise BadInput(f"the tune header's parameter {item['name']!r} has no list of choices")
            if not all(isinstance(c, (str, bool)) or _finite(c) for c in choices):
                raise BadInput(f"the tune header's parameter {item['name']!r} has a choice that is not a value")
            return cls(item["name"], "choice", choices=tuple(choices))
        low, high = item.get("low"), item.get("high")
        if not (isinstance(low, (int, float)) and isinstance(high, (int, float))):
            raise BadInput(f"the tune header's parameter {item['name']!r} has no finite range")
        if not (_finite(low) and _finite(high)) or not low < high or not isinstance(item.get("log"), bool):
            raise BadInput(f"the tune header's parameter {item['name']!r} has no finite range")
        if item["log"] and low <= 0:
            raise BadInput(f"the tune header's parameter {item['name']!r} has a log range that is not positive")
        return cls(item["name"], item["kind"], float(low), float(high), item["log"])


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class Space:
    """The parameters a tuner varies and the options it holds fixed, for one solver."""

    solver: str
    parameters: tuple[Parameter, ...]
    fixed: Mapping[str, Any]
    order: tuple[str, ...]  # every option named, in the solver's declared order (the order of its labels)

    def label(self, config: Config) -> str:
        """The spec of a configuration, as the solver labels it (``Variant.label``: options in declared order)."""
        values = {**self.fixed, **config}
        return f"{self.solver}[{','.join(f'{k}={format_value(values[k])}' for k in self.order)}]"

    @property
    def baseline(self) -> str:
        """What a tuned configuration is tested against: the solver's defaults, with the options the space
        holds fixed (a step limit chosen for the tune applies to both sides)."""
        if not self.fixed:
            return self.solver
        return f"{self.solver}[{','.join(f'{k}={format_value(self.fixed[k])}' for k in self.order if k in self.fixed)}]"

    def describe(self) -> dict[str, Any]:
        return {
            "solver": self.solver,
            "parameters": [p.describe() for p in self.parameters],
            "fixed": dict(self.fixed),
            "order": list(self.order),
        }

    @classmethod
    def from_description(cls, item: Any) -> Space:
        if not isinstance(item, dict) or not isinstance(item.get("solver"), str):
            raise BadInput("the tune header has no space")
        raw, fixed, order = item.get("parameters"), item.get("fixed"), item.get("order")
        if not isinstance(raw, list) or not 1 <= len(raw) <= 100 or not isinstance(fixed, dict):
            raise BadInput("the tune header's space is not a list of parameters")
        parameters = tuple(Parameter.from_description(p) for p in raw)
        names = [p.name for p in parameters] + list(fixed)
        if not isinstance(order, list) or sorted(order) != sorted(names) or len(set(names)) != len(names):
            raise BadInput("the tune header's space names its options in no consistent order")
        return cls(item["solver"], parameters, dict(fixed), tuple(order))


def parse_space(text: str, solver: str, options: Sequence[Option]) -> Space:
    """Read a space for ``solver`` (whose declared ``options`` type every value): BadInput, one line, if wrong."""
    declared = {option.name: option for option in options}
    parameters: list[Parameter] = []
    fixed: dict[str, Any] = {}
    seen: set[str] = set()
    for item in space_items(text):
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name or not value:
            raise BadInput(f"cannot read {item!r} in the space: expected name=LOW..HIGH, name=a|b or name=value")
        option = declared.get(name)
        if option is None:
            known = ", ".join(declared) or "none"
            raise BadInput(f"{solver} has no option {name!r} (its options: {known})")
        if name in seen:
            raise BadInput(f"option {name!r} is given twice in the space")
        seen.add(name)
        if "|" in value:
            parameters.append(choice_parameter(option, value, solver))
        elif ".." in value and option.type in (int, float):
            parameters.append(range_parameter(option, value, solver))
        elif ".." in value:
            raise BadInput(f"option {name!r} of {solver} is a {option.describe_type()}: it takes no range {value!r}")
        else:
            fixed[name] = option.parse(value, solver)
    if not parameters:
        raise BadInput("the space varies nothing: give a range (name=LOW..HIGH) or choices (name=a|b) for an option")
    order = tuple(name for name in declared if name in seen)
    return Space(solver, tuple(parameters), fixed, order)


def space_items(text: str) -> list[str]:
    """The items of a space's text: split on commas and new lines, comments and blank items dropped."""
    items: list[str] = []
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        items.extend(part.strip() for part in line.split(",") if part.strip())
    if not items:
        raise BadInput("the space is empty: give name=LOW..HIGH or name=a|b for the options to tune")
    return items


def choice_parameter(option: Option, value: str, solver: str) -> Parameter:
    values = [option.parse(part.strip(), solver) for part in value.split("|")]
    if any(not part.strip() for part in value.split("|")):
        raise BadInput(f"option {option.name!r} has an empty choice in {value!r}")
    unique = list(dict.fromkeys(values))
    if len(unique) < 2:
        raise BadInput(f"option {option.name!r} is given one value twice ({value!r}): a choice needs two")
    return Parameter(option.name, "choice", choices=tuple(unique))


def range_parameter(option: Option, value: str, solver: str) -> Parameter:
    match = RANGE.match(value)
    if match is None:
        raise BadInput(
            f"cannot read the range {value!r} of option {option.name!r}: expected LOW..HIGH or LOW..HIGH:log"
        )
    low, high = option.parse(match["low"].strip(), solver), option.parse(match["high"].strip(), solver)
    scale = match["scale"]
    if scale not in (None, "log"):
        raise BadInput(f"option {option.name!r}: unknown scale {scale!r} in {value!r} (only :log)")
    if low is None or high is None:
        raise BadInput(f"option {option.name!r}: a range needs two numbers, not {value!r}")
    if not low < high:
        raise BadInput(f"option {option.name!r}: the range {value!r} is empty (its low end must be below its high end)")
    if scale == "log" and low <= 0:
        raise BadInput(f"option {option.name!r}: a log range must be above 0, not {value!r}")
    kind = "int" if option.type is int else "float"
    return Parameter(option.name, kind, float(low), float(high), scale == "log")
