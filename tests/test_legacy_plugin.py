"""A plugin written for the 0.1 contract keeps working.

``tests/legacy-plugin`` is the distribution docs/plugin-authors.md taught in 0.1: its ``pyproject.toml`` and
``nqueens_permutations.py`` are that page's blocks as they stood at 0.1.0 (frozen: the guide may change, this copy
must not), with the tests its author wrote then against the 0.1 API. Installed as the guide said (``pip install -e
.``) into a fresh venv beside the host under test (this checkout's source, or in CI's second run the installed
wheel), it is listed by ``nqueens plugins``, runs in ``nqueens compare`` beside a built-in, and its author's own
test command, the guide's ``pytest -p nqueens_plugins.testing --nqueens-solver permutations``, runs the contract
kit's nine checks beside its tests.

Three of the author's tests pass the limits as keywords, as 0.1 took them (``nq.solve(..., timeout=5, seed=1)``,
``nq.compare(..., seed=0, timeout=5, jobs=1)``). While the host refuses such keywords, those three may fail, and
only with that refusal; once it takes them the refusal cannot happen, and all of the author's tests must pass. The
assertions below are the same in both cases.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from xml.etree import ElementTree

import pytest

LEGACY = Path(__file__).resolve().parent / "legacy-plugin"
KIT_CHECKS = {
    "registration",
    "solves-small-boards",
    "no-solution-when-complete",
    "counts",
    "same-seed-same-answer",
    "budget-honoured",
    "fixed-queens",
    "blocked-squares",
    "impossible-instances",
    "certificates",
}
# The author's tests that give limits as keywords, and the refusal they may meet while the host does not take them.
KEYWORD_LIMITS = {
    "test_it_solves_within_a_time_limit",
    "test_it_proves_three_has_no_solution",
    "test_it_compares_with_backtracking",
}
REFUSED = re.compile(r"\b(timeout|seed|jobs) is a limit now\b|unexpected keyword argument '(timeout|seed|jobs)'")


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=600, check=False)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the fresh venv's python, the plugin's folder): the plugin installed as the guide said, in a copy of its
    folder (an editable install writes its metadata there)."""
    root = tmp_path_factory.mktemp("legacy")
    project = root / "nqueens-permutations"
    shutil.copytree(LEGACY, project, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)  # pip: the host's
    python = venv / "bin" / "python"
    site = Path(
        run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], root).stdout.strip()
    )
    # "Install the host first, with pytest beside it": the host under test and its dependencies, as this test
    # environment has them (no package index needed), added to the fresh venv as a site folder.
    (site / "host.pth").write_text(f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
    done = run([str(python), "-m", "pip", "install", "--no-deps", "--no-build-isolation", "-e", "."], project)
    assert done.returncode == 0, done.stderr
    return python, project


def test_it_is_listed_from_its_distribution(installed: tuple[Path, Path]) -> None:
    python, project = installed
    done = run([str(python), "-m", "nqueens_plugins", "plugins", "--json"], project)
    assert done.returncode == 0, done.stderr
    listing = json.loads(done.stdout)
    (solver,) = [solver for solver in listing["solvers"] if solver["name"] == "permutations"]
    assert (solver["distribution"], solver["version"], solver["complete"], solver["counts"]) == (
        "nqueens-permutations",
        "0.1.0",
        True,
        True,
    )
    assert listing["load_errors"] == [] and listing["probe_failures"] == []


def test_nqueens_compare_runs_it_beside_a_built_in(installed: tuple[Path, Path]) -> None:
    python, project = installed
    out = project.parent / "runs.jsonl"
    command = ["compare", "-s", "permutations,backtracking", "-n", "6,8", "--trials", "2", "--out", str(out)]
    done = run([str(python), "-m", "nqueens_plugins", *command], project)
    assert done.returncode == 0, done.stdout + done.stderr
    runs = [record for record in map(json.loads, out.read_text().splitlines()) if record["type"] == "run"]
    assert len(runs) == 8
    assert {(record["status"], record["verified"]) for record in runs} == {("solved", True)}
    legacy = [record for record in runs if record["solver"] == "permutations"]
    assert {(record["distribution"], record["version"]) for record in legacy} == {("nqueens-permutations", "0.1.0")}


def test_its_own_tests_and_the_contract_kit_pass(installed: tuple[Path, Path]) -> None:
    python, project = installed
    report = project.parent / "report.xml"
    command = ["-m", "pytest", "-p", "nqueens_plugins.testing", "--nqueens-solver", "permutations"]
    done = run([str(python), *command, "-p", "no:cacheprovider", f"--junitxml={report}"], project)
    cases = {
        (case.get("classname", ""), case.get("name", "")): {
            child.tag: child.get("message", "") for child in case if child.tag in ("failure", "error", "skipped")
        }
        for case in ElementTree.parse(report).iter("testcase")
    }
    kit = {name: ends for (group, name), ends in cases.items() if group == "nqueens-contract.permutations"}
    own = {name: ends for (group, name), ends in cases.items() if group == "tests.test_permutations"}
    assert set(kit) == KIT_CHECKS, done.stdout[-3000:]
    assert set(kit.pop("certificates")) == {"skipped"}  # it does not certify its no-solution claims
    assert all(ends == {} for ends in kit.values()), kit  # every other check passed
    assert len(own) == 7 and KEYWORD_LIMITS <= set(own), done.stdout[-3000:]
    failed = {name: ends for name, ends in own.items() if ends != {}}
    waiting = {
        name
        for name, ends in failed.items()
        if name in KEYWORD_LIMITS and set(ends) == {"failure"} and REFUSED.search(ends["failure"])
    }
    assert set(failed) == waiting, done.stdout[-5000:]
    assert done.returncode == (1 if waiting else 0), done.stdout[-3000:] + done.stderr
