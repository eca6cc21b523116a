"""Views layer, parent side: ``nqueens report FILE --format html -o report.html``, one self-contained page.

Everything is inline (the figure as SVG, the boards as SVG, the style in a
``<style>`` element): no network, no script, so the file can be mailed,
archived or opened offline and shows the same thing in ten years. It holds the
provenance of the runs (the headers: versions, machine, seed, command), the
summary table, what became of the file's certificates (each kept proof linked,
with what its check now found), the comparison against a baseline if one is
asked for, the figures of ``plot.py``, a few verified boards, and the
definitions of the statistics.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from nqueens_plugins.core.problem import Status
from nqueens_plugins.core.verify import board_error
from nqueens_plugins.formats.drawing import board_svg
from nqueens_plugins.formats.run_record import RunRecord
from nqueens_plugins.results.portfolio import portfolio
from nqueens_plugins.results.recheck import CERTIFIED, FILES_WORD, REJECTED, Certificates, Fate
from nqueens_plugins.results.summary import BaselineRow, Group, GroupKey, SummaryRow, summary_rows
from nqueens_plugins.views.escaping import for_href
from nqueens_plugins.views.report import (
    PORTFOLIO_HEADERS,
    baseline_cells,
    baseline_headers,
    cost_notes,
    name_pieces,
    portfolio_cells,
    summary_columns,
)

BOARDS_SHOWN = 12  # solvers' boards drawn at most; any other solver that solved a board is named in a line
LARGEST_BOARD_SHOWN = 24


STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1400px; color: #222; padding: 0 1em; }
body > p, body > dl { max-width: 1200px; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
.table-scroll { overflow-x: auto; max-width: 100%; margin: 0.6em 0; }
table { border-collapse: collapse; font-size: 0.82em; }
th, td { border-bottom: 1px solid #e4e4e4; padding: 0.25em 0.3em; text-align: right; }
th { background: #f4f4f4; vertical-align: bottom; font-size: 0.92em; }
td.text, th.text { text-align: left; } .whole { white-space: nowrap; }
tr > :first-child { position: sticky; left: 0; background: #fff; } tr > th:first-child { background: #f4f4f4; }
@media (max-width: 640px) { tr > :first-child { position: static; } }
dl.provenance { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.2em 1.2em;
  align-items: baseline; }
dl.provenance dt { font-weight: 600; } dl.provenance dd { margin: 0; }
dl.provenance code { font-size: 0.9em; overflow-wrap: anywhere; }
.boards { display: flex; flex-wrap: wrap; gap: 1.2em; } figure { margin: 0; } figcaption { font-size: 0.85em; }
.note { color: #8a5a00; } .definitions dt { font-weight: 600; } .figure svg { max-width: 100%; height: auto; }
"""
# A table fits the page where it can: a figure's cell may wrap between its words ("100% (72-100)" on two
# lines) and a header between its words; a name never wraps inside itself (``breakable``). Where even then
# it is wider than the page (a narrow screen), its own box scrolls, its first column (the solver) held in
# view, except on a screen too narrow to hold it beside anything.


def sample_boards(records: Iterable[RunRecord], kept: list[dict[str, Any]]) -> Iterator[RunRecord]:
    """Pass records through, keeping one verified board per solver that solved one (small boards, the first
    met), up to ``BOARDS_SHOWN``; a solver that solved something but has no board to draw gets an entry with
    ``why`` instead (its boards too large, its queens not kept, or the page's boards all taken), replaced by
    its board if one comes later."""
    at: dict[str, int] = {}  # solver -> its entry in ``kept``
    drawn = 0
    for record in records:
        solver = record.solver
        entry = at.get(solver)
        wanted = entry is None or "why" in kept[entry]  # no board of this solver's kept yet
        if wanted and record.verified is True and record.status == Status.SOLVED:
            found = drawable(record, drawn)
            drawn += "why" not in found
            if entry is None:
                at[solver] = len(kept)
                kept.append(found)
            elif "why" not in found or found["why"] == FULL:  # a board, or the truer reason: the page is full
                kept[entry] = found
        yield record


FULL = f"not drawn: the page shows {BOARDS_SHOWN} solvers' boards at most"


def drawable(record: RunRecord, drawn: int) -> dict[str, Any]:
    """The record's board as the page keeps it, or why it cannot be drawn (``why``)."""
    solver = record.solver
    if not isinstance(record.queens, list):
        return {"solver": solver, "why": "its queens are not kept in the file (compare --queens keeps them)"}
    if record.n > LARGEST_BOARD_SHOWN:
        return {
            "solver": solver,
            "why": f"its solved boards are all larger than {LARGEST_BOARD_SHOWN}x{LARGEST_BOARD_SHOWN}",
        }
    if drawn >= BOARDS_SHOWN:
        return {"solver": solver, "why": FULL}
    # "verified" is the file's word: the board is checked again here before it is drawn as an answer
    fixed = {int(column): int(row) for column, row in (record.fixed or {}).items()}
    blocked = [(int(column), int(row)) for column, row in record.blocked or ()]
    error = board_error(record.n, record.queens, fixed, blocked)
    if error is not None:
        return {
            "solver": solver,
            "why": f"the file calls its board verified, but it is not a solution ({error})",
        }
    return {key: record.get(key) for key in ("solver", "n", "queens", "fixed", "blocked", "seed", "trial")}


def render_html(
    name: str,
    headers: Sequence[Mapping[str, Any]],
    groups: Mapping[GroupKey, Group],
    notes: Sequence[str],
    boards: Sequence[Mapping[str, Any]],
    baseline: tuple[str, list[BaselineRow]] | None = None,
    tune: str | None = None,
    *,
    certificates: Certificates | None = None,
    output: Path | None = None,
) -> str:
    """The page. ``tune``: the section of a file a tune wrote (``tune_view.tune_html``), shown first;
    ``certificates``: how the file's certificates were settled; ``output``: where the page is written (a kept
    proof beside or below it is linked by a relative path, any other by a ``file:`` URL)."""
    rows = summary_rows(groups)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>nqueens report: {escape(name)}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>nqueens report: {escape(name)}</h1>",
        (
            f"<p>{sum(row.runs for row in rows):,} runs of {len({row.solver for row in rows})} variants; every solved "
            "board was verified by the host, again when this file was read; a no-solution claim the file calls "
            "certified counts only where its kept proof was checked again now.</p>"
        ),
    ]
    parts += [f'<p class="note">{escape(note)}</p>' for note in notes]
    if tune is not None:
        parts.append(tune)
    parts.append("<h2>Provenance</h2>")
    parts += [provenance(header) for header in headers]
    parts.append("<h2>Summary</h2>")
    parts.append(summary_table(rows))
    if certificates is not None:
        parts += certificates_section(certificates, (output or Path("report.html")).parent)
    if baseline is not None:
        parts.append(f"<h2>Against {escape(baseline[0])}</h2>")
        parts.append(baseline_table(baseline[0], baseline[1]))
    found = portfolio(groups)
    if found is not None:
        parts.append("<h2>Portfolio: the virtual best and the single best</h2>")
        parts.append(
            f"<p>Mean PAR-2 over the {found.instances} instances every single solver ran; a portfolio's "
            "gap closed is (single best - it) / (single best - virtual best).</p>"
        )
        cells = [portfolio_cells(row, found.rows[0].par) for row in found.rows]
        parts.append(scrolling(table(PORTFOLIO_HEADERS, cells), "portfolio"))
        parts += [f'<p class="note">{escape(note)}</p>' for note in found.notes]
    parts.append("<h2>Run-time distributions, ERT and success</h2>")
    try:
        from nqueens_plugins.views.plot import svg_figure

        parts.append(f'<div class="figure">{svg_figure(groups)}</div>')
    except Exception as exc:  # noqa: BLE001 - the page is still worth having without its figure
        parts.append(f'<p class="note">no figure: {escape(str(exc))}</p>')
    if boards:
        parts.append('<h2>Some verified boards</h2><div class="boards">')
        for board in (board for board in boards if "why" not in board):
            fixed = {int(column): int(row) for column, row in (board.get("fixed") or {}).items()}
            blocked = [tuple(square) for square in board.get("blocked") or []]
            caption = f"{board['solver']}, n = {board['n']}, seed {board['seed']}, trial {board['trial']}"
            svg = board_svg(board["queens"], int(board["n"]), fixed, blocked, size=200, title=caption)
            parts.append(f"<figure>{svg}<figcaption>{escape(caption)}</figcaption></figure>")
        parts.append("</div>")
        parts += [
            f'<p class="note">{escape(board["solver"])}: no board shown: {escape(board["why"])}.</p>'
            for board in boards
            if "why" in board
        ]
    parts.append(DEFINITIONS)
    parts.append("</body></html>")
    return "\n".join(parts)


def certificates_section(certificates: Certificates, page_folder: Path) -> list[str]:
    """What became of the file's certificates: the account's lines, then each kept proof linked (a relative
    link when the proof is beside or below the page), with what its check now found. Nothing when no claim
    came with a certificate."""
    lines = certificates.lines()
    if not lines and not certificates.kept:
        return []
    parts = ["<h2>Certificates</h2>"] + [f"<p>{escape(line)}</p>" for line in lines]
    if certificates.kept:
        cells = []
        for kept in certificates.kept:
            if kept.fate.proof is not None:
                link = f'<a href="{for_href(kept.fate.proof, page_folder)}">{escape(kept.named)}</a>'
            else:
                link = f"{escape(kept.named)} (not found)"
            cells.append(
                f'<tr><td class="text">{breakable(kept.solver)}</td><td class="text">{breakable(kept.instance)}</td>'
                f'<td class="num">{kept.trial}</td><td class="text">{link}</td>'
                f'<td class="text">{escape(outcome(kept.fate))}</td></tr>'
            )
        head = "".join(
            f'<th class="{kind(text)}">{title}</th>'
            for title, text in (("solver", True), ("instance", True), ("trial", False), ("kept proof", True))
        )
        parts.append(
            scrolling(
                f'<table><thead><tr>{head}<th class="text">its check</th></tr></thead>'
                f"<tbody>{''.join(cells)}</tbody></table>",
                "kept proofs",
            )
        )
        if certificates.kept_unlisted:
            parts.append(f'<p class="note">{certificates.kept_unlisted:,} more kept proofs, not listed.</p>')
    return parts


def outcome(fate: Fate) -> str:
    """A kept proof's check as one line: what was found now, or why the claim rests on the file's word."""
    detail = fate.kind + (f": {fate.reason}" if fate.reason and fate.reason != fate.kind else "")
    if fate.status == CERTIFIED:
        return f"certified now ({detail})"
    if fate.status == REJECTED:
        return f"REJECTED{' now' if fate.now else ''}, counted invalid ({detail})"
    if fate.status == FILES_WORD:
        return f"certified by the file's word only, not counted as decided ({detail})"
    return f"{fate.status} ({detail})"


def provenance(header: Mapping[str, Any]) -> str:
    fields = [
        ("created", header.get("created")),
        ("command", header.get("command")),
        ("python", f"{header.get('implementation', '')} {header.get('python', '')}"),
        ("platform", header.get("platform")),
        ("cpu", f"{header.get('cpu')} x {header.get('cpu_count')}"),
        ("packages", ", ".join(f"{k} {v}" for k, v in (header.get("packages") or {}).items())),
        ("grid", json.dumps(header.get("grid"), sort_keys=True) if header.get("grid") else None),
    ]
    items = "".join(
        f"<dt>{escape(label)}</dt><dd><code>{escape(str(value))}</code></dd>" for label, value in fields if value
    )
    return f'<dl class="provenance">{items}</dl>'  # a grid: each label on its value's first line


def scrolling(table: str, label: str) -> str:
    """A table in a container of its own that scrolls sideways when the table is wider than the page.

    A wide table (long solver names, every statistic) is never cut off and never widens the page: its
    first column (the solver) stays in view while the rest scrolls. The container takes the keyboard
    focus, so it scrolls without a mouse too."""
    return (
        f'<div class="table-scroll" style="overflow-x: auto" role="region" aria-label="{escape(label)}" '
        f'tabindex="0">{table}</div>'
    )  # the style inline as well, for a notebook, which shows these tables without the page's STYLE


TEXT_COLUMNS = {
    "solver",
    "solver / instance",
    "instance",
    "version",
    "other outcomes",
    "certificates",
    "verdict",
}  # left-aligned; the rest are figures


def summary_table(rows: Sequence[SummaryRow]) -> str:
    """The summary; with instances, each row's solver and instance stacked in its first cell (the solver on
    the first line, the instance below), as the terminal stacks them when narrow: the two longest names side
    by side would leave no room for the figures on a laptop's page."""
    columns = summary_columns(rows)
    titles = [title for title, _ in columns]
    cells = [[cell(row) for _, cell in columns] for row in rows]
    if "instance" in titles:
        at = titles.index("instance")
        titles = ["solver / instance"] + titles[1:at] + titles[at + 1 :]
        cells = [[f"{row[0]}\n{row[at]}"] + row[1:at] + row[at + 1 :] for row in cells]
    flags = "".join(f'<p class="note">{escape(line)}</p>' for line in cost_notes(rows))  # several cores, or waited
    return scrolling(table(titles, cells), "summary table") + flags


def baseline_table(baseline: str, rows: Sequence[BaselineRow]) -> str:
    with_instances = any(row.instance for row in rows)
    cells = [baseline_cells(row, with_instances) for row in rows]
    return scrolling(table(baseline_headers(baseline, with_instances), cells), f"against {baseline}")


NAME_COLUMNS = {
    "solver",
    "instance",
    "version",
    "solver / instance",
}  # they name the row: a line breaks between names, never inside


def table(titles: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Text columns left-aligned, figures right; a name column breaks only between names (``breakable``), any
    other cell between its words (a count kept with its word: ``10 gave-up``; a bound with its sign)."""
    text = [title in TEXT_COLUMNS for title in titles]
    head = "".join(
        f'<th class="{kind(is_text)}">{two_lines(title)}</th>' for is_text, title in zip(text, titles, strict=True)
    )
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="{kind(is_text)}">{names(cell) if title in NAME_COLUMNS else words(cell)}</td>'
            for is_text, title, cell in zip(text, titles, row, strict=True)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def two_lines(title: str) -> str:
    """A header on two lines, broken at the space nearest its middle (``ERT`` over ``iterations``): a header
    is never what makes its column wide, so a page has room for every column before a figure has to wrap."""
    spaces = [i for i, character in enumerate(title) if character == " "]
    if not spaces:
        return escape(title)
    at = min(spaces, key=lambda i: abs(2 * i - len(title)))
    return f"{escape(title[: at + 1])}<br>{escape(title[at + 1 :])}".replace("/", "/<wbr>")  # solved/stuck


def names(text: str) -> str:
    """A cell of names, one a line (a stacked solver and instance), each breaking only between names."""
    return "<br>".join(breakable(line) for line in text.split("\n"))


def words(text: str) -> str:
    """Escaped, free to wrap between words only (never at a hyphen: ``(72-100)`` stays whole), a count or
    a bound kept with the word after it (``10 gave-up``, ``> 10``, ``0.0001 -``)."""
    pieces = text.split(" ")
    shown = [f'<span class="whole">{escape(piece)}</span>' if "-" in piece[1:] else escape(piece) for piece in pieces]
    gaps = ["&nbsp;" if piece[-1:].isdigit() or piece in (">", "<") else " " for piece in pieces[:-1]]
    return "".join(word + gap for word, gap in zip(shown, [*gaps, ""], strict=True))


def kind(is_text: bool) -> str:
    return "text" if is_text else "num"


def breakable(text: str) -> str:
    """Escaped, a line breaking only between names (``report.name_pieces``: after a comma, colon, space or slash
    outside square brackets): ``forward-checking[order=mrv,values=middle]`` is never split, ``race(a,b)``
    may break after its comma, a path after a folder."""
    return "<wbr>".join(f'<span class="whole">{escape(piece)}</span>' for piece in name_pieces(text))


DEFINITIONS = """<h2>Definitions</h2><dl class="definitions">
<dt>decided (95% CI)</dt><dd>runs that decided the instance, with the 95 % Wilson score interval: a verified
board, or a claim that none exists which agrees with what is known (a verified board elsewhere in the file
refutes it; published answers, the verifier's facts and a certificate the host checked confirm it, or two
different complete solvers agreeing); "cannot" for an incomplete solver on an instance with no solution.
Solved and proved none count the two kinds of decision apart; "certified" in proved none and in known: the
claim came with a proof that the instance's canonical CNF has no model, checked by the host's own checker now,
from the proof the run kept (or as the run was made, for runs made by this process). A claim the file calls
certified with no proof checked now is the file's word ("none (certified, file's word)"): said, never counted as
decided; one whose kept proof the checker rejects now is invalid.</dd>
<dt>certificates</dt><dd>what became of each solver's no-solution claims' certificates: certified (checked
now), file's word, rejected, over budget (the check could not finish in its time, memory or size), unchecked
(none, or the checker failed); shown when some claim came with a certificate.</dd>
<dt>median, quartiles</dt><dd>of time-to-decide (seconds of the solver call), each undecided run counted as
infinitely long (the run-time distribution of Hoos and St&uuml;tzle): a quantile that falls on an undecided
run shows as "&gt; limit" when every undecided run ran to the limit, "gave up" when each stopped on its own
before it, "undecided" when they ended both ways.</dd>
<dt>ERT</dt><dd>expected running time: the seconds (or iterations) of all runs, decided or not, divided by the
number of decided runs; infinite when none decided (Auger and Hansen 2005; COCO, IOHanalyzer).</dd>
<dt>PAR-10</dt><dd>penalised average runtime: the mean seconds with each undecided run counted as ten times the
time limit (the SAT competitions); shown only for runs with a limit.</dd>
<dt>against a baseline</dt><dd>the ratio of ERTs with a bootstrap 95 % interval (runs resampled within each
variant) and a two-sided Mann-Whitney U test on time-to-solve, unsolved runs tied above every solved one at
the smaller of the two limits. The verdict names the test it comes from ("both tests" when they agree) and
says "unclear" when the interval and the test disagree.</dd></dl>"""
