"""Tuning by racing (issue 43): the space read and refused as a user types it, the Friedman test as irace
and R compute it, the race's decisions a function of its seed and costs (so a killed tune resumes to the
same end), a wrong answer the worst outcome, and the held-out test against the defaults."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import nqueens_plugins as nq
from nqueens_plugins import BadInput, Option, Outcome, Solver, Status, api
from nqueens_plugins.core.solver import resolve_options
from nqueens_plugins.core.space import Space, parse_space
from nqueens_plugins.execution import processes
from nqueens_plugins.results.elimination import UNDECIDED, WRONG, friedman, run_cost
from nqueens_plugins.results.tuning import RunCost, TuneOutcome, TuningBudget, iterated_race, replay
from nqueens_plugins.workflows.tune import read_tune_header

# R's own example for friedman.test (Hollander & Wolfe, RoundingTimes): chi-squared = 11.143, df = 2,
# p-value = 0.003805 (R documentation, stats::friedman.test).
ROUNDING_TIMES = np.array(
    [
        [5.40, 5.50, 5.55], [5.85, 5.70, 5.75], [5.20, 5.60, 5.50], [5.55, 5.50, 5.40], [5.90, 5.85, 5.70],
        [5.45, 5.55, 5.60], [5.40, 5.40, 5.35], [5.45, 5.50, 5.35], [5.25, 5.15, 5.00], [5.85, 5.80, 5.70],
        [5.25, 5.20, 5.10], [5.65, 5.55, 5.45], [5.60, 5.35, 5.45], [5.05, 5.00, 4.95], [5.50, 5.50, 5.40],
        [5.45, 5.55, 5.50], [5.55, 5.55, 5.35], [5.45, 5.50, 5.55], [5.50, 5.45, 5.25], [5.65, 5.60, 5.40],
        [5.70, 5.65, 5.55], [6.30, 6.30, 6.25],
    ]
)  # fmt: skip


def annealing_space(text: str) -> Space:
    solver = api.variant("simulated-annealing").solver
    return parse_space(text, solver.name, solver.options)


# --- the Friedman test ------------------------------------------------------------------------------------


def test_the_friedman_test_gives_rs_answer_on_rs_own_example() -> None:
    test = friedman(["a", "b", "c"], ROUNDING_TIMES)
    assert test.p_value == pytest.approx(0.003805, abs=5e-6)
    # Conover's comparison then keeps only the configurations within the critical difference of the best
    assert test.critical is not None and test.kept[0] == test.configurations[0] == "c"


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 6), st.integers(2, 12), st.integers(0, 2**32 - 1))
def test_the_friedman_p_value_is_scipys_with_ties(k: int, n: int, seed: int) -> None:
    costs = np.random.default_rng(seed).integers(0, 4, size=(n, k)).astype(float)  # many ties
    ours = friedman([str(i) for i in range(k)], costs)
    if ours.p_value is None:  # every block tied every configuration: nothing to test
        assert all(len(set(row)) == 1 for row in costs)
        return
    theirs = stats.friedmanchisquare(*costs.T).pvalue
    assert ours.p_value == pytest.approx(theirs, rel=1e-9, abs=1e-12)


def test_a_configuration_worst_on_every_block_is_dropped_and_the_best_never_is() -> None:
    rng = np.random.default_rng(1)
    costs = rng.uniform(1, 2, size=(10, 4))
    costs[:, 3] = 100.0  # always last
    test = friedman(["a", "b", "c", "d"], costs)
    assert test.p_value is not None and test.p_value < 0.05
    assert "d" in test.dropped and test.configurations[0] in test.kept
    protected = friedman(["a", "b", "c", "d"], costs, protected=frozenset({"d"}))
    assert "d" in protected.kept  # an elite that the new configurations have not caught up with stays


def test_without_a_significant_difference_nothing_is_dropped() -> None:
    costs = np.tile([1.0, 2.0, 3.0], (2, 1))  # two blocks: too few to be significant
    test = friedman(["a", "b", "c"], costs)
    assert test.p_value is not None and test.p_value >= 0.05 and not test.dropped


def test_a_rejected_answer_costs_more_than_no_answer_which_costs_more_than_any_answer() -> None:
    solved = {"status": "solved", "verified": True, "seconds": 9.0, "iterations": 5}
    gave_up = {"status": "gave-up", "verified": None, "seconds": 0.1, "iterations": 1}
    wrong = {"status": "invalid", "verified": False, "seconds": 0.001, "iterations": 1}
    crashed = {"status": "error", "verified": None, "seconds": 0.001}
    assert run_cost(solved, "par10") == 9.0 and run_cost(solved, "ert-iterations") == 5
    assert run_cost(solved, "par10") < run_cost(gave_up, "par10") == UNDECIDED < run_cost(wrong, "par10") == WRONG
    assert run_cost(crashed, "par10") == WRONG


# --- the space --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("foo=1..2", "has no option 'foo'"),
        ("cooling=0.8..1.5", "must be at most 1"),
        ("cooling=0.9", "varies nothing"),
        ("cooling=0.9|0.9", "a choice needs two"),
        ("cooling=0.99..0.8", "is empty"),
        ("t0=0..10:log", "log range must be above 0"),
        ("t0=1..10:ln", "unknown scale"),
        ("max_steps=10..20.5", "takes a whole number"),
        ("cooling=0.8..0.9,cooling=0.7..0.9", "given twice"),
        ("", "the space is empty"),
        ("cooling", "expected name=LOW..HIGH"),
        ("cooling=a..b", "takes a number"),
    ],
)
def test_a_space_that_cannot_be_tuned_is_refused_in_one_line(text: str, says: str) -> None:
    with pytest.raises(BadInput, match=says) as refused:
        annealing_space(text)
    assert "\n" not in str(refused.value)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_every_sampled_configuration_is_a_spec_the_solver_labels_alike(seed: int) -> None:
    space = annealing_space("cooling=0.5..0.999, t0=0.01..10000:log, max_steps=100..5000, floor=0.01")
    machine = iterated_race(space, TuningBudget(runs=60), seed)
    wanted = next(machine)
    solver = api.variant("simulated-annealing").solver
    for label, _ in wanted:
        variant = resolve_options(solver, api.variant(label).given)
        assert variant.label == label
        assert 0.5 <= variant.options["cooling"] <= 0.999 and 0.01 <= variant.options["t0"] <= 10000
        assert isinstance(variant.options["max_steps"], int) and variant.options["floor"] == 0.01
    assert Space.from_description(json.loads(json.dumps(space.describe()))) == space
    machine.close()


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=60))
def test_any_space_text_is_read_or_refused_in_one_line(text: str) -> None:
    try:
        annealing_space(text)
    except BadInput as refused:
        assert "\n" not in str(refused)


def test_a_header_someone_else_wrote_is_refused_not_trusted() -> None:
    grid = {"seed": 0, "boards": ["x"], "tune": {"goal": "par10", "budget": {"runs": 20}}}
    for space in (None, {"solver": "s", "parameters": [{"name": "a", "kind": "float", "low": 1, "high": 0,
                                                          "log": False}], "fixed": {}, "order": ["a"]},
                  {"solver": "s", "parameters": "x", "fixed": {}, "order": []}):  # fmt: skip
        with pytest.raises(BadInput):
            replay({**grid, "tune": {**grid["tune"], "space": space}}, [])


# --- the race machine, fed synthetic costs ----------------------------------------------------------------


def synthetic(label: str, block: int) -> float:
    """A cost with an optimum at cooling 0.97, t0 100, and noise that depends only on the run."""
    values = dict(item.split("=") for item in label[label.index("[") + 1 : -1].split(","))
    noise = np.random.default_rng(zlib.crc32(f"{label}/{block}".encode())).normal(0, 0.3)
    return (float(values["cooling"]) - 0.97) ** 2 * 100 + (np.log10(float(values["t0"])) - 2) ** 2 + noise


def run_machine(space: Space, budget: TuningBudget, seed: int) -> TuneOutcome:
    machine = iterated_race(space, budget, seed)
    wanted = next(machine)
    try:
        while True:
            wanted = machine.send({run: RunCost(synthetic(*run), 0.01) for run in wanted})
    except StopIteration as stop:
        return stop.value


def test_the_race_keeps_to_its_budget_drops_the_bad_and_moves_towards_the_optimum() -> None:
    space = annealing_space("cooling=0.5..0.999,t0=1..10000:log")
    outcome = run_machine(space, TuningBudget(runs=400), seed=3)
    assert outcome.runs <= 400 and len(outcome.iterations) >= 3
    assert sum(len(test.dropped) for it in outcome.iterations for test in it.tests) > 0
    first = outcome.iterations[0].entered
    mean_first = np.mean([synthetic(label, 10_000) for label in first])
    assert synthetic(outcome.best, 10_000) < mean_first  # the best beats the first race's average
    for it in outcome.iterations[1:]:  # elites carried over: each later race starts with the last survivors
        assert set(it.entered) - set(it.new) <= set(outcome.iterations[it.number - 2].survivors)


def test_the_same_seed_and_costs_make_the_same_race_and_another_seed_another() -> None:
    space = annealing_space("cooling=0.5..0.999,t0=1..10000:log")
    one, two = run_machine(space, TuningBudget(runs=200), 7), run_machine(space, TuningBudget(runs=200), 7)
    assert one.best == two.best and [it.entered for it in one.iterations] == [it.entered for it in two.iterations]
    assert run_machine(space, TuningBudget(runs=200), 8).iterations[0].entered != one.iterations[0].entered


def test_a_budget_of_seconds_counts_the_solvers_own_time() -> None:
    space = annealing_space("cooling=0.5..0.999,t0=1..10000:log")
    outcome = run_machine(space, TuningBudget(seconds=1.0), seed=1)  # every run "costs" 0.01 s
    # spent: at most the budget and the one block that crossed it; not less than the budget minus what one
    # more race to its first test would need (the rest cannot buy a test)
    assert 0.5 <= outcome.seconds <= 1.1 and outcome.seconds == pytest.approx(outcome.runs * 0.01)


# --- a tune end to end ------------------------------------------------------------------------------------

SPACE = "cooling=0.5..0.999,t0=0.1..1000:log,max_steps=1500"
TUNE = ["tune", "simulated-annealing", "--space", SPACE, "-n", "10,12", "--budget", "40", "--goal",
        "ert-iterations", "--test-runs", "6", "--seed", "5", "--timeout", "20", "--format", "json"]  # fmt: skip


def test_a_tune_finds_a_spec_compare_takes_and_its_report_replays_it(tmp_path: Path, run_cli: Any) -> None:
    out = tmp_path / "tune.jsonl"
    code, shown, err = run_cli(*TUNE, "--out", str(out))
    assert code == 0, err
    tuned = json.loads(shown)
    assert tuned["finished"] and tuned["runs"] <= 40 and tuned["best"].startswith("simulated-annealing[")
    assert "max_steps=1500" in tuned["best"]
    held = tuned["held_out"]
    assert held["blocks"] == 6 and held["defaults"]["label"] == "simulated-annealing[max_steps=1500]"
    records = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    assert len(records) == tuned["runs"] + 2 * 6 and all(r["tune"]["phase"] in ("race", "test") for r in records)
    assert {r["trial"] for r in records if r["tune"]["phase"] == "test"} >= {1_000_000}  # seeds the race never used
    # the report replays the race from the file alone, to the same end
    code, reported, err = run_cli("report", str(out), "--format", "json")
    assert code == 0, err
    again = json.loads(reported)
    assert again["best"] == tuned["best"] and again["races"] == tuned["races"] and again["held_out"] == held
    page = tmp_path / "tune.html"
    code, _, err = run_cli("report", str(out), "--format", "html", "-o", str(page))
    assert code == 0, err
    html = page.read_text()
    assert "<h2>Tuning by racing</h2>" in html and "held-out test" in html
    assert html.index("Tuning by racing") < html.index("<h2>Provenance</h2>")
    # the spec is one -s takes as it is
    code, _, err = run_cli("solve", "-s", tuned["best"], "-n", "8", "--seed", "1")
    assert code in (0, 1) and "error" not in err
    # resuming a finished tune makes no run
    lines = len(out.read_text().splitlines())
    code, resumed, err = run_cli(*TUNE, "--out", str(out), "--resume")
    assert code == 0, err
    assert json.loads(resumed)["best"] == tuned["best"] and len(out.read_text().splitlines()) == lines + 1


def test_resuming_with_another_space_is_refused(tmp_path: Path, run_cli: Any) -> None:
    out = tmp_path / "tune.jsonl"
    args = [*TUNE[:-2], "--budget", "10", "--test-runs", "0"]
    assert run_cli(*args, "--out", str(out))[0] == 0
    other = [a if a != SPACE else SPACE.replace("0.5", "0.6") for a in args]
    code, _, err = run_cli(*other, "--out", str(out), "--resume")
    assert code == 2 and "another tune" in err and err.count("\n") == 1


@pytest.fixture
def hostile(fake_distribution) -> Path:  # type: ignore[no-untyped-def]
    return fake_distribution("nqueens-hostile", {"hostile": "hostile_solvers"}, {})


SLOW_TUNE = ["tune", "deliberate", "--space", "x=0..1", "-n", "8", "--budget", "40", "--goal", "ert-iterations",
             "--test-runs", "4", "--seed", "3", "--timeout", "60", "--format", "json"]  # fmt: skip


def test_a_tune_killed_at_any_moment_and_resumed_ends_as_one_run_straight_through(
    tmp_path: Path, hostile: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "deliberate" takes 0.1 s a run, and its iterations depend on its option and seed alone: the tune is
    # deterministic, and slow enough (48 runs on two workers) to be caught in the middle
    straight, killed = tmp_path / "straight.jsonl", tmp_path / "killed.jsonl"
    command = [sys.executable, "-m", "nqueens_plugins", *SLOW_TUNE]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(hostile), str(Path(__file__).parent)]))  # the plugin
    whole = subprocess.run([*command, "--out", str(straight)], capture_output=True, text=True, timeout=300, check=False)
    assert whole.returncode == 0, whole.stderr
    for signum, more in ((signal.SIGKILL, 8), (signal.SIGTERM, 12)):
        lines = (len(killed.read_text().splitlines()) if killed.exists() else 0) + more
        process = subprocess.Popen([*command, "--out", str(killed), *(["--resume"] if killed.exists() else [])],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        deadline = time.monotonic() + 120
        while process.poll() is None and time.monotonic() < deadline:
            if killed.exists() and len(killed.read_text().splitlines()) >= lines:
                workers = processes.descendants(process.pid)
                os.kill(process.pid, signum)
                break
            time.sleep(0.01)
        assert process.wait(timeout=60) != 0  # killed mid-tune, not finished
        gone_by = time.monotonic() + 10
        while any(alive(pid) for pid in workers) and time.monotonic() < gone_by:
            time.sleep(0.05)
        assert not any(alive(pid) for pid in workers)  # nothing of it is left
    assert len(killed.read_text().splitlines()) < len(straight.read_text().splitlines())
    resumed = subprocess.run(
        [*command, "--out", str(killed), "--resume"], capture_output=True, text=True, timeout=300, check=False
    )
    assert resumed.returncode == 0, resumed.stderr
    one, two = json.loads(whole.stdout), json.loads(resumed.stdout)
    assert two["best"] == one["best"] and two["races"] == one["races"] and two["held_out"] == one["held_out"]


def alive(pid: int) -> bool:
    """The process exists and is not a zombie waiting to be reaped."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


class Liar(Solver):
    """Answers at once with every queen on one row when told to lie; otherwise a true board, after a pause."""

    name = "tune-liar"
    summary = "A solver whose option makes it lie (tests/test_tune.py)."
    family = "search"
    options = (Option("lie", bool, False, "answer wrongly, at once"), Option("pause", float, 0.02, "seconds"))

    def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
        if options["lie"]:
            return Outcome(Status.SOLVED, [0] * problem.n, iterations=1, moves=problem.n)
        time.sleep(options["pause"])
        return Outcome(Status.SOLVED, [0, 4, 7, 5, 2, 6, 1, 3], iterations=5, moves=8)  # n = 8: one of its 92


def test_a_configuration_that_answers_wrongly_loses_however_fast_it_is() -> None:
    with nq.register(Liar()):
        tuned = nq.tune("tune-liar", "lie=true|false,pause=0.01..0.03", 8, budget=40, test_runs=0,
                        limits=nq.Limits(timeout=20, seed=2))  # fmt: skip
    assert "lie=false" in tuned.best
    assert all("lie=false" in label for label in tuned.tied)
    assert tuned.held_out() is None


def test_tune_refuses_in_one_line_before_any_run(run_cli: Any, tmp_path: Path) -> None:
    base = ["tune", "simulated-annealing", "-n", "8"]
    for args, says in (
        ([*base, "--space", "cooling=0.8..0.99", "--budget", "5"], "smaller than one race block"),
        ([*base, "--space", "nope=1..2", "--budget", "50"], "has no option 'nope'"),
        ([*base, "--space", "cooling=0.5", "--budget", "50"], "varies nothing"),
        ([*base, "--space", "cooling=0.8..0.99", "--budget", "1.5"], "whole number"),
        ([*base, "--space", "@/dev/zero", "--budget", "50"], "not a regular file"),
        ([*base, "--space", f"@{tmp_path / 'missing'}", "--budget", "50"], "does not exist"),
        (["tune", "simulated-annealing[cooling=0.9]", "-n", "8", "--space", "t0=1..2", "--budget", "50"],
         "without options"),
        ([*base, "--space", "cooling=0.8..0.99", "--budget", "50", "--timeout", "none"], "give a --timeout"),
    ):  # fmt: skip
        code, _, err = run_cli(*args)
        assert code == 2 and says in err and err.count("\n") == 1 and "Traceback" not in err, (args, err)


def test_a_space_file_is_read(tmp_path: Path) -> None:
    space = tmp_path / "space.txt"
    space.write_text("# annealing\ncooling=0.8..0.99   # the factor\nt0=1..100:log\n")
    assert api.space_text(f"@{space}").count("=") == 2
    assert annealing_space(api.space_text(space)).parameters[1].log


def test_a_tune_header_is_found_only_in_a_tunes_file(tmp_path: Path) -> None:
    out = tmp_path / "c.jsonl"
    nq.compare("backtracking", 6, out=out)
    assert read_tune_header(out) is None


def test_instance_files_are_set_aside_for_the_test_only_when_a_test_is_asked_for() -> None:
    data = Path(nq.__file__).parent / "data" / "diag-10-4-1.param"
    boards = f"{data}@3..8"  # six Excluded Diagonals instances
    limits = nq.Limits(timeout=5, seed=1)
    untested = nq.tune("min-conflicts", "noise=0.0..0.5,max_steps=200", boards, budget=10, test_runs=0, limits=limits)
    assert len(untested.setup.boards) == 6 and untested.setup.held_out == untested.setup.boards
    tested = nq.tune("min-conflicts", "noise=0.0..0.5,max_steps=200", boards, budget=10, test_runs=2, limits=limits)
    race, aside = set(tested.setup.boards), set(tested.setup.held_out)
    assert race and aside and not race & aside and len(race | aside) == 6  # no instance on both sides


def test_a_configuration_that_leaves_runs_undecided_is_not_chosen_over_one_that_decides_them_all() -> None:
    """The goal is the decided rate first: ``fast`` is the quickest on every block but one, which it leaves
    undecided (as a too small ``max_steps`` does); ``steady`` decides every block a little slower. By mean
    rank alone ``fast`` would win (no test can drop either); the tune chooses ``steady``."""
    from nqueens_plugins.results.elimination import UNDECIDED

    space = annealing_space("cooling=0.5..0.999")

    def cost(label: str, block: int) -> float:
        cooling = float(label[label.index("=") + 1 : -1])
        if cooling < 0.75:
            return UNDECIDED if block % 4 == 3 else 1.0 + cooling / 10
        return 2.0 + cooling / 10

    machine = iterated_race(space, TuningBudget(runs=40), 5)
    wanted = next(machine)
    try:
        while True:
            wanted = machine.send({run: RunCost(cost(*run), 0.01) for run in wanted})
    except StopIteration as stop:
        outcome = stop.value
    raced = {label for it in outcome.iterations for label in it.entered}
    assert any(float(label[label.index("=") + 1 : -1]) < 0.75 for label in raced)  # a fast one did race
    assert float(outcome.best[outcome.best.index("=") + 1 : -1]) >= 0.75, outcome.best
