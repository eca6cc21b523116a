"""Issue 54, item 3: one ``warm_up(self, options, preparation)`` for every solver, called the same way by the
worker (no signature sniffed there, no method compared); the one-argument form of contract 1.1 still works,
adapted once when its class is made, and warns."""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cloudpickle
import pytest

import nqueens_plugins as nq
from nqueens_plugins.core import guess_notes
from nqueens_plugins.core.problem import Budget, Outcome, Problem, Status
from nqueens_plugins.core.solver import Solver
from nqueens_plugins.execution import worker
from nqueens_plugins.execution.local import LocalExecutor
from nqueens_plugins.loading import host


def old_form(record: Callable[[Any], Any]) -> type[Solver]:
    """A solver written for contract 1.1: ``warm_up(self, options)``, made here (a class of its own each call)."""

    class OldForm(Solver):
        name = "old-form"
        summary = "Warms up the one-argument way."

        def warm_up(self, options):  # type: ignore[no-untyped-def,override]
            record(dict(options))

        def solve(self, problem: Problem, rng: Any, budget: Budget, options: Any) -> Outcome:
            return Outcome(Status.GAVE_UP, None, 0, 0)

    return OldForm


def test_the_one_argument_form_warns_once_when_its_class_is_made_and_still_warms_up() -> None:
    calls: list[Any] = []
    with pytest.warns(DeprecationWarning, match=r"OldForm\.warm_up\(self, options\) is deprecated .* goes in 0\.4\.0"):
        made = old_form(calls.append)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # called either way: no second warning
        made().warm_up({"a": 1}, "large")
        made().warm_up({"a": 2})
    assert calls == [{"a": 1}, {"a": 2}]


def test_a_class_rebuilt_from_its_pickle_is_not_adapted_twice() -> None:
    """As in a worker handed a solver class defined in a notebook (pickled whole): no second warning there."""
    with pytest.warns(DeprecationWarning):
        made = old_form(print)
    program = (
        "import pickle, sys; solver = pickle.loads(sys.stdin.buffer.read())(); "
        "solver.warm_up({'a': 1}, 'large'); solver.warm_up({'a': 2})"
    )
    child = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", program],
        input=cloudpickle.dumps(made),
        capture_output=True,
        check=False,
    )
    assert child.returncode == 0 and child.stdout.decode().splitlines() == ["{'a': 1}", "{'a': 2}"], (
        child.stderr.decode()
    )


def test_the_two_argument_form_gets_the_preparations_name_and_does_not_warn() -> None:
    names: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")

        class NewForm(Solver):
            name = "new-form"
            summary = "Warms up per preparation."

            def warm_up(self, options: Any, preparation: str = "") -> None:
                names.append(preparation)

    NewForm().warm_up({}, "large")
    assert names == ["large"]


class Loud(Solver):
    name = "loud"
    summary = "Its solve fails, which the default warm-up keeps for the timed call."

    def solve(self, problem: Problem, rng: Any, budget: Budget, options: Any) -> Outcome:
        raise OSError("no library")


def test_the_default_warm_up_says_it_guesses_and_keeps_its_failure_for_the_timed_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    said: list[str] = []
    monkeypatch.setattr(guess_notes, "guess_started", lambda: said.append("guessing"))
    monkeypatch.setattr(guess_notes, "guess_ended", lambda: said.append("guessed"))
    Loud().warm_up({}, "")  # does not raise
    assert said == ["guessing", "guessed"]


def test_the_worker_calls_every_warm_up_one_way() -> None:
    assert not hasattr(worker, "takes_preparation") and "inspect" not in vars(worker)


OLD_PLUGIN = """
    from nqueens_plugins import hookimpl
    from nqueens_plugins.builtin.construction import Construction

    class OldWarmUp(Construction):
        name = "old-warm-up"

        def warm_up(self, options):
            with open({log!r}, "a") as out:
                out.write("warmed\\n")

    @hookimpl
    def nqueens_register_solvers(register):
        register(OldWarmUp())
"""


def test_a_plugin_with_the_one_argument_form_runs_warmed_up_and_its_loading_warns(
    fake_distribution, tmp_path: Path
) -> None:
    log = tmp_path / "warm-ups.txt"
    fake_distribution(
        "nqueens-old-warm-up", {"old": "old_warm_up_plugin"}, {"old_warm_up_plugin": OLD_PLUGIN.format(log=str(log))}
    )
    host.reset()
    with LocalExecutor(1) as executor:
        with pytest.warns(DeprecationWarning, match=r"OldWarmUp\.warm_up\(self, options\) is deprecated"):
            first = nq.solve("old-warm-up", 8, limits=nq.Limits(timeout=30), executor=executor)
        second = nq.solve("old-warm-up", 9, limits=nq.Limits(timeout=30), executor=executor)
    assert first.solved and second.solved, (first.reason, second.reason)
    assert log.read_text().split() == ["warmed"]  # its own warm-up, once in the one worker
    assert first.prepare_seconds is not None and second.prepare_seconds is None
