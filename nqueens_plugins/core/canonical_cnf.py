"""Core layer, any process: the canonical CNF of an instance, the formula every certificate refers to.

A no-solution claim is checked as a refutation of this formula, so it is built
here from the ``Problem`` alone, by the host, and never taken from a plugin's
own encoding. It is the plain encoding, the one whose unit propagation is the
inference our complete searches make (a line with one open square is forced, a
line with none is a dead end, a queen rules out what it attacks):

* one variable per **open** square (not blocked), numbered 1, 2, ... in order of
  (column, row): column 0's open rows first, top to bottom, then column 1's.
  Blocked squares (an excluded diagonal is all of its squares blocked) have no
  variable at all;
* at least one queen in every row and every column (one clause each, over the
  line's open squares: a line with none is the empty clause);
* at most one queen in every row, column and diagonal, as binary clauses
  ``-a -b`` over each pair of open squares on the line (pairs in order of
  square, the lower-numbered variable first);
* a fixed queen as the unit clause of its square (the empty clause when the
  square is blocked).

Clause order: fixed-queen units, then per column its at-least-one and its
pairs, per row the same, then the diagonals (``column - row`` ascending, then
``column + row`` ascending) with their pairs. The order is fixed so that two
exports of one instance are the same file; a checker must not depend on it.

Its size (``formula_size``: variables, clauses, literals) is counted from the
blocked squares and fixed queens alone, never from the n^2 squares, so whether a
formula is small enough to build (``fits``, ``canonical_cnf``'s refusal) is
decided at no cost whatever n is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

from nqueens_plugins.core.problem import Problem

__all__ = ["CanonicalCnf", "FormulaSize", "canonical_cnf", "clause_count", "fits", "formula_size"]

MAX_CLAUSES = 20_000_000  # ~a few hundred MB as Python lists: the largest formula the host builds


@dataclass(frozen=True, eq=False)
class CanonicalCnf:
    """The canonical formula of one problem; clauses are produced on demand (``clauses()``).

    ``variable(column, row)`` is the square's variable, 0 for a blocked square;
    ``square(variable)`` the way back.
    """

    problem: Problem

    @cached_property
    def numbering(self) -> tuple[int, ...]:
        """Variable of square (column, row) at index ``column * n + row``; 0 where the square is blocked."""
        n, blocked = self.problem.n, self.problem.blocked
        numbers: list[int] = []
        next_variable = 1
        for column in range(n):
            for row in range(n):
                if (column, row) in blocked:
                    numbers.append(0)
                else:
                    numbers.append(next_variable)
                    next_variable += 1
        return tuple(numbers)

    @cached_property
    def size(self) -> FormulaSize:
        """Its variables, clauses and literals, counted without building it (``formula_size``)."""
        return formula_size(self.problem)

    @property
    def variables(self) -> int:
        """How many variables the formula has (the open squares)."""
        return self.size.variables

    def variable(self, column: int, row: int) -> int:
        return self.numbering[column * self.problem.n + row]

    def square(self, variable: int) -> tuple[int, int]:
        """The (column, row) of a variable (1-based, as in DIMACS)."""
        index = self.numbering.index(variable)  # rare (printing a failed lemma): a scan is fine
        return divmod(index, self.problem.n)

    def lines(self) -> Iterator[tuple[bool, list[int]]]:
        """Every line's open squares as variables, with whether a queen must stand on it (rows, columns)."""
        n = self.problem.n
        for column in range(n):
            yield True, [v for row in range(n) if (v := self.variable(column, row))]
        for row in range(n):
            yield True, [v for column in range(n) if (v := self.variable(column, row))]
        for difference in range(-(n - 1), n):
            yield (
                False,
                [
                    v
                    for column in range(n)
                    if 0 <= column - difference < n and (v := self.variable(column, column - difference))
                ],
            )
        for total in range(2 * n - 1):
            yield (
                False,
                [v for column in range(n) if 0 <= total - column < n and (v := self.variable(column, total - column))],
            )

    def clauses(self) -> Iterator[list[int]]:
        """Every clause, in the documented order."""
        for column, row in self.problem.fixed.items():
            variable = self.variable(column, row) if 0 <= column < self.problem.n and 0 <= row < self.problem.n else 0
            yield [variable] if variable else []
        for needs_one, line in self.lines():
            if needs_one:
                yield list(line)
            for i, first in enumerate(line):
                for second in line[i + 1 :]:
                    yield [-first, -second]

    def dimacs_lines(self) -> Iterator[str]:
        """The formula as DIMACS text, line by line: a comment naming the instance and the numbering, the header, the clauses."""
        yield f"c canonical CNF of nqueens instance {self.problem.id} (n = {self.problem.n})"
        yield "c variable k is the k-th open square in order of (column, row), 0-based; blocked squares have none"
        yield f"p cnf {self.variables} {self.size.clauses}"
        for clause in self.clauses():
            yield " ".join(map(str, clause)) + (" 0" if clause else "0")


class FormulaSize(NamedTuple):
    """How large an instance's canonical CNF is, counted without building it (``formula_size``)."""

    variables: int  # open squares
    clauses: int
    literals: int  # over all clauses: what a checker or a solver stores


def _pairs_of(length: int) -> int:
    return length * (length - 1) // 2


def formula_size(problem: Problem) -> FormulaSize:
    """The exact size of ``problem``'s canonical CNF, in O(|blocked| + |fixed|) time and memory, whatever n is.

    Deciding whether to certify a run (and refusing a DIMACS export, and the checker
    refusing a formula over its memory) must cost nothing next to the run: counting over the
    n^2 numbering took 7.6 s and 470 MB at n = 3,000 (18 s of a 2 s run on a loaded machine)
    and grew a worker to 24 GB at n = 100,000. So the count is closed-form for an open board and corrected line by line
    where squares are blocked. A line (column, row, diagonal) of length L with b blocked
    squares has L - b open ones: C(L - b, 2) at-most-one pairs, plus, for a column or a row,
    its one at-least-one clause over the L - b open squares. Each open square stands on one
    column and one row, so the at-least-one clauses hold 2 x variables literals; each pair
    clause holds 2; a fixed queen's unit holds 1 (none when its square is blocked or off the
    board: the empty clause). Blocked squares off the board are ignored, as the numbering
    ignores them.
    """
    n = problem.n
    on_board = [(column, row) for column, row in problem.blocked if 0 <= column < n and 0 <= row < n]
    variables = n * n - len(on_board)
    # Every line open: n columns and n rows of length n; the diagonals of one direction have lengths
    # 1, 2, ..., n, ..., 2, 1, whose pairs add up to C(n, 2) + 2 C(n, 3).
    pairs = 2 * n * _pairs_of(n) + 2 * (_pairs_of(n) + 2 * (n * (n - 1) * (n - 2) // 6))
    for blocked_on, length_of in (
        (Counter(column for column, _ in on_board), lambda _: n),
        (Counter(row for _, row in on_board), lambda _: n),
        (Counter(column - row for column, row in on_board), lambda difference: n - abs(difference)),
        (Counter(column + row for column, row in on_board), lambda total: n - abs(total - (n - 1))),
    ):
        for line, blocked in blocked_on.items():
            length = length_of(line)
            pairs += _pairs_of(length - blocked) - _pairs_of(length)
    blocked_set = problem.blocked
    open_fixed = sum(
        1
        for column, row in problem.fixed.items()
        if 0 <= column < n and 0 <= row < n and (column, row) not in blocked_set
    )
    clauses = len(problem.fixed) + 2 * n + pairs
    literals = open_fixed + 2 * variables + 2 * pairs
    return FormulaSize(variables, clauses, literals)


def fits(problem: Problem, max_clauses: int = MAX_CLAUSES) -> bool:
    """Whether ``problem``'s canonical CNF has at most ``max_clauses`` clauses (``formula_size``: no O(n^2) step)."""
    return formula_size(problem).clauses <= max_clauses


def clause_count(problem: Problem) -> int:
    """The number of clauses of the canonical CNF, computed without building it (``formula_size``)."""
    return formula_size(problem).clauses


def canonical_cnf(problem: Problem, max_clauses: int = MAX_CLAUSES) -> CanonicalCnf:
    """The canonical CNF of ``problem``; ValueError when it would have more than ``max_clauses`` clauses.

    Pairwise at-most-one grows as n^3 (a plain board of 1,000 has about a billion
    clauses): only instances small enough to refute are given a formula. The refusal is
    decided from ``formula_size``, before anything of the formula is built.
    """
    clauses = formula_size(problem).clauses
    if clauses > max_clauses:
        raise ValueError(
            f"the canonical CNF of this board has {clauses:,} clauses, more than {max_clauses:,}: too large to certify"
        )
    return CanonicalCnf(problem)
