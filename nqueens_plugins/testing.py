"""API layer (above ``api.py``), parent side: the contract kit. Does my solver keep the host's promises?

Two ways to use it.

As a pytest plugin, from the command line: pytest collects one test per check and
solver, ``nqueens-contract::my-solver::budget-honoured`` (``-v`` lists them, ``-k``
chooses among them, ``-rs`` says why each skipped one was skipped):

    pytest -p nqueens_plugins.testing --nqueens-solver my-solver [--nqueens-solver other]

As a function in your own tests:

    from nqueens_plugins.testing import assert_contract

    def test_my_solver_keeps_the_contract():
        assert_contract("my-solver")             # or "my-solver[option=value]"

The checks: registration metadata; n = 1..10 solved and verified (a complete
solver must solve every n but 2 and 3; an incomplete one may give up but never
return a wrong answer or raise); no-solution for n = 2 and 3 when complete;
counts against OEIS when it counts; the same seed gives the same answer, over
``REPEATS`` runs; the time budget is honoured while the solver searches (run
isolated, so a solver that ignores it is killed and reported, not waited for: killed
a grace past its budget that a busy loop measures against the machine's load, so a
busy machine fails no solver that returns at its budget; one
that declares ``stops_at_budget = False`` must instead be stopped cleanly by the
host); fixed queens honoured when supported; blocked squares honoured when
supported (``supports_blocked``); instances with no solution on their face (attacking
fixed queens, a row all blocked, a fixed queen on a blocked square) answered "none
exists", never with a board; every no-solution claim certified by a proof the
host's checker accepts, when the solver says it certifies (``certifies``).

Each small solve or count a check makes has ``SOLVE_TIMEOUT`` seconds on a quiet machine, stretched by the
load a short busy loop measures (``solve_limit``): the kit's margins are measured, never a constant, so a
busy machine fails no honest solver.

A check that does not apply to the solver is *skipped*, saying why, never passed:
no-solution-when-complete for a solver that is not complete, counts for one that
does not count, fixed-queens and blocked-squares for one that does not take them,
impossible-instances for one that takes neither,
certificates for one that does not certify.

Every board a check asks for goes through the solver's ``precheck`` first, as the
host's commands do: a board the solver refuses (an 8x8-only library asked for
n = 2) is left out, and a check left with nothing to ask is *skipped*, naming why
(a pytest skip with ``--nqueens-solver``, a ``ContractCheckSkipped`` warning from
``assert_contract``), never failed and never silently passed.

A broken promise fails its check with the check's own message, which says what the
solver did (``PYTEST_DONT_REWRITE``: pytest's assertion rewriting would add the
kit's internals to it).
"""

from __future__ import annotations

import functools
import time
import warnings
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pluggy

from nqueens_plugins import api
from nqueens_plugins.core.errors import BadInput, PluginError
from nqueens_plugins.core.hookspecs import CONTRACT_VERSION
from nqueens_plugins.core.limits import Limits
from nqueens_plugins.core.problem import Problem
from nqueens_plugins.core.solver import Variant
from nqueens_plugins.core.verify import known_count
from nqueens_plugins.execution.answers import CountResult, Result
from nqueens_plugins.execution.local import LocalExecutor
from nqueens_plugins.execution.tasks import check_countable, check_runnable
from nqueens_plugins.execution.worker_handle import KILL_GRACE
from nqueens_plugins.formats.inputs import make_problem
from nqueens_plugins.loading import host
from nqueens_plugins.loading.host import package_version
from nqueens_plugins.loading.registry import check_solver

if TYPE_CHECKING:
    import pytest

SIZES = range(1, 11)
FIXED = {0: 2, 3: 1}  # an 8x8 completion instance with solutions
SOLVE_TIMEOUT = 20.0  # seconds for one small solve or count, on a quiet machine (``solve_limit``)
MAX_SOLVE_TIMEOUT = 600.0  # however busy the machine
BUDGET_PROBE_TIMEOUT = 0.5
YARDSTICK_SECONDS = 0.2  # the busy loop that measures this machine's load before a budget probe
MAX_KILL_GRACE = 30.0  # seconds: a probe killed no later than this past its budget, however busy the machine
# Same-seed runs compared: an answer that differs once in six runs (thread order inside a
# library) passes all of them with probability (5/6)^29, under 0.5 %.
REPEATS = 30


class CheckSkipped(Exception):
    """A check with nothing to ask: the solver refuses every board it needs (the message says why)."""


class ContractCheckSkipped(UserWarning):
    """``assert_contract`` skipped a check: the solver refuses every board it needs."""


def refusal(variant: Variant, problem: Problem) -> str | None:
    """Why the host would refuse ``problem`` for ``variant`` (its precheck, fixed queens, blocked squares), or None."""
    try:
        check_runnable(variant, problem)
    except BadInput as refused:
        return str(refused)
    return None


def taken(variant: Variant, problems: list[Problem], what: str) -> list[Problem]:
    """The problems ``variant`` takes; CheckSkipped, naming the first refusal, when it takes none."""
    kept = [problem for problem in problems if refusal(variant, problem) is None]
    if not kept:
        raise CheckSkipped(f"it refuses {what}: {refusal(variant, problems[0])}")
    return kept


HARD_INSTANCE = Path(__file__).parent / "data" / "blockedqueens.56.1860451109.param"


def run(variant: Variant, problem: Problem, limits: Limits) -> Result:
    """Solve as a user would (``nq.solve``): isolated in a warm worker, killed from outside at the limit, so a
    hang or crash fails the check, not the suite."""
    return api.solve(variant, problem, limits=limits)


def count(variant: Variant, problem: Problem, limits: Limits) -> CountResult:
    """Count as a user would (``nq.count``), isolated like ``run``."""
    return api.count(variant, problem, limits=limits)


def variant_of(spec: str) -> Variant:
    return host.registry().variant(spec)


def check_registration(variant: Variant) -> None:
    registration = host.registry().get(variant.name)
    check_solver(registration.solver)  # raises PluginError with the reason
    assert registration.source.plugin, "the solver has no plugin name"
    assert not [e for e in host.registry().load_errors if e.source.plugin == registration.source.plugin]


def check_solves_small_boards(variant: Variant) -> None:
    for problem in taken(variant, [make_problem(n) for n in SIZES], f"every n from {SIZES[0]} to {SIZES[-1]}"):
        n = problem.n
        result = run(variant, problem, Limits(timeout=solve_limit(), seed=n))
        assert result.status not in ("invalid", "error"), f"n={n}: {result.status}: {result.reason}"
        if result.status == "solved":
            assert result.verified is True, f"n={n}: solved but not verified"
        elif variant.complete and n not in (2, 3):
            raise AssertionError(f"n={n}: a complete solver answered {result.status}")


def check_no_solution_when_complete(variant: Variant) -> None:
    """A complete solver proves n = 2 and 3 empty. Not complete, it has nothing to prove here: its
    answers on n = 2 and 3 (never no-solution, never a board) are held by solves-small-boards."""
    if not variant.complete:
        raise CheckSkipped(
            "it is not complete (complete = False), so it never answers no-solution: "
            "solves-small-boards fails it if it does"
        )
    for problem in taken(variant, [make_problem(2), make_problem(3)], "n = 2 and 3"):
        n = problem.n
        result = run(variant, problem, Limits(timeout=solve_limit()))
        assert result.status == "no-solution" and result.verified, (
            f"n={n}: a complete solver answered {result.status}, not a verified no-solution"
            + (f" ({result.reason})" if result.reason else "")
        )


def check_counts(variant: Variant) -> None:
    if not variant.counts:
        raise CheckSkipped("it does not count (not a complete counting solver)")
    for problem in taken(variant, [make_problem(n) for n in range(1, 9)], "every n from 1 to 8"):
        n = problem.n
        result = count(variant, problem, Limits(timeout=solve_limit()))
        assert result.verified is True, (
            f"n={n}: counted {result.solutions}, expected {known_count(n)} ({result.reason})"
        )


def check_same_seed_same_answer(variant: Variant) -> None:
    """``REPEATS`` runs with one seed give one answer: a single repeat misses a difference that
    shows once in a few runs (a library whose threads race)."""
    problem = taken(variant, [make_problem(n) for n in (8, 10, 6, 5, 4)], "every board from 4 to 10")[0]

    def answer(result: Result) -> tuple[str, list[int] | None]:
        return str(result.status), None if result.queens is None else [int(q) for q in result.queens]

    first = answer(run(variant, problem, Limits(timeout=solve_limit(), seed=7)))
    for repeat in range(2, REPEATS + 1):
        again = answer(run(variant, problem, Limits(timeout=solve_limit(), seed=7)))
        assert again == first, (
            f"n={problem.n}: the same seed gave a different answer in run {repeat} of {REPEATS} "
            f"({again[0]} {again[1]}, not {first[0]} {first[1]})"
        )


def budget_probe(variant: Variant) -> Problem:
    """A problem on which ``variant`` is still searching when the probe's budget runs out.

    A solver that takes blocked squares gets a hard unsatisfiable Blocked
    n-Queens instance (n = 56, shipped in ``nqueens_plugins/data``): building
    its model is quick, and deciding it takes seconds for the best solver here,
    so the budget is tested where search runs. Any other solver gets the
    largest plain board (up to 4000) it accepts.
    """
    from nqueens_plugins.formats.instances import load_one

    if getattr(variant.solver, "supports_blocked", False):
        hard = load_one(str(HARD_INSTANCE))
        if refusal(variant, hard) is None:
            return hard
    sizes = [min(variant.solver.max_n or 4000, 4000), 2000, 1000, 500, 250, 128, 64, 32, 16, 8]
    return taken(variant, [make_problem(n) for n in sorted(set(sizes), reverse=True)], "every board up to 4000")[0]


def cpu_share(seconds: float = YARDSTICK_SECONDS) -> float:
    """The share of a core this process is given now: the CPU time a busy loop gets over the wall time it runs.
    About 1 on a quiet machine; 0.2 with two busy loops beside it on two cores; less under ``nice``. A worker
    this process starts shares its lot (the same machine, the same nice value)."""
    wall, cpu = time.perf_counter(), time.thread_time()
    while time.perf_counter() - wall < seconds:
        sum(range(1000))
    return max(time.thread_time() - cpu, 1e-3) / (time.perf_counter() - wall)


@functools.cache
def load_factor(minute: int) -> float:
    """How many times slower than a quiet core this process runs now (1 / ``cpu_share()``, at least 1), measured
    once a ``minute`` (the argument is the clock's: load comes and goes, and 30 same-seed runs need not pay a
    busy loop each)."""
    return max(1.0, 1.0 / cpu_share())


def solve_limit() -> float:
    """A check's time limit for one small solve or count: ``SOLVE_TIMEOUT`` on a quiet machine, stretched by
    the load measured now (``load_factor``), at most ``MAX_SOLVE_TIMEOUT``: an honest solver is never failed
    for the machine it ran on; one that hangs still ends."""
    return min(MAX_SOLVE_TIMEOUT, SOLVE_TIMEOUT * load_factor(int(time.monotonic() // 60)))


def kill_grace() -> float:
    """How long past its budget the probe's run may go before it is killed: the host's ``KILL_GRACE`` twice over,
    stretched by the share of a core this machine gives now (a yardstick measured at each probe, never a
    constant): a solver that returns at its budget gets the CPU time to say so, however busy the machine; one
    that ignores its budget is killed all the same (at most ``MAX_KILL_GRACE`` later)."""
    return min(MAX_KILL_GRACE, max(KILL_GRACE, 2 * KILL_GRACE / cpu_share()))


def patient_executor() -> LocalExecutor:
    """One worker that kills a run ``kill_grace()`` past its limit, measured now: for a test that holds a
    solver to stopping itself at its budget (``"killed after" not in result.reason``) on a machine of any load.
    Use it as a context manager, and pass it as ``executor=``."""
    return LocalExecutor(1, kill_grace=kill_grace())


def check_budget_honoured(variant: Variant) -> None:
    """The solver returns by itself once its budget is spent; or, when it declares it never does
    (``stops_at_budget = False``), the host stops it at the limit and the next run still works."""
    problem = budget_probe(variant)
    n = problem.n
    with patient_executor() as executor:
        grace = executor.kill_grace
        result = api.solve(variant, problem, limits=Limits(timeout=BUDGET_PROBE_TIMEOUT), executor=executor)
    if variant.solver.stops_itself(variant.options) is False:
        assert result.status != "error" and result.status != "invalid", f"n={n}: {result.status}: {result.reason}"
        small = taken(variant, [make_problem(n) for n in (8, 6, 5, 4)], "every board from 4 to 8")[0]
        after = run(variant, small, Limits(timeout=solve_limit()))
        assert after.status not in ("error", "invalid"), (
            f"after the host stopped it at its limit, the next run failed: {after.status}: {after.reason}"
        )
        return
    # Only the solver's own return, before the kill a measured grace past the budget, keeps this out of
    # the reason: a statement about the plugin, not about how busy this machine is today.
    assert "killed after" not in (result.reason or ""), (
        f"n={n}: ignored a {BUDGET_PROBE_TIMEOUT} s budget and was killed {grace:.2g} s past it (a library with "
        "no time limit: wrap its call in budget.interrupting(), or declare stops_at_budget = False; see the "
        "author's guide)"
    )
    assert result.status not in ("invalid", "error"), f"n={n}: {result.status}: {result.reason}"


def check_fixed_queens(variant: Variant) -> None:
    if not variant.solver.supports_fixed:
        raise CheckSkipped("it does not take fixed queens (supports_fixed = False; the host refuses them for it)")
    (problem,) = taken(variant, [make_problem(8, FIXED)], "the 8x8 completion instance")
    result = run(variant, problem, Limits(timeout=solve_limit(), seed=3))
    assert result.status not in ("invalid", "error"), f"{result.status}: {result.reason}"
    if variant.complete:
        assert result.status == "solved", f"a complete solver answered {result.status} on a solvable completion"


# A satisfiable 8x8 Blocked n-Queens instance: every third square is blocked, except
# those of one known solution.
KNOWN_SOLUTION = (0, 4, 7, 5, 2, 6, 1, 3)
BLOCKED_SATISFIABLE = [(c, r) for c in range(8) for r in range(8) if (c + r) % 3 == 0 and r != KNOWN_SOLUTION[c]]
# CSPLib's diag-10-4-1.param with its first 7 diagonals excluded: no solution (published
# by the authors' shiftqueens solver; every complete solver here agrees).
EXCLUDED_UNSATISFIABLE = ((4, 1), (2, 1), (14, 0), (8, 1), (8, 0), (7, 0), (3, 1))


# A column with every square blocked: impossible on its face, and an empty domain, which some
# libraries reject as a malformed model (CP-SAT did, on an ASP competition instance).
EMPTY_COLUMN = [(3, row) for row in range(8)]


def check_blocked_squares(variant: Variant) -> None:
    """Blocked squares honoured where supported (never a queen on one; complete solvers decide
    the three instances, one with a column whose squares are all blocked). Where not supported,
    the check does not apply: skipped, once the host is seen to refuse them with one line."""
    from nqueens_plugins.formats.instances import diagonal_squares

    satisfiable = make_problem(8, blocked=BLOCKED_SATISFIABLE)
    unsatisfiable = make_problem(10, blocked=diagonal_squares(10, EXCLUDED_UNSATISFIABLE))
    empty_column = make_problem(8, blocked=EMPTY_COLUMN)
    if not getattr(variant.solver, "supports_blocked", False):
        try:
            check_runnable(variant, satisfiable)
        except BadInput as exc:
            assert "blocked" in str(exc), f"refused blocked squares with an unclear message: {exc}"
            raise CheckSkipped(
                "it does not take blocked squares (supports_blocked = False; the host refuses them for it)"
            ) from None
        raise AssertionError("does not support blocked squares, yet the host did not refuse them")
    asked = taken(variant, [satisfiable, unsatisfiable, empty_column], "the blocked instances (n = 8 and 10)")
    for problem, solvable in ((satisfiable, True), (unsatisfiable, False), (empty_column, False)):
        if problem not in asked:
            continue
        result = run(variant, problem, Limits(timeout=solve_limit(), seed=5))
        assert result.status not in ("invalid", "error"), f"n={problem.n} blocked: {result.status}: {result.reason}"
        if variant.complete:
            wanted = "solved" if solvable else "no-solution"
            assert result.status == wanted, (
                f"n={problem.n} blocked: a complete solver answered {result.status}, not {wanted}"
            )
        else:
            assert result.status != "no-solution", "an incomplete solver claimed no-solution"


# Three 8x8 instances no board answers, each impossible in a way a model that copies what it is given
# would miss; the verifier knows each on its face (core/verify.instance_contradiction). Every one can be
# posed: a Problem takes attacking fixed queens and a fixed queen on a blocked square (as CSPLib's files
# may hold them), and refuses only what is off the board.
ATTACKING_FIXED = {0: 0, 1: 1}  # two queens on one diagonal: `--fixed 0:0,1:1`, which a plugin once copied
FULL_ROW = [(column, 5) for column in range(8)]  # no column may use row 5, so 8 queens share 7 rows
FIXED_ON_BLOCKED = ({5: 6}, [(5, 6)])  # KNOWN_SOLUTION's own queen in column 5, its square blocked


def impossible_instances(variant: Variant) -> list[tuple[str, Problem]]:
    """(what makes it impossible, the instance) for each impossible instance the solver takes:
    fixed queens for ``supports_fixed``, blocked squares for ``supports_blocked``, both for the third."""
    fixed = getattr(variant.solver, "supports_fixed", False)
    blocked = getattr(variant.solver, "supports_blocked", False)
    if not (fixed or blocked):
        raise CheckSkipped("it takes neither fixed queens nor blocked squares, so it cannot be asked the impossible")
    posed = []
    if fixed:
        posed.append(("fixed queens 0:0 and 1:1 attack each other", make_problem(8, fixed=ATTACKING_FIXED)))
    if blocked:
        posed.append(("every square of row 5 is blocked", make_problem(8, blocked=FULL_ROW)))
    if fixed and blocked:
        queens, squares = FIXED_ON_BLOCKED
        posed.append(("fixed queen 5:6 stands on a blocked square", make_problem(8, fixed=queens, blocked=squares)))
    kept = taken(variant, [problem for _, problem in posed], "the impossible 8x8 instances")
    return [(why, problem) for why, problem in posed if problem in kept]


def check_impossible_instances(variant: Variant) -> None:
    """Asked an instance with no solution on its face, a solver answers that none exists (a complete one
    must; an incomplete one may give up or run out of time, honestly), and never claims a board: a plugin
    that copies its fixed queens, or its blocked squares, without checking them fails here, not later in a
    user's run. A solver that counts counts 0. Every failing instance is named on the one line."""
    broken = []
    for why, problem in impossible_instances(variant):
        result = run(variant, problem, Limits(timeout=solve_limit(), seed=11))
        wanted = ("no-solution",) if variant.complete else ("gave-up", "timed-out")
        if result.queens is not None or result.status in ("solved", "invalid"):
            broken.append(f"{why}, yet it answered a board ({result.status}: {result.reason})")
        elif result.status not in wanted:
            kind = "a complete" if variant.complete else "an incomplete"
            broken.append(
                f"{why}: {kind} solver answered {result.status}, not {' or '.join(wanted)}"
                + (f" ({result.reason})" if result.reason else "")
            )
        if variant.counts and refusal_to_count(variant, problem) is None:
            counted = count(variant, problem, Limits(timeout=solve_limit()))
            if counted.solutions != 0 or counted.verified is not True:
                broken.append(f"{why}, yet it counted {counted.solutions} ({counted.status}: {counted.reason})")
    assert not broken, "no solution exists: " + "; ".join(broken)


def refusal_to_count(variant: Variant, problem: Problem) -> str | None:
    """Why the host would refuse to count ``problem`` with ``variant``, or None."""
    try:
        check_countable(variant, problem, unique=False)
    except BadInput as refused:
        return str(refused)
    return None


def check_certificates(variant: Variant) -> None:
    """A solver that says it certifies (``Solver.certifies``, ``can_certify``) proves each no-solution it claims
    with a certificate the host's checker accepts (n = 2 and 3, and the blocked and fixed instances it takes
    that have none), and still solves the ones that have a solution. Its proofs are checked as a user's
    would be: ``Limits(certify="always")``."""
    if not variant.solver.can_certify(dict(variant.options)):
        raise CheckSkipped("it does not certify its no-solution claims (certifies = False)")
    from nqueens_plugins.formats.instances import diagonal_squares

    none_exists = [make_problem(2), make_problem(3)]
    if variant.solver.supports_blocked:
        none_exists.append(make_problem(10, blocked=diagonal_squares(10, EXCLUDED_UNSATISFIABLE)))
    if variant.solver.supports_fixed:
        none_exists.append(make_problem(4, fixed={0: 0}))  # neither of n = 4's two solutions has it
    limits = Limits(timeout=solve_limit(), seed=3, certify="always")
    for problem in taken(variant, none_exists, "the instances without a solution"):
        result = run(variant, problem, limits)
        assert result.status == "no-solution" and result.certificate == "certified", (
            f"{problem.label}: answered {result.status} with certificate {result.certificate}: {result.reason}"
        )
    for problem in taken(variant, [make_problem(6)], "n = 6"):
        result = run(variant, problem, limits)
        assert result.status == "solved" and result.verified is True, f"n=6 certified: {result.status}"


CHECKS: dict[str, Callable[[Variant], None]] = {
    "registration": check_registration,
    "solves-small-boards": check_solves_small_boards,
    "no-solution-when-complete": check_no_solution_when_complete,
    "counts": check_counts,
    "same-seed-same-answer": check_same_seed_same_answer,
    "budget-honoured": check_budget_honoured,
    "fixed-queens": check_fixed_queens,
    "blocked-squares": check_blocked_squares,
    "impossible-instances": check_impossible_instances,
    "certificates": check_certificates,
}


def contract_report(spec: str) -> dict[str, str]:
    """Run every check; {check name: "passed", "skipped: why" or "failed: what"}."""
    variant = variant_of(spec)
    report = {}
    for name, check in CHECKS.items():
        try:
            check(variant)
        except CheckSkipped as skipped:
            report[name] = f"skipped: {skipped}"
        except Exception as exc:  # noqa: BLE001 - report every failing check, not just the first
            report[name] = f"failed: {type(exc).__name__}: {exc}"
        else:
            report[name] = "passed"
    return report


def contract_failures(spec: str) -> dict[str, str]:
    """Run every check; {check name: what failed}. Empty means the contract is kept."""
    return {
        name: verdict.removeprefix("failed: ")
        for name, verdict in contract_report(spec).items()
        if verdict.startswith("failed: ")
    }


def assert_contract(spec: str) -> dict[str, str]:
    """Raise AssertionError listing every broken promise of ``spec`` (a solver name or variant).

    Returns the checks skipped, {name: why} (each also a ``ContractCheckSkipped`` warning, which
    pytest lists in its summary): a solver that refuses every board a check needs is not failed
    by it, and not said to pass it either.
    """
    report = contract_report(spec)
    failures = {name: verdict for name, verdict in report.items() if verdict.startswith("failed: ")}
    if failures:
        lines = "\n".join(f"  {name}: {verdict.removeprefix('failed: ')}" for name, verdict in failures.items())
        raise AssertionError(f"{spec} breaks the nqueens solver contract ({CONTRACT_VERSION}):\n{lines}")
    skipped = {name: verdict.removeprefix("skipped: ") for name, verdict in report.items() if verdict != "passed"}
    for name, why in skipped.items():
        warnings.warn(f"{spec}: contract check {name!r} skipped: {why}", ContractCheckSkipped, stacklevel=2)
    return skipped


# --- pytest plugin -------------------------------------------------------------
# pytest is no dependency of the package (assert_contract runs in a notebook without it): the
# plugin imports it only once pytest calls a hook, and marks its hooks with pluggy's marker, as
# pytest.hookimpl is.

CONTRACT_NODE = "nqueens-contract"
for_pytest = pluggy.HookimplMarker("pytest")  # what pytest.hookimpl is


def pytest_report_header(config: pytest.Config) -> str:
    """Which plugin contract the checks hold solvers to, at the top of pytest's output."""
    return f"nqueens-plugins {package_version()}, plugin contract {CONTRACT_VERSION} (nq.CONTRACT_VERSION)"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("nqueens", "nqueens solver contract")
    group.addoption(
        "--nqueens-solver",
        action="append",
        default=[],
        metavar="NAME",
        help="check this solver (NAME or NAME[key=value,...]) against the contract: "
        "one test per check, nqueens-contract::NAME::CHECK",
    )


@for_pytest(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """The session's own collection, with the contract's node beside what it found.

    Added to the session's report rather than to the item list afterwards, so that pytest
    collects the checks as it collects any test: counted in "collected N items", chosen by -k,
    listed by --collect-only, each with an id of its own, nqueens-contract::SOLVER::CHECK.
    """
    import pytest

    report = yield
    specs = list(dict.fromkeys(collector.config.getoption("nqueens_solver")))  # each solver once
    if specs and report.passed and isinstance(collector, pytest.Session):
        contract = contract_collector().from_parent(collector, name=CONTRACT_NODE, nodeid=CONTRACT_NODE, specs=specs)
        report.result.append(contract)
    return report


@functools.cache
def contract_collector() -> type[pytest.Collector]:
    """The class of the ``nqueens-contract`` node, made on first use: its classes subclass pytest's."""
    import pytest

    class ContractCheck(pytest.Item):
        """One check for one solver: passed, failed naming the broken promise, or skipped saying why."""

        def __init__(self, *, variant: Variant, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.variant = variant

        def runtest(self) -> None:
            try:
                CHECKS[self.name](self.variant)
            except CheckSkipped as skipped:
                pytest.skip(str(skipped))

        def reportinfo(self) -> tuple[Path, int, str]:
            """The id's own first part as the place (not a file: ``-vv`` adds no ``<- path``), and the
            id as the name that heads a failure."""
            return self.session.path / CONTRACT_NODE, 0, self.nodeid

        def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
            """A broken promise is its reason, which says what the solver did; the kit's own code
            would only hide it. Anything else (the kit or the host breaking) keeps its traceback."""
            if isinstance(excinfo.value, (AssertionError, PluginError)):
                return str(excinfo.value)
            return super().repr_failure(excinfo, style)

    class SolverContract(pytest.Collector):
        """The checks of one ``--nqueens-solver`` spec; a spec the host cannot resolve is one line."""

        def collect(self) -> list[pytest.Item | pytest.Collector]:
            try:
                variant = variant_of(self.name)
            except (BadInput, PluginError) as exc:
                raise self.CollectError(f"--nqueens-solver {self.name}: {exc}") from None
            return [ContractCheck.from_parent(self, name=check, variant=variant) for check in CHECKS]

    class Contract(pytest.Collector):
        """``nqueens-contract``: one node per solver named with ``--nqueens-solver``."""

        def __init__(self, *, specs: list[str], **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.specs = specs

        def collect(self) -> list[pytest.Item | pytest.Collector]:
            return [SolverContract.from_parent(self, name=spec) for spec in self.specs]

    return Contract
