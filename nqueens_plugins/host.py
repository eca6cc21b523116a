"""The plugin manager: loads built-ins and installed plugins into one registry.

Loading order and isolation:

1. Installed plugins, from the entry point group ``nqueens``, one entry point at
   a time. Each is first imported once in a throwaway process (``probe.py``,
   cached per environment): a plugin whose import crashes its importer is
   reported and never imported here. pluggy's own ``load_setuptools_entrypoints`` stops at the first
   plugin that fails to import; here a failing plugin becomes a ``LoadError``
   (plugin, distribution, version, message) and loading goes on.
2. The built-in plugins, registered as plugins like any other.
3. ``check_pending()``: a hook implementation with a misspelt name is an error
   of that plugin, not of the host.
4. Every plugin's ``nqueens_register_solvers`` is called on its own, built-ins
   first, with a ``register`` bound to that plugin: a plugin that raises is
   recorded, whatever it registered is withdrawn, and the others keep working.
5. A solver name is taken once. A plugin claiming a built-in's name fails (the
   built-ins register first); a name that two installed plugins claim is
   refused for both and each is reported, so that load order never decides
   which of them runs under that name.

``NQUEENS_DISABLE_PLUGINS=name,...`` blocks plugins (by entry point name,
distribution name or built-in plugin name) before they are imported.
"""

from __future__ import annotations

import functools
import importlib
import os
from importlib import metadata

import pluggy

from nqueens_plugins import hookspecs, probe
from nqueens_plugins.registry import LoadError, Registry, SolverRegister, Source

ENTRY_POINT_GROUP = "nqueens"
DISABLE_VARIABLE = "NQUEENS_DISABLE_PLUGINS"

# One module per family of methods; each is an ordinary plugin.
BUILTIN_PLUGINS: tuple[str, ...] = (
    "nqueens_plugins.builtin.random_placement",
    "nqueens_plugins.builtin.backtracking",
    "nqueens_plugins.builtin.hill_climbing",
    "nqueens_plugins.builtin.annealing",
    "nqueens_plugins.builtin.min_conflicts",
    "nqueens_plugins.builtin.bitboard",
    "nqueens_plugins.builtin.construction",
    "nqueens_plugins.builtin.swap_search",
    "nqueens_plugins.builtin.bitset_mrv",
)


def builtin_plugin_name(module: str) -> str:
    """``nqueens_plugins.builtin.min_conflicts`` -> ``builtin-min-conflicts``."""
    return "builtin-" + module.rsplit(".", 1)[1].replace("_", "-")


def disabled_plugins() -> set[str]:
    raw = os.environ.get(DISABLE_VARIABLE, "")
    return {name.strip() for name in raw.split(",") if name.strip()}


def make_plugin_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    return pm


def load_registry(pm: pluggy.PluginManager | None = None) -> Registry:
    """Build a fresh registry from everything installed (see the module docstring)."""
    pm = pm or make_plugin_manager()
    registry = Registry()
    blocked = disabled_plugins()
    sources: dict[str, Source] = {}

    wanted: list[metadata.EntryPoint] = []
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        dist = entry_point.dist
        if blocked & {entry_point.name, dist.name if dist else None}:
            registry.blocked.append(entry_point.name)
            pm.set_blocked(entry_point.name)
        elif all(entry_point.name != seen.name for seen in wanted):  # not the same distribution seen twice
            wanted.append(entry_point)
    refused = probe.refusals(wanted)
    registry.probe_refusals = refused
    for entry_point in wanted:
        dist = entry_point.dist
        source = Source(entry_point.name, dist.name if dist else None, dist.version if dist else None)
        if entry_point.name in refused:
            registry.load_errors.append(LoadError(source, refused[entry_point.name]))
            pm.set_blocked(entry_point.name)
            continue
        try:
            plugin = entry_point.load()
            pm.register(plugin, name=entry_point.name)
        except BaseException as exc:  # noqa: BLE001 - sys.exit or KeyboardInterrupt at import is that plugin's failure too
            registry.load_errors.append(LoadError(source, describe_exception(exc)))
            continue
        sources[entry_point.name] = source

    for module_name in BUILTIN_PLUGINS:
        name = builtin_plugin_name(module_name)
        if name in blocked:
            registry.blocked.append(name)
            continue
        pm.register(importlib.import_module(module_name), name=name)
        sources[name] = Source(name, "nqueens-plugins", package_version())

    while True:
        try:
            pm.check_pending()
            break
        except pluggy.PluginValidationError as exc:
            bad = pm.get_name(exc.plugin) or str(exc.plugin)
            registry.load_errors.append(LoadError(sources.get(bad, Source(bad)), str(exc)))
            pm.unregister(exc.plugin)

    hook = pm.hook.nqueens_register_solvers
    builtins_first = sorted(hook.get_hookimpls(), key=lambda impl: not impl.plugin_name.startswith("builtin-"))
    for impl in builtins_first:
        source = sources.get(impl.plugin_name, Source(impl.plugin_name))
        register = SolverRegister(registry, source)
        try:
            # Called one plugin at a time so that a failure is pinned on its plugin;
            # like pluggy, pass only the arguments the implementation names.
            impl.function(**{arg: register for arg in impl.argnames if arg == "register"})
        except BaseException as exc:  # noqa: BLE001 - any failure is that plugin's, sys.exit included
            register.withdraw()
            registry.load_errors.append(LoadError(source, describe_exception(exc)))
    registry.load_errors.extend(registry.clash_errors())
    return registry


def describe_exception(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


@functools.cache
def package_version() -> str:
    try:
        return metadata.version("nqueens-plugins")
    except metadata.PackageNotFoundError:
        return "0+unknown"


@functools.cache
def registry() -> Registry:
    """The process-wide registry, loaded once on first use."""
    return load_registry()


def reset() -> None:
    """Forget the loaded registry (tests, or after installing a plugin at run time)."""
    registry.cache_clear()
