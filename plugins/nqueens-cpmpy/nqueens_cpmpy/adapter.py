"""``cpmpy``: N-Queens posed in CPMpy and handed to any backend CPMpy reaches (``backend=NAME``).

``BackendAdapter`` is what every CPMpy solver here shares, this plugin's own model and a user's
(``user_model.py``): the ``backend`` option, what each backend needs (``backends.py``), the
licence limits of the MIP backends' pip wheels, and the run itself (``run.py``). ``Cpmpy`` adds the
model (``model.py``): ``int`` (CPMpy's example: AllDifferent on the rows and both diagonal
offsets), ``bool`` (a Boolean grid with cardinality sums) or ``clauses`` (the grid in clauses, for
PySDD); ``auto``, the default, is what each backend prefers (``backends.Backend.prefers``):
``clauses`` for PySDD, ``bool`` for python-sat, ``int`` elsewhere.

Every backend here is complete: ``no-solution`` is its ``UNSATISFIABLE``. The backends whose
``solveAll`` lists every solution count (ortools, choco, exact, pumpkin, z3, pysat, pysdd,
minizinc, gcs), each count checked against OEIS and the published answers as every count is;
the MIP backends (gurobi, cplex, highs) do not: a solution pool is no enumeration. Exact, the
Glasgow solver and Pumpkin can write VeriPB proofs, but no VeriPB checker installs from the
package index, so nothing here is certified: a no-solution from a backend through CPMpy is
confirmed by a published answer, the verifier or a solver of another name, never by a second
CPMpy backend (all are the one solver ``cpmpy``: they share CPMpy's reading of the problem).
"""

from __future__ import annotations

import functools
import random
import re
import shutil
import subprocess
from collections.abc import Mapping
from typing import Any, ClassVar

from nqueens_cpmpy import model as models
from nqueens_cpmpy import run
from nqueens_cpmpy.backends import BACKENDS, LICENCE_LIMITS, LICENCE_WHY
from nqueens_plugins import Adapter, Budget, Count, Option, Outcome, Problem, Requirement, Status

CPMPY = Requirement("cpmpy needs CPMpy: pip install cpmpy", module="cpmpy")
# CPMpy 1.1.1's CPM_minizinc.required_version (a test holds the two together).
MINIZINC_NEEDED = (2, 8, 2)
# The largest board per model: CPMpy builds and transforms every constraint in Python, which at the
# limit takes seconds before any search. Measured here (model built + posted to OR-Tools): int 0.4 s at
# n = 1,000; bool (n^2 Booleans in 6n sums) 4.9 s at 200; clauses (about 5n^3/3 binary clauses) 8.2 s at 40.
# PySDD's compilation is the limit before that (backends.LICENCE_LIMITS holds it to n = 8).
MAX_N = {"int": 1000, "bool": 200, "clauses": 40}
DEFAULT_BACKEND = "ortools"


@functools.cache
def minizinc_version() -> tuple[int, ...] | None:
    """The version of the minizinc on the PATH (None: none, or one that does not say)."""
    binary = shutil.which("minizinc")
    if binary is None:
        return None
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, check=False, timeout=30)
    found = re.search(r"version (\d+)\.(\d+)\.(\d+)", out.stdout)
    return None if found is None else tuple(int(part) for part in found.groups())


def backend_refusal(backend: str, model: str | None, n: int) -> str | None:
    """Why ``backend`` cannot run here (a package or program missing, a licence too small for n), or None."""
    about = BACKENDS[backend]
    if about.requirement.missing():
        return about.requirement.hint
    if about.program is not None:
        if about.program.missing():
            return about.program.hint
        version = minizinc_version()
        if version is not None and version < MINIZINC_NEEDED:
            needed = ".".join(map(str, MINIZINC_NEEDED))
            return (
                f"cpmpy[backend=minizinc] needs MiniZinc {needed} or later (CPMpy's minimum); the minizinc on the "
                f"PATH is {'.'.join(map(str, version))}: install the bundle from minizinc.org"
            )
    if model is not None and (backend, model) in LICENCE_LIMITS:
        largest = LICENCE_LIMITS[backend, model]
        if n > largest:
            others = [
                f"model={m} up to {LICENCE_LIMITS[backend, m]}"
                for m in models.MODELS[1:]
                if m != model and (backend, m) in LICENCE_LIMITS
            ]
            return f"cpmpy[backend={backend},model={model}] accepts n up to {largest} ({LICENCE_WHY[backend]}); " + (
                f"{n:,} is too large (its other models: {', '.join(others)})" if others else f"{n:,} is too large"
            )
    return None


class BackendAdapter(Adapter):
    """A solver posed in CPMpy, run on the backend its ``backend`` option names (see the module's docstring)."""

    family = "CP"
    complete = True
    supports_fixed = True
    supports_blocked = True
    requires = (CPMPY,)
    backend_option: ClassVar[Option] = Option(
        "backend", str, DEFAULT_BACKEND, "the CPMpy backend (cp.SolverLookup's name)", choices=tuple(BACKENDS)
    )

    def engine(self, options: Mapping[str, Any]) -> str | None:
        return BACKENDS[options.get("backend", DEFAULT_BACKEND)].describes

    def counts(self, options: Mapping[str, Any]) -> bool:
        return BACKENDS[options.get("backend", DEFAULT_BACKEND)].counts

    def stops_itself(self, options: Mapping[str, Any]) -> bool:
        """PySDD takes no time limit: the host stops it at the limit."""
        return BACKENDS[options.get("backend", DEFAULT_BACKEND)].time_limit

    def model_of(self, options: Mapping[str, Any]) -> str | None:
        """The name of the model these options pose (for the licence limits); None: the user's own."""
        return None

    def precheck(self, n: int, options: Mapping[str, Any]) -> str | None:
        """CPMpy installed, then the backend and what it runs, then its licence's limit for the model."""
        refused = super().precheck(n, options)
        if refused is not None:
            return refused
        return backend_refusal(options["backend"], self.model_of(options), n)

    def pose(self, problem: Problem, options: Mapping[str, Any]) -> tuple[Any, Any]:
        """The CPMpy model of ``problem`` and its queen variables."""
        raise NotImplementedError

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        seed = rng.randrange(2**31)
        run.load(options["backend"])
        built = run.within(budget, lambda: self.pose(problem, options))  # building the model is Python too
        if built is None:
            return Outcome(Status.TIMED_OUT, None, 0, 0, {})
        model, queens = built[0]
        return run.solve(model, queens, problem.n, options["backend"], budget, seed)

    def count(self, problem: Problem, budget: Budget, options: Mapping[str, Any], unique: bool) -> Count:
        if unique:
            raise NotImplementedError(f"{self.name} counts all solutions, not classes under symmetry")
        if not self.counts(options):
            raise NotImplementedError(f"{self.name}[backend={options['backend']}] does not enumerate solutions")
        run.load(options["backend"])
        built = run.within(budget, lambda: self.pose(problem, options))
        if built is None:
            return Count(Status.TIMED_OUT, 0, False, 0, {})
        return run.count(built[0][0], options["backend"], budget)


class Cpmpy(BackendAdapter):
    """N-Queens as CPMpy's example models it, on any backend CPMpy reaches."""

    name = "cpmpy"
    runs_on = "the CPMpy backend its backend option names"
    summary = "CPMpy's N-Queens model (AllDifferent, or a Boolean grid) on any CPMpy backend; complete."
    max_n = max(MAX_N.values())
    options = (
        BackendAdapter.backend_option,
        Option(
            "model",
            str,
            "auto",
            "int (AllDifferent), bool (Boolean grid), clauses; auto: clauses for pysdd, bool for pysat, else int",
            choices=models.MODELS,
        ),
    )

    def model_of(self, options: Mapping[str, Any]) -> str:
        model = str(options.get("model", "auto"))
        if model != "auto":
            return model
        return BACKENDS[options.get("backend", DEFAULT_BACKEND)].prefers

    def precheck(self, n: int, options: Mapping[str, Any]) -> str | None:
        model = self.model_of(options)
        if BACKENDS[options["backend"]].boolean_only and model != "clauses":
            return f"cpmpy[backend={options['backend']}] takes Boolean formulas only: model=clauses (or auto)"
        if n > MAX_N[model]:
            return (
                f"cpmpy[model={model}] accepts n up to {MAX_N[model]:,} (CPMpy transforms every constraint in "
                f"Python); {n:,} is too large"
                + ("" if model == "int" else f": model=int takes n up to {MAX_N['int']:,}")
            )
        return super().precheck(n, options)

    def pose(self, problem: Problem, options: Mapping[str, Any]) -> tuple[Any, Any]:
        return models.build(problem, self.model_of(options))
