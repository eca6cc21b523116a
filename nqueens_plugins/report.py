"""Everything the user reads: boards, one-run summaries, plugin lists, comparison tables.

Comparison summaries are computed from records alone (dicts as written to a
results file), so ``nqueens report`` shows exactly what ``nqueens compare``
showed.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from rich import box
from rich.table import Table
from rich.text import Text

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
    solver: str
    n: int
    instance: str | None  # None for plain boards; else the instance's file (or n and content hash)
    runs: int
    solved: int
    success_rate: float
    success_low: float  # 95 % Wilson interval
    success_high: float
    median_seconds: float
    p90_seconds: float
    mean_iterations: float | None
    mean_moves: float | None
    no_solution: int
    gave_up: int
    timed_out: int
    error: int
    invalid: int


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


def summarise(records: Iterable[Mapping[str, Any]]) -> list[SummaryRow]:
    """One row per solver variant and board (n, or instance). Seconds are the harness's wall-clock per run."""
    groups: dict[tuple[str, int, str], list[Mapping[str, Any]]] = defaultdict(list)
    for record in records:
        groups[(str(record["solver"]), int(record["n"]), instance_label(record) or "")].append(record)
    rows = []
    for solver, n, instance in sorted(groups, key=natural_order):
        runs = groups[(solver, n, instance)]
        statuses = [r["status"] for r in runs]
        solved = sum(1 for r in runs if r["status"] == "solved" and r.get("verified") is True)
        seconds = np.array([float(r["seconds"]) for r in runs])
        counted = [r for r in runs if r["status"] not in ("error", "invalid")]
        low, high = wilson_interval(solved, len(runs))
        rows.append(
            SummaryRow(
                solver=solver,
                n=n,
                instance=instance or None,
                runs=len(runs),
                solved=solved,
                success_rate=solved / len(runs),
                success_low=low,
                success_high=high,
                median_seconds=float(np.median(seconds)),
                p90_seconds=float(np.percentile(seconds, 90)),
                mean_iterations=float(np.mean([r["iterations"] for r in counted])) if counted else None,
                mean_moves=float(np.mean([r["moves"] for r in counted])) if counted else None,
                no_solution=statuses.count("no-solution"),
                gave_up=statuses.count("gave-up"),
                timed_out=statuses.count("timed-out"),
                error=statuses.count("error"),
                invalid=statuses.count("invalid"),
            )
        )
    return rows


COLUMNS = (
    ("solver", "solver"), ("n", "n"), ("instance", "instance"), ("runs", "runs"), ("solved", "solved"),
    ("success", "success (95% CI)"), ("median_seconds", "median s"), ("p90_seconds", "p90 s"),
    ("mean_iterations", "mean iterations"), ("mean_moves", "mean moves"),
    ("no_solution", "no-sol"), ("gave_up", "gave-up"), ("timed_out", "timed-out"),
    ("error", "error"), ("invalid", "invalid"),
)  # fmt: skip


def format_cells(row: SummaryRow) -> list[str]:
    def number(value: float | None) -> str:
        if value is None:
            return "-"
        return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.1f}"

    success = f"{100 * row.success_rate:.0f}% ({100 * row.success_low:.0f}-{100 * row.success_high:.0f})"
    return [
        row.solver, str(row.n), row.instance or "-", str(row.runs), str(row.solved), success,
        f"{row.median_seconds:.4f}", f"{row.p90_seconds:.4f}",
        number(row.mean_iterations), number(row.mean_moves),
        str(row.no_solution), str(row.gave_up), str(row.timed_out), str(row.error), str(row.invalid),
    ]  # fmt: skip


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
    with_instances = any(row.instance for row in rows)
    headers = [title for key, title in COLUMNS if with_instances or key != "instance"]
    if fmt == "markdown":
        lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
        lines += ["| " + " | ".join(visible_cells(row, with_instances)) + " |" for row in rows]
        return "\n".join(lines)
    table = Table(title="comparison", title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("solver", overflow="fold", min_width=14)
    if with_instances:
        table.add_column("instance", overflow="fold", min_width=14)
    for header in ("n", "runs", "solved (95% CI)", "median s", "p90 s", "iterations", "moves", "other outcomes"):
        table.add_column(header, justify="right" if header != "other outcomes" else "left")
    for row in rows:
        cells = format_cells(row)
        instance = [Text(row.instance or "-")] if with_instances else []
        other = ", ".join(
            f"{count} {label}" for label, count in (
                ("no-solution", row.no_solution), ("gave-up", row.gave_up), ("timed-out", row.timed_out),
                ("error", row.error), ("invalid", row.invalid),
            ) if count
        )  # fmt: skip
        table.add_row(Text(cells[0]), *instance, cells[1], cells[3], cells[5], *cells[6:10], other or "-")
    return table


def visible_cells(row: SummaryRow, with_instances: bool) -> list[str]:
    cells = format_cells(row)
    return cells if with_instances else cells[:2] + cells[3:]


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
