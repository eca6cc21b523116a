"""Loading layer, parent side: the plugin manager, loading built-ins and installed plugins into one registry.

Loading order and isolation:

1. Installed plugins, from the entry point group ``nqueens``, one entry point at
   a time. Each is first imported once in a throwaway process (``probe.py``,
   cached per environment; ``discovery.py`` finds them): a plugin whose import crashes its importer is
   reported and never imported here. pluggy's own ``load_setuptools_entrypoints`` stops at the first
   plugin that fails to import; here a failing plugin becomes a ``LoadError``
   (plugin, distribution, version, message) and loading goes on.
2. The built-in plugins, registered as plugins like any other.
3. ``check_pending()``: a hook implementation with a misspelt name is an error
   of that plugin, not of the host.
4. Every plugin's ``nqueens_register_solvers`` is called on its own, built-ins
   first, with a ``register`` bound to that plugin: a plugin that raises is
   recorded, whatever it registered is withdrawn, and the others keep working.
   Each call goes through pluggy (``only_hook``), so a tracer added with
   ``pm.add_hookcall_monitoring`` sees every plugin's registration. A solve is not
   a hook call: it is a method of the registered ``Solver``, called in a worker
   process that has no plugin manager (``execution/calls.py``), as llm's models are.
5. A solver name is taken once. A plugin claiming a built-in's name fails (the
   built-ins register first); a name that two installed plugins claim is
   refused for both and each is reported, so that load order never decides
   which of them runs under that name.
   A plugin module that declares a plugin contract this host cannot serve
   (``nqueens_contract = "2.0"``: ``hookspecs.contract_refusal``) is a ``LoadError``
   naming both versions, and is not registered.
6. Solvers registered in this process (``nq.register``, ``session.py``) come
   last; ``register`` refused any name already taken, and one that a plugin
   installed since then claims is refused here.

A command that names its solvers loads through ``registry_for(names)``: an
installed plugin whose probe saw it register none of those names is not
imported at all, so a plugin that is slow to import costs only the commands
that use it (or list everything: ``nqueens plugins``, ``-s all``).

``NQUEENS_DISABLE_PLUGINS=name,...`` blocks plugins (by entry point name,
distribution name or built-in plugin name) before they are imported.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Collection, Iterable, Sequence
from importlib import metadata

import pluggy

from nqueens_plugins.core import hookspecs
from nqueens_plugins.core.solver import Solver, parse_spec, split_specs
from nqueens_plugins.loading import probe, session
from nqueens_plugins.loading.discovery import DISABLE_VARIABLE, disabled_plugins, installed_entry_points
from nqueens_plugins.loading.registry import LoadError, PluginRegister, Registry, Source

_ = DISABLE_VARIABLE  # named here too, for users of the loader (host.DISABLE_VARIABLE)

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


def make_plugin_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    return pm


def load_registry(pm: pluggy.PluginManager | None = None, only: Collection[str] | None = None) -> Registry:
    """Build a fresh registry from everything installed (see the module docstring).

    With ``only`` (solver names), an installed plugin is imported only if its
    import probe saw it register one of them, or did not learn its names.
    """
    pm = pm or make_plugin_manager()
    registry = Registry()
    blocked = disabled_plugins()
    sources: dict[str, Source] = {}

    wanted, registry.blocked = installed_entry_points()
    for name in registry.blocked:
        pm.set_blocked(name)
    verdicts = probe.verdicts(wanted) if wanted else {}
    refused = {name: verdict.refused for name, verdict in verdicts.items() if verdict.refused}
    registry.probe_failures = sorted({verdict.host_failure for verdict in verdicts.values() if verdict.host_failure})
    for entry_point in wanted:
        dist = entry_point.dist
        source = Source(entry_point.name, dist.name if dist else None, dist.version if dist else None)
        if entry_point.name in refused:
            registry.load_errors.append(LoadError(source, refused[entry_point.name]))
            pm.set_blocked(entry_point.name)
            continue
        names = verdicts[entry_point.name].names
        if only is not None and names is not None and not set(names) & set(only):
            registry.not_imported.append(entry_point.name)
            continue
        try:
            plugin = entry_point.load()
            refusal = hookspecs.contract_refusal(getattr(plugin, hookspecs.CONTRACT_ATTRIBUTE, None), entry_point.name)
            if refusal is None:
                pm.register(plugin, name=entry_point.name)
        except BaseException as exc:  # noqa: BLE001 - sys.exit or KeyboardInterrupt at import is that plugin's failure too
            registry.load_errors.append(LoadError(source, describe_exception(exc)))
            continue
        if refusal is not None:
            registry.load_errors.append(LoadError(source, refusal))
            pm.set_blocked(entry_point.name)
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
        register = PluginRegister(registry, source)
        try:
            # One plugin at a time, so that a failure is pinned on its plugin, and through pluggy,
            # so that its hook-call monitoring (``pm.add_hookcall_monitoring``) sees every call.
            only_hook(pm, "nqueens_register_solvers", impl.plugin)(register=register)
        except BaseException as exc:  # noqa: BLE001 - any failure is that plugin's, sys.exit included
            register.withdraw()
            registry.load_errors.append(LoadError(source, describe_exception(exc)))
    registry.load_errors.extend(registry.clash_errors())
    for registration in session.registrations():
        name = registration.solver.name
        if name in registry.registrations or name in registry.clashes:
            message = f"solver name {name!r} is taken by an installed plugin now: refused"
            registry.load_errors.append(LoadError(registration.source, message))
            continue
        registry.registrations[name] = registration
    return registry


def only_hook(pm: pluggy.PluginManager, name: str, plugin: object) -> pluggy.HookCaller:
    """The hook ``name`` as pluggy calls it, with every plugin but ``plugin`` left out: a call that
    pluggy makes (its argument matching, its monitoring) and that only one plugin answers."""
    others = [other for _, other in pm.list_name_plugin() if other is not None and other is not plugin]
    return pm.subset_hook_caller(name, remove_plugins=others)


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
    """The process-wide registry of everything installed, loaded once on first use."""
    return load_registry()


def registry_for(names: Iterable[str]) -> Registry:
    """A registry holding at least the solvers ``names``, importing no plugin that does not supply one.

    Falls back to everything when a name is not found that way (a plugin whose
    names changed since its probe, or a misspelt name: the message then lists all).
    """
    if registry.cache_info().currsize:
        return registry()
    wanted = frozenset(names)
    partial = _partial_registry(wanted)
    if not partial.not_imported or all(name in partial for name in wanted):
        return partial
    return registry()


@functools.cache
def _partial_registry(names: frozenset[str]) -> Registry:
    return load_registry(only=names)


def registry_for_specs(specs: str | Sequence[str]) -> Registry:
    """``registry_for`` the solvers a ``-s`` value names (``all``: everything)."""
    if isinstance(specs, str):
        if specs.strip() == "all":
            return registry()
        specs = split_specs(specs)
    return registry_for(parse_spec(spec)[0] for spec in specs)


def reset() -> None:
    """Forget the loaded registries (tests, or after installing a plugin at run time)."""
    registry.cache_clear()
    _partial_registry.cache_clear()


def register(solver: Solver) -> session.SessionSolver:
    """Make ``solver`` usable by name in this process, as if a plugin had registered it (``session.py``)."""
    registered = session.register(solver, registry(), unregister)
    reset()
    return registered


def unregister(solver: str | Solver) -> None:
    """Withdraw a solver ``register`` added (by name or as the object)."""
    session.unregister(solver)
    reset()
