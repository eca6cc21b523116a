"""Inside the package, a name is imported from the module that defines it, never through one that only
imports it in turn (issue 54: ``api`` took ``Result`` from ``judge``, which imports it from ``answers``): a
reader who follows an import lands on the definition, and moving a name breaks no hidden second path.

The top-level package is the exception by design: its ``__all__`` is the promise, and the API's names come
through ``api`` (``test_architecture.py`` checks that each is the object its module defines).
"""

from __future__ import annotations

import ast
from pathlib import Path

import nqueens_plugins

PACKAGE = Path(nqueens_plugins.__file__).resolve().parent
ROOT = PACKAGE.parent
PROMISE = PACKAGE / "__init__.py"


def module_file(module: str) -> Path | None:
    base = ROOT / module.replace(".", "/")
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.exists():
            return path
    return None


def bindings(path: Path) -> tuple[set[str], set[str]]:
    """The names a module defines at its top level, and those it imports (anywhere, ``TYPE_CHECKING`` included)."""
    tree = ast.parse(path.read_text())
    defined: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined |= {name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)}
    imported = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    return defined, imported


def second_hand(path: Path, label: str) -> list[str]:
    """Each ``from nqueens_plugins.X import name`` in ``path`` where X only imports ``name`` itself."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom) or node.level or not (node.module or "").startswith("nqueens_plugins."):
            continue
        source = module_file(str(node.module))
        if source is None:
            continue
        defined, imported = bindings(source)
        for alias in node.names:
            if module_file(f"{node.module}.{alias.name}") is None and alias.name in imported - defined:
                found.append(f"{label}:{node.lineno}: {alias.name} through {node.module}")
    return found


def test_every_import_inside_the_package_is_from_where_the_name_is_defined() -> None:
    found = [
        line
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != PROMISE
        for line in second_hand(path, path.relative_to(ROOT).as_posix())
    ]
    assert found == []


def test_the_check_sees_a_name_imported_second_hand(tmp_path: Path) -> None:
    """The check can fail: the import ``api`` had before issue 54 (``judge`` itself defined, ``Result`` not)."""
    module = tmp_path / "made_up.py"
    module.write_text("from nqueens_plugins.execution.judge import Result, judge\n")
    assert second_hand(module, "made_up.py") == ["made_up.py:1: Result through nqueens_plugins.execution.judge"]
