"""The plugin contract's version (issue 51): the host says which it serves, a plugin may say which it was written
for, and one this host cannot serve is refused in one line naming both, while every other plugin loads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import nqueens_plugins as nq
from nqueens_plugins.core.hookspecs import CONTRACT_VERSION, contract_refusal


def test_the_host_serves_its_own_contract_and_every_earlier_minor() -> None:
    major, minor = (int(part) for part in CONTRACT_VERSION.split("."))
    assert nq.CONTRACT_VERSION == CONTRACT_VERSION
    for served in (None, f"{major}.0", f"{major}.{minor}", str(major), major):
        assert contract_refusal(served, "p") is None, served


@pytest.mark.parametrize(
    ("declared", "words"),
    [
        (f"{int(CONTRACT_VERSION.split('.')[0])}.{int(CONTRACT_VERSION.split('.')[1]) + 1}", "upgrade nqueens-plugins"),
        (f"{int(CONTRACT_VERSION.split('.')[0]) + 1}.0", "upgrade nqueens-plugins"),
        ("0.9", "written for this contract"),
        ("one", "not a version"),
        ([1, 0], "not a version"),
    ],
)
def test_a_contract_this_host_cannot_serve_is_one_line_naming_both(declared: object, words: str) -> None:
    refusal = contract_refusal(declared, "future-plugin")
    assert refusal is not None and words in refusal and "future-plugin" in refusal and "\n" not in refusal
    if words != "not a version":
        assert CONTRACT_VERSION in refusal and str(declared) in refusal


PLUGIN = """
import nqueens_plugins as nq

nqueens_contract = "{contract}"


class Echo(nq.Solver):
    name = "{name}"
    summary = "Places nothing."

    def solve(self, problem, rng, budget, options):
        return nq.Outcome(nq.Status.GAVE_UP)


@nq.hookimpl
def nqueens_register_solvers(register):
    register(Echo())
"""


def install(site: Path, module: str, contract: str, name: str) -> None:
    """A plugin distribution, as installed: its module and its entry point's metadata, on ``site``."""
    (site / f"{module}.py").write_text(PLUGIN.format(contract=contract, name=name), encoding="utf-8")
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[nqueens]\n{module} = {module}\n", encoding="utf-8")


def test_an_installed_plugin_for_a_later_contract_is_refused_and_the_others_load(tmp_path: Path) -> None:
    later = f"{int(CONTRACT_VERSION.split('.')[0]) + 1}.0"
    install(tmp_path, "future_plugin", later, "from-the-future")
    install(tmp_path, "past_plugin", "1.0", "from-the-past")
    program = (
        "import nqueens_plugins as nq\n"
        "names = {r.solver.name for r in nq.solvers()}\n"
        "print('from-the-past' in names, 'from-the-future' in names, 'min-conflicts' in names)\n"
    )
    env = {"PYTHONPATH": f"{tmp_path}:{Path(nq.__file__).parent.parent}", "PATH": "/usr/bin:/bin",
           "NQUEENS_CACHE_DIR": str(tmp_path / "cache"), "HOME": str(tmp_path)}  # fmt: skip
    shown = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert shown.stdout.split() == ["True", "False", "True"], shown.stderr
    listed = subprocess.run(
        [sys.executable, "-m", "nqueens_plugins", "plugins"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    line = next(line for line in (listed.stdout + listed.stderr).splitlines() if "future_plugin" in line)
    assert f"contract {later}" in line and CONTRACT_VERSION in line, listed.stdout + listed.stderr


def test_the_contract_kit_prints_the_contract_it_holds_solvers_to(tmp_path: Path) -> None:
    (tmp_path / "test_nothing.py").write_text("def test_nothing():\n    pass\n", encoding="utf-8")
    kit = ["-p", "nqueens_plugins.testing", "-p", "no:xdist", "-p", "no:cacheprovider"]
    command = [sys.executable, "-m", "pytest", *kit, str(tmp_path / "test_nothing.py")]
    shown = subprocess.run(command, check=False, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert f"plugin contract {CONTRACT_VERSION}" in shown.stdout, shown.stdout + shown.stderr
