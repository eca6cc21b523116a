"""The problem a solver is handed cannot be changed: its fields, its fixed queens and its blocked squares refuse at
once with ``ReadOnlyProblem``, a run that tries is an ``error`` saying so (isolated and in-process), and the
read-only forms still pickle, compare, hash and serialise as the plain ones did."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nqueens_plugins as nq
from nqueens_plugins import Outcome, Problem, Solver, Status
from nqueens_plugins.core.problem import BlockedSquares, FixedQueens, ReadOnlyProblem


def _set_fixed(problem: Problem) -> None:
    problem.fixed[1] = 0  # type: ignore[index]


def _add_attacking_queens(problem: Problem) -> None:  # the hostile plugin of issue 50
    problem.fixed.update({0: 0, 1: 1})  # type: ignore[attr-defined]


def _remove_fixed(problem: Problem) -> None:
    del problem.fixed[0]  # type: ignore[attr-defined]


def _merge_fixed(problem: Problem) -> None:
    fixed = problem.fixed
    fixed |= {2: 2}  # type: ignore[operator]  # in place for a dict: refused


def _add_blocked(problem: Problem) -> None:
    problem.blocked.add((0, 0))  # type: ignore[attr-defined]


def _grow_blocked(problem: Problem) -> None:
    problem.blocked |= {(0, 0)}  # type: ignore[misc]


def _set_n(problem: Problem) -> None:
    problem.n = 4  # type: ignore[misc]


def _replace_fixed(problem: Problem) -> None:
    problem.fixed = {}  # type: ignore[misc]


CHANGES: dict[str, Callable[[Problem], None]] = {
    "fixed[1] = 0": _set_fixed,
    "fixed.update(attacking queens)": _add_attacking_queens,
    "del fixed[0]": _remove_fixed,
    "fixed |= ...": _merge_fixed,
    "blocked.add": _add_blocked,
    "blocked |= ...": _grow_blocked,
    "n = 4": _set_n,
    "fixed = {}": _replace_fixed,
}


def changer(name: str, change: Callable[[Problem], None]) -> Solver:
    """A complete solver that changes the problem it is handed, then claims it has no solution."""

    class Changer(Solver):
        summary = "Changes its problem, then claims no solution."
        complete = True
        supports_fixed = True
        supports_blocked = True

        def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
            change(problem)
            return Outcome(Status.NO_SOLUTION)

    Changer.name = name
    return Changer()


@pytest.fixture
def changers() -> Iterator[dict[str, str]]:
    names = {}
    for number, (what, change) in enumerate(CHANGES.items()):
        solver = changer(f"test-changes-problem-{number}", change)
        nq.register(solver)
        names[what] = solver.name
    yield names
    for name in names.values():
        nq.unregister(name)


PROBLEM = Problem(8, fixed={0: 1}, blocked=frozenset({(7, 7)}))


@pytest.mark.parametrize("isolate", [True, False], ids=["isolated", "in-process"])
def test_a_solver_that_changes_its_problem_is_an_error_saying_it_is_read_only(
    changers: dict[str, str], isolate: bool
) -> None:
    for what, name in changers.items():
        result = nq.solve(name, PROBLEM, isolate=isolate)
        assert result.status == Status.ERROR, (what, result.status, result.reason)
        assert "ReadOnlyProblem" in (result.reason or "") and "read-only" in (result.reason or ""), what
        assert result.problem == PROBLEM and result.verified is not True


@pytest.mark.parametrize("what", list(CHANGES))
def test_every_change_raises_at_once_and_leaves_the_problem_as_it_was(what: str) -> None:
    problem = Problem(8, fixed={0: 1, 3: 5}, blocked=frozenset({(7, 7)}))
    before = (problem.n, dict(problem.fixed), set(problem.blocked), problem.id)
    with pytest.raises(ReadOnlyProblem, match="the problem a solver is handed is read-only: .* \\(copy it: "):
        CHANGES[what](problem)
    assert (problem.n, dict(problem.fixed), set(problem.blocked), problem.id) == before


@pytest.mark.parametrize(
    "call",
    [
        lambda f: f.__setitem__(9, 9),
        lambda f: f.__delitem__(0),
        lambda f: f.clear(),
        lambda f: f.pop(0),
        lambda f: f.pop(9, None),
        lambda f: f.popitem(),
        lambda f: f.setdefault(9, 9),
        lambda f: f.update(),
        lambda f: f.update(a=1),
        lambda f: f.__ior__({9: 9}),
    ],
)
def test_every_mutator_of_the_fixed_queens_refuses(call: Callable[[FixedQueens], Any]) -> None:
    fixed = Problem(10, fixed={0: 1}).fixed
    assert isinstance(fixed, FixedQueens)
    with pytest.raises(
        TypeError, match=r"read-only: its fixed queens cannot be changed \(copy it: dict\(problem\.fixed\)\)"
    ):
        call(fixed)
    assert fixed == {0: 1}


def test_a_copy_is_what_a_solver_changes() -> None:
    problem = Problem(8, fixed={2: 1}, blocked=frozenset({(0, 0)}))
    mine = dict(problem.fixed)
    mine[3] = 3
    assert isinstance(problem.fixed, FixedQueens)
    also_mine = problem.fixed.copy()
    also_mine.pop(2)
    squares = set(problem.blocked)
    squares.add((1, 1))
    assert type(mine) is dict and type(also_mine) is dict and problem.fixed == {2: 1}
    assert problem.blocked == {(0, 0)} and isinstance(problem.blocked, BlockedSquares)
    mine_too: frozenset[tuple[int, int]] = problem.blocked
    mine_too |= {(1, 1)}  # a new frozenset bound to a name of one's own, as for any frozenset
    assert mine_too == {(0, 0), (1, 1)} and problem.blocked == {(0, 0)}


def test_the_read_only_forms_read_as_the_plain_ones() -> None:
    problem = Problem(8, fixed={3: 1, 0: 2}, blocked=frozenset({(1, 1)}), source="here")
    assert list(problem.fixed) == [0, 3]  # column order, the canonical form
    assert repr(problem) == "Problem(n=8, fixed={0: 2, 3: 1}, blocked=frozenset({(1, 1)}), source='here')"
    assert isinstance(problem.fixed, dict) and isinstance(problem.blocked, frozenset)
    again = copy.deepcopy(problem)
    assert again == problem and type(again.fixed) is FixedQueens and type(again.blocked) is BlockedSquares
    mine = problem.copy()
    assert mine == problem and mine is not problem and mine.blocked is problem.blocked  # nothing writes a frozenset
    assert isinstance(mine.fixed, FixedQueens) and mine.fixed is not problem.fixed
    dict.__setitem__(mine.fixed, 5, 5)  # a deliberate hack reaches the copy alone: its fixed queens are its own
    assert problem.fixed == {0: 2, 3: 1} and mine.fixed == {0: 2, 3: 1, 5: 5}


columns_and_rows = st.integers(0, 10**6)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(columns_and_rows, columns_and_rows, max_size=30),
    st.frozensets(st.tuples(columns_and_rows, columns_and_rows), max_size=30),
    st.randoms(use_true_random=False),
)
def test_the_fixed_queens_pickle_compare_hash_and_serialise_as_a_dict(
    fixed: dict[int, int], blocked: frozenset[tuple[int, int]], rng: Any
) -> None:
    frozen = FixedQueens(fixed)
    shuffled = list(fixed.items())
    rng.shuffle(shuffled)
    assert frozen == fixed and fixed == frozen and dict(frozen) == fixed
    assert sorted(frozen.items()) == sorted(fixed.items()) and list(frozen) == sorted(fixed)
    assert FixedQueens(shuffled) == frozen and hash(FixedQueens(shuffled)) == hash(frozen)
    assert json.loads(json.dumps(frozen)) == {str(c): r for c, r in fixed.items()}
    assert json.dumps(frozen) == json.dumps(dict(sorted(fixed.items())))
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(frozen, protocol))
        assert type(back) is FixedQueens and back == frozen and hash(back) == hash(frozen)
    problem = Problem(10**6 + 1, fixed=dict(shuffled), blocked=blocked, source="s")
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(problem, protocol))
        assert back == problem and hash(back) == hash(problem) and back.id == problem.id
        assert type(back.fixed) is FixedQueens and type(back.blocked) is BlockedSquares
        with pytest.raises(ReadOnlyProblem):
            back.fixed[0] = 0
    assert problem == Problem(10**6 + 1, fixed=fixed, blocked=frozenset(blocked))
    assert hash(problem) == hash(Problem(10**6 + 1, fixed=fixed, blocked=frozenset(blocked)))
