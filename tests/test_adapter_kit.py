"""The adapter kit (``Adapter``, ``Requirement``, ``SizeLimit``) and the surface plugins import.

A solver that wraps a library declares what it needs installed, how large a board each option takes
and what one enumerated solution costs; the kit turns that into ``precheck`` and ``count_seconds``.
The eight shipped adapters use it, and import nothing of the host but ``nqueens_plugins`` and
``nqueens_plugins.testing``.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest

import nqueens_plugins as nq
from nqueens_plugins import (
    Adapter,
    BadInput,
    Budget,
    Option,
    Outcome,
    Problem,
    Requirement,
    SizeLimit,
    Status,
)
from nqueens_plugins.core import verify
from nqueens_plugins.core.adapter_kit import GROWTH_PAST_TABLE, solutions_estimate
from nqueens_plugins.formats import published

PLUGINS = Path(__file__).resolve().parent.parent / "plugins"
NOT_INSTALLED = "nqueens_kit_test_library_that_is_not_installed"
PUBLIC_MODULES = {"nqueens_plugins", "nqueens_plugins.testing"}


class Wrapped(Adapter):
    """A stand-in for an adapter: a library (json, always installed), two models of different sizes."""

    name = "kit-wrapped"
    summary = "A stand-in for a library adapter."
    complete = True
    supports_blocked = True
    requires: ClassVar[tuple[Requirement, ...]] = (
        Requirement("kit-wrapped needs json: it ships with Python", module="json"),
    )
    size_limits: ClassVar[tuple[SizeLimit, ...]] = (
        SizeLimit({"dense": 50, "sparse": 200}, {"dense": "n^2 variables"}, option="model"),
        SizeLimit(120, "the library's own limit"),
    )
    max_n = 300
    options = (
        Option("model", str, "dense", "dense, sparse or lean", choices=("dense", "sparse", "lean")),
        Option("fast", bool, True, "a faster count"),
    )

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        return Outcome(Status.GAVE_UP)

    def seconds_per_solution(self, n: int, options: Mapping[str, Any]) -> float:
        return 0.001 if options["fast"] else 0.01

    def count_setup_seconds(self, n: int, options: Mapping[str, Any]) -> float:
        return 2.0


def options(**given: Any) -> dict[str, Any]:
    return {o.name: o.default for o in Wrapped.options} | given


def test_a_missing_module_or_program_is_refused_with_its_hint() -> None:
    assert Wrapped().precheck(8, options()) is None  # json is installed
    missing = Requirement("needs the thing: pip install thing", module=NOT_INSTALLED)
    absent_program = Requirement("needs the binary: apt-get install thing", program=NOT_INSTALLED)
    assert missing.missing() and absent_program.missing()
    assert not Requirement("sh", program="sh").missing() and not Requirement("json", module="json").missing()
    assert not Requirement("a submodule", module="json.decoder").missing()
    assert Requirement("a missing parent", module=f"{NOT_INSTALLED}.sub").missing()

    class Needy(Wrapped):
        requires = (Wrapped.requires[0], missing, absent_program)

    assert Needy().precheck(8, options()) == "needs the thing: pip install thing"  # the first missing one


def test_a_requirement_names_a_module_or_a_program() -> None:
    for neither_or_both in ({}, {"module": "json", "program": "sh"}):
        with pytest.raises(ValueError, match="a module or a program"):
            Requirement("hint", **neither_or_both)


def test_a_size_limit_names_the_variant_why_and_the_value_that_takes_the_board() -> None:
    solver = Wrapped()
    assert solver.precheck(50, options()) is None
    assert solver.precheck(51, options()) == (
        "kit-wrapped[model=dense] accepts n up to 50 (n^2 variables); 51 is too large: model=sparse takes n up to 120"
    )  # sparse's own 200 is cut to 120 by the solver's second limit
    assert str(solver.precheck(121, options())).endswith("121 is too large")  # no value takes it
    # Past every value's limit no value is offered; a value with no reason gives none.
    assert (
        solver.precheck(1_000, options(model="sparse"))
        == "kit-wrapped[model=sparse] accepts n up to 200; 1,000 is too large"
    )


def test_an_option_value_without_a_limit_is_held_to_the_solvers_own_limits() -> None:
    solver = Wrapped()
    assert solver.precheck(120, options(model="lean")) is None
    assert solver.precheck(121, options(model="lean")) == (
        "kit-wrapped accepts n up to 120 (the library's own limit); 121 is too large"
    )

    class Unbounded(Wrapped):
        size_limits = (Wrapped.size_limits[0],)

    # Not listed, "lean" is offered up to max_n; past max_n the host's own line says so.
    assert Unbounded().precheck(250, options()) == (
        "kit-wrapped[model=dense] accepts n up to 50 (n^2 variables); 250 is too large: model=lean takes n up to 300"
    )
    assert Unbounded().precheck(301, options(model="lean")) == "kit-wrapped accepts n up to 300; 301 is too large"


def test_the_count_estimate_is_the_solutions_times_the_seconds_each() -> None:
    solver = Wrapped()
    assert solver.count_seconds(Problem(8), options()) == pytest.approx(92 * 0.001 + 2.0)
    assert solver.count_seconds(Problem(12), options(fast=False)) == pytest.approx(14_200 * 0.01 + 2.0)
    assert solver.count_seconds(Problem(8, fixed={0: 0}), options()) is None  # how many solutions: not known
    assert solver.count_seconds(Problem(8, blocked=frozenset({(0, 0)})), options()) is None
    assert Adapter.count_seconds(solver, Problem(8), options()) is not None
    assert Adapter().count_seconds(Problem(8), {}) is None  # no rate declared: it cannot tell


def test_the_solutions_are_extrapolated_past_the_table() -> None:
    known = len(verify.A000170) - 1
    assert solutions_estimate(known) == verify.A000170[known]
    assert solutions_estimate(known + 2) == pytest.approx(verify.A000170[known] * GROWTH_PAST_TABLE**2)
    assert solutions_estimate(known + 1) > verify.A000170[known]


def test_the_host_refuses_a_missing_library_and_a_board_too_large_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    nq.register(Wrapped())
    with pytest.raises(BadInput, match=r"^kit-wrapped\[model=dense\] accepts n up to 50 .*sparse"):
        nq.solve("kit-wrapped", 60)
    monkeypatch.setattr(Wrapped, "requires", (Requirement("kit needs thing: pip install thing", module=NOT_INSTALLED),))
    with pytest.raises(BadInput, match=r"^kit needs thing: pip install thing$"):
        nq.solve("kit-wrapped", 60)  # the missing library is said first


def test_the_helpers_plugins_need_are_exported() -> None:
    for name in ("Adapter", "Requirement", "SizeLimit", "board_error", "published_answer", "problem_of"):
        assert name in nq.__all__, name
    assert nq.board_error is verify.board_error and nq.published_answer is published.published_answer
    assert nq.board_error(4, [1, 3, 0, 2]) is None and nq.board_error(4, [0, 1, 2, 3]) is not None


def host_imports(source: str) -> set[str]:
    """What of the host (``nqueens_plugins...``) ``source`` imports beyond ``nq.__all__``: modules, and names
    taken from the package that it does not export (``host``); also in the code it runs as text (``-c``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module == "nqueens_plugins":
            found.update(f"nqueens_plugins.{a.name}" for a in node.names if a.name not in nq.__all__)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "nqueens_plugins" in node.value:
            try:
                found |= host_imports(node.value)
            except SyntaxError:  # text, not code
                pass
    return {module for module in found if module.split(".")[0] == "nqueens_plugins"} - PUBLIC_MODULES


@pytest.mark.repository("the plugin distributions' sources in plugins/")
def test_plugins_and_their_tests_import_only_the_public_surface() -> None:
    files = sorted(PLUGINS.glob("nqueens-*/nqueens_*/**/*.py")) + sorted(PLUGINS.glob("nqueens-*/tests/*.py"))
    assert len(files) >= 24, files  # eight distributions: their modules and their tests
    private = {f"{path.relative_to(PLUGINS)}: {module}" for path in files for module in host_imports(path.read_text())}
    assert not private, sorted(private)


def test_the_surface_check_sees_a_private_import() -> None:
    sneaky = 'from nqueens_plugins.core.verify import A000170\nfrom nqueens_plugins import Problem, host\nCODE = "import sys; from nqueens_plugins.loading import host"\n'
    assert host_imports(sneaky) == {"nqueens_plugins.core.verify", "nqueens_plugins.host", "nqueens_plugins.loading"}
