"""The canonical CNF: its models are exactly the instance's solutions, its numbering is the documented one."""

from __future__ import annotations

import itertools
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nqueens_plugins.core.canonical_cnf import (
    CanonicalCnf,
    FormulaSize,
    canonical_cnf,
    clause_count,
    fits,
    formula_size,
)
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
    with pytest.raises(ValueError, match="too large to certify"):
        canonical_cnf(Problem(1000))


@st.composite
def sized_problems(draw: st.DrawFn) -> Problem:
    """Any problem the class can hold: blocked squares up to the whole board, fixed queens anywhere (on
    blocked squares, and off the board, which inputs refuse but a Problem made in code can carry)."""
    n = draw(st.integers(1, 9))
    squares = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    blocked = draw(st.frozensets(squares, max_size=n * n))
    on_blocked = draw(
        st.dictionaries(
            st.integers(0, n - 1), st.sampled_from(sorted(blocked)) if blocked else st.nothing(), max_size=2
        )
    )
    fixed = {column: square[1] for column, square in on_blocked.items()}
    fixed |= draw(st.dictionaries(st.integers(0, n - 1), st.integers(0, n - 1), max_size=3))
    fixed |= draw(st.dictionaries(st.integers(-2, n + 2), st.integers(-2, n + 2), max_size=2))
    off_board_blocked = draw(st.frozensets(st.tuples(st.integers(-3, n + 3), st.integers(-3, n + 3)), max_size=2))
    return Problem(n, fixed=fixed, blocked=blocked | off_board_blocked)


@settings(max_examples=400, deadline=None)
@given(sized_problems())
def test_the_size_counted_without_the_formula_is_the_formulas(problem: Problem) -> None:
    formula = CanonicalCnf(problem)
    clauses = list(formula.clauses())
    numbered = sum(1 for variable in formula.numbering if variable)
    size = formula_size(problem)
    assert size == FormulaSize(numbered, len(clauses), sum(map(len, clauses)))
    assert formula.variables == numbered and clause_count(problem) == len(clauses)
    assert fits(problem, len(clauses)) and not fits(problem, len(clauses) - 1)
    assert all(0 < abs(literal) <= numbered for clause in clauses for literal in clause)


def test_a_large_board_is_sized_and_refused_without_its_numbering(monkeypatch: pytest.MonkeyPatch) -> None:
    """n = 3,000 with one blocked square: refused from the count alone, never the n^2 numbering (it took 7 s
    and 470 MB before); nor does a formula under the limit build it to be sized."""

    def never(self: CanonicalCnf) -> tuple[int, ...]:
        raise AssertionError("the n^2 numbering was built")

    monkeypatch.setattr(CanonicalCnf, "numbering", property(never))
    big = Problem(3000, blocked=frozenset({(0, 0)}))
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="44,981,998,003 clauses, more than 20,000,000: too large to certify"):
            canonical_cnf(big)
        assert not fits(big) and formula_size(Problem(100_000, blocked=big.blocked)).clauses > 10**15
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20  # the numbering alone is 9 million entries
    n, pairs = 3000, 3000 * 2999 // 2  # columns and rows: 1 + C(n, 2) each; diagonals: C(n, 2) + 2 C(n, 3) a direction
    plain = 2 * n * (1 + pairs) + 2 * (pairs + 2 * (n * (n - 1) * (n - 2) // 6))
    # the corner stands on a column, a row and a diagonal of n squares (n - 1 pairs each) and an anti-diagonal of one
    assert formula_size(big).clauses == plain - 3 * 2999 and formula_size(big).variables == 3000**2 - 1
    small = canonical_cnf(Problem(150, fixed={3: 4}, blocked=frozenset({(0, 0), (1, 2)})))
    assert small.variables == 150**2 - 2 and small.size.clauses <= 20_000_000
    assert "numbering" not in small.__dict__
    assert next(small.dimacs_lines(), "") and "numbering" not in small.__dict__


def test_a_dimacs_export_too_large_is_refused_from_the_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """``instances export --format dimacs`` of n = 3,000 with one blocked square took 7.6 s and 470 MB to refuse."""
    import nqueens_plugins as nq

    def never(self: CanonicalCnf) -> tuple[int, ...]:
        raise AssertionError("the n^2 numbering was built")

    monkeypatch.setattr(CanonicalCnf, "numbering", property(never))
    with pytest.raises(nq.BadInput, match="44,981,998,003 clauses, more than 20,000,000: too large to certify"):
        nq.export("dimacs", 3000, blocked="0:0")
