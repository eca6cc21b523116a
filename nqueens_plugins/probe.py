"""Import probes: each installed plugin is first imported in a child process, once per environment.

An exception at import (``sys.exit`` included) is caught in-process and makes
the plugin a ``LoadError``. A crash is not catchable: a segfault in an
extension module, or ``os._exit``, ends whatever process imports the plugin,
the host included. So before the host imports a plugin for the first time, a
throwaway Python imports it; if that process dies, the plugin is reported as
failed and never imported here (nor in the worker processes, which inherit the
verdicts).

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
import tempfile
import time
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path

from nqueens_plugins import processes

CACHE_VARIABLE = "NQUEENS_CACHE_DIR"
INHERITED_VARIABLE = "NQUEENS_PROBE_VERDICTS"  # JSON {entry point: why refused}, set for worker processes
PROBE_SECONDS = 60.0  # an import that takes longer is reported as hanging
SURVIVED = b"import-survived"

# Imports the entry point; an exception is fine here (the host reports it in-process).
PROBE_PROGRAM = f"""
import os, sys
from importlib.metadata import EntryPoint
try:
    EntryPoint(name="probe", value=sys.argv[1], group="nqueens").load()
except BaseException:
    pass
os.write(int(sys.argv[2]), {SURVIVED!r})
os._exit(0)
"""


def cache_file() -> Path:
    if os.environ.get(CACHE_VARIABLE):
        return Path(os.environ[CACHE_VARIABLE]) / "import-probes.json"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "nqueens-plugins" / "import-probes.json"


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
    points = list(entry_points)
    path = cache_file()
    cached = read_cache(path)
    keys = {point.name: probe_key(point) for point in points}
    unknown = [point for point in points if keys[point.name] not in cached]
    if unknown:
        cached.update({keys[point.name]: verdict for point, verdict in probe_all(unknown).items()})
        write_cache(path, cached)
    return {name: cached[key] for name, key in keys.items() if cached.get(key)}


def probe_all(points: list[metadata.EntryPoint]) -> dict[metadata.EntryPoint, str]:
    """Import each entry point in a child of its own, all at once; '' for the ones that survived."""
    environment = processes.child_environment()
    started = []
    for point in points:
        read_end, write_end = os.pipe()
        child = subprocess.Popen(
            [sys.executable, "-c", PROBE_PROGRAM, point.value, str(write_end)],
            pass_fds=(write_end,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, env=environment,
        )  # fmt: skip
        os.close(write_end)
        started.append((point, child, read_end))
    deadline = time.monotonic() + PROBE_SECONDS
    verdicts: dict[metadata.EntryPoint, str] = {}
    for point, child, read_end in started:
        try:
            code = child.wait(timeout=max(0.0, deadline - time.monotonic()))
            with os.fdopen(read_end, "rb") as pipe:
                survived = pipe.read() == SURVIVED
        except subprocess.TimeoutExpired:
            os.close(read_end)
            code, survived = None, False
        finally:
            processes.kill_tree(child.pid)  # and anything its import started
            child.wait()
        verdicts[point] = "" if survived else death_of_importer(code)
    return verdicts


def death_of_importer(code: int | None) -> str:
    if code is None:
        return f"importing it did not finish within {PROBE_SECONDS:g} s (tried in a separate process); not loaded"
    if code < 0:
        how = processes.how_it_ended(code)
        return f"importing it crashed the importing process ({how}; tried in a separate process); not loaded"
    return f"importing it ended the importing process with {processes.how_it_ended(code)} (tried in a separate process); not loaded"


def read_cache(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def write_cache(path: Path, verdicts: Mapping[str, str]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as handle:
            json.dump(dict(verdicts), handle, indent=0, sort_keys=True)
        os.replace(handle.name, path)
    except OSError:
        pass  # no cache: the next command probes again
