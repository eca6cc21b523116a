"""Built-in plugin, worker side: depth-first search, plain backtracking and forward checking. Both complete.

``backtracking`` fills the columns left to right, trying rows lowest first; a
row is tried only if no placed queen attacks it; when a column has no row left
the previous queen is taken back and moved on. It is iterative (an explicit
stack of bit masks, no recursion limit at large n). Its wall is exponential:
lowest-row-first needs 1.7 million placements at n = 22 and over 5*10^7 at
n = 30, where ``timed-out`` is the honest answer.

``forward-checking`` keeps a domain (a bit mask of rows) for every empty
column. Placing a queen removes the squares it attacks from every future
domain; a domain emptied (a wipe-out) makes it back up at once instead of
discovering the dead end columns later. Pruned values are recorded on a trail
and restored incrementally on backtrack, never recomputed. Options:

* ``order=static`` fills columns left to right; ``order=mrv`` (minimum
  remaining values) fills next the column with the fewest rows left.
* ``values=lowest`` tries rows lowest first; ``values=middle`` tries the rows
  nearest the middle of the column first; ``values=lcv`` (least constraining
  value) tries first the row that removes the fewest values from the other
  domains, at O(n^2) per node. MRV with lowest rows stalls at some sizes
  (n = 150) where its neighbours take a few hundred placements, and MRV with
  LCV stalls too; MRV with middle rows first solves every n from 4 to 200
  quickly. ``benchmarks/search_methods.py`` measures each; the README has the
  figures.

Both count all solutions when asked (``nqueens count``) and prove
``no-solution`` when the search space is exhausted.

Certified (``budget.proof``), both write a DRUP proof of a no-solution claim
over the canonical CNF. Their inferences are unit propagation on it (a queen
falsifies what it attacks; a column with no row left, a wipe-out included, is a
conflict), so each queen taken back because everything below it failed, or
placed into a wipe-out, gives the lemma "not all the queens on the path down
to here" (fixed queens are units of the formula, never in a lemma), written in
post-order; the exhausted first column gives the empty clause. Each is RUP:
under its queens, the lemmas of the next column's rows falsify that column's
at-least-one clause.

Counts: one **move** is one queen placed. One **iteration** is one state
transition: a queen placed or a queen taken back. Counters: ``backtracks``
(queens taken back) and, for forward checking, ``wipeouts`` and ``pruned``
(values removed from domains).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nqueens_plugins.core.hookspecs import hookimpl
from nqueens_plugins.core.problem import Budget, Count, Outcome, Problem, Status, Trace
from nqueens_plugins.core.solver import Option, Solver

if TYPE_CHECKING:
    from nqueens_plugins.core.hookspecs import SolverRegister
    from nqueens_plugins.core.proof_log import ProofLog

CHECK_EVERY = 4096  # placements between budget polls in plain backtracking
CHECK_WORK = 1 << 16  # forward checking: elementary steps between polls (a placement costs O(n))


class OutOfTime(Exception):
    """Raised inside forward checking's value ordering when the budget runs out."""


@dataclass
class SearchResult:
    status: Status
    queens: list[int] | None = None
    solutions: int = 0
    moves: int = 0
    backtracks: int = 0
    counters: dict[str, int] = field(default_factory=dict)

    @property
    def iterations(self) -> int:
        return self.moves + self.backtracks


def initial_masks(problem: Problem) -> tuple[int, int, int]:
    """Row, diagonal (bit r + c) and anti-diagonal (bit r - c + n - 1) masks of the fixed queens."""
    n, rows, diagonals, anti = problem.n, 0, 0, 0
    for column, row in problem.fixed.items():
        rows |= 1 << row
        diagonals |= 1 << (row + column)
        anti |= 1 << (row - column + n - 1)
    return rows, diagonals, anti


def backtrack(problem: Problem, budget: Budget, first: bool) -> SearchResult:
    """Lowest-row-first depth-first search over the free columns, left to right.

    Blocked squares are left out of each column's rows from the start
    (``Problem.allowed_rows``), so they cost nothing per node.
    """
    n = problem.n
    proof = budget.proof if first else None  # a count claims nothing to refute
    if problem.contradiction() is not None:
        refute_root(proof)
        return SearchResult(Status.NO_SOLUTION)
    free = [c for c in range(n) if c not in problem.fixed]
    allowed = [problem.allowed_rows[c] for c in free]
    depth_count = len(free)
    rows, diagonals, anti = initial_masks(problem)
    queens = [problem.fixed.get(c, -1) for c in range(n)]
    if depth_count == 0:
        return SearchResult(Status.SOLVED, queens, solutions=1)
    shifts = [n - 1 - c for c in free]
    available = [0] * depth_count
    placed = [0] * depth_count
    available[0] = allowed[0] & ~(rows | (diagonals >> free[0]) | (anti >> shifts[0]))
    # certified: the negated literal of a queen at each depth and row (0 where blocked: never placed)
    negated = [[-proof.variable(c, r) for r in range(n)] for c in free] if proof is not None else []
    moves = backtracks = solutions = 0
    poll = CHECK_EVERY
    iteration_cap = sys.maxsize if budget.iterations is None else budget.iterations
    trace = budget.trace
    shown = 0  # traced: the depths whose queens the trace shows
    depth = 0
    last = depth_count - 1
    while depth >= 0:
        options = available[depth]
        if not options:
            depth -= 1
            if depth < 0:
                break
            if proof is not None:  # everything below the queen at depth failed
                proof.refute([negated[d][placed[d].bit_length() - 1] for d in range(depth + 1)])
            bit = placed[depth]
            rows ^= bit
            diagonals ^= bit << free[depth]
            anti ^= bit << shifts[depth]
            backtracks += 1
            continue
        bit = options & -options
        available[depth] = options ^ bit
        if trace is not None:  # the queens taken back since the last placement, then this one
            shown = report_placement(trace, free, shown, depth, bit)
        moves += 1
        poll -= 1
        if moves + backtracks >= iteration_cap or (not poll and budget.out_of_time()):
            return SearchResult(Status.TIMED_OUT, None, solutions, moves, backtracks)
        if not poll:
            poll = CHECK_EVERY
        if depth == last:
            solutions += 1
            if first:
                placed[depth] = bit
                for index, column in enumerate(free):
                    queens[column] = placed[index].bit_length() - 1
                return SearchResult(Status.SOLVED, queens, 1, moves, backtracks)
            backtracks += 1  # the last queen is taken back to look for the next solution (never traced: counting)
            continue
        placed[depth] = bit
        rows |= bit
        diagonals |= bit << free[depth]
        anti |= bit << shifts[depth]
        depth += 1
        available[depth] = allowed[depth] & ~(rows | (diagonals >> free[depth]) | (anti >> shifts[depth]))
    if trace is not None:
        report_placement(trace, free, shown, 0, 0)  # the tree is exhausted: every queen taken back
    if first:
        refute_root(proof)
    status = Status.SOLVED if solutions and not first else Status.NO_SOLUTION
    return SearchResult(status, None, solutions, moves, backtracks)


def refute_root(proof: ProofLog | None) -> None:
    """End a certified refutation: the empty clause (every row of the first column is refuted, or
    propagation of the fixed queens alone fails)."""
    if proof is not None:
        proof.add([])


def report_placement(trace: Trace, free: list[int], shown: int, depth: int, bit: int) -> int:
    """Tell the trace which queens were taken back (depths ``depth`` .. ``shown``-1, deepest first)
    and which was placed (``bit`` at ``depth``; none if 0). Done at placement time, so that the
    untraced search pays one test per placement and none per backtrack; the events come out in
    the same order as if each were reported when it happened."""
    for taken_back in range(shown - 1, depth - 1, -1):
        trace.remove(free[taken_back])
    if not bit:
        return depth
    trace.place(free[depth], bit.bit_length() - 1)
    return depth + 1


def attack_mask(n: int, row: int, distance: int) -> int:
    """The rows a queen in ``row`` attacks in a column ``distance`` columns away (distance != 0)."""
    mask = 1 << row
    if 0 <= row + distance < n:
        mask |= 1 << (row + distance)
    if 0 <= row - distance < n:
        mask |= 1 << (row - distance)
    return mask


@dataclass
class Frame:
    """One level of the search: the column filled here, its rows in order, where its pruning starts."""

    column: int
    values: list[int]
    trail_mark: int
    next_value: int = 0


class ForwardCheckingSearch:
    """Forward checking over bit-mask domains with an undo trail.

    One object per search, so the state the steps share (domains, trail,
    counters) lives in attributes rather than in closures.
    """

    def __init__(self, problem: Problem, budget: Budget, order: str, values: str) -> None:
        self.n = n = problem.n
        self.budget = budget
        self.order = order
        self.values = values
        fixed_rows, fixed_diagonals, fixed_anti = initial_masks(problem)
        self.domains = [0] * n
        self.unassigned: set[int] = set()
        for column in range(n):
            if column in problem.fixed:
                continue
            attacked = fixed_rows | (fixed_diagonals >> column) | (fixed_anti >> (n - 1 - column))
            self.domains[column] = problem.allowed_rows[column] & ~attacked
            self.unassigned.add(column)
        self.static_order = sorted(self.unassigned)
        self.fixed_count = len(problem.fixed)
        self.queens = [problem.fixed.get(c, -1) for c in range(n)]
        self.trail: list[tuple[int, int]] = []
        self.moves = self.backtracks = self.solutions = self.wipeouts = self.pruned = 0
        # Each placement costs O(n) (O(n^2) with LCV ordering): poll the clock by work done.
        self.poll_every = max(1, CHECK_WORK // (n * n if values == "lcv" else n))
        self.iteration_cap = sys.maxsize if budget.iterations is None else budget.iterations
        self.proof: ProofLog | None = None  # set by run() when a no-solution claim is to be certified
        self.decisions: list[int] = []  # certified: the negated literals of the queens on the path

    def result(self, status: Status, board: list[int] | None = None) -> SearchResult:
        counters = {"wipeouts": self.wipeouts, "pruned": self.pruned}
        return SearchResult(status, board, self.solutions, self.moves, self.backtracks, counters)

    def select(self) -> int:
        """The next column to fill: the leftmost empty one, or the one with fewest rows left (MRV)."""
        if self.order == "static":
            return self.static_order[self.n - self.fixed_count - len(self.unassigned)]
        domains = self.domains
        return min(self.unassigned, key=lambda c: (domains[c].bit_count(), c))

    def ordered_values(self, column: int) -> list[int]:
        domain = self.domains[column]
        rows = [r for r in range(self.n) if domain >> r & 1]
        if self.values == "lowest" or len(rows) < 2:
            return rows
        if self.values == "middle":
            n = self.n
            return sorted(rows, key=lambda r: (abs(2 * r - n + 1), r))
        scores = {}
        for index, row in enumerate(rows):
            if index % 64 == 0 and self.budget.out_of_time():
                raise OutOfTime
            scores[row] = self.eliminated(column, row)
        return sorted(rows, key=lambda r: (scores[r], r))

    def eliminated(self, column: int, row: int) -> int:
        """Values a queen at (column, row) would remove from the other empty columns."""
        n, domains = self.n, self.domains
        return sum((domains[other] & attack_mask(n, row, other - column)).bit_count() for other in self.unassigned)

    def prune(self, column: int, row: int) -> bool:
        """Remove what (column, row) attacks from the empty columns; False on a wipe-out."""
        n, domains, trail = self.n, self.domains, self.trail
        for other in self.unassigned:
            mask = attack_mask(n, row, other - column)
            domain = domains[other]
            if domain & mask:
                trail.append((other, domain))
                domain &= ~mask
                domains[other] = domain
                self.pruned += 1
                if not domain:
                    return False
        return True

    def undo(self, mark: int) -> None:
        trail, domains = self.trail, self.domains
        while len(trail) > mark:
            column, domain = trail.pop()
            domains[column] = domain

    def open_frame(self) -> Frame:
        column = self.select()
        self.unassigned.discard(column)
        return Frame(column, self.ordered_values(column), len(self.trail))

    def run(self, first: bool) -> SearchResult:
        if not self.unassigned:
            self.solutions = 1
            return self.result(Status.SOLVED, self.queens)
        self.proof = self.budget.proof if first else None  # a count claims nothing to refute
        if any(self.domains[c] == 0 for c in self.unassigned):
            refute_root(self.proof)  # the fixed queens alone wipe out a column
            return self.result(Status.NO_SOLUTION)
        try:
            return self.descend(first)
        except OutOfTime:
            return self.result(Status.TIMED_OUT)

    def descend(self, first: bool) -> SearchResult:
        queens, budget = self.queens, self.budget
        trace, proof, decisions = budget.trace, self.proof, self.decisions
        poll = self.poll_every
        stack = [self.open_frame()]
        while stack:
            frame = stack[-1]
            self.undo(frame.trail_mark)
            if frame.next_value == len(frame.values):
                stack.pop()
                self.unassigned.add(frame.column)
                queens[frame.column] = -1
                if trace is not None:
                    trace.remove(frame.column)
                if stack:
                    self.backtracks += 1  # the parent's queen is taken back
                if proof is not None:  # everything below the parent's queen failed (the root: all failed)
                    proof.refute(decisions)
                    if decisions:
                        decisions.pop()
                continue
            row = frame.values[frame.next_value]
            frame.next_value += 1
            queens[frame.column] = row
            if trace is not None:
                trace.place(frame.column, row)
            if proof is not None:
                decisions.append(-proof.variable(frame.column, row))
            self.moves += 1
            poll -= 1
            if self.moves + self.backtracks >= self.iteration_cap or (not poll and budget.out_of_time()):
                return self.result(Status.TIMED_OUT)
            if not poll:
                poll = self.poll_every
            if not self.prune(frame.column, row):
                self.wipeouts += 1
                self.backtracks += 1
                if proof is not None:  # the emptied column's at-least-one clause fails
                    proof.refute(decisions)
                    decisions.pop()
                continue
            if not self.unassigned:
                self.solutions += 1
                if first:
                    return self.result(Status.SOLVED, list(queens))
                self.backtracks += 1
                continue
            stack.append(self.open_frame())
        return self.result(Status.SOLVED if self.solutions and not first else Status.NO_SOLUTION)


def forward_check(problem: Problem, budget: Budget, first: bool, order: str, values: str) -> SearchResult:
    """Forward checking from ``problem``: the first solution, or (``first=False``) a count of all."""
    if problem.contradiction() is not None:
        refute_root(budget.proof if first else None)
        return SearchResult(Status.NO_SOLUTION)
    return ForwardCheckingSearch(problem, budget, order, values).run(first)


class CountingSolver(Solver):
    """A complete search that counts by running on past the first solution."""

    runs_on = "python"
    family = "search"
    complete = True
    supports_blocked = True
    traces = True
    certifies = True

    def search(self, problem: Problem, budget: Budget, options: Mapping[str, Any], first: bool) -> SearchResult:
        raise NotImplementedError

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        found = self.search(problem, budget, options, first=True)
        counters = {"backtracks": found.backtracks, **found.counters}
        return Outcome(found.status, found.queens, found.iterations, found.moves, counters)

    def count(self, problem: Problem, budget: Budget, options: Mapping[str, Any], unique: bool) -> Count:
        if unique:
            raise NotImplementedError(f"{self.name} counts all solutions, not classes under symmetry")
        found = self.search(problem, budget, options, first=False)
        status = Status.TIMED_OUT if found.status is Status.TIMED_OUT else Status.SOLVED
        counters = {"moves": found.moves, "backtracks": found.backtracks, **found.counters}
        return Count(status, found.solutions, False, found.iterations, counters)


class Backtracking(CountingSolver):
    name = "backtracking"
    summary = "Depth-first, column by column, lowest row first; takes queens back at dead ends."
    max_n = 100_000

    def search(self, problem: Problem, budget: Budget, options: Mapping[str, Any], first: bool) -> SearchResult:
        return backtrack(problem, budget, first)


class ForwardChecking(CountingSolver):
    name = "forward-checking"
    summary = "Backtracking that prunes the rows of empty columns and backs up on a wipe-out."
    max_n = 20_000
    options = (
        Option("order", str, "static", "which column next", choices=("static", "mrv")),
        Option("values", str, "lowest", "which row first", choices=("lowest", "middle", "lcv")),
    )

    def search(self, problem: Problem, budget: Budget, options: Mapping[str, Any], first: bool) -> SearchResult:
        return forward_check(problem, budget, first, options["order"], options["values"])


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(Backtracking())
    register(ForwardChecking())
