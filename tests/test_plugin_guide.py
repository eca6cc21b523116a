"""The plugin author's guide, followed to the letter: its plugin, built from its text, installed in a fresh venv."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

pytestmark = pytest.mark.repository("docs/plugin-authors.md")

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "plugin-authors.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_the_guides_plugin_installs_counts_and_passes_the_kit(tmp_path: Path) -> None:
    (pyproject,) = blocks("toml")
    plugin_code = next(block for block in blocks("python") if "class Permutations(Solver)" in block)
    project = tmp_path / "nqueens-permutations"
    project.mkdir()
    (project / "pyproject.toml").write_text(pyproject)
    (project / "nqueens_permutations.py").write_text(plugin_code)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)  # pip: the host's
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    # "Install the host first, with pytest beside it": the host and its dependencies as this test
    # environment has them (no package index needed), added to the fresh venv as a site folder.
    host_site = sysconfig.get_paths()["purelib"]
    (site / "host.pth").write_text(f"import site; site.addsitedir({host_site!r})\n")
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-build-isolation", "-e", str(project)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert install.returncode == 0, install.stderr

    count = subprocess.run(
        [str(python), "-m", "nqueens_plugins", "count", "-s", "permutations", "-n", "8", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert count.returncode == 0, count.stderr
    record = json.loads(count.stdout)
    assert record["solutions"] == 92 and record["verified"] is True

    kit = subprocess.run(
        [str(python), "-m", "pytest", "-v", "-p", "nqueens_plugins.testing", "--nqueens-solver", "permutations"],
        capture_output=True,
        text=True,
        cwd=project,
        check=False,
    )
    assert kit.returncode == 0, kit.stdout + kit.stderr
    # The guide shows the kit's output as it is: one collected test per check, named by solver and check.
    assert "collected 10 items" in kit.stdout and "collected 10 items" in GUIDE.read_text(encoding="utf-8")
    assert verdicts(kit.stdout) == verdicts(GUIDE.read_text(encoding="utf-8"))
    found = dict(verdicts(kit.stdout))
    assert len(found) == 10 and found.pop("nqueens-contract::permutations::certificates") == "SKIPPED"
    assert set(found.values()) == {"PASSED"}


def verdicts(text: str) -> list[tuple[str, str]]:
    """(test id, verdict) of each contract check of the guide's plugin in ``-v`` output."""
    prefix = "nqueens-contract::permutations::"
    return [(line.split()[0], line.split()[1]) for line in text.splitlines() if line.startswith(prefix)]


def test_the_guides_wrapped_library_passes_the_kit_as_written(fake_distribution) -> None:
    """The how-to's library and its wrapper, pasted: every check passes but the four it opts out of,
    skipped (it takes no fixed queens and no blocked squares, and writes no certificates)."""
    from nqueens_plugins.testing import contract_report

    library = next(block for block in blocks("python") if block.startswith("def all_solutions"))
    wrapper = next(block for block in blocks("python") if "class ToyLib(Solver)" in block)
    fake_distribution("nqueens-toylib", {"toylib": "nqueens_toylib"}, {"toylib": library, "nqueens_toylib": wrapper})
    report = contract_report("toylib")
    assert report.pop("fixed-queens").startswith("skipped: it does not take fixed queens")
    assert report.pop("blocked-squares").startswith("skipped: it does not take blocked squares")
    assert report.pop("impossible-instances").startswith("skipped: it takes neither fixed queens nor blocked")
    assert report.pop("certificates").startswith("skipped: it does not certify")
    assert set(report.values()) == {"passed"}, report
