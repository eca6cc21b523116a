"""Libraries from the package index wrapped as plugins (issue 24): what the host and the kit must do.

The fakes in ``tests/wrapped_libraries.py`` each behave like a library that was
wrapped as the author's guide says: an 8x8-only solver, an enumerator with no
time limit, one that prints every solution, one whose answer depends on thread
order. (A count of 0 under memory pressure is ``test_decided.py``'s.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from nqueens_plugins import Budget
from nqueens_plugins.testing import ContractCheckSkipped, assert_contract, contract_failures

HERE = Path(__file__).parent


@pytest.fixture
def wrapped(fake_distribution) -> Path:
    return fake_distribution("nqueens-wrapped", {"wrapped": "wrapped_libraries"}, {})


def run_records(path: Path) -> list[dict]:
    return [record for record in map(json.loads, path.read_text().splitlines()) if record.get("type") == "run"]


def test_a_board_the_solver_refuses_is_a_cell_of_the_comparison(wrapped: Path, run_cli, tmp_path: Path) -> None:
    results = tmp_path / "runs.jsonl"
    args = ["compare", "-s", "eight-only,min-conflicts", "-n", "8,12,16", "--out", str(results)]
    code, out, err = run_cli(*args, "--json")
    assert code == 0, err
    rows = {(row["solver"], row["n"]): row for row in json.loads(out)}
    assert rows[("eight-only", 8)]["solved"] == 1 and rows[("eight-only", 8)]["refused"] is None
    for n in (12, 16):
        refused = rows[("eight-only", n)]
        assert refused["runs"] == 0 and refused["success_rate"] is None
        assert refused["refused"] == f"eight-only solves the 8x8 board only, not n = {n}"
        assert rows[("min-conflicts", n)]["runs"] == 1  # the rest of the grid ran
    kept = [record for record in run_records(results) if record["status"] == "refused"]
    assert sorted(record["n"] for record in kept) == [12, 16]
    assert all(record["reason"].startswith("eight-only solves") for record in kept)

    code, out, _ = run_cli(*args, "--resume")  # the table covers the file; the refusals are kept once
    assert code == 0 and "refused: eight-only solves the 8x8 board only, not n = 12" in out
    assert len([record for record in run_records(results) if record["status"] == "refused"]) == 2
    code, out, _ = run_cli("report", str(results))
    assert code == 0 and out.count("refused: eight-only") == 2

    code, out, err = run_cli("compare", "-s", "eight-only", "-n", "12,16")  # nothing at all can run
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "eight-only solves the 8x8 board only, not n = 12" in err


def test_the_kit_asks_every_board_through_precheck_and_names_what_it_skips(wrapped: Path) -> None:
    with pytest.warns(ContractCheckSkipped) as warned:
        skipped = assert_contract("eight-only")
    assert skipped["no-solution-when-complete"] == (
        "it refuses n = 2 and 3: eight-only solves the 8x8 board only, not n = 2"
    )
    assert "supports_fixed = False" in skipped["fixed-queens"]
    assert "supports_blocked = False" in skipped["blocked-squares"]  # does not apply: skipped, never passed
    assert "certifies = False" in skipped["certificates"]
    assert "takes neither fixed queens nor blocked squares" in skipped["impossible-instances"]
    assert set(skipped) == {
        "no-solution-when-complete",
        "fixed-queens",
        "blocked-squares",
        "impossible-instances",
        "certificates",
    }
    assert {str(w.message) for w in warned} >= {
        "eight-only: contract check 'no-solution-when-complete' skipped: " + skipped["no-solution-when-complete"]
    }


def test_a_library_with_no_time_limit_passes_the_kit_once_wrapped_as_the_guide_says(wrapped: Path) -> None:
    failures = contract_failures("enumerator")
    assert set(failures) == {"budget-honoured"}
    assert "ignored a 0.5 s budget and was killed" in failures["budget-honoured"]
    assert "budget.interrupting()" in failures["budget-honoured"]  # the failure says what to do
    assert contract_failures("enumerator-interrupted") == {}
    assert contract_failures("enumerator-host-stopped") == {}


def test_a_solver_that_never_stops_itself_is_stopped_at_its_limit_without_grace(wrapped: Path) -> None:
    import nqueens_plugins as nq

    result = nq.solve("enumerator-host-stopped", 200, limits=nq.Limits(timeout=0.3))
    assert result.status == "timed-out"
    assert (result.reason or "").startswith("stopped by the host at its 0.3 s limit after")
    assert nq.solve("enumerator-host-stopped", 8).verified is True  # the next run has a fresh worker


def test_the_same_seed_check_catches_an_answer_that_differs_once_in_six(wrapped: Path) -> None:
    failures = contract_failures("thread-order")
    assert set(failures) == {"same-seed-same-answer"}
    assert "the same seed gave a different answer in run" in failures["same-seed-same-answer"]


def test_what_a_plugin_prints_is_kept_per_run_not_sprayed(wrapped: Path, tmp_path: Path) -> None:
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(wrapped), str(HERE)]))

    def nqueens(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "nqueens_plugins", *args]
        return subprocess.run(command, capture_output=True, text=True, env=environment, cwd=tmp_path, check=False)

    results = tmp_path / "runs.jsonl"
    compared = nqueens("compare", "-s", "floods", "-n", "8", "--trials", "3", "--out", str(results))
    assert compared.returncode == 0, compared.stderr
    assert len(compared.stdout) + len(compared.stderr) < 20_000  # three megabytes printed, none shown
    assert "floods printed 3.0 MB in 3 runs" in compared.stderr
    for record in run_records(results):
        assert record["output_bytes"] > 2**20 - 100
        assert len(record["output"]) <= 2_000 and record["output"].endswith("a C library's last words\n")

    shown = nqueens("solve", "-s", "floods", "-n", "8", "--show-output")
    assert shown.returncode == 0 and len(shown.stderr) < 5_000
    assert "floods printed 1.0 MB, its last 2,000 characters:" in shown.stderr
    assert "a C library's last words" in shown.stderr

    checked = nqueens("cross-check", "-n", "8", "-s", "floods,backtracking")
    assert checked.returncode == 0 and len(checked.stdout) + len(checked.stderr) < 20_000


def test_interrupting_stops_a_block_that_swallows_exceptions_on_the_main_thread() -> None:
    budget = Budget(0.05)
    swallowed = 0
    with budget.interrupting() as stop:
        while True:
            try:
                sum(range(1000))
            except Exception:  # noqa: BLE001 - a library that swallows everything
                swallowed += 1
    assert stop.fired and swallowed == 0
    with Budget(10).interrupting() as unused:
        pass
    assert not unused.fired
    time.sleep(0.01)  # no timer left behind to fire later


def test_interrupting_never_lets_its_alarm_escape_the_with_statement() -> None:
    """A budget with microseconds left fires while the timer is being armed: the block still ends with the
    alarm (once 651 of 3,000 such blocks raised OutOfTime out of the ``with`` statement instead)."""
    for _ in range(1000):
        with Budget(1e-5).interrupting() as stop:
            while True:
                pass
        assert stop.fired


def test_interrupting_interrupts_nothing_off_the_main_thread() -> None:
    fired: list[bool] = []

    def work() -> None:
        with Budget(0.001).interrupting() as stop:
            time.sleep(0.05)
        fired.append(stop.fired)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert fired == [False]
