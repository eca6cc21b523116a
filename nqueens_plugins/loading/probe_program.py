"""Loading layer, in an import probe: the throwaway process that imports one plugin before the host does.

``python -m nqueens_plugins.loading.probe_program ENTRY_POINT_VALUE WRITE_FD`` imports the
entry point and calls its ``nqueens_register_solvers`` with a ``register`` that only notes
names; then writes, in one ``os.write`` (within a pipe's buffer), ``import-survived`` and the
names as JSON. A plugin's exception, ``SystemExit`` included, is fine here (the host reports it
when it imports the plugin in-process); a crash or ``os._exit`` ends this process before it
writes, which is what the parent (``loading/probe.py``) is watching for.

A real module, not a program in a string: ruff, mypy and the layer rules see its imports (a
program kept in a string once kept an import of a module that had moved, and its silent
failure turned lazy loading off). The host's own imports stand outside the plugin's ``try``:
should they break, the probe says so (``host-import-failed``), and the parent reports the
failure instead of taking it for a plugin that registers nothing.
"""

from __future__ import annotations

import json
import os
import sys
from importlib.metadata import EntryPoint

SURVIVED = b"import-survived"
HOST_BROKEN = b"host-import-failed"
PIPE_BUDGET = 60_000  # bytes: within a pipe's buffer, so the one write never blocks


def registered_names(value: str) -> list[str]:
    """Import the entry point ``value`` and note the names its hook registers (what it manages before
    any exception of its own)."""
    import pluggy

    from nqueens_plugins.core import hookspecs

    names: list[str] = []

    def register(solver: object) -> None:
        name = getattr(solver, "name", None)
        if isinstance(name, str):
            names.append(name)

    try:
        plugin = EntryPoint(name="probe", value=value, group=hookspecs.ENTRY_POINT_GROUP).load()
        manager = pluggy.PluginManager(hookspecs.PROJECT)
        manager.add_hookspecs(hookspecs)
        manager.register(plugin, name="probe")
        manager.hook.nqueens_register_solvers(register=register)  # the one plugin, as pluggy calls it
    except BaseException:  # noqa: BLE001, S110 - the plugin's failure is reported when the host imports it
        pass
    return names


def main() -> None:
    value, write_fd = sys.argv[1], int(sys.argv[2])
    try:
        import pluggy  # noqa: F401 - the host's own imports, checked before the plugin's

        from nqueens_plugins.core import hookspecs  # noqa: F401
    except BaseException as exc:  # noqa: BLE001 - the host is broken, not the plugin: say so
        os.write(write_fd, (HOST_BROKEN + repr(exc).encode())[:PIPE_BUDGET])
        os._exit(0)
    names = registered_names(value)
    os.write(write_fd, (SURVIVED + json.dumps(names).encode())[:PIPE_BUDGET])
    os._exit(0)  # no interpreter shutdown: whatever the plugin started must not hold the probe


if __name__ == "__main__":
    main()
