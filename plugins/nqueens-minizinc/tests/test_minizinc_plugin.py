"""nqueens-minizinc: the contract kit, plus what is particular to the MiniZinc adapter."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import nqueens_plugins as nq
from nqueens_plugins import BadInput, Budget, Problem, Requirement, Status, published_answer
from nqueens_plugins.testing import assert_contract

needs_minizinc = pytest.mark.skipif(
    shutil.which("minizinc") is None or importlib.util.find_spec("minizinc") is None,
    reason="needs the minizinc binary on the PATH (apt-get install minizinc) and the minizinc package",
)

DATA = Path(nq.__file__).parent / "data"
BLOCKED_28 = DATA / "blockedqueens.28.1449787894.param"  # published: satisfiable
HARD_56 = DATA / "blockedqueens.56.1860451109.param"  # published: unsatisfiable, minutes for Gecode
# CSPLib's diag-10-4-1.param with its first 7 diagonals excluded: no solution (published).
EXCLUDED_7 = nq.problem_of(instance=f"{DATA / 'diag-10-4-1.param'}@7").blocked
MINIZINC_PROGRAMS = ("minizinc", "fzn-gecode")  # the driver and the solver it starts


def options(**given: object) -> dict[str, object]:
    from nqueens_minizinc.adapter import MiniZinc

    return {o.name: o.default for o in MiniZinc.options} | given


# The default poses plain and fixed-queen boards with the classic model and blocked ones with the dual.
@needs_minizinc
@pytest.mark.parametrize("spec", ["minizinc", "minizinc[model=classic]"])
def test_keeps_the_solver_contract(spec: str) -> None:
    # every check ran and passed but certificates: it writes none
    assert set(assert_contract(spec)) == {"certificates"}


def test_registered_through_its_entry_point_only() -> None:
    registration = next(r for r in nq.solvers() if r.solver.name == "minizinc")
    assert (registration.source.plugin, registration.source.distribution) == ("minizinc", "nqueens-minizinc")
    solver = registration.solver
    assert solver.family == "CP" and solver.complete and solver.can_count and solver.exports == ("dzn",)
    assert solver.supports_fixed and solver.supports_blocked


def test_listing_plugins_runs_neither_the_package_nor_the_binary(tmp_path: Path) -> None:
    """``nqueens plugins`` imports every plugin: this one must not import minizinc (which runs
    ``minizinc --version`` on import) nor start MiniZinc at all. A ``minizinc`` first on the PATH
    that leaves a mark when run shows it."""
    mark = tmp_path / "ran"
    spy = tmp_path / "bin" / "minizinc"
    spy.parent.mkdir()
    spy.write_text(f"#!/bin/sh\ntouch {mark}\nexit 1\n")
    spy.chmod(0o755)
    env = dict(os.environ, PATH=f"{spy.parent}{os.pathsep}{os.environ['PATH']}")
    code = (
        "import sys; import nqueens_plugins as nq; nq.solvers(); "
        "print('nqueens_minizinc' in sys.modules, 'minizinc' in sys.modules)"
    )
    listed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert listed.stdout.split() == ["True", "False"] and not mark.exists()  # the plugin imported, not the package


@needs_minizinc
def test_counts_like_the_bitboard() -> None:
    fixed = {0: 1, 2: 5}
    blocked = [(c, r) for c in range(9) for r in range(9) if (3 * c + r) % 5 == 0]
    for kwargs in ({"n": 8, "fixed": fixed}, {"n": 9, "blocked": blocked}):
        expected = nq.count("bitboard", **kwargs).solutions
        assert expected
        for spec in ("minizinc", "minizinc[model=classic,propagation=decomposed]", "minizinc[model=dual]"):
            assert nq.count(spec, **kwargs).solutions == expected, (spec, kwargs)
    assert nq.count("minizinc[model=dual]", 8).solutions == 92
    plain = nq.count("minizinc", 8)
    assert plain.solutions == 92 and plain.verified  # against OEIS
    assert plain.iterations == plain.counters["nodes"] > 0 and plain.counters["solutions"] == 92
    result = nq.solve("minizinc", 8, fixed=fixed)
    assert result.verified and result.queens[0] == 1 and result.queens[2] == 5


@needs_minizinc
def test_published_instances_get_their_published_answers() -> None:
    problem = nq.problem_of(instance=str(BLOCKED_28))
    assert published_answer(problem.source, problem.n) is True  # lingeling's published run: satisfiable
    for spec in ("minizinc", "minizinc[model=classic]"):  # the default takes the dual model here
        result = nq.solve(spec, instance=str(BLOCKED_28), limits=nq.Limits(timeout=30))
        assert result.status == "solved" and result.verified, spec
        assert all((c, r) not in problem.blocked for c, r in enumerate(result.queens))
    excluded = nq.solve("minizinc", instance="diag-10-4-1.param@7", limits=nq.Limits(timeout=30))
    assert excluded.status == "no-solution" and excluded.verified  # held against the published answer


@needs_minizinc
def test_counters_come_from_minizincs_statistics() -> None:
    result = nq.solve("minizinc", 30, fixed={0: 3})
    assert result.solved and result.queens[0] == 3 and result.moves == 30
    assert result.iterations == result.counters["nodes"] > 0
    assert {"failures", "propagations", "peakDepth", "flatTime", "solveTime"} <= set(result.counters)


@needs_minizinc
def test_an_exhausted_budget_is_timed_out_never_no_solution() -> None:
    from nqueens_minizinc.adapter import MiniZinc

    assert nq.solve("minizinc", instance=str(HARD_56), limits=nq.Limits(timeout=0.3)).status == "timed-out"
    capped = nq.solve("minizinc", instance=str(HARD_56), limits=nq.Limits(max_iterations=50))
    assert capped.status == "timed-out" and 50 <= capped.counters["nodes"] < 100  # Gecode's node cutoff
    partial = MiniZinc().count(Problem(10), Budget(iterations=100), options(), False)
    assert partial.status == Status.TIMED_OUT and 0 < partial.solutions < 724


@needs_minizinc
def test_a_run_minizinc_overruns_is_cancelled_and_its_processes_end() -> None:
    """Without MiniZinc's own time limit, the adapter's cancellation alone stops the run (CANCEL_MARGIN
    past the budget), and neither minizinc nor its solver outlives it."""
    from nqueens_minizinc.adapter import instance_for, model_for, run_minizinc

    problem = nq.problem_of(instance=str(HARD_56))
    started = time.monotonic()
    instance_for(options(), model_for(problem, options()))  # the yardstick: what the run does before MiniZinc starts
    setup = time.monotonic() - started
    # The budget covers that setup three times over, so MiniZinc starts before it runs out (a busy machine once
    # spent the whole of a constant 0.5 s before it: a run that never started, not one cancelled).
    budget = Budget(0.5 + 3 * setup)
    run = run_minizinc(problem, budget, options(), all_solutions=False, seed=0, time_limit=False)
    assert run.cancelled and run.queens is None and run.statistics.get("nodes") is None  # stopped, not finished
    assert [pid for pid in descendants(os.getpid()) if Path(program(pid)).name in MINIZINC_PROGRAMS] == []


def descendants(pid: int) -> list[int]:
    """Live processes below ``pid`` (children first), as /proc shows them."""

    def children(parent: int) -> list[int]:
        found = []
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                found.extend(int(child) for child in (task / "children").read_text().split())
            except OSError:
                continue
        return [child for child in found if alive(child)]

    found, frontier = [], children(pid)
    while frontier:
        found.extend(frontier)
        frontier = [grandchild for child in frontier for grandchild in children(child)]
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def program(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()
    except OSError:
        return ""


@needs_minizinc
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc")
def test_killing_the_command_leaves_no_minizinc_process(tmp_path: Path) -> None:
    """The host kills a worker with everything below it: minizinc runs its solver in a process group of
    its own, so a kill of the worker's group alone would miss it. (The temporary files of a process
    killed outright stay: here they go to the test's own folder.)"""
    command = subprocess.Popen(
        [sys.executable, "-m", "nqueens_plugins"]
        + ["solve", "-s", "minizinc", "--instance", str(HARD_56), "--timeout", "60"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ, TMPDIR=str(tmp_path)),
    )
    started: list[int] = []
    try:
        deadline = time.monotonic() + 30  # a wait, not a speed bound: it ends as soon as the solver runs
        while time.monotonic() < deadline:
            below = descendants(command.pid)
            started = [pid for pid in below if Path(program(pid)).name in MINIZINC_PROGRAMS]
            if any(Path(program(pid)).name == "fzn-gecode" for pid in started):
                break
            time.sleep(0.1)
        assert any(Path(program(pid)).name == "fzn-gecode" for pid in started), "Gecode never started"
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
            if alive(pid) and Path(program(pid)).name in MINIZINC_PROGRAMS:
                os.kill(pid, signal.SIGKILL)


def raw_minizinc(dzn: str, model: Path, folder: Path) -> tuple[str, list[int] | None]:
    """The exported data solved by the raw minizinc package with a shipped model, as its README would
    have it (plus the include folder that hands an old Gecode library its own alldifferent)."""
    import minizinc

    from nqueens_minizinc.adapter import NATIVE_LIBRARY, solver_info

    data = folder / "queens.dzn"
    data.write_text(dzn)
    instance = minizinc.Instance(minizinc.Solver.lookup("gecode"), minizinc.Model(model))
    instance.add_file(data)
    flags = {"-I": str(NATIVE_LIBRARY)} if solver_info("gecode").old_gecode_library else {}
    result = instance.solve(**flags)
    return result.status.name, None if result.solution is None else list(result.solution.q)


@needs_minizinc
@pytest.mark.filterwarnings("ignore:included file")  # Debian's Gecode library "overrides a global constraint file"
def test_export_is_what_minizinc_solves(tmp_path: Path) -> None:
    """The exported dzn, solved by the raw package with the model file the plugin poses it with (the
    dual one for blocked squares, by default), gives the plugin's status and board."""
    from nqueens_minizinc.adapter import MODEL_FILES, MiniZinc, model_for

    cases = [
        nq.problem_of(instance=str(BLOCKED_28)),
        Problem(3),
        Problem(8, {0: 2, 3: 1}),
        Problem(10, blocked=EXCLUDED_7),
    ]
    for problem in cases:
        text = MiniZinc().export(problem, {}, "dzn")
        run = nq.solve("minizinc", problem, limits=nq.Limits(timeout=30))
        model = MODEL_FILES[model_for(problem, options())]
        status, queens = raw_minizinc(text, model, tmp_path)
        assert run.status == ("solved" if status == "SATISFIED" else "no-solution"), (problem.label, status)
        assert queens is None or [int(q) for q in run.queens] == queens
    assert {model_for(problem, options()) for problem in cases} == {"classic", "dual"}
    try:
        choco = next(r.solver for r in nq.solvers() if r.solver.name == "choco")
    except Exception:  # noqa: BLE001 - nqueens-choco not installed: nothing to compare with
        return
    for problem in cases:  # one data format: either plugin's dzn runs with either plugin's model
        assert choco.export(problem, {}, "dzn") == MiniZinc().export(problem, {}, "dzn")


def test_options_change_only_what_they_name() -> None:
    from nqueens_minizinc.adapter import MODEL_FILES, model_text

    for model, path in MODEL_FILES.items():
        assert model_text(model, "domain", "first-fail") == path.read_text()
        value = model_text(model, "value", "first-fail")
        assert "domain_propagation" not in value and value.count("alldifferent(") == path.read_text().count(
            "alldifferent("
        )
        assert "dom_w_deg, indomain_min) satisfy;" in model_text(model, "domain", "dom-wdeg")
        assert "\nsolve satisfy;\n" in model_text(model, "domain", "free")


@needs_minizinc
def test_alldifferent_reaches_gecode_as_its_global(tmp_path: Path) -> None:
    """With Debian's old Gecode library alldifferent would become pairwise disequalities; the include
    folder the adapter adds hands Gecode its distinct, and propagation=decomposed forces the pairs."""
    from nqueens_minizinc.adapter import DECOMPOSED_LIBRARY, MODEL_FILES, NATIVE_LIBRARY, solver_info

    data = tmp_path / "queens.dzn"
    data.write_text(nq.dzn_text(Problem(6)))
    flat = {}
    for name, library in (("native", NATIVE_LIBRARY), ("decomposed", DECOMPOSED_LIBRARY)):
        out = tmp_path / f"{name}.fzn"
        model = str(MODEL_FILES["classic"])
        command = ["minizinc", "--solver", "gecode", "-c", "--no-output-ozn", "-I", str(library), model, str(data)]
        subprocess.run([*command, "-o", str(out)], capture_output=True, check=True)  # no file beside the model
        flat[name] = out.read_text()
    if solver_info("gecode").old_gecode_library:
        assert flat["native"].count("constraint all_different_int(") == 3
    assert "all_different_int" not in flat["decomposed"] and "int_lin_ne" in flat["decomposed"]


@pytest.mark.parametrize(
    "spec, words",
    [
        ("minizinc[model=boolean]", "one of auto, classic, dual"),
        ("minizinc[propagation=bounds]", "one of domain, value, decomposed"),
        ("minizinc[search=smart]", "one of first-fail"),
        ("minizinc[workers=2]", "no option 'workers'"),
    ],
)
def test_bad_options(spec: str, words: str) -> None:
    with pytest.raises(BadInput, match=words):
        nq.solve(spec, 8)


@needs_minizinc
@pytest.mark.parametrize(
    "spec, n, words",
    [
        ("minizinc[solver=no-such-solver]", 8, "no solver 'no-such-solver'; installed: .*gecode"),
        ("minizinc", 1001, "up to 1,000 .* value up to 2,000"),
        ("minizinc[propagation=value]", 2001, "up to 2,000"),
        ("minizinc[propagation=decomposed]", 301, "up to 300"),
    ],
)
def test_refused_before_any_run(spec: str, n: int, words: str) -> None:
    with pytest.raises(BadInput, match=words):
        nq.solve(spec, n)


@needs_minizinc
def test_solvers_minizinc_lists_but_cannot_run_are_refused() -> None:
    from nqueens_minizinc.adapter import installed_solvers

    listed = installed_solvers()
    if "gist" in listed:  # Gecode's interactive search tool
        with pytest.raises(BadInput, match="GUI program"):
            nq.solve("minizinc[solver=gist]", 8)
    if "scip" in listed:  # a MIP solver MiniZinc loads from a library at run time
        from nqueens_minizinc.adapter import run_failure

        if run_failure(listed["scip"][0].id) is not None:
            with pytest.raises(BadInput, match="cannot run it here"):
                nq.solve("minizinc[solver=scip]", 8)


def test_missing_binary_is_one_line_naming_apt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PATH without minizinc: refused before any run, by the CLI too (exit 2, one line)."""
    empty = tmp_path / "bin"
    empty.mkdir()
    env = dict(os.environ, PATH=str(empty))
    cli = [sys.executable, "-m", "nqueens_plugins"]
    out = subprocess.run(
        [*cli, "solve", "-s", "minizinc", "-n", "8"], capture_output=True, text=True, check=False, env=env
    )
    assert out.returncode == 2, out.stderr
    assert "apt-get install minizinc" in out.stderr and "Traceback" not in out.stderr, out.stderr
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(BadInput, match="apt-get install minizinc"):
        nq.solve("minizinc", 8)


def test_missing_package_is_one_line_naming_pip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Requirement, "missing", lambda self: True)  # the first: the package
    with pytest.raises(BadInput, match="pip install minizinc"):
        nq.solve("minizinc", 8)


def test_export_refuses_other_formats() -> None:
    from nqueens_minizinc.adapter import MiniZinc

    with pytest.raises(BadInput, match="dzn"):
        MiniZinc().export(Problem(4), {}, "mps")
