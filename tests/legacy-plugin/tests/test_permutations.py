"""nqueens-permutations' own tests, as its author wrote them against nqueens-plugins 0.1: the solver through the
Python API as 0.1 took it (limits as keywords), beside the contract kit (`pytest -p nqueens_plugins.testing
--nqueens-solver permutations`, as the author's guide says)."""

import nqueens_plugins as nq


def test_it_is_registered_by_this_distribution():
    found = {(r.solver.name, r.source.distribution) for r in nq.solvers()}
    assert ("permutations", "nqueens-permutations") in found


def test_it_counts_the_eight_queens():
    result = nq.count("permutations", 8)
    assert result.solutions == 92 and result.verified


def test_it_counts_around_a_blocked_square_as_the_built_in_counter_does():
    blocked = [(0, 1)]
    assert nq.count("permutations", 6, blocked=blocked).solutions == nq.count("bitboard", 6, blocked=blocked).solutions


def test_it_keeps_a_fixed_queen():
    result = nq.solve("permutations", 8, fixed={0: 2})
    assert result.status == "solved" and result.verified and result.queens[0] == 2


def test_it_solves_within_a_time_limit():
    result = nq.solve("permutations", 8, timeout=5, seed=1)
    assert result.status == "solved" and result.verified


def test_it_proves_three_has_no_solution():
    result = nq.solve("permutations", 3, timeout=5)
    assert result.status == "no-solution" and result.verified


def test_it_compares_with_backtracking():
    records = nq.compare(["permutations", "backtracking"], [6, 8], trials=2, seed=0, timeout=5, jobs=1)
    assert len(records) == 8
    assert all(record["status"] == "solved" and record["verified"] for record in records)
