"""A records file written as an ASlib scenario (issue 42): read back with liac-arff, the reader ASlib's own checker uses."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nqueens_plugins as nq
from nqueens_plugins.results.features import FEATURE_NAMES

arff = pytest.importorskip("arff")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("aslib") / "runs.jsonl"
    nq.compare("bitset-mrv,min-conflicts", [6, 8, 10], trials=2, out=out)
    return out


def read(folder: Path, name: str) -> dict:
    return arff.loads((folder / name).read_text(encoding="utf-8"))


def test_the_scenario_reads_back_as_the_runs_were(runs: Path, tmp_path: Path) -> None:
    folder = tmp_path / "scenario"
    assert nq.export_aslib(runs, folder) == (2, 3)
    algorithm_runs = read(folder, "algorithm_runs.arff")
    assert [name for name, _ in algorithm_runs["attributes"]] == [
        "instance_id", "repetition", "algorithm", "runtime", "runstatus",
    ]  # fmt: skip
    rows = algorithm_runs["data"]
    assert len(rows) == 3 * 2 * 2  # instances x algorithms x trials
    assert {row[2] for row in rows} == {"bitset-mrv", "min-conflicts"} and {row[1] for row in rows} == {1.0, 2.0}
    assert all(row[4] == "ok" and 0 <= row[3] < 10 for row in rows)
    features = read(folder, "feature_values.arff")
    assert len(features["attributes"]) == 2 + len(FEATURE_NAMES) and len(features["data"]) == 3
    assert sorted(row[2] for row in features["data"]) == [6.0, 8.0, 10.0]  # the n feature
    folds = read(folder, "cv.arff")["data"]
    assert len(folds) == 3 and all(1 <= row[2] <= 5 for row in folds)
    description = (folder / "description.txt").read_text()
    assert "algorithm_cutoff_time: 10" in description and '- "bitset-mrv"' in description
    assert sorted(path.name for path in folder.iterdir()) == [
        "algorithm_runs.arff", "cv.arff", "description.txt", "feature_runstatus.arff", "feature_values.arff",
    ]  # fmt: skip


def test_an_existing_folder_is_refused_and_nothing_is_left_half_written(run_cli, runs: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    taken = tmp_path / "taken"
    taken.mkdir()
    code, _, err = run_cli("report", str(runs), "--format", "aslib", "-o", str(taken))
    assert code == 2 and "exists" in err and list(taken.iterdir()) == []
    code, _, err = run_cli("report", str(runs), "--format", "aslib")
    assert code == 2 and "-o FOLDER" in err
    code, out, _ = run_cli("report", str(runs), "--format", "aslib", "-o", str(tmp_path / "new"))
    assert code == 0 and "2 algorithms on 3 instances" in out
    assert [path.name for path in tmp_path.iterdir() if path.name.startswith(".")] == []  # no staging folder left


def test_a_race_is_a_portfolio_not_an_algorithm() -> None:
    from nqueens_plugins.formats.aslib import Scenario

    scenario = Scenario()
    record = {"solver": "race(a,b)", "n": 8, "trial": 0, "seconds": 1.0, "status": "solved", "verified": True}
    scenario.add(record, "")
    scenario.add(record | {"solver": "a"}, "")
    assert scenario.algorithms() == ["a"]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_any_name_reads_back_as_written(name: str) -> None:
    import yaml

    from nqueens_plugins.formats.aslib import arff_value, quoted

    text = "@RELATION r\n@ATTRIBUTE s STRING\n@DATA\n" + arff_value(name) + "\n"
    read = arff.loads(text)["data"]
    assert read[0][0] == name or (name in ("ok", "timeout", "memout", "not_applicable", "crash", "other",
                                           "presolved", "unknown"))  # fmt: skip
    assert yaml.safe_load(f"- {quoted(name)}") == [name]
