"""Shared fixtures: fake installed distributions, a fresh registry, an in-process CLI."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from nqueens_plugins.core.cache_folder import CACHE_VARIABLE
from nqueens_plugins.loading import host, probe, session
from nqueens_plugins.proofs.jit import NO_JIT_VARIABLE

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))  # test helper modules (hostile solvers) importable by worker processes


@pytest.fixture(scope="session")
def probe_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One import-probe cache for the session, never the user's own."""
    return tmp_path_factory.mktemp("probe-cache")


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch: pytest.MonkeyPatch, probe_cache: Path) -> Iterator[None]:
    """Every test starts from an unloaded registry, no blocked plugins and no solver registered in session."""
    monkeypatch.delenv(host.DISABLE_VARIABLE, raising=False)
    monkeypatch.delenv(probe.INHERITED_VARIABLE, raising=False)
    monkeypatch.setenv(CACHE_VARIABLE, str(probe_cache))
    # The certificate checker a worker starts checks the tests' tiny proofs in plain Python: loading numba
    # there would cost most of a second per worker. test_checker_process runs the compiled one.
    monkeypatch.setenv(NO_JIT_VARIABLE, "1")
    session.clear()
    host.reset()
    yield
    session.clear()
    host.reset()


FakeDistribution = Callable[..., Path]


@pytest.fixture
def fake_distribution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeDistribution:
    """Install a distribution on sys.path by hand: dist-info metadata, entry points, modules."""
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    created: list[str] = []

    def make(name: str, entry_points: dict[str, str], modules: dict[str, str], version: str = "1.0") -> Path:
        info = site / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        lines = ["[nqueens]"] + [f"{key} = {value}" for key, value in entry_points.items()]
        (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
        for module, source in modules.items():
            (site / f"{module}.py").write_text(textwrap.dedent(source))
            created.append(module)
        return site

    yield make  # type: ignore[misc]
    for module in created:
        sys.modules.pop(module, None)


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Callable[..., tuple[int, str, str]]:
    """Run ``nqueens ARGS`` in this process; returns (exit status, stdout, stderr)."""
    from nqueens_plugins.cli import main

    def invoke(*args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", ["nqueens", *args])
        host.reset()
        code = 0
        try:
            main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return invoke
