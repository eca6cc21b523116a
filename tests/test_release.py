"""Releases: one version for the host and its eight plugin distributions, each plugin admitting the host it is
released with; wheels that hold every file their package reads; the version the command and a results file report.

The version is written once per distribution, in its ``pyproject.toml``; at run time it is read from the installed
metadata (``nqueens --version``, ``nqueens plugins``, a results file's header). CI (.ci/run) builds the wheels and
sdists with ``python -m build``, checks them with ``twine check`` and runs this suite once more against the wheels
installed in a fresh venv; the wheel test here builds them without isolation, so it needs no package index.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Callable
from email.parser import Parser
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from nqueens_plugins.formats import records
from nqueens_plugins.loading import host

ROOT = Path(__file__).resolve().parent.parent
PLUGINS = ("ortools", "constraint", "z3", "highs", "clingo", "choco", "pysat", "minizinc", "cpmpy")
PLUGIN_FOLDERS = [ROOT / "plugins" / f"nqueens-{name}" for name in PLUGINS]
DISTRIBUTIONS = ["nqueens-plugins", *(folder.name for folder in PLUGIN_FOLDERS)]
# What a build leaves beside the sources, and numba's cache files: never part of a package.
SKIPPED_IN_SOURCE = ("__pycache__", "*.pyc", "*.egg-info", "*.nbi", "*.nbc", "build")


def folder_of(distribution: str) -> Path:
    return ROOT if distribution == "nqueens-plugins" else ROOT / "plugins" / distribution


def project(folder: Path) -> dict:
    return tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def host_requirement(requirements: list[str]) -> Requirement:
    (found,) = [req for req in map(Requirement, requirements) if req.name == "nqueens-plugins"]
    return found


def next_minor(version: Version) -> Version:
    return Version(f"{version.major}.{version.minor + 1}")


@pytest.mark.repository("pyproject.toml and plugins/*/pyproject.toml, LICENSE, CHANGELOG.md")
def test_every_distribution_has_the_hosts_version_and_admits_that_minor_version_of_the_host() -> None:
    assert sorted(p.name for p in (ROOT / "plugins").iterdir() if (p / "pyproject.toml").exists()) == sorted(
        folder.name for folder in PLUGIN_FOLDERS
    )
    version = Version(project(ROOT)["version"])
    for folder in PLUGIN_FOLDERS:
        plugin = project(folder)
        assert Version(plugin["version"]) == version, folder.name
        admitted = host_requirement(plugin["dependencies"]).specifier
        assert version in admitted, (folder.name, str(admitted))
        assert Version(f"{version.major}.{version.minor}") in admitted, (folder.name, str(admitted))
        assert next_minor(version) not in admitted, (folder.name, str(admitted))
        if version.minor > 0:  # nor the minor version before, whose contract it was not tested against
            assert Version(f"{version.major}.{version.minor - 1}.99") not in admitted, (folder.name, str(admitted))
        # The license each distribution ships is the repository's.
        assert (folder / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes(), folder.name
    # The changelog's newest release is this version.
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", changelog, flags=re.MULTILINE)
    assert released and Version(released[0]) == version, released


def test_the_installed_plugins_have_the_hosts_version_and_admit_it() -> None:
    """What is installed agrees as the sources do (the wheels, in CI's second run)."""
    version = Version(metadata.version("nqueens-plugins"))
    for name in PLUGINS:
        plugin = metadata.distribution(f"nqueens-{name}")
        assert Version(plugin.version) == version, name
        assert version in host_requirement(plugin.requires or []).specifier, name


def test_the_command_the_solvers_and_a_results_file_report_the_installed_version(run_cli: Callable) -> None:
    version = metadata.version("nqueens-plugins")
    code, out, _ = run_cli("--version")
    assert code == 0 and out.split()[-1] == version, out
    assert records.environment("nqueens compare")["packages"]["nqueens-plugins"] == version
    assert host.package_version() == version
    builtin = host.registry().get("min-conflicts").source
    assert (builtin.distribution, builtin.version) == ("nqueens-plugins", version)


def source_files(package: Path) -> set[str]:
    """Every file of a package's source folder, as a wheel names it (``nqueens_plugins/data/README.md``)."""
    return {
        path.relative_to(package.parent).as_posix()
        for path in package.rglob("*")
        if path.is_file() and not any(Path(part).match(pattern) for part in path.parts for pattern in SKIPPED_IN_SOURCE)
    }


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The nine wheels, built from a copy of the checkout (a build writes ``build/`` and metadata beside the
    sources) without build isolation: the setuptools of this environment, no package index."""
    copy = tmp_path_factory.mktemp("checkout")
    ignore = shutil.ignore_patterns(*SKIPPED_IN_SOURCE, "tests")
    for name in ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in", "CHANGELOG.md"):
        shutil.copy2(ROOT / name, copy / name)
    shutil.copytree(ROOT / "nqueens_plugins", copy / "nqueens_plugins", ignore=ignore)
    for folder in PLUGIN_FOLDERS:
        shutil.copytree(folder, copy / "plugins" / folder.name, ignore=ignore)
    out = tmp_path_factory.mktemp("wheels")
    projects = [str(copy)] + [str(copy / "plugins" / folder.name) for folder in PLUGIN_FOLDERS]
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet", "--wheel-dir"]
    done = subprocess.run([*pip, str(out), *projects], capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    built = {wheel.name.split("-")[0]: wheel for wheel in out.glob("*.whl")}
    assert sorted(built) == sorted(["nqueens_plugins", *(f"nqueens_{name}" for name in PLUGINS)]), built
    return built


def wheel_metadata(wheel: Path) -> tuple[set[str], dict[str, list[str]]]:
    """(the files of the wheel outside its .dist-info, the METADATA fields, each a list of its values)."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (meta,) = [name for name in names if name.endswith(".dist-info/METADATA")]
        message = Parser().parsestr(archive.read(meta).decode("utf-8"))
    fields: dict[str, list[str]] = {}
    for key, value in message.items():
        fields.setdefault(key, []).append(value)
    licenses = {name.split("/licenses/", 1)[1] for name in names if "/licenses/" in name}
    fields["license files shipped"] = sorted(licenses)
    return {name for name in names if ".dist-info/" not in name}, fields


@pytest.mark.repository("pyproject.toml, nqueens_plugins/ and plugins/ built into wheels")
@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
def test_each_wheel_holds_every_file_of_its_package_and_says_what_it_is(
    distribution: str, wheels: dict[str, Path]
) -> None:
    folder, module = folder_of(distribution), distribution.replace("-", "_")
    files, fields = wheel_metadata(wheels[module])
    expected = source_files(folder / module)
    assert files == expected, f"left out: {sorted(expected - files)}, not in the source: {sorted(files - expected)}"
    declared = project(folder)
    assert fields["Name"] == [declared["name"]] and fields["Version"] == [declared["version"]]
    assert fields["License-Expression"] == ["MIT"] and fields["license files shipped"] == ["LICENSE"]
    assert fields["Requires-Python"] == [">=3.11"]
    assert fields["Description-Content-Type"] == ["text/markdown"]
    classifiers = set(fields["Classifier"])
    assert {f"Programming Language :: Python :: 3.{minor}" for minor in (11, 12, 13)} <= classifiers
    assert "Topic :: Scientific/Engineering :: Artificial Intelligence" in classifiers
    assert any(c.startswith("Development Status :: ") for c in classifiers)
    if distribution != "nqueens-plugins":
        (dependency,) = [r for r in fields["Requires-Dist"] if r.startswith("nqueens-plugins")]
        version = Version(declared["version"])
        assert (
            version in Requirement(dependency).specifier
            and next_minor(version) not in Requirement(dependency).specifier
        )


@pytest.mark.repository("nqueens_plugins/ built into a wheel")
def test_the_hosts_wheel_holds_the_data_it_reads(wheels: dict[str, Path]) -> None:
    """Named one by one, so that a file left out fails here even if it were left out of the source folder too."""
    files, _ = wheel_metadata(wheels["nqueens_plugins"])
    data = {
        "py.typed",
        "data/README.md",
        "data/diag-10-4-1.param",
        "data/blockedqueens.28.1449787894.param",
        "data/blockedqueens.56.1860451109.param",
        "data/published-answers.txt.gz",
    }
    assert {f"nqueens_plugins/{name}" for name in data} <= files
    plugin_data = {
        "choco": {"nqueens_choco/nqueens.mzn"},
        "clingo": {"nqueens_clingo/encodings/competition.lp", "nqueens_clingo/encodings/textbook.lp"},
        "minizinc": {
            "nqueens_minizinc/nqueens.mzn",
            "nqueens_minizinc/nqueens-dual.mzn",
            "nqueens_minizinc/mznlib/native/fzn_all_different_int.mzn",
            "nqueens_minizinc/mznlib/decomposed/fzn_all_different_int.mzn",
        },
    }
    for name, needed in plugin_data.items():
        assert needed <= wheel_metadata(wheels[f"nqueens_{name}"])[0], name
