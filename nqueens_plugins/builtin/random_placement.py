"""Built-in plugin, worker side: British Museum search, queens placed at random until the board is valid.

The seed notebook's baseline. Each attempt is a fresh random board (by default
one queen per column in a uniformly random row: n^n boards, 92 of the 16.8
million valid for n = 8; ``sampling=permutation`` draws one queen per row and
column: n! boards). Nothing is learnt from one attempt to the next, which is
the point: it shows how large the space is. It is incomplete and gives up
after ``max_attempts``; past n = 10 or so it almost never succeeds in time.

Counts: one **iteration** is one attempt (one random board). One **move** is
one queen placed, so each attempt adds the number of free queens.

Speed: attempts are drawn and checked in batches with numpy (rows and
diagonals of thousands of boards at once), the same method at array speed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from nqueens_plugins.builtin.engines.board import numpy_rng
from nqueens_plugins.core.hookspecs import hookimpl
from nqueens_plugins.core.problem import Budget, Outcome, Problem, Status
from nqueens_plugins.core.solver import Option, Solver

if TYPE_CHECKING:
    from nqueens_plugins.core.hookspecs import SolverRegister

BATCH_CELLS = 1 << 16  # queens drawn per batch


def valid_boards(boards: np.ndarray, blocked: np.ndarray | None = None) -> np.ndarray:
    """Which rows of ``boards`` (one board per row, queens[c] = r) have no attacking pair
    and, given ``blocked`` (an n x n [column, row] array), no queen on a blocked square."""
    n = boards.shape[1]
    columns = np.arange(n)
    ok = np.ones(len(boards), dtype=bool)
    if blocked is not None:
        ok &= ~blocked[columns, boards].any(axis=1)
    for lines in (boards, boards + columns, boards - columns):
        ordered = np.sort(lines, axis=1)
        ok &= ~np.any(ordered[:, 1:] == ordered[:, :-1], axis=1)
    return ok


class BritishMuseum(Solver):
    name = "british-museum"
    family = "random"
    runs_on = "python"
    summary = "Random boards until one is valid (the exhaustive-by-luck baseline)."
    supports_blocked = True
    traces = True
    max_n = 10_000
    options = (
        Option("sampling", str, "columns", "what a random board is", choices=("columns", "permutation")),
        Option("max_attempts", int, 1_000_000, "random boards before giving up", minimum=1),
    )

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        n = problem.n
        if problem.contradiction() is not None:
            return Outcome(Status.GAVE_UP, None, 0, 0)
        generator = numpy_rng(rng)
        # With blocked squares, sampling=columns draws each queen among its column's open
        # rows (open_table[i, k]: the k-th open row of free column i); a permutation may
        # land on a blocked square, and such a board is not valid.
        blocked = open_table = open_counts = None
        if problem.blocked:
            blocked = np.zeros((n, n), dtype=bool)
            squares = np.array(sorted(problem.blocked), dtype=np.int64)
            blocked[squares[:, 0], squares[:, 1]] = True
        free = np.array([c for c in range(n) if c not in problem.fixed], dtype=np.int64)
        fixed_columns = np.array(list(problem.fixed), dtype=np.int64)
        fixed_rows = np.array(list(problem.fixed.values()), dtype=np.int64)
        free_rows = np.array(sorted(set(range(n)) - set(problem.fixed.values())), dtype=np.int64)
        if blocked is not None:
            open_counts = (~blocked[free]).sum(axis=1)
            open_table = np.zeros((len(free), n), dtype=np.int64)
            for i, column in enumerate(free.tolist()):
                rows = np.flatnonzero(~blocked[column])
                open_table[i, : len(rows)] = rows
        cap = options["max_attempts"]
        if budget.iterations is not None:
            cap = min(cap, budget.iterations)
        attempts = 0
        while attempts < cap:
            if budget.out_of_time():
                return Outcome(Status.TIMED_OUT, None, attempts, attempts * len(free))
            batch = min(max(1, BATCH_CELLS // max(n, 1)), cap - attempts)
            boards = np.empty((batch, n), dtype=np.int64)
            boards[:, fixed_columns] = fixed_rows
            if options["sampling"] == "permutation":
                boards[:, free] = generator.permuted(np.broadcast_to(free_rows, (batch, len(free_rows))), axis=1)
            elif open_table is not None and open_counts is not None:
                picks = (generator.random((batch, len(free))) * open_counts).astype(np.int64)
                boards[:, free] = open_table[np.arange(len(free)), picks]
            else:
                boards[:, free] = generator.integers(0, n, size=(batch, len(free)))
            hits = np.flatnonzero(valid_boards(boards, blocked))
            if budget.trace is not None:  # every board drawn, up to the one that is valid
                budget.trace.boards(boards[: int(hits[0]) + 1 if len(hits) else batch].tolist())
            if len(hits):
                attempts += int(hits[0]) + 1
                return Outcome(Status.SOLVED, boards[hits[0]], attempts, attempts * len(free))
            attempts += batch
        status = Status.GAVE_UP if attempts >= options["max_attempts"] else Status.TIMED_OUT
        return Outcome(status, None, attempts, attempts * len(free))


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(BritishMuseum())
