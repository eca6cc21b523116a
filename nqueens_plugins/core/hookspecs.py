"""Core layer, any process: the hook through which every solver, built-in or third-party, reaches the host.

A plugin is a module (or object) with a function marked ``@hookimpl``:

    from nqueens_plugins import hookimpl

    @hookimpl
    def nqueens_register_solvers(register):
        register(MySolver())

Third-party distributions make the module known through the entry point group
``nqueens`` in their ``pyproject.toml``:

    [project.entry-points.nqueens]
    my-solvers = "my_package.plugin"

The built-in solvers in ``nqueens_plugins.builtin`` are registered through this
very hook, so they are no different from anybody else's.

Compatibility rule: hook parameters never carry defaults (pluggy ignores them).
New information is added as a new parameter of the spec; pluggy passes an
implementation only the parameters it names, so old plugins keep working.

The plugin contract (this hook, ``Solver`` and what it is handed and returns:
``Problem``, ``Budget``, ``Outcome``, ``Count``, ``Trace``, ``ProofLog``) has a
version of its own, ``CONTRACT_VERSION``, MAJOR.MINOR: a minor version adds to
the contract (a plugin written for an earlier minor keeps working), a major one
breaks it. A plugin module may say which contract it was written for,

    nqueens_contract = "1.0"

and the host refuses, in one line naming both versions, one it cannot serve
(``contract_refusal``): a later minor than the host's (it may use what this host
lacks) or another major. A plugin that says nothing is taken as written for 1.0.

* 1.0: nqueens-plugins 0.1.
* 1.1: nqueens-plugins 0.2: the ``Problem`` a solver is handed is read-only (a
  solver that changed ``problem.fixed`` now gets an error run; copy it first:
  ``dict(problem.fixed)``); the proof a certifying solver writes is checked
  outside its worker.
* 1.2: nqueens-plugins 0.3 (unreleased): ``dzn_text``, the adapter kit's writer of
  a board's MiniZinc data, is part of the contract; every solver warms up by
  ``warm_up(options, preparation)`` (the one-argument ``warm_up(options)`` still
  works, adapted when its class is made, and warns until 0.4.0).
"""

from __future__ import annotations

from typing import Protocol

import pluggy

from nqueens_plugins.core.solver import Solver

PROJECT = "nqueens"
ENTRY_POINT_GROUP = "nqueens"  # where a distribution names its plugin module: [project.entry-points.nqueens]
CONTRACT_VERSION = "1.2"
"""The plugin contract this host serves, MAJOR.MINOR: it serves a plugin module that says (``nqueens_contract =
"1.0"``) it was written for the same major and a minor up to this one, and refuses any other in one line
(docs/compatibility.md)."""
CONTRACT_ATTRIBUTE = "nqueens_contract"  # what a plugin module names its contract by


def contract_refusal(declared: object, plugin: str) -> str | None:
    """Why this host cannot serve ``plugin``, whose module says it was written for contract ``declared``
    (None: it can; a plugin that declares nothing is served as written for 1.0)."""
    if declared is None:
        return None
    ours = tuple(int(part) for part in CONTRACT_VERSION.split("."))
    text = str(declared) if isinstance(declared, (str, int, float)) else None
    parts = text.split(".") if text is not None else []
    if len(parts) not in (1, 2) or not all(part.isdigit() for part in parts):
        return f"plugin {plugin} declares {CONTRACT_ATTRIBUTE} = {declared!r}, not a version such as '1.0'"
    theirs = (int(parts[0]), int(parts[1]) if len(parts) == 2 else 0)
    if theirs[0] == ours[0] and theirs[1] <= ours[1]:
        return None
    advice = "upgrade nqueens-plugins" if theirs > ours else "use a release of the plugin written for this contract"
    return (
        f"plugin {plugin} was written for plugin contract {theirs[0]}.{theirs[1]}; this nqueens-plugins serves "
        f"contract {CONTRACT_VERSION} ({advice})"
    )


hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)
"""Marks a plugin's hook implementation: ``@hookimpl def nqueens_register_solvers(register): ...``."""


class SolverRegister(Protocol):
    """What a plugin's hook receives as ``register``: call it with each solver (the host's
    ``registry.PluginRegister`` is the one implementation). Annotate with it:

        @hookimpl
        def nqueens_register_solvers(register: SolverRegister) -> None:
            register(MySolver())
    """

    def __call__(self, solver: Solver) -> None: ...


@hookspec
def nqueens_register_solvers(register: SolverRegister) -> None:
    """Call ``register(solver)`` once for each solver this plugin provides.

    ``register`` validates the solver (a unique kebab-case name, a summary,
    typed options, a ``solve`` method) and records which plugin and distribution
    supplied it. It raises ``PluginError`` for a solver that breaks the contract;
    the host then reports this plugin as failed and keeps every other plugin.
    """
