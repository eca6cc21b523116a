"""Every subpackage's docstring kept true by a machine, as docs/architecture.md is
(``test_architecture_doc.py``): it names each of its modules, and nothing it names as a module is missing.

The convention: in a subpackage's ``__init__`` docstring, a plain lowercase name in double backticks
(````verify````) is a module or subpackage of that package, and every module and subpackage there, private
``_x`` ones included (a module is a module; the layer tree names them all too), is named that way.
Anything else is written so that it cannot be taken for one: a path (````core/canonical_cnf.py````),
a dotted name (````checker.check_proof````), a class or constant (````CheckReport````), a quoted word
(````"nqueens"````). The top-level package is the public contract, which ``test_architecture_doc`` checks.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nqueens_plugins

PACKAGE = Path(nqueens_plugins.__file__).resolve().parent
MODULE_NAME = re.compile(r"``([a-z_][a-z0-9_]*)``")


def members(package: Path) -> set[str]:
    """The modules and subpackages of one package folder."""
    modules = {p.stem for p in package.glob("*.py") if p.name != "__init__.py"}
    return modules | {p.name for p in package.iterdir() if (p / "__init__.py").exists()}


def untrue(package: Path, docstring: str) -> list[str]:
    """What a package's docstring says wrong about its modules, one line each (empty: it is true)."""
    where = package.relative_to(PACKAGE.parent).as_posix()
    named = set(MODULE_NAME.findall(docstring))
    there = members(package)
    return [f"{where}: the docstring does not name ``{name}``" for name in sorted(there - named)] + [
        f"{where}: the docstring names ``{name}``, which is no module there" for name in sorted(named - there)
    ]


def subpackages() -> list[Path]:
    return sorted(p.parent for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE)


def test_every_subpackage_docstring_names_its_modules_and_no_other() -> None:
    found = []
    for package in subpackages():
        docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
        found += untrue(package, docstring)
    assert found == []


def test_the_check_sees_a_module_left_out_and_one_that_is_not_there() -> None:
    """The check can fail: the execution layer's docstring with ``watchdog`` struck and a stray ``counting``."""
    package = PACKAGE / "execution"
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    struck = docstring.replace("``watchdog``", "watchdog") + " ``counting``"
    assert untrue(package, struck) == [
        "nqueens_plugins/execution: the docstring does not name ``watchdog``",
        "nqueens_plugins/execution: the docstring names ``counting``, which is no module there",
    ]


def test_every_package_is_checked() -> None:
    """The walk reaches nested packages (``builtin/engines``), not only the layers."""
    assert {p.relative_to(PACKAGE).as_posix() for p in subpackages()} >= {"core", "builtin", "builtin/engines"}
