"""Loading plugins: entry points one at a time, failures kept, blocking, duplicate names."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from nqueens_plugins import BadInput
from nqueens_plugins.core.cache_folder import CACHE_VARIABLE
from nqueens_plugins.loading import host

GOOD_PLUGIN = """
from nqueens_plugins import Outcome, Solver, Status, hookimpl

class Diagonal(Solver):
    name = "knight-shift"
    summary = "Places queens in a knight's-move pattern (solves n = 1 and n with n mod 6 in 1, 5)."

    def solve(self, problem, rng, budget, options):
        n = problem.n
        queens = [(2 * c) % n for c in range(n)]
        return Outcome(Status.SOLVED, queens, 1, n)

@hookimpl
def nqueens_register_solvers(register):
    register(Diagonal())
"""


def test_builtins_are_registered_like_plugins() -> None:
    registry = host.registry()
    expected = {
        "british-museum",
        "backtracking",
        "forward-checking",
        "steepest-ascent",
        "first-choice",
        "random-neighbour",
        "random-restart",
        "simulated-annealing",
        "min-conflicts",
    }
    assert expected <= set(registry.names())
    source = registry.get("min-conflicts").source
    assert source.plugin == "builtin-min-conflicts"
    assert source.distribution == "nqueens-plugins"
    assert not registry.load_errors


def test_entry_point_plugin_is_loaded_with_its_distribution(fake_distribution) -> None:
    fake_distribution("nqueens-knight", {"knight": "knight_plugin"}, {"knight_plugin": GOOD_PLUGIN}, version="2.5")
    registry = host.load_registry()
    registration = registry.get("knight-shift")
    assert (registration.source.plugin, registration.source.distribution, registration.source.version) == (
        "knight",
        "nqueens-knight",
        "2.5",
    )
    import nqueens_plugins as nq

    host.reset()
    assert nq.solve("knight-shift", 7).verified is True
    assert nq.solve("knight-shift", 8).status == "invalid"  # the pattern fails at n = 8: the verifier says so


def test_broken_plugins_are_recorded_and_the_rest_keep_working(fake_distribution) -> None:
    fake_distribution(
        "nqueens-broken-import", {"broken": "broken_import"}, {"broken_import": "import not_a_module_xyz\n"}
    )
    fake_distribution(
        "nqueens-broken-register",
        {"raises": "raises_plugin"},
        {
            "raises_plugin": GOOD_PLUGIN.replace(
                "register(Diagonal())", "register(Diagonal()); raise RuntimeError('boom')"
            )
        },
    )
    fake_distribution(
        "nqueens-bad-solver",
        {"bad": "bad_solver"},
        {"bad_solver": GOOD_PLUGIN.replace('"knight-shift"', '"Not Kebab"')},
    )
    registry = host.load_registry()
    errors = {e.source.plugin: e for e in registry.load_errors}
    assert set(errors) == {"broken", "raises", "bad"}
    assert errors["broken"].source.distribution == "nqueens-broken-import"
    assert "not_a_module_xyz" in errors["broken"].message
    assert "boom" in errors["raises"].message
    assert "kebab-case" in errors["bad"].message
    assert "knight-shift" not in registry  # what a failing plugin registered is withdrawn
    assert "min-conflicts" in registry


def test_pluggy_hookcall_monitoring_sees_every_plugins_registration(fake_distribution) -> None:
    """The host calls each plugin's hook through pluggy, not the function itself: a tracer added with
    ``pm.add_hookcall_monitoring`` (datasette's DATASETTE_TRACE_PLUGINS) sees every call, the plugin
    that answered it and what it raised; the failing plugin is still pinned and the others still load."""
    fake_distribution("nqueens-knight", {"knight": "knight_plugin"}, {"knight_plugin": GOOD_PLUGIN})
    fake_distribution(
        "nqueens-raises",
        {"raises": "raises_plugin"},
        {"raises_plugin": GOOD_PLUGIN.replace('"knight-shift"', '"raiser"') + "    raise RuntimeError('boom')\n"},
    )
    pm = host.make_plugin_manager()
    seen: list[tuple[str, list[str]]] = []
    raised: list[str] = []

    def before(hook_name, hook_impls, kwargs) -> None:
        assert callable(kwargs["register"])
        seen.append((hook_name, [impl.plugin_name for impl in hook_impls]))

    def after(outcome, hook_name, hook_impls, kwargs) -> None:
        if outcome.exception is not None:
            raised.append(f"{hook_impls[0].plugin_name}: {outcome.exception}")

    pm.add_hookcall_monitoring(before, after)
    registry = host.load_registry(pm)
    assert {name for name, _ in seen} == {"nqueens_register_solvers"}
    answered = [plugins for _, plugins in seen]
    assert all(len(plugins) == 1 for plugins in answered)  # one plugin a call: a failure is pinned on it
    called = sorted(plugins[0] for plugins in answered)
    assert called == sorted(impl.plugin_name for impl in pm.hook.nqueens_register_solvers.get_hookimpls())
    assert {"knight", "raises", "builtin-min-conflicts"} <= set(called)
    assert raised == ["raises: boom"]
    assert "knight-shift" in registry and "raiser" not in registry


def test_duplicate_name_is_refused_naming_both_sources(fake_distribution) -> None:
    fake_distribution(
        "nqueens-clash",
        {"clash": "clash_plugin"},
        {"clash_plugin": GOOD_PLUGIN.replace('"knight-shift"', '"backtracking"')},
    )
    registry = host.load_registry()
    (error,) = registry.load_errors
    assert "registered twice" in error.message
    assert "builtin-backtracking" in error.message and "nqueens-clash" in error.message
    assert registry.get("backtracking").source.plugin == "builtin-backtracking"


def test_a_name_two_installed_plugins_claim_is_refused_for_both(fake_distribution, run_cli) -> None:
    fake_distribution("nqueens-real", {"real": "real_plugin"}, {"real_plugin": GOOD_PLUGIN})
    fake_distribution("nqueens-impostor", {"impostor": "impostor_plugin"}, {"impostor_plugin": GOOD_PLUGIN})
    registry = host.load_registry()
    assert "knight-shift" not in registry  # load order decides nothing
    errors = {e.source.distribution: e.message for e in registry.load_errors}
    assert set(errors) == {"nqueens-real", "nqueens-impostor"}
    assert all("claimed by" in message and "refused for all of them" in message for message in errors.values())
    code, _, err = run_cli("solve", "-s", "knight-shift", "-n", "8")
    assert code == 2 and "nqueens-real" in err and "nqueens-impostor" in err and len(err.strip().splitlines()) == 1


def test_misspelt_hook_is_the_plugins_error(fake_distribution) -> None:
    source = GOOD_PLUGIN.replace("def nqueens_register_solvers", "def nqueens_register_solver")
    fake_distribution(
        "nqueens-typo",
        {"typo": "typo_plugin"},
        {"typo_plugin": source.replace("@hookimpl", "@hookimpl(specname='nqueens_register_solverz')")},
    )
    registry = host.load_registry()
    assert [e.source.plugin for e in registry.load_errors] == ["typo"]
    assert "min-conflicts" in registry


def test_blocked_plugins_are_not_imported(fake_distribution, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_distribution(
        "nqueens-broken-import", {"broken": "broken_import"}, {"broken_import": "import not_a_module_xyz\n"}
    )
    monkeypatch.setenv(host.DISABLE_VARIABLE, "broken, builtin-annealing")
    registry = host.load_registry()
    assert not registry.load_errors  # never imported, so never failed
    assert set(registry.blocked) == {"broken", "builtin-annealing"}
    assert "simulated-annealing" not in registry


def test_unknown_solver_suggests_close_names() -> None:
    with pytest.raises(BadInput, match="did you mean min-conflicts"):
        host.registry().get("min-conflict")


@pytest.mark.parametrize(
    "body, words",
    [
        ("import sys\nsys.exit(5)\n", "SystemExit: 5"),
        ("raise KeyboardInterrupt('from the plugin')\n", "KeyboardInterrupt"),
    ],
)
def test_a_plugin_that_exits_at_import_is_recorded_not_fatal(fake_distribution, run_cli, body: str, words: str) -> None:
    fake_distribution("nqueens-exits", {"exits": "exits_at_import"}, {"exits_at_import": body})
    registry = host.registry()
    assert [e.source.plugin for e in registry.load_errors] == ["exits"]
    assert words in registry.load_errors[0].message
    code, out, _ = run_cli("plugins")
    assert code == 0 and "min-conflicts" in out and "exits" in out


@pytest.mark.parametrize(
    "body, words",
    [
        ("import ctypes\nctypes.string_at(0)\n", "crashed the importing process (SIGSEGV"),
        ("import os\nos._exit(4)\n", "ended the importing process with status 4"),
    ],
)
def test_a_plugin_that_kills_its_importer_is_reported_not_fatal(
    fake_distribution, run_cli, body: str, words: str
) -> None:
    fake_distribution("nqueens-crash", {"crash": "crash_at_import"}, {"crash_at_import": body})
    code, out, err = run_cli("plugins", "--json")
    assert code == 0, err
    listed = json.loads(out)
    (error,) = [e for e in listed["load_errors"] if e["plugin"] == "crash"]
    assert words in error["error"]
    assert any(s["name"] == "min-conflicts" for s in listed["solvers"])
    # Solving goes through worker processes, which must not import it either.
    code, out, err = run_cli("solve", "-s", "min-conflicts", "-n", "8", "--json")
    assert code == 0 and json.loads(out)["verified"] is True, err


def test_import_probes_are_cached_per_environment(fake_distribution, run_cli, probe_cache: Path) -> None:
    site = fake_distribution(
        "nqueens-crash", {"crash": "crash_at_import"}, {"crash_at_import": "import os\nos._exit(4)\n"}
    )
    assert run_cli("plugins")[0] == 0
    cache = probe_cache / "import-probes.json"
    verdicts = json.loads(cache.read_text())
    (key,) = [k for k in verdicts if k.startswith("nqueens-crash==1.0 ") and str(site) in k]
    assert verdicts[key]["refused"].startswith("importing it ended the importing process")
    verdicts[key] = {"refused": "a verdict read from the cache", "names": None}  # not probed again
    cache.write_text(json.dumps(verdicts))
    code, out, _ = run_cli("plugins", "--json")
    assert code == 0 and "a verdict read from the cache" in out


SLOW_IMPORT = """
    import os, time
    from pathlib import Path
    from nqueens_plugins import hookimpl
    from nqueens_plugins.builtin.random_placement import BritishMuseum

    with open(os.environ["SLOW_IMPORT_LOG"], "a") as log:
        log.write(f"{os.getpid()}\\n")
    time.sleep(float(os.environ.get("SLOW_IMPORT_SECONDS", "0")))

    class Slow(BritishMuseum):
        name = "slow-to-import"

    @hookimpl
    def nqueens_register_solvers(register):
        register(Slow())
"""


def test_a_plugin_slow_to_import_is_imported_only_by_the_commands_that_use_it(
    fake_distribution, run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "imports.log"
    monkeypatch.setenv("SLOW_IMPORT_LOG", str(log))
    monkeypatch.setenv("SLOW_IMPORT_SECONDS", "0.5")
    fake_distribution("nqueens-slow", {"slow": "slow_plugin"}, {"slow_plugin": SLOW_IMPORT})

    def imports() -> list[str]:
        return log.read_text().split() if log.exists() else []

    code, out, err = run_cli("solve", "-s", "min-conflicts", "-n", "8", "--json")
    assert code == 0 and json.loads(out)["verified"] is True, err
    (probe_pid,) = imports()  # the probe imported it once, in a child, to learn its solver names
    assert int(probe_pid) != os.getpid()
    for args in (
        ("solve", "-s", "min-conflicts", "-n", "8"),
        ("count", "-n", "6", "--no-progress"),
        ("compare", "-s", "backtracking,min-conflicts", "-n", "6", "--trials", "2"),
    ):
        code, _, err = run_cli(*args)
        assert code == 0, err
    assert imports() == [probe_pid]  # none of those imported it, here or in a worker
    code, out, err = run_cli("solve", "-s", "slow-to-import", "-n", "5", "--json")
    assert code == 0 and json.loads(out)["verified"] is True, err
    assert str(os.getpid()) in imports()  # the command that uses it does import it
    code, out, _ = run_cli("plugins", "--json")
    assert any(s["name"] == "slow-to-import" for s in json.loads(out)["solvers"])
    code, _, err = run_cli("solve", "-s", "no-such-solver", "-n", "5")
    assert code == 2 and "unknown solver 'no-such-solver'" in err and "'nqueens plugins' lists every solver" in err


def test_a_command_naming_one_plugins_solver_imports_no_other_plugin(
    fake_distribution, run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A cache of its own: the probes run here, so a probe that learns no names (lazy loading off) shows.
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "cache"))
    monkeypatch.setenv("SLOW_IMPORT_SECONDS", "0")
    logs = {}
    for plugin in ("first", "second"):
        logs[plugin] = tmp_path / f"{plugin}.log"
        source = SLOW_IMPORT.replace('os.environ["SLOW_IMPORT_LOG"]', repr(str(logs[plugin])))
        source = source.replace('"slow-to-import"', f'"{plugin}-solver"')
        fake_distribution(f"nqueens-{plugin}", {plugin: f"{plugin}_plugin"}, {f"{plugin}_plugin": source})
    code, out, err = run_cli("solve", "-s", "first-solver", "-n", "5", "--json")
    assert code == 0 and json.loads(out)["verified"] is True, err
    verdicts = json.loads((tmp_path / "cache" / "import-probes.json").read_text())
    names = sorted(name for verdict in verdicts.values() for name in verdict["names"] or ())
    assert {"first-solver", "second-solver"} <= set(names), verdicts  # the probes learnt each plugin's names
    imported_by = {plugin: log.read_text().split() for plugin, log in logs.items()}
    assert str(os.getpid()) in imported_by["first"]
    assert str(os.getpid()) not in imported_by["second"], "naming first-solver imported the second plugin"


def test_a_duck_typed_solver_is_refused_and_listing_still_works(fake_distribution, run_cli) -> None:
    duck = """
        from nqueens_plugins import Outcome, Status, hookimpl

        class Duck:
            name = "duck"
            summary = "Looks like a solver."
            options = ()

            def solve(self, problem, rng, budget, options):
                return Outcome(Status.GAVE_UP, None, 0, 0)

        @hookimpl
        def nqueens_register_solvers(register):
            register(Duck())
    """
    fake_distribution("nqueens-duck", {"duck": "duck_plugin"}, {"duck_plugin": duck})
    registry = host.registry()
    assert "duck" not in registry.registrations
    assert "must be an instance of a nqueens_plugins.Solver subclass" in registry.load_errors[0].message
    code, out, _ = run_cli("plugins", "--json")
    assert code == 0 and '"min-conflicts"' in out


def test_a_solver_names_its_family_and_the_listing_shows_it(fake_distribution, run_cli) -> None:
    fake_distribution(
        "nqueens-family",
        {"fam": "family_plugin"},
        {"family_plugin": GOOD_PLUGIN.replace('name = "knight-shift"', 'name = "knight-shift"\n    family = "SAT"')},
    )
    fake_distribution(
        "nqueens-bad-family",
        {"badfam": "bad_family_plugin"},
        {
            "bad_family_plugin": GOOD_PLUGIN.replace('"knight-shift"', '"shift-two"').replace(
                'name = "shift-two"', 'name = "shift-two"\n    family = 7'
            )
        },
    )
    registry = host.load_registry()
    assert [e.source.plugin for e in registry.load_errors] == ["badfam"]
    assert "family must be a short name" in registry.load_errors[0].message
    code, out, _ = run_cli("plugins", "--json")
    assert code == 0
    families = {s["name"]: s["family"] for s in json.loads(out)["solvers"]}
    assert families["knight-shift"] == "SAT" and families["min-conflicts"] == "local search"
    assert families["bitset-mrv"] == "search" and families["construction"] == "construction"
