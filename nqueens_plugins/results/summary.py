"""Results layer, parent side: a comparison's records summarised, one row per solver variant and board.

Summaries are computed from records alone (dicts as written to a results file,
streamed, never kept), so ``nqueens report`` shows exactly what ``nqueens
compare`` showed. The figures come from ``statistics.py``; ``report.py``,
``plot.py`` and ``html_report.py`` render them.

A run succeeds when it *decided* its instance, as SAT and CP competitions score:
a verified board, or a claim that none exists which agrees with what is known of
the instance. What is known (``settle``), strongest evidence first: a verified
board in the file (the instance has a solution, whatever anyone claims); the
verifier's own facts (plain boards, instances impossible on their face) and the
published answers of the CSPLib sets (``formats.published``); and two different
complete solvers in the file that both claim no solution while no board was
found. A no-solution claim that nothing confirms is shown as unconfirmed, not
scored; one against a known solution counts as invalid. An incomplete solver on
an instance known to have no solution cannot succeed there, and the row says so.

A no-solution claim read from a file is confirmed only by what the report can
vouch for now: the verifier's facts, a published answer, or its certificate
re-checked from the kept proof (``recheck.py``); the file's ``verified`` and its
"certified" are its word, shown as such ("none (certified, file's word)") and
never scored, and a kept proof the checker rejects now makes the claim invalid.
Records this process made (what ``compare`` returns) carry the host's own
verdicts, checked as they were made.
"""

from __future__ import annotations

import math
import re
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import Problem, Status
from nqueens_plugins.core.solver import matching_spec
from nqueens_plugins.core.verify import instance_contradiction
from nqueens_plugins.formats.published import published_answer
from nqueens_plugins.formats.records import instance_label
from nqueens_plugins.formats.run_record import RunRecord
from nqueens_plugins.results.recheck import (
    CERTIFIED,
    FILES_WORD,
    OVER_BUDGET,
    REJECTED,
    UNCHECKED,
    Certificates,
    Fate,
    host_fate,
)
from nqueens_plugins.results.statistics import (
    Runs,
    censored_quantile,
    compare_to_baseline,
    par,
    weighted_ert,
    wilson_interval,
)


@dataclass
class SummaryRow:
    """One variant on one board. Seconds are the solver call's; censored figures are None (see statistics.py)."""

    solver: str
    n: int
    instance: str | None  # None for plain boards; else the instance's file (or n and content hash)
    runs: int
    decided: int  # runs that decided the instance: solved, or proved it has no solution (the success)
    solved: int  # verified boards
    success_rate: float | None  # decided / runs; None without runs (a refused board)
    success_low: float | None  # 95 % Wilson interval
    success_high: float | None
    time_limit: float | None  # seconds; unsolved runs are censored there
    median_seconds: float | None  # None: the median run did not decide (undecided_end says how they ended)
    q25_seconds: float | None
    q75_seconds: float | None
    ert_seconds: float | None  # None: no run solved (infinite)
    ert_iterations: float | None
    par10_seconds: float | None  # None without a time limit
    mean_iterations: float | None
    mean_moves: float | None
    no_solution: int  # no-solution claims confirmed (part of decided) or unconfirmed, never refuted ones
    proved: int  # no-solution claims confirmed: decided
    unconfirmed: int  # no-solution claims nothing confirms or refutes: not scored
    gave_up: int
    timed_out: int
    error: int
    invalid: int  # the verifier rejected the answer, or a no-solution claim against a known solution
    answer: str = "unknown"  # what is known of the instance: "has solutions", "has none", "unknown" (settle)
    cannot_decide: bool = False  # an incomplete solver on an instance with no solution: 0 % is no failure
    seed: int | None = None
    version: str | None = None
    refused: str | None = None  # why the solver refused the board before any run (then runs is 0)
    # How the runs that did not decide ended, when all alike: "timed-out" (each ran to the limit, so a
    # quantile on them is more than the limit), "gave-up" (each stopped on its own before it); else
    # "mixed"; None when every run decided.
    undecided_end: str | None = None
    # What became of the no-solution claims' certificates (``recheck.py``), one count per fate:
    certified: int = 0  # checked now and refuting the instance: re-checked from the kept proof (or, for runs made
    # in this process, by the host as they ran): part of ``proved``
    certified_word: int = 0  # "certified" by the file's word alone (no proof checked now): never counted as decided
    certificate_rejected: int = 0  # the proof is wrong (re-checked now, or rejected when the run was made): invalid
    certificate_over_budget: int = 0  # its check could not finish within its limits
    certificate_unchecked: int = 0  # no certificate, or the checker failed
    certificates: int = 0  # no-solution claims that came with a certificate (the table shows the column then)
    rechecked: int = 0  # certificates this report re-checked from their kept proofs (whatever the checker said)
    # Deprecated since 0.2 (goes in 0.3; CHANGELOG.md): certificates that went over budget or could not be
    # checked, as 0.1 counted them; ``certificate_over_budget`` and ``certificate_unchecked`` say it apart.
    uncertified: int = 0
    # The textbooks' step count (a solver's ``steps`` counter: queens moved by the search itself, a restart's
    # new board apart), averaged as AIMA's 8-queens table does: over the runs that solved, and over those
    # that got stuck (gave up or timed out). None where no such run reported steps.
    steps_solved: float | None = None
    steps_stuck: float | None = None
    # What the runs cost (record version 3, docs/measurement.md), over the runs that were measured; None when
    # none was (older records, runs killed at their limit, in-process runs). Memory in bytes.
    measured: int = 0  # runs with a CPU or memory figure
    cpu_q25_seconds: float | None = None
    cpu_median_seconds: float | None = None
    cpu_q75_seconds: float | None = None
    peak_memory_median_bytes: float | None = None
    peak_memory_max_bytes: float | None = None
    parallel: bool | None = None  # the median run used more than one core (``PARALLEL_RATIO``)
    waiting: bool | None = None  # the median run of some length waited for a core (``WAITING_RATIO``)


def natural_order(key: tuple[str, int, str]) -> tuple[Any, ...]:
    """Solver, n, then the instance name with its numbers compared as numbers (file@9 before file@10)."""
    solver, n, instance = key
    parts = tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", instance))
    return (solver, n, parts)


# A run's answer (Group.answers): a verified board; a no-solution claim confirmed now, bare, or "certified" by the
# file's word alone (a bare claim that says more: it is shown apart, and no more scored than a bare one).
SOLVED, PROVED, CLAIMED, WORD = 1, 2, 3, 4


Kind = tuple[int, bool]  # a run's answer (SOLVED, PROVED, CLAIMED, WORD or 0) and whether it is counted


@dataclass
class Group:
    """What a summary keeps of one group's runs while the file streams past: numbers, not records.

    Per run, only what a median, an ERT or a figure needs run by run: its seconds and iterations (typed
    arrays, 8 bytes a number), its answer and whether its counters count (1 byte each), 18 bytes in all;
    moves and steps, which are only ever averaged, are kept as sums per kind of run (``Kind``). A run
    equal to the one before it in all four is not stored again but counted (``repeats``), so a file of
    one record repeated ten million times is held in a few bytes (``nqueens report`` on it stays flat:
    benchmarks/records_reader.py --report-memory). ``seconds``, ``iterations``, ``answers``, ``counted``
    and ``decided`` are one entry a run, as they always were; ``runs()`` gives the weighted entries. A run that
    was measured (record version 3) adds 24 bytes of costs (``cost_cpu``), and none when it repeats the one before."""

    # One entry per stored run; ``repeats[i]``: how many more runs entry i stands for.
    stored_seconds: array[float] = field(default_factory=lambda: array("d"))
    stored_iterations: array[float] = field(default_factory=lambda: array("d"))
    stored_answers: array[int] = field(default_factory=lambda: array("b"))  # SOLVED, PROVED, CLAIMED, WORD, 0
    stored_counted: array[int] = field(default_factory=lambda: array("b"))  # not error or invalid
    repeats: dict[int, int] = field(default_factory=dict)
    kinds: Counter[Kind] = field(default_factory=Counter)  # runs of each kind
    moves: dict[Kind, float] = field(default_factory=lambda: defaultdict(float))  # the sum of their moves
    steps: dict[Kind, float] = field(default_factory=lambda: defaultdict(float))  # of their counters.steps
    stepped: Counter[Kind] = field(default_factory=Counter)  # how many of them reported steps
    statuses: Counter[str] = field(default_factory=Counter)
    limits: set[float | None] = field(default_factory=set)
    family: tuple[str, int] | None = None  # the instance family's parameter (family_parameter), for plots
    source: str | None = None  # the instance's file (for its published answer)
    incomplete: bool = False  # its records say the solver is not complete (older records do not say)
    satisfiable: bool | None = None  # what is known of the instance, once settled (``settle``)
    fates: Counter[str] = field(default_factory=Counter)  # no-solution claims by their certificate's fate (recheck)
    certificates: int = 0  # claims that came with a certificate
    rechecked: int = 0  # certificates this report re-checked from their kept proofs
    rejected_claims: int = 0  # no-solution claims whose proof the checker rejected now: invalid
    uncertified: int = 0  # certificates over budget or unchecked (SummaryRow.uncertified, deprecated)
    settled_by_certificate: bool = False  # the instance's "has none" rests on a certificate checked now (``settle``)
    word_claimed: bool = False  # nothing settles the instance, but some claim is "certified" by the file's word
    on_its_face: bool | None = None  # the verifier's facts say the instance has no solution (``impossible``)
    refused: str | None = None  # why the solver refused the board before any run (a refusal record)
    board: tuple[int, Any, Any] | None = None  # n, fixed and blocked of its first run: a selector's features
    # What the measured runs cost (record version 3): their CPU seconds, peak memory and wall seconds, NaN for a
    # figure not measured; 24 bytes a measured run, none for a run not measured (older records), and a run equal
    # to the one before it in all three counted in ``cost_repeats`` as ``repeats`` does.
    cost_cpu: array[float] = field(default_factory=lambda: array("d"))
    cost_memory: array[float] = field(default_factory=lambda: array("d"))
    cost_seconds: array[float] = field(default_factory=lambda: array("d"))
    cost_repeats: dict[int, int] = field(default_factory=dict)
    # Which seconds rank the runs (``TIMES``): "wall", the solver call's (``seconds``), or "cpu", its
    # ``cpu_seconds``; a run without them that did not decide counts at its limit (``time_of``).
    time: str = "wall"
    # Under "cpu": runs without ``cpu_seconds`` by their answer, -1 for one with no limit to count at either;
    # those that decided (``missing_cpu``) cannot be ranked, and ``group_runs`` refuses the file.
    cpu_missing: Counter[int] = field(default_factory=Counter)

    def add(self, record: RunRecord, fate: Fate | None = None) -> None:
        """Count one run. ``fate``: what became of its certificate, settled by the report (``recheck.py``) for a
        record read from a file; None for a record this process made, whose verdict is the host's own."""
        if record.status == Status.REFUSED:  # a fact of the comparison, not a run
            self.refused = str(record.reason or "refused")
            self.source = self.source or record.source
            return
        if not self.stored_seconds:  # the first run: the instance's family and file are the same for all its runs
            self.family = family_parameter(record)
            self.source = record.source
            self.board = (record.n, record.fixed or {}, record.blocked or [])
        status, verified = record.status, record.verified
        if status == Status.SOLVED and verified is True:
            answer = SOLVED
        elif status == Status.NO_SOLUTION:
            answer = self.claim(record, fate)
        else:
            answer = 0
            if status == Status.INVALID:
                self.tally(fate if fate is not None else host_fate(record))
        counted = status not in (Status.ERROR, Status.INVALID)
        self.store(self.time_of(record, answer), float(record.iterations or 0), answer, counted)
        if record.cpu_seconds is not None or record.peak_memory_bytes is not None:
            self.store_cost(record.cpu_seconds, record.peak_memory_bytes, float(record.seconds))
        kind = (answer, counted)
        self.kinds[kind] += 1
        self.moves[kind] += float(record.moves or 0)
        steps = steps_of(record)
        if not math.isnan(steps):
            self.steps[kind] += steps
            self.stepped[kind] += 1
        self.statuses[str(status)] += 1
        self.incomplete = self.incomplete or record.complete is False
        limit = record.timeout
        self.limits.add(float(limit) if isinstance(limit, (int, float)) and not isinstance(limit, bool) else None)

    def time_of(self, record: RunRecord, answer: int) -> float:
        """The run's seconds as ``time`` chooses. Under "cpu", a run without ``cpu_seconds`` (older records, a
        run killed at its limit, an in-process run) counts at its limit, ``timeout``: right for one that did
        not decide (censored there anyway), and for one that did, counted in ``cpu_missing`` for refusal."""
        if self.time == "wall":
            return float(record.seconds)
        if record.cpu_seconds is not None:
            return float(record.cpu_seconds)
        limit = record.timeout
        if isinstance(limit, (int, float)) and not isinstance(limit, bool):
            self.cpu_missing[answer] += 1
            return float(limit)
        self.cpu_missing[-1] += 1  # no limit to count it at: it cannot be ranked by CPU time either
        return float(record.seconds)

    @property
    def missing_cpu(self) -> int:
        """Under "cpu": runs that cannot be ranked by CPU time, those that decided without ``cpu_seconds`` and
        those without a limit to count at (known once ``settle`` said what decided)."""
        return sum(runs for answer, runs in self.cpu_missing.items() if answer == -1 or self.deciding(answer))

    def claim(self, record: RunRecord, fate: Fate | None) -> int:
        """A no-solution claim's answer: the host's verdict for a record made here; for one read from a file,
        what the report vouches for now (a certificate checked now, the verifier's facts), else the file's word."""
        if fate is None:
            self.tally(host_fate(record))
            return PROVED if record.verified is True else CLAIMED
        self.tally(fate)
        if fate.status == REJECTED:
            self.rejected_claims += 1
            return 0
        if fate.status == CERTIFIED or self.impossible():
            return PROVED
        return WORD if fate.status == FILES_WORD else CLAIMED

    def tally(self, fate: Fate | None) -> None:
        if fate is not None:
            self.fates[fate.status] += 1
            self.certificates += fate.with_certificate
            self.rechecked += fate.rechecked
            self.uncertified += fate.with_certificate and fate.status in (OVER_BUDGET, UNCHECKED)

    def impossible(self) -> bool:
        """Whether the verifier's own facts say this group's instance has no solution: a plain board of 2 or 3,
        or an instance impossible on its face (fixed queens attacking each other or blocked, a line all blocked)."""
        if self.on_its_face is None:
            n, fixed, blocked = self.board or (0, {}, [])
            problem = Problem(n, {int(c): int(r) for c, r in fixed.items()}, frozenset(map(tuple, blocked)))
            plain = not problem.fixed and not problem.blocked
            self.on_its_face = n in (2, 3) if plain else instance_contradiction(problem) is not None
        return self.on_its_face

    def store(self, seconds: float, iterations: float, answer: int, counted: bool) -> None:
        """One run's entry, or one more count of the entry before it when the run is the same in all four."""
        last = len(self.stored_seconds) - 1
        if (
            last >= 0
            and self.stored_seconds[last] == seconds
            and self.stored_iterations[last] == iterations
            and self.stored_answers[last] == answer
            and self.stored_counted[last] == counted
        ):
            self.repeats[last] = self.repeats.get(last, 0) + 1
            return
        self.stored_seconds.append(seconds)
        self.stored_iterations.append(iterations)
        self.stored_answers.append(answer)
        self.stored_counted.append(counted)

    def store_cost(self, cpu: float | None, memory: int | None, seconds: float) -> None:
        """One measured run's costs, or one more count of the entry before it when they are the same."""
        entry = (math.nan if cpu is None else float(cpu), math.nan if memory is None else float(memory), seconds)
        last = len(self.cost_cpu) - 1
        if last >= 0 and all(
            same(stored[last], value)
            for stored, value in zip((self.cost_cpu, self.cost_memory, self.cost_seconds), entry, strict=True)
        ):
            self.cost_repeats[last] = self.cost_repeats.get(last, 0) + 1
            return
        self.cost_cpu.append(entry[0])
        self.cost_memory.append(entry[1])
        self.cost_seconds.append(entry[2])

    def cost_weights(self) -> np.ndarray:
        """How many measured runs each stored cost entry stands for."""
        weights = np.ones(len(self.cost_cpu), dtype=np.int64)
        if self.cost_repeats:
            weights[list(self.cost_repeats)] += list(self.cost_repeats.values())
        return weights

    def weights(self) -> np.ndarray | None:
        """How many runs each stored entry stands for (None: one each)."""
        if not self.repeats:
            return None
        weights = np.ones(len(self.stored_seconds), dtype=np.int64)
        weights[list(self.repeats)] += list(self.repeats.values())
        return weights

    def each_run(self, stored: array[Any]) -> array[Any]:
        """A stored array with one entry a run (itself when no run repeats the one before it)."""
        weights = self.weights()
        if weights is None:
            return stored
        return array(stored.typecode, np.repeat(np.frombuffer(stored, dtype=stored.typecode), weights).tobytes())

    @property
    def has_runs(self) -> bool:
        """Whether the group holds any run (a refusal holds none): asked without making ``seconds`` run by run."""
        return bool(self.stored_seconds)

    @property
    def seconds(self) -> array[float]:
        """Each run's seconds (made one entry a run, where runs repeat: ``has_runs`` asks whether there are any)."""
        return self.each_run(self.stored_seconds)

    @property
    def iterations(self) -> array[float]:
        return self.each_run(self.stored_iterations)

    @property
    def answers(self) -> array[int]:
        return self.each_run(self.stored_answers)

    @property
    def counted(self) -> array[int]:
        return self.each_run(self.stored_counted)

    @property
    def certified(self) -> int:
        """No-solution claims whose certificate was checked now (or by the host, for runs made here) and holds."""
        return self.fates[CERTIFIED]

    def extend(self, other: Group) -> None:
        offset = len(self.stored_seconds)
        for name in ("stored_seconds", "stored_iterations", "stored_answers", "stored_counted"):
            getattr(self, name).extend(getattr(other, name))
        self.repeats.update({offset + index: extra for index, extra in other.repeats.items()})
        cost_offset = len(self.cost_cpu)
        for name in ("cost_cpu", "cost_memory", "cost_seconds"):
            getattr(self, name).extend(getattr(other, name))
        self.cost_repeats.update({cost_offset + index: extra for index, extra in other.cost_repeats.items()})
        self.kinds.update(other.kinds)
        self.stepped.update(other.stepped)
        for kind, total in other.moves.items():
            self.moves[kind] += total
        for kind, total in other.steps.items():
            self.steps[kind] += total
        self.statuses.update(other.statuses)
        self.limits |= other.limits
        self.family = self.family or other.family
        self.source = self.source or other.source
        self.board = self.board or other.board
        self.incomplete = self.incomplete or other.incomplete
        self.refused = self.refused or other.refused
        self.fates.update(other.fates)
        self.certificates += other.certificates
        self.rechecked += other.rechecked
        self.uncertified += other.uncertified
        self.rejected_claims += other.rejected_claims
        self.cpu_missing.update(other.cpu_missing)

    def count(self, answer: int) -> int:
        return sum(runs for (kind, _), runs in self.kinds.items() if kind == answer)

    def deciding(self, answer: int) -> bool:
        """Whether a run with this answer decided the instance, given what is known of it (``settle``)."""
        if answer == SOLVED:
            return True
        if answer == PROVED:
            return self.satisfiable is not True
        return answer in (CLAIMED, WORD) and self.satisfiable is False

    def stored_decided(self) -> np.ndarray:
        """Which stored entries decided the instance (``deciding``)."""
        answers = np.frombuffer(self.stored_answers, dtype=np.int8)
        confirmed = ((answers == CLAIMED) | (answers == WORD)) & (self.satisfiable is False)
        return (answers == SOLVED) | ((answers == PROVED) & (self.satisfiable is not True)) | confirmed

    @property
    def decided(self) -> np.ndarray:
        """Which runs decided the instance: a verified board, or a no-solution claim that agrees with what is known."""
        decided, weights = self.stored_decided(), self.weights()
        return decided if weights is None else np.repeat(decided, weights)

    def mean_of(self, totals: Mapping[Kind, float], counts: Mapping[Kind, int], decided: bool | None) -> float | None:
        """The mean of a per-kind sum over the counted runs (that decided, if ``decided``; that did not, if False)."""
        chosen = [
            kind
            for kind in counts
            if kind[1] and counts[kind] and (decided is None or self.deciding(kind[0]) == decided)
        ]
        runs = sum(counts[kind] for kind in chosen)
        return sum(totals.get(kind, 0.0) for kind in chosen) / runs if runs else None

    @property
    def refuted(self) -> int:
        """No-solution claims against a known solution (they count as invalid)."""
        return self.count(CLAIMED) + self.count(PROVED) + self.count(WORD) if self.satisfiable is True else 0

    @property
    def cannot_decide(self) -> bool:
        return self.incomplete and self.satisfiable is False

    def runs(self) -> Runs:
        """The group's runs, each stored entry weighted by the runs it stands for (``Runs.expanded`` for one a run)."""
        limits = [limit for limit in self.limits if limit is not None]
        limit = max(limits) if limits and None not in self.limits else None
        return Runs.of(self.stored_seconds, self.stored_iterations, self.stored_decided(), limit, self.weights())


def settle(groups: Mapping[GroupKey, Group]) -> None:
    """What is known of each instance, from every group that ran it and from published facts (the
    module docstring gives the order of evidence); stored on each group as ``satisfiable``."""
    by_instance: dict[tuple[int, str], list[tuple[str, Group]]] = defaultdict(list)
    for (solver, n, instance, _, _), group in groups.items():
        by_instance[(n, instance)].append((solver, group))
    for (n, instance), members in by_instance.items():
        answer = known_answer(n, instance, members)
        by_certificate = answer is False and any(group.certified for _, group in members)
        if by_certificate and instance:  # unless a published answer or a fact settled it first
            by_certificate = published_answer(next((g.source for _, g in members if g.source), None), n) is None
        word = answer is None and any(group.count(WORD) for _, group in members)
        for _, group in members:
            group.satisfiable = answer
            group.settled_by_certificate = by_certificate
            group.word_claimed = word


def known_answer(n: int, instance: str, members: list[tuple[str, Group]]) -> bool | None:
    if any(group.count(SOLVED) for _, group in members):
        return True  # a verified board outranks every claim
    if not instance:
        return n not in (2, 3)  # a plain board: every n but 2 and 3 has solutions
    published = published_answer(next((g.source for _, g in members if g.source), None), n)
    if published is not None:
        return published
    if any(group.count(PROVED) for _, group in members):
        return False  # the verifier confirmed a claim (an instance impossible on its face)
    claimants = {solver.partition("[")[0] for solver, group in members if group.count(CLAIMED) or group.count(WORD)}
    return False if len(claimants) >= 2 else None  # two different complete solvers agree


def family_parameter(record: RunRecord) -> tuple[str, int] | None:
    """What an instance family varies, read off a record: the prefix d of an Excluded Diagonals
    file (FILE@d), else the number of blocked squares, else of fixed queens; None for plain boards."""
    source = str(record.source or "")
    match = re.search(r"@(\d+)$", source)
    if match:
        return ("excluded diagonals d", int(match.group(1)))
    if record.blocked:
        return ("blocked squares", len(record.blocked))
    if record.fixed:
        return ("fixed queens", len(record.fixed))
    return None


GroupKey = tuple[str, int, str, Any, Any]  # solver, n, instance, seed, version
# Groups one summary may hold (about 2 KB each): a file of ten million runs each under a seed of its own would
# otherwise make ten million groups, some 20 GB. A tune of 1,000 configurations on 100 instances makes 100,000.
MAX_GROUPS = 250_000


# What ``--time`` may choose to rank runs by: the solver call's wall seconds (the default) or its CPU seconds.
TIMES = ("wall", "cpu")


# What a summary under ``--time cpu`` says of its figures (beneath the table; in the notes elsewhere).
CPU_TIME_LINE = (
    "times: CPU seconds (--time cpu), censored at each run's wall time limit; a run that did not decide and "
    "has no CPU figure counts at its limit"
)


def check_time(time: str) -> str:
    """``time`` if it is one of ``TIMES``; BadInput (one line) otherwise."""
    if time not in TIMES:
        raise BadInput(f"time is one of {', '.join(TIMES)}, not {time!r}")
    return time


def group_runs(
    records: Iterable[RunRecord | Mapping[str, Any]], certificates: Certificates | None = None, time: str = "wall"
) -> tuple[dict[GroupKey, Group], list[str]]:
    """Runs grouped by variant and board; split by seed and version too where the file mixes them (said).

    ``certificates`` settles the certificates of records read from a file (``recheck.Certificates``); without
    it the records are this process's own (what ``compare`` returned: mappings are taken as
    ``RunRecord.given``) and their verdicts the host's. ``time`` ("wall" or "cpu") chooses the seconds every
    figure ranks runs by, picked here once: each ``Group`` stores those (``Group.time_of``). Under "cpu" a run
    that decided without ``cpu_seconds`` cannot be ranked, and the records are refused (BadInput) rather than
    ranked on wall and CPU seconds mixed."""
    check_time(time)
    groups: dict[GroupKey, Group] = defaultdict(lambda: Group(time=time))
    seeds: set[Any] = set()
    versions: dict[str, set[Any]] = defaultdict(set)
    for given in records:
        record = RunRecord.given(given)
        seed, version = record.seed, record.version
        seeds.add(seed)
        versions[str(record.solver)].add(version)
        fate = certificates.settle(record) if certificates is not None else None
        key = (str(record.solver), int(record.n), instance_label(record) or "", seed, version)
        if key not in groups and len(groups) >= MAX_GROUPS:
            raise BadInput(
                f"the runs make more than {MAX_GROUPS:,} groups (solver variant, board, seed and version each apart): "
                "more than one summary holds; split the file by solver or board"
            )
        groups[key].add(record, fate)
    notes = []
    mixed_seeds = len(seeds) > 1
    mixed_versions = sorted(solver for solver, found in versions.items() if len(found) > 1)
    if mixed_seeds:
        notes.append(
            f"the file mixes runs made with seeds {', '.join(str(s) for s in sorted(seeds, key=str))}: "
            "each seed is summarised apart, not pooled"
        )
    if mixed_versions:
        notes.append(
            f"the file mixes versions of {', '.join(mixed_versions)}: each version is summarised apart, not pooled"
        )
    merged: dict[GroupKey, Group] = defaultdict(Group)  # keyed by seed and version only where they vary
    for (solver, n, instance, seed, version), group in groups.items():
        pooled: GroupKey = (
            solver,
            n,
            instance,
            seed if mixed_seeds else None,
            version if solver in mixed_versions else None,
        )
        if pooled in merged:
            merged[pooled].extend(group)
        else:
            merged[pooled] = group  # moved, not copied: a group of ten million runs is not held twice
    settle(merged)
    if time == "cpu":
        refuse_missing_cpu(merged)
    return merged, notes


def refuse_missing_cpu(groups: Mapping[GroupKey, Group]) -> None:
    """BadInput when some run that decided has no ``cpu_seconds`` (or no limit to count at): CPU time cannot
    rank it, and its wall seconds in its place would mix the two clocks silently."""
    missing = sum(group.missing_cpu for group in groups.values())
    if missing:
        runs = sum(sum(group.kinds.values()) for group in groups.values())
        raise BadInput(
            f"--time cpu: {missing:,} of the {runs:,} runs decided (or had no time limit to count at) without "
            "cpu_seconds (records before version 3, or runs made in-process): CPU time cannot rank them; use --time wall"
        )


def summarise(
    records: Iterable[RunRecord | Mapping[str, Any]],
    notes: list[str] | None = None,
    certificates: Certificates | None = None,
    time: str = "wall",
) -> list[SummaryRow]:
    """One row per solver variant and board (n, or instance), streaming: records are not kept.

    ``notes`` receives what the reader should know (a file mixing seeds or versions); ``certificates``
    settles the certificates of records read from a file (``group_runs``).
    """
    groups, found_notes = group_runs(records, certificates, time)
    if notes is not None:
        notes.extend(found_notes)
    return summary_rows(groups)


def summary_rows(groups: Mapping[GroupKey, Group]) -> list[SummaryRow]:
    rows = []
    for key in sorted(groups, key=lambda k: (*natural_order(k[:3]), str(k[3]), str(k[4]))):
        solver, n, instance, seed, version = key
        group = groups[key]
        if not group.stored_seconds:  # refused before any run (a board the solver later took has runs instead)
            rows.append(refused_row(solver, n, instance or None, group, seed, version))
            continue
        runs = group.runs()
        decided = runs.successes
        low, high = wilson_interval(decided, len(runs))
        counted = np.asarray(group.stored_counted, dtype=bool)
        quartiles = [censored_quantile(runs, q) for q in (0.25, 0.5, 0.75)]
        claims = group.statuses["no-solution"] - group.refuted - group.rejected_claims  # neither refuted nor rejected
        rows.append(
            SummaryRow(
                solver=solver,
                n=n,
                instance=instance or None,
                runs=len(runs),
                decided=decided,
                solved=group.count(SOLVED),
                success_rate=decided / len(runs),
                success_low=low,
                success_high=high,
                time_limit=runs.limit,
                q25_seconds=finite(quartiles[0]),
                median_seconds=finite(quartiles[1]),
                q75_seconds=finite(quartiles[2]),
                ert_seconds=finite(weighted_ert(runs, runs.seconds)),
                ert_iterations=finite(weighted_ert(runs, runs.iterations)),
                par10_seconds=par(runs),
                mean_iterations=mean_counted(runs, counted),
                mean_moves=group.mean_of(group.moves, group.kinds, None),
                no_solution=claims,
                proved=decided - group.count(SOLVED),
                unconfirmed=claims - (decided - group.count(SOLVED)),
                gave_up=group.statuses["gave-up"],
                timed_out=group.statuses["timed-out"],
                error=group.statuses["error"],
                invalid=group.statuses["invalid"] + group.refuted + group.rejected_claims,
                answer=answer_label(group),
                cannot_decide=group.cannot_decide,
                certified=group.fates[CERTIFIED],
                certified_word=group.fates[FILES_WORD],
                certificate_rejected=group.fates[REJECTED],
                certificate_over_budget=group.fates[OVER_BUDGET],
                certificate_unchecked=group.fates[UNCHECKED],
                certificates=group.certificates,
                rechecked=group.rechecked,
                uncertified=group.uncertified,
                steps_solved=group.mean_of(group.steps, group.stepped, True),
                steps_stuck=group.mean_of(group.steps, group.stepped, False),
                seed=seed,
                version=version,
                undecided_end=undecided_end(group, decided),
                **cost_figures(group),
            )
        )
    return rows


# The fields of ``SummaryRow`` that say what the runs cost: shown (CSV and JSON too) only where some row has them.
COST_FIELDS = (
    "measured",
    "cpu_q25_seconds",
    "cpu_median_seconds",
    "cpu_q75_seconds",
    "peak_memory_median_bytes",
    "peak_memory_max_bytes",
    "parallel",
    "waiting",
)

# A run's CPU seconds over its wall seconds say how it used the machine: about 1 for a run on one core it had to
# itself. Above 1.2 it used more than one core (threads or child processes): 1 plus a margin for what the CPU
# figure counts that the wall figure does not (the worker's system time around the call, the meter's reading
# of /proc), a few per cent, and for a clock's granularity. Below 0.5 it spent more than half its wall time off
# the CPU: waiting for a core on a loaded machine, or for I/O (a solver's subprocess, a file). Both are judged
# on the median run of at least ``RATIO_FROM_SECONDS`` wall seconds: in a shorter one a few milliseconds of
# start-up, or of a clock's tick, move the ratio by more than these margins.
PARALLEL_RATIO = 1.2
WAITING_RATIO = 0.5
RATIO_FROM_SECONDS = 0.1


def cost_figures(group: Group) -> dict[str, Any]:
    """The cost fields of a group's ``SummaryRow`` (none set when no run of it was measured)."""
    if not group.cost_cpu:
        return {}
    weights = group.cost_weights()
    cpu = np.frombuffer(group.cost_cpu, dtype=np.float64)
    memory = np.frombuffer(group.cost_memory, dtype=np.float64)
    wall = np.frombuffer(group.cost_seconds, dtype=np.float64)
    figures: dict[str, Any] = {"measured": int(weights.sum())}
    timed = ~np.isnan(cpu)
    if timed.any():
        for name, q in (("cpu_q25_seconds", 0.25), ("cpu_median_seconds", 0.5), ("cpu_q75_seconds", 0.75)):
            figures[name] = weighted_quantile(cpu[timed], weights[timed], q)
        long = timed & (wall >= RATIO_FROM_SECONDS)
        if long.any():
            ratio = weighted_quantile(cpu[long] / wall[long], weights[long], 0.5)
            figures["parallel"] = ratio > PARALLEL_RATIO
            figures["waiting"] = ratio < WAITING_RATIO
    sized = ~np.isnan(memory)
    if sized.any():
        figures["peak_memory_median_bytes"] = weighted_quantile(memory[sized], weights[sized], 0.5)
        figures["peak_memory_max_bytes"] = float(memory[sized].max())
    return figures


def weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """``np.quantile`` (linear) of ``values`` each repeated ``weights`` times, without making the repeats."""
    order = np.argsort(values, kind="stable")
    ordered, ends = values[order], np.cumsum(weights[order])  # ends[i]: runs up to and with entry i
    position = q * (int(ends[-1]) - 1)  # in the repeated array
    below = math.floor(position)
    low = ordered[np.searchsorted(ends, below, side="right")]
    high = ordered[np.searchsorted(ends, min(below + 1, int(ends[-1]) - 1), side="right")]
    return float(low + (high - low) * (position - below))


def same(stored: float, value: float) -> bool:
    """Equal, NaN (a figure not measured) equal to NaN."""
    return stored == value or (math.isnan(stored) and math.isnan(value))


def steps_of(record: RunRecord) -> float:
    """A record's ``counters.steps`` (NaN if it has none: not every method counts the textbooks' steps)."""
    counters = record.counters
    steps = counters.get("steps") if isinstance(counters, Mapping) else None
    return float(steps) if isinstance(steps, (int, float)) and not isinstance(steps, bool) else math.nan


def mean_counted(runs: Runs, counted: np.ndarray) -> float | None:
    """The mean iterations of the counted runs (None if none is), each entry weighted by the runs it stands for."""
    if not counted.any():
        return None
    if runs.weights is None:
        return float(np.mean(runs.iterations[counted]))
    return float(np.dot(runs.iterations[counted], runs.weights[counted]) / runs.weights[counted].sum())


def answer_label(group: Group) -> str:
    """What is known of the group's instance, as the "known" column shows it."""
    if group.satisfiable is False and group.settled_by_certificate:
        return "none (certified)"
    if group.satisfiable is None and group.word_claimed:
        return "none (certified, file's word)"  # what the file says, qualified: nothing here confirms it
    return {True: "has solutions", False: "has none", None: "unknown"}[group.satisfiable]


def undecided_end(group: Group, decided: int) -> str | None:
    """How the runs that did not decide ended, if all alike: what a censored quantile can truly say of
    them. "More than the limit" is true only of runs that ran to it; a run that gave up after 0.8 s did not."""
    undecided = sum(group.kinds.values()) - decided
    if undecided == 0:
        return None
    return next((status for status in ("timed-out", "gave-up") if group.statuses[status] == undecided), "mixed")


def refused_row(solver: str, n: int, instance: str | None, group: Group, seed: Any, version: Any) -> SummaryRow:
    """The row of a board the solver refused: no runs, no figures, the reason."""
    return SummaryRow(
        solver=solver,
        n=n,
        instance=instance,
        runs=0,
        decided=0,
        solved=0,
        success_rate=None,
        success_low=None,
        success_high=None,
        time_limit=None,
        median_seconds=None,
        q25_seconds=None,
        q75_seconds=None,
        ert_seconds=None,
        ert_iterations=None,
        par10_seconds=None,
        mean_iterations=None,
        mean_moves=None,
        no_solution=0,
        proved=0,
        unconfirmed=0,
        gave_up=0,
        timed_out=0,
        error=0,
        invalid=0,
        answer=answer_label(group),
        seed=seed,
        version=version,
        refused=group.refused,
    )


def finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


@dataclass
class BaselineRow:
    solver: str
    n: int
    instance: str | None
    runs: int
    baseline_runs: int
    ert_ratio: float | None  # this variant's ERT over the baseline's: below 1 is faster; None if undefined
    ratio_low: float | None  # bootstrap 95 % interval
    ratio_high: float | None
    p_value: float | None  # Mann-Whitney U, two-sided, censored at the smaller limit
    verdict: str


def baseline_rows(groups: Mapping[GroupKey, Group], baseline: str) -> list[BaselineRow]:
    """Every other variant against ``baseline`` on each board both ran (``statistics.compare_to_baseline``)."""
    solvers = sorted({key[0] for key in groups})
    matched = matching_spec(baseline, solvers)  # by value: [t0=8,cooling=0.9] is [cooling=0.9,t0=8.0]
    if matched is None:
        raise BadInput(f"baseline {baseline!r} is not in the file; it holds {', '.join(solvers)}")
    baseline = matched
    base = {(key[1], key[2]): group for key, group in groups.items() if key[0] == baseline and group.has_runs}
    rows = []
    for key in sorted(groups, key=lambda k: (*natural_order(k[:3]), str(k[3]), str(k[4]))):
        solver, n, instance = key[:3]
        if solver == baseline or (n, instance) not in base or not groups[key].has_runs:
            continue
        mine, theirs = groups[key].runs(), base[(n, instance)].runs()
        compared = compare_to_baseline(mine, theirs)
        verdict = compared.verdict()
        if groups[key].cannot_decide != base[(n, instance)].cannot_decide:  # no test needed: one can never succeed
            verdict = "cannot decide it (none exists)" if groups[key].cannot_decide else "only this one can decide it"
        rows.append(
            BaselineRow(
                solver,
                n,
                instance or None,
                len(mine),
                len(theirs),
                finite(compared.ert_ratio) if not math.isnan(compared.ert_ratio) else None,
                compared.ratio_low,
                compared.ratio_high,
                compared.p_value,
                verdict,
            )
        )
    return rows
