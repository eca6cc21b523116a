"""cross-check --instances over the shipped instances, with every installed family: each no-solution
confirmed by every family there is (issue 25: a shared misreading of the problem would be caught by a
family whose encoding was written apart).

CI installs the five family distributions (plugins/), so there this runs with search, CP, SAT, ASP, MIP
and SMT; with fewer installed it checks the families present, and with one family it skips, saying so.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import nqueens_plugins as nq
from nqueens_plugins.formats.instances import shipped_instance

DIAGONALS = str(Path(nq.__file__).parent / "data" / "diag-10-4-1.param")


def complete_solvers_by_family() -> tuple[dict[str, list[str]], list[str]]:
    """The complete solvers that take blocked squares, by family; and why the installed ones that cannot
    run here cannot (a solver binary missing: its reason names the package to install)."""
    families: dict[str, list[str]] = {}
    unavailable = []
    for registration in nq.solvers():
        solver = registration.solver
        if solver.complete and solver.supports_blocked and solver.family and solver.name != "python-constraint":
            refused = solver.precheck(28, {option.name: option.default for option in solver.options})
            if refused is None:
                families.setdefault(solver.family, []).append(solver.name)
            else:
                unavailable.append(refused)
    return families, unavailable


def test_every_family_installed_confirms_each_no_solution_of_the_shipped_instances() -> None:
    families, unavailable = complete_solvers_by_family()
    for reason in unavailable:  # said in the summary; CI installs every binary, so there none is left out
        warnings.warn(f"left out of the families cross-check: {reason}", stacklevel=1)
    if len(families) < 2:
        pytest.skip(f"only one family of complete solvers is installed ({', '.join(families)}): nothing to cross")
    solvers = sorted(name for names in families.values() for name in names)
    checks, skipped = nq.cross_check_files(
        [f"{DIAGONALS}@5..9", shipped_instance("blockedqueens.28.1449787894.param")],
        solvers,
        limits=nq.Limits(timeout=30),
    )
    assert not skipped, skipped
    assert len(checks) == 6 and all(check.agrees for check in checks), [c.detail for c in checks if not c.agrees]
    unsatisfiable = [check for check in checks if check.verdict == "unsatisfiable"]
    assert [Path(check.instance).name for check in unsatisfiable] == [f"diag-10-4-1.param@{d}" for d in range(7, 10)]
    for check in unsatisfiable:
        assert check.refuting_families == sorted(families), (check.instance, check.detail)
    satisfiable = [check for check in checks if check.verdict == "satisfiable"]
    assert len(satisfiable) == 3  # @5, @6 (published: the last with a solution) and the ASP instance
