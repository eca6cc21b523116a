"""Discovery in the loading layer: the probe program is a real module, and a probe that cannot import the
host itself is reported as the host's failure, never taken for a plugin that registers nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from nqueens_plugins.execution import processes
from nqueens_plugins.loading import discovery, host, probe, probe_program

PLUGIN = """
    from nqueens_plugins import hookimpl
    from nqueens_plugins.builtin.random_placement import BritishMuseum

    class Found(BritishMuseum):
        name = "found-by-probe"

    @hookimpl
    def nqueens_register_solvers(register):
        register(Found())
"""


def run_probe(value: str) -> tuple[int, bytes]:
    """The probe program as the host runs it (python -m), reading what it writes to its pipe."""
    read_end, write_end = os.pipe()
    child = subprocess.run(
        [sys.executable, "-m", probe.PROBE_PROGRAM, value, str(write_end)],
        pass_fds=(write_end,),
        env=processes.child_environment(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    os.close(write_end)
    return child.returncode, probe.read_available(read_end)


def test_the_probe_program_runs_as_a_module_and_reports_the_names(fake_distribution) -> None:
    fake_distribution("nqueens-found", {"found": "found_plugin"}, {"found_plugin": PLUGIN})
    code, said = run_probe("found_plugin")
    verdict = probe.read_verdict(said, code)
    assert code == 0 and verdict.refused == "" and verdict.names == ("found-by-probe",)
    assert verdict.cacheable and verdict.host_failure == ""


def test_a_plugin_that_raises_at_import_survives_the_probe_with_no_names(fake_distribution) -> None:
    fake_distribution("nqueens-raises", {"raises": "raises_plugin"}, {"raises_plugin": "raise SystemExit(3)\n"})
    code, said = run_probe("raises_plugin")
    assert probe.read_verdict(said, code) == probe.ImportVerdict("", ())


def test_a_probe_that_cannot_import_the_host_says_so() -> None:
    verdict = probe.read_verdict(probe_program.HOST_BROKEN + b"ImportError('no module named x')", 0)
    assert verdict.refused == "" and verdict.names is None and not verdict.cacheable
    assert "could not import the host itself: ImportError('no module named x')" in verdict.host_failure


def test_the_host_reports_a_broken_probe_and_still_loads_the_plugin(
    fake_distribution, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_distribution("nqueens-found", {"found": "found_plugin"}, {"found_plugin": PLUGIN})
    broken = probe.ImportVerdict("", None, host_failure="the import probe could not import the host itself: X")
    monkeypatch.setattr(probe, "probe_all", lambda points: dict.fromkeys(points, broken))
    registry = host.load_registry(only=["min-conflicts"])
    assert registry.probe_failures == [broken.host_failure]
    assert "found-by-probe" in registry.registrations  # names unknown: imported, not left out
    code, out, _ = run_cli("plugins")
    assert code == 0 and "warning: the import probe could not import the host itself: X" in out
    code, out, _ = run_cli("plugins", "--json")
    assert json.loads(out)["probe_failures"] == [broken.host_failure]
    code, _, err = run_cli("compare", "-s", "all", "-n", "4", "--timeout", "5")
    assert code == 0 and "could not import the host itself: X; every installed plugin was imported" in err


def test_disabled_plugins_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(discovery.DISABLE_VARIABLE, " a, b ,,c ")
    assert discovery.disabled_plugins() == {"a", "b", "c"}
