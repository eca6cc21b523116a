"""nqueens-choco: the contract kit, plus what is particular to the Choco adapter."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import nqueens_plugins as nq
from nqueens_plugins import BadInput, Budget, Problem, Requirement, board_error
from nqueens_plugins.testing import assert_contract

DATA = Path(nq.__file__).parent / "data"
BLOCKED_28 = DATA / "blockedqueens.28.1449787894.param"  # satisfiable
HARD_56 = DATA / "blockedqueens.56.1860451109.param"  # unsatisfiable, and Choco needs minutes for it
# CSPLib's diag-10-4-1.param with its first 7 diagonals excluded: no solution (published).
DEFAULTS = {"consistency": "AC", "search": "activity", "restarts": "none", "lcg": False}
EXCLUDED_7 = nq.problem_of(instance=f"{DATA / 'diag-10-4-1.param'}@7").blocked


@pytest.mark.parametrize(
    "spec",
    [
        "choco",
        "choco[search=dom-wdeg]",
        "choco[consistency=BC]",
        "choco[lcg=true]",
        "choco[search=dom-wdeg,restarts=luby]",
    ],
)
def test_keeps_the_solver_contract(spec: str) -> None:
    # every check ran and passed but certificates: it writes none
    assert set(assert_contract(spec)) == {"certificates"}


def test_activity_search_counts_with_min_dom() -> None:
    """Activity-based search restarts without nogoods; enumerating with it would meet solutions twice."""
    from nqueens_choco.choco import Choco, ChocoModel

    built = ChocoModel(Problem(10), DEFAULTS | {"search": "activity"}, Budget(20), 0)
    try:
        found, solutions = built.first_solve(Budget(20)), 0
        while found:
            solutions, found = solutions + 1, built.next_solve()
        assert solutions > 724 and built.counters()["restarts"] > 0  # what a count with it would say
    finally:
        built.close()
    counted = Choco().count(Problem(10), Budget(20), DEFAULTS | {"search": "activity"}, False)
    assert (counted.solutions, counted.counters["restarts"]) == (724, 0)


def test_registered_through_its_entry_point_only() -> None:
    registration = next(r for r in nq.solvers() if r.solver.name == "choco")
    assert (registration.source.plugin, registration.source.distribution) == ("choco", "nqueens-choco")
    assert registration.solver.family == "CP" and registration.solver.exports == ("dzn",)


def test_listing_plugins_does_not_import_pychoco() -> None:
    code = "import sys; import nqueens_plugins as nq; nq.solvers(); print('pychoco' in sys.modules)"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
        == "False"
    )


def test_counts_completions_and_blocked_squares_like_the_bitboard() -> None:
    fixed = {0: 1, 2: 5}
    blocked = [(c, r) for c in range(9) for r in range(9) if (3 * c + r) % 5 == 0]
    for kwargs in ({"n": 8, "fixed": fixed}, {"n": 9, "blocked": blocked}, {"n": 10, "fixed": {4: 0}}):
        expected = nq.count("bitboard", **kwargs).solutions
        assert expected
        for spec in ("choco", "choco[search=dom-wdeg,restarts=geometric]", "choco[lcg=true,search=pick-on-dom]"):
            assert nq.count(spec, **kwargs).solutions == expected, (spec, kwargs)
    result = nq.solve("choco", 8, fixed=fixed)
    assert result.verified and result.queens[0] == 1 and result.queens[2] == 5


def test_blocked_instances_agree_with_their_published_answers() -> None:
    problem = nq.problem_of(instance=str(BLOCKED_28))
    result = nq.solve("choco", instance=str(BLOCKED_28), limits=nq.Limits(timeout=20))
    assert result.status == ("solved" if nq.published_answer(problem.source, problem.n) else "no-solution")
    assert result.verified and all((c, r) not in problem.blocked for c, r in enumerate(result.queens))
    excluded = nq.solve("choco", instance="diag-10-4-1.param@7", limits=nq.Limits(timeout=20))
    assert excluded.status == "no-solution" and excluded.verified  # held against the published answer


def test_counters_come_from_the_statistics() -> None:
    result = nq.solve("choco", 30, limits=nq.Limits(seed=4))
    assert result.solved and result.moves == 30
    assert result.iterations == result.counters["nodes"] > 0
    assert {"backtracks", "fails", "restarts", "choco_seconds"} <= set(result.counters)
    count = nq.count("choco", 6)
    assert count.solutions == count.counters["solutions"] == 4 and count.iterations == count.counters["nodes"]


def test_an_exhausted_budget_is_timed_out_never_no_solution() -> None:
    assert nq.solve("choco", instance=str(HARD_56), limits=nq.Limits(timeout=0.3)).status == "timed-out"
    capped = nq.solve("choco", instance=str(HARD_56), limits=nq.Limits(max_iterations=50))
    assert capped.status == "timed-out" and capped.counters["nodes"] == 50  # Choco's node counter stopped it
    assert nq.count("choco", 12, limits=nq.Limits(timeout=0.05)).status == "timed-out"
    # The criteria of the first call stay on the solver for the whole enumeration.
    from nqueens_choco.choco import Choco

    partial = Choco().count(Problem(10), Budget(iterations=100), DEFAULTS, False)
    assert partial.status == "timed-out" and partial.counters["nodes"] == 100 and 0 < partial.solutions < 724


def test_random_search_follows_the_seed() -> None:
    boards = {tuple(nq.solve("choco[search=random]", 30, limits=nq.Limits(seed=seed)).queens) for seed in range(3)}
    assert len(boards) > 1
    again = [list(nq.solve("choco[search=random]", 30, limits=nq.Limits(seed=1)).queens) for _ in range(2)]
    assert again[0] == again[1]


def read_dzn(text: str) -> Problem:
    """The problem a dzn file of this plugin describes, read back from its text alone."""

    def value(name: str) -> str:
        match = re.search(rf"^{name} = (.*);$", text, re.MULTILINE)
        assert match is not None, f"no {name} in {text!r}"
        return match.group(1)

    n = int(value("n"))
    fixed_rows = [int(v) for v in value("fixed").strip("[]").split(",")]
    sets = re.findall(r"\{([^}]*)\}", value("blocked"))
    assert len(fixed_rows) == len(sets) == n
    fixed = {c: r for c, r in enumerate(fixed_rows) if r >= 0}
    blocked = {(c, int(r)) for c, rows in enumerate(sets) for r in rows.split(",") if r.strip()}
    return Problem(n, fixed, frozenset(blocked))


def raw_choco(problem: Problem) -> list[int] | None:
    """The model of nqueens.mzn written directly with pychoco, solved with the adapter's default options
    (AC, activity-based search)."""
    from pychoco import Model

    n = problem.n
    model = Model()
    queens = []
    for c in range(n):
        rows = [r for r in range(n) if (c, r) not in problem.blocked and problem.fixed.get(c, r) == r]
        queens.append(model.intvar(rows, name=f"q{c}"))
    model.all_different(queens, "AC").post()
    model.all_different([model.int_offset_view(q, c) for c, q in enumerate(queens)], "AC").post()
    model.all_different([model.int_offset_view(q, -c) for c, q in enumerate(queens)], "AC").post()
    solver = model.get_solver()
    solver.set_activity_based_search(*queens)
    return [q.get_value() for q in queens] if solver.solve() else None


def test_export_is_what_choco_solves() -> None:
    from nqueens_choco.choco import Choco

    cases = [
        nq.problem_of(instance=str(BLOCKED_28)),
        Problem(3),
        Problem(8, {0: 2, 3: 1}),
        Problem(10, blocked=EXCLUDED_7),
    ]
    for problem in cases:
        text = Choco().export(problem, {}, "dzn")
        assert read_dzn(text) == problem
        run = nq.solve("choco", problem, limits=nq.Limits(timeout=20))
        raw = raw_choco(read_dzn(text))
        assert run.status == ("solved" if raw is not None else "no-solution")
        assert raw is None or [int(q) for q in run.queens] == raw


def test_exported_data_runs_in_minizinc(tmp_path: Path) -> None:
    binary = shutil.which("minizinc")
    if binary is None:
        pytest.skip("no minizinc binary on PATH (apt-get install minizinc; .ci/run does)")
    from nqueens_choco.choco import MODEL_FILE, Choco

    for problem, satisfiable in ((Problem(8, {0: 2, 3: 1}), True), (Problem(10, blocked=EXCLUDED_7), False)):
        data = tmp_path / "queens.dzn"
        data.write_text(Choco().export(problem, {}, "dzn"))
        out = subprocess.run([binary, str(MODEL_FILE), str(data)], check=False, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        if not satisfiable:
            assert "UNSATISFIABLE" in out.stdout
            continue
        printed = re.search(r"q = \[(.*)\];", out.stdout)
        assert printed is not None, out.stdout
        queens = [int(v) for v in printed.group(1).split(",")]
        assert board_error(problem.n, queens, dict(problem.fixed), problem.blocked) is None


@pytest.mark.parametrize(
    "spec, n, words",
    [
        ("choco[consistency=GAC]", 8, "one of AC, BC"),
        ("choco[search=smart]", 8, "one of default"),
        ("choco[restarts=always]", 8, "one of none, luby"),
        ("choco[lcg=maybe]", 8, "true or false"),
        ("choco[workers=2]", 8, "no option 'workers'"),
        ("choco", 1001, "up to 1,000"),
        ("choco[consistency=BC]", 4001, "up to 4,000"),
    ],
)
def test_bad_options(spec: str, n: int, words: str) -> None:
    with pytest.raises(BadInput, match=words):
        nq.solve(spec, n)


def test_export_refuses_other_formats() -> None:
    from nqueens_choco.choco import Choco

    with pytest.raises(BadInput, match="dzn"):
        Choco().export(Problem(4), {}, "mps")


def test_missing_library_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Requirement, "missing", lambda self: True)
    with pytest.raises(BadInput, match="pip install pychoco"):
        nq.solve("choco", 8)


LEAK_PROBE = """
import resource, random
from nqueens_plugins import Budget, Problem
from nqueens_choco.choco import Choco

def rss_mib():
    return int(open("/proc/self/statm").read().split()[1]) * resource.getpagesize() / 2**20

solver, options = Choco(), {"consistency": "AC", "search": "activity", "restarts": "none", "lcg": False}
solver.solve(Problem(150), random.Random(0), Budget(10), options)
before = rss_mib()
for _ in range(300):
    solver.solve(Problem(150, blocked={(1, 1)}), random.Random(0), Budget(10, iterations=1), options)
print(rss_mib() - before)
"""


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads /proc/self/statm")
def test_repeated_models_are_freed() -> None:
    """Every raw handle is freed: one left behind pins its whole model in the native image (about 1.3 MB
    at n = 150, so 300 runs would grow by some 400 MB; the Java heap itself settles near 50 MB)."""
    out = subprocess.run([sys.executable, "-c", LEAK_PROBE], capture_output=True, text=True, check=True).stdout
    assert float(out) < 150, f"{out} MiB more after 300 models"


FORK_PROBE = """
import os, random
from nqueens_plugins import Budget, Problem
from nqueens_choco.choco import Choco

solver, options = Choco(), {"consistency": "AC", "search": "activity", "restarts": "none", "lcg": False}
assert solver.solve(Problem(12), random.Random(0), Budget(10), options).status == "solved"
pid = os.fork()
if pid == 0:
    outcome = solver.solve(Problem(40), random.Random(0), Budget(10), options)
    os._exit(0 if outcome.status == "solved" else 3)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status), solver.solve(Problem(20), random.Random(0), Budget(10), options).status)
"""


def test_native_image_survives_a_fork() -> None:
    """A process that forks after pychoco started its native image can solve on both sides."""
    out = subprocess.run([sys.executable, "-c", FORK_PROBE], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.split() == ["0", "solved"]
