"""The N-Queens models, written as a CPMpy modeller writes them (CPMpy imported when a model is built).

* ``int``: CPMpy's own example (``examples/nqueens.py``): one integer variable per column,
  ``q[c]`` = its row, and ``AllDifferent`` over ``q``, ``q[c] + c`` and ``q[c] - c``. A fixed
  queen is ``q[c] == r``; a blocked square (an excluded diagonal is its squares blocked) is
  ``q[c] != r``.
* ``bool``: one Boolean per square, ``x[r, c]``: a sum of 1 on each row and column, at most 1
  on each diagonal (``cp.sum``: CPMpy hands it to a backend as a cardinality or linear
  constraint). A fixed queen is ``x[r, c]``; a blocked square ``~x[r, c]``.
* ``clauses``: the Boolean grid in clauses only: ``cp.any`` of each row and column, and
  ``~a | ~b`` for every two squares of a line, what a backend that compiles Boolean formulas
  (PySDD) takes.

Each returns the CPMpy model and the queens as ``build`` functions of users return them: an
array of n integer variables (``queens[c]`` = row), or an n x n Boolean grid (``x[r, c]``).
"""

from __future__ import annotations

from typing import Any

from nqueens_plugins import Problem

MODELS = ("auto", "int", "bool", "clauses")  # auto: what the backend prefers (backends.Backend.prefers)


def build(problem: Problem, model: str) -> tuple[Any, Any]:
    """The CPMpy model of ``problem`` in ``model`` (int, bool or clauses), and its queen variables."""
    return {"int": integers, "bool": grid, "clauses": clauses}[model](problem)


def integers(problem: Problem) -> tuple[Any, Any]:
    import cpmpy as cp

    n = problem.n
    q = cp.intvar(0, n - 1, shape=(n,), name="q")  # (n,): shape=1 would give one variable, not an array
    model = cp.Model(
        cp.AllDifferent(q),
        cp.AllDifferent([q[c] + c for c in range(n)]),
        cp.AllDifferent([q[c] - c for c in range(n)]),
    )
    for column, row in problem.fixed.items():
        model += q[column] == row
    for column, row in sorted(problem.blocked):
        model += q[column] != row
    return model, q


def lines(n: int) -> list[list[tuple[int, int]]]:
    """Every row, column and diagonal of the board as (row, column) squares."""
    found = [[(r, c) for c in range(n)] for r in range(n)]
    found += [[(r, c) for r in range(n)] for c in range(n)]
    for difference in range(-n + 1, n):
        found.append([(r, r - difference) for r in range(n) if 0 <= r - difference < n])
    for total in range(2 * n - 1):
        found.append([(r, total - r) for r in range(n) if 0 <= total - r < n])
    return found


def squares(problem: Problem, x: Any) -> list[Any]:
    """The fixed queens and blocked squares of ``problem`` on the Boolean grid ``x``."""
    posted = [x[row, column] for column, row in problem.fixed.items()]
    posted += [~x[row, column] for column, row in sorted(problem.blocked)]
    return posted


def grid(problem: Problem) -> tuple[Any, Any]:
    import cpmpy as cp

    n = problem.n
    x = cp.boolvar(shape=(n, n), name="x")
    model = cp.Model()
    for index, line in enumerate(lines(n)):
        cells = [x[r, c] for r, c in line]
        if index < 2 * n:  # a row or a column: exactly one queen
            model += cp.sum(cells) == 1
        elif len(cells) > 1:  # a diagonal: at most one
            model += cp.sum(cells) <= 1
    model += squares(problem, x)
    return model, x


def clauses(problem: Problem) -> tuple[Any, Any]:
    import cpmpy as cp

    n = problem.n
    x = cp.boolvar(shape=(n, n), name="x")
    model = cp.Model()
    for index, line in enumerate(lines(n)):
        cells = [x[r, c] for r, c in line]
        if index < 2 * n:
            model += cp.any(cells)
        model += [~a | ~b for i, a in enumerate(cells) for b in cells[i + 1 :]]
    model += squares(problem, x)
    return model, x


def read_queens(queens: Any, n: int) -> list[int] | None:
    """``queens[c]`` = row from the queen variables' values (an array of n integers or an n x n Boolean
    grid), or None when a value is missing; ValueError when they are neither."""
    import numpy as np

    values = np.array([[v.value() for v in row] for row in queens] if is_grid(queens) else [v.value() for v in queens])
    if any(value is None for value in values.flat):
        return None
    if values.shape == (n,):
        return [int(value) for value in values]
    if values.shape == (n, n):
        rows = [[r for r in range(n) if values[r, c]] for c in range(n)]
        return [column[0] if len(column) == 1 else -1 for column in rows]
    raise ValueError(f"the queens are {values.shape}: n integer variables or an n x n Boolean grid expected")


def is_grid(queens: Any) -> bool:
    shape = getattr(queens, "shape", None)
    if shape is not None:
        return len(shape) == 2
    return bool(queens) and isinstance(queens[0], list | tuple)
