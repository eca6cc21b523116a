"""docs/architecture.md kept true by a machine where a machine can tell: every module of the package is
placed in its layer tree, every plugin distribution is named, every exported name is in the contract, and
the page says where a new command, statistic and family go."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import nqueens_plugins

pytestmark = pytest.mark.repository("docs/architecture.md, plugins/")

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "nqueens_plugins"
PAGE = ROOT / "docs" / "architecture.md"
WORD = re.compile(r"[A-Za-z_][\w]*")


def section(text: str, heading: str) -> str:
    """The text under a ``## heading``, up to the next heading of that level."""
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def layer_tree(text: str) -> list[str]:
    """The lines of the first code block under "The layers": the package drawn folder by folder."""
    layers = section(text, "The layers")
    return layers.split("```", 2)[1].splitlines()[1:]


def folder_words(tree: list[str], folder: str) -> set[str]:
    """The words the tree says under ``folder/`` (``execution``, ``builtin/engines``): the lines from the
    folder's own line to the next folder at its depth or above."""
    words: set[str] = set()
    depth: int | None = None
    for line in tree:
        indent = len(line) - len(line.lstrip())
        first = line.split()[0] if line.split() else ""
        if depth is None:
            if first == folder.rsplit("/", 1)[-1] + "/":
                depth = indent
                words |= set(WORD.findall(line.split(None, 1)[1] if " " in line.strip() else ""))
            continue
        if first.endswith("/") and indent <= depth:
            break
        words |= set(WORD.findall(line))
    return words


def missing_from(text: str) -> list[str]:
    """What the page fails to say, one line each (empty: it says all a machine can check)."""
    missing: list[str] = []
    tree = layer_tree(text)
    flat = "\n".join(tree)
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if path.name == "__init__.py" and len(relative.parts) > 1:
            continue
        if len(relative.parts) == 1:
            if not re.search(rf"^\s*{re.escape(path.name)}\s", flat, re.MULTILINE):
                missing.append(f"module {relative} is not in the layer tree")
            continue
        folder = "/".join(relative.parts[:-1])
        if path.stem not in folder_words(tree, folder):
            missing.append(f"module {relative} is not placed under {folder}/ in the layer tree")
    for distribution in sorted(p.name for p in (ROOT / "plugins").iterdir() if (p / "pyproject.toml").exists()):
        if distribution not in flat:
            missing.append(f"plugin distribution {distribution} is not in the layer tree")
    contract = section(text, "The contract")
    for name in nqueens_plugins.__all__:
        if f"`{name}`" not in contract:
            missing.append(f"exported name {name} is not in The contract")
    where = section(text, "Where a new thing goes").lower()
    for thing in ("a new command", "a new statistic", "a new family"):
        if thing not in where:
            missing.append(f"Where a new thing goes does not say where {thing} goes")
    return missing


def test_the_architecture_page_names_every_module_distribution_and_export() -> None:
    assert missing_from(PAGE.read_text()) == []


def test_the_check_sees_a_module_a_distribution_and_a_name_left_out() -> None:
    """The check can fail: the page with one module, one distribution and one exported name struck out."""
    text = PAGE.read_text()
    tree = "\n".join(layer_tree(text))
    struck = text.replace(tree, tree.replace("watchdog", "w").replace("nqueens-highs", "nqueens-h"))
    contract = section(struck, "The contract")
    struck = struck.replace(contract, contract.replace("`Budget`", "Budget"))
    missing = missing_from(struck)
    assert "module execution/watchdog.py is not placed under execution/ in the layer tree" in missing
    assert "plugin distribution nqueens-highs is not in the layer tree" in missing
    assert "exported name Budget is not in The contract" in missing
