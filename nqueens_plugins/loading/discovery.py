"""Loading layer, parent side: which plugins are installed, which the user disabled, which must not be imported.

Discovery in one place: the ``nqueens`` entry points (``core.hookspecs.ENTRY_POINT_GROUP``),
the ``NQUEENS_DISABLE_PLUGINS`` list, and the refusals of the import probes (``probe.py``).
The host (``host.py``) loads from here. The execution layer never asks for the refusals: this
module, when imported, registers ``installed_refusals`` with ``processes.inherit``, so every
worker process inherits them (asked for when a worker starts) and never imports a plugin
whose import crashed a probe.
"""

from __future__ import annotations

import json
import os
from importlib import metadata

from nqueens_plugins.core.hookspecs import ENTRY_POINT_GROUP
from nqueens_plugins.execution import processes
from nqueens_plugins.loading import probe

DISABLE_VARIABLE = "NQUEENS_DISABLE_PLUGINS"


def disabled_plugins() -> set[str]:
    """The plugin names (entry point, distribution or built-in) that ``NQUEENS_DISABLE_PLUGINS`` blocks."""
    raw = os.environ.get(DISABLE_VARIABLE, "")
    return {name.strip() for name in raw.split(",") if name.strip()}


def installed_entry_points() -> tuple[list[metadata.EntryPoint], list[str]]:
    """The installed plugins' entry points to load (each once), and the names blocked by the environment."""
    blocked = disabled_plugins()
    wanted: list[metadata.EntryPoint] = []
    blocked_names: list[str] = []
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        dist = entry_point.dist
        if blocked & {entry_point.name, dist.name if dist else None}:
            blocked_names.append(entry_point.name)
        elif all(entry_point.name != seen.name for seen in wanted):  # not the same distribution seen twice
            wanted.append(entry_point)
    return wanted, blocked_names


def installed_refusals() -> dict[str, str]:
    """Entry point -> why it is not imported, for every installed plugin not blocked (probing those not
    yet probed). A worker process gets these in its environment, so it never imports them either."""
    wanted, _ = installed_entry_points()
    return probe.refusals(wanted) if wanted else {}


# Workers inherit the refusals (asked for when a worker starts, so only a command that starts one probes).
processes.inherit(probe.INHERITED_VARIABLE, lambda: json.dumps(installed_refusals()))
