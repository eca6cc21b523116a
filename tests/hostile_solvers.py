"""Solvers that misbehave in every way the harness must survive (registered by the tests)."""

from __future__ import annotations

import ctypes
import os
import time

from nqueens_plugins import Option, Outcome, Solver, Status, hookimpl
from nqueens_plugins.builtin.construction import construct


class Raises(Solver):
    name = "hostile-raises"
    summary = "Raises an exception."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        raise RuntimeError("the plugin broke")


class BusyLoop(Solver):
    name = "hostile-busy"
    summary = "Spins forever and never looks at its budget."

    def warm_up(self, options, preparation=""):  # type: ignore[no-untyped-def]
        pass  # prepared at once: it is the run that never ends, and --timeout must end it

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        while True:
            pass


class Sleeper(Solver):
    name = "hostile-sleeps"
    summary = "Sleeps for an hour."

    def warm_up(self, options, preparation=""):  # type: ignore[no-untyped-def]
        pass  # prepared at once: it is the run that never ends, and --timeout must end it

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


class LongNap(Nap):
    name = "long-nap"
    summary = "Sleeps three seconds, then answers with the construction (well-behaved, slower than a worker's start)."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        time.sleep(2.8)
        return super().solve(problem, rng, budget, options)


class Deliberate(Nap):
    name = "deliberate"
    summary = "Takes a tenth of a second; its iterations depend on its option and seed alone (a tune's test subject)."
    options = (Option("x", float, 0.5, "the further from 0.3, the more iterations", minimum=0.0, maximum=1.0),)

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        time.sleep(0.1)
        iterations = int(1000 * abs(options["x"] - 0.3)) + rng.randrange(300)
        return Outcome(Status.SOLVED, construct(problem.n), iterations, problem.n)


class EndlessWarmUp(Solver):
    name = "hostile-endless-warm-up"
    summary = "Never finishes warming up (the default warm-up, a 4x4 solve, would hang the same way)."

    def warm_up(self, options, preparation=""):  # type: ignore[no-untyped-def]
        time.sleep(3600)

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        return Outcome(Status.GAVE_UP, None, 0, 0)


class HangsEverywhere(Solver):
    name = "hostile-hangs-everywhere"
    summary = "Sleeps for an hour in every solve, the default warm-up's 4x4 solve included."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        time.sleep(3600)


class EndlessRebuild(Solver):
    name = "hostile-endless-rebuild"
    summary = "Never finishes being rebuilt in a worker (its unpickling sleeps)."

    def __getstate__(self):  # type: ignore[no-untyped-def]
        return {"rebuilt": True}  # some state, so that unpickling calls __setstate__

    def __setstate__(self, state):  # type: ignore[no-untyped-def]
        time.sleep(3600)

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        return Outcome(Status.GAVE_UP, None, 0, 0)


class FailingWarmUp(Solver):
    name = "hostile-failing-warm-up"
    summary = "Its own warm_up raises (a kernel that does not compile)."

    def warm_up(self, options, preparation=""):  # type: ignore[no-untyped-def]
        raise OSError("the kernel did not compile")

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        return Outcome(Status.SOLVED, construct(problem.n), 1, problem.n)


HOSTILE = [Raises, BusyLoop, Sleeper, Exits, Segfaults, WrongType, AttackedBoard, FalseNoSolution]


# --- more faults (tests/test_hostile.py) ---------------------------------------------


class HoldsGil(Solver):
    name = "hostile-holds-gil"
    summary = "Sleeps an hour in native code that holds the GIL (as a library's solve call may)."

    def warm_up(self, options, preparation=""):  # type: ignore[no-untyped-def]
        pass

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        ctypes.PyDLL(None).sleep(3600)  # PyDLL: the GIL stays held, so no Python thread of the worker runs


class CountRaises(Solver):
    name = "hostile-count-raises"
    summary = "Solves, but raises when counting."
    complete = True

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        return Outcome(Status.SOLVED, construct(problem.n), 1, problem.n)

    def count(self, problem, budget, options, unique):  # type: ignore[no-untyped-def]
        raise MemoryError("the library ran out of memory")


class ExitsCleanly(Solver):
    name = "hostile-system-exit"
    summary = "Raises SystemExit(0) inside solve."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        raise SystemExit(0)


class Interrupts(Solver):
    name = "hostile-interrupt"
    summary = "Raises KeyboardInterrupt inside solve."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt("from the plugin")


class ClosesGenerator(Solver):
    name = "hostile-generator-exit"
    summary = "Raises GeneratorExit inside solve."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        raise GeneratorExit


class HugeQueen(Solver):
    name = "hostile-huge-int"
    summary = "Answers with a row number above 2**63."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        return Outcome(Status.SOLVED, [2**70] + list(range(1, problem.n)), 1, problem.n)


class Mutates(Solver):
    name = "hostile-mutates"
    summary = "Shrinks the problem it was given to n = 4 and solves that."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        object.__setattr__(problem, "n", 4)
        return Outcome(Status.SOLVED, [1, 3, 0, 2], 1, 4)


class Prints(Solver):
    name = "hostile-prints"
    summary = "Prints to stdout, then answers correctly."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        print('{"status": "forged"}')
        return Outcome(Status.SOLVED, construct(problem.n), 1, problem.n)


class NanCounters(Solver):
    name = "hostile-nan"
    summary = "Answers correctly with NaN and infinite counters."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        return Outcome(Status.SOLVED, construct(problem.n), 1, problem.n, {"rate": float("nan"), "cap": float("inf")})


class BadCount(Solver):
    name = "hostile-bad-count"
    summary = "Counts with an unknown status, or loops forever when counting n = 9."
    complete = True

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        return Outcome(Status.SOLVED, construct(problem.n), 1, problem.n)

    def count(self, problem, budget, options, unique):  # type: ignore[no-untyped-def]
        from nqueens_plugins import Count

        while problem.n == 9:
            pass
        return Count("maybe", 92)


class Daemon(Solver):
    name = "hostile-daemon"
    summary = "Starts a process in a session of its own, then answers correctly."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        import subprocess
        import sys

        marker = os.environ.get("HOSTILE_DAEMON_MARKER", "hostile-daemon-marker")
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", marker], start_new_session=True)
        return Outcome(Status.SOLVED, construct(problem.n), 1, problem.n)


class Hog(Solver):
    name = "hostile-hog"
    summary = "Allocates memory without bound."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        hoard = []
        while True:
            hoard.append(bytearray(64 << 20))


class Unreadable(Exception):
    def __str__(self) -> str:
        raise ValueError("no message for you")

    def __repr__(self) -> str:
        raise ValueError("nor a repr")


class RaisesUnreadable(Solver):
    name = "hostile-unreadable-error"
    summary = "Raises an exception whose str() and repr() raise too."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        raise Unreadable("secret")


class Mute(Exception):
    def __str__(self) -> str:
        raise ValueError("no message for you")


class RaisesMute(Solver):
    name = "hostile-mute-error"
    summary = "Raises an exception whose str() raises (its repr works)."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        raise Mute("the args still tell")


class RaisesAtLength(Solver):
    name = "hostile-long-error"
    summary = "Raises an exception with a message of ten million characters."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        raise RuntimeError("x" * 10_000_000)


def refuse_to_rebuild() -> None:
    raise RuntimeError("this solver cannot be rebuilt in another process")


class Unrebuildable(Solver):
    name = "hostile-unrebuildable"
    summary = "Pickles, but raises when a worker unpickles it."

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (refuse_to_rebuild, ())

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        return Outcome(Status.SOLVED, construct(problem.n), 1, problem.n)


MORE_HOSTILE = [
    HoldsGil,
    CountRaises,
    ExitsCleanly,
    Interrupts,
    ClosesGenerator,
    HugeQueen,
    Mutates,
    Prints,
    NanCounters,
    BadCount,
    Daemon,
    Hog,
    RaisesUnreadable,
    RaisesMute,
    RaisesAtLength,
    Unrebuildable,
    EndlessWarmUp,
    HangsEverywhere,
    EndlessRebuild,
    FailingWarmUp,
]


@hookimpl
def nqueens_register_solvers(register):  # type: ignore[no-untyped-def]
    for solver in HOSTILE + MORE_HOSTILE + [Nap, LongNap, Deliberate]:
        register(solver())
