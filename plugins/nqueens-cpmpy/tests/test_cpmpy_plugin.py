"""nqueens-cpmpy: the contract kit on every backend that installs, plus what is particular to CPMpy."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import nqueens_plugins as nq
from nqueens_plugins import BadInput, Budget, Problem, Status

DATA = Path(nq.__file__).parent / "data"
HARD_56 = DATA / "blockedqueens.56.1860451109.param"  # published: unsatisfiable, seconds or more for most solvers
EXCLUDED_7 = f"{DATA / 'diag-10-4-1.param'}@7"  # published: no solution


def needs(spec: str) -> None:
    """Skip, naming the refusal, where the host refuses ``spec`` here (a backend missing, say)."""
    try:
        nq.solve(spec, 1)
    except BadInput as refused:
        pytest.skip(str(refused))


def test_registered_through_its_entry_point_only() -> None:
    registration = next(r for r in nq.solvers() if r.solver.name == "cpmpy")
    assert (registration.source.plugin, registration.source.distribution) == ("cpmpy", "nqueens-cpmpy")
    solver = registration.solver
    assert solver.complete and solver.supports_fixed and solver.supports_blocked and not solver.certifies


def test_listing_plugins_imports_no_cpmpy_nor_any_backend() -> None:
    code = (
        "import sys; import nqueens_plugins as nq; nq.solvers(); "
        "print('nqueens_cpmpy' in sys.modules, any(m in sys.modules for m in ('cpmpy', 'exact', 'pumpkin_solver')))"
    )
    listed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert listed.stdout.split() == ["True", "False"]


@pytest.mark.parametrize("model", ["int", "bool"])
def test_both_models_count_the_variants_like_the_bitboard(model: str) -> None:
    blocked = [(c, r) for c in range(8) for r in range(8) if (3 * c + r) % 7 == 0]
    for kwargs in ({"n": 8, "fixed": {0: 1, 2: 5}}, {"n": 8, "blocked": blocked}):
        expected = nq.count("bitboard", **kwargs).solutions
        assert expected
        counted = nq.count(f"cpmpy[model={model}]", **kwargs)
        assert counted.solutions == expected and counted.counters["solutions"] == expected, kwargs
    plain = nq.count(f"cpmpy[model={model}]", 8)
    assert plain.solutions == 92 and plain.verified  # against OEIS
    result = nq.solve(f"cpmpy[model={model}]", 8, fixed={0: 1, 2: 5})
    assert result.verified and result.queens[0] == 1 and result.queens[2] == 5


def test_excluded_diagonals_get_their_published_answer_and_counters() -> None:
    result = nq.solve("cpmpy", instance=EXCLUDED_7, limits=nq.Limits(timeout=30))
    assert result.status == "no-solution" and result.verified  # held against the published answer
    solved = nq.solve("cpmpy", 30, limits=nq.Limits(seed=3))
    assert solved.solved and solved.iterations == solved.counters["branches"]  # OR-Tools: one branch each
    assert solved.counters["transform_seconds"] > 0 and solved.moves == 30


@pytest.mark.parametrize("backend", ["ortools", "exact", "pumpkin"])
def test_a_hard_instance_is_timed_out_honestly(backend: str) -> None:
    """Past its budget a backend says timed-out, by itself (its own time parameter), never no-solution,
    and before the host's kill (which would say "killed after" in the reason)."""
    needs(f"cpmpy[backend={backend}]")
    result = nq.solve(f"cpmpy[backend={backend}]", instance=str(HARD_56), limits=nq.Limits(timeout=0.5))
    assert result.status == "timed-out", (result.status, result.reason)
    assert "killed after" not in (result.reason or ""), result.reason


def test_choco_stopped_by_its_limit_is_timed_out_even_when_cpmpy_says_unsatisfiable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """CPMpy 1.1.1's Choco interface calls a search "UNSATISFIABLE" when it found nothing in less time than the
    limit, by its own clock. Choco stopping at its limit a hair before that clock reads it made a false "no
    solution" in the families benchmark (Blocked n = 50, satisfiable). Here that race is made certain: the
    status CPMpy gives is forced to UNSATISFIABLE after a search Choco stopped, and the run is still timed-out,
    because Choco's own search state (STOPPED) is asked."""
    needs("cpmpy[backend=choco]")
    from cpmpy.solvers.choco import CPM_choco
    from cpmpy.solvers.solver_interface import ExitStatus

    from nqueens_cpmpy.adapter import Cpmpy

    real = CPM_choco.solve

    def racing(self: CPM_choco, *args: object, **kwargs: object) -> bool:
        found = real(self, *args, **kwargs)
        stopped = self.chc_solver.get_search_state() == "STOPPED"
        if not found and stopped:
            self.cpm_status.exitstatus = ExitStatus.UNSATISFIABLE  # what the clock race gives
        races.append(stopped)
        return found

    races: list[bool] = []
    monkeypatch.setattr(CPM_choco, "solve", racing)
    problem = nq.problem_of(instance=str(HARD_56))
    for seconds in (2.0, 4.0, 8.0, 16.0):  # Choco's JVM and CPMpy's posting first; a busy machine takes longer
        outcome = Cpmpy().solve(problem, __import__("random").Random(0), Budget(seconds), {"backend": "choco"})
        if races and races[-1]:
            break
    assert races and races[-1], f"Choco was never stopped by its limit ({races}): the instance is too easy here"
    assert outcome.status == Status.TIMED_OUT, outcome


def test_a_budget_spent_in_the_transformation_is_timed_out() -> None:
    from nqueens_cpmpy.adapter import Cpmpy

    options = {"backend": "ortools", "model": "bool"}
    outcome = Cpmpy().solve(Problem(150), __import__("random").Random(0), Budget(0.01), options)
    assert outcome.status == Status.TIMED_OUT and outcome.queens is None


def test_a_count_stopped_by_its_budget_is_a_lower_bound() -> None:
    from nqueens_cpmpy.adapter import Cpmpy

    partial = Cpmpy().count(Problem(12), Budget(0.3), {"backend": "ortools", "model": "int"}, False)
    assert partial.status == Status.TIMED_OUT and partial.solutions < 14_200


def descendants(pid: int) -> list[int]:
    """Live processes below ``pid``, as /proc shows them."""
    found, frontier = [], [pid]
    while frontier:
        below = []
        for parent in frontier:
            for task in Path(f"/proc/{parent}/task").glob("*"):
                try:
                    below.extend(int(child) for child in (task / "children").read_text().split())
                except OSError:
                    continue
        below = [child for child in below if alive(child)]
        found.extend(below)
        frontier = below
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc")
@pytest.mark.parametrize("backend", ["minizinc", "exact"])
def test_killing_the_command_mid_search_leaves_no_process(backend: str, tmp_path: Path) -> None:
    """``nqueens solve`` killed while the backend searches (MiniZinc: in processes of its own, below CPMpy's
    worker; Exact: inside the worker): nothing it started outlives it."""
    spec = f"cpmpy[backend={backend}]"
    needs(spec)
    command = subprocess.Popen(
        [sys.executable, "-m", "nqueens_plugins", "solve", "-s", spec, "--instance", str(HARD_56), "--timeout", "60"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ, TMPDIR=str(tmp_path)),
    )
    started: list[int] = []
    try:
        deadline = time.monotonic() + 60  # a wait, not a speed bound: it ends as soon as the search runs
        searching = False
        while time.monotonic() < deadline and not searching:
            started = sorted(set(started) | set(descendants(command.pid)))
            # Searching: a MiniZinc process below the worker, or the worker busy for a second of CPU.
            searching = any(Path(f"/proc/{pid}/exe").resolve().name.startswith(("minizinc", "fzn-")) for pid in started)
            searching = searching or (backend != "minizinc" and any(cpu_seconds(pid) > 1.0 for pid in started))
            time.sleep(0.1)
        assert searching, f"{backend} never started searching"
        command.send_signal(signal.SIGKILL)
        command.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in started) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [pid for pid in started if alive(pid)] == []
    finally:  # whatever happened above, this test leaves nothing running
        command.kill()
        command.wait()
        for pid in started:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_missing_backend_is_one_line_naming_its_pip_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """A backend's package missing (None in sys.modules: the import machinery's "not there"): refused
    before any run, with the pip install that brings it; the CLI says the same line and exits 2."""
    monkeypatch.setitem(sys.modules, "exact", None)
    with pytest.raises(BadInput, match=r"^cpmpy\[backend=exact\] needs exact: pip install 'nqueens-cpmpy\[exact\]'"):
        nq.solve("cpmpy[backend=exact]", 8)
    code = (
        "import runpy, sys; sys.modules['exact'] = None; "
        "sys.argv = ['nqueens', 'solve', '-s', 'cpmpy[backend=exact]', '-n', '8']; "
        "runpy.run_module('nqueens_plugins', run_name='__main__')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 2, out.stderr
    assert "pip install" in out.stderr and "Traceback" not in out.stderr and len(out.stderr.splitlines()) == 1


def test_cpmpy_itself_missing_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cpmpy", None)
    with pytest.raises(BadInput, match="pip install cpmpy"):
        nq.solve("cpmpy", 8)


@pytest.mark.parametrize(
    "spec, n, words",
    [
        ("cpmpy[backend=gecode]", 8, "one of ortools, choco"),
        ("cpmpy[model=mip]", 8, "one of auto, int, bool, clauses"),
        ("cpmpy[backend=pysdd,model=int]", 8, "Boolean formulas only"),
        ("cpmpy[model=bool]", 201, "up to 200 .* model=int takes n up to 1,000"),
        ("cpmpy", 1001, "up to 1,000"),
    ],
)
def test_bad_options_and_boards_too_large(spec: str, n: int, words: str) -> None:
    with pytest.raises(BadInput, match=words):
        nq.solve(spec, n)


@pytest.mark.parametrize("backend, model, largest", [("gurobi", "int", 12), ("cplex", "int", 8), ("cplex", "bool", 31)])
def test_licence_limited_backends_take_their_largest_board_and_refuse_the_next(
    backend: str, model: str, largest: int
) -> None:
    spec = f"cpmpy[backend={backend},model={model}]"
    needs(spec)
    assert nq.solve(spec, largest, limits=nq.Limits(timeout=60)).verified
    with pytest.raises(BadInput, match=rf"accepts n up to {largest} \(.*size-limited|Community Edition"):
        nq.solve(spec, largest + 1)


def test_mip_backends_do_not_count() -> None:
    """HiGHS's solveAll through CPMpy found 11 of the 92 solutions of n = 8: a solution pool is no
    enumeration, so the MIP backends are not counting solvers here."""
    from nqueens_cpmpy.adapter import Cpmpy

    for backend in ("highs", "gurobi", "cplex"):
        assert not Cpmpy().counts({"backend": backend, "model": "auto"})
    with pytest.raises(BadInput, match="does not count|cannot count"):
        nq.count("cpmpy[backend=highs]", 6)


def test_the_minizinc_minimum_is_cpmpys() -> None:
    from cpmpy.solvers.minizinc import CPM_minizinc

    from nqueens_cpmpy.adapter import MINIZINC_NEEDED

    assert tuple(CPM_minizinc.required_version) == MINIZINC_NEEDED


# --- a user's own CPMpy model -------------------------------------------------------------------


def queens_model(problem: Problem, diagonals: bool = True) -> tuple[object, object]:
    import cpmpy as cp

    n = problem.n
    q = cp.intvar(0, n - 1, shape=(n,), name="q")  # (n,): shape=1 would give one variable, not an array
    model = cp.Model(cp.AllDifferent(q))
    if diagonals:
        model += [cp.AllDifferent([q[c] + c for c in range(n)]), cp.AllDifferent([q[c] - c for c in range(n)])]
    model += [q[c] == r for c, r in problem.fixed.items()]
    model += [q[c] != r for c, r in problem.blocked]
    return model, q


def rooks_model(problem: Problem) -> tuple[object, object]:
    return queens_model(problem, diagonals=False)  # a model that forgets the diagonals


def test_a_users_model_is_solved_verified_counted_and_raced_like_any_solver() -> None:
    with nq.cpmpy_solver("my-queens", queens_model):
        solved = nq.solve("my-queens[backend=choco]", 8, fixed={0: 2})
        assert solved.verified and solved.queens[0] == 2
        counted = nq.count("my-queens", 6)
        assert counted.solutions == 4 and counted.verified
        none = nq.solve("my-queens", instance=EXCLUDED_7, limits=nq.Limits(timeout=30))
        assert none.status == "no-solution" and none.verified
        race = nq.race(["my-queens", "min-conflicts"], 12, limits=nq.Limits(timeout=30))
        assert race.decided and race.winner is not None and race.winner.verified
        assert {m.solver for m in race.members} == {"my-queens", "min-conflicts"}
    assert "my-queens" not in {r.solver.name for r in nq.solvers()}  # the with block withdrew it


def test_a_users_wrong_model_is_caught_never_believed() -> None:
    with nq.cpmpy_solver("rooks", rooks_model):
        wrong = nq.solve("rooks", 8)
        assert wrong.status == "invalid" and not wrong.verified
        assert not nq.count("rooks", 6).verified  # 720 rook placements, not OEIS's 4


def test_cpmpy_solver_refuses_a_taken_name_and_a_non_function() -> None:
    with pytest.raises(BadInput, match="taken"):
        nq.cpmpy_solver("cpmpy", queens_model)
    with pytest.raises(TypeError, match="build must be a function"):
        nq.cpmpy_solver("my-queens", "not a function")


def test_without_the_plugin_nq_cpmpy_solver_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nqueens_cpmpy", None)
    with pytest.raises(BadInput, match=r"^nq.cpmpy_solver comes with the nqueens-cpmpy plugin: pip install"):
        nq.cpmpy_solver("my-queens", queens_model)


@pytest.mark.skipif(
    not (Path(__file__).resolve().parents[3] / "examples").is_dir(), reason="the notebook is in the repository only"
)
def test_the_notebooks_cpmpy_section_runs_its_model() -> None:
    """The section that ends examples/your-own-solver.ipynb, run as its cell stands (tests/test_notebooks.py
    runs the whole notebook; this runs the section wherever nqueens-cpmpy is installed)."""
    import importlib
    import json

    notebook = Path(__file__).resolve().parents[3] / "examples" / "your-own-solver.ipynb"
    (cell,) = [c for c in json.loads(notebook.read_text())["cells"] if c.get("id") == "cpmpy-model"]
    scope = {"nq": nq, "importlib": importlib}
    exec("".join(cell["source"]), scope)  # noqa: S102 - the repository's own notebook
    assert str(scope["mine"].status) == "no-solution" and scope["mine"].verified
    assert "my-queens" not in {r.solver.name for r in nq.solvers()}


def test_auto_poses_what_each_backend_prefers() -> None:
    """python-sat gets the Boolean grid (CPMpy's SAT encoding of the integer model took over 60 s at n = 32),
    PySDD the clauses, the rest the integer model."""
    from nqueens_cpmpy.adapter import Cpmpy

    chosen = {backend: Cpmpy().model_of({"backend": backend, "model": "auto"}) for backend in ("pysat", "pysdd", "z3")}
    assert chosen == {"pysat": "bool", "pysdd": "clauses", "z3": "int"}
    assert Cpmpy().model_of({"backend": "pysat", "model": "int"}) == "int"  # a model given is the model posed


PLUGIN_MODULE = """
import cpmpy as cp

from nqueens_cpmpy import ModelSolver
from nqueens_plugins import hookimpl


def my_queens(problem):
    n = problem.n
    q = cp.intvar(0, n - 1, shape=(n,), name="q")
    model = cp.Model(cp.AllDifferent(q), cp.AllDifferent(q + range(n)), cp.AllDifferent(q - range(n)))
    model += [q[c] == r for c, r in problem.fixed.items()] + [q[c] != r for c, r in problem.blocked]
    return model, q


@hookimpl
def nqueens_register_solvers(register):
    register(ModelSolver("my-queens", my_queens))
"""


def test_a_users_model_as_an_entry_point_plugin(tmp_path: Path) -> None:
    """The author's guide's form (docs/cpmpy.md): a module whose hook registers ``ModelSolver``, named by an
    entry point of a distribution of its own, solved by name from the command line and verified."""
    site = tmp_path / "site"
    (site / "my_queens_plugin-0.1.dist-info").mkdir(parents=True)
    (site / "my_queens_plugin.py").write_text(PLUGIN_MODULE)
    info = site / "my_queens_plugin-0.1.dist-info"
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-queens-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[nqueens]\nmy-queens = my_queens_plugin\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), *sys.path]))
    command = [sys.executable, "-m", "nqueens_plugins", "solve", "-s", "my-queens[backend=choco]", "-n", "8"]
    out = subprocess.run([*command, "--fixed", "0:3"], capture_output=True, text=True, check=False, env=env)
    assert out.returncode == 0, out.stderr
    assert "my-queens[backend=choco]" in out.stdout and "solved, verified" in out.stdout, out.stdout
