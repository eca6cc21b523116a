"""Views layer, parent side: ``nqueens plot`` and the report's figures (run-time distributions, ERT, success).

* the empirical run-time distribution (ECDF) of each variant, one panel per board
  size: the fraction of all runs that decided the board within t seconds (Hoos
  and Stützle's run-length distributions; undecided runs keep the curve below 1);
* ERT against n on log axes, with bootstrap 95 % intervals;
* success (decided) against n, with 95 % Wilson intervals;
* for instance files, instances take the place of sizes: ERT and the fraction of
  runs that decided each instance; and when the instances form a family (one
  parameter varies: the prefix d of Excluded Diagonals files, the number of
  blocked squares or of fixed queens), the fraction decided and the ERT pooled
  over the instances of each value, against that parameter.

A run succeeds when it decided its instance (``results.summary``).

matplotlib is an optional extra (``errors.install_hint('plot')`` says how to install it); it is
imported here only, with the non-interactive Agg backend, so nothing else pays
for it. The format follows the output's extension: PNG, SVG or PDF.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from nqueens_plugins.core.errors import BadInput, install_hint
from nqueens_plugins.formats.output_files import write_whole
from nqueens_plugins.results.statistics import ecdf, ert_interval
from nqueens_plugins.results.summary import Group, GroupKey, natural_order, summary_rows
from nqueens_plugins.views.escaping import for_terminal

FORMATS = (".png", ".svg", ".pdf")
MISSING_GLYPH = re.compile(r"Glyph (\d+) \(.*\) missing from (current )?font", re.DOTALL)
MAX_ECDF_PANELS = 4


class Figures:
    """``pyplot.figure``, ``pyplot.subplots`` and ``pyplot.close`` without pyplot: a ``Figure`` made
    directly belongs to no backend and no global list of figures, so drawing one leaves the caller's
    matplotlib as it was (``matplotlib.use("Agg")`` switched a notebook's inline figures off)."""

    @staticmethod
    def figure(**settings: Any) -> Any:
        from matplotlib.figure import Figure

        return Figure(**settings)

    @classmethod
    def subplots(cls, rows: int, columns: int, **settings: Any) -> tuple[Any, Any]:
        layout = {key: settings.pop(key) for key in ("figsize", "constrained_layout") if key in settings}
        figure = cls.figure(**layout)
        return figure, figure.subplots(rows, columns, **settings)

    @staticmethod
    def close(figure: Any) -> None:
        """Nothing to release: no pyplot list holds the figure (kept so callers read like pyplot code)."""


def pyplot() -> Figures:
    """What the figures are drawn with; BadInput naming the extra when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise BadInput(f"plots need matplotlib: {install_hint('plot')}") from None
    return Figures()


def check_output(output: Path) -> None:
    """Refuse a figure file whose extension names no format we write (before any work)."""
    if output.suffix.lower() not in FORMATS:
        raise BadInput(f"plot output must end in {', '.join(FORMATS)}, not {output.name!r}")


def plot_results(groups: Mapping[GroupKey, Group], output: Path) -> None:
    """Write the figure for a results file to ``output`` (its extension picks the format), whole or not at all."""
    check_output(output)
    buffer = io.BytesIO()
    plt = pyplot()
    with glyphs_summarised():
        figure = build_figure(groups, plt)
        try:
            figure.savefig(buffer, format=output.suffix.lower().lstrip("."))
        finally:
            plt.close(figure)
    write_whole(output, buffer.getvalue())


def svg_figure(groups: Mapping[GroupKey, Group]) -> str:
    """The same figure as an SVG document, for the HTML report."""
    buffer = io.StringIO()
    plt = pyplot()
    with glyphs_summarised():
        figure = build_figure(groups, plt)
        try:
            figure.savefig(buffer, format="svg", metadata={"Date": None})  # the same file for the same runs
        finally:
            plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg") :]  # inline: no XML prolog or doctype


def as_text(text: str) -> str:
    """Text from a results file drawn as written: anyone may write those files, and matplotlib parses ``$...$``
    as TeX (a solver named ``$\\frac{$`` raised, 300 nested ``\\sqrt{`` overflowed the stack). An escaped
    dollar is a dollar; the axes' own tick labels keep their TeX (``10^{-2}``). Control characters are drawn as
    the terminal shows them (``\\x1b``): no font has a glyph for them, and matplotlib's warning about each
    missing glyph would carry the raw byte to the user's terminal."""
    return for_terminal(text).replace("$", r"\$")


@contextlib.contextmanager
def glyphs_summarised() -> Iterator[None]:
    """matplotlib's warnings while a figure is drawn, with its "Glyph N missing from font" warnings (two lines
    each, with a source path, one per character of a name from the file) made one warning that lists the
    characters, escaped; any other warning goes on as it came."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    missing: set[str] = set()
    for warning in caught:
        found = MISSING_GLYPH.match(str(warning.message))
        if found is not None:
            missing.add(chr(int(found.group(1))))
        else:
            warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
    if missing:
        shown = for_terminal("".join(sorted(missing)[:20])) + (", ..." if len(missing) > 20 else "")
        warnings.warn(
            f"{len(missing)} characters of the names have no glyph in the figure's font and are drawn as boxes: "
            f"{shown}",
            stacklevel=3,
        )


def percent(fraction: float | None) -> float:
    """A success rate to draw; every group drawn has runs (build_figure leaves refused boards out)."""
    assert fraction is not None
    return 100 * fraction


def build_figure(groups: Mapping[GroupKey, Group], plt: Any) -> Any:
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    groups = {key: group for key, group in groups.items() if group.seconds}  # a refused board has nothing to draw
    if not groups:
        raise BadInput("the results file has no runs to plot")
    if any(key[2] for key in groups):
        families = {group.family for group in groups.values() if group.family is not None}
        if len({name for name, _ in families}) == 1 and len(families) > 1:
            return family_figure(groups, plt)
        return instance_figure(groups, plt)
    sizes = sorted({key[1] for key in groups})
    shown = (
        sizes
        if len(sizes) <= MAX_ECDF_PANELS
        else [sizes[round(i * (len(sizes) - 1) / (MAX_ECDF_PANELS - 1))] for i in range(MAX_ECDF_PANELS)]
    )
    figure = plt.figure(figsize=(12, 9), constrained_layout=True)  # the legend below the panels
    grid = figure.add_gridspec(2, len(shown))
    ert_axis = figure.add_subplot(grid[0, : max(1, len(shown) // 2)])
    success_axis = figure.add_subplot(grid[0, max(1, len(shown) // 2) :] if len(shown) > 1 else grid[0, 0])
    labels = sorted({variant_label(key) for key in groups})
    colours = {label: f"C{index % 10}" for index, label in enumerate(labels)}
    rows = summary_rows(groups)
    for label in labels:
        points = sorted((row for row in rows if variant_label(row_key(row)) == label), key=lambda row: row.n)
        drawn, erts, below, above = [], [], [], []  # the sizes with an ERT, and its interval
        for row in points:
            if row.ert_seconds is None:  # nothing solved: no ERT to draw
                continue
            interval = ert_interval(groups[row_key(row)].runs())
            drawn.append(row.n)
            erts.append(max(row.ert_seconds, 1e-6))
            below.append(max(row.ert_seconds - interval[0], 0) if interval else 0)
            above.append(interval[1] - row.ert_seconds if interval and math.isfinite(interval[1]) else 0)
        if drawn:
            ert_axis.errorbar(
                drawn, erts, yerr=[below, above], marker="o", capsize=3, color=colours[label], label=label
            )
        success_axis.plot(
            [row.n for row in points],
            [percent(row.success_rate) for row in points],
            marker="o",
            color=colours[label],
            label=label,
        )
        success_axis.fill_between(
            [row.n for row in points],
            [percent(row.success_low) for row in points],
            [percent(row.success_high) for row in points],
            alpha=0.08,
            color=colours[label],
        )
    ert_axis.set(
        xscale="log",
        yscale="log",
        xlabel="n",
        ylabel="ERT (seconds)",
        title="expected running time\n(bootstrap 95% interval)",
    )
    success_axis.set(
        xscale="log",
        xlabel="n",
        ylabel="decided (%)",
        ylim=(-2, 102),
        title="decided: a verified board or a confirmed no-solution\n(95% Wilson interval)",
    )

    for column, n in enumerate(shown):
        axis = figure.add_subplot(grid[1, column])
        for key, group in sorted(groups.items(), key=lambda item: variant_label(item[0])):
            if key[1] != n:
                continue
            times, fraction = ecdf(group.runs())
            if len(times):
                axis.step([times[0] / 2, *times], [0, *fraction], where="post", color=colours[variant_label(key)])
        axis.set(xscale="log", xlabel="seconds", ylim=(-0.02, 1.02), title=f"run-time distribution, n = {n}")
        axis.xaxis.set_minor_formatter(NullFormatter())  # the minor labels of a log axis run into each other
        if column == 0:
            axis.set_ylabel("fraction of runs decided")
        axis.grid(True, which="both", alpha=0.3)

    for axis in (ert_axis, success_axis):
        axis.grid(True, which="both", alpha=0.3)
        if len(sizes) <= 12:
            axis.set_xticks(sizes)  # the sizes run, not powers of ten
        axis.xaxis.set_major_formatter(ScalarFormatter())
        axis.xaxis.set_minor_formatter(NullFormatter())
    legend_below(figure, success_axis)  # every variant, solved or not (an unsolved one has no ERT)
    return figure


def legend_below(figure: Any, axis: Any) -> None:
    """The legend of ``axis``'s lines under every panel, outside them all: inside a panel it covered what was
    drawn there (the decided panel's bands), and the colours name the variants of every panel alike."""
    handles, labels = axis.get_legend_handles_labels()
    if handles:
        columns = max(1, min(len(labels), 3 if max(map(len, labels)) > 30 else 4))
        figure.legend(handles, labels, loc="outside lower center", ncols=columns, fontsize="small", frameon=False)


def variant_label(key: GroupKey) -> str:
    solver, _, _, seed, version = key
    extra = ", ".join(
        part
        for part in (f"seed {seed}" if seed is not None else "", f"version {version}" if version is not None else "")
        if part
    )
    return as_text(f"{solver} ({extra})" if extra else solver)


def row_key(row: Any) -> GroupKey:
    return (row.solver, row.n, row.instance or "", row.seed, row.version)


def short_label(instance: str) -> str:
    """The file's own name (with @d), without its folders or archive."""
    return as_text(instance.rsplit(":", 1)[-1].rsplit("/", 1)[-1])


def instance_figure(groups: Mapping[GroupKey, Group], plt: Any) -> Any:
    """Instances take the place of sizes: one x position per instance, in natural order."""
    rows = summary_rows(groups)
    labels = sorted({row.instance or f"n={row.n}" for row in rows}, key=lambda label: natural_order(("", 0, label)))
    position = {label: index for index, label in enumerate(labels)}
    width = max(8.0, min(40.0, 0.35 * len(labels) + 4))
    figure, (seconds_axis, success_axis) = plt.subplots(2, 1, figsize=(width, 8), constrained_layout=True, sharex=True)
    by_solver: dict[str, list[Any]] = {}
    for row in rows:
        by_solver.setdefault(variant_label(row_key(row)), []).append(row)
    for solver, points in sorted(by_solver.items()):
        points.sort(key=lambda row: position[row.instance or f"n={row.n}"])
        timed = [row for row in points if row.ert_seconds is not None]
        seconds_axis.plot(
            [position[row.instance or f"n={row.n}"] for row in timed],
            [max(row.ert_seconds, 1e-6) for row in timed],
            marker="o",
            linestyle="",
            label=solver,
        )
        decided = [percent(row.success_rate) for row in points]
        success_axis.plot(
            [position[row.instance or f"n={row.n}"] for row in points], decided, marker="o", linestyle="", label=solver
        )
    seconds_axis.set(yscale="log", ylabel="ERT (seconds)", title="expected running time, per instance")
    success_axis.set(
        ylabel="decided (%): a verified board, or a confirmed no-solution",
        ylim=(-5, 105),
        title="runs that decided the instance",
    )
    success_axis.set_xticks(
        range(len(labels)), [short_label(label) for label in labels], rotation=60, ha="right", fontsize="small"
    )
    for axis in (seconds_axis, success_axis):
        axis.grid(True, alpha=0.3)
    legend_below(figure, seconds_axis)
    return figure


def family_figure(groups: Mapping[GroupKey, Group], plt: Any) -> Any:
    """An instance family against its parameter: runs pooled over the instances of each value."""
    import numpy as np

    from nqueens_plugins.results.statistics import ert

    name = next(group.family[0] for group in groups.values() if group.family is not None)
    pooled: dict[str, dict[int, list[Group]]] = {}
    for key, group in groups.items():
        if group.family is not None:
            pooled.setdefault(variant_label(key), {}).setdefault(group.family[1], []).append(group)
    figure, (answered_axis, ert_axis) = plt.subplots(1, 2, figsize=(12, 4.8), constrained_layout=True)
    for label, by_value in sorted(pooled.items()):
        values = sorted(by_value)
        answered, costs = [], []
        for value in values:
            members = by_value[value]
            seconds = np.concatenate([np.asarray(group.seconds, dtype=float) for group in members])
            done = np.concatenate([group.decided for group in members])
            answered.append(100 * float(done.mean()))
            costs.append(ert(seconds, done))
        answered_axis.plot(values, answered, marker="o", label=label)
        finite = [(v, c) for v, c in zip(values, costs) if np.isfinite(c)]
        if finite:
            ert_axis.plot([v for v, _ in finite], [max(c, 1e-6) for _, c in finite], marker="o", label=label)
    answered_axis.set(
        xlabel=as_text(name),
        ylabel="decided (%): a verified board, or a confirmed no-solution",
        ylim=(-5, 105),
        title="runs that decided the instance, over the family",
    )
    ert_axis.set(
        xlabel=as_text(name),
        yscale="log",
        ylabel="ERT to a decision (seconds)",
        title="expected running time, pooled per value",
    )
    for axis in (answered_axis, ert_axis):
        axis.grid(True, which="both", alpha=0.3)
    legend_below(figure, answered_axis)
    return figure
