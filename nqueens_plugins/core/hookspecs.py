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
"""

from __future__ import annotations

from typing import Protocol

import pluggy

from nqueens_plugins.core.solver import Solver

PROJECT = "nqueens"
ENTRY_POINT_GROUP = "nqueens"  # where a distribution names its plugin module: [project.entry-points.nqueens]

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
