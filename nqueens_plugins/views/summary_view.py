"""Views layer, parent side: a comparison's summary as one object, for notebooks and scripts (``nq.summary``).

``nqueens report`` prints the same rows; here they come as a ``Summary`` that a
notebook shows as HTML tables (``_repr_html_``), a terminal as rich tables
(``__rich__``), ``str()`` as Markdown, and whose ``figure()`` is the plot of
``nqueens plot`` as SVG. The rows themselves (``rows``, ``baseline_rows``) are
the dataclasses of ``results/summary.py``, for code that wants the numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from html import escape
from typing import Any

from nqueens_plugins.results.summary import BaselineRow, Group, GroupKey, SummaryRow
from nqueens_plugins.views.html_report import baseline_table, summary_table
from nqueens_plugins.views.report import render_baseline, render_summary


@dataclass
class SvgFigure:
    """An SVG document that a notebook draws (``_repr_svg_``); ``svg`` is its text, to save or embed."""

    svg: str

    def _repr_svg_(self) -> str:
        return self.svg


@dataclass
class Summary:
    """One row per solver variant and board (decided, ERT, PAR-10, quartiles, counters), and with a
    baseline, every other variant against it (ERT ratio with its interval, Mann-Whitney U)."""

    rows: list[SummaryRow]
    baseline: str | None = None
    baseline_rows: list[BaselineRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the reader should know (a file mixing seeds, ...)
    groups: Mapping[GroupKey, Group] = field(default_factory=dict, repr=False)

    def figure(self) -> SvgFigure:
        """ERT, success and run-time distributions as ``nqueens plot`` draws them (needs matplotlib)."""
        from nqueens_plugins.views.plot import svg_figure

        return SvgFigure(svg_figure(self.groups))

    def to_dicts(self) -> list[dict[str, Any]]:
        """The summary rows as plain dictionaries (``pandas.DataFrame(summary.to_dicts())``)."""
        return [asdict(row) for row in self.rows]

    def _repr_html_(self) -> str:
        parts = [summary_table(self.rows)]
        if self.baseline is not None:
            parts.append(f"<p>against <b>{escape(self.baseline)}</b></p>")
            parts.append(baseline_table(self.baseline, self.baseline_rows))
        parts += [f"<p><i>note: {escape(note)}</i></p>" for note in self.notes]
        return "\n".join(parts)

    def __rich__(self) -> Any:
        from rich.console import Group as Stack

        tables = [render_summary(self.rows, "table")]
        if self.baseline is not None:
            tables.append(render_baseline(self.baseline, self.baseline_rows, "table"))
        return Stack(*tables, *(f"note: {note}" for note in self.notes))

    def _repr_markdown_(self) -> str:
        return str(self)

    def __str__(self) -> str:
        text = [render_summary(self.rows, "markdown")]
        if self.baseline is not None:
            text.append(render_baseline(self.baseline, self.baseline_rows, "markdown"))
        return "\n\n".join(text + [f"note: {note}" for note in self.notes])
