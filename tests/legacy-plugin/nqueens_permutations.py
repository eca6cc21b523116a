import itertools

from nqueens_plugins import Count, Outcome, Solver, Status, hookimpl


def queens_of(problem, permutation):
    """Place the permutation's rows in order; None where a fixed queen or a block says no."""
    for column, row in enumerate(permutation):
        if problem.fixed.get(column, row) != row or (column, row) in problem.blocked:
            return None
    return permutation


def diagonals_free(permutation):
    n = len(permutation)
    return len({r + c for c, r in enumerate(permutation)}) == n == len({r - c for c, r in enumerate(permutation)})


class Permutations(Solver):
    """Every permutation of the rows, in order: complete, and only for small boards.

    One iteration and one move are one permutation examined.
    """

    name = "permutations"
    summary = "Tries every permutation of the rows (complete; n <= 10)."
    complete = True
    supports_blocked = True
    max_n = 10

    def solve(self, problem, rng, budget, options):
        for examined, permutation in enumerate(itertools.permutations(range(problem.n)), start=1):
            if examined % 1024 == 0 and budget.exhausted(examined):
                return Outcome(Status.TIMED_OUT, None, examined, examined)
            board = queens_of(problem, permutation)
            if board is not None and diagonals_free(board):
                return Outcome(Status.SOLVED, list(board), examined, examined)
        return Outcome(Status.NO_SOLUTION, None, examined, examined)

    def count(self, problem, budget, options, unique):
        if unique:
            raise NotImplementedError("permutations counts all solutions")
        solutions = examined = 0
        for examined, permutation in enumerate(itertools.permutations(range(problem.n)), start=1):
            if examined % 1024 == 0 and budget.exhausted(examined):
                return Count(Status.TIMED_OUT, solutions, False, examined)
            board = queens_of(problem, permutation)
            solutions += board is not None and diagonals_free(board)
        return Count(Status.SOLVED, solutions, False, examined, {"examined": examined})


@hookimpl
def nqueens_register_solvers(register):
    register(Permutations())
