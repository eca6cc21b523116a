"""Results layer, parent side: iterated racing, irace's scheme, as a machine that asks for runs and never makes one.

``iterated_race`` is a generator: it yields the runs it needs next (a
configuration's label and a block number), is sent what they cost
(``RunCost``), and returns the ``TuneOutcome``. It holds no clock and draws its
random numbers from its own seeded generator in a fixed order, so the same
seed and the same costs give the same race: ``workflows/tune.py`` feeds it runs
it makes (or finds already made in a results file it resumes), and ``report``
replays it from a file alone to show which configuration was dropped when.

The scheme is irace's (López-Ibáñez et al. 2016, section 3):

* ``2 + log2(d)`` iterations for ``d`` parameters, the remaining budget shared
  evenly among the iterations left; iteration ``j`` races
  ``B_j / (FIRST_TEST + min(5, j))`` configurations.
* The first iteration samples uniformly (log-uniformly on a ``:log`` range).
  Later ones sample around the elites: a parent chosen with weight
  ``N_e - rank + 1``; a number from a normal around the parent's value, its
  deviation the parent's times ``(1 / N_new) ** (1 / d)`` (half the range at
  first), truncated to the range; a choice from the parent's probabilities,
  moved towards the parent's value by ``(j - 1) / N_iter``.
* A race runs its configurations block after block (every configuration on the
  same instance and seed) and drops the worse ones by the Friedman test
  (``elimination.py``) from the fifth block on, until ``2 + log2(d)`` survive or its
  budget is spent. Elites keep their costs (a block is never run twice for one
  configuration) and are not dropped before the new configurations have seen
  the blocks they have.
* A race's survivors are ordered by the runs they left undecided (or got
  wrong), then by mean rank: the goal's decided rate first. Ranks alone let a
  configuration that fails one block in six but is fastest on the rest outrank
  one that decides every block, and a held-out PAR-10 charges that failure ten
  times the limit (measured: a tune of annealing on 200 runs chose a
  ``max_steps`` that left 16 of 96 held-out runs undecided). The order chooses
  the best configuration and the elites the next race samples around.
* Budget left after the planned iterations buys more iterations, as in irace.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.space import Parameter, Space
from nqueens_plugins.results.elimination import (
    EACH_TEST,
    FIRST_TEST,
    GOALS,
    UNDECIDED,
    Test,
    friedman,
    mean_ranks,
    run_cost,
)

Run = tuple[str, int]  # a configuration's label, a block number


@dataclass(frozen=True)
class RunCost:
    """What the race needs of a run: where it stands in its block (``elimination.run_cost``) and its seconds."""

    cost: float
    seconds: float


@dataclass(frozen=True)
class TuningBudget:
    """How much a tune may spend: runs, or the solver's own seconds summed over runs (irace's maxTime). Not
    ``core.problem.Budget``, which is what one solver call may spend."""

    runs: int | None = None
    seconds: float | None = None

    def describe(self) -> dict[str, Any]:
        return {"runs": self.runs, "seconds": self.seconds}


@dataclass
class Iteration:
    """One race of the tune: who entered, every test, who survived, what it spent."""

    number: int
    entered: list[str]
    new: list[str]
    tests: list[Test] = field(default_factory=list)
    survivors: list[str] = field(default_factory=list)  # fewest runs undecided first, then best mean rank
    blocks: int = 0
    runs: int = 0

    def dropped_at(self) -> dict[str, Test]:
        """For each configuration this race dropped, the test that dropped it."""
        return {label: test for test in self.tests for label in test.dropped}


@dataclass
class TuneOutcome:
    """What a tune found: the best configuration, those it could not be separated from, how it raced."""

    best: str
    tied: list[str]  # the last race's other survivors: no test separated them from the best
    configs: dict[str, dict[str, Any]]
    iterations: list[Iteration]
    runs: int
    seconds: float  # the solver's own seconds over the runs


class Ledger:
    """The costs known so far and what has been spent; the budget's arithmetic in one place."""

    def __init__(self, budget: TuningBudget) -> None:
        self.budget = budget
        self.costs: dict[Run, RunCost] = {}
        self.runs = 0
        self.seconds = 0.0

    def take(self, answers: Mapping[Run, RunCost]) -> None:
        for run, answer in answers.items():
            self.costs[run] = answer
            self.runs += 1
            self.seconds += answer.seconds

    def per_run(self) -> float:
        """Seconds a run has cost on average (before any run: assume the budget buys 100 runs)."""
        if self.runs:
            return max(self.seconds / self.runs, 1e-6)
        assert self.budget.seconds is not None
        return self.budget.seconds / 100

    def remaining_runs(self) -> float:
        """Runs the budget still buys (by the runs' mean cost so far when the budget is seconds)."""
        left = math.inf
        if self.budget.runs is not None:
            left = self.budget.runs - self.runs
        if self.budget.seconds is not None:
            left = min(left, (self.budget.seconds - self.seconds) / self.per_run())
        return max(left, 0.0)

    def affords(self, runs: int) -> bool:
        if self.budget.runs is not None and self.runs + runs > self.budget.runs:
            return False
        return self.budget.seconds is None or self.seconds < self.budget.seconds


def planned_iterations(space: Space) -> int:
    return int(2 + math.log2(len(space.parameters)))


def survivors_wanted(space: Space) -> int:
    return int(2 + math.log2(len(space.parameters)))


def smallest_budget() -> int:
    """The fewest runs a tune can use: one race of two configurations to its first test."""
    return FIRST_TEST * 2


def iterated_race(
    space: Space, budget: TuningBudget, seed: int, log: list[Iteration] | None = None
) -> Generator[list[Run], Mapping[Run, RunCost], TuneOutcome]:
    """Race ``space`` within ``budget`` (module docstring); ``smallest_budget`` is checked before. ``log``
    hears each race as it starts and sees it fill in (a replay that stops short shows the race so far)."""
    rng = np.random.default_rng(seed)
    ledger = Ledger(budget)
    sampler = Sampler(space, rng, planned_iterations(space))
    wanted = survivors_wanted(space)
    elites: list[str] = []
    seen: dict[str, int] = {}  # blocks each configuration has run, from block 0
    iterations: list[Iteration] = []
    configs: dict[str, dict[str, Any]] = {}
    number = 0
    while ledger.affords(1):
        number += 1
        left = ledger.remaining_runs()
        share = left / max(planned_iterations(space) - number + 1, 1)
        size = max(int(share // (FIRST_TEST + min(5, number))), len(elites) + 1, 2)
        if FIRST_TEST * size > left:  # not even one test: a smaller race, or the tune is over
            size = int(left // FIRST_TEST)
            if size < max(len(elites) + 1, 2):
                break
        share = min(max(share, FIRST_TEST * size), left)  # every race reaches its first test
        new = sampler.propose(size - len(elites), elites, number, configs)
        if not new:
            break  # the space holds no configuration not raced yet
        configs.update((label, sampler.configs[label]) for label in new)
        iteration = Iteration(number, [*elites, *new], new)
        if log is not None:
            log.append(iteration)
        yield from race(iteration, ledger, share, elites, seen, wanted)
        if iteration.blocks == 0:
            if log is not None:
                log.remove(iteration)
            break
        iterations.append(iteration)
        elites = iteration.survivors[:wanted]
    if not iterations:
        raise ValueError("the budget did not buy one race")
    last = iterations[-1]
    return TuneOutcome(last.survivors[0], last.survivors[1:], configs, iterations, ledger.runs, ledger.seconds)


def race(
    iteration: Iteration, ledger: Ledger, share: float, elites: list[str], seen: dict[str, int], wanted: int
) -> Generator[list[Run], Mapping[Run, RunCost], None]:
    """One race: block after block, a Friedman test after each from the FIRST_TEST-th (module docstring)."""
    alive = list(iteration.entered)
    spent_before = ledger.runs
    block = 0
    while True:
        needed = [(label, block) for label in alive if (label, block) not in ledger.costs]
        if ledger.runs - spent_before + len(needed) > share or not ledger.affords(len(needed)):
            break
        if needed:
            ledger.take((yield needed))
        block += 1
        if block >= FIRST_TEST and (block - FIRST_TEST) % EACH_TEST == 0 and len(alive) > 1:
            protected = frozenset(e for e in elites if e in alive and seen.get(e, 0) > block)
            costs = cost_matrix(ledger, alive, block)
            test = friedman(alive, costs, protected)
            iteration.tests.append(test)
            alive = [label for label in test.configurations if label in test.kept]
        if len(alive) <= wanted and block >= FIRST_TEST:
            break
    iteration.blocks = block
    iteration.runs = ledger.runs - spent_before
    for label in alive:
        seen[label] = max(seen.get(label, 0), block)
    if block == 0:
        iteration.survivors = [label for label in alive if label in elites]
        return
    costs = cost_matrix(ledger, alive, block)
    ranks = mean_ranks(alive, costs)
    missed = dict(zip(alive, (costs >= UNDECIDED).sum(axis=0).tolist(), strict=True))
    iteration.survivors = sorted(alive, key=lambda label: (missed[label], ranks[label], alive.index(label)))


def cost_matrix(ledger: Ledger, labels: list[str], blocks: int) -> np.ndarray:
    return np.array([[ledger.costs[(label, b)].cost for label in labels] for b in range(blocks)], dtype=float)


class Sampler:
    """Where new configurations come from (irace's sampling, module docstring); deterministic given its rng."""

    def __init__(self, space: Space, rng: np.random.Generator, planned: int) -> None:
        self.space = space
        self.rng = rng
        self.planned = planned  # irace's N_iter: how fast choices are pulled towards the parent's
        self.configs: dict[str, dict[str, Any]] = {}
        self.spread: dict[str, dict[str, float]] = {}  # label -> numeric parameter -> its deviation
        self.odds: dict[str, dict[str, np.ndarray]] = {}  # label -> choice parameter -> its probabilities

    def propose(self, count: int, elites: list[str], iteration: int, known: Mapping[str, Any]) -> list[str]:
        """``count`` configurations not raced before (fewer if the space runs out of them)."""
        new: list[str] = []
        tries = 0
        while len(new) < count and tries < 100 * count:
            tries += 1
            if elites:
                parent = elites[self.rng.choice(len(elites), p=parent_weights(len(elites)))]
                config, spread, odds = self.child(parent, iteration, count)
            else:
                config, spread, odds = self.uniform()
            label = self.space.label(config)
            if label in known or label in new:
                continue
            self.configs[label], self.spread[label], self.odds[label] = config, spread, odds
            new.append(label)
        return new

    def uniform(self) -> tuple[dict[str, Any], dict[str, float], dict[str, np.ndarray]]:
        config: dict[str, Any] = {}
        for p in self.space.parameters:
            if p.kind == "choice":
                config[p.name] = p.choices[int(self.rng.integers(len(p.choices)))]
            else:
                low, high = bounds(p)
                config[p.name] = from_scale(p, self.rng.uniform(low, high))
        spread = {p.name: initial_spread(p) for p in self.space.parameters if p.kind != "choice"}
        odds = {p.name: uniform(p) for p in self.space.parameters if p.kind == "choice"}
        return config, spread, odds

    def child(
        self, parent: str, iteration: int, count: int
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, np.ndarray]]:
        config: dict[str, Any] = {}
        spread: dict[str, float] = {}
        odds: dict[str, np.ndarray] = {}
        shrink = (1 / max(count, 1)) ** (1 / len(self.space.parameters))
        pull = min((iteration - 1) / self.planned, 1.0)
        for p in self.space.parameters:
            value = self.configs[parent][p.name]
            if p.kind == "choice":
                moved = self.odds[parent][p.name] * (1 - pull)
                moved[p.choices.index(value)] += pull
                odds[p.name] = moved / moved.sum()
                config[p.name] = p.choices[int(self.rng.choice(len(p.choices), p=odds[p.name]))]
                continue
            spread[p.name] = self.spread[parent][p.name] * shrink
            config[p.name] = from_scale(p, self.truncated_normal(to_scale(p, value), spread[p.name], bounds(p)))
        return config, spread, odds

    def truncated_normal(self, mean: float, deviation: float, limits: tuple[float, float]) -> float:
        low, high = limits
        for _ in range(100):
            value = float(self.rng.normal(mean, deviation))
            if low <= value <= high:
                return value
        return min(max(mean, low), high)


def parent_weights(count: int) -> np.ndarray:
    weights = np.arange(count, 0, -1, dtype=float)  # the best elite N_e, the last 1
    return weights / weights.sum()


def bounds(p: Parameter) -> tuple[float, float]:
    assert p.low is not None and p.high is not None
    if p.log:
        return math.log(p.low), math.log(p.high)
    if p.kind == "int":
        return p.low - 0.5, p.high + 0.5  # each whole number gets an equal share of the range
    return p.low, p.high


def to_scale(p: Parameter, value: float) -> float:
    return math.log(value) if p.log else float(value)


def from_scale(p: Parameter, value: float) -> Any:
    return p.rounded(math.exp(value) if p.log else value)


def initial_spread(p: Parameter) -> float:
    low, high = bounds(p)
    return (high - low) / 2


def uniform(p: Parameter) -> np.ndarray:
    return np.full(len(p.choices), 1 / len(p.choices))


@dataclass
class Replay:
    """A tune read back from its results file: the race as far as the file goes, and the held-out runs."""

    space: Space
    goal: str
    budget: TuningBudget
    iterations: list[Iteration]
    outcome: TuneOutcome | None  # None: the file ends before the tune did (killed, or still running)
    test_records: list[dict[str, Any]]
    timeout: float | None


def replay(grid: Mapping[str, Any], records: Iterable[Mapping[str, Any]]) -> Replay:
    """Run the iterated race again from a results file's header (``grid``, as ``workflows/tune.py`` wrote
    it) and records, answering every run from the file: the same seed and costs make the same race. It
    stops where the file does. BadInput when the header is not a tune's."""
    tune = grid.get("tune")
    if not isinstance(tune, dict):
        raise BadInput("this results file holds no tune")
    space = Space.from_description(tune.get("space"))
    goal, budget_seen, boards = tune.get("goal"), tune.get("budget"), grid.get("boards")
    seed = grid.get("seed")
    if goal not in GOALS or not isinstance(budget_seen, dict) or not isinstance(boards, list) or not boards:
        raise BadInput("the tune header has no goal, budget or boards")
    if type(seed) is not int:
        raise BadInput("the tune header has no seed")
    budget = TuningBudget(positive(budget_seen.get("runs"), int), positive(budget_seen.get("seconds"), float))
    if budget.runs is None and budget.seconds is None:
        raise BadInput("the tune header has no budget")
    race_runs: dict[tuple[str, str, int], Mapping[str, Any]] = {}
    tests: list[dict[str, Any]] = []
    for record in records:
        phase = (record.get("tune") or {}).get("phase")
        if phase == "race":
            race_runs[(record["solver"], str(record.get("instance")), record["trial"])] = record
        elif phase == "test":
            tests.append(dict(record))
    log: list[Iteration] = []
    machine = iterated_race(space, budget, seed, log)
    outcome = None
    try:
        wanted = next(machine)
        while True:
            answers = {}
            for label, block in wanted:
                made = race_runs.get((label, str(boards[block % len(boards)]), block // len(boards)))
                if made is None:
                    raise LookupError
                answers[(label, block)] = RunCost(run_cost(made, goal), float(made["seconds"]))
            wanted = machine.send(answers)
    except StopIteration as stop:
        outcome = stop.value
    except LookupError:
        machine.close()
    timeout = grid.get("timeout")
    return Replay(
        space, goal, budget, log, outcome, tests, float(timeout) if isinstance(timeout, (int, float)) else None
    )


def positive(value: Any, kind: type) -> Any:
    """A budget's runs or seconds from a header: a positive number of that kind, or None."""
    if kind is int:
        return value if type(value) is int and value > 0 else None
    return (
        float(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < math.inf
        else None
    )
