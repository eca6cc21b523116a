"""The phase transition of Excluded Diagonals (Gent, Jefferson and Nightingale, JAIR 2017),
reproduced with ``bitset-mrv`` beside the published shiftqueens figures of the same instances:

    python benchmarks/phase_transition.py [--files K] [--sizes 10..21] [-o phase.png] [--csv phase.csv]

For each n, K lists of the CSPLib set are decided at every d the published results
cover. Per n and d it prints and plots the fraction satisfiable (ours and published:
they must coincide) and the median search cost (our placements, the published
shiftqueens search nodes) against d/n, and says where the cost peaks relative to the
point where half the instances are satisfiable. Needs matplotlib for the figure
(``pip install 'nqueens-plugins[plot]'``) and ../shared/csplib beside the repository.
"""

from __future__ import annotations

import argparse
import csv
import statistics
from collections import defaultdict
from pathlib import Path

from common import DIAGONALS, shiftqueens_results

from nqueens_plugins.execution.inprocess import run
from nqueens_plugins.formats import inputs, instances
from nqueens_plugins.loading import host


def list_id(source: str) -> int:
    return int(source.rsplit("-", 1)[1].split(".")[0])


def measure(sizes: list[int], files: int) -> list[dict[str, float]]:
    answers = shiftqueens_results()
    variant = host.registry().variant("bitset-mrv")
    rows = []
    for n in sizes:
        lists = sorted(instances.diagonal_lists(DIAGONALS / f"diag-{n}.tar.gz"), key=lambda item: list_id(item.source))[
            :files
        ]
        by_d: dict[int, list[tuple[bool, int, bool, int]]] = defaultdict(list)
        for diagonals in lists:
            for d in range(len(diagonals.diagonals) + 1):
                answer = answers.get((n, list_id(diagonals.source), d))
                if answer is None:
                    continue
                result = run(variant, diagonals.instance(d))
                if result.status not in ("solved", "no-solution"):
                    raise SystemExit(f"{diagonals.source}@{d}: {result.status} ({result.reason})")
                by_d[d].append((result.status == "solved", result.moves, answer[0], answer[1]))
        for d, runs in sorted(by_d.items()):
            rows.append(
                {
                    "n": n,
                    "d": d,
                    "d_over_n": d / n,
                    "instances": len(runs),
                    "satisfiable": sum(r[0] for r in runs) / len(runs),
                    "satisfiable_published": sum(r[2] for r in runs) / len(runs),
                    "median_placements": statistics.median(r[1] for r in runs),
                    "median_nodes_published": statistics.median(r[3] for r in runs),
                    "disagreements": sum(r[0] != r[2] for r in runs),
                }
            )
        print(f"n = {n}: {sum(len(v) for v in by_d.values()):,} instance/d pairs decided", flush=True)
    return rows


def summarise(rows: list[dict[str, float]]) -> None:
    print(
        f"\n{'n':>3} {'pairs':>6} {'disagree':>8} {'d/n at 50% sat':>15} {'d/n at peak cost (ours)':>24} {'(published)':>12}"
    )
    for n in sorted({int(r["n"]) for r in rows}):
        mine = [r for r in rows if r["n"] == n]
        half = next((r["d_over_n"] for r in mine if r["satisfiable"] <= 0.5), float("nan"))
        peak = max(mine, key=lambda r: r["median_placements"])["d_over_n"]
        peak_published = max(mine, key=lambda r: r["median_nodes_published"])["d_over_n"]
        pairs = sum(int(r["instances"]) for r in mine)
        disagreements = sum(int(r["disagreements"]) for r in mine)
        print(f"{n:>3} {pairs:>6} {disagreements:>8} {half:>15.2f} {peak:>24.2f} {peak_published:>12.2f}")


def plot(rows: list[dict[str, float]], output: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted({int(r["n"]) for r in rows})
    colours = plt.cm.viridis([i / max(1, len(sizes) - 1) for i in range(len(sizes))])
    figure, (sat_axis, cost_axis) = plt.subplots(1, 2, figsize=(13, 5), constrained_layout=True)
    for colour, n in zip(colours, sizes):
        mine = [r for r in rows if r["n"] == n]
        x = [r["d_over_n"] for r in mine]
        sat_axis.plot(x, [r["satisfiable"] for r in mine], color=colour, label=f"n = {n}")
        sat_axis.plot(
            x, [r["satisfiable_published"] for r in mine], color=colour, linestyle=":", linewidth=2.5, alpha=0.5
        )
        cost_axis.plot(x, [max(r["median_placements"], 1) for r in mine], color=colour, label=f"n = {n}")
        cost_axis.plot(x, [max(r["median_nodes_published"], 1) for r in mine], color=colour, linestyle=":", alpha=0.7)
    sat_axis.set(
        xlabel="excluded diagonals / n",
        ylabel="fraction satisfiable",
        title="satisfiable: bitset-mrv (solid), shiftqueens published (dotted)",
    )
    cost_axis.set(
        xlabel="excluded diagonals / n",
        ylabel="median search cost",
        yscale="log",
        title="cost: bitset-mrv placements (solid), shiftqueens nodes (dotted)",
    )
    for axis in (sat_axis, cost_axis):
        axis.grid(True, alpha=0.3)
    cost_axis.legend(fontsize="small", ncol=2)
    figure.savefig(output)
    plt.close(figure)
    print(f"wrote {output}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=50, help="lists per n (of 1000)")
    parser.add_argument("--sizes", default="10..21", help="board sizes, e.g. 10..21 or 12,16,20")
    parser.add_argument("-o", "--output", default="phase-transition.png", help="figure: .png, .svg or .pdf")
    parser.add_argument("--csv", default=None, help="also write the table as CSV")
    arguments = parser.parse_args()
    if not DIAGONALS.exists():
        print(f"skipped: {DIAGONALS} is not there (it sits beside the repository in this project's workspace)")
        return
    rows = measure(inputs.parse_sizes(arguments.sizes), arguments.files)
    summarise(rows)
    if arguments.csv:
        with open(arguments.csv, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    plot(rows, Path(arguments.output))


if __name__ == "__main__":
    main()
