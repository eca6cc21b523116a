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
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from nqueens_plugins.core.problem import Problem

__all__ = ["CanonicalCnf", "canonical_cnf", "clause_count"]

MAX_CLAUSES = 20_000_000  # ~a few hundred MB as Python lists: the largest formula the host builds


def _pairs(variables: Sequence[int]) -> int:
    return len(variables) * (len(variables) - 1) // 2


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

    @property
    def variables(self) -> int:
        """How many variables the formula has (the open squares)."""
        return self.problem.n * self.problem.n - len(self.problem.blocked)

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
        yield f"p cnf {self.variables} {clause_count(self.problem)}"
        for clause in self.clauses():
            yield " ".join(map(str, clause)) + (" 0" if clause else "0")


def clause_count(problem: Problem) -> int:
    """The number of clauses of the canonical CNF, computed without building it (to refuse a huge one first)."""
    formula = CanonicalCnf(problem)
    total = len(problem.fixed)
    for needs_one, line in formula.lines():
        total += int(needs_one) + _pairs(line)
    return total


def canonical_cnf(problem: Problem, max_clauses: int = MAX_CLAUSES) -> CanonicalCnf:
    """The canonical CNF of ``problem``; ValueError when it would have more than ``max_clauses`` clauses.

    Pairwise at-most-one grows as n^3 (a plain board of 1,000 has about a billion
    clauses): only instances small enough to refute are given a formula.
    """
    estimate = 5 * problem.n**3 // 3 + 4 * problem.n + len(problem.fixed)  # an upper bound, before any loop
    if estimate > max_clauses and clause_count(problem) > max_clauses:
        raise ValueError(f"the canonical CNF of this board has more than {max_clauses:,} clauses: too large to certify")
    return CanonicalCnf(problem)
