"""The layers of docs/architecture.md as a contract: imports run one way, every file says where it runs."""

from __future__ import annotations

import ast
import importlib
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

import pytest

import nqueens_plugins

# The package under test, wherever it is imported from: this checkout's source, or the files a wheel installed.
PACKAGE = Path(nqueens_plugins.__file__).resolve().parent
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"

# What a module's first docstring line starts with, by where the module lives.
LAYER_OF_FOLDER = {
    "core": "Core layer",
    "formats": "Formats layer",
    "execution": "Execution layer",
    "loading": "Loading layer",
    "results": "Results layer",
    "workflows": "Workflows layer",
    "proofs": "Proofs layer",
    "views": "Views layer",
    "builtin": "Built-in plugin",
    "engines": "Built-in engine",
}
TOP_LEVEL = {"api.py": "API layer", "testing.py": "API layer", "cli.py": "CLI layer", "__main__.py": "CLI layer"}
PROCESSES = ("any process", "parent side", "worker side", "both sides", "on a Dask worker", "in an import probe")
FIRST_LINE = re.compile(r"^(?P<layer>[A-Z][\w-]* (?:layer|plugin|engine))(?: \([^)]*\))?, (?P<process>[^:]+):")


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py")


def expected_layer(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    if len(relative.parts) == 1:
        return TOP_LEVEL[relative.name]
    return LAYER_OF_FOLDER[relative.parts[-2]]


def lint_imports(config: Path, search_path: Path | None = None) -> subprocess.CompletedProcess[str]:
    """import-linter run in a child, finding the package in ``search_path`` (a copy) if given."""
    program = (
        "import sys; from importlinter import cli;"
        "sys.exit(cli.lint_imports(config_filename=sys.argv[1], no_cache=True, no_logo=True))"
    )
    return subprocess.run(
        [sys.executable, "-c", program, str(config)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=search_path or PACKAGE.parent,  # ``-c`` puts the working directory first on the path
        env={**os.environ, "PYTHONPATH": str(search_path or PACKAGE.parent)},
    )


@pytest.mark.repository("the import contracts in pyproject.toml")
def test_the_import_contracts_in_pyproject_are_kept() -> None:
    done = lint_imports(PYPROJECT)
    assert "Layers run one way KEPT" in done.stdout
    assert done.returncode == 0, done.stdout[done.stdout.find("Contracts") :] + done.stderr


@pytest.mark.repository("the import contracts in pyproject.toml")
def test_the_layer_contract_would_catch_an_upward_import(tmp_path: Path) -> None:
    """A contract that can never fail proves nothing: here one is broken on purpose, in a copy."""
    for path in PACKAGE.rglob("*.py"):
        target = tmp_path / "nqueens_plugins" / path.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text())
    verify = tmp_path / "nqueens_plugins" / "core" / "verify.py"
    verify.write_text(verify.read_text() + "\nfrom nqueens_plugins.views import report  # noqa: E402, F401\n")
    config = tmp_path / "pyproject.toml"
    config.write_text(PYPROJECT.read_text())
    done = lint_imports(config, search_path=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Layers run one way BROKEN" in done.stdout
    assert "nqueens_plugins.core.verify -> nqueens_plugins.views.report" in done.stdout


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_file_says_its_layer_and_process_in_its_first_line(path: Path) -> None:
    docstring = ast.get_docstring(ast.parse(path.read_text())) or ""
    first = docstring.splitlines()[0] if docstring else ""
    match = FIRST_LINE.match(first)
    assert match, f"first line should read '<Layer> layer, <process>: ...', not {first!r}"
    assert match["layer"] == expected_layer(path), textwrap.shorten(first, 100)
    assert match["process"].startswith(PROCESSES), f"process {match['process']!r} is not one of {PROCESSES}"


@pytest.mark.parametrize("folder", sorted({p.parent for p in PACKAGE.rglob("*.py") if p.parent != PACKAGE}))
def test_every_subpackage_says_what_it_holds(folder: Path) -> None:
    docstring = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
    assert len(docstring.split()) > 10, f"{folder.name}/__init__.py should say what the layer holds"


def test_the_contract_is_what_the_package_exports() -> None:
    import nqueens_plugins as nq
    from nqueens_plugins.core import hookspecs, problem, solver

    contract = {"hookimpl", "SolverRegister", "Solver", "Option", "Problem", "Budget", "Outcome", "Count", "Status"}
    assert contract | {"Trace", "BadInput", "PluginError"} <= set(nq.__all__)
    assert nq.Solver is solver.Solver and nq.Trace is problem.Trace and nq.SolverRegister is hookspecs.SolverRegister
    for name in nq.__all__:
        assert getattr(nq, name) is not None, name


def imported_names(source: str) -> dict[str, str]:
    """Every name the package's ``__init__`` imports from the package, now or for type checkers: name -> module."""
    names: dict[str, str] = {}
    body = ast.parse(source).body
    statements = body + [node for block in body if isinstance(block, ast.If) for node in block.body]
    for node in statements:  # the module's own imports and its ``if TYPE_CHECKING:`` block, no function's
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("nqueens_plugins"):
            names.update({alias.asname or alias.name: node.module for alias in node.names})
    return names


def export_disagreements(source: str, exported: Sequence[str], helpers: dict[str, str]) -> list[str]:
    """Where ``__all__`` and the imports that say where each name comes from disagree, one line each."""
    imported = imported_names(source)
    wrong = [f"{name} is in __all__ but imported from nowhere" for name in exported if name not in imported]
    wrong += [f"{name} is imported but not in __all__" for name in imported if name not in exported]
    for name, module in imported.items():
        if name in helpers and helpers[name] != module:
            wrong.append(f"{name} is imported from {module} but loaded from {helpers[name]}")
    return wrong


def test_all_and_the_imports_agree_and_every_name_is_the_object_its_module_defines() -> None:
    """Each public name is written twice in the package (``__all__`` and its import); they agree, and what
    ``nq.name`` gives, loaded now or on first use, is the very object the import names."""
    import nqueens_plugins as nq

    source = Path(nq.__file__).read_text()
    assert export_disagreements(source, nq.__all__, nq.HELPERS) == []
    for name, module in imported_names(source).items():
        assert getattr(nq, name) is getattr(importlib.import_module(module), name), name
    assert set(nq.API) == {name for name, module in imported_names(source).items() if module == "nqueens_plugins.api"}


def test_the_export_check_sees_a_name_left_out_of_either_list() -> None:
    import nqueens_plugins as nq

    source = Path(nq.__file__).read_text()
    exported = [name for name in nq.__all__ if name != "compare"]
    assert export_disagreements(source, exported, nq.HELPERS) == ["compare is imported but not in __all__"]
    struck = source.replace("        check_proof,\n", "", 1)
    assert export_disagreements(struck, nq.__all__, nq.HELPERS) == [
        "check_proof is in __all__ but imported from nowhere"
    ]
    moved = {**nq.HELPERS, "ProofLog": "nqueens_plugins.core.problem"}
    assert export_disagreements(source, nq.__all__, moved) == [
        "ProofLog is imported from nqueens_plugins.core.proof_log but loaded from nqueens_plugins.core.problem"
    ]


def test_dir_shows_the_promise_not_the_modules_own_imports() -> None:
    import nqueens_plugins as nq

    shown = dir(nq)
    assert {"solve", "compare", "count", "Solver", "BadInput"} <= set(shown)
    assert not {"annotations", "importlib", "TYPE_CHECKING", "Any"} & set(shown), shown


def test_an_api_error_about_a_results_file_names_the_python_arguments_too(tmp_path: Path) -> None:
    import nqueens_plugins as nq

    out = tmp_path / "runs.jsonl"
    nq.compare(["min-conflicts"], [6], trials=1, out=out)
    with pytest.raises(nq.BadInput, match=r"resume=True.*out="):
        nq.compare(["min-conflicts"], [6], trials=1, out=out)


def test_modules_from_before_the_layers_still_import_from_the_package_and_warn() -> None:
    """``from nqueens_plugins import host`` is in earlier READMEs: it works through 0.2 and warns (it goes in 0.3)."""
    with pytest.warns(DeprecationWarning, match=r"nqueens_plugins\.host is now nqueens_plugins\.loading\.host"):
        from nqueens_plugins import host
    with pytest.warns(DeprecationWarning, match="goes in 0.3.0"):
        from nqueens_plugins import instances
    from nqueens_plugins.formats import instances as moved_instances
    from nqueens_plugins.loading import host as moved_host

    assert host is moved_host and instances is moved_instances
    with pytest.raises(ImportError, match="cannot import name .harness."):  # only those two are kept
        from nqueens_plugins import harness  # noqa: F401
