"""The CNF this plugin poses to python-sat's solvers, and its DIMACS text.

Variables: one per square, ``var(c, r) = c * n + r + 1`` (column c, row r, both
0-based: the host's ``queens[c] = r``), so variables 1..n^2 are the board and a
queen stands on (c, r) exactly when that variable is true. The auxiliary
variables of an at-most-one encoding are numbered from n^2 + 1 on.

Clauses, in this order:

* per column: at least one queen (one clause) and at most one (``amo``);
* per row: at least one queen and at most one. The at-least-one clause is
  implied (n queens in n columns fill the n rows) but it is what makes the
  encoding strong: with it, unit propagation sees a row with one open square
  left, and the SAT literature on Blocked n-Queens reports it cuts solving
  times 3 to 9x (``implied=false`` leaves it out, to measure);
* per diagonal and anti-diagonal: at most one;
* fixed queens as unit clauses ``x``, blocked squares as unit clauses ``-x``.

A blocked square is left out of its lines (its unit clause already makes it
false), so an auxiliary encoding is built over the open squares only. A line
with one open square needs no at-most-one clause.

The at-most-one constraints are encoded by ``pysat.card.CardEnc.atmost`` with the
encoding ``amo`` names: ``pairwise`` (binomial, no auxiliaries), ``seqcounter``
(Sinz), ``ladder``, ``bitwise``, ``totalizer``, ``mtotalizer``, ``kmtotalizer``,
``sortnetwrk``, ``cardnetwrk``; or by ``commander``, written here: Klieber and Kwon's
commander encoding with groups of three, as the CSPLib script ``blockedqueens2dimacs.py``
writes it for the published lingeling run on the ASP instances (a commander variable
per group, true exactly when one of its group is, pairwise at-most-one inside each
group, groups of commanders commanded in turn up to one root). There a line that
must hold a queen gets the unit clause "root" instead of the clause listing its squares
(the root is true exactly when one square is), so ``pysat[amo=commander]`` poses the
published run's constraints, with this module's variable numbering. python-sat's ``native`` cardinality constraints
are left out: they are not CNF, so no DIMACS file could hold them, and only a few
of its solvers take them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from nqueens_plugins import Problem

AMO_ENCODINGS = (
    "pairwise",
    "commander",
    "seqcounter",
    "ladder",
    "bitwise",
    "totalizer",
    "mtotalizer",
    "kmtotalizer",
    "sortnetwrk",
    "cardnetwrk",
)

Clause = list[int]


def var(n: int, column: int, row: int) -> int:
    """The DIMACS variable of the square (column, row)."""
    return column * n + row + 1


def lines(problem: Problem) -> Iterator[tuple[str, list[int]]]:
    """(kind, variables of the open squares) of every column, row, diagonal and anti-diagonal, each line's
    squares in row order (then column order), as the published script lists them: an encoding that groups
    a line's squares (commander) then groups them as it did."""
    n = problem.n
    blocked = problem.blocked

    def open_squares(squares: Iterator[tuple[int, int]]) -> list[int]:
        return [column * n + row + 1 for column, row in squares if (column, row) not in blocked]

    for c in range(n):
        yield "column", open_squares((c, r) for r in range(n))
    for r in range(n):
        yield "row", open_squares((c, r) for c in range(n))
    for total in range(2 * n - 1):  # c + r constant; row by row, as blockedqueens2dimacs.py lists them
        yield (
            "diagonal",
            open_squares((c, total - c) for c in reversed(range(max(0, total - n + 1), min(n, total + 1)))),
        )
    for difference in range(-n + 1, n):  # r - c constant
        yield "diagonal", open_squares((c, c + difference) for c in range(max(0, -difference), min(n, n - difference)))


COMMANDER_GROUP = 3  # as blockedqueens2dimacs.py (Klieber and Kwon found 3 to 6 about equal)

Encoder = Callable[[list[int], int, bool], tuple[list[Clause], int]]


def at_most_one_encoder(amo: str) -> Encoder:
    """A function (literals, top variable, at least one too?) -> (clauses, new top variable) for the
    ``amo`` encoding; with ``at_least_one`` the clauses say "exactly one"."""
    if amo == "commander":
        return commander
    from pysat.card import CardEnc, EncType

    encoding = getattr(EncType, amo)

    def encode(literals: list[int], top: int, at_least_one: bool) -> tuple[list[Clause], int]:
        # Empty if every square is blocked: unsatisfiable, as it is.
        clauses: list[Clause] = [list(literals)] if at_least_one else []
        if len(literals) < 2:
            return clauses, top
        if len(literals) == 2:  # every encoding gives this one clause; skip the call
            return [*clauses, [-literals[0], -literals[1]]], top
        formula = CardEnc.atmost(literals, 1, top_id=top, encoding=encoding)
        return clauses + formula.clauses, max(top, formula.nv)

    return encode


def commander(literals: list[int], top: int, at_least_one: bool) -> tuple[list[Clause], int]:
    """Klieber and Kwon's commander encoding, groups of three, exactly as blockedqueens2dimacs.py
    builds it: each group of up to three gets a commander ``c`` with ``c -> (x1 | x2 | x3)``,
    ``xi -> c`` and pairwise at-most-one among the group; the commanders are grouped in turn until
    one root is left. "At least one" is then the unit clause of the root. (That script builds the
    root of a diagonal too, unused, and so does this: the same clauses.)"""
    if not literals:
        return ([[]] if at_least_one else []), top
    clauses: list[Clause] = []
    level = list(literals)
    while len(level) > 1:
        commanders = []
        for start in range(0, len(level), COMMANDER_GROUP):
            group = level[start : start + COMMANDER_GROUP]
            if len(group) == 1:
                commanders.append(group[0])
                continue
            top += 1
            clauses.append([*group, -top])
            clauses.extend([top, -member] for member in group)
            clauses.extend([-group[i], -group[j]] for i in range(len(group) - 1) for j in range(i + 1, len(group)))
            commanders.append(top)
        level = commanders
    if at_least_one:
        clauses.append([level[0]])
    return clauses, top


@dataclass
class Size:
    """How large the CNF is: variables (board and auxiliary) and clauses."""

    variables: int = 0
    clauses: int = 0


@functools.cache
def line_size(amo: str, length: int) -> tuple[int, int]:
    """(clauses, auxiliary variables) of one at-most-one over ``length`` literals."""
    if amo == "pairwise" or (length < 3 and amo != "commander"):
        return length * (length - 1) // 2, 0
    clauses, top = at_most_one_encoder(amo)(list(range(1, length + 1)), length, False)
    return len(clauses), top - length


def plain_size(n: int, amo: str, implied: bool = True) -> tuple[int, int]:
    """(variables, clauses) of the CNF of the plain n x n board: the largest for this n (a blocked
    square only removes), so what a precheck bounds. Exact: what ``clause_batches`` yields."""
    variables, clauses = n * n, n * (2 if implied else 1)  # the at-least-one clauses (one per line)
    lengths = [(n, 2 * n + 2)] + [(length, 4) for length in range(1, n)]  # rows, columns, the two longest diagonals
    for length, lines_of_length in lengths:
        line_clauses, auxiliaries = line_size(amo, length)
        clauses += lines_of_length * line_clauses
        variables += lines_of_length * auxiliaries
    return variables, clauses


def clause_batches(
    problem: Problem, amo: str, implied: bool = True, size: Size | None = None
) -> Iterator[list[Clause]]:
    """The CNF, one batch of clauses per line (then the unit clauses), so a caller can poll its budget
    between batches. ``size``, when given, is kept up to date (variables include auxiliaries)."""
    n = problem.n
    encode = at_most_one_encoder(amo)
    top = n * n
    if size is None:
        size = Size()
    size.variables = top
    for kind, literals in lines(problem):
        batch, top = encode(literals, top, kind == "column" or (kind == "row" and implied))
        size.variables = top
        size.clauses += len(batch)
        yield batch
    units = [[var(n, column, row)] for column, row in problem.fixed.items()]
    units.extend([-var(n, column, row)] for column, row in sorted(problem.blocked))
    size.clauses += len(units)
    yield units


def clauses_of(problem: Problem, amo: str, implied: bool = True) -> tuple[list[Clause], Size]:
    """The whole CNF as one list, and its size."""
    size = Size()
    clauses = [clause for batch in clause_batches(problem, amo, implied, size) for clause in batch]
    return clauses, size


def queens_of(model: list[int], n: int) -> list[int]:
    """The board of a model: the row of the true square in each column (python-sat lists literal
    ``v`` or ``-v`` at index v - 1, so the board's squares are the first n^2 entries)."""
    queens = []
    for c in range(n):
        base = c * n
        queens.append(next(r for r in range(n) if model[base + r] > 0))
    return queens


def blocking_clause(queens: list[int], n: int) -> Clause:
    """The clause that rules out exactly this board (every column holds one queen)."""
    return [-var(n, c, r) for c, r in enumerate(queens)]


def dimacs(problem: Problem, amo: str, implied: bool, solver: str) -> str:
    """The CNF as DIMACS text, with a comment header naming the instance and the numbering."""
    clauses, size = clauses_of(problem, amo, implied)
    n = problem.n
    label = problem.source or (f"n={n}" if problem.is_plain else f"n={n} #{problem.id}")
    head = [
        f"c N-Queens {label}, as nqueens-pysat poses it to python-sat ({solver})",
        f"c n = {n}, {len(problem.fixed)} fixed queens, {len(problem.blocked)} blocked squares",
        f"c encoding: exactly one queen per column, at most one per row and diagonal (amo={amo})"
        + (", at least one per row (implied)" if implied else ""),
        "c fixed queens are unit clauses v, blocked squares unit clauses -v",
        f"c variable v = column * {n} + row + 1 (column and row 0-based) is true when a queen stands there;",
        f"c variables {n * n + 1}..{size.variables} are the at-most-one encoding's auxiliaries",
        f"p cnf {size.variables} {len(clauses)}",
    ]
    body = [" ".join(map(str, clause)) + " 0" for clause in clauses]
    return "\n".join(head + body) + "\n"
