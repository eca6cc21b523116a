"""Views layer, parent side: a tune shown: its races (who was dropped when, on what evidence), the best
configuration, and the held-out test against the defaults. As text for a terminal, Markdown or JSON.

``nqueens tune`` shows it when the tune ends; ``nqueens report`` shows it for a
results file a tune wrote, from the race replayed out of the file alone
(``results/tuning.replay``). Labels and choices may come from a file someone
else wrote: they are escaped for where they are shown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from nqueens_plugins.results.elimination import FIRST_TEST, SIGNIFICANCE
from nqueens_plugins.results.held_out import HeldOut
from nqueens_plugins.results.tuning import Iteration, TuneOutcome, TuningBudget
from nqueens_plugins.views.escaping import for_markdown, for_terminal, strict_json

GOAL_NAMES = {"par10": "PAR-10", "ert": "ERT", "ert-iterations": "ERT (iterations)"}


@dataclass(frozen=True)
class TuneShown:
    """Everything a tune's view shows, from a tune just made or one replayed from its file."""

    solver: str
    goal: str
    budget: TuningBudget
    iterations: list[Iteration]
    outcome: TuneOutcome | None  # None: the file ends before the tune did
    held_out: HeldOut | None
    overhead_seconds: float | None = None  # core seconds per run beyond the solver's own (when the tune just ran)
    notes: tuple[str, ...] = ()


def render_tune(shown: TuneShown, fmt: str) -> str:
    if fmt == "json":
        return strict_json(as_json(shown), indent=2)
    escape = for_markdown if fmt == "markdown" else for_terminal
    lines = [*headline(shown, escape), "", *race_table(shown, fmt), ""]
    lines += fates(shown, escape)
    lines += verdict_lines(shown, escape)
    if shown.overhead_seconds is not None:
        overhead = f"Overhead: {shown.overhead_seconds:.3f} core seconds a run beyond the solver's own"
        lines += ["", f"{overhead} (wall x workers - solver time, over the runs)."]
    lines += [f"{escape(note)}" for note in shown.notes]
    return "\n".join(lines)


def budget_text(budget: TuningBudget) -> str:
    if budget.runs is not None:
        return f"a {budget.runs:,}-run budget"
    return f"a budget of {budget.seconds:g} s of the solver's time"


def headline(shown: TuneShown, escape: Any) -> list[str]:
    runs = sum(iteration.runs for iteration in shown.iterations)
    state = "" if shown.outcome is not None else " (the file ends before the tune did: the race so far)"
    line = (
        f"Tuning {escape(shown.solver)} by iterated racing: {runs:,} runs of {budget_text(shown.budget)}, "
        f"{len(shown.iterations)} races, goal {GOAL_NAMES[shown.goal]}{state}"
    )
    return [line]


def race_table(shown: TuneShown, fmt: str) -> list[str]:
    header = ("race", "entered", "new", "blocks", "runs", "tests", "dropped", "survived")
    rows = [
        (
            str(it.number),
            str(len(it.entered)),
            str(len(it.new)),
            str(it.blocks),
            str(it.runs),
            str(len(it.tests)),
            str(sum(len(test.dropped) for test in it.tests)),
            str(len(it.survivors)),
        )
        for it in shown.iterations
    ]
    if fmt == "markdown":
        return ["| " + " | ".join(header) + " |", "|" + "---:|" * len(header)] + [
            "| " + " | ".join(row) + " |" for row in rows
        ]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    return ["  ".join(h.rjust(w) for h, w in zip(row, widths, strict=True)) for row in [header, *rows]]


def fates(shown: TuneShown, escape: Any) -> list[str]:
    """The best, those not separated from it, and each dropped configuration with the test that dropped it."""
    lines: list[str] = []
    if shown.outcome is not None:
        lines.append(f"Best: {escape(shown.outcome.best)}")
        if shown.outcome.tied:
            lines.append(f"Not separated from it ({len(shown.outcome.tied)}):")
            lines += [f"  {escape(label)}" for label in shown.outcome.tied]
        else:
            lines.append("Every other configuration was dropped by a test.")
    dropped = [(it, label, test) for it in shown.iterations for label, test in it.dropped_at().items()]
    if dropped:
        lines.append(f"Dropped by the Friedman test (p < {SIGNIFICANCE:g}, then Conover's critical difference):")
    for it, label, test in dropped:
        sums = dict(zip(test.configurations, test.rank_sums, strict=True))
        best_sum = test.rank_sums[0]
        lines.append(
            f"  race {it.number}, block {test.blocks}: {escape(label)}: rank sum {sums[label]:g} against "
            f"the best's {best_sum:g}, critical difference {test.critical:.3g}, p = {test.p_value:.2g}"
        )
    undecided = [it for it in shown.iterations if not it.tests]
    for it in undecided:
        lines.append(f"  race {it.number} ran {it.blocks} blocks, fewer than the {FIRST_TEST} of a first test")
    return lines


def verdict_lines(shown: TuneShown, escape: Any) -> list[str]:
    test = shown.held_out
    if test is None:
        return ["", "No held-out test (--test-runs 0)."]
    unit = "iterations" if test.goal == "ert-iterations" else "s"
    name = GOAL_NAMES[test.goal]
    lines = ["", f"Held out: {test.best.runs} blocks each, seeds (and instances, where set aside) the race never saw"]
    width = max(len("defaults"), 4)
    for role, side in (("best", test.best), ("defaults", test.defaults)):
        score = "none decided" if math.isinf(side.score) else f"{side.score:.4g} {unit}"
        lines.append(f"  {role.ljust(width)}  {side.decided}/{side.runs} decided  {name} {score}  {escape(side.label)}")
    paired = "no pair differs" if test.paired_p is None else f"p = {test.paired_p:.2g}"
    lines.append(
        f"  paired test (Wilcoxon signed-rank): {paired}; the best cost less on {test.best_wins} blocks, "
        f"the defaults on {test.defaults_wins}"
    )
    baseline = test.baseline
    interval = ""
    if baseline.ratio_low is not None and baseline.ratio_high is not None:
        interval = f" [{baseline.ratio_low:.3g}, {baseline.ratio_high:.3g}]"
    lines.append(f"  baseline test: ERT ratio {baseline.ert_ratio:.3g}{interval}: {baseline.verdict()}")
    lines.append(f"  verdict: {test.verdict()}")
    return lines


def as_json(shown: TuneShown) -> dict[str, Any]:
    outcome = shown.outcome
    test = shown.held_out
    return {
        "solver": shown.solver,
        "goal": shown.goal,
        "budget": shown.budget.describe(),
        "finished": outcome is not None,
        "best": outcome.best if outcome else None,
        "tied": list(outcome.tied) if outcome else [],
        "runs": sum(it.runs for it in shown.iterations),
        "overhead_seconds_per_run": shown.overhead_seconds,
        "races": [
            {
                "race": it.number,
                "entered": it.entered,
                "new": it.new,
                "blocks": it.blocks,
                "runs": it.runs,
                "survivors": it.survivors,
                "tests": [
                    {
                        "blocks": t.blocks,
                        "p_value": t.p_value,
                        "critical_difference": t.critical,
                        "rank_sums": dict(zip(t.configurations, t.rank_sums, strict=True)),
                        "dropped": list(t.dropped),
                    }
                    for t in it.tests
                ],
            }
            for it in shown.iterations
        ],
        "held_out": None
        if test is None
        else {
            "blocks": test.best.runs,
            "best": vars(test.best),
            "defaults": vars(test.defaults),
            "paired_p_value": test.paired_p,
            "best_cheaper_blocks": test.best_wins,
            "defaults_cheaper_blocks": test.defaults_wins,
            "ert_ratio": test.baseline.ert_ratio,
            "ert_ratio_interval": [test.baseline.ratio_low, test.baseline.ratio_high],
            "mann_whitney_p_value": test.baseline.p_value,
            "baseline_verdict": test.baseline.verdict(),
            "verdict": test.verdict(),
        },
        "notes": list(shown.notes),
    }


def tune_html(shown: TuneShown) -> str:
    """The tune's section of the HTML report: the races, who was dropped when and on what evidence, the best
    and its rivals, and the held-out test."""
    from html import escape

    from nqueens_plugins.views.html_report import scrolling, table

    parts = ["<h2>Tuning by racing</h2>", f"<p>{escape(headline(shown, str)[0])}.</p>"]
    header, *rows = [line.split() for line in race_table(shown, "table")]
    parts.append(scrolling(table(header, rows), "races"))
    if shown.outcome is not None:
        parts.append(f"<p>Best: <code>{escape(shown.outcome.best)}</code></p>")
        if shown.outcome.tied:
            tied = "".join(f"<li><code>{escape(label)}</code></li>" for label in shown.outcome.tied)
            parts.append(f"<p>Not separated from it by any test:</p><ul>{tied}</ul>")
    dropped = [
        [
            str(it.number),
            str(test.blocks),
            label,
            f"{dict(zip(test.configurations, test.rank_sums, strict=True))[label]:g}",
            f"{test.rank_sums[0]:g}",
            f"{test.critical:.3g}" if test.critical is not None else "",
            f"{test.p_value:.2g}" if test.p_value is not None else "",
        ]
        for it in shown.iterations
        for label, test in it.dropped_at().items()
    ]
    if dropped:
        titles = ["race", "block", "solver", "rank sum", "best's", "critical difference", "Friedman p"]
        parts.append(
            f"<p>Dropped by the Friedman test (p &lt; {SIGNIFICANCE:g}) and Conover's critical difference:</p>"
        )
        parts.append(scrolling(table(titles, dropped), "dropped configurations"))
    test = shown.held_out
    if test is None:
        parts.append("<p>No held-out test (--test-runs 0).</p>")
        return "\n".join(parts)
    lines = [line.strip() for line in verdict_lines(shown, str) if line.strip()]
    parts.append(f"<p>{escape(lines[0])}.</p>")
    unit = "iterations" if test.goal == "ert-iterations" else "s"
    sides = [
        [role, f"{side.decided}/{side.runs}", "none decided" if math.isinf(side.score) else f"{side.score:.4g} {unit}",
         side.label]
        for role, side in (("best", test.best), ("defaults", test.defaults))
    ]  # fmt: skip
    parts.append(scrolling(table(["", "decided", GOAL_NAMES[test.goal], "solver"], sides), "held-out test"))
    parts += [f"<p>{escape(line)}</p>" for line in lines[3:]]
    return "\n".join(parts)
