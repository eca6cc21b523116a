"""The canonical CNF: its models are exactly the instance's solutions, its numbering is the documented one."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from nqueens_plugins.core.canonical_cnf import canonical_cnf, clause_count
from nqueens_plugins.core.problem import Problem
from nqueens_plugins.core.verify import board_error


def satisfies(clauses: list[list[int]], true: set[int]) -> bool:
    return all(any((lit > 0) == (abs(lit) in true) for lit in clause) for clause in clauses)


def solutions(problem: Problem) -> list[tuple[int, ...]]:
    """Every solution by brute force over permutations, judged by the verifier (n <= 7)."""
    found = []
    for queens in itertools.permutations(range(problem.n)):
        if board_error(problem.n, queens, problem.fixed, problem.blocked) is None:
            found.append(queens)
    return found


@st.composite
def problems(draw: st.DrawFn) -> Problem:
    n = draw(st.integers(1, 6))
    squares = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    blocked = draw(st.frozensets(squares, max_size=n * 2))
    fixed = draw(st.dictionaries(st.integers(0, n - 1), st.integers(0, n - 1), max_size=2))
    return Problem(n, fixed=fixed, blocked=blocked)


@settings(max_examples=150, deadline=None)
@given(problems(), st.data())
def test_the_models_are_exactly_the_solutions(problem: Problem, data: st.DataObject) -> None:
    formula = canonical_cnf(problem)
    clauses = list(formula.clauses())
    assert len(clauses) == clause_count(problem)
    assert all(0 < abs(lit) <= formula.variables for clause in clauses for lit in clause)
    good = solutions(problem)
    for queens in good:
        assert satisfies(clauses, {formula.variable(c, r) for c, r in enumerate(queens)})
    if problem.n <= 5:  # every board with one queen per column and row: a model exactly when a solution
        for queens in itertools.permutations(range(problem.n)):
            if all(formula.variable(c, r) for c, r in enumerate(queens)):
                model = {formula.variable(c, r) for c, r in enumerate(queens)}
                assert satisfies(clauses, model) == (queens in good)
    # Any other set of open squares is not a model: a solution moved by one queen, or a random set.
    open_squares = [(c, r) for c in range(problem.n) for r in range(problem.n) if formula.variable(c, r)]
    chosen = data.draw(st.sets(st.sampled_from(open_squares), max_size=problem.n + 1)) if open_squares else set()
    as_board = sorted(chosen)
    is_solution = (
        len(chosen) == problem.n
        and tuple(r for _, r in as_board) in good
        and [c for c, _ in as_board] == list(range(problem.n))
    )
    assert satisfies(clauses, {formula.variable(c, r) for c, r in chosen}) == is_solution


def test_variables_are_open_squares_in_column_then_row_order() -> None:
    problem = Problem(3, blocked=frozenset({(0, 1), (2, 2)}))
    formula = canonical_cnf(problem)
    assert [formula.variable(c, r) for c in range(3) for r in range(3)] == [1, 0, 2, 3, 4, 5, 6, 7, 0]
    assert formula.variables == 7 and formula.square(5) == (1, 2)


def test_a_fixed_queen_on_a_blocked_square_is_the_empty_clause() -> None:
    formula = canonical_cnf(Problem(4, fixed={1: 2}, blocked=frozenset({(1, 2)})))
    assert next(iter(formula.clauses())) == []
    assert formula.dimacs_lines().__next__().startswith("c canonical CNF")


def test_a_board_too_large_to_refute_is_refused_before_building() -> None:
    import pytest

    with pytest.raises(ValueError, match="too large to certify"):
        canonical_cnf(Problem(1000))
