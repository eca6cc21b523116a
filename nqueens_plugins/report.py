"""Everything the user reads: boards, one-run summaries, plugin lists, comparison tables.

Comparison summaries are computed from records alone (dicts as written to a
results file), so ``nqueens report`` shows exactly what ``nqueens compare``
showed.
"""

from __future__ import annotations

import csv
import io
from array import array
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from rich import box
from rich.table import Table
from rich.text import Text

from nqueens_plugins.errors import BadInput
from nqueens_plugins.statistics import Runs, censored_quantile, ert, par

if TYPE_CHECKING:
    from nqueens_plugins.crosscheck import Check, InstanceCheck
    from nqueens_plugins.registry import Registry
    from nqueens_plugins.run import CountResult, Result

QUEEN, FIXED_QUEEN, EMPTY, BLOCKED = "♛", "♕", "·", "▪"


def render_board(
    queens: Sequence[int] | np.ndarray | None,
    fixed: Mapping[int, int] | None = None,
    blocked: Iterable[tuple[int, int]] = (),
    n: int | None = None,
) -> str:
    """Rows top to bottom, columns left to right; fixed queens drawn hollow, blocked squares as ▪."""
    n = len(queens) if queens is not None else (n or 0)
    grid = [[EMPTY] * n for _ in range(n)]
    for column, row in blocked:
        grid[row][column] = BLOCKED
    for column, row in (fixed or {}).items():
        grid[row][column] = FIXED_QUEEN
    for column, row in enumerate(queens if queens is not None else ()):
        if 0 <= int(row) < n:
            grid[int(row)][column] = FIXED_QUEEN if fixed and column in fixed else QUEEN
    return "\n".join(" ".join(line) for line in grid)


def format_counters(counters: Mapping[str, Any]) -> str:
    parts = []
    for key, value in counters.items():
        parts.append(f"{key} {value:,.4g}" if isinstance(value, float) else f"{key} {value:,}")
    return " · ".join(parts)


def result_summary(result: Result) -> str:
    verdict = {True: "verified", False: "REJECTED by the verifier", None: "nothing to verify"}[result.verified]
    board = f"{result.n}x{result.n}" if result.problem.is_plain else f"{result.problem.label} ({result.n}x{result.n})"
    lines = [f"{result.solver} on {board}: {result.status}, {verdict} (seed {result.seed})"]
    if result.reason:
        lines.append(f"  {result.reason}")
    figures = f"iterations {result.iterations:,} · moves {result.moves:,}"
    if result.counters:
        figures += " · " + format_counters(result.counters)
    lines.append(f"{figures} · {result.seconds:.3f} s")
    return "\n".join(lines)


def count_summary(result: CountResult) -> str:
    what = "classes under symmetry" if result.unique else "solutions"
    shown = "?" if result.solutions is None else f"{result.solutions:,}"
    status = "" if result.status == "solved" else f" ({result.status}: a lower bound)"
    if result.status == "invalid":
        check = f"WRONG: {result.reason}"
    elif result.verified and result.problem.is_plain:
        check = "matches OEIS " + ("A002562" if result.unique else "A000170")
    elif result.verified:
        check = "confirmed: the instance is impossible on its face"
    else:
        check = result.reason or "not checked"
    board = f"n = {result.n}" if result.problem.is_plain else f"{result.problem.label} (n = {result.n})"
    lines = [f"{result.solver} counted {shown} {what} for {board}{status}; {check}"]
    figures = f"iterations {result.iterations:,}"
    if result.counters:
        figures += " · " + format_counters(result.counters)
    lines.append(f"{figures} · {result.seconds:.3f} s")
    return "\n".join(lines)


# --- plugins -------------------------------------------------------------------


def registry_to_dict(registry: Registry) -> dict[str, Any]:
    solvers = []
    for registration in registry:
        solver, source = registration.solver, registration.source
        solvers.append(
            {
                "name": solver.name,
                "summary": solver.summary,
                "complete": solver.complete,
                "counts": solver.counts({o.name: o.default for o in solver.options}),
                "counts_unique": solver.counts_unique,
                "supports_fixed": solver.supports_fixed,
                "supports_blocked": bool(getattr(solver, "supports_blocked", False)),
                "max_n": solver.max_n,
                "engine": safe_engine(solver),
                "plugin": source.plugin,
                "distribution": source.distribution,
                "version": source.version,
                "options": [
                    {"name": o.name, "type": o.describe_type(), "default": o.default, "help": o.help}
                    for o in solver.options
                ],
            }
        )
    errors = [
        {"plugin": e.source.plugin, "distribution": e.source.distribution, "version": e.source.version, "error": e.message}
        for e in registry.load_errors
    ]
    return {"solvers": solvers, "load_errors": errors, "blocked": list(registry.blocked)}


def safe_engine(solver: Any) -> str | None:
    """The solver's ``engine`` with its default options; a plugin's failure there is not the listing's."""
    try:
        engine = solver.engine({o.name: o.default for o in solver.options})
    except Exception:  # noqa: BLE001 - plugin code
        return None
    return engine if isinstance(engine, str) else None


def plugins_table(registry: Registry) -> Table:
    table = Table(title="nqueens solvers", title_justify="left", box=box.SIMPLE_HEAD, show_lines=False)
    table.add_column("solver", ratio=3, overflow="fold")
    table.add_column("complete", no_wrap=True)
    table.add_column("runs on", ratio=1, overflow="fold")
    table.add_column("options (defaults)", ratio=2, overflow="fold")
    table.add_column("from", ratio=1, overflow="fold")
    for registration in registry:
        solver, source = registration.solver, registration.source
        origin = f"{source.distribution} {source.version}" if source.distribution else source.plugin
        options = ", ".join(f"{o.name}={format_default(o.default)}" for o in solver.options) or "-"
        complete = "yes" if solver.complete else "no"
        name = Text(solver.name, style="bold") + Text("\n" + solver.summary, style="dim")
        table.add_row(name, complete, Text(safe_engine(solver) or "-"), Text(options), Text(origin))
    return table


def format_default(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "none" if value is None else str(value)


# --- comparison summaries ------------------------------------------------------


@dataclass
class SummaryRow:
    """One variant on one board. Seconds are the solver call's; censored figures are None (see statistics.py)."""

    solver: str
    n: int
    instance: str | None  # None for plain boards; else the instance's file (or n and content hash)
    runs: int
    solved: int
    success_rate: float
    success_low: float  # 95 % Wilson interval
    success_high: float
    time_limit: float | None  # seconds; unsolved runs are censored there
    median_seconds: float | None  # None: the median run did not solve (more than the limit)
    q25_seconds: float | None
    q75_seconds: float | None
    ert_seconds: float | None  # None: no run solved (infinite)
    ert_iterations: float | None
    par10_seconds: float | None  # None without a time limit
    mean_iterations: float | None
    mean_moves: float | None
    no_solution: int
    gave_up: int
    timed_out: int
    error: int
    invalid: int
    seed: int | None = None
    version: str | None = None


def wilson_interval(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95 % Wilson score interval for a success rate (sound at 0 and at 100 %)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def instance_label(record: Mapping[str, Any]) -> str | None:
    """How a record's instance is named in tables: None for a plain board."""
    if record.get("source"):
        return str(record["source"])
    if not record.get("fixed") and not record.get("blocked"):
        return None
    return f"n={record['n']} #{record.get('instance') or '?'}"


def natural_order(key: tuple[str, int, str]) -> tuple[Any, ...]:
    """Solver, n, then the instance name with its numbers compared as numbers (file@9 before file@10)."""
    solver, n, instance = key
    parts = tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", instance))
    return (solver, n, parts)


@dataclass
class Group:
    """What a summary keeps of one group's runs while the file streams past: numbers, not records."""

    # Typed arrays (8 bytes a number, 1 a flag), not lists of objects: a million runs stay small.
    seconds: array[float] = field(default_factory=lambda: array("d"))
    iterations: array[float] = field(default_factory=lambda: array("d"))
    moves: array[float] = field(default_factory=lambda: array("d"))
    solved: array[int] = field(default_factory=lambda: array("b"))
    counted: array[int] = field(default_factory=lambda: array("b"))  # not error or invalid: its counters mean something
    answered: array[int] = field(default_factory=lambda: array("b"))  # solved and verified, or no-solution
    statuses: Counter[str] = field(default_factory=Counter)
    limits: set[float | None] = field(default_factory=set)
    family: tuple[str, int] | None = None  # the instance family's parameter (family_parameter), for plots

    def add(self, record: Mapping[str, Any]) -> None:
        if self.family is None:
            self.family = family_parameter(record)
        self.seconds.append(float(record["seconds"]))
        self.iterations.append(float(record.get("iterations") or 0))
        self.moves.append(float(record.get("moves") or 0))
        self.solved.append(record["status"] == "solved" and record.get("verified") is True)
        self.counted.append(record["status"] not in ("error", "invalid"))
        self.answered.append(bool(self.solved[-1]) or record["status"] == "no-solution")
        self.statuses[str(record["status"])] += 1
        limit = record.get("timeout")
        self.limits.add(float(limit) if isinstance(limit, (int, float)) and not isinstance(limit, bool) else None)

    def runs(self) -> Runs:
        limits = [limit for limit in self.limits if limit is not None]
        limit = max(limits) if limits and None not in self.limits else None
        return Runs.of(self.seconds, self.iterations, self.solved, limit)


def family_parameter(record: Mapping[str, Any]) -> tuple[str, int] | None:
    """What an instance family varies, read off a record: the prefix d of an Excluded Diagonals
    file (FILE@d), else the number of blocked squares, else of fixed queens; None for plain boards."""
    source = str(record.get("source") or "")
    match = re.search(r"@(\d+)$", source)
    if match:
        return ("excluded diagonals d", int(match.group(1)))
    if record.get("blocked"):
        return ("blocked squares", len(record["blocked"]))
    if record.get("fixed"):
        return ("fixed queens", len(record["fixed"]))
    return None


GroupKey = tuple[str, int, str, Any, Any]  # solver, n, instance, seed, version


def group_runs(records: Iterable[Mapping[str, Any]]) -> tuple[dict[GroupKey, Group], list[str]]:
    """Runs grouped by variant and board; split by seed and version too where the file mixes them (said)."""
    groups: dict[GroupKey, Group] = defaultdict(Group)
    seeds: set[Any] = set()
    versions: dict[str, set[Any]] = defaultdict(set)
    for record in records:
        seed, version = record.get("seed"), record.get("version")
        seeds.add(seed)
        versions[str(record["solver"])].add(version)
        groups[(str(record["solver"]), int(record["n"]), instance_label(record) or "", seed, version)].add(record)
    notes = []
    mixed_seeds = len(seeds) > 1
    mixed_versions = sorted(solver for solver, found in versions.items() if len(found) > 1)
    if mixed_seeds:
        notes.append(f"the file mixes runs made with seeds {', '.join(str(s) for s in sorted(seeds, key=str))}: "
                     "each seed is summarised apart, not pooled")  # fmt: skip
    if mixed_versions:
        notes.append(f"the file mixes versions of {', '.join(mixed_versions)}: each version is summarised apart, not pooled")
    merged: dict[GroupKey, Group] = defaultdict(Group)  # keyed by seed and version only where they vary
    for (solver, n, instance, seed, version), group in groups.items():
        target = merged[(solver, n, instance, seed if mixed_seeds else None, version if solver in mixed_versions else None)]
        for name in ("seconds", "iterations", "moves", "solved", "counted", "answered"):
            getattr(target, name).extend(getattr(group, name))
        target.statuses.update(group.statuses)
        target.limits |= group.limits
        target.family = target.family or group.family
    return merged, notes


def summarise(records: Iterable[Mapping[str, Any]], notes: list[str] | None = None) -> list[SummaryRow]:
    """One row per solver variant and board (n, or instance), streaming: records are not kept.

    ``notes`` receives what the reader should know (a file mixing seeds or versions).
    """
    groups, found_notes = group_runs(records)
    if notes is not None:
        notes.extend(found_notes)
    return summary_rows(groups)


def summary_rows(groups: Mapping[GroupKey, Group]) -> list[SummaryRow]:
    rows = []
    for key in sorted(groups, key=lambda k: (*natural_order(k[:3]), str(k[3]), str(k[4]))):
        solver, n, instance, seed, version = key
        group = groups[key]
        runs = group.runs()
        solved = int(runs.solved.sum())
        low, high = wilson_interval(solved, len(runs))
        counted = np.asarray(group.counted, dtype=bool)
        quartiles = [censored_quantile(runs, q) for q in (0.25, 0.5, 0.75)]
        rows.append(
            SummaryRow(
                solver=solver, n=n, instance=instance or None, runs=len(runs), solved=solved,
                success_rate=solved / len(runs), success_low=low, success_high=high, time_limit=runs.limit,
                q25_seconds=finite(quartiles[0]), median_seconds=finite(quartiles[1]), q75_seconds=finite(quartiles[2]),
                ert_seconds=finite(ert(runs.seconds, runs.solved)), ert_iterations=finite(ert(runs.iterations, runs.solved)),
                par10_seconds=par(runs),
                mean_iterations=float(np.mean(runs.iterations[counted])) if counted.any() else None,
                mean_moves=float(np.mean(np.asarray(group.moves)[counted])) if counted.any() else None,
                no_solution=group.statuses["no-solution"], gave_up=group.statuses["gave-up"],
                timed_out=group.statuses["timed-out"], error=group.statuses["error"], invalid=group.statuses["invalid"],
                seed=seed, version=version,
            )
        )  # fmt: skip
    return rows


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
    from nqueens_plugins.statistics import compare_to_baseline

    solvers = sorted({key[0] for key in groups})
    if baseline not in solvers:
        raise BadInput(f"baseline {baseline!r} is not in the file; it holds {', '.join(solvers)}")
    base = {(key[1], key[2]): group for key, group in groups.items() if key[0] == baseline}
    rows = []
    for key in sorted(groups, key=lambda k: (*natural_order(k[:3]), str(k[3]), str(k[4]))):
        solver, n, instance = key[:3]
        if solver == baseline or (n, instance) not in base:
            continue
        mine, theirs = groups[key].runs(), base[(n, instance)].runs()
        compared = compare_to_baseline(mine, theirs)
        rows.append(BaselineRow(solver, n, instance or None, len(mine), len(theirs), finite(compared.ert_ratio)
                                if not math.isnan(compared.ert_ratio) else None, compared.ratio_low,
                                compared.ratio_high, compared.p_value, compared.verdict()))  # fmt: skip
    return rows


def baseline_headers(baseline: str, with_instances: bool) -> list[str]:
    instance = ["instance"] if with_instances else []
    return ["solver", "n", *instance, "runs", f"ERT / ERT of {baseline} (95% CI)", "p (Mann-Whitney)", "verdict"]


def baseline_cells(row: BaselineRow, with_instances: bool) -> list[str]:
    """One row of the comparison with a baseline, as text (the table, markdown and the HTML report)."""
    ratio = "-" if row.ert_ratio is None else f"{row.ert_ratio:.2f}"  # "-": one of the two never solved
    if row.ert_ratio is not None and row.ratio_low is not None and row.ratio_high is not None:
        ratio += f" ({row.ratio_low:.2f}-{row.ratio_high:.2f})"
    instance = [row.instance or "-"] if with_instances else []
    return [row.solver, str(row.n), *instance, f"{row.runs} vs {row.baseline_runs}", ratio,
            "-" if row.p_value is None else f"{row.p_value:.3g}", row.verdict]  # fmt: skip


def render_baseline(baseline: str, rows: list[BaselineRow], fmt: str) -> Any:
    if fmt == "json":
        return json.dumps({"baseline": baseline, "rows": [asdict(row) for row in rows]}, indent=2)
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["baseline", *BaselineRow.__dataclass_fields__])
        for row in rows:
            writer.writerow([baseline, *(getattr(row, name) for name in BaselineRow.__dataclass_fields__)])
        return buffer.getvalue().rstrip("\n")

    with_instances = any(row.instance for row in rows)
    headers = baseline_headers(baseline, with_instances)
    lines = [baseline_cells(row, with_instances) for row in rows]
    if fmt == "markdown":
        text = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
        return "\n".join(text + ["| " + " | ".join(cells) + " |" for cells in lines])
    table = Table(title=f"against {baseline}", title_justify="left", box=box.SIMPLE_HEAD)
    for header in headers:
        table.add_column(header, justify="left" if header in ("solver", "instance", "verdict") else "right", overflow="fold")
    for cells in lines:
        table.add_row(*(Text(cell) for cell in cells))
    return table


def seconds_cell(value: float | None, limit: float | None) -> str:
    """A time, or what a censored one is known to be: more than the limit."""
    if value is not None:
        return f"{value:.4f}"
    return f"> {limit:g}" if limit is not None else "unsolved"


def number(value: float | None, missing: str = "-") -> str:
    if value is None:
        return missing
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.1f}"


def success_cell(row: SummaryRow) -> str:
    return f"{100 * row.success_rate:.0f}% ({100 * row.success_low:.0f}-{100 * row.success_high:.0f})"


def quartiles_cell(row: SummaryRow) -> str:
    return f"{seconds_cell(row.q25_seconds, row.time_limit)} - {seconds_cell(row.q75_seconds, row.time_limit)}"


def other_outcomes(row: SummaryRow) -> str:
    found = [
        f"{count} {label}" for label, count in (
            ("no-solution", row.no_solution), ("gave-up", row.gave_up), ("timed-out", row.timed_out),
            ("error", row.error), ("invalid", row.invalid),
        ) if count
    ]  # fmt: skip
    return ", ".join(found) or "-"


# (header, cell) for the table and markdown; csv and json carry every field of SummaryRow
SUMMARY_COLUMNS: tuple[tuple[str, Callable[[SummaryRow], str]], ...] = (
    ("n", lambda row: str(row.n)),
    ("runs", lambda row: str(row.runs)),
    ("solved (95% CI)", success_cell),
    ("median s", lambda row: seconds_cell(row.median_seconds, row.time_limit)),
    ("quartiles s", quartiles_cell),
    ("ERT s", lambda row: "inf" if row.ert_seconds is None else f"{row.ert_seconds:.4f}"),
    ("ERT iterations", lambda row: number(row.ert_iterations, "inf")),
    ("PAR-10 s", lambda row: "-" if row.par10_seconds is None else f"{row.par10_seconds:.4f}"),
    ("moves", lambda row: number(row.mean_moves)),
    ("other outcomes", other_outcomes),
)


def row_label_columns(rows: Sequence[SummaryRow]) -> list[tuple[str, Callable[[SummaryRow], str]]]:
    """solver, and the instance, seed and version columns only where the rows differ in them."""
    columns: list[tuple[str, Callable[[SummaryRow], str]]] = [("solver", lambda row: row.solver)]
    if any(row.instance for row in rows):
        columns.append(("instance", lambda row: row.instance or "-"))
    if any(row.seed is not None for row in rows):
        columns.append(("seed", lambda row: str(row.seed)))
    if any(row.version is not None for row in rows):
        columns.append(("version", lambda row: str(row.version)))
    return columns


def render_summary(rows: list[SummaryRow], fmt: str) -> Any:
    """A rich Table for ``table``; a string for ``markdown``, ``csv`` and ``json``."""
    if fmt == "json":
        return json.dumps([asdict(row) for row in rows], indent=2)
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow([field for field in SummaryRow.__dataclass_fields__])
        for row in rows:
            writer.writerow([getattr(row, field) for field in SummaryRow.__dataclass_fields__])
        return buffer.getvalue().rstrip("\n")
    columns = row_label_columns(rows) + list(SUMMARY_COLUMNS)
    if fmt == "markdown":
        lines = ["| " + " | ".join(title for title, _ in columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
        lines += ["| " + " | ".join(cell(row) for _, cell in columns) + " |" for row in rows]
        return "\n".join(lines)
    table = Table(title="comparison", title_justify="left", box=box.SIMPLE_HEAD)
    for title, _ in columns:
        left = title in ("solver", "instance", "version", "other outcomes")
        table.add_column(title, justify="left" if left else "right", overflow="fold", no_wrap=not left)
    for row in rows:
        table.add_row(*(Text(cell(row)) for _, cell in columns))
    return table


def crosscheck_table(checks: Sequence[Check]) -> Table:
    table = Table(title="cross-check", title_justify="left")
    for header in ("n", "solver", "task", "answer", "expected", "agrees"):
        table.add_column(header, overflow="fold")
    for check in checks:
        table.add_row(
            str(check.n), Text(check.solver), check.task, check.answer, check.expected,
            Text("yes", style="green") if check.agrees else Text("NO", style="bold red"),
        )  # fmt: skip
    return table


def instance_checks_summary(checks: Sequence[InstanceCheck], with_published: bool, listed: int = 40) -> str:
    """Counts of each verdict, agreement with the published answers, then the instances that need a look."""
    from collections import Counter

    verdicts = Counter(check.verdict for check in checks)
    lines = [f"cross-check of {len(checks):,} instances: " + ", ".join(f"{count:,} {verdict}" for verdict, count in sorted(verdicts.items()))]
    if with_published:
        known = [c for c in checks if c.published is not None]
        decided = [c for c in known if c.verdict != "undecided"]
        agreeing = [c for c in decided if c.agrees]
        satisfiable = sum(1 for c in known if c.published)
        lines.append(
            f"published answers: {len(known):,} of these instances ({satisfiable:,} satisfiable, "
            f"{len(known) - satisfiable:,} not); decided here {len(decided):,}; agreeing {len(agreeing):,}"
            + (f" ({100 * len(agreeing) / len(decided):.1f} %)" if decided else "")
        )
        missing = len(checks) - len(known)
        if missing:
            lines.append(f"no published answer for {missing:,} instances")
    worth_a_look = [c for c in checks if not c.agrees or c.verdict in ("unsatisfiable (unconfirmed)", "undecided")]
    for check in worth_a_look[:listed]:
        published = "" if check.published is None else f"; published: {'satisfiable' if check.published else 'unsatisfiable'}"
        lines.append(f"  {check.instance}: {check.verdict} ({check.detail}{published})")
    if len(worth_a_look) > listed:
        lines.append(f"  ... and {len(worth_a_look) - listed:,} more (--json lists every instance)")
    return "\n".join(lines)
