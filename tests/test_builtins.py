"""Every built-in method on small boards: honest statuses, verified answers, budgets, seeds, fixed queens."""

from __future__ import annotations

import pytest

import nqueens_plugins as nq
from nqueens_plugins.execution import inprocess
from nqueens_plugins.formats.inputs import make_problem
from nqueens_plugins.loading import host

FAST_CAPS = {  # keep hopeless runs (n = 2, 3 for heuristics) short in the tests
    "british-museum": {"max_attempts": 20_000},
    "min-conflicts": {"max_steps": 2_000},
    "simulated-annealing": {"max_steps": 5_000},
    "random-restart": {"restarts": 20},
}
BUILTINS = [
    "british-museum",
    "backtracking",
    "forward-checking",
    "steepest-ascent",
    "first-choice",
    "random-neighbour",
    "random-restart",
    "simulated-annealing",
    "min-conflicts",
    "bitboard",
    "construction",
    "swap-search",
]
COMPLETE = {"backtracking", "forward-checking", "bitboard", "construction"}


@pytest.mark.parametrize("name", BUILTINS)
def test_every_builtin_on_small_boards(name: str) -> None:
    for n in range(1, 13):
        result = nq.solve(name, n, limits=nq.Limits(seed=n, timeout=5), **FAST_CAPS.get(name, {}))
        assert result.status != "invalid", result.reason
        assert result.status != "error", result.reason
        if result.status == "solved":
            assert result.verified is True
            assert len(result.queens) == n
        if name in COMPLETE:
            assert result.status == ("no-solution" if n in (2, 3) else "solved"), (n, result.status)
            assert result.verified is True
        elif n in (2, 3):
            assert result.status in ("gave-up", "timed-out")
        assert result.iterations >= 0 and result.moves >= 0


@pytest.mark.parametrize(
    "spec, n",
    [
        ("min-conflicts", 30),
        ("simulated-annealing", 12),
        ("random-restart", 20),
        ("random-neighbour", 12),
        ("forward-checking[order=mrv,values=middle]", 60),
        ("min-conflicts[init=greedy]", 2000),
    ],
)
def test_capable_methods_solve(spec: str, n: int) -> None:
    assert nq.solve(spec, n, limits=nq.Limits(seed=3, timeout=20)).solved


@pytest.mark.parametrize("name", BUILTINS)
def test_same_seed_same_answer(name: str) -> None:
    options = FAST_CAPS.get(name, {})
    first = nq.solve(name, 8, limits=nq.Limits(seed=11), **options)
    again = nq.solve(name, 8, limits=nq.Limits(seed=11), **options)
    assert (first.status, first.iterations, first.moves) == (again.status, again.iterations, again.moves)
    assert (first.queens is None and again.queens is None) or list(first.queens) == list(again.queens)


def test_different_seeds_explore_differently() -> None:
    answers = {tuple(nq.solve("min-conflicts", 12, limits=nq.Limits(seed=s)).queens) for s in range(6)}
    assert len(answers) > 1


@pytest.mark.parametrize(
    "spec, n",
    [
        ("backtracking", 34),
        ("forward-checking", 34),
        ("british-museum[max_attempts=100000000]", 14),  # its default 10^6 boards can end in 0.3 s
        ("min-conflicts", 200_000),
        ("simulated-annealing[max_steps=100000000]", 3),
        ("random-restart[restarts=100000000]", 3),
        ("steepest-ascent[sideways=100000000]", 3),
        ("first-choice[restarts=100000000]", 3),
    ],
)
def test_time_budget_stops_runs(spec: str, n: int) -> None:
    # In this process, where nothing kills a run from outside: only the solver's own look
    # at its budget can make it timed-out (any of these would otherwise run for minutes
    # and end solved or gave-up). A loaded machine only makes it stop with less done.
    result = inprocess.run(host.registry().variant(spec), make_problem(n), nq.Limits(seed=1, timeout=0.3))
    assert result.status == "timed-out", result.reason


@pytest.mark.parametrize(
    "name",
    ["backtracking", "forward-checking", "simulated-annealing", "min-conflicts", "british-museum", "random-restart"],
)
def test_iteration_budget_stops_runs(name: str) -> None:
    result = nq.solve(name, 3, limits=nq.Limits(max_iterations=50))
    assert result.status in ("timed-out", "no-solution")
    assert result.iterations <= 50 + 4096 or result.status == "no-solution"


FIXED = {0: 2, 3: 1}


@pytest.mark.parametrize("name", [n for n in BUILTINS if host.registry().get(n).solver.supports_fixed])
def test_fixed_queens_are_honoured(name: str) -> None:
    result = nq.solve(name, 8, fixed=FIXED, limits=nq.Limits(seed=5, timeout=5), **FAST_CAPS.get(name, {}))
    assert result.status != "invalid", result.reason
    if result.status == "solved":
        assert result.verified and all(result.queens[c] == r for c, r in FIXED.items())
    if name in COMPLETE:
        assert result.status == "solved"


def test_completion_without_solution_is_proved() -> None:
    # (0,0) and (1,2) leave nothing for column 2 on a 4x4 board... and in general the search says so.
    for name in ("backtracking", "forward-checking"):
        result = nq.solve(name, 4, fixed={0: 0})
        assert result.status == "no-solution"
        assert result.verified is True and result.certificate == "certified"  # its proof, checked by the host
        uncertified = nq.solve(name, 4, fixed={0: 0}, limits=nq.Limits(certify="never"))
        assert uncertified.verified is None  # not decidable in O(n): without a proof, cross-check settles it


def test_solver_that_cannot_honour_fixed_queens_says_so() -> None:
    with pytest.raises(nq.BadInput, match="cannot honour fixed queens"):
        nq.solve("construction", 8, fixed={0: 0})


def test_counts_of_complete_solvers_match_oeis() -> None:
    for name in ("backtracking", "forward-checking", "bitboard[kernel=python]"):
        for n in range(1, 10):
            result = nq.count(name, n)
            assert result.verified is True, (name, n, result)


def test_bitboard_unique_counts() -> None:
    for n in range(1, 11):
        assert nq.count("bitboard", n, unique=True).verified is True


def test_counting_with_fixed_queens_agrees_across_solvers() -> None:
    fixed = {0: 1, 2: 5}
    counts = {
        name: nq.count(name, 8, fixed=fixed).solutions for name in ("backtracking", "forward-checking", "bitboard")
    }
    assert len(set(counts.values())) == 1 and counts["backtracking"] > 0


def test_construction_is_valid_for_many_sizes() -> None:
    from nqueens_plugins.builtin.construction import construct
    from nqueens_plugins.core.verify import board_error

    for n in list(range(4, 400)) + [10_007, 65_536, 99_999]:
        board = construct(n)
        assert board is not None and board_error(n, board) is None, n


def test_swap_search_engines_agree() -> None:
    """One source, two engines: the compiled kernel and plain Python draw the same random numbers."""
    for n in (8, 50, 5000):
        compiled = nq.solve("swap-search[kernel=numba]", n, limits=nq.Limits(seed=9))
        python = nq.solve("swap-search[kernel=python]", n, limits=nq.Limits(seed=9))
        assert compiled.verified and python.verified
        assert list(compiled.queens) == list(python.queens) and compiled.counters == python.counters


def one_draw_at_a_time(n: int, tail: int, tries: int) -> tuple[list[int], int]:
    """Sosič and Gu's initial search as the paper has it, each random number drawn when it is used."""
    import numpy as np

    queens, taken, taken_anti, placed = list(range(n)), set(), set(), 0
    for column in range(n):
        greedy = column < n - tail
        for attempt in range(tries if greedy else 1):
            other = column + int(np.random.random() * (n - column))
            row = queens[other]
            free = row + column not in taken and row - column not in taken_anti
            if free or not greedy or attempt == tries - 1:
                queens[other], queens[column] = queens[column], row
                taken.add(row + column)
                taken_anti.add(row - column)
                placed += free
                break
    return queens, placed


@pytest.mark.parametrize("kernel", ["python", "numba"])
def test_swap_search_prefetching_draws_the_numbers_the_paper_draws(kernel: str) -> None:
    """The initial search draws ahead to prefetch: the same numbers in the same order, and not one more."""
    import numpy as np

    from nqueens_plugins.builtin.engines import swap_kernel

    kernels = swap_kernel.PYTHON if kernel == "python" else swap_kernel.COMPILED
    next_draw = np.random.random
    if kernel == "numba":  # compiled code draws from numba's generator, one per thread for every compiled function
        import numba

        next_draw = numba.njit(lambda: np.random.random())
    for n, tail, tries in ((1, 1, 4), (9, 3, 2), (3000, 40, 64), (3000, 0, 1), (3000, 3000, 8)):
        kernels["seed_generator"](n)
        words = swap_kernel.bit_words(n)
        if kernel == "python":  # as swap-search hands them over
            queens, taken, taken_anti, ahead = list(range(n)), [0] * words, [0] * words, [0.0] * swap_kernel.DRAWS_AHEAD
        else:
            queens = np.arange(n, dtype=np.int32)
            taken, taken_anti, ahead = (
                np.zeros(words, np.int64),
                np.zeros(words, np.int64),
                np.zeros(swap_kernel.DRAWS_AHEAD),
            )
        placed = kernels["initial_search"](queens, taken, taken_anti, n, tail, tries, ahead)
        following = next_draw()
        state = np.random.get_state()
        np.random.seed(n)
        try:
            expected_queens, expected_placed = one_draw_at_a_time(n, tail, tries)
            expected_following = np.random.random()
        finally:
            np.random.set_state(state)
        assert (list(queens), placed) == (expected_queens, expected_placed)
        assert following == expected_following  # and not one number more was drawn


def test_swap_search_places_a_large_board() -> None:
    result = nq.solve("swap-search", 200_000, limits=nq.Limits(seed=1))
    assert result.verified is True and result.counters["greedy_placed"] > 199_000


def test_min_conflicts_knows_when_it_is_stuck() -> None:
    stuck = [
        r for r in (nq.solve("min-conflicts", 8, limits=nq.Limits(seed=s)) for s in range(200)) if r.counters["stuck"]
    ]
    assert stuck, "some random 8-queens starts end with every attacked queen on its only best row"
    for result in stuck:
        assert result.status == "gave-up" and result.iterations < 1000


def test_sizes_beyond_memory_are_refused_before_allocating(monkeypatch: pytest.MonkeyPatch) -> None:
    from nqueens_plugins.core import solver

    monkeypatch.setattr(solver, "available_memory", lambda: 100 * 2**20)
    with pytest.raises(nq.BadInput, match="needs about .* GiB for n = 10,000,000; this machine has 0.1 GiB"):
        nq.solve("swap-search", 10_000_000)
