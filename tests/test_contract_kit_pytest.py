"""The contract kit as a pytest plugin, run as a plugin author runs it: `pytest -p nqueens_plugins.testing
--nqueens-solver NAME` in a folder of its own, in a fresh pytest process, its output read back."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable

import pytest

from nqueens_plugins import Outcome, Solver, Status
from nqueens_plugins.core.verify import instance_contradiction
from nqueens_plugins.testing import (
    CHECKS,
    CheckSkipped,
    check_no_solution_when_complete,
    impossible_instances,
    variant_of,
)

pytest_plugins = ["pytester"]

KIT = ("-p", "nqueens_plugins.testing", "-p", "no:cacheprovider")


def kit(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """The kit in a pytest process of its own, from an empty folder, as the author's guide runs it."""
    return pytester.runpytest_subprocess(*KIT, *args)


def test_each_check_is_a_collected_test_with_a_readable_id(pytester: pytest.Pytester) -> None:
    result = kit(pytester, "--collect-only", "-q", "--nqueens-solver", "min-conflicts", "--nqueens-solver", "bitboard")
    assert result.ret == 0, result.stdout.str()
    ids = [line for line in result.outlines if line.startswith("nqueens-contract::")]
    assert ids == [
        f"nqueens-contract::{solver}::{check}" for solver in ("min-conflicts", "bitboard") for check in CHECKS
    ]
    result.stdout.fnmatch_lines([f"{2 * len(CHECKS)} tests collected in *"])


def test_pytest_counts_the_checks_and_skips_what_does_not_apply_naming_why(pytester: pytest.Pytester) -> None:
    """min-conflicts is not complete: no-solution-when-complete does not apply to it (skipped, saying so),
    where the complete backtracking is held to it (passed). pytest's own line counts every check."""
    result = kit(
        pytester,
        "-v",
        "-rs",
        "-k",
        "no-solution-when-complete",
        "--nqueens-solver",
        "min-conflicts",
        "--nqueens-solver",
        "backtracking",
    )
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines([f"*collected {2 * len(CHECKS)} items / {2 * len(CHECKS) - 2} deselected / 2 selected"])
    result.stdout.fnmatch_lines(
        [
            "nqueens-contract::min-conflicts::no-solution-when-complete SKIPPED (*",
            "nqueens-contract::backtracking::no-solution-when-complete PASSED*",
            "SKIPPED [[]1[]] *: it is not complete (complete = False)*",
        ]
    )
    result.assert_outcomes(passed=1, skipped=1, deselected=2 * len(CHECKS) - 2)


def test_a_broken_promise_fails_its_check_by_name_with_the_reason(pytester: pytest.Pytester) -> None:
    """A solver that says it is complete and gives up on n = 2 and 3 fails no-solution-when-complete: the
    failure is headed by the check's id and says what the solver answered, without the kit's traceback."""
    pytester.makeconftest(
        textwrap.dedent(
            """
            import nqueens_plugins as nq
            from nqueens_plugins import Outcome, Solver, Status


            def boastful():
                class Boastful(Solver):  # a class of no module: it travels to the worker by value
                    name = "boastful"
                    summary = "Claims to be complete, and gives up where there is no solution."
                    complete = True

                    def solve(self, problem, rng, budget, options):
                        return Outcome(Status.GAVE_UP)

                return Boastful()


            nq.register(boastful())
            """
        )
    )
    result = kit(pytester, "-k", "no-solution-when-complete", "--nqueens-solver", "boastful")
    assert result.ret == 1, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*_ nqueens-contract::boastful::no-solution-when-complete _*",
            "n=2: a complete solver answered gave-up, not a verified no-solution",
            "FAILED nqueens-contract::boastful::no-solution-when-complete*",
        ]
    )
    assert "def check_no_solution_when_complete" not in result.stdout.str()  # the reason, not the kit's code


TRUSTING = textwrap.dedent(
    """
    import nqueens_plugins as nq
    from nqueens_plugins import Outcome, Solver, Status


    def trusting():
        class Trusting(Solver):  # a class of no module: it travels to the worker by value
            name = "trusting"
            summary = "Backtracks around its fixed queens, copied as given: never checked against each other."
            complete = True
            supports_fixed = True
            supports_blocked = True
            can_count = False

            def solve(self, problem, rng, budget, options):
                n, queens = problem.n, dict(problem.fixed)  # the bug: 0:0 and 1:1 are taken as they come

                def free(column, row):
                    return (column, row) not in problem.blocked and all(
                        row != r and abs(row - r) != abs(column - c) for c, r in queens.items()
                    )

                def place(column):
                    if column == n:
                        return True
                    if column in queens:
                        return place(column + 1)
                    for row in range(n):
                        if free(column, row):
                            queens[column] = row
                            if place(column + 1):
                                return True
                            del queens[column]
                    return False

                if place(0):
                    return Outcome(Status.SOLVED, [queens[c] for c in range(n)], 1, n)
                return Outcome(Status.NO_SOLUTION, None, 1, 0)

        return Trusting()


    nq.register(trusting())
    """
)


def test_a_plugin_that_copies_its_fixed_queens_fails_impossible_instances_by_name(pytester: pytest.Pytester) -> None:
    """The plugin of issue 53: it passes fixed-queens and blocked-squares (it honours both on instances that have
    a solution), and answers a board on two of the impossible ones: the check fails it, naming each."""
    pytester.makeconftest(TRUSTING)
    result = kit(pytester, "-k", "fixed-queens or blocked-squares or impossible", "--nqueens-solver", "trusting")
    assert result.ret == 1, result.stdout.str()
    result.assert_outcomes(passed=2, failed=1, deselected=len(CHECKS) - 3)
    result.stdout.fnmatch_lines(
        [
            "*_ nqueens-contract::trusting::impossible-instances _*",
            "no solution exists: fixed queens 0:0 and 1:1 attack each other, yet it answered a board (invalid: *; "
            + "fixed queen 5:6 stands on a blocked square, yet it answered a board (invalid: *",
            "FAILED nqueens-contract::trusting::impossible-instances*",
        ]
    )
    assert "every square of row 5" not in result.stdout.str()  # it does check its blocked squares


def test_impossible_instances_are_posed_as_far_as_the_solver_takes_them(registered: Callable[[Solver], str]) -> None:
    """Every one of the three is a Problem (none is refused at construction); a solver is asked those its
    declared support lets the host pose; one that takes neither fixed queens nor blocked squares is skipped."""
    posed = dict(impossible_instances(variant_of("bitset-mrv")))
    assert len(posed) == 3 and all(instance_contradiction(problem) for problem in posed.values())

    class FixedOnly(Solver):
        name = "fixed-only"
        summary = "Takes fixed queens, not blocked squares."
        supports_fixed = True

        def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
            return Outcome(Status.GAVE_UP)

    only = [why for why, _ in impossible_instances(variant_of(registered(FixedOnly())))]
    assert only == ["fixed queens 0:0 and 1:1 attack each other"]
    with pytest.raises(CheckSkipped, match="takes neither fixed queens nor blocked squares"):
        impossible_instances(variant_of("swap-search"))


def test_an_unknown_solver_is_one_line_and_status_2(pytester: pytest.Pytester) -> None:
    result = kit(pytester, "--nqueens-solver", "no-such-solver")
    assert result.ret == 2, result.stdout.str()
    result.stdout.fnmatch_lines(["*--nqueens-solver no-such-solver: *unknown solver*"])
    assert "Traceback" not in result.stdout.str() and "registry.py" not in result.stdout.str()


def test_no_solution_when_complete_does_not_apply_to_an_incomplete_solver() -> None:
    """Skipped at once, saying why, wherever the check is called from (contract_report, assert_contract)."""
    with pytest.raises(CheckSkipped, match=r"^it is not complete \(complete = False\)"):
        check_no_solution_when_complete(variant_of("min-conflicts"))


def test_the_kit_imports_without_pytest() -> None:
    """assert_contract and contract_report serve a notebook too, where pytest need not be installed."""
    code = "import sys; sys.modules['pytest'] = None; from nqueens_plugins.testing import contract_report"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
