"""``nqueens plot``: median seconds and success rate against n, one line per solver.

matplotlib is an optional extra (``pip install 'nqueens-plugins[plot]'``); it is
imported here only, with the non-interactive Agg backend, so nothing else pays
for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from nqueens_plugins.errors import BadInput
from nqueens_plugins.report import summarise

FORMATS = (".png", ".svg", ".pdf")


def plot_results(records: Iterable[Mapping[str, Any]], output: Path) -> None:
    if output.suffix.lower() not in FORMATS:
        raise BadInput(f"plot output must end in {', '.join(FORMATS)}, not {output.name!r}")
    try:
        import matplotlib
    except ImportError:
        raise BadInput("nqueens plot needs matplotlib: pip install 'nqueens-plugins[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = summarise(records)
    if not rows:
        raise BadInput("the results file has no runs to plot")
    by_solver: dict[str, list[Any]] = {}
    for row in rows:
        by_solver.setdefault(row.solver, []).append(row)
    figure, (seconds_axis, success_axis) = plt.subplots(1, 2, figsize=(12, 4.8), constrained_layout=True)
    for solver, points in sorted(by_solver.items()):
        points.sort(key=lambda row: row.n)
        sizes = [row.n for row in points]
        seconds_axis.plot(sizes, [max(row.median_seconds, 1e-6) for row in points], marker="o", label=solver)
        success_axis.plot(sizes, [100 * row.success_rate for row in points], marker="o", label=solver)
        success_axis.fill_between(
            sizes, [100 * row.success_low for row in points], [100 * row.success_high for row in points], alpha=0.07
        )
    seconds_axis.set(xscale="log", yscale="log", xlabel="n", ylabel="median seconds per run", title="time to answer")
    success_axis.set(xscale="log", xlabel="n", ylabel="solved and verified (%)", ylim=(-2, 102),
                     title="success rate (95% Wilson interval)")  # fmt: skip
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    for axis in (seconds_axis, success_axis):
        axis.grid(True, which="both", alpha=0.3)
        axis.xaxis.set_major_formatter(ScalarFormatter())  # 10, 100 rather than 10^1, 10^2
        axis.xaxis.set_minor_formatter(NullFormatter())
    success_axis.legend(fontsize="small", loc="best")
    try:
        figure.savefig(output)
    except OSError as exc:
        raise BadInput(f"cannot write {str(output)!r}: {exc.strerror}") from None
    finally:
        plt.close(figure)
