"""Built-in plugin, worker side: exact counting with bit masks (the classic bitboard search), split in parts.

The board is filled column by column; three machine words say which rows are
taken and which rows the two diagonals through the next column attack, so the
free rows of a column are ``~(rows | diagonals | anti)`` and each step is a
handful of bit operations (Richards' formulation). Fixed queens and blocked
squares are one more mask per column (``Problem.allowed_rows``), and-ed in at
each node, so the same kernel counts completion and blocked instances at the
same speed per node.

Plain boards are counted once per class of the eight symmetries of the square,
which gives both the number of solutions (OEIS A000170) and of classes
(``--unique``, A002562) in one search, in one of two ways (``method``):

* ``constellations`` (``engines/constellations.py``): the queens of the border
  (first and last rows and columns) are placed first, one *start
  constellation* per class kept with its weight, and each one's completions
  counted apart (Preußer and Engelhardt's method, the Q27 project's). About
  twice as fast as ``takaken`` per core from n = 14 on; the constellations are
  the count's pieces.
* ``takaken`` (``engines/symmetry_count.py``): Takaken's method, the first
  queens' rows bounded so that each class is met once; fastest below n = 14.

A third way counts plain boards without searching them queen by queen:

* ``join`` (``engines/join_plan.py``): every partial placement of a quarter
  board is listed once, top and bottom quarters are joined into half boards per
  set of rows, and the left and right half boards whose diagonals do not clash
  are counted in bulk (bit-sliced groups of 512 or 1024, AND and popcount); the
  sets of rows are the count's pieces. Several times faster than
  ``constellations`` per core from n = 16, at the price of memory (about 0.2
  GiB at n = 18, 1.1 GiB at n = 20: ``join_plan.memory_bytes``, refused before
  any work past what ``--memory`` or the machine allows: ``count_precheck``).
  It counts solutions, not classes: ``--unique`` adds the solutions a half and
  a quarter turn leave unchanged (``engines/join_symmetric.py``, a search of a
  half or a quarter of the queens: milliseconds) and takes Burnside's average.

``auto`` (the default) takes ``join`` from n = ``JOIN_FROM`` to ``JOIN_UNTIL``
(with or without ``--unique``: the turns' solutions cost next to nothing, so
the faster method for the count is the faster for its classes),
``constellations`` from n = ``CONSTELLATIONS_FROM`` otherwise, whatever the
engine, so a count is split the same way in every run
(``benchmarks/counting.py`` measures the cut-overs). Other
boards use the mirror symmetry where they have it (first queens in the top half
of the first column, counted twice); the few plain boards below 6 have their
classes counted by canonical forms.

The pieces (constellations, or subtrees below the first queens) are counted by
``workers`` processes (both cores of a 2-core machine by default); on a Dask
cluster, or with ``--progress``, they are dealt into pieces that workers count
apart (``count_parts``). Each is counted by a compiled kernel when numba is
installed (``pip install 'nqueens-plugins[fast]'``) and by a pure-Python
search otherwise; ``kernel=python|numba`` forces one. The budget is polled
between pieces.

``solve`` (one solution) runs the same bit-mask search as ``backtracking``.

Counts: one **iteration** of a count is one piece counted (a constellation or a
subtree); a plain count also reports ``classes_2``, ``classes_4``,
``classes_8``: the classes whose solutions have 2, 4 or 8 distinct images. For
``solve``, as for backtracking: a **move** is a queen placed and an
**iteration** a queen placed or taken back.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import TYPE_CHECKING, Any

from nqueens_plugins.builtin.backtracking import backtrack
from nqueens_plugins.builtin.engines import constellations, join_plan, join_symmetric, symmetry_count
from nqueens_plugins.builtin.engines.kernels import engine_of, kernel_option, kernel_refusal, use_numba
from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.hookspecs import hookimpl
from nqueens_plugins.core.problem import Budget, Count, Outcome, Problem, Status
from nqueens_plugins.core.solver import Option, Solver, solve_a_small_board

if TYPE_CHECKING:
    from nqueens_plugins.core.hookspecs import SolverRegister

CHUNKS_PER_WORKER = 16
PARTS = 64  # pieces of a count on a cluster (count_parts): enough to keep many workers busy to the end
LONG_COUNT_PARTS = 256  # from n = 18 (minutes and more): pieces of seconds, for large clusters and resuming
MAX_N = 62  # rows must fit a 64-bit word in the compiled kernel
SPLIT_DEPTH = 3  # columns placed before subtrees are handed out (fewer for small n; one more by symmetry)
BATCH = 64  # pieces counted between two polls of the budget in one process (fewer for large constellations)
CONSTELLATIONS_FROM = 14  # method=auto counts plain boards by constellations from here (benchmarks/counting.py)
JOIN_FROM = 16  # method=auto counts plain boards by joining half boards from here (benchmarks/counting.py) ...
JOIN_UNTIL = 21  # ... to here: past it the quarters take several GiB (join_plan.memory_bytes)
JOIN_BATCH = 2048  # rows sets counted between two polls of the budget at n = 14 (halved per step of n)
METHODS = ("auto", "constellations", "takaken", "join")

Task = tuple[int, int, int, int, int, tuple[int, ...]]  # rows, diagonals, anti, next column, weight, rows so far


# Solutions the compiled Takaken kernel counts per second on 2 cores, roughly, for ``count_seconds``
# (benchmarks/counting.py measures the real figures); its work grows with the number of solutions.
TAKAKEN_SOLUTIONS_PER_SECOND = 1.05e7
CALIBRATION_N = {"numba": 15, "python": 12}  # counted in about 0.15 s to time the counter here


def estimate_count_seconds(n: int, workers: int, kernel: str) -> float:
    """How long counting n by constellations would take here: the search's size by sampling
    (``constellations.sample_nodes``), times this machine's seconds per node with ``kernel``
    ("numba" or "python"), shared by ``workers`` processes.

    The estimate tracks the machine and its load, and needs no count of n
    (n = 40 included); measured against real one-core counts at n = 16 and 17, within 10 %.
    """
    return constellations.sample_nodes(n) * seconds_per_node(kernel) / max(1, workers)


def seconds_per_node(kernel: str) -> float:
    """The counter's seconds per queen placed, measured now by counting a small board (about 0.15 s)."""
    calibration = CALIBRATION_N[kernel]
    small = Problem(calibration)
    chosen = plan(small, "constellations")
    count_pieces(small, "constellations", chosen[:1], kernel)  # loads the compiled counter
    start = time.perf_counter()
    count_pieces(small, "constellations", chosen, kernel)
    return (time.perf_counter() - start) / constellations.sample_nodes(calibration)


# One core's seconds for a count by joining at n, relative to n = 14's (measured here: the kernel loaded, the
# quarters built inside the time; n = 20 took 239 CPU s on two workers, 40x n = 18, since its sets of rows
# are bucketed: benchmarks/counting.py). Past n = 18 otherwise, about 9x per step.
JOIN_RELATIVE = {14: 1.0, 15: 7.2, 16: 9.5, 17: 80.0, 18: 265.0, 20: 11000.0}
JOIN_CALIBRATION_N = {"numba": 14, "python": 9}


def join_relative(n: int) -> float:
    """A count by joining at n against one at n = 14, in time (``JOIN_RELATIVE``, extended both ways)."""
    if n in JOIN_RELATIVE:
        return JOIN_RELATIVE[n]
    if n < 14:
        return 6.0 ** (n - 14)
    return JOIN_RELATIVE[18] * 9.0 ** (n - 18)


def estimate_join_seconds(n: int, workers: int, kernel: str) -> float:
    """How long counting n by joining would take here: a small count timed now (a few hundredths of a
    second), scaled by the measured growth (``join_relative``), shared by ``workers`` processes."""
    calibration = JOIN_CALIBRATION_N[kernel]
    small = Problem(calibration)
    count_pieces(small, "join", plan(small, "join")[:1], kernel)  # loads the kernel, builds the quarters
    start = time.perf_counter()
    count_pieces(small, "join", plan(small, "join"), kernel)
    seconds = time.perf_counter() - start
    if kernel == "python":  # the pure-Python engine grows about 6x per step of n
        return seconds * 6.0 ** (n - calibration) / max(1, workers)
    return seconds * join_relative(n) / max(1, workers)


def estimate_takaken_seconds(n: int) -> float:
    """A rough time for Takaken's method on this kind of machine, from the number of solutions."""
    from nqueens_plugins.core.verify import A000170

    if n < len(A000170):
        solutions = float(A000170[n])
    else:  # beyond OEIS: the count grows about 10.5x per step of n around n = 27
        solutions = A000170[-1] * 10.5 ** (n - len(A000170) + 1)
    return solutions / TAKAKEN_SOLUTIONS_PER_SECOND


def split(problem: Problem, depth: int) -> list[Task]:
    """Subtrees after the first ``depth`` columns, with their weights under the mirror."""
    n = problem.n
    full = (1 << n) - 1
    allowed = list(problem.allowed_rows)
    tasks: list[Task] = []

    def extend(rows: int, diagonals: int, anti: int, column: int, weight: int, prefix: tuple[int, ...]) -> None:
        if column >= min(depth, n):
            tasks.append((rows, diagonals, anti, column, weight, prefix))
            return
        for bit in iterate_bits(allowed[column] & ~(rows | diagonals | anti)):
            place(rows, diagonals, anti, column, weight, prefix, bit)

    def place(
        rows: int, diagonals: int, anti: int, column: int, weight: int, prefix: tuple[int, ...], bit: int
    ) -> None:
        row = bit.bit_length() - 1
        extend(rows | bit, ((diagonals | bit) << 1) & full, (anti | bit) >> 1, column + 1, weight, prefix + (row,))

    if not problem.is_plain or n < 2:
        extend(0, 0, 0, 0, 1, ())
        return tasks
    # Mirror symmetry: rows r and n-1-r are interchangeable on a plain board, so
    # first queens in the top half stand for themselves and their mirror images.
    half = (1 << (n // 2)) - 1
    for bit in iterate_bits(half):
        place(0, 0, 0, 0, 2, (), bit)
    if n % 2:
        # A first queen on the middle row is its own mirror: halve on the second queen.
        middle = 1 << (n // 2)
        rows, diagonals, anti = middle, (middle << 1) & full, middle >> 1
        for bit in iterate_bits(~(rows | diagonals | anti) & half):
            place(rows, diagonals, anti, 1, 2, (n // 2,), bit)
    return tasks


def iterate_bits(mask: int) -> Iterator[int]:
    while mask:
        bit = mask & -mask
        mask ^= bit
        yield bit


def count_python(n: int, allowed: list[int], rows: int, diagonals: int, anti: int, column: int) -> int:
    """Solutions completing a partial board, by plain recursion (CPython's fastest form)."""
    full = (1 << n) - 1
    last = n - 1

    def count(rows: int, diagonals: int, anti: int, column: int) -> int:
        free = allowed[column] & ~(rows | diagonals | anti)
        if column == last:
            return 1 if free else 0
        total = 0
        next_column = column + 1
        while free:
            bit = free & -free
            free ^= bit
            total += count(rows | bit, ((diagonals | bit) << 1) & full, (anti | bit) >> 1, next_column)
        return total

    if column >= n:
        return 1
    return count(rows, diagonals, anti, column)


# --- unique counting (A002562) -------------------------------------------------


def solutions(problem: Problem, tasks: list[Task]) -> Iterator[tuple[int, ...]]:
    """Each solution below the given tasks once (mirror images are not produced)."""
    n = problem.n
    full = (1 << n) - 1
    allowed = list(problem.allowed_rows)

    def walk(board: list[int], rows: int, diagonals: int, anti: int, column: int) -> Iterator[tuple[int, ...]]:
        if column == n:
            yield tuple(board)
            return
        free = allowed[column] & ~(rows | diagonals | anti)
        while free:
            bit = free & -free
            free ^= bit
            board[column] = bit.bit_length() - 1
            yield from walk(board, rows | bit, ((diagonals | bit) << 1) & full, (anti | bit) >> 1, column + 1)

    for rows0, diagonals0, anti0, column0, _, prefix in tasks:
        yield from walk(list(prefix) + [0] * (n - column0), rows0, diagonals0, anti0, column0)


def symmetries(board: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """The 8 images of ``board`` (queens[c] = r) under the symmetries of the square."""
    n = len(board)
    inverse = [0] * n
    for column, row in enumerate(board):
        inverse[row] = column
    for base in (board, tuple(inverse)):  # identity and transpose
        yield base
        yield tuple(n - 1 - r for r in base)  # reflect rows
        yield base[::-1]  # reflect columns
        yield tuple(n - 1 - r for r in base[::-1])  # rotate 180


def count_unique(problem: Problem, tasks: list[Task], budget: Budget) -> tuple[int, bool]:
    """Classes under symmetry, by canonical form; (count, finished)."""
    canonical = 0
    for index, board in enumerate(solutions(problem, tasks)):
        if index % 1024 == 0 and budget.out_of_time():
            return canonical, False
        if board == min(symmetries(board)):
            canonical += 1
    return canonical, True


def split_depth(n: int) -> int:
    """Rows placed before the subtrees are handed out: enough pieces to keep every core busy to the end."""
    return min(SPLIT_DEPTH, max(n - 8, 1))


def symmetric_split(problem: Problem) -> bool:
    """Whether the count runs once per class of the eight symmetries (constellations or Takaken's)."""
    return problem.is_plain and problem.n >= symmetry_count.MIN_N


def way_of(problem: Problem, options: Mapping[str, Any], unique: bool = False) -> str:
    """How this count is split: "join" (half boards), "constellations", "takaken" (both once per class)
    or "mirror".

    ``method=auto`` depends on n alone, never on the engine, so that a count is
    split the same way in every run (``count --resume`` relies on it). Joining
    gives ``--unique`` by Burnside's lemma (``join_symmetric``), as fast as the count.
    """
    method = options.get("method", "auto")
    n = problem.n
    if problem.is_plain and (method == "join" or method == "auto" and JOIN_FROM <= n <= JOIN_UNTIL):
        return "join"
    if not symmetric_split(problem):
        return "mirror"
    if method in ("auto", "join"):
        return "constellations" if n >= CONSTELLATIONS_FROM else "takaken"
    return str(method)


def plan(problem: Problem, way: str) -> list[Any]:
    """The independent pieces of a count: constellations, ``symmetry_count.Subtree`` or mirror ``Task`` tuples."""
    if way == "constellations":
        return list(constellations.generate(problem.n))
    if way == "join":
        return list(join_plan.tasks(problem.n))
    if way == "takaken":
        return list(symmetry_count.subtrees(problem.n, split_depth(problem.n) + 1))
    return split(problem, split_depth(problem.n))


def batch_size(problem: Problem, way: str) -> int:
    """Pieces counted between two polls of the budget: constellations grow about 7x per step of n, so
    fewer of them at a time as n grows (a poll every few tenths of a second at most)."""
    if way == "constellations":
        return max(1, BATCH >> max(0, problem.n - 14))
    if way == "join":  # a rows set costs about 5x more per step of n
        return max(1, JOIN_BATCH >> max(0, 2 * (problem.n - 14)))
    return BATCH


def count_pieces(problem: Problem, way: str, pieces: list[Any], kernel: str) -> tuple[int, int, int, int]:
    """(weighted solutions, classes of 2, of 4, of 8) below ``pieces``; classes are 0 for mirror tasks."""
    n = problem.n
    if way == "join":
        if kernel == "numba":
            from nqueens_plugins.builtin.engines import join_kernel

            return join_kernel.count(n, pieces), 0, 0, 0
        from nqueens_plugins.builtin.engines import join_python

        return join_python.count(n, pieces), 0, 0, 0
    if way in ("constellations", "takaken"):
        if way == "constellations" and kernel == "numba":
            from nqueens_plugins.builtin.engines import constellation_kernel

            c2, c4, c8 = constellation_kernel.count(n, pieces)
        elif way == "constellations":
            c2, c4, c8 = constellations.count_python(n, pieces)
        elif kernel == "numba":
            from nqueens_plugins.builtin.engines import bitboard_kernel

            c2, c4, c8 = bitboard_kernel.count_classes(n, pieces)
        else:
            c2, c4, c8 = symmetry_count.count_python(n, pieces)
        return 2 * c2 + 4 * c4 + 8 * c8, c2, c4, c8
    if kernel == "numba":
        from nqueens_plugins.builtin.engines import bitboard_kernel

        return bitboard_kernel.count_tasks(n, problem.allowed_rows, pieces), 0, 0, 0
    allowed = list(problem.allowed_rows)
    return sum(task[4] * count_python(n, allowed, *task[:4]) for task in pieces), 0, 0, 0


def piece_counters(way: str, counted: int, sums: list[int]) -> dict[str, int]:
    """The counters of a count or of one of its pieces: what was counted, and the classes by size."""
    if way == "join":
        return {"row_sets": counted}
    counters = {"constellations" if way == "constellations" else "subtrees": counted}
    if way != "mirror":
        counters |= {"classes_2": sums[1], "classes_4": sums[2], "classes_8": sums[3]}
    return counters


class Bitboard(Solver):
    name = "bitboard"
    family = "search"
    summary = "Exact counting with bit masks, once per class of the board's symmetries, split across processes."
    complete = True
    supports_blocked = True
    counts_unique = True
    traces = True  # solve is backtrack(), which traces
    max_n = MAX_N
    options = (
        kernel_option("piece counter"),
        Option("workers", int, 0, "processes for counting; 0 means one per core", minimum=0),
        Option(
            "method",
            str,
            "auto",
            "plain boards: start constellations (the border first), Takaken's, or joining half boards; "
            f"auto: join for n = {JOIN_FROM}..{JOIN_UNTIL}, else constellations from "
            f"n = {CONSTELLATIONS_FROM}",
            choices=METHODS,
        ),
    )

    def precheck(self, n: int, options: Mapping[str, Any]) -> str | None:
        return kernel_refusal(self.name, options) or super().precheck(n, options)

    def engine(self, options: Mapping[str, Any]) -> str:
        return engine_of(options)

    def count_precheck(
        self, problem: Problem, options: Mapping[str, Any], unique: bool, memory: int | None = None
    ) -> str | None:
        """Why this count is refused before any work (``tasks.check_countable`` asks), or None: a count by
        joining that needs more than ``memory`` bytes (a run's ``--memory``; None: what the machine has)."""
        if way_of(problem, options, unique) != "join":
            return None
        return join_plan.memory_refusal(problem.n, chunk_kernel(problem.n, options), memory)

    def count_seconds(self, problem: Problem, options: Mapping[str, Any]) -> float | None:
        """About how long a plain board would take (``estimate_count_seconds``; a rough model for
        Takaken's method); None for other instances, whose time depends on the instance."""
        if not problem.is_plain:
            return None
        way = way_of(problem, options)
        if way == "join":
            refuse_join(problem.n, chunk_kernel(problem.n, options))
            return estimate_join_seconds(problem.n, workers_of(options), chunk_kernel(problem.n, options))
        if way == "constellations":
            return estimate_count_seconds(problem.n, workers_of(options), chunk_kernel(problem.n, options))
        return estimate_takaken_seconds(problem.n) if use_numba(options) else None

    def preparation(self, problem: Problem, options: Mapping[str, Any]) -> str:
        """What a first count in a fresh worker needs loaded: "python" (nothing: a small count never waits
        for numba, 0.7 s to import here), or the compiled counter of its way ("join", "constellations",
        "takaken" or "mirror"), that one only: on a new machine each is compiled the first time it is met."""
        kernel = chunk_kernel(problem.n, options)
        return way_of(problem, options) if kernel == "numba" else kernel

    def warm_up(self, options: Mapping[str, Any], preparation: str = "") -> None:
        """A small solve, then the compiled counters ``preparation`` names (loaded from numba's cache; every
        counter for a preparation not named, "")."""
        solve_a_small_board(self, options)
        preparation = preparation or "numba"
        if not use_numba(options) or preparation == "python":
            return
        small = Problem(8)
        if preparation in ("constellations", "join"):
            count_pieces(small, preparation, plan(small, preparation), "numba")
            if preparation == "join":  # and the turns' search, for --unique
                join_symmetric.burnside_fixed(small.n, "numba")
        if preparation in ("takaken", "numba"):  # "numba" (a warm-up not named): every counter
            count_pieces(small, "takaken", plan(small, "takaken"), "numba")
        if preparation in ("mirror", "numba"):
            count_pieces(small, "mirror", split(small, 1), "numba")

    def solve(self, problem: Problem, rng: random.Random, budget: Budget, options: Mapping[str, Any]) -> Outcome:
        found = backtrack(problem, budget, first=True)
        return Outcome(found.status, found.queens, found.iterations, found.moves, {"backtracks": found.backtracks})

    def count(self, problem: Problem, budget: Budget, options: Mapping[str, Any], unique: bool) -> Count:
        if unique and not problem.is_plain:
            raise ValueError("unique counts are defined for plain boards only")
        if problem.contradiction() is not None:
            return Count(Status.SOLVED, 0, False, 0, {"subtrees": 0, "workers": 1})
        n = problem.n
        way = way_of(problem, options, unique)
        if way == "join":
            refuse_join(n, chunk_kernel(n, options))
        if unique and not symmetric_split(problem):  # n < 6: a handful of solutions
            tasks = split(problem, 0 if n < 2 else (1 if n % 2 == 0 else 2))
            total, finished = count_unique(problem, tasks, budget)
            status = Status.SOLVED if finished else Status.TIMED_OUT
            return Count(status, total, True, len(tasks), {"subtrees": len(tasks)})
        kernel = chunk_kernel(n, options)
        pieces = plan(problem, way)
        workers = workers_of(options)
        if len(pieces) < 2 or n < 12:
            workers = 1  # starting processes costs more than these small counts
        if workers == 1:
            sums, done = count_in_batches(problem, way, pieces, kernel, budget)
        else:
            sums, done = count_in_processes(problem, way, pieces, kernel, workers, budget)
        status = Status.SOLVED if done == len(pieces) else Status.TIMED_OUT
        counters = piece_counters(way, len(pieces), sums) | {"workers": workers, "kernel_numba": int(kernel == "numba")}
        solutions = sum(sums[1:]) if unique else sums[0]
        if unique and way == "join":  # Burnside's lemma: the turns' fixed solutions, then the average
            half_turn, quarter_turn = join_symmetric.burnside_fixed(n, kernel)
            solutions = join_symmetric.classes(n, sums[0], half_turn, quarter_turn)
            counters |= {"fixed_half_turn": half_turn, "fixed_quarter_turn": quarter_turn}
        return Count(status, solutions, unique, done, counters)

    def count_parts(self, problem: Problem, options: Mapping[str, Any], unique: bool) -> list[Any] | None:
        """The same pieces as a local count, dealt into ``PARTS`` interleaved parts (large and small
        pieces mixed, so the parts take about as long). The same list in the same order in every run
        for the same n and options; a constellations part carries its index in the list."""
        if problem.n < 12 or problem.contradiction() is not None or (unique and not symmetric_split(problem)):
            return None
        way = way_of(problem, options, unique)
        parts = LONG_COUNT_PARTS if problem.n >= 18 else PARTS
        if way == "constellations":
            return list(constellations.pieces(problem.n, parts))
        if way == "join":
            refuse_join(problem.n, chunk_kernel(problem.n, options))
            turns: list[Any] = [join_plan.Turns()] if unique else []  # the fixed solutions Burnside adds
            return list(join_plan.pieces(problem.n, parts)) + turns
        pieces = plan(problem, way)
        parts = min(len(pieces), parts)
        return [pieces[i::parts] for i in range(parts)]

    def count_part(
        self, problem: Problem, budget: Budget, options: Mapping[str, Any], unique: bool, part: Any
    ) -> Count:
        pieces: list[Any]
        if isinstance(part, join_plan.Turns):
            return turns_part(problem.n, chunk_kernel(problem.n, options))
        if isinstance(part, constellations.Piece):
            way, pieces = "constellations", list(part.constellations)
        elif isinstance(part, join_plan.Piece):
            refuse_join(problem.n, chunk_kernel(problem.n, options))
            way, pieces = "join", list(part.tasks)
        else:
            way, pieces = way_of(problem, options, unique), part
        sums, done = count_in_batches(problem, way, pieces, chunk_kernel(problem.n, options), budget)
        status = Status.SOLVED if done == len(pieces) else Status.TIMED_OUT
        if unique and way == "join":  # its share of Burnside's sum: the solutions, which the identity fixes
            counters = piece_counters(way, done, sums) | {BURNSIDE_GROUP_ORDER: 8}
            return Count(status, sums[0], unique, done, counters)
        return Count(status, sum(sums[1:]) if unique else sums[0], unique, done, piece_counters(way, done, sums))


# The counter by which a piece of a split count says its solutions are its share of Burnside's sum (the
# solutions each symmetry fixes, over the group): the count's classes are the pieces' sum over this
# order. ``workflows/counting.py`` reads it under the same name (a built-in imports only the core).
BURNSIDE_GROUP_ORDER = "burnside_group_order"


def turns_part(n: int, kernel: str) -> Count:
    """The piece of a split ``--unique`` count by joining that counts the solutions the turns fix: its
    share of Burnside's sum is those of the half turn and twice those of a quarter turn (there are two)."""
    half_turn, quarter_turn = join_symmetric.burnside_fixed(n, kernel)
    counters = {"fixed_half_turn": half_turn, "fixed_quarter_turn": quarter_turn, BURNSIDE_GROUP_ORDER: 8}
    return Count(Status.SOLVED, half_turn + 2 * quarter_turn, True, 1, counters)


def count_in_batches(
    problem: Problem, way: str, pieces: list[Any], kernel: str, budget: Budget
) -> tuple[list[int], int]:
    """``count_pieces`` in this process, polling the budget between batches; (sums, pieces done)."""
    sums, done = [0, 0, 0, 0], 0
    size = batch_size(problem, way)
    for index in range(0, len(pieces), size):
        if budget.out_of_time():
            break
        batch = pieces[index : index + size]
        sums = [a + b for a, b in zip(sums, count_pieces(problem, way, batch, kernel))]
        done += len(batch)
    return sums, done


def refuse_join(n: int, kernel: str) -> None:
    """Refuse, before any work, a count by joining that needs more memory than this process may take."""
    refusal = join_plan.memory_refusal(n, kernel)
    if refusal is not None:
        raise BadInput(refusal)


def workers_of(options: Mapping[str, Any]) -> int:
    """The processes a local count uses: the ``workers`` option, or one per core."""
    return int(options["workers"]) or os.cpu_count() or 1


def chunk_kernel(n: int, options: Mapping[str, Any]) -> str:
    return "numba" if use_numba(options) and (n >= 10 or options["kernel"] == "numba") else "python"


def count_in_processes(
    problem: Problem, way: str, pieces: list[Any], kernel: str, workers: int, budget: Budget
) -> tuple[list[int], int]:
    """Count the pieces in a process pool; (sums as ``count_pieces``, pieces done). Stops when the budget runs out."""
    sums = [0, 0, 0, 0]
    done = 0
    chunk_count = min(len(pieces), workers * CHUNKS_PER_WORKER)
    # Interleaved chunks mix large and small pieces, so the cores finish together.
    chunks = [pieces[i::chunk_count] for i in range(chunk_count)]
    if kernel == "numba":  # load the compiled kernel here (if warm_up did not): forked processes then start with it
        if way == "join":  # and the quarters of this n, which the forked processes share
            count_pieces(problem, way, [], kernel)
        elif way == "constellations":  # a small board's: the first of this one may take a while
            count_pieces(Problem(8), way, list(constellations.generate(8)[:1]), kernel)
        else:
            count_pieces(problem, way, pieces[:1], kernel)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"))
    try:
        pending: dict[Future[tuple[int, int, int, int]], int] = {
            pool.submit(count_pieces, problem, way, chunk, kernel): len(chunk) for chunk in chunks
        }
        waiting = set(pending)
        while waiting:
            finished, waiting = wait(waiting, timeout=budget.remaining(), return_when=FIRST_COMPLETED)
            for future in finished:
                sums = [a + b for a, b in zip(sums, future.result())]
                done += pending[future]
            if budget.out_of_time():
                break
    finally:
        # Stop at once: chunks still counting would otherwise run on (and keep this process alive).
        # ProcessPoolExecutor has no public way to end running work before Python 3.14.
        running = list(getattr(pool, "_processes", {}).values()) if done < len(pieces) else []
        pool.shutdown(wait=False, cancel_futures=True)
        for process in running:
            process.terminate()
    return sums, done


@hookimpl
def nqueens_register_solvers(register: SolverRegister) -> None:
    register(Bitboard())
