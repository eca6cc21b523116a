"""``nqueens plot``: median seconds and success rate against n (or per instance), one line per solver.

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
    if any(row.instance for row in rows):
        plot_instances(rows, output, plt)
        return
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
    save(figure, output, plt)


def short_label(instance: str) -> str:
    """The file's own name (with @d), without its folders or archive."""
    return instance.rsplit(":", 1)[-1].rsplit("/", 1)[-1]


def plot_instances(rows: list[Any], output: Path, plt: Any) -> None:
    """Instances take the place of sizes: one x position per instance, in natural order."""
    from nqueens_plugins.report import natural_order

    labels = sorted({row.instance or f"n={row.n}" for row in rows}, key=lambda label: natural_order(("", 0, label)))
    position = {label: index for index, label in enumerate(labels)}
    width = max(8.0, min(40.0, 0.35 * len(labels) + 4))
    figure, (seconds_axis, success_axis) = plt.subplots(2, 1, figsize=(width, 8), constrained_layout=True, sharex=True)
    by_solver: dict[str, list[Any]] = {}
    for row in rows:
        by_solver.setdefault(row.solver, []).append(row)
    for solver, points in sorted(by_solver.items()):
        points.sort(key=lambda row: position[row.instance or f"n={row.n}"])
        x = [position[row.instance or f"n={row.n}"] for row in points]
        seconds_axis.plot(x, [max(row.median_seconds, 1e-6) for row in points], marker="o", linestyle="", label=solver)
        decided = [100 * (row.solved + row.no_solution) / row.runs for row in points]
        success_axis.plot(x, decided, marker="o", linestyle="", label=solver)
    seconds_axis.set(yscale="log", ylabel="median seconds per run", title="time to answer, per instance")
    success_axis.set(ylabel="answered (%): solved and verified, or no-solution", ylim=(-5, 105),
                     title="runs that gave an answer")  # fmt: skip
    success_axis.set_xticks(range(len(labels)), [short_label(label) for label in labels], rotation=60, ha="right",
                            fontsize="small")  # fmt: skip
    for axis in (seconds_axis, success_axis):
        axis.grid(True, alpha=0.3)
    seconds_axis.legend(fontsize="small", loc="best")
    save(figure, output, plt)


def save(figure: Any, output: Path, plt: Any) -> None:
    try:
        figure.savefig(output)
    except OSError as exc:
        raise BadInput(f"cannot write {str(output)!r}: {exc.strerror}") from None
    finally:
        plt.close(figure)
