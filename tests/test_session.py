"""nq.register: a solver written in a notebook cell or a script, used by name in this process.

The class travels to its worker by value (cloudpickle): here classes defined inside the test
functions (which pickle cannot send by reference) and, in a child interpreter, a class defined in
``__main__``, as a notebook or a script defines it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

import nqueens_plugins as nq
from nqueens_plugins import BadInput, Outcome, Solver, Status
from nqueens_plugins.testing import assert_contract


def odd_then_even_solver(name: str = "odd-then-even", careful: bool = False) -> Solver:
    """A solver class made at run time (a ``<locals>`` class, like a notebook's: no module to import it from).
    Careless, it answers a board that is wrong when n % 6 is 2 or 3; careful, it gives up there."""

    class OddThenEven(Solver):
        summary = "Odd rows, then even rows: a solution unless n % 6 is 2 or 3."
        complete = False
        supports_fixed = False
        supports_blocked = False

        def solve(self, problem, rng, budget, options):
            n = problem.n
            if careful and n % 6 in (2, 3):
                return Outcome(Status.GAVE_UP)
            return Outcome(Status.SOLVED, [*range(1, n, 2), *range(0, n, 2)], iterations=1, moves=n)

    OddThenEven.name = name
    return OddThenEven()


def test_a_registered_solver_runs_isolated_by_name_and_its_answers_are_checked() -> None:
    nq.register(odd_then_even_solver())
    assert nq.solve("odd-then-even", 10).verified is True
    wrong = nq.solve("odd-then-even", 8)  # 8 % 6 == 2: the construction fails, and the verifier says so
    assert wrong.status is Status.INVALID and "diagonal" in (wrong.reason or "")
    records = nq.compare(["odd-then-even", "backtracking"], [7, 8], trials=1)
    assert {(r["solver"], r["n"]): r["status"] for r in records} == {
        ("odd-then-even", 7): "solved",
        ("odd-then-even", 8): "invalid",
        ("backtracking", 7): "solved",
        ("backtracking", 8): "solved",
    }
    (registration,) = [r for r in nq.solvers() if r.solver.name == "odd-then-even"]
    assert registration.source.describe() == "registered in session"


def test_the_contract_kit_checks_a_registered_solver() -> None:
    nq.register(odd_then_even_solver("careful", careful=True))
    assert_contract("careful")


def test_a_registered_solver_that_ignores_its_limit_is_killed_at_it() -> None:
    class Stubborn(Solver):
        name = "stubborn"
        summary = "Sleeps through its budget on any board but the warm-up's."

        def solve(self, problem, rng, budget, options):
            if problem.n > 4:
                time.sleep(600)
            return Outcome(Status.GAVE_UP)

    with nq.register(Stubborn()):
        result = nq.solve("stubborn", 8, limits=nq.Limits(timeout=0.5))
    assert result.status is Status.TIMED_OUT and "killed" in (result.reason or "")


def test_a_registered_solver_that_never_returns_times_out_at_the_users_limit() -> None:
    # Its default warm-up (a 4x4 solve) never returns either: the user's limit must hold all the same.
    class NeverReturns(Solver):
        name = "never-returns"
        summary = "Sleeps through every solve, the warm-up's included."

        def solve(self, problem, rng, budget, options):
            time.sleep(600)

    with nq.register(NeverReturns()):
        asked = time.monotonic()
        result = nq.solve("never-returns", 8, limits=nq.Limits(timeout=1))
        waited = time.monotonic() - asked
    assert result.status is Status.TIMED_OUT, result.reason
    assert "run cold" in (result.reason or ""), result.reason  # the record says why its time may hold a load
    # 1 s of warm-up, a new worker, the 1 s limit and its 0.5 s grace: nowhere near the 120 s preparation limit.
    assert waited < 30, waited


def test_with_block_and_unregister_withdraw_it() -> None:
    solver = odd_then_even_solver()
    with nq.register(solver) as registered:
        assert registered is solver
        assert nq.solve("odd-then-even", 7).verified is True
    with pytest.raises(BadInput, match="unknown solver 'odd-then-even'"):
        nq.solve("odd-then-even", 7)
    nq.register(solver)
    nq.unregister("odd-then-even")
    with pytest.raises(BadInput, match="not a solver registered in this session"):
        nq.unregister("odd-then-even")


class NotASolver:
    name = "not-a-solver"
    summary = "Has the attributes but not the base class."


class HoldsALock(Solver):
    name = "holds-a-lock"
    summary = "Keeps a lock, which no process can be sent."

    def __init__(self) -> None:
        self.lock = threading.Lock()

    def solve(self, problem, rng, budget, options):
        return Outcome(Status.GAVE_UP)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (NotASolver, "cannot register it: solver 'not-a-solver': must be an instance of a nqueens_plugins.Solver"),
        (
            lambda: type(odd_then_even_solver()),
            "cannot register it: register\\(\\) takes a solver instance, not the class",
        ),
        (lambda: odd_then_even_solver("min-conflicts"), "'min-conflicts' is taken by plugin 'builtin-min-conflicts'"),
        (lambda: odd_then_even_solver("Bad Name"), "name must be kebab-case"),
        (HoldsALock, "'holds-a-lock' cannot be sent to a worker process \\(TypeError: cannot pickle '_thread.lock'"),
    ],
)
def test_what_cannot_be_registered_is_one_line(make, message: str) -> None:
    with pytest.raises(BadInput, match=message) as raised:
        nq.register(make())
    assert "\n" not in str(raised.value)
    assert not [r for r in nq.solvers() if r.source.session]


def test_a_solver_that_cannot_travel_any_more_is_an_error_of_its_runs_only() -> None:
    """Changed after it was registered (given a lock), the solver cannot be pickled: its runs end as errors
    naming why, and the other solvers of the comparison run as usual."""
    solver = odd_then_even_solver()
    nq.register(solver)
    solver.lock = threading.Lock()
    result = nq.solve("odd-then-even", 7)
    assert result.status is Status.ERROR
    assert "cannot be sent to a worker process (TypeError: cannot pickle '_thread.lock'" in (result.reason or "")
    records = nq.compare(["odd-then-even", "min-conflicts"], [8, 10], trials=1)
    assert {(r["solver"], r["status"]) for r in records} == {("odd-then-even", "error"), ("min-conflicts", "solved")}


def test_a_name_is_registered_once() -> None:
    nq.register(odd_then_even_solver())
    with pytest.raises(BadInput, match="'odd-then-even' is registered in this session already: nq.unregister"):
        nq.register(odd_then_even_solver())


SCRIPT = """
import os, time
import nqueens_plugins as nq
from nqueens_plugins import Count, Outcome, Solver, Status


class Permutations(Solver):
    name = "permutations"
    summary = "Every permutation, checked: counts small boards."
    complete = True
    can_count = True
    supports_fixed = False
    supports_blocked = False

    def solve(self, problem, rng, budget, options):
        found = next(self.boards(problem.n), None)
        return Outcome(Status.SOLVED, found, iterations=1, moves=problem.n) if found else Outcome(Status.NO_SOLUTION)

    def count(self, problem, budget, options, unique):
        return Count(Status.SOLVED, sum(1 for _ in self.boards(problem.n)), iterations=1)

    @staticmethod
    def boards(n):
        from itertools import permutations
        for q in permutations(range(n)):
            if len({q[c] + c for c in range(n)}) == n == len({q[c] - c for c in range(n)}):
                yield list(q)


class Stubborn(Solver):
    name = "stubborn"
    summary = "Sleeps through its budget."

    def solve(self, problem, rng, budget, options):
        if problem.n > 4:
            print(os.getpid(), flush=True)
            time.sleep(600)
        return Outcome(Status.GAVE_UP)


nq.register(Permutations())
nq.register(Stubborn())
print("solve", nq.solve("permutations", 6).verified)
counted = nq.count("permutations", 7)
print("count", counted.solutions, counted.verified)
print("no-solution", nq.solve("permutations", 3).status)
result = nq.solve("stubborn", 8, limits=nq.Limits(timeout=0.5))
print("stubborn", result.status, (result.output or "").strip())
"""


def test_a_class_defined_in_main_runs_in_workers_by_value(tmp_path: Path) -> None:
    """What a notebook or a script does: the class lives in ``__main__``, which no worker can import."""
    script = tmp_path / "my_script.py"
    script.write_text(textwrap.dedent(SCRIPT))
    done = subprocess.run(
        [sys.executable, str(script)], check=False, capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert lines["solve"] == "True"
    assert lines["count"] == "40 True"  # OEIS A000170
    assert lines["no-solution"] == "no-solution"
    status, pid = lines["stubborn"].split()
    assert status == "timed-out"
    assert not Path(f"/proc/{pid}").exists()  # the worker that ran it was killed at the limit, and reaped
