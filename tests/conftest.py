"""Shared fixtures: fake installed distributions, a fresh registry, an in-process CLI; and the tests of the
repository (its README, docs, examples, pyproject.toml) told apart from the tests of the package.

The suite runs twice in CI (.ci/run): against this checkout's source (an editable install), and again, copied
out of the checkout, against the wheels installed into a fresh venv. A test that reads the repository rather than
the package is marked ``@pytest.mark.repository("what it reads")``; in the second run it is skipped, saying so."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

import nqueens_plugins
from nqueens_plugins.core.cache_folder import CACHE_VARIABLE
from nqueens_plugins.loading import host, probe, session
from nqueens_plugins.proofs.jit import NO_JIT_VARIABLE

# No property test fails by its examples' wall time: on a loaded machine (the suite is run beside two busy loops)
# an example's 200 ms deadline is chance, not a finding. A test that sets its own settings keeps this default.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))  # test helper modules (hostile solvers) importable by worker processes
# A plugin distribution of its own, with its own tests: test_legacy_plugin.py installs it and runs them there.
collect_ignore = ["legacy-plugin"]

# The checkout these tests belong to, when they run from one: its README, docs/, examples/, plugins/.
REPOSITORY = HERE.parent
TESTED_PACKAGE = Path(nqueens_plugins.__file__).resolve().parent
# The package under test is this checkout's source (an editable install, or PYTHONPATH), not one installed from a
# wheel: only then do the repository's files describe the code being tested.
TESTING_THE_CHECKOUT = TESTED_PACKAGE == (REPOSITORY / "nqueens_plugins").resolve()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "repository(what): reads the repository (what: which of its files), not only the installed package; "
        "skipped when the package under test is not this checkout's (the run against installed wheels)",
    )


def pytest_report_header(config: pytest.Config) -> str:
    if TESTING_THE_CHECKOUT:
        return f"nqueens_plugins: {TESTED_PACKAGE} (this checkout's source)"
    return f"nqueens_plugins: {TESTED_PACKAGE} (installed: the tests of the repository are skipped)"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if TESTING_THE_CHECKOUT:
        return
    for item in items:
        marker = item.get_closest_marker("repository")
        if marker is not None:
            reason = (
                f"tests the repository ({marker.args[0]}), not the package: nqueens_plugins here is "
                f"{TESTED_PACKAGE}, not this checkout's; the run from the checkout tests it"
            )
            item.add_marker(pytest.mark.skip(reason=reason))


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


@pytest.fixture
def registered() -> Iterator[Callable[[nqueens_plugins.Solver], str]]:
    """``register(solver)``: the solver registered for this test (``nq.register``) and withdrawn after it; its name."""
    names: list[str] = []

    def register(solver: nqueens_plugins.Solver) -> str:
        nqueens_plugins.register(solver)
        names.append(solver.name)
        return solver.name

    yield register
    for name in names:
        nqueens_plugins.unregister(name)
