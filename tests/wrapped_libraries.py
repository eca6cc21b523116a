"""Plugins that behave like N-Queens libraries from the package index, wrapped by their users.

Each imitates one thing a real library did when it was wrapped as the author's
guide says (issue 24): solve only the 8x8 board, list every solution with no
time limit (and swallow every exception), print every solution it finds, and
answer by thread order. Registered by the tests through a fake distribution.
"""

from __future__ import annotations

import os
import sys

from nqueens_plugins import Count, Outcome, Solver, Status, hookimpl


def solutions(n: int) -> list[list[int]]:
    """Every solution of the plain n x n board, one at a time (iterative: no recursion limit)."""
    found: list[list[int]] = []
    rows: list[int] = []
    candidates = [0]
    while candidates:
        row = candidates[-1]
        if row == n:
            candidates.pop()
            if rows:
                rows.pop()
            if candidates:
                candidates[-1] += 1
            continue
        column = len(rows)
        if all(r != row and abs(r - row) != column - c for c, r in enumerate(rows)):
            rows.append(row)
            if len(rows) == n:
                found.append(list(rows))
                rows.pop()
                candidates[-1] += 1
            else:
                candidates.append(0)
        else:
            candidates[-1] += 1
    return found


def first_solution(n: int) -> list[int] | None:
    """The first solution in lexicographic order (backtracking)."""
    rows: list[int] = []
    row = 0
    while 0 <= len(rows) < n:
        while row < n and not all(r != row and abs(r - row) != len(rows) - c for c, r in enumerate(rows)):
            row += 1
        if row < n:
            rows.append(row)
            row = 0
        elif rows:
            row = rows.pop() + 1
        else:
            return None
    return rows


class EightOnly(Solver):
    """Like ``queens8``: the 92 solutions of the 8x8 board, and no other size."""

    name = "eight-only"
    summary = "Solves and counts the 8x8 board only, as an 8x8 library does."
    complete = True
    supports_fixed = False

    def precheck(self, n, options):  # type: ignore[no-untyped-def]
        return None if n == 8 else f"eight-only solves the 8x8 board only, not n = {n}"

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        return Outcome(Status.SOLVED, first_solution(8), 1, 8)

    def count(self, problem, budget, options, unique):  # type: ignore[no-untyped-def]
        return Count(Status.SOLVED, len(solutions(8)))


class Enumerator(Solver):
    """Like the enumerating libraries: lists every solution, has no time limit, and swallows every
    exception, returning what it had (``nqueens`` 1.0.4)."""

    name = "enumerator"
    summary = "Lists every solution with no time limit, then answers the first."
    complete = True
    can_count = False
    supports_fixed = False

    def enumerate(self, n: int) -> list[list[int]]:
        try:
            return solutions(n)
        except Exception:  # noqa: BLE001 - what the library does
            return []

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        boards = self.enumerate(problem.n)
        if boards:
            return Outcome(Status.SOLVED, boards[0], len(boards), problem.n)
        return Outcome(Status.NO_SOLUTION, None, 0, 0)


class InterruptedEnumerator(Enumerator):
    """The enumerator wrapped as the guide says: its call inside ``budget.interrupting()``."""

    name = "enumerator-interrupted"
    summary = "The enumerator, stopped at its budget by budget.interrupting()."

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        with budget.interrupting() as stop:
            boards = self.enumerate(problem.n)
        if stop.fired:
            return Outcome(Status.TIMED_OUT, None, 0, 0)
        if boards:
            return Outcome(Status.SOLVED, boards[0], len(boards), problem.n)
        return Outcome(Status.NO_SOLUTION, None, 0, 0)


class HostStoppedEnumerator(Enumerator):
    """The enumerator wrapped the other way the guide offers: it says it never stops itself."""

    name = "enumerator-host-stopped"
    summary = "The enumerator, declared stops_at_budget = False: the host stops it."
    stops_at_budget = False


class Floods(Solver):
    """Like a library that prints every solution it finds: a megabyte per call, on both streams."""

    name = "floods"
    summary = "Prints about a megabyte, then answers."
    supports_fixed = False
    max_n = 12

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        line = "solution: " + " ".join(map(str, range(40))) + "\n"
        for _ in range(2**20 // len(line)):
            sys.stdout.write(line)
        sys.stdout.flush()
        os.write(2, b"a C library's last words\n")
        board = first_solution(problem.n)
        return Outcome(Status.SOLVED, board, 1, problem.n) if board else Outcome(Status.GAVE_UP, None, 1, 0)


class ThreadOrder(Solver):
    """Like a library whose threads race: one answer in six is another board, whatever the seed."""

    name = "thread-order"
    summary = "Answers the first board, or its mirror once in six calls."
    supports_fixed = False
    max_n = 12
    calls = 0

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        type(self).calls += 1
        board = first_solution(problem.n)
        if board is None:
            return Outcome(Status.GAVE_UP, None, 1, 0)
        if type(self).calls % 6 == 0:
            board = [problem.n - 1 - row for row in board]
        return Outcome(Status.SOLVED, board, 1, problem.n)


@hookimpl
def nqueens_register_solvers(register):  # type: ignore[no-untyped-def]
    for solver in (EightOnly, Enumerator, InterruptedEnumerator, HostStoppedEnumerator, Floods, ThreadOrder):
        register(solver())
