"""Limits travel as one frozen, validated ``nq.Limits``: made once at the front door, carried by grids,
tasks and results, with every default written once (``core/limits.py``)."""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
from pathlib import Path

import pytest

import nqueens_plugins as nq
from nqueens_plugins import api, cli
from nqueens_plugins.core import limits as limits_module
from nqueens_plugins.core.limits import COMPARE_TIMEOUT
from nqueens_plugins.formats.inputs import make_problem


def test_limits_normalize_memory_and_are_frozen() -> None:
    limits = nq.Limits(timeout=5, memory="512M", max_iterations=10, seed=3)
    assert limits.timeout == 5.0 and isinstance(limits.timeout, float)
    assert limits.memory == 512 * 2**20 and nq.Limits(memory="2G").memory == 2**31
    assert limits.prepare_timeout == limits_module.PREPARE_TIMEOUT
    with pytest.raises(dataclasses.FrozenInstanceError):
        limits.timeout = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"timeout": -1}, "timeout must be a positive number of seconds or None, not -1"),
        ({"timeout": "1"}, "timeout must be a positive number of seconds or None, not '1'"),
        ({"prepare_timeout": None}, "prepare_timeout must be a positive number of seconds, not None"),
        ({"prepare_timeout": float("inf")}, "prepare_timeout must be at most 1,000,000 seconds"),
        ({"memory": "lots"}, "memory takes a size such as 512M or 2G, not 'lots'"),
        ({"memory": "1k"}, "memory limit must be at least 1M, not '1k'"),
        ({"max_iterations": 0}, "max_iterations must be at least 1, not 0"),
        ({"seed": 1.5}, "seed must be a whole number, not 1.5"),
        ({"seed": True}, "seed must be a whole number, not True"),
    ],
)
def test_a_bad_limit_is_one_line_of_bad_input(fields: dict, message: str) -> None:
    with pytest.raises(nq.BadInput) as refused:
        nq.Limits(**fields)
    assert message in str(refused.value) and "\n" not in str(refused.value)


def test_each_runs_seed_is_derived_as_before_from_seed_solver_instance_and_trial() -> None:
    """``seed_for`` is the derivation the worker always used: the same records as before for the same seed."""
    plain, posed = make_problem(8), make_problem(8, {0: 1})
    for problem, instance in ((plain, "8"), (posed, f"8#{posed.id}")):
        digest = hashlib.sha256(f"7|min-conflicts|{instance}|2".encode()).digest()
        assert nq.Limits(seed=7).seed_for("min-conflicts", problem, 2) == int.from_bytes(digest[:8], "big")
    assert nq.Limits(seed=7).seed_for("min-conflicts", plain, 2) != nq.Limits(seed=8).seed_for(
        "min-conflicts", plain, 2
    )


@pytest.mark.parametrize("name", ["timeout", "memory", "prepare_timeout", "max_iterations", "seed"])
def test_a_limit_is_taken_as_a_keyword_as_the_field_writes_it(name: str) -> None:
    """``nq.solve(..., timeout=5)`` as scripts written for 0.1 call it (and ``subprocess.run(timeout=)`` does):
    the keyword is the limit, never a solver option, and the rest keep the function's defaults."""
    value: object = {"memory": "512M", "max_iterations": 10**6}.get(name, 5)
    result = nq.solve("bitboard", 8, **{name: value})
    assert result.solved and getattr(result.limits, name) == nq.Limits(**{name: value}).__getattribute__(name)
    assert result.options == {}  # not taken for an option of the solver
    counted = nq.count("bitboard", 8, **{name: value})
    assert counted.solutions == 92


def test_limits_and_keywords_together_are_one_bad_input_and_a_misspelt_one_a_type_error() -> None:
    for call in (lambda **k: nq.solve("min-conflicts", 8, **k), lambda **k: nq.compare(["min-conflicts"], [8], **k)):
        with pytest.raises(nq.BadInput, match=r"^give the limits as keywords \(timeout=\) or as limits=nq\.Limits"):
            call(timeout=5, limits=nq.Limits())
    with pytest.raises(TypeError, match="'timout'"):
        nq.compare(["min-conflicts"], [8], timout=5)
    with pytest.raises(nq.BadInput, match="timeout must be a positive number"):
        nq.solve("min-conflicts", 8, timeout=-1)


def test_compare_keywords_change_only_what_they_name_and_jobs_returns() -> None:
    records = nq.compare(["min-conflicts"], [8], trials=2, seed=3, jobs=1)
    assert [r["seed"] for r in records] == [3, 3] and {r["timeout"] for r in records} == {COMPARE_TIMEOUT}
    streamed = list(nq.compare_stream(["min-conflicts"], [8], timeout=4, jobs=1))
    assert streamed[0]["timeout"] == 4.0 and streamed[0]["seed"] == 0
    with pytest.raises(nq.BadInput, match="jobs or an executor"):
        nq.compare(["min-conflicts"], [8], jobs=1, executor=nq.executor_for("local", jobs=1))
    with pytest.raises(nq.BadInput, match="jobs must be at least 0"):
        nq.compare(["min-conflicts"], [8], jobs=-1)


def test_every_function_that_runs_solvers_takes_its_limits_as_keywords() -> None:
    checks = nq.cross_check("bitboard,backtracking", "6", timeout=20, seed=1)
    assert checks and all(check.agrees for check in checks)
    race = nq.race("bitset-mrv,min-conflicts", 12, timeout=20, seed=1)
    assert race.winner is not None and race.winner.solved
    files, _ = nq.cross_check_files([nq.problem_of(6, fixed="0:1")], "bitboard", timeout=20)
    assert files and files[0].verdict == "satisfiable"
    text, _ = nq.export("json", 6, timeout=20)
    assert json.loads(text)["n"] == 6
    for function in (api.solve, api.count, api.compare, api.compare_stream, api.race, api.tune, api.cross_check,
                     api.cross_check_files, api.export):  # fmt: skip
        parameters = inspect.signature(function).parameters
        assert "limits" in parameters and any(p.kind is p.VAR_KEYWORD for p in parameters.values()), function


def test_a_result_and_its_record_carry_the_limits_the_run_had(tmp_path: Path) -> None:
    result = nq.solve("min-conflicts", 8, limits=nq.Limits(timeout=7, seed=2))
    assert result.limits == nq.Limits(timeout=7, seed=2) and result.timeout == 7.0 and result.seed == 2
    assert "limits" not in result.to_dict()  # solve --json and records keep their fields
    out = tmp_path / "runs.jsonl"
    (record,) = nq.compare(["min-conflicts"], [8], limits=nq.Limits(timeout=3, seed=4), out=out)
    assert record["timeout"] == 3.0 and record["seed"] == 4
    header = json.loads(out.read_text().splitlines()[0])
    assert header["grid"]["timeout"] == 3.0 and header["grid"]["seed"] == 4


def test_compare_takes_sizes_instance_files_and_problems_as_one_boards_argument() -> None:
    fixed = nq.problem_of(8, fixed="0:2")
    records = nq.compare(["backtracking"], [6, "8", fixed], limits=nq.Limits(timeout=10))
    assert sorted((r["n"], sorted(r["fixed"].items())) for r in records) == [(6, []), (8, []), (8, [("0", 2)])]


def test_the_commands_flag_defaults_are_the_limits_modules_constants() -> None:
    defaults = {}
    for name, command in (("compare", cli.compare), ("cross-check", cli.cross_check), ("solve", cli.solve)):
        for param in command.params:
            if param.name in ("timeout", "prepare_timeout"):
                defaults[name, param.name] = param.default
    assert defaults["compare", "timeout"] == f"{limits_module.COMPARE_TIMEOUT:g}"
    assert defaults["cross-check", "timeout"] == f"{limits_module.CROSS_CHECK_TIMEOUT:g}"
    assert defaults["solve", "timeout"] is None
    assert defaults["solve", "prepare_timeout"] == f"{limits_module.PREPARE_TIMEOUT:g}"
