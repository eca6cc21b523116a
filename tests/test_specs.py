"""A solver spec matched by what it means, not how it is spelled (``core.solver.spec_identity``)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from nqueens_plugins.core.solver import matching_spec, spec_identity

KEYS = st.sampled_from(["t0", "cooling", "order", "values", "restarts"])
VALUES = st.one_of(
    st.integers(-1000, 1000).map(str),
    st.floats(-1e6, 1e6, allow_nan=False).map(repr),
    st.sampled_from(["true", "false", "none", "mrv", "middle"]),
)


@given(st.dictionaries(KEYS, VALUES, min_size=1), st.randoms())
def test_a_spec_means_the_same_in_any_order(options: dict[str, str], rng) -> None:
    items = list(options.items())
    shuffled = items[:]
    rng.shuffle(shuffled)
    written = "sa[" + ",".join(f"{k}={v}" for k, v in items) + "]"
    reordered = "sa[" + ",".join(f"{k}={v}" for k, v in shuffled) + "]"
    assert spec_identity(written) == spec_identity(reordered)
    assert matching_spec(reordered, ["sa", written, "other"]) == written


def test_numbers_are_compared_by_value_and_words_are_not_numbers() -> None:
    assert spec_identity("sa[t0=8,cooling=0.9]") == spec_identity("sa[cooling=0.90,t0=8.0]")
    assert spec_identity("sa[t0=8]") != spec_identity("sa[t0=9]")
    assert spec_identity("x[flag=true]") != spec_identity("x[flag=1]")
    assert spec_identity("sa[t0=8]") != spec_identity("annealing[t0=8]")
    assert matching_spec("sa[t0=8]", ["sa[t0=8.5]", "sa"]) is None
    assert spec_identity("sa[") is None


def test_baseline_is_found_by_value_after_a_sweep(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "sweep.jsonl"
    code, _, err = run_cli(
        "compare", "-s", "simulated-annealing[cooling=0.9|0.99,t0=8|64]", "-n", "6", "--trials", "2", "--out", str(out)
    )
    assert code == 0, err
    for spelling in ("simulated-annealing[cooling=0.9,t0=8]", "simulated-annealing[t0=8,cooling=0.9]"):
        code, shown, err = run_cli("report", str(out), "--baseline", spelling, "--json")
        assert code == 0, err
        assert json.loads(shown)["rows"], shown  # the three other variants, each against it
    code, _, err = run_cli("report", str(out), "--baseline", "simulated-annealing[t0=9,cooling=0.9]")
    assert code == 2 and "is not in the file" in err, err
