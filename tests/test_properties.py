"""Properties of what users type (sizes, options, variant labels) and the small promises around them."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nqueens_plugins as nq
from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.execution.judge import clean_counters
from nqueens_plugins.formats import inputs
from nqueens_plugins.loading import host


@st.composite
def size_texts(draw: st.DrawFn) -> tuple[str, list[int]]:
    parts, expected = [], []
    for _ in range(draw(st.integers(1, 5))):
        if draw(st.booleans()):
            n = draw(st.integers(1, 10**6))
            parts.append(draw(st.sampled_from(["{}", " {} ", "+{}"])).format(n))
            expected.append(n)
        else:
            start, length, step = draw(st.integers(1, 500)), draw(st.integers(0, 40)), draw(st.integers(1, 9))
            stop = start + length
            parts.append(f"{start}..{stop}" + (f":{step}" if step > 1 else ""))
            expected.extend(range(start, stop + 1, step))
    return ",".join(parts), list(dict.fromkeys(expected))


@given(size_texts())
def test_size_lists_parse_to_what_they_say(case: tuple[str, list[int]]) -> None:
    text, expected = case
    assert inputs.parse_sizes(text) == expected


def test_the_size_limit_holds_for_the_whole_list() -> None:
    with pytest.raises(BadInput, match="more than 10,000 boards"):
        inputs.parse_sizes("1..10000,10001..20000")


@given(st.sampled_from(["simulated-annealing", "min-conflicts", "forward-checking", "steepest-ascent"]), st.data())
@settings(max_examples=80, deadline=None)
def test_a_variant_label_names_the_same_variant(name: str, data: st.DataObject) -> None:
    solver = host.registry().get(name).solver
    given_options = {}
    for option in solver.options:
        if not data.draw(st.booleans()):
            continue
        if option.choices:
            value = data.draw(st.sampled_from(option.choices))
        elif option.type is int:
            value = data.draw(st.integers(int(option.minimum or 0), 10**6))
        elif option.type is float:
            low = option.minimum if option.minimum is not None else -1e6
            high = option.maximum if option.maximum is not None else 1e6
            value = data.draw(st.floats(low, high, allow_nan=False))
        else:
            continue
        given_options[option.name] = value
    variant = host.registry().variant(name, **given_options)
    again = host.registry().variant(variant.label)
    assert again.label == variant.label and dict(again.options) == dict(variant.options)


def test_counters_that_are_not_finite_numbers_are_dropped_with_a_word() -> None:
    clean, dropped = clean_counters({"restarts": 3, "rate": 0.5, "bad": math.nan, "huge": math.inf, "name": "x"})
    assert clean == {"restarts": 3, "rate": 0.5} and sorted(dropped) == ["bad", "huge", "name"]


def test_a_blocked_plugin_is_named_when_its_solver_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(host.DISABLE_VARIABLE, "builtin-min-conflicts")
    host.reset()
    with pytest.raises(BadInput, match="blocked by NQUEENS_DISABLE_PLUGINS: builtin-min-conflicts"):
        nq.solve("min-conflicts", 8)


def test_compare_all_leaves_out_what_a_solver_refuses_and_says_so(run_cli) -> None:
    code, _out, err = run_cli("compare", "-s", "all", "-n", "6", "--fixed", "0:1", "--timeout", "5", "--format", "json")
    assert code == 0, err
    assert "swap-search left out where it cannot run: swap-search cannot honour fixed queens" in err
    assert "construction left out" in err


def test_compare_timeout_none_means_no_limit(run_cli) -> None:
    code, _out, err = run_cli("compare", "-s", "backtracking", "-n", "8", "--timeout", "none", "--format", "json")
    assert code == 0, err


@pytest.mark.parametrize("text", ["8_0", "８", "1" * 5000, "8.0", "0x10", " "])
def test_odd_sizes_are_one_line_refusals(run_cli, text: str) -> None:
    code, _out, err = run_cli("solve", "-s", "backtracking", "-n", text)
    assert code == 2 and err.count("\n") == 1 and "board size" in err and "Traceback" not in err


def test_a_huge_integer_in_an_answer_is_refused_not_a_crash() -> None:
    from nqueens_plugins.core.verify import board_error

    assert "off the board" in board_error(8, [2**70, 0, 0, 0, 0, 0, 0, 0])


def test_two_writers_of_one_results_file_are_refused(tmp_path) -> None:
    from nqueens_plugins.formats.records import ResultsWriter

    path = tmp_path / "runs.jsonl"
    first = ResultsWriter(path, resume=False, command=None)
    try:
        with pytest.raises(BadInput, match="is being written by another nqueens command"):
            ResultsWriter(path, resume=True, command=None)
    finally:
        first.close()
    ResultsWriter(path, resume=True, command=None).close()  # free again once the first is done


@pytest.mark.parametrize(
    "args, words",
    [
        (["report", "/dev/zero"], "it is a device, not a regular file"),
        # A regular file by its mode that fails when read (EIO): opening it is not enough.
        (["report", "/proc/self/mem"], "cannot read results file '/proc/self/mem'"),
        (["plot", "/proc/self/mem", "-o", "plot.png"], "cannot read results file '/proc/self/mem'"),
        # Refused before any run: a device is not where results are kept (a full disk is tested apart).
        (["compare", "-s", "min-conflicts", "-n", "8", "--out", "/dev/full"], "'/dev/full': it is not a regular file"),
    ],
)
def test_devices_are_one_line_refusals(run_cli, args: list[str], words: str) -> None:
    code, _out, err = run_cli(*args)
    assert code == 2 and err.count("\n") == 1 and words in err and "Traceback" not in err
