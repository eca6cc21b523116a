"""``pysat``: N-Queens posed as CNF to the SAT solvers python-sat ships.

The encoding (``nqueens_pysat.encoding``): one variable per square, exactly one
queen per column, at most one per row, diagonal and anti-diagonal, the implied
"at least one queen per row" (option ``implied``, on by default), fixed queens
and blocked squares as unit clauses. ``amo`` picks how python-sat's
``CardEnc.atmost`` encodes each at-most-one; ``solver`` picks the SAT solver.

The defaults, by measurement (CPU seconds on 8 published Blocked n-Queens and
Excluded Diagonals instances of about a second each; README.md has the tables):
``amo=pairwise`` (8.7 s in all with CaDiCaL 1.9.5, against 13.1 to 20 s for the
eight encodings with auxiliary variables) and ``solver=cadical195`` (8.7 s;
cadical153 13.7 s, cadical300 13.9 s, minisat22 19.5 s, the glucose and maple
solvers 34 s to over 100 s). Without the implied row clauses five of the six
Blocked instances did not finish within 60 s (0.7 to 1.4 s with them). On large plain boards the MiniSat
line is far faster than CaDiCaL (n = 100: 0.02 s against 1.5 to 2 s):
``solver=minisat22`` is the variant for them.

The budget. The MiniSat line (minisat22, maplechrono, maplecm, maplesat,
mergesat3) is called with ``solve_limited(expect_interrupt=True)``, which
releases the GIL, and a ``threading.Timer`` calls ``interrupt()`` at the
budget's remaining seconds; they stop within a decision (measured: at most
0.08 s late). The glucose solvers are left out: they look at the interrupt only
between restarts, and came back up to 1.9 s late on a 0.55 s budget (the host
kills at 0.5 s). python-sat gives CaDiCaL no ``interrupt()``, and its search
holds the GIL, so no timer thread can run beside it. Running it in slices of
conflicts (``conf_budget``) was measured and rejected: every call restarts
CaDiCaL's rephasing and reduction schedules, and on plain n = 100 slices of
2,000 conflicts took 2.2 million conflicts where one call takes 6,000. So
CaDiCaL runs in a forked child process, one call exactly as raw python-sat
makes it, and the parent waits for its answer until the budget's time is up,
then kills it: a timed-out run returns on time, with only the CNF's size among
its counters, once the child has built it (the search's statistics die with the child). Lingeling, Kissat and
CaDiCaL 1.0.3 are left out: python-sat offers no limited solve for them. The
budget's iteration cap becomes a cap on conflicts (``conf_budget``). An
interrupted or capped call answers ``None``, reported as TIMED_OUT; only UNSAT is
a proof of no-solution.

Counts: one **iteration** is one decision of the SAT solver; **moves** is the
number of queens in the answer (a SAT solver places none one by one).
Counters: ``conflicts``, ``decisions``, ``propagations``, ``restarts`` (from
``accum_stats()``), ``variables`` and ``clauses`` (of the CNF posed; a
solver's own clause count includes what it learnt).

Counting enumerates: after each model, a clause ruling out that board (the
negation of its n queen variables) is added and the solver is asked again,
incrementally. One SAT call per solution: practical for plain boards up to
about n = 12 or 13 (14,200 solutions in 3.6 s at n = 12, 73,712 in 24 s at
n = 13, with CaDiCaL); ``count_seconds`` says how long a plain board would
take, so ``nqueens count`` asks before a count that would take hours. A CaDiCaL
count publishes its tally after each solution, so one cut short by the budget
still returns what it found (a lower bound).

python-sat's solvers take no random seed, so ``rng`` is unused: the search is
deterministic and the same instance gives the same board.

Certificates (``certificate.py``). With ``budget.proof`` set and a solver that logs proofs
that check (CaDiCaL, Lingeling, Glucose 4/4.2, MapleChrono, MapleCM: ``can_certify``), a solve
poses the host's canonical CNF instead of this plugin's encoding, with ``with_proof=True``, and
writes the library's DRUP proof of an UNSAT answer to the ``ProofLog``, ending with the empty
clause. Where the solve runs in a child process, the child writes the proof file itself (its
forked copy of the log) and sends the log's counters back with its answer. python-sat hands the
proof over as one list of lines: all of it is in memory once the search ends. Measured on nine
published unsatisfiable Excluded Diagonals instances (n = 16..18): a certified run takes about
twice the time of the plain one (decoding and writing the proof, not the search).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from nqueens_plugins import Adapter, BadInput, Budget, Count, Option, Outcome, Problem, Requirement, SizeLimit, Status
from nqueens_pysat import certificate
from nqueens_pysat.encoding import (
    AMO_ENCODINGS,
    Clause,
    Size,
    blocking_clause,
    clause_batches,
    dimacs,
    queens_of,
)

if TYPE_CHECKING:
    from nqueens_plugins import ProofLog

# The SAT solvers offered: every python-sat solver whose search a budget can stop promptly (see the docstring).
CADICAL = ("cadical195", "cadical153", "cadical300")  # run in a child process, killed at the deadline
INTERRUPTIBLE = ("minisat22", "maplechrono", "maplecm", "maplesat", "mergesat3")  # interrupted by a timer
# No limited solve in python-sat (Lingeling, Kissat) or one that looks at interrupt() only between restarts
# (Glucose): run in the child process like CaDiCaL, killed at the deadline; no conflict cap.
UNCAPPED = ("lingeling", "kissat404", "glucose4", "glucose42")
SOLVERS = CADICAL + INTERRUPTIBLE + UNCAPPED
NOT_INCREMENTAL = ("kissat404",)  # no clause may be added after a solve: it solves, it does not count
DEFAULT_SOLVER = "cadical195"
DEFAULT_AMO = "pairwise"
# The largest CNF posed, in clauses: about 0.7 GB in the solver (0.8 GB measured at 5.6 million
# pairwise clauses, Python's share included).
MAX_CLAUSES = 5_000_000
# The largest board per at-most-one encoding: the largest n whose plain board's CNF stays within
# MAX_CLAUSES (encoding.plain_size; blocked squares only make it smaller). pairwise and totalizer
# grow as n^3 (an at-most-one over L squares takes about L^2 / 2 clauses), the others as n^2 or
# n^2 log n.
MAX_N = {
    "pairwise": 144,
    "commander": 598,
    "seqcounter": 646,
    "ladder": 558,
    "bitwise": 379,
    "totalizer": 139,
    "mtotalizer": 229,
    "kmtotalizer": 559,
    "sortnetwrk": 137,
    "cardnetwrk": 456,
}
TOO_LARGE = f"past it the CNF holds more than {MAX_CLAUSES:,} clauses, about 0.7 GB in the solver"
# Seconds per clause or variable that freeing a MiniSat-line solver may take (0.02 s of CPU per 10
# million clauses, measured, with a margin), times how much the machine's load stretched building
# the CNF: kept back from the budget, so a run on a large board ends by its deadline with its memory
# given back. (A CaDiCaL child is killed; the system takes its memory back.)
FREEING_SECONDS = 5e-8
# Plain-board counting on this machine (2 cores, busy): seconds per solution, one incremental SAT
# call and a blocking clause each; for count_seconds. Measured with pairwise: CaDiCaL 0.25 ms at
# n = 12 (14,200 solutions in 3.6 s) and 0.33 ms at n = 13 (73,712 in 24 s); minisat22 1.4 to 2.6 ms
# for n = 9..11.
SECONDS_PER_SOLUTION = {"cadical": 0.0004, "minisat": 0.003}
STATISTICS = ("conflicts", "decisions", "propagations", "restarts")


def kind(solver: str) -> str:
    """``cadical`` (run in a child process) or ``minisat`` (the MiniSat line, interrupted by a timer)."""
    return "cadical" if solver in CADICAL + UNCAPPED else "minisat"


class OutOfBudget(Exception):
    """The budget ran out while the CNF was still being built."""


def new_sat(
    batches: Iterable[list[Clause]], name: str, budget: Budget, size: Size, with_proof: bool = False
) -> tuple[Any, Budget]:
    """A python-sat solver holding the CNF of ``batches`` (which keep ``size`` up to date), and the budget its
    search may use (the time freeing the solver takes is kept back). OutOfBudget if time ran out while building."""
    from pysat.solvers import Solver as SatSolver

    sat = SatSolver(name=name, with_proof=with_proof)
    wall, cpu = time.perf_counter(), time.thread_time()

    def freeing() -> float:
        """Seconds to free what is held so far, stretched as the machine's load stretched building it."""
        slowdown = min(max((time.perf_counter() - wall) / max(time.thread_time() - cpu, 1e-3), 1.0), 8.0)
        return (size.clauses + size.variables) * FREEING_SECONDS * slowdown

    try:
        for batch in batches:
            left = budget.remaining()
            if left is not None and left <= freeing():
                raise OutOfBudget
            sat.append_formula(batch)
    except BaseException:
        sat.delete()
        raise
    if budget.seconds is None:
        return sat, budget
    return sat, Budget(max(budget.seconds - freeing(), 0.0), budget.iterations, started=budget.started)


def conflicts_left(sat: Any, cap: int | None) -> int | None:
    """Conflicts the iteration cap still allows (None: no cap); it holds for all of a count's calls."""
    return None if cap is None else cap - int(sat.accum_stats()["conflicts"])


def interrupted_call(sat: Any, budget: Budget) -> bool | None:
    """One call of a MiniSat-line solver within the budget: True (SAT), False (UNSAT, proved) or None
    (time or the conflict cap ran out), stopped by a timer calling ``interrupt()``."""
    left, remaining = conflicts_left(sat, budget.iterations), budget.remaining()
    if (left is not None and left <= 0) or (remaining is not None and remaining <= 0):
        return None
    sat.conf_budget(-1 if left is None else left)  # -1: no limit
    timer = threading.Timer(remaining, sat.interrupt) if remaining is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        result = sat.solve_limited(expect_interrupt=True)
    finally:
        if timer is not None:
            timer.cancel()
            timer.join()
        sat.clear_interrupt()  # a timer that fired as the call returned must not stop the next one
    return None if result is None else bool(result)


def capped_call(sat: Any, cap: int | None, name: str) -> bool | None:
    """One call in the child process, as raw python-sat makes it: with the conflict cap, if any."""
    left = conflicts_left(sat, cap)
    if left is None:
        return bool(sat.solve())
    if name in UNCAPPED:
        raise RuntimeError(f"{name} takes no conflict cap in python-sat: give a time limit instead")
    if left <= 0:
        return None
    sat.conf_budget(left)
    result = sat.solve_limited()
    return None if result is None else bool(result)


def statistics_of(sat: Any) -> dict[str, int]:
    try:
        stats = sat.accum_stats()
    except (NotImplementedError, AttributeError, RuntimeError):  # Kissat exposes none in python-sat
        return {}
    return {name: int(stats.get(name, 0)) for name in STATISTICS}


def counters_of(statistics: Mapping[str, int], size: Size) -> dict[str, int]:
    """The search's statistics (absent when the search was killed before reporting any) and the CNF's size
    (absent when a child was killed before it had built the CNF: no size is known, and 0 would be false)."""
    searched = {name: int(statistics[name]) for name in STATISTICS if name in statistics}
    if size.variables == 0:
        return searched
    return searched | {"variables": size.variables, "clauses": size.clauses}


def child_main(
    connection: Any,
    problem: Problem,
    options: Mapping[str, Any],
    cap: int | None,
    tally: Any,
    proof: ProofLog | None = None,
) -> None:
    """The CaDiCaL child: build, solve (or count, publishing the tally in ``tally`` after each
    solution: solutions, then STATISTICS, then variables and clauses), send the answer and end at once:
    the system takes the memory back faster than CaDiCaL frees its clauses one by one.

    With ``proof`` (a certified solve) it poses the canonical CNF and writes the proof of an UNSAT answer
    to the log's file itself, then sends the log's counters as a fifth item (``certified_child``)."""
    import os

    from pysat.solvers import Solver as SatSolver

    if proof is not None:
        connection.send(certified_child(proof, options["solver"], cap, tally))
        os._exit(0)
    size = Size()
    sat = SatSolver(name=options["solver"])
    for batch in clause_batches(problem, options["amo"], options["implied"], size):
        sat.append_formula(batch)
    tally[5], tally[6] = size.variables, size.clauses
    if tally[7] == 0:  # solve
        result = capped_call(sat, cap, options["solver"])
        queens = queens_of(sat.get_model(), problem.n) if result else None
        connection.send((result, queens, statistics_of(sat), size))
        os._exit(0)
    solutions = 0
    while True:
        result = capped_call(sat, cap, options["solver"])
        if result is not True:
            connection.send((result, solutions, statistics_of(sat), size))
            os._exit(0)
        solutions += 1
        sat.add_clause(blocking_clause(queens_of(sat.get_model(), problem.n), problem.n))
        statistics = statistics_of(sat)
        tally[0] = solutions
        for index, name in enumerate(STATISTICS, start=1):
            tally[index] = statistics.get(name, 0)


def certified_child(proof: ProofLog, name: str, cap: int | None, tally: Any) -> tuple[Any, ...]:
    """A certified solve in the child: (result, queens, statistics, size, the log's counters). The child
    writes the proof file (its copy of the log, forked, opens it) and closes it before answering."""
    from pysat.solvers import Solver as SatSolver

    size = Size()
    formula = proof.formula
    sat = SatSolver(name=name, with_proof=True)
    for batch in certificate.canonical_batches(formula, size):
        sat.append_formula(batch)
    tally[5], tally[6] = size.variables, size.clauses
    result = capped_call(sat, cap, name)
    queens = certificate.queens_on(formula, sat.get_model()) if result else None
    statistics = statistics_of(sat)
    if result is False:
        certificate.write_proof(proof, sat.get_proof(), name in certificate.KEEPS_DELETIONS)
        proof.close()
    return result, queens, statistics, size, certificate.log_state(proof)


def in_child(
    problem: Problem, options: Mapping[str, Any], budget: Budget, counting: bool, proof: ProofLog | None = None
) -> tuple[Any, ...]:
    """Run ``child_main`` in a forked process until it answers or the budget's time is up (then kill it).

    Returns the child's answer, or (None, solutions, statistics, size) from its last published tally
    when it was stopped. A child that dies (out of memory, say) is an error naming its exit code.
    With ``proof``, a certified solve: the child writes the proof file; its answer has the log's
    counters as a fifth item, and a stopped child's file is partial (the run is timed out: no claim).
    """
    import multiprocessing

    if options["solver"] in UNCAPPED and budget.iterations is not None:
        raise RuntimeError(f"{options['solver']} takes no conflict cap in python-sat: give a time limit instead")
    import pysat.card
    import pysat.solvers  # noqa: F401 - imported here once, so that every child starts with them loaded

    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    tally = context.RawArray("q", 8)
    tally[7] = int(counting)
    child = context.Process(
        target=child_main, args=(sender, problem, options, budget.iterations, tally, proof), name="pysat-cadical"
    )
    child.daemon = True
    child.start()
    sender.close()
    try:
        # None: no time limit, wait for the answer; poll(0) takes one that came as the time ran out.
        if receiver.poll(budget.remaining()) or receiver.poll(0):
            try:
                return tuple(receiver.recv())
            except EOFError:
                child.join()
                raise RuntimeError(
                    f"the {options['solver']} process ended without an answer (exit code {child.exitcode})"
                ) from None
        # Killed: a count's statistics as of its last solution; a solve's died with the child.
        statistics = {name: int(tally[index]) for index, name in enumerate(STATISTICS, start=1)} if tally[0] else {}
        return None, int(tally[0]), statistics, Size(int(tally[5]), int(tally[6]))
    finally:
        receiver.close()
        if child.is_alive():
            child.kill()
        child.join(0.05)  # not longer: a large child may take a while to vanish; multiprocessing reaps it later


class PySat(Adapter):
    name = "pysat"
    runs_on = "python-sat (C/C++ SAT solvers)"
    family = "SAT"
    summary = "CNF of one variable per square for python-sat's CDCL solvers (CaDiCaL by default); complete."
    complete = True
    can_count = True  # by enumeration with blocking clauses: small boards only (see count_seconds)
    certifies = True  # with the solvers that log DRUP proofs (can_certify; see certificate.py)
    supports_fixed = True
    supports_blocked = True
    requires = (Requirement("pysat needs python-sat: pip install python-sat", module="pysat"),)
    size_limits = (SizeLimit(MAX_N, TOO_LARGE, option="amo"),)
    max_n = max(MAX_N.values())
    exports = ("dimacs",)
    options = (
        Option("amo", str, DEFAULT_AMO, "at-most-one encoding (pysat.card)", choices=AMO_ENCODINGS),
        Option("solver", str, DEFAULT_SOLVER, "python-sat SAT solver", choices=SOLVERS),
        Option("implied", bool, True, "add the implied at-least-one clause per row"),
    )

    def counts(self, options: Mapping[str, Any]) -> bool:
        """Kissat is not incremental (python-sat aborts on a clause added after a solve): it cannot enumerate."""
        return options["solver"] not in NOT_INCREMENTAL

    def can_certify(self, options: Mapping[str, Any]) -> bool:
        """Only the solvers whose DRUP proofs check (``certificate.PROOF_SOLVERS``): MiniSat 2.2, MergeSat 3
        and Kissat log none in python-sat, MapleSAT's are not RUP."""
        return super().can_certify(options) and options["solver"] in certificate.PROOF_SOLVERS

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        proof = budget.proof if budget.proof is not None and self.can_certify(options) else None
        if proof is not None:
            certificate.certified_formula(proof, MAX_CLAUSES)  # BadInput when too large to hold
        if kind(options["solver"]) == "cadical":
            answer = in_child(problem, options, budget, counting=False, proof=proof)
            result, queens, statistics, size = answer[:4]
            if proof is not None and len(answer) > 4:
                certificate.adopt_state(proof, answer[4])
        else:
            result, queens, statistics, size = self.solve_here(problem, options, budget, proof)
        counters = counters_of(statistics, size)
        iterations = int(counters.get("decisions", 0))
        if result is True:
            return Outcome(Status.SOLVED, queens, iterations, problem.n, counters)
        if result is False:
            return Outcome(Status.NO_SOLUTION, None, iterations, 0, counters)
        return Outcome(Status.TIMED_OUT, None, iterations, 0, counters)

    def solve_here(
        self, problem: Problem, options: Mapping[str, Any], budget: Budget, proof: ProofLog | None = None
    ) -> tuple[Any, ...]:
        """A MiniSat-line solver in this process: (SAT/UNSAT/None, queens, statistics, size). With ``proof``
        it poses the canonical CNF and writes the proof of an UNSAT answer to the log."""
        size = Size()
        name = options["solver"]
        if proof is None:
            batches = clause_batches(problem, options["amo"], options["implied"], size)
        else:
            batches = certificate.canonical_batches(proof.formula, size)
        try:
            sat, searching = new_sat(batches, name, budget, size, with_proof=proof is not None)
        except OutOfBudget:
            return None, None, {}, size
        try:
            result = interrupted_call(sat, searching)
            queens: list[int] | None = None
            if result:
                model = sat.get_model()
                queens = queens_of(model, problem.n) if proof is None else certificate.queens_on(proof.formula, model)
            statistics = statistics_of(sat)
            if result is False and proof is not None:
                certificate.write_proof(proof, sat.get_proof(), name in certificate.KEEPS_DELETIONS)
            return result, queens, statistics, size
        finally:
            sat.delete()

    def count(self, problem: Problem, budget: Budget, options: Mapping[str, Any], unique: bool) -> Count:
        if unique:
            raise NotImplementedError("pysat counts all solutions, not classes under symmetry")
        if kind(options["solver"]) == "cadical":
            result, solutions, statistics, size = in_child(problem, options, budget, counting=True)
            calls = solutions + 1
        else:
            result, solutions, statistics, size, calls = self.count_here(problem, options, budget)
        counters = counters_of(statistics, size) | {"sat_calls": calls}
        status = Status.SOLVED if result is False else Status.TIMED_OUT
        return Count(status, solutions, False, int(counters.get("decisions", 0)), counters)

    def count_here(self, problem: Problem, options: Mapping[str, Any], budget: Budget) -> tuple[Any, ...]:
        """A MiniSat-line count in this process: (UNSAT at the end or None, solutions, statistics, size, calls)."""
        size = Size()
        try:
            batches = clause_batches(problem, options["amo"], options["implied"], size)
            sat, searching = new_sat(batches, options["solver"], budget, size)
        except OutOfBudget:
            return None, 0, {}, size, 0
        solutions = 0
        try:
            while True:
                result = interrupted_call(sat, searching)
                if result is not True:
                    return result, solutions, statistics_of(sat), size, solutions + 1
                solutions += 1
                sat.add_clause(blocking_clause(queens_of(sat.get_model(), problem.n), problem.n))
        finally:
            sat.delete()

    def seconds_per_solution(self, n: int, options: Mapping[str, Any]) -> float:
        """One SAT call and one blocking clause per solution (``count_seconds``)."""
        return SECONDS_PER_SOLUTION[kind(options["solver"])]

    def export(self, problem: Problem, options: Mapping[str, Any], format: str) -> str:
        if format != "dimacs":
            raise BadInput(f"pysat exports dimacs, not {format!r}")
        return dimacs(problem, options["amo"], options["implied"], options["solver"])
