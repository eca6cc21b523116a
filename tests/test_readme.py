"""The README's promises: CI runs its test command, and the first plugin the docs show works when pasted."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import nqueens_plugins as nq
from nqueens_plugins.testing import assert_contract

pytestmark = pytest.mark.repository("README.md, docs/getting-started.md, docs/plugin-authors.md, .ci/run")

ROOT = Path(__file__).resolve().parent.parent


def code_blocks(language: str) -> list[str]:
    # The smallest plugin moved from the README to the site's getting started page (the README links to it).
    getting_started = (ROOT / "docs" / "getting-started.md").read_text()
    return re.findall(rf"```{language}\n(.*?)```", getting_started, flags=re.DOTALL)


def test_quick_start_has_exactly_two_commands_and_ci_runs_the_test_one() -> None:
    quick_start = (ROOT / "README.md").read_text().split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = [block.strip() for block in re.findall(r"```\n(.*?)```", quick_start, flags=re.DOTALL)]
    assert len(commands) == 2
    assert "nqueens compare" in commands[0]
    assert "pytest" in commands[1]
    assert commands[1] in (ROOT / ".ci" / "run").read_text().splitlines()


def test_the_plugin_example_works_when_pasted(fake_distribution) -> None:
    plugin = next(block for block in code_blocks("python") if "nqueens_register_solvers" in block)
    toml = next(block for block in code_blocks("toml") if "entry-points.nqueens" in block)
    entry = re.search(r'^(\S+) = "(\S+)"$', toml.split("[project.entry-points.nqueens]")[1].strip(), flags=re.MULTILINE)
    assert entry is not None
    fake_distribution("my-nqueens", {entry.group(1): entry.group(2)}, {entry.group(2): plugin})
    result = nq.solve("random-permutations", 8, limits=nq.Limits(seed=1))
    assert result.verified is True
    assert_contract("random-permutations")


def test_the_guides_counting_plugin_works_when_pasted(fake_distribution) -> None:
    guide = (ROOT / "docs" / "plugin-authors.md").read_text()
    plugin = next(block for block in re.findall(r"```python\n(.*?)```", guide, flags=re.DOTALL) if "def count" in block)
    fake_distribution("nqueens-permutations", {"permutations": "permutations_plugin"}, {"permutations_plugin": plugin})
    assert nq.count("permutations", 8).verified is True
    assert (
        nq.count("permutations", 6, blocked=[(0, 1)]).solutions == nq.count("bitboard", 6, blocked=[(0, 1)]).solutions
    )
    assert_contract("permutations")
