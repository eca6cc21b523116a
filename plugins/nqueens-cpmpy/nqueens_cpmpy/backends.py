"""The CPMpy backends this plugin offers, and what each needs, takes and can do (no CPMpy imported here).

One ``Backend`` per value of the ``backend`` option: the Python module CPMpy's interface imports
(looked up, never imported, so ``nqueens plugins`` stays cheap) with the one ``pip install`` line
that brings it, whether it enumerates solutions (``solveAll``) well enough to count, whether it
takes a time limit, and the largest board its licence lets it take.

Measured here (CPMpy 1.1.1, Python 3.11, pip install from the package index, November 2026):

* installs and runs: ortools, choco (pychoco), exact, pumpkin (pumpkin-solver), z3 (z3-solver),
  pysat (python-sat, plus pindakaas for CPMpy's pseudo-Boolean encodings), pysdd, gurobi
  (gurobipy), cplex (cplex and docplex), highs (highspy);
* gcs (gcspy 0.1.9): no wheel; its sdist fetches pybind11 from GitHub while it builds, so
  ``pip install gcspy`` fails on a machine that reaches only the package index;
* minizinc: the package installs, but CPMpy 1.1.1's MiniZinc interface needs MiniZinc 2.8.2 or
  later (its text uses newer library predicates: with Debian's 2.6.4 MiniZinc rejects it,
  "no function or predicate with this signature found: inverse"), and the MiniZinc binary does
  not come from pip. Where a recent MiniZinc is on the PATH it runs, in processes of its own.
* gurobipy's and cplex's pip wheels carry size-limited licences: Gurobi 2,000 variables and
  2,000 constraints, CPLEX (Community Edition) 1,000 of each. Posed by this plugin, that is
  n <= 12 (int model), 44 (bool) and 10 (clauses) for Gurobi, n <= 8 (int), 31 (bool) and 8 (clauses) for CPLEX,
  found by solving every n until the licence refused (``LICENCE_LIMITS``).
* highs: found 11 solutions of n = 8 by ``solveAll`` (there are 92): a MIP solver's pool of
  solutions is no enumeration, so highs, gurobi and cplex do not count here.
"""

from __future__ import annotations

from dataclasses import dataclass

from nqueens_plugins import Requirement


@dataclass(frozen=True)
class Backend:
    """One CPMpy backend: its name in ``cp.SolverLookup`` and what it needs, takes and can do."""

    name: str
    requirement: Requirement
    describes: str  # what executes the search, as ``nqueens plugins`` shows it
    counts: bool = True  # its solveAll enumerates every solution (a MIP solution pool does not)
    time_limit: bool = True  # CPMpy passes time_limit to its own parameter
    boolean_only: bool = False  # takes Boolean formulas only (pysdd: clauses)
    # The model ``model=auto`` poses: python-sat gets the Boolean grid, since CPMpy's SAT encoding of the
    # integer model took 5.7 s at n = 16 and over 60 s at 32 (the grid: 0.6 s at 32, 0.7 s at 64).
    prefers: str = "int"
    veripb: bool = False  # can write VeriPB proofs (nothing here checks them: docs/cpmpy.md)
    program: Requirement | None = None  # a program it runs, besides its Python package


def pip(backend: str, packages: str, module: str, extra: str) -> Requirement:
    return Requirement(
        f"cpmpy[backend={backend}] needs {packages}: pip install 'nqueens-cpmpy[{extra}]' (or pip install {packages})",
        module=module,
    )


BACKENDS: dict[str, Backend] = {
    b.name: b
    for b in (
        Backend("ortools", pip("ortools", "ortools", "ortools", "ortools"), "OR-Tools CP-SAT (C++), through CPMpy"),
        Backend("choco", pip("choco", "pychoco", "pychoco", "choco"), "Choco (Java, native image), through CPMpy"),
        Backend(
            "exact", pip("exact", "exact", "exact", "exact"), "Exact (C++, pseudo-Boolean), through CPMpy", veripb=True
        ),
        Backend(
            "pumpkin",
            pip("pumpkin", "pumpkin-solver", "pumpkin_solver", "pumpkin"),
            "Pumpkin (Rust, lazy clause generation), through CPMpy",
            veripb=True,
        ),
        Backend("z3", pip("z3", "z3-solver", "z3", "z3"), "Z3 (C++, SMT), through CPMpy"),
        Backend(
            "pysat",
            pip("pysat", "python-sat pindakaas", "pindakaas", "pysat"),
            "a SAT solver of python-sat, through CPMpy",
            prefers="bool",
        ),
        Backend(
            "pysdd",
            pip("pysdd", "pysdd", "pysdd", "pysdd"),
            "PySDD (C, knowledge compilation), through CPMpy",
            time_limit=False,
            boolean_only=True,
            prefers="clauses",
        ),
        Backend(
            "gurobi", pip("gurobi", "gurobipy", "gurobipy", "gurobi"), "Gurobi (C, MIP), through CPMpy", counts=False
        ),
        Backend(
            "cplex", pip("cplex", "cplex docplex", "docplex", "cplex"), "CPLEX (C, MIP), through CPMpy", counts=False
        ),
        Backend("highs", pip("highs", "highspy", "highspy", "highs"), "HiGHS (C++, MIP), through CPMpy", counts=False),
        Backend(
            "gcs",
            Requirement(
                "cpmpy[backend=gcs] needs gcspy, which has no wheel: pip install gcspy builds it, fetching pybind11 "
                "from GitHub while it does",
                module="gcspy",
            ),
            "the Glasgow Constraint Solver (C++), through CPMpy",
            veripb=True,
        ),
        Backend(
            "minizinc",
            pip("minizinc", "minizinc", "minizinc", "minizinc"),
            "MiniZinc (the minizinc binary and its solver's process), through CPMpy",
            program=Requirement(
                "cpmpy[backend=minizinc] needs MiniZinc 2.8.2 or later on the PATH (the bundle from minizinc.org)",
                program="minizinc",
            ),
        ),
    )
}

# The largest n each licence-limited backend takes, per model (found by solving every n until the licence
# refused, see the module's docstring), and why; and PySDD's, where compiling outgrows time and memory.
LICENCE_LIMITS: dict[tuple[str, str], int] = {
    ("gurobi", "int"): 12,
    ("gurobi", "bool"): 44,
    ("gurobi", "clauses"): 10,
    ("cplex", "int"): 8,
    ("cplex", "bool"): 31,
    ("cplex", "clauses"): 8,
    ("pysdd", "clauses"): 8,
}
LICENCE_WHY = {
    "pysdd": "compiling took 3 s at n = 8, 8 s at 9, over 40 s and gigabytes at 10; it takes no time limit",
    "gurobi": "gurobipy's pip licence is size-limited: 2,000 variables and 2,000 constraints",
    "cplex": "the cplex wheel is the Community Edition: 1,000 variables and 1,000 constraints",
}
