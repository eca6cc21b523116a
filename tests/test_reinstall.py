"""Installs that survive a reinstall: numba's compiled kernels are cached in the user's cache folder, never in
the installed package (pip's uninstall would leave them there, as a stray ``nqueens_plugins`` folder that shadows
a later editable install) nor in a checkout's tree."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

pytest.importorskip("numba", reason="the compiled kernels need numba (pip install '.[fast]')")
# Each test builds the package from this checkout's pyproject.toml and source (the run against installed wheels is
# itself the test of an install from a wheel).
pytestmark = pytest.mark.repository("pyproject.toml, README.md, LICENSE, nqueens_plugins/ as a checkout")

ROOT = Path(__file__).resolve().parents[1]
NUMBA_CACHE = ("*.nbi", "*.nbc")


def numba_cache_files(folder: Path) -> list[Path]:
    return sorted(path for pattern in NUMBA_CACHE for path in folder.rglob(pattern))


def copy_checkout(target: Path) -> Path:
    """What pip needs to build the package, copied: a build in the real checkout would leave ``build/`` there."""
    target.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, target / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", *NUMBA_CACHE)
    shutil.copytree(ROOT / "nqueens_plugins", target / "nqueens_plugins", ignore=ignore)
    return target


def host_site_without_this_package(target: Path) -> Path:
    """This environment's packages (numba, pip, setuptools...) seen through links, without any nqueens
    distribution or editable finder: the fresh venv gets its dependencies offline and this package only
    from what the test installs."""
    target.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.lower().startswith(("nqueens", "__editable__")):
            (target / entry.name).symlink_to(entry)
    return target


def run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, timeout=300, check=False)


def test_install_solve_then_editable_reinstall_in_the_same_venv_still_solves(tmp_path: Path) -> None:
    checkout = copy_checkout(tmp_path / "checkout")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)  # pip: the host's
    python = str(venv / "bin" / "python")
    site = Path(
        run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp_path, {}).stdout.strip()
    )
    host_site = host_site_without_this_package(tmp_path / "host-site")
    (site / "host.pth").write_text(f"import site; site.addsitedir({str(host_site)!r})\n")
    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "NUMBA_CACHE_DIR", "NQUEENS_CACHE_DIR"}}
    env |= {"NQUEENS_CACHE_DIR": str(cache), "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    pip = [python, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--quiet"]
    # swap-search compiles four small kernels: the quickest solve that writes numba's cache.
    solve = [python, "-m", "nqueens_plugins", "solve", "-s", "swap-search[kernel=numba]", "-n", "8", "--json"]

    installed = run([*pip, str(checkout)], tmp_path, env)
    assert installed.returncode == 0, installed.stderr
    assert (site / "nqueens_plugins" / "__init__.py").is_file()
    first = run(solve, tmp_path, env)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["verified"] is True
    assert numba_cache_files(site / "nqueens_plugins") == []
    assert numba_cache_files(cache), "the compiled kernels should be cached in the user's cache folder"

    editable = run([*pip, "-e", str(checkout)], tmp_path, env)
    assert editable.returncode == 0, editable.stderr
    assert not (site / "nqueens_plugins").exists(), "pip's uninstall left a stray folder behind"
    second = run(solve, tmp_path, env)
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["verified"] is True
    assert numba_cache_files(checkout / "nqueens_plugins") == []


def compile_in_a_copy(tmp_path: Path, **variables: str) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A kernel compiled from a copy of the package, so that it is surely compiled (not loaded from an
    earlier cache) and its cache saved here and now, with ``variables`` set (NQUEENS_CACHE_DIR, NUMBA_CACHE_DIR)."""
    checkout = copy_checkout(tmp_path / "checkout")
    env = {k: v for k, v in os.environ.items() if k not in {"NUMBA_CACHE_DIR", "NQUEENS_CACHE_DIR"}}
    env |= {"PYTHONPATH": str(checkout), **variables}
    program = "from nqueens_plugins.builtin.engines import swap_kernel; swap_kernel.COMPILED['seed_generator'](1)"
    return checkout, run([sys.executable, "-c", program], checkout, env)


def test_a_compile_in_a_checkout_is_cached_in_the_user_cache_folder_not_in_the_tree(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    checkout, done = compile_in_a_copy(tmp_path, NQUEENS_CACHE_DIR=str(cache))
    assert done.returncode == 0, done.stderr
    assert numba_cache_files(checkout / "nqueens_plugins") == []
    assert [path.parent.parent for path in numba_cache_files(cache)] == [cache / "numba"] * 2  # an index, a kernel


def test_the_users_own_numba_cache_dir_is_respected(tmp_path: Path) -> None:
    cache, numba_cache = tmp_path / "cache", tmp_path / "numba-cache"
    checkout, done = compile_in_a_copy(tmp_path, NQUEENS_CACHE_DIR=str(cache), NUMBA_CACHE_DIR=str(numba_cache))
    assert done.returncode == 0, done.stderr
    assert [path.parent.parent for path in numba_cache_files(numba_cache)] == [numba_cache] * 2
    assert numba_cache_files(cache) == [] and numba_cache_files(checkout / "nqueens_plugins") == []


def test_a_cache_folder_that_cannot_be_written_means_no_cache_not_an_error(tmp_path: Path) -> None:
    """A file where the folder should be: refused even to root (who may write a read-only folder)."""
    (tmp_path / "a-file").write_text("")
    _, done = compile_in_a_copy(tmp_path, NQUEENS_CACHE_DIR=str(tmp_path / "a-file" / "cache"))
    assert done.returncode == 0, done.stderr
    assert numba_cache_files(tmp_path) == []
