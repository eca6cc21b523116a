"""Built-in plugin, worker side: ``bitset-mrv``, a complete bit-set search for the hard variants.

The hard variants are completion, blocked squares and excluded diagonals.

Every row and every column of a solution holds exactly one queen, so both are
lines that must be filled. The search keeps, as bit masks, the squares still
open in every column *and* every row, and at each node branches on the line
(row or column) with the fewest open squares: a line with one square left is a
forced move, a line with none a dead end found at once. Placing a queen
removes what it attacks from every open line (O(n) word operations). This is
the approach of the authors of the instance sets (a bit-set search with a good
variable order; Gent, Jefferson and Nightingale, JAIR 2017), and what makes
the 400 Blocked n-Queens instances of the ASP competitions decidable in
seconds each (``benchmarks/hard_instances.py``). Branching on a line's squares
partitions the solutions, so counting visits each solution once.

On plain boards it is a good first-solution search but a slow counter (no
symmetry): ``bitboard`` counts plain boards.

The loop is ``bitset_mrv_kernel.advance``, compiled by numba when installed
(``kernel=auto|numba``) and run as plain Python otherwise; it runs in slices of
``SLICE_NODES`` placements with a budget poll between them.

Certified (``budget.proof``), a no-solution claim comes with a DRUP proof over
the canonical CNF. Every inference here is unit propagation on that formula (a
queen falsifies what it attacks, a line with one open square is forced, a line
with none is a conflict), so the proof is the search tree itself: each refuted
*decision* (a queen tried on a line with two open squares or more) gives the
lemma "not all the decisions down to here", written in post-order, and the
exhausted root gives the empty clause. A lemma is RUP: under its decisions,
propagation replays the forced queens down to the node below, whose line's
squares are each blocked by a child's lemma (or propagate to a dead end), so
the line's at-least-one clause fails. Forced queens are never in a lemma.
The kernel writes lemmas into an array (``PROOF_BUFFER``) that is written out
between slices; counting never proves.

Counts: one **move** is one queen placed; one **iteration** is a queen placed
or taken back, as for ``backtracking``. Counters: ``backtracks``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from nqueens_plugins.builtin.engines.kernels import engine_of, kernel_option, kernel_refusal, use_numba
from nqueens_plugins.core.hookspecs import hookimpl
from nqueens_plugins.core.problem import Budget, Count, Outcome, Problem, Status, Trace
from nqueens_plugins.core.solver import Solver, solve_a_small_board

if TYPE_CHECKING:
    from nqueens_plugins.core.hookspecs import SolverRegister
    from nqueens_plugins.core.proof_log import ProofLog

MAX_N = 62  # a line's open squares must fit a signed 64-bit word
SLICE_NODES = 1 << 16  # placements between budget polls: a small fraction of a second, compiled
TRACE_BUFFER = 3 * 1024  # numbers of a traced slice's events (three an event) before they are handed over
PROOF_BUFFER = 1 << 16  # numbers of a certified slice's lemmas before they are written out


class Search:
    """The state of one search, advanced slice by slice by the kernel."""

    def __init__(self, problem: Problem, compiled: bool) -> None:
        from nqueens_plugins.builtin.engines import bitset_mrv_kernel as kernel

        n = self.n = problem.n
        self.kernel = kernel
        self.advance = kernel.COMPILED if compiled else kernel.PYTHON
        size = (n + 1) * n
        if compiled:

            def zeros(length: int) -> Any:
                return np.zeros(length, dtype=np.int64)
        else:

            def zeros(length: int) -> Any:
                return [0] * length

        self.zeros = zeros
        self.columns, self.rows = zeros(size), zeros(size)
        self.done_columns, self.done_rows = zeros(n + 1), zeros(n + 1)
        self.kind, self.line, self.candidates = zeros(n + 1), zeros(n + 1), zeros(n + 1)
        self.placed_row, self.placed_column = zeros(n + 1), zeros(n + 1)
        self.decided = zeros(n + 1)  # whether the queen at each depth was a choice (see the kernel)
        self.scalars = zeros(kernel.SCALARS)
        self.fixed = dict(problem.fixed)
        self.finished = False  # the tree is exhausted (or empty)
        self.root_solution = False
        full = (1 << n) - 1
        for c in range(n):
            self.columns[c] = full
        for r in range(n):
            self.rows[r] = full
        for column, row in problem.blocked:
            self.columns[column] &= ~(1 << row)
            self.rows[row] &= ~(1 << column)
        done_columns = done_rows = 0
        for column, row in problem.fixed.items():
            done_columns |= 1 << column
            done_rows |= 1 << row
            kernel.place(n, self.columns, self.rows, 0, done_columns, done_rows, row, column)
        self.done_columns[0], self.done_rows[0] = done_columns, done_rows
        size, kind, index = kernel.select(n, self.columns, self.rows, 0, done_columns, done_rows)
        if kind == -1:
            self.root_solution = True
            self.finished = True
        elif size == 0:
            self.finished = True
        else:
            self.kind[0], self.line[0] = kind, index
            self.decided[0] = int(size > 1)
            self.candidates[0] = self.columns[index] if kind == 0 else self.rows[index]

    @property
    def nodes(self) -> int:
        return int(self.scalars[self.kernel.NODES])

    @property
    def backtracks(self) -> int:
        return int(self.scalars[self.kernel.BACKTRACKS])

    @property
    def solutions(self) -> int:
        return int(self.scalars[self.kernel.SOLUTIONS]) + int(self.root_solution)

    def run(self, budget: Budget, first: bool) -> Status:
        """SOLVED (first: a solution is in ``queens()``; count: finished), NO_SOLUTION or TIMED_OUT."""
        if self.root_solution:
            return Status.SOLVED
        if self.finished:
            if first and budget.proof is not None:
                budget.proof.add([])  # a line with no open square under the fixed queens: propagation fails
            return Status.NO_SOLUTION if first else Status.SOLVED
        trace = budget.trace
        events = self.zeros(TRACE_BUFFER if trace is not None else 0)
        proof = budget.proof if first else None  # a count claims nothing to refute
        lemmas = self.zeros(PROOF_BUFFER if proof is not None else 0)
        while True:
            limit = SLICE_NODES
            if budget.iterations is not None:
                limit = min(limit, budget.iterations - self.nodes - self.backtracks)
                if limit <= 0:
                    return Status.TIMED_OUT
            code = self.advance(
                self.n,
                self.columns,
                self.rows,
                self.done_columns,
                self.done_rows,
                self.kind,
                self.line,
                self.candidates,
                self.placed_row,
                self.placed_column,
                self.scalars,
                limit,
                first,
                events,
                self.decided,
                lemmas,
            )
            if trace is not None:
                self.hand_over(events, trace)
            if proof is not None:
                self.write_lemmas(lemmas, proof)
            if code == self.kernel.FOUND:
                return Status.SOLVED
            if code == self.kernel.EXHAUSTED:
                self.finished = True
                if proof is not None:
                    proof.add([])  # the root is refuted: no decision at all
                return Status.NO_SOLUTION if first else Status.SOLVED
            if budget.out_of_time():
                return Status.TIMED_OUT

    def hand_over(self, events: Any, trace: Trace) -> None:
        """Give the trace what the kernel recorded, and empty the record."""
        kernel = self.kernel
        chunk = events[: 3 * int(self.scalars[kernel.EVENTS])]
        recorded = chunk.tolist() if hasattr(chunk, "tolist") else chunk  # plain ints either way
        for index in range(0, len(recorded), 3):
            if recorded[index] == kernel.PLACE:
                trace.place(recorded[index + 1], recorded[index + 2])
            else:
                trace.remove(recorded[index + 1])
        self.scalars[kernel.EVENTS] = 0

    def write_lemmas(self, lemmas: Any, proof: ProofLog) -> None:
        """Write out the lemmas the kernel recorded (length, then squares), as clauses, and empty the record."""
        numbering = proof.formula.numbering  # indexed by column * n + row, as the kernel writes squares
        recorded = lemmas[: int(self.scalars[self.kernel.PROOF])]
        numbers = recorded.tolist() if hasattr(recorded, "tolist") else recorded
        index = 0
        while index < len(numbers):
            length = numbers[index]
            squares = numbers[index + 1 : index + 1 + length]
            proof.refute([-numbering[square] for square in squares])
            index += 1 + length
        self.scalars[self.kernel.PROOF] = 0

    def queens(self) -> list[int]:
        """The board after ``run`` found a solution: the fixed queens and the placements on the stack."""
        queens = [-1] * self.n
        for column, row in self.fixed.items():
            queens[column] = row
        if not self.root_solution:
            for depth in range(int(self.scalars[self.kernel.DEPTH]) + 1):
                queens[int(self.placed_column[depth])] = int(self.placed_row[depth])
        return queens


class BitsetMrv(Solver):
    name = "bitset-mrv"
    family = "search"
    summary = "Bit-set search on the row or column with fewest open squares; for completion and blocked instances."
    complete = True
    supports_blocked = True
    traces = True
    certifies = True
    max_n = MAX_N
    options = (kernel_option("search loop"),)

    def precheck(self, n: int, options: Mapping[str, Any]) -> str | None:
        return kernel_refusal(self.name, options) or super().precheck(n, options)

    def engine(self, options: Mapping[str, Any]) -> str:
        return engine_of(options)

    def warm_up(self, options: Mapping[str, Any], preparation: str = "") -> None:
        """A 4x4 solve of our own, not the default's guess: with numba it loads (or first compiles) the kernel,
        which takes seconds, past the short limit the host gives a guess (then a solver runs cold)."""
        solve_a_small_board(self, options)

    def start(self, problem: Problem, options: Mapping[str, Any]) -> Search | None:
        """A search, or None when the instance is impossible on its face."""
        if problem.contradiction() is not None:
            return None
        return Search(problem, use_numba(options))

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        search = self.start(problem, options)
        if search is None:
            if budget.proof is not None:
                budget.proof.add([])  # every obvious contradiction is a conflict of propagation alone
            return Outcome(Status.NO_SOLUTION, None, 0, 0, {"backtracks": 0})
        status = search.run(budget, first=True)
        queens = search.queens() if status is Status.SOLVED else None
        counters = {"backtracks": search.backtracks}
        return Outcome(status, queens, search.nodes + search.backtracks, search.nodes, counters)

    def count(self, problem: Problem, budget: Budget, options: Mapping[str, Any], unique: bool) -> Count:
        if unique:
            raise NotImplementedError(f"{self.name} counts all solutions, not classes under symmetry")
        search = self.start(problem, options)
        if search is None:
            return Count(Status.SOLVED, 0, False, 0, {"moves": 0, "backtracks": 0})
        status = search.run(budget, first=False)
        counters = {"moves": search.nodes, "backtracks": search.backtracks}
        return Count(status, search.solutions, False, search.nodes + search.backtracks, counters)


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(BitsetMrv())
