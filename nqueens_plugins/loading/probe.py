"""Loading layer, parent side: each installed plugin first imported in a child process, once per environment.

An exception at import (``sys.exit`` included) is caught in-process and makes
the plugin a ``LoadError``. A crash is not catchable: a segfault in an
extension module, or ``os._exit``, ends whatever process imports the plugin,
the host included. So before the host imports a plugin for the first time, a
throwaway Python imports it; if that process dies, the plugin is reported as
failed and never imported here (nor in the worker processes, which inherit the
verdicts).

The same child also calls the plugin's ``nqueens_register_solvers`` and notes
the solver names it registers (a crash there is refused like one at import).
The host uses those names to import only the distributions a command needs: a
plugin that takes seconds to import slows ``nqueens plugins`` and ``-s all``,
not ``solve -s min-conflicts`` (``host.registry_for``).

The probe lives with discovery in the loading layer: it is part of finding plugins, and
execution is handed only its outcome, the refusals that worker processes inherit
(``discovery.installed_refusals``).

Verdicts are cached in ``import-probes.json`` under ``$NQUEENS_CACHE_DIR`` (by
default ``$XDG_CACHE_HOME/nqueens-plugins`` or ``~/.cache/nqueens-plugins``),
keyed by distribution name and version, entry point, install location and
Python. Installing another version makes a new probe; editing an installed
plugin in place without changing its version does not (delete the cache file).
An unwritable cache only costs the probes again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from nqueens_plugins.core.cache_folder import cache_folder
from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.execution import processes
from nqueens_plugins.formats.output_files import write_whole
from nqueens_plugins.loading.probe_program import HOST_BROKEN, SURVIVED

INHERITED_VARIABLE = "NQUEENS_PROBE_VERDICTS"  # JSON {entry point: why refused}, set for worker processes
PROBE_SECONDS = 60.0  # an import that takes longer is reported as hanging
PROBE_PROGRAM = "nqueens_plugins.loading.probe_program"  # run with python -m


@dataclass(frozen=True)
class ImportVerdict:
    """What a probe found: why the plugin must not be imported ('' if it may), and the names it registered."""

    refused: str
    names: tuple[str, ...] | None = None  # None: not known, so the plugin is always imported
    host_failure: str = ""  # the probe could not import the host itself (not cached: ask again next time)

    @property
    def cacheable(self) -> bool:
        return not self.host_failure

    def to_json(self) -> dict[str, object]:
        return {"refused": self.refused, "names": None if self.names is None else list(self.names)}

    @classmethod
    def from_json(cls, data: object) -> ImportVerdict | None:
        if not isinstance(data, dict) or not isinstance(data.get("refused"), str):
            return None  # an older cache's entry: probe again
        names = data.get("names")
        if names is None:
            return cls(data["refused"])
        if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
            return None
        return cls(data["refused"], tuple(names))


def cache_file() -> Path:
    return cache_folder() / "import-probes.json"


def probe_key(entry_point: metadata.EntryPoint) -> str:
    dist = entry_point.dist
    where = str(getattr(dist, "_path", "")) if dist is not None else ""
    name, version = (dist.name, dist.version) if dist is not None else ("?", "?")
    return f"{name}=={version} {entry_point.name}={entry_point.value} at {where} by {sys.executable}"


def refusals(entry_points: Iterable[metadata.EntryPoint]) -> dict[str, str]:
    """Entry point name -> why it must not be imported, for the plugins whose import kills a process."""
    inherited = os.environ.get(INHERITED_VARIABLE)
    if inherited is not None:  # a worker: its parent probed these very plugins
        try:
            return dict(json.loads(inherited))
        except (ValueError, TypeError):
            pass
    return {name: verdict.refused for name, verdict in verdicts(entry_points).items() if verdict.refused}


def verdicts(entry_points: Iterable[metadata.EntryPoint]) -> dict[str, ImportVerdict]:
    """Entry point name -> its probe's verdict, probing (all at once) those not in the cache."""
    points = list(entry_points)
    path = cache_file()
    cached = read_cache(path)
    keys = {point.name: probe_key(point) for point in points}
    unknown = [point for point in points if keys[point.name] not in cached]
    if unknown:
        cached.update({keys[point.name]: verdict for point, verdict in probe_all(unknown).items()})
        write_cache(path, {key: verdict for key, verdict in cached.items() if verdict.cacheable})
    return {name: cached[key] for name, key in keys.items()}


def probe_all(points: list[metadata.EntryPoint]) -> dict[metadata.EntryPoint, ImportVerdict]:
    """Import and register each entry point in a child of its own, all at once."""
    environment = processes.child_environment()
    started = []
    for point in points:
        read_end, write_end = os.pipe()
        child = subprocess.Popen(
            [sys.executable, "-m", PROBE_PROGRAM, point.value, str(write_end)],
            pass_fds=(write_end,),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env=environment,
        )
        os.close(write_end)
        started.append((point, child, read_end))
    deadline = time.monotonic() + PROBE_SECONDS
    found: dict[metadata.EntryPoint, ImportVerdict] = {}
    for point, child, read_end in started:
        try:
            code: int | None = child.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            code = None
        finally:
            processes.kill_tree(child.pid)  # and anything its import started
            child.wait()
        found[point] = read_verdict(read_available(read_end), code)
    return found


def read_available(fd: int) -> bytes:
    """What is in the pipe now, without waiting: a process the plugin started may still hold its write end."""
    os.set_blocking(fd, False)
    chunks = []
    try:
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    except BlockingIOError:
        pass
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_verdict(said: bytes, code: int | None) -> ImportVerdict:
    """The verdict from what a probe wrote before it ended (nothing if it died on the way)."""
    if said.startswith(HOST_BROKEN):  # not the plugin's doing: import it, as if its names were not known
        why = said[len(HOST_BROKEN) :].decode("utf-8", "replace")
        return ImportVerdict("", None, host_failure=f"the import probe could not import the host itself: {why}")
    if not said.startswith(SURVIVED):
        return ImportVerdict(death_of_importer(code))
    try:
        names = json.loads(said[len(SURVIVED) :])
    except ValueError:
        return ImportVerdict("")  # names cut short: not known
    if not isinstance(names, list):
        return ImportVerdict("")
    return ImportVerdict("", tuple(name for name in names if isinstance(name, str)))


def death_of_importer(code: int | None) -> str:
    if code is None:
        return f"importing it did not finish within {PROBE_SECONDS:g} s (tried in a separate process); not loaded"
    if code < 0:
        how = processes.how_it_ended(code)
        return f"importing it crashed the importing process ({how}; tried in a separate process); not loaded"
    return f"importing it ended the importing process with {processes.how_it_ended(code)} (tried in a separate process); not loaded"


def read_cache(path: Path) -> dict[str, ImportVerdict]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    found = {str(key): ImportVerdict.from_json(value) for key, value in data.items()}
    return {key: verdict for key, verdict in found.items() if verdict is not None}


def write_cache(path: Path, verdicts: Mapping[str, ImportVerdict]) -> None:
    text = json.dumps({key: verdict.to_json() for key, verdict in verdicts.items()}, indent=0, sort_keys=True)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, text)  # whole or not at all, and no temporary file left behind
    except (OSError, BadInput):
        pass  # no cache: the next command probes again
