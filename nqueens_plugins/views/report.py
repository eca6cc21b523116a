"""Views layer, parent side: everything the user reads as text.

Boards, one-run summaries, the plugin list, comparison and baseline tables,
cross-check tables. It renders; it computes nothing
(the rows come from ``summary.py`` and ``crosscheck.py``).
"""

from __future__ import annotations

import dataclasses
import io
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from rich import box
from rich.box import Box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, JustifyMethod, RenderableType, RenderResult
from rich.console import Group as RichGroup
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from nqueens_plugins.core.problem import Status
from nqueens_plugins.views.escaping import csv_text, for_csv, for_markdown, for_terminal, strict_json

if TYPE_CHECKING:  # types only: listing plugins need not import the service, the records or the statistics
    from nqueens_plugins.execution.answers import CountResult, Result
    from nqueens_plugins.loading.registry import Registry
    from nqueens_plugins.results.crosscheck import Check, InstanceCheck
    from nqueens_plugins.results.portfolio import Portfolio, PortfolioRow
    from nqueens_plugins.results.race import RaceResult
    from nqueens_plugins.results.summary import BaselineRow, SummaryRow

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
    verdict = VERDICTS[result.verified]
    if result.certified and result.verified:
        verdict = "certified"  # a proof of no solution, checked by the host's own checker
    elif result.certificate == "rejected":
        verdict = "REJECTED: its certificate is wrong"
    board = f"{result.n}x{result.n}" if result.problem.is_plain else f"{result.problem.label} ({result.n}x{result.n})"
    lines = [f"{result.solver} on {board}: {result.status}, {verdict} (seed {result.seed})"]
    if result.reason:
        lines.append(f"  {result.reason}")
    figures = f"iterations {result.iterations:,} · moves {result.moves:,}"
    if result.counters:
        figures += " · " + format_counters(result.counters)
    lines.append(f"{figures} · {result.seconds:.3f} s{preparation(result.prepare_seconds)}")
    return "\n".join(for_terminal(line) for line in lines)  # names and reasons from files and plugins


def race_summary(race: RaceResult) -> str:
    """Who won a race and how each member ended, one line each (the winner's answer as ``result_summary`` says it)."""
    cores = len(race.members)
    if race.winner is not None:
        head = f"race of {cores}: {race.winner.solver} won in {race.seconds:.4f} s"
    else:
        head = f"race of {cores}: no member decided (the last ended after {race.seconds:.4f} s)"
    held = f"{race.core_seconds:.4f} core-seconds on {cores} cores"
    lines = [f"{head}; {held}, {race.overhead_seconds:.4f} s starting, verifying and stopping"]
    width = max(len(member.solver) for member in race.members)
    for member in race.members:
        if member.result is None:
            what = "stopped: another member won"
        else:
            what = f"{member.status}, {VERDICTS[member.result.verified]}"
            if member.result.reason:
                what += f": {member.result.reason}"
        lines.append(f"  {member.solver:<{width}}  {member.seconds:.4f} s  {what}")
    shown = "\n".join(for_terminal(line) for line in lines)  # names and reasons from plugins
    return shown if race.winner is None else f"{shown}\n{result_summary(race.winner)}"


VERDICTS = {True: "verified", False: "REJECTED by the verifier", None: "nothing to verify"}

PREPARATION_SHOWN_FROM = 1.0  # seconds: a shorter preparation is in the record only


def preparation(seconds: float | None) -> str:
    """The worker's preparation, when it was long enough to notice (it is never in the timed figure)."""
    if seconds is None or seconds < PREPARATION_SHOWN_FROM:
        return ""
    return f" (before it, {seconds:.1f} s preparing the solver: import and warm-up, untimed)"


def count_summary(result: CountResult, whole_count: str | None = None) -> str:
    """What a count found, as a sentence for each way it can end (never a bare "?").

    ``whole_count`` is how long the solver estimates the whole count would take ("about 3.2 days"),
    said when the count stopped before its end and no finished pieces give a pace.
    """
    what = "classes under symmetry" if result.unique else "solutions"
    board = f"n = {result.n}" if result.problem.is_plain else f"{result.problem.label} (n = {result.n})"
    shown = None if result.solutions is None else f"{result.solutions:,}"
    if result.status == Status.INVALID:
        found = f"counted {shown} {what}" if shown is not None else "returned no count that can be read"
        line = f"{result.solver} {found} for {board}; WRONG: {result.reason}"
    elif result.status == Status.ERROR:
        line = f"{result.solver} did not finish counting the {what} of {board}: {result.reason}"
    elif result.status != Status.SOLVED:
        line = (
            f"{result.solver} counted at least {shown or 0} {what} for {board} before it stopped "
            f"({result.status}: a lower bound, not checked)"
        )
    else:
        if result.verified and result.problem.is_plain:
            check = "matches OEIS " + ("A002562" if result.unique else "A000170")
        elif result.verified:
            check = "confirmed: the instance is impossible on its face"
        else:
            check = result.reason or "not checked"
        line = f"{result.solver} counted {shown} {what} for {board}; {check}"
    lines = [line]
    pace = pieces_pace(result)
    if pace:
        lines.append(pace)
    ran_out = result.status not in (Status.SOLVED, Status.ERROR, Status.INVALID)  # stopped by its limit, not by a fault
    if whole_count and ran_out and pieces_counted_here(result) == 0:
        lines.append(f"the whole count would take {whole_count} on this machine (the solver's estimate)")
    figures = f"iterations {result.iterations:,}"
    if result.counters:
        figures += " · " + format_counters(result.counters)
    lines.append(f"{figures} · {result.seconds:.3f} s{preparation(result.prepare_seconds)}")
    return "\n".join(for_terminal(line) for line in lines)  # names and reasons from files and plugins


def format_duration(seconds: float) -> str:
    if seconds >= 1e6 * 365 * 86400:
        return f"{seconds / (365 * 86400):.1e} years"
    for unit, size in (("years", 365 * 86400), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= size:
            return f"{seconds / size:,.1f} {unit}"
    return f"{seconds:.0f} seconds"


def pieces_pace(result: CountResult) -> str | None:
    """For a split count cut short: how many pieces are done and, at this run's pace, how long the rest
    would take (an estimate from the pieces counted, which differ in size: a guide, not a promise)."""
    counters = result.counters or {}
    parts, counted = counters.get("parts"), counters.get("parts_counted")
    if result.status == Status.SOLVED or not isinstance(parts, int) or not isinstance(counted, int):
        return None
    here = pieces_counted_here(result)
    line = f"{counted:,} of {parts:,} pieces counted"
    if here > 0 and counted < parts and result.seconds > 0:
        rest = result.seconds / here * (parts - counted)
        line += f"; at this run's pace the other {parts - counted:,} would take about {format_duration(rest)}"
    return line


def pieces_counted_here(result: CountResult) -> int:
    """Pieces this run counted (not those resumed from a file): what a pace can be taken from."""
    counters = result.counters or {}
    counted = counters.get("parts_counted")
    return counted - int(counters.get("parts_resumed", 0)) if isinstance(counted, int) else 0


# --- tables that fit the console they are printed on ----------------------------
#
# A table is drawn whole where the console has room for it (piped output always does: the CLI gives it
# 1000 columns). In a narrower terminal it is split into parts, each repeating the columns that name
# the row (solver, n, instance), so that every name stays whole on its row's line and every figure
# is still shown: rich alone would squeeze or drop the name columns first.

NO_WIDTH = 1_000_000  # columns: room to measure a table at its natural width
WORDS_WIDTH = 12  # the least a column of words (a reason, a verdict) is given in a split table: it wraps


@dataclass(frozen=True)
class Column:
    """How a column of a table that fits its console is drawn, and how it gives way in a narrow one."""

    header: str
    justify: JustifyMethod = "right"
    label: bool = False  # it names the row (solver, n, instance): in every part, never folded or cut
    words: bool = False  # words that may wrap (a reason, a verdict); figures never wrap
    rank: int = 0  # which part it goes to when the table is split: the lowest ranks first


class Fitted:
    """``whole`` where the console has room for its natural width, else what ``narrow(width)`` draws."""

    def __init__(self, whole: Table, narrow: Callable[[int], list[RenderableType]]) -> None:
        self.whole = whole
        self.narrow = narrow

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if natural_width(console, options, self.whole) <= options.max_width:
            yield self.whole
        else:
            yield from self.narrow(options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.whole)


def natural_width(console: Console, options: ConsoleOptions, table: Table) -> int:
    """The width ``table`` takes when nothing constrains it."""
    return Measurement.get(console, options.update(width=NO_WIDTH), table).maximum


def fitted_table(
    title: str, columns: Sequence[Column], rows: Sequence[Sequence[Text]], whole: Table, *, summary_last: bool = False
) -> Fitted:
    """``whole``, or where it does not fit, the same cells split into parts (``split_table``); with
    ``summary_last`` the part of the lowest ranks (what matters most) is printed last, so that a terminal
    left scrolled to the end of a long split table shows it."""

    def narrow(width: int) -> list[RenderableType]:
        return list(split_table(title, columns, rows, width, whole.box, summary_last=summary_last))

    return Fitted(whole, narrow)


def text_width(cell: Text | str) -> int:
    return max((cell_len(line) for line in str(cell).split("\n")), default=0)


def longest_word(cell: Text | str) -> int:
    return max((cell_len(word) for word in str(cell).split()), default=0)


def table_width(widths: Iterable[int]) -> int:
    """A table's width from its columns' content widths: one space of padding each side, one
    character between columns and at each edge (how rich draws a boxed table)."""
    widths = list(widths)
    return sum(widths) + 3 * len(widths) + 1


def stack_labels(columns: Sequence[Column], rows: Sequence[Sequence[Text]]) -> tuple[list[Column], list[list[Text]]]:
    """The label columns other than the narrowest one stacked in one column, a name on each line:
    for a terminal too narrow for a solver name and an instance name side by side."""
    labels = [i for i, column in enumerate(columns) if column.label]
    widths = {i: max(text_width(row[i]) for row in rows) for i in labels}
    short = [i for i in labels if widths[i] <= 4]  # n, seed: a few characters, kept apart
    stacked = [i for i in labels if i not in short]
    if len(stacked) < 2:
        return list(columns), [list(row) for row in rows]
    first = stacked[0]
    merged = Column(" / ".join(columns[i].header for i in stacked), "left", label=True)
    kept = [i for i in range(len(columns)) if i not in stacked[1:]]
    new_columns = [merged if i == first else columns[i] for i in kept]
    new_rows = [[Text("\n").join(row[j] for j in stacked) if i == first else row[i] for i in kept] for row in rows]
    return new_columns, new_rows


def split_table(
    title: str,
    columns: Sequence[Column],
    rows: Sequence[Sequence[Text]],
    width: int,
    frame: Box | None,
    *,
    summary_last: bool = False,
) -> Iterable[Table]:
    """The table in parts that each fit ``width``. Every part has the label columns, whole; the other
    columns go, lowest rank first, to the first part with room for them (first fit), and keep their
    order within a part. A column of words takes what room its part has left, and wraps there. With
    ``summary_last`` the parts are printed in the reverse order, the one of the lowest ranks last (and
    numbered as printed)."""
    label_width = table_width(content_width(c.header, rows, i) for i, c in enumerate(columns) if c.label)
    if rows and label_width + 3 + WORDS_WIDTH > width:  # no room beside the names for a figure
        columns, rows = stack_labels(columns, rows)
    natural = [content_width(column.header, rows, i) for i, column in enumerate(columns)]
    least = [least_width(column, natural[i], rows, i) for i, column in enumerate(columns)]
    labels = [i for i, column in enumerate(columns) if column.label]
    room = width - table_width(least[i] for i in labels)  # for the figures of each part, 3 columns' frame each
    widest_figure = max((least[i] + 3 for i in range(len(columns)) if i not in labels), default=0)
    if labels and room < widest_figure:  # narrower than a name and a figure (below 80 columns): the name folds
        widest = max(labels, key=lambda i: least[i])
        need = widest_figure - room
        narrowest = max((longest_name_piece(row[widest]) for row in rows), default=1)  # names whole
        if least[widest] - narrowest < need:  # a name alone is too wide: broken at its "[" and commas
            narrowest = max((longest_name_piece(row[widest], parts=True) for row in rows), default=1)
        cut = max(0, min(need, least[widest] - narrowest))
        least[widest] -= cut
        room += cut
        rows = [[wrapped_names(cell, least[widest]) if i == widest else cell for i, cell in enumerate(row)]
                for row in rows]  # fmt: skip
    parts: list[list[int]] = []
    for i in sorted((i for i, column in enumerate(columns) if not column.label), key=lambda i: columns[i].rank):
        part = next((p for p in parts if sum(least[j] + 3 for j in p) + least[i] + 3 <= room), None)
        if part is None:
            part = []
            parts.append(part)
        part.append(i)
    if summary_last:
        parts.reverse()
    for number, part in enumerate(parts, 1):
        widths = {i: least[i] for i in labels + part}
        if len(part) == 1 and least[part[0]] + 3 > room:  # alone and still too wide: it folds
            widths[part[0]] = max(1, room - 3)
        spare = room - sum(widths[i] + 3 for i in part)
        for i in part:
            if columns[i].words and spare > 0:
                grown = min(natural[i], widths[i] + spare)
                spare -= grown - widths[i]
                widths[i] = grown
        heading = title
        if len(parts) > 1:
            heading += (
                f" ({number} of {len(parts)}, split to fit {width} columns)"
                if number == 1
                else f" ({number} of {len(parts)})"
            )
        table = Table(title=heading, title_justify="left", box=frame)
        shown = sorted(widths)
        for i in shown:
            table.add_column(columns[i].header, justify=columns[i].justify, width=widths[i], overflow="fold")
        for row in rows:
            table.add_row(*(row[i] for i in shown))
        yield table


def name_pieces(text: str) -> list[str]:
    """``text`` (a solver spec, a list of them, a label, a path) in the pieces a line may end between: after a
    comma, a colon, a space or a slash outside square brackets, so between names (``race(a,b)``, ``single best:
    a``, a path's folders), never inside one. ``forward-checking[order=mrv,values=middle]`` is one piece."""
    pieces, depth, start = [], 0, 0
    for i, character in enumerate(text):
        depth += {"[": 1, "]": -1}.get(character, 0)
        if depth <= 0 and character in ", :/" and (i + 1 == len(text) or text[i + 1] != " "):
            pieces.append(text[start : i + 1])
            start = i + 1
    return [piece for piece in [*pieces, text[start:]] if piece]


def name_parts(piece: str) -> list[str]:
    """A name too long for its line, in the pieces it may be broken into as a last resort: before its
    ``[`` and after each comma of its options (never inside an option's name or value)."""
    return [part for part in re.split(r"(?=\[)|(?<=,)", piece) if part]


def longest_name_piece(cell: Text | str, parts: bool = False) -> int:
    """The widest piece of a cell no line may break inside: a whole name (with ``parts``, the widest part of a
    name broken at its ``[`` and commas)."""
    pieces = [piece for line in str(cell).split("\n") for piece in name_pieces(line)]
    if parts:
        pieces = [part for piece in pieces for part in name_parts(piece)]
    return max((cell_len(piece.rstrip()) for piece in pieces), default=1)


def wrapped_names(cell: Text, width: int) -> Text:
    """A cell of names wrapped to ``width`` between names only (``name_pieces``); a name wider than
    ``width`` on its own is broken at its ``[`` and commas (``name_parts``), and only then folded."""
    lines: list[str] = []
    for text in str(cell).split("\n"):
        line = ""
        for piece in name_pieces(text):
            for part in [piece] if cell_len(piece) <= width else name_parts(piece):
                if line and cell_len(line + part.rstrip()) > width:
                    lines.append(line.rstrip())
                    line = ""
                line += part
        lines.append(line.rstrip())
    return Text("\n".join(lines))


def content_width(header: str, rows: Sequence[Sequence[Text]], index: int) -> int:
    return max([text_width(header)] + [text_width(row[index]) for row in rows])


def least_width(column: Column, natural: int, rows: Sequence[Sequence[Text]], index: int) -> int:
    """The narrowest a column is drawn in a split table: a label or a figure keeps every cell on one line
    (a figure's header may wrap between words); words wrap, in ``WORDS_WIDTH`` columns or more."""
    if column.label:
        return natural
    if column.words:
        return min(natural, max([WORDS_WIDTH] + [longest_word(row[index]) for row in rows]))
    return max([longest_word(column.header)] + [text_width(row[index]) for row in rows])


# --- plugins -------------------------------------------------------------------


def registry_to_dict(registry: Registry) -> dict[str, Any]:
    solvers = []
    for registration in registry:
        solver, source = registration.solver, registration.source
        solvers.append(
            {
                "name": solver.name,
                "summary": solver.summary,
                "family": solver.family,
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
        {
            "plugin": e.source.plugin,
            "distribution": e.source.distribution,
            "version": e.source.version,
            "error": e.message,
        }
        for e in registry.load_errors
    ]
    return {
        "solvers": solvers,
        "load_errors": errors,
        "blocked": list(registry.blocked),
        "probe_failures": list(registry.probe_failures),
    }


def safe_engine(solver: Any) -> str | None:
    """The solver's ``engine`` with its default options; a plugin's failure there is not the listing's."""
    try:
        engine = solver.engine({o.name: o.default for o in solver.options})
    except Exception:  # noqa: BLE001 - plugin code
        return None
    return engine if isinstance(engine, str) else None


def plugins_table(registry: Registry) -> Fitted:
    """The listing: a row per solver where the terminal has room for every column, else a card per solver
    (its name whole beside what it is, its summary and its options, wrapped to the terminal)."""
    whole = plugins_whole(registry)
    return Fitted(whole, lambda width: [plugin_cards(registry, width)])


def plugins_whole(registry: Registry) -> Table:
    table = Table(title="nqueens solvers", title_justify="left", box=box.SIMPLE_HEAD, show_lines=False)
    table.add_column("solver", ratio=3, overflow="fold")
    table.add_column("family", no_wrap=True)
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
        table.add_row(
            name, Text(solver.family or "-"), complete, Text(safe_engine(solver) or "-"), Text(options), Text(origin)
        )
    return table


def plugin_cards(registry: Registry, width: int) -> Table:
    names = [registration.solver.name for registration in registry]
    name_width = max([len("solver")] + [cell_len(name) for name in names])
    table = Table(title="nqueens solvers", title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("solver", width=name_width, overflow="fold")
    table.add_column("what it is", width=max(1, width - table_width([name_width, 0])), overflow="fold")
    for registration in registry:
        solver, source = registration.solver, registration.source
        origin = f"{source.distribution} {source.version}" if source.distribution else source.plugin
        facts = [solver.family or "-", "complete" if solver.complete else "incomplete", safe_engine(solver) or "-"]
        options = ", ".join(f"{o.name}={format_default(o.default)}" for o in solver.options) or "none"
        about = Text(" · ".join(facts) + f" · from {origin}\n")
        about += Text(solver.summary + "\n", style="dim") + Text(f"options: {options}")
        table.add_row(Text(solver.name, style="bold"), about)
    return table


def format_default(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "none" if value is None else str(value)


# --- comparison summaries ------------------------------------------------------


def baseline_headers(baseline: str, with_instances: bool) -> list[str]:
    instance = ["instance"] if with_instances else []
    return ["solver", "n", *instance, "runs", f"ERT / ERT of {baseline} (95% CI)", "p (Mann-Whitney)", "verdict"]


def baseline_cells(row: BaselineRow, with_instances: bool) -> list[str]:
    """One row of the comparison with a baseline, as text (the table, markdown and the HTML report)."""
    ratio = "-" if row.ert_ratio is None else f"{row.ert_ratio:.2f}"  # "-": one of the two never solved
    if row.ert_ratio is not None and row.ratio_low is not None and row.ratio_high is not None:
        ratio += f" ({row.ratio_low:.2f}-{row.ratio_high:.2f})"
    instance = [row.instance or "-"] if with_instances else []
    return [
        row.solver,
        str(row.n),
        *instance,
        f"{row.runs} vs {row.baseline_runs}",
        ratio,
        "-" if row.p_value is None else f"{row.p_value:.3g}",
        row.verdict,
    ]


def render_baseline(baseline: str, rows: list[BaselineRow], fmt: str) -> Any:
    if fmt == "json":
        return strict_json({"baseline": baseline, "rows": [asdict(row) for row in rows]}, indent=2)
    if fmt == "csv":
        from nqueens_plugins.results.summary import BaselineRow

        names = [field.name for field in dataclasses.fields(BaselineRow)]
        records = ([for_csv(baseline), *(for_csv(getattr(row, name)) for name in names)] for row in rows)
        return csv_text([["baseline", *names], *records])

    with_instances = any(row.instance for row in rows)
    headers = baseline_headers(baseline, with_instances)
    lines = [baseline_cells(row, with_instances) for row in rows]
    if fmt == "markdown":
        text = ["| " + " | ".join(map(for_markdown, headers)) + " |", "|" + "|".join("---" for _ in headers) + "|"]
        return "\n".join(text + ["| " + " | ".join(map(for_markdown, cells)) + " |" for cells in lines])
    title = f"against {for_terminal(baseline)}"
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    columns = []
    for header in headers:
        justify: JustifyMethod = "left" if header in ("solver", "instance", "verdict") else "right"
        table.add_column(header, justify=justify, overflow="fold")
        label = header in LABEL_HEADERS
        rank = BASELINE_SPLIT_ORDER.index(header) if header in BASELINE_SPLIT_ORDER else -1  # the ratio first
        columns.append(Column(header, justify, label=label, words=header == "verdict", rank=rank))
    texts = [[Text(for_terminal(cell)) for cell in cells] for cells in lines]
    for cells in texts:
        table.add_row(*cells)
    return fitted_table(title, columns, texts, table)


LABEL_HEADERS = ("solver", "n", "instance", "seed", "version")  # what names a row: never split off or cut
BASELINE_SPLIT_ORDER = ("verdict", "p (Mann-Whitney)", "runs")  # after the ratio, in a table split to fit one


def seconds_cell(value: float | None, row: SummaryRow) -> str:
    """A time, or what is known of a quantile that falls on runs that did not decide: more than the limit
    only when each of them ran to it; "gave up" when each stopped on its own before it; else "undecided"."""
    if value is not None:
        return f"{value:.4f}"
    if row.undecided_end == Status.TIMED_OUT and row.time_limit is not None:
        return f"> {row.time_limit:g}"
    return "gave up" if row.undecided_end == Status.GAVE_UP else "undecided"


def number(value: float | None, missing: str = "-") -> str:
    if value is None:
        return missing
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.1f}"


CANNOT_DECIDE = "cannot: none exists"  # an incomplete solver on an instance with no solution


def success_cell(row: SummaryRow) -> str:
    if row.refused is not None:
        return "refused"
    if row.cannot_decide:
        return CANNOT_DECIDE
    assert row.success_rate is not None and row.success_low is not None and row.success_high is not None
    return f"{100 * row.success_rate:.0f}% ({100 * row.success_low:.0f}-{100 * row.success_high:.0f})"


def proved_cell(row: SummaryRow) -> str:
    """No-solution claims confirmed, and how many of them by a checked certificate."""
    if row.certified and row.certified == row.proved:
        return f"{row.proved} certified"
    return f"{row.proved} ({row.certified} certified)" if row.certified else str(row.proved)


def unless_undecidable(cell: Callable[[SummaryRow], str]) -> Callable[[SummaryRow], str]:
    """A time figure, or "n/a" where the solver cannot decide the instance (not "inf": nothing was slow),
    or "-" where it refused the board (nothing ran)."""
    return lambda row: "-" if row.refused is not None else "n/a" if row.cannot_decide else cell(row)


def quartiles_cell(row: SummaryRow) -> str:
    low, high = seconds_cell(row.q25_seconds, row), seconds_cell(row.q75_seconds, row)
    return low if low == high and row.q25_seconds is None else f"{low} - {high}"  # "gave up", not twice


def certificates_cell(row: SummaryRow) -> str:
    """What became of the row's no-solution claims' certificates: certified (checked now), the file's word,
    rejected, over budget, unchecked (none, or the checker failed); "-" for a row without such claims."""
    found = [
        f"{count} {label}"
        for label, count in (
            ("certified", row.certified),
            ("file's word", row.certified_word),
            ("rejected", row.certificate_rejected),
            ("over budget", row.certificate_over_budget),
            ("unchecked", row.certificate_unchecked),
        )
        if count
    ]
    return ", ".join(found) or "-"


def other_outcomes(row: SummaryRow) -> str:
    if row.refused is not None:
        return f"refused: {row.refused}"
    found = [
        f"{count} {label}"
        for label, count in (
            ("unconfirmed no-solution", row.unconfirmed),
            ("gave-up", row.gave_up),
            ("timed-out", row.timed_out),
            ("error", row.error),
            ("invalid", row.invalid),
        )
        if count
    ]
    return ", ".join(found) or "-"


# (header, cell) for the table and markdown; csv and json carry every field of SummaryRow


SUMMARY_COLUMNS: tuple[tuple[str, Callable[[SummaryRow], str]], ...] = (
    ("n", lambda row: str(row.n)),
    ("runs", lambda row: str(row.runs)),
    ("decided (95% CI)", success_cell),
    ("solved", lambda row: str(row.solved)),
    ("proved none", proved_cell),
    ("median s", unless_undecidable(lambda row: seconds_cell(row.median_seconds, row))),
    ("quartiles s", unless_undecidable(quartiles_cell)),
    ("ERT s", unless_undecidable(lambda row: "inf" if row.ert_seconds is None else f"{row.ert_seconds:.4f}")),
    ("ERT iterations", unless_undecidable(lambda row: number(row.ert_iterations, "inf"))),
    ("PAR-10 s", unless_undecidable(lambda row: "-" if row.par10_seconds is None else f"{row.par10_seconds:.4f}")),
    ("moves", lambda row: number(row.mean_moves)),
    ("other outcomes", other_outcomes),
)


STEPS_COLUMN = "steps solved/stuck"
CERTIFICATES_COLUMN = "certificates"
CPU_COLUMN = "cpu s"  # the median run's CPU seconds (the quartiles are in CSV, JSON and the row)
MEMORY_COLUMN = "peak MB"  # the median run's peak memory, in MB (10^6 bytes)


def cpu_cell(row: SummaryRow) -> str:
    return "-" if row.cpu_median_seconds is None else f"{row.cpu_median_seconds:.4f}"


def memory_cell(row: SummaryRow) -> str:
    return "-" if row.peak_memory_median_bytes is None else f"{row.peak_memory_median_bytes / 1e6:,.1f}"


def measured(rows: Sequence[SummaryRow]) -> bool:
    """Whether some row has what its runs cost (record version 3): only then are the cost columns shown, so that
    a file without any (every file written before) is reported as it always was."""
    return any(row.measured for row in rows)


def cost_notes(rows: Sequence[SummaryRow]) -> list[str]:
    """The lines under the table naming the variants whose median run used more than one core, or waited."""
    from nqueens_plugins.results.summary import PARALLEL_RATIO, RATIO_FROM_SECONDS, WAITING_RATIO

    lines = []
    for flag, what in (
        ("parallel", f"ran on more than one core (median CPU / wall seconds above {PARALLEL_RATIO:g})"),
        (
            "waiting",
            (
                f"waited for a core or for I/O (median CPU / wall seconds below {WAITING_RATIO:g}, "
                f"runs of {RATIO_FROM_SECONDS:g} s or more)"
            ),
        ),
    ):
        boards = [f"{row.solver} on {row.instance or f'n = {row.n}'}" for row in rows if getattr(row, flag)]
        if boards:
            lines.append(f"{what}: {', '.join(boards)}")
    return lines


def steps_cell(row: SummaryRow) -> str:
    """The textbooks' mean steps when solved and when stuck (AIMA's 8-queens table), "-" for none."""
    if row.steps_solved is None and row.steps_stuck is None:
        return "-"
    return f"{number(row.steps_solved, '-')} / {number(row.steps_stuck, '-')}"


def summary_columns(rows: Sequence[SummaryRow]) -> list[tuple[str, Callable[[SummaryRow], str]]]:
    """The label columns, the figures, the certificates column where some no-solution claim came with a
    certificate (a file without any keeps its table as it was), and the steps column where some row's solver
    counts steps."""
    columns = row_label_columns(rows) + list(SUMMARY_COLUMNS)
    if any(row.certificates for row in rows):
        after = next(i for i, (title, _) in enumerate(columns) if title == "proved none")
        columns.insert(after + 1, (CERTIFICATES_COLUMN, certificates_cell))
    if any(row.steps_solved is not None or row.steps_stuck is not None for row in rows):
        after = next(i for i, (title, _) in enumerate(columns) if title == "ERT iterations")
        columns.insert(after + 1, (STEPS_COLUMN, steps_cell))
    if measured(rows):
        after = next(i for i, (title, _) in enumerate(columns) if title == "PAR-10 s")
        columns[after + 1 : after + 1] = [(CPU_COLUMN, cpu_cell), (MEMORY_COLUMN, memory_cell)]
    return columns


def row_label_columns(rows: Sequence[SummaryRow]) -> list[tuple[str, Callable[[SummaryRow], str]]]:
    """solver, and the instance, seed and version columns only where the rows differ in them."""
    columns: list[tuple[str, Callable[[SummaryRow], str]]] = [("solver", lambda row: row.solver)]
    if any(row.instance for row in rows):
        columns.append(("instance", lambda row: row.instance or "-"))
        columns.append(("known", lambda row: row.answer))
    if any(row.seed is not None for row in rows):
        columns.append(("seed", lambda row: str(row.seed)))
    if any(row.version is not None for row in rows):
        columns.append(("version", lambda row: str(row.version)))
    return columns


PIPED_WIDTH = 1000  # columns: wider than any table (a table keeps its natural width; the console is not filled)


def plain_text(shown: Any) -> str:
    """What ``render_summary`` or ``render_baseline`` gave, as text for a file: a rich table drawn as a pipe
    would get it (whole, never folded to a terminal's width), without colour; text as it is."""
    if isinstance(shown, str):
        return shown
    console = Console(record=True, width=PIPED_WIDTH, file=io.StringIO(), markup=False, highlight=False)  # whole
    console.print(shown)
    return unpadded(console.export_text())


def unpadded(text: str) -> str:
    """Each line without the spaces rich pads it with to its table's width: a file or a pipe gets the
    table's text, not a block 200 columns wide of trailing blanks."""
    return "\n".join(line.rstrip() for line in text.split("\n"))


def render_summary(rows: list[SummaryRow], fmt: str) -> Any:
    """A rich Table for ``table``; a string for ``markdown``, ``csv`` and ``json``. The cost fields are there
    only where some row has them (``measured``); so are the lines naming parallel and waiting runs."""
    from nqueens_plugins.results.summary import COST_FIELDS, SummaryRow

    names = [field.name for field in dataclasses.fields(SummaryRow)]
    if not measured(rows):
        names = [name for name in names if name not in COST_FIELDS]
    if fmt == "json":
        return strict_json([{name: value for name, value in asdict(row).items() if name in names} for row in rows],
                           indent=2)  # fmt: skip
    if fmt == "csv":
        return csv_text([names, *([for_csv(getattr(row, name)) for name in names] for row in rows)])
    columns = summary_columns(rows)
    notes = cost_notes(rows)
    if fmt == "markdown":
        lines = ["| " + " | ".join(title for title, _ in columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
        lines += ["| " + " | ".join(for_markdown(cell(row)) for _, cell in columns) + " |" for row in rows]
        text = "\n".join(lines)
        return text + "\n\n" + "\n".join(f"- {for_markdown(line)}" for line in notes) if notes else text
    table = Table(title="comparison", title_justify="left", box=box.SIMPLE_HEAD)
    specs = []
    for title, _ in columns:
        left = title in ("solver", "instance", "version", *WORDS_COLUMNS)
        table.add_column(title, justify="left" if left else "right", overflow="fold", no_wrap=not left)
        rank = SUMMARY_SPLIT_ORDER.index(title) if title in SUMMARY_SPLIT_ORDER else len(SUMMARY_SPLIT_ORDER)
        specs.append(Column(title, "left" if left else "right", title in LABEL_HEADERS, title in WORDS_COLUMNS, rank))
    texts = [[Text(for_terminal(cell(row))) for _, cell in columns] for row in rows]
    for cells in texts:
        table.add_row(*cells)
    fitted = fitted_table("comparison", specs, texts, table, summary_last=True)
    return RichGroup(fitted, *(Text(for_terminal(line)) for line in notes)) if notes else fitted


WORDS_COLUMNS = ("other outcomes", CERTIFICATES_COLUMN)  # lists of counted outcomes: wrapped between words

# The order in which a comparison's figures fill the parts of a table split to fit a narrow terminal:
# whether and how fast each variant decided first (the part printed last, where the terminal ends), the
# detail after.
SUMMARY_SPLIT_ORDER = (
    "decided (95% CI)",
    "ERT s",
    "median s",
    "other outcomes",
    "known",
    "runs",
    "solved",
    "proved none",
    CERTIFICATES_COLUMN,
    "quartiles s",
    "ERT iterations",
    STEPS_COLUMN,
    "PAR-10 s",
    CPU_COLUMN,
    MEMORY_COLUMN,
    "moves",
)


def crosscheck_table(checks: Sequence[Check]) -> Fitted:
    headers = ("n", "solver", "task", "answer", "expected", "agrees")
    table = Table(title="cross-check", title_justify="left")
    for header in headers:
        table.add_column(header, overflow="fold")
    rows = [
        [
            Text(str(check.n)),
            Text(for_terminal(check.solver)),
            Text(check.task),
            Text(check.answer),
            Text(check.expected),
        ]
        + [agreement_cell(check)]
        for check in checks
    ]
    for cells in rows:
        table.add_row(*cells)
    columns = [Column(header, "left", header in LABEL_HEADERS, rank=i) for i, header in enumerate(headers)]
    return fitted_table("cross-check", columns, rows, table)


def crosscheck_verdict(checks: int, disagreements: int, inconclusive: int) -> str:
    """The one line a cross-check ends with: what it found, and the exit status that implies."""
    agreeing = checks - disagreements - inconclusive
    found = f"{agreeing:,} agree, {disagreements:,} disagree, {inconclusive:,} inconclusive (no answer to compare)"
    counted = f"{checks:,} check" + ("" if checks == 1 else "s")
    if disagreements:
        return f"verdict: DISAGREEMENT in {counted}: {found}; exit status 1"
    return f"verdict: no disagreement in {counted}: {found}; exit status 0"


def agreement_cell(check: Check) -> Text:
    """yes, NO, or what it is when there was nothing to compare: never "yes" for a run without an answer."""
    if not check.agrees:
        return Text("NO", style="bold red")
    if check.skipped:
        return Text("skipped")
    if check.inconclusive:
        return Text("inconclusive", style="yellow")
    return Text("yes", style="green")


def families_line(unsatisfiable: Sequence[InstanceCheck]) -> str:
    """How many no-solution verdicts solvers of two families or more confirmed: two solvers of one
    family may share a mistake in how they read the problem, two families are unlikely to."""
    across = [c for c in unsatisfiable if len(c.refuting_families) > 1]
    within = [c for c in unsatisfiable if c.within_one_family]
    alone = len(unsatisfiable) - len(across) - len(within)  # one family, and a published answer, a proof or a fact
    line = f"no solution confirmed across families: {len(across):,} of {len(unsatisfiable):,}"
    if across:
        sizes = sorted({len(c.refuting_families) for c in across})
        each = f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]}"
        named = sorted({family for c in across for family in c.refuting_families})
        line += f" (by {each} families each, of {', '.join(named)})"
    if within:
        line += f"; {len(within):,} within one family only (below)"
    if alone:
        line += f"; {alone:,} by one family with the published answer, a checked certificate or the verifier"
    return line


def evidence_line(unsatisfiable: Sequence[InstanceCheck]) -> str:
    """What each "no solution" rests on: a checked certificate, a published answer, the verifier's facts, or
    only solvers that agree (corroboration, not proof)."""
    evidence = Counter(str(check.evidence or "corroborated") for check in unsatisfiable)
    order = ("certified", "published", "verifier", "corroborated")
    said = {"corroborated": "only corroborated by solvers that agree", "verifier": "impossible on their face"}
    parts = [f"{evidence[name]:,} {said.get(name, name)}" for name in order if evidence[name]]
    return f"no solution, {len(unsatisfiable):,} instances: " + ", ".join(parts)


def instance_checks_summary(checks: Sequence[InstanceCheck], with_published: bool, listed: int = 40) -> str:
    """Counts of each verdict, agreement with the published answers, then the instances that need a look."""
    from nqueens_plugins.results.crosscheck import Verdict  # here: listing plugins need not import the service

    verdicts = Counter(check.verdict for check in checks)
    lines = [
        f"cross-check of {len(checks):,} instances: "
        + ", ".join(f"{count:,} {verdict}" for verdict, count in sorted(verdicts.items()))
    ]
    unsatisfiable = [c for c in checks if c.verdict == Verdict.UNSATISFIABLE]
    if unsatisfiable:
        lines.append(evidence_line(unsatisfiable))
        lines.append(families_line(unsatisfiable))
    if with_published:
        known = [c for c in checks if c.published is not None]
        decided = [c for c in known if c.verdict != Verdict.UNDECIDED]
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
    worth_a_look = [c for c in checks if not c.agrees or c.verdict.inconclusive or c.within_one_family]
    for check in worth_a_look[:listed]:
        published = (
            "" if check.published is None else f"; published: {'satisfiable' if check.published else 'unsatisfiable'}"
        )
        lines.append(f"  {check.instance}: {check.verdict} ({check.detail}{published})")
    if len(worth_a_look) > listed:
        lines.append(f"  ... and {len(worth_a_look) - listed:,} more (--json lists every instance)")
    return "\n".join(for_terminal(line) for line in lines)  # names and reasons from files and plugins


# --- the portfolio table (results/portfolio.py) ---------------------------------

PORTFOLIO_HEADERS = ("solver", "PAR-2 s", "x VBS", "decided", "gap closed")


def portfolio_cells(row: PortfolioRow, virtual_best: float) -> list[str]:
    closed = "-" if row.gap_closed is None else f"{row.gap_closed:.0%}"
    ratio = f"{row.par / virtual_best:.2f}" if virtual_best > 0 else "-"
    return [row.solver, f"{row.par:.4f}", ratio, f"{row.decided:.0%}", closed]


def render_portfolio(found: Portfolio, fmt: str) -> Any:
    """The virtual best, the single best, each single solver and each portfolio: a rich table, or Markdown."""
    title = f"portfolio: mean PAR-2 over the {found.instances} instances every single solver ran"
    rows = [portfolio_cells(row, found.rows[0].par) for row in found.rows]
    notes = [f"note: {note}" for note in found.notes]
    if fmt == "markdown":
        lines = [f"**{title}**", "", "| " + " | ".join(PORTFOLIO_HEADERS) + " |", "|---|---|---|---|---|"]
        lines += ["| " + " | ".join(for_markdown(cell) for cell in cells) + " |" for cells in rows]
        return "\n".join(lines + ([""] + notes if notes else []))
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    for header in PORTFOLIO_HEADERS:
        left = header == "solver"
        table.add_column(header, justify="left" if left else "right", overflow="fold", no_wrap=not left)
    texts = [[Text(for_terminal(cell)) for cell in cells] for cells in rows]
    for cells in texts:
        table.add_row(*cells)
    columns = [
        Column(header, "left" if i == 0 else "right", i == 0, rank=i) for i, header in enumerate(PORTFOLIO_HEADERS)
    ]
    fitted = fitted_table("portfolio", columns, texts, table)
    return RichGroup(fitted, *(Text(note) for note in notes)) if notes else fitted


def with_certificates(shown: Any, lines: Sequence[str], fmt: str) -> Any:
    """The report's table, followed by what became of the file's certificates (table and Markdown): what was
    re-checked now, and each "certified" that is only the file's word, with why."""
    if not lines or fmt not in ("table", "markdown"):
        return shown
    if fmt == "markdown":
        return shown + "\n\n" + "\n".join(f"- {for_markdown(line)}" for line in lines)
    return RichGroup(shown, *(Text(for_terminal(line)) for line in lines))


def with_portfolio(shown: Any, found: Portfolio | None, fmt: str) -> Any:
    """The report's table, followed by the portfolio table where the file has one (table and Markdown)."""
    if found is None or fmt not in ("table", "markdown"):
        return shown
    extra = render_portfolio(found, fmt)
    return f"{shown}\n\n{extra}" if fmt == "markdown" else RichGroup(shown, Text(""), extra)
