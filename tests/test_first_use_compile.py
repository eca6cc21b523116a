"""Issue 53: the built-ins' compile of their kernels (once per machine) is shown and never held to
--prepare-timeout; a plugin that says it is compiling gets nothing for it."""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import nqueens_plugins
from nqueens_plugins.builtin.bitset_mrv import BitsetMrv
from nqueens_plugins.core.solver import Solver, Variant
from nqueens_plugins.execution import wire, worker_handle
from nqueens_plugins.execution.messages import Compiled, Compiling
from nqueens_plugins.execution.tasks import Task
from nqueens_plugins.formats.inputs import make_problem
from nqueens_plugins.loading import host

pytest.importorskip("numba")

# The folder the package under test was imported from (this checkout, or site-packages in a run against wheels).
REPOSITORY = Path(nqueens_plugins.__file__).resolve().parent.parent
PREPARING = re.compile(r"before it, ([\d.]+) s preparing the solver")

# Imported first in every process of the command (the CLI's and its workers'): each of the built-in engines'
# kernels, when numba compiles it (never when it loads it from the cache), takes SLOW_COMPILE seconds more
# than it does, as on a loaded machine. The real path all the same: numba's compile event, kernel_cache's
# listener, the worker's Compiling and Compiled, the parent's limits.
SLOW_COMPILE = """
    import os, time
    from nqueens_plugins.core import compile_notes

    _started = compile_notes.started

    def started(kernel):
        _started(kernel)
        time.sleep(float(os.environ["SLOW_COMPILE"]))

    compile_notes.started = started
"""


def task_of(solver: Solver) -> Task:
    return Task.solve(Variant(solver, {o.name: o.default for o in solver.options}), make_problem(8))


class Subclassed(BitsetMrv):
    """A plugin's subclass of a built-in: its own warm_up could do anything."""

    name = "subclassed-bitset-mrv"


class Borrowed(Solver):
    """A plugin's class that borrows a built-in's module and name."""

    name = "borrowed"


Borrowed.__module__ = BitsetMrv.__module__
Borrowed.__qualname__ = BitsetMrv.__qualname__


def test_only_a_builtin_class_loaded_from_the_package_compiles_our_kernels() -> None:
    assert worker_handle.compiles_our_kernels(task_of(BitsetMrv()))
    assert not worker_handle.compiles_our_kernels(task_of(Subclassed()))
    assert not worker_handle.compiles_our_kernels(task_of(Borrowed()))


def test_a_kernel_name_crosses_the_wire_and_nothing_else_does() -> None:
    assert wire.decode(wire.encode(Compiling("count_tasks"))) == Compiling("count_tasks")
    assert wire.decode(wire.encode(Compiled())) == Compiled()
    for name in ("\x1b[2Jcleared", "", "x" * 65, 7):
        text = json.dumps({"message": "compiling", "kernel": name, "arrays": []}).encode()
        with pytest.raises(wire.WireError, match="kernel's name"):
            wire.decode(struct.pack(">I", len(text)) + text)


def import_seconds() -> float:
    """The yardstick: how long a new process takes to import numba and the solver's kernel module here, now."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", "import nqueens_plugins.builtin.engines.bitset_mrv_kernel"],
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPOSITORY)},
    )
    return time.perf_counter() - start


def test_the_first_compile_is_shown_and_not_held_to_the_prepare_limit(tmp_path: Path) -> None:
    # A prepare limit the import and the 4x4 warm-up fit in with room to spare, and a compile slowed past it.
    prepare_timeout = 3 * import_seconds() + 1
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(textwrap.dedent(SLOW_COMPILE))
    environment = {
        **os.environ,
        "NQUEENS_CACHE_DIR": str(tmp_path / "cache"),  # empty: the kernels are compiled
        "PYTHONPATH": os.pathsep.join([str(site), str(REPOSITORY)]),
        "SLOW_COMPILE": f"{prepare_timeout + 1:.2f}",
    }
    command = [sys.executable, "-m", "nqueens_plugins", "solve", "-s", "bitset-mrv", "-n", "12"]
    done = subprocess.run(
        [*command, "--prepare-timeout", f"{prepare_timeout:.2f}"],
        capture_output=True,
        text=True,
        env=environment,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "solved, verified" in done.stdout, done.stdout
    assert "compiling bitset-mrv's kernels once for this machine" in done.stderr, done.stderr
    preparing = PREPARING.search(done.stdout)
    assert preparing is not None and float(preparing.group(1)) > prepare_timeout, done.stdout
    assert compiled_kernels(tmp_path / "cache") == {"bitset_mrv_kernel.advance"}  # no counter of bitboard's
    # Cached: nothing compiled, nothing said about it.
    again = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=600, check=False)
    assert again.returncode == 0 and "once for this machine" not in again.stderr, again.stdout + again.stderr


def compiled_kernels(cache: Path) -> set[str]:
    """The kernels numba keeps compiled in ``cache`` (its index files: ``module.function-line.pyXY.nbi``)."""
    return {path.name.partition("-")[0] for path in cache.rglob("*.nbi")}


def test_a_count_compiles_the_kernels_of_its_own_way_only(tmp_path: Path) -> None:
    # n = 12 is counted by Takaken's method: not the mirror counter, nor the join's or the constellations'.
    environment = {**os.environ, "NQUEENS_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(REPOSITORY)}
    command = [sys.executable, "-m", "nqueens_plugins", "count", "-n", "12"]
    done = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=600, check=False)
    assert done.returncode == 0 and "14,200 solutions" in done.stdout, done.stdout + done.stderr
    assert "compiling bitboard's kernels once for this machine" in done.stderr, done.stderr
    assert compiled_kernels(tmp_path) == {"symmetry_count.count_subtrees"}


CLAIMS_COMPILING = """
    import time

    from nqueens_plugins import hookimpl
    from nqueens_plugins.core import compile_notes
    from nqueens_plugins.core.problem import Outcome, Status
    from nqueens_plugins.core.solver import Solver

    class ClaimsCompiling(Solver):
        name = "claims-compiling"
        summary = "Says the built-ins' kernels are compiling, then hangs in its warm_up."

        def warm_up(self, options, preparation=""):
            compile_notes.started("advance")  # what the built-ins' kernel_cache says: believed for them only
            time.sleep(3600)

        def solve(self, problem, rng, budget, options):
            return Outcome(Status.GAVE_UP, None, 0, 0)

    @hookimpl
    def nqueens_register_solvers(register):
        register(ClaimsCompiling())
"""


def test_a_plugin_that_says_it_compiles_is_still_held_to_the_prepare_limit(fake_distribution, run_cli) -> None:
    fake_distribution(
        "nqueens-claims-compiling", {"claims": "claims_compiling"}, {"claims_compiling": CLAIMS_COMPILING}
    )
    host.reset()
    code, out, err = run_cli("solve", "-s", "claims-compiling", "-n", "8", "--prepare-timeout", "1")
    assert code == 1 and "took more than 1 s (in its warm_up)" in out, out + err
    assert "once for this machine" not in err, err
