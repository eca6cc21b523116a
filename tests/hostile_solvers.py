"""Solvers that misbehave in every way the harness must survive (registered by the tests)."""

from __future__ import annotations

import ctypes
import os
import time

from nqueens_plugins import Outcome, Solver, Status, hookimpl
from nqueens_plugins.builtin.construction import construct


class Raises(Solver):
    name = "hostile-raises"
    summary = "Raises an exception."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        raise RuntimeError("the plugin broke")


class BusyLoop(Solver):
    name = "hostile-busy"
    summary = "Spins forever and never looks at its budget."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        while True:
            pass


class Sleeper(Solver):
    name = "hostile-sleeps"
    summary = "Sleeps for an hour."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        time.sleep(3600)


class Exits(Solver):
    name = "hostile-exits"
    summary = "Ends its process with os._exit."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        os._exit(7)


class Segfaults(Solver):
    name = "hostile-segfaults"
    summary = "Reads address zero."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        ctypes.string_at(0)


class WrongType(Solver):
    name = "hostile-wrong-type"
    summary = "Returns a string instead of an Outcome."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        return "solved!"


class AttackedBoard(Solver):
    name = "hostile-attacked"
    summary = "Claims solved with every queen on one diagonal."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        return Outcome(Status.SOLVED, list(range(problem.n)), 1, problem.n)


class FalseNoSolution(Solver):
    name = "hostile-no-solution"
    summary = "Claims, as a complete solver, that no board has a solution."
    complete = True

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        return Outcome(Status.NO_SOLUTION, None, 1, 0)

    def count(self, problem, budget, options, unique):  # type: ignore[no-untyped-def]
        from nqueens_plugins import Count

        return Count(Status.SOLVED, 0)


class Nap(Solver):
    name = "nap"
    summary = "Sleeps a fifth of a second, then answers with the construction (well-behaved, slow)."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        time.sleep(0.2)
        queens = construct(problem.n)
        if queens is None:
            return Outcome(Status.GAVE_UP)
        return Outcome(Status.SOLVED, queens, 1, problem.n)


HOSTILE = [Raises, BusyLoop, Sleeper, Exits, Segfaults, WrongType, AttackedBoard, FalseNoSolution]


@hookimpl
def nqueens_register_solvers(register):  # type: ignore[no-untyped-def]
    for solver in HOSTILE + [Nap]:
        register(solver())
