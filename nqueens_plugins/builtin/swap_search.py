"""Built-in plugin, worker side: swap search, Sosič and Gu's fast local search for very large boards (QS4).

The queens are kept as a permutation, so no two ever share a row and only
diagonal collisions remain. The *initial search* places the queens column by
column, each on a random free row that no placed queen attacks (most queens
find one in a few draws), leaving the last ``tail`` queens on the rows left
over. The *final search* takes each attacked queen and swaps it with random
partners, keeping a swap only if it lowers the number of collisions, until no
queen is attacked. If ``attempts_per_queen`` x n swap attempts are not enough,
it restarts from a new initial search (up to ``max_restarts``).

``tail`` defaults to the paper's choice for the size of the board (a few
dozen queens); ``tries`` is the number of random draws a queen makes before
the greedy part ends.

Speed: the inner loops are in ``swap_kernel.py``, compiled by numba when it is
installed (``pip install 'nqueens-plugins[fast]'``) and run as plain Python
otherwise (``kernel=python`` forces that). Compiled, the board takes 12 bytes
a queen (int32 queens, one-byte diagonal counters: see ``swap_kernel``), and
the answer is handed over as it is, int32. On boards larger than the
processor's cache the initial search waits on memory, so it draws its random
numbers a few steps early and prefetches the squares they point to (the same
numbers in the same order: the same boards). Measured figures are in
``benchmarks/large_boards.py``.

Budget: the final search runs in slices of ``SLICE`` swap attempts with a clock
read between them; the initial search is one O(n) pass (about a second at
n = 10^7) and is not interrupted.

Counts: one **iteration** is one state transition: a swap kept, or an initial
search (a new board). A **move** is one queen placed or moved: n per initial
search, two per swap. Counters: ``restarts``, ``swaps``, ``swap_attempts``,
``greedy_placed`` (queens the last initial search placed conflict-free) and
``initial_collisions``.

It does not take fixed queens: swaps would move them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from nqueens_plugins.builtin.engines.kernels import engine_of, kernel_option, kernel_refusal, use_numba
from nqueens_plugins.core.hookspecs import hookimpl
from nqueens_plugins.core.problem import Budget, Outcome, Problem, Status
from nqueens_plugins.core.solver import Option, Solver, solve_a_small_board

if TYPE_CHECKING:
    from nqueens_plugins.core.hookspecs import SolverRegister

SLICE = 1 << 16  # swap attempts between budget checks
RESET_BLOCK = 1 << 22  # queens reset at a time on a restart (no temporary the size of the board)
MAX_N = 2**31 - 1  # rows must fit int32; the memory this machine has free is the real limit (precheck)


def paper_tail(n: int) -> int:
    """Queens left to the final search, after Sosič and Gu's table (grows slowly with n)."""
    if n <= 10:
        return min(n, 8)
    if n <= 100:
        return 30
    if n <= 1000:
        return 50
    if n <= 10_000:
        return 55
    if n <= 100_000:
        return 45
    return 40


class SwapSearch(Solver):
    name = "swap-search"
    family = "local search"
    summary = "Sosič-Gu swap search on a permutation with a conflict-free greedy start (millions of queens)."
    supports_fixed = False
    traces = True
    max_n = MAX_N
    # Peak resident bytes a queen (worker or parent, verification included), with headroom over
    # what benchmarks/large_boards.py measures (the README has the figure).
    bytes_per_queen = 16
    options = (
        kernel_option("inner loops"),
        Option("tail", int, None, "queens left to the final search; none means the paper's choice", minimum=0),
        Option("tries", int, 64, "random rows a queen tries in the initial search", minimum=1),
        Option("attempts_per_queen", int, 8, "swap attempts per restart, times n", minimum=1),
        Option("max_restarts", int, 50, "new initial searches before giving up", minimum=0),
    )

    def precheck(self, n: int, options: Mapping[str, Any]) -> str | None:
        return kernel_refusal(self.name, options) or super().precheck(n, options)

    def engine(self, options: Mapping[str, Any]) -> str:
        return engine_of(options)

    def warm_up(self, options: Mapping[str, Any], preparation: str = "") -> None:
        """A 4x4 solve of our own, not the default's guess: with numba it loads (or first compiles) the kernel,
        which takes seconds, past the short limit the host gives a guess (then a solver runs cold)."""
        solve_a_small_board(self, options)

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        from nqueens_plugins.builtin.engines import swap_kernel

        n = problem.n
        compiled = use_numba(options) and swap_kernel.COMPILED is not None
        kernels = swap_kernel.COMPILED if compiled else swap_kernel.PYTHON
        assert kernels is not None
        tail = min(n, paper_tail(n) if options["tail"] is None else options["tail"])
        attempts = options["attempts_per_queen"] * n
        restarts = swaps = made = placed = initial_collisions = 0
        iterations = moves = 0
        queens: Any = None

        def outcome(status: Status) -> Outcome:
            counters = {
                "restarts": restarts,
                "swaps": swaps,
                "swap_attempts": made,
                "greedy_placed": placed,
                "initial_collisions": initial_collisions,
            }
            board = queens if isinstance(queens, np.ndarray) else np.asarray(queens, dtype=np.int64)
            return Outcome(status, board, iterations, moves, counters)

        # The swap loops (compiled or not) do not report single swaps: a trace shows each new board and the board
        # after each slice of swaps, so a traced run is the same run as an untraced one.
        trace = budget.trace
        saved_state = None if compiled else np.random.get_state()  # the Python engine uses numpy's global generator
        kernels["seed_generator"](rng.randrange(2**32))
        diagonals: Any = None
        anti: Any = None
        taken: Any
        taken_anti: Any
        try:
            while True:
                words = swap_kernel.bit_words(n)
                if compiled:
                    if queens is None:
                        queens = np.arange(n, dtype=np.int32)
                    else:  # a restart reuses the board: never two in memory at once
                        diagonals = anti = None  # freed before the next board's bit sets are made
                        for start in range(0, n, RESET_BLOCK):
                            queens[start : start + RESET_BLOCK] = np.arange(
                                start, min(n, start + RESET_BLOCK), dtype=np.int32
                            )
                    taken, taken_anti = np.zeros(words, dtype=np.int64), np.zeros(words, dtype=np.int64)
                else:
                    queens, taken, taken_anti = list(range(n)), [0] * words, [0] * words
                ahead = np.zeros(swap_kernel.DRAWS_AHEAD) if compiled else [0.0] * swap_kernel.DRAWS_AHEAD
                placed = int(kernels["initial_search"](queens, taken, taken_anti, n, tail, options["tries"], ahead))
                del taken, taken_anti
                if compiled:
                    diagonals, anti = np.zeros(2 * n - 1, dtype=np.int8), np.zeros(2 * n - 1, dtype=np.int8)
                else:
                    diagonals, anti = [0] * (2 * n - 1), [0] * (2 * n - 1)
                collisions = initial_collisions = int(kernels["place_counters"](queens, diagonals, anti, n))
                iterations += 1
                moves += n
                if trace is not None:
                    trace.board(queens)
                if collisions >= swap_kernel.SAFE_COLLISIONS or collisions < 0:
                    collisions, spent = 1, attempts  # too many to count in one byte a diagonal: restart
                else:
                    spent = 0
                while collisions and spent < attempts:
                    if budget.exhausted(iterations):
                        return outcome(Status.TIMED_OUT)
                    step = min(SLICE, attempts - spent)
                    collisions, kept, tried = kernels["final_search"](queens, diagonals, anti, n, collisions, step)
                    collisions, kept, tried = int(collisions), int(kept), int(tried)
                    swaps += kept
                    made += tried
                    spent += tried
                    if trace is not None and kept:
                        trace.board(queens)
                    iterations += kept
                    moves += 2 * kept
                if collisions == 0:
                    return outcome(Status.SOLVED)
                if n < 4 or restarts >= options["max_restarts"]:
                    return outcome(Status.GAVE_UP)
                restarts += 1
        finally:
            if saved_state is not None:
                np.random.set_state(saved_state)


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(SwapSearch())
