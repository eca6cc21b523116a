"""``highs``: N-Queens posed as a 0/1 integer program to the HiGHS MIP solver.

The model, the assignment formulation of the MIP literature: a binary x[c][r]
per square (column ``c * n + r``), and

* each column: sum of its squares = 1;
* each row: sum = 1 (implied: n queens in n columns fill the n rows; as an
  equality it tightens the LP relaxation, and it decided the unsatisfiable
  Blocked instances measured faster than ``<= 1``);
* each diagonal of two squares or more: sum <= 1;
* a blocked square: upper bound 0; a fixed queen: lower bound 1 (both on
  one square make its bounds inconsistent, which HiGHS proves infeasible).

The objective is zero: a feasibility problem, which HiGHS ends at its first
integer solution. A random objective (costs in [0, 1), so that the LP
relaxation points somewhere) made every board slower: n = 16 took 25 s
against 0.08 s, and with the gap opened so that any solution ends the search
n = 100 took 4.2 s against 1.7 s. The matrix is built with numpy and handed
over in one ``passModel`` call.

The budget's time limit becomes ``time_limit`` (less what HiGHS may run on
past it at this size, ``lag_seconds``), its iteration cap
``mip_max_nodes``; the run's seed becomes ``random_seed``; output is off.
Model status kInfeasible is the proof of no-solution; kTimeLimit and the
node limit (kSolutionLimit) are TIMED_OUT. The solve runs through
``Highs.run`` on the calling thread.

HiGHS's presolve is on by default (option ``presolve``, HiGHS's own
``choose``). Off, plain boards are faster (n = 64: 0.04 s against 0.18 s,
n = 100: 0.12 s against 0.65 s), but the Blocked instances, the hard ones, are
mostly slower (n = 28: 1.7 s against 0.16 s, 6.8 s against 0.04 s, 8.5 s
against 5.6 s; one n = 48 instance faster, 87 s against 95 s).

Counts: one **iteration** is one branch-and-bound node (``mip_node_count``;
0 when presolve or the root heuristics decide the instance); **moves** is the
number of queens in the answer. Counters: ``nodes``, ``simplex_iterations``,
``highs_seconds`` (HiGHS's own run time) and ``mip_gap`` when it is finite.

HiGHS cannot enumerate solutions, so this solver does not count.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from nqueens_plugins import Adapter, BadInput, Budget, Option, Outcome, Problem, Requirement, SizeLimit, Status

# n^2 binaries and about 6n rows. HiGHS reads its clock only now and then, and its presolve not at
# all: on a plain board its presolve took 0.2-0.5 s at n = 100 and 3-18 s at n = 150 (on a busy
# machine) whatever the time limit; without presolve, its root heuristics ran 0.4-0.7 s past a
# 0.3 s limit at n = 150-200. The host stops a run 0.5 s past its limit.
MAX_N = 100
TOO_LARGE = "past it HiGHS's presolve and root heuristics run on for seconds past its time limit"
BANNER_SILENCED: list[bool] = []  # whether this process has made its first Highs object (see new_highs)


@contextlib.contextmanager
def stdout_silenced() -> Iterator[None]:
    """File descriptor 1 points at /dev/null inside (what C++ code prints goes nowhere)."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL(None).fflush(None)  # what HiGHS buffered goes to /dev/null, not to the restored stdout
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def new_highs() -> Any:
    """A quiet Highs object. HiGHS prints its banner from the first Highs object of a process, before
    any option can be set, so that one is made with stdout silenced."""
    import highspy

    if BANNER_SILENCED:
        highs = highspy.Highs()
    else:
        with stdout_silenced():
            highs = highspy.Highs()
        BANNER_SILENCED.append(True)
    highs.setOptionValue("output_flag", False)
    return highs


def constraint_matrix(n: int) -> tuple[Any, Any, Any, Any]:
    """The rows of the model, row-wise: (start, index, lower, upper) as numpy arrays.

    Rows: the n columns (= 1), the n rows (= 1), then the diagonals c + r = d and r - c = k of
    two squares or more (<= 1).
    """
    import numpy as np

    squares = np.arange(n * n)
    column, row = squares // n, squares % n
    families = (
        (column, n, 1.0, 1),
        (row, n, 1.0, 1),
        (column + row, 2 * n - 1, -np.inf, 2),
        (row - column + n - 1, 2 * n - 1, -np.inf, 2),
    )
    indices, lengths, lowers = [], [], []
    for keys, size, lower, shortest in families:
        order = np.argsort(keys, kind="stable")
        counts = np.bincount(keys, minlength=size)
        kept = counts >= shortest
        indices.append(squares[order][kept[keys[order]]])
        lengths.append(counts[kept])
        lowers.append(np.full(int(kept.sum()), lower))
    index = np.concatenate(indices).astype(np.int32)
    length = np.concatenate(lengths)
    start = np.concatenate(([0], np.cumsum(length)[:-1])).astype(np.int32)
    lower_bounds = np.concatenate(lowers)
    return start, index, lower_bounds, np.ones(len(lower_bounds))


def build(problem: Problem) -> Any:
    """A quiet Highs object holding the model."""
    import highspy
    import numpy as np

    n = problem.n
    start, index, row_lower, row_upper = constraint_matrix(n)
    col_lower, col_upper = np.zeros(n * n), np.ones(n * n)
    if problem.blocked:
        blocked = np.array(sorted(problem.blocked))
        col_upper[blocked[:, 0] * n + blocked[:, 1]] = 0.0
    for column, row in problem.fixed.items():
        col_lower[column * n + row] = 1.0
    highs = new_highs()
    status = highs.passModel(
        n * n,
        len(row_lower),
        len(index),
        int(highspy.MatrixFormat.kRowwise),
        int(highspy.ObjSense.kMinimize),
        0.0,
        np.zeros(n * n),  # feasibility: no objective
        col_lower,
        col_upper,
        row_lower,
        row_upper,
        start,
        index,
        np.ones(len(index)),
        np.full(n * n, int(highspy.HighsVarType.kInteger), dtype=np.int32),
    )
    if status == highspy.HighsStatus.kError:
        raise RuntimeError("HiGHS refused the model")
    return highs


def lag_seconds(n: int) -> float:
    """How long HiGHS may run on past its time limit at this size, which it is given that much less time.

    Measured on a busy machine with a 0.2 s limit: up to 0.27 s at n = 100, 0.07 s at n = 64.
    Returning a little early keeps the run inside the host's 0.5 s of grace.
    """
    return 0.05 + 0.25 * (n / MAX_N) ** 2


def configure(highs: Any, budget: Budget, seed: int, presolve: bool, lag: float = 0.0) -> None:
    highs.setOptionValue("random_seed", seed)
    highs.setOptionValue("presolve", "choose" if presolve else "off")  # "choose": HiGHS's default
    remaining = budget.remaining()
    if remaining is not None:
        highs.setOptionValue("time_limit", max(remaining - lag, 0.001))
    if budget.iterations is not None:
        highs.setOptionValue("mip_max_nodes", budget.iterations)


def counters_of(highs: Any) -> dict[str, int | float]:
    info = highs.getInfo()
    counters: dict[str, int | float] = {
        "nodes": max(int(info.mip_node_count), 0),
        "simplex_iterations": max(int(info.simplex_iteration_count), 0),
        "highs_seconds": float(highs.getRunTime()),
    }
    if math.isfinite(info.mip_gap):
        counters["mip_gap"] = float(info.mip_gap)
    return counters


def read_queens(highs: Any, n: int) -> list[int] | None:
    """The board of HiGHS's solution, or None if it has none with a queen in every column."""
    import numpy as np

    values = np.asarray(highs.getSolution().col_value, dtype=float).reshape(n, n)
    queens = values.argmax(axis=1)
    if not (values[np.arange(n), queens] > 0.5).all():
        return None
    return queens.tolist()


class Highs(Adapter):
    name = "highs"
    runs_on = "HiGHS MIP solver (C++)"
    family = "MIP"
    summary = "HiGHS branch-and-cut on the 0/1 assignment model (feasibility); complete, slow to prove none."
    complete = True
    can_count = False  # a MIP solver finds one solution; it does not enumerate them
    supports_fixed = True
    supports_blocked = True
    requires = (Requirement("highs needs the highspy package: pip install highspy", module="highspy"),)
    size_limits = (SizeLimit(MAX_N, TOO_LARGE),)
    max_n = MAX_N
    exports = ("mps",)
    options = (Option("presolve", bool, True, "HiGHS's presolve (its default); false turns it off"),)

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        import highspy

        highs = build(problem)
        lag = lag_seconds(problem.n)
        remaining = budget.remaining()
        if remaining is not None and remaining <= lag:  # too little time left to start HiGHS
            return Outcome(Status.TIMED_OUT, None, 0, 0, {"nodes": 0, "simplex_iterations": 0})
        configure(highs, budget, rng.randrange(2**31), options["presolve"], lag)
        highs.run()
        status = highs.getModelStatus()
        counters = counters_of(highs)
        nodes = int(counters["nodes"])
        solved = highs.getInfo().primal_solution_status == highspy.SolutionStatus.kSolutionStatusFeasible
        if solved:  # a feasible point is an answer, whatever stopped the search after it
            queens = read_queens(highs, problem.n)
            if queens is not None:
                return Outcome(Status.SOLVED, queens, nodes, problem.n, counters)
        Model = highspy.HighsModelStatus
        if status == Model.kInfeasible:
            return Outcome(Status.NO_SOLUTION, None, nodes, 0, counters)
        if status in (Model.kTimeLimit, Model.kSolutionLimit, Model.kIterationLimit, Model.kInterrupt):
            return Outcome(Status.TIMED_OUT, None, nodes, 0, counters)
        raise RuntimeError(f"HiGHS ended with model status {highs.modelStatusToString(status)}")

    def export(self, problem: Problem, options: Mapping[str, Any], format: str) -> str:
        """The model as HiGHS writes it in MPS, after comment lines that say which column is which square."""
        if format != "mps":
            raise BadInput(f"highs exports mps, not {format!r}")
        highs = build(problem)
        with tempfile.TemporaryDirectory(prefix="nqueens-highs-") as folder:
            path = Path(folder) / "queens.mps"
            highs.writeModel(str(path))
            text = path.read_text()
        n = problem.n
        label = problem.source or f"n={n}"
        return (
            f"* N-Queens ({label}) as nqueens-highs poses it to HiGHS: feasibility, no objective.\n"
            f"* Column c<k> is the square of column k // {n}, row k % {n} (a queen there when 1).\n"
            f"* Rows r0..r{2 * n - 1}: the columns, then the rows (= 1); then the diagonals (<= 1).\n"
        ) + text
