"""The pages nqueens writes, laid out in a real browser: the HTML report and the animation player.

What a screenshot shows a person, measured in headless Chromium through selenium (as
tests/test_docs_site.py drives it): in the report each provenance label sits on its value's first
line, and no table runs past the page unless the container holding it scrolls sideways, at a laptop's
1280 px and at a narrow 800 px; the animation opens on the board the run starts from and its cost
curve names its axes. Without selenium, Chromium or its chromedriver it skips, saying which.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import driven_chromium

import nqueens_plugins as nq

WIDTHS = (1280, 800)  # a laptop, and a narrow window
LONG_NAMES = ["forward-checking[order=mrv,values=middle]", "min-conflicts", "simulated-annealing[cooling=0.99,t0=8]"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium driven through Debian's chromedriver."""
    yield from driven_chromium([], "the pages are not laid out")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HTML report of a small comparison with long variant names and a baseline: wide tables."""
    folder = tmp_path_factory.mktemp("layout")
    runs = folder / "runs.jsonl"
    nq.compare(LONG_NAMES, [6, 8, 10], trials=3, out=str(runs), limits=nq.Limits(timeout=10))
    page = folder / "report.html"
    command = ["report", str(runs), "--format", "html", "-o", str(page), "--baseline", "min-conflicts"]
    done = subprocess.run(
        [sys.executable, "-m", "nqueens_plugins", *command], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return page


README_SOLVERS = (  # the README's first command: seven variants, one of them a long spec
    "min-conflicts",
    "simulated-annealing",
    "random-restart",
    "steepest-ascent",
    "forward-checking[order=mrv,values=middle]",
    "ortools-cpsat",
    "python-constraint",
)
INSTANCES = [f"diag-10-4-1.param@{d}" for d in range(1, 15)] + ["blockedqueens.28.1449787894.param"]


@pytest.fixture(scope="module")
def wide_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The widest summary a new user met: the README's seven variants on a 15-instance file, a certificates
    column, steps, gave-up counts in the last column."""
    from nqueens_plugins.formats.records import environment

    folder = tmp_path_factory.mktemp("wide")
    runs = [environment("test") | {"grid": {"seed": 0, "timeout": 10.0}}]
    for index, solver in enumerate(README_SOLVERS):
        for source in INSTANCES:
            for trial in range(3):
                gave_up = solver == "steepest-ascent"
                runs.append(
                    {"type": "run", "solver": solver, "options": {}, "seed": 0, "trial": trial,
                     "n": 28 if source.startswith("blocked") else 10, "status": "gave-up" if gave_up else "solved",
                     "verified": None if gave_up else True, "iterations": 1000 * (trial + 1), "moves": 100 + trial,
                     "counters": {"steps": 12} if solver == "min-conflicts" else {}, "fixed": {}, "blocked": [],
                     "seconds": 0.0001 * (index + 1) * (trial + 1), "source": source, "timeout": 10.0}
                )  # fmt: skip
    results = folder / "runs.jsonl"
    results.write_text("".join(json.dumps(run) + "\n" for run in runs))
    page = folder / "report.html"
    command = ["report", str(results), "--format", "html", "-o", str(page)]
    done = subprocess.run(
        [sys.executable, "-m", "nqueens_plugins", *command], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return page


# The summary table in its box: whether the box scrolls, whether its last column can be brought into view,
# and whether a name in its first column ever wraps inside itself (a piece that breaks has two boxes).
SUMMARY = """
const box = document.querySelector(".table-scroll"), cells = box.querySelectorAll("th");
const scrolls = box.scrollWidth > box.clientWidth + 1;
box.scrollLeft = box.scrollWidth;
const last = cells[cells.length - 1].getBoundingClientRect(), edge = box.getBoundingClientRect();
const names = Array.from(box.querySelectorAll("td:first-child .whole"));
return {viewport: document.documentElement.clientWidth, page: document.documentElement.scrollWidth, scrolls,
        last_inside: last.right <= edge.right + 1 && last.left >= edge.left - 1, last: cells[cells.length - 1].textContent,
        names: names.length, split: names.filter(name => name.getClientRects().length > 1).map(n => n.textContent)};
"""


@pytest.mark.parametrize("width", (1280, 400))
def test_the_summary_fits_a_laptop_and_scrolls_in_its_own_box_on_a_phone(
    browser: Any, report: Path, wide_report: Path, width: int
) -> None:
    """At 1280 px every column of the summary is on the page, the last ("other outcomes") too, without
    scrolling; at 400 px the table scrolls in its box, not the page, and its last column can be reached. No
    solver's name wraps inside itself at either width."""
    for page in (report, wide_report):
        browser.set_window_size(width, 1000)
        browser.get(page.as_uri())
        shown = browser.execute_script(SUMMARY)
        assert shown["page"] <= shown["viewport"], f"{page.parent.name}: the page scrolls sideways at {width} px"
        assert shown["last"] == "other outcomes" and shown["last_inside"], shown
        assert shown["scrolls"] == (width < 1000), f"{page.parent.name} at {width} px: {shown}"
        assert shown["names"] and not shown["split"], shown["split"]


# Where each table's right edge lies, against the page and the nearest ancestor that scrolls sideways;
# and where each provenance label lies against the first line of its value.
LAYOUT = """
const viewport = document.documentElement.clientWidth;
function scroller(element) {
  for (let e = element.parentElement; e && e !== document.body; e = e.parentElement) {
    const overflow = getComputedStyle(e).overflowX;
    if (overflow === "auto" || overflow === "scroll") return e;
  }
  return null;
}
const tables = Array.from(document.querySelectorAll("table"), table => {
  const holder = scroller(table);
  return {right: table.getBoundingClientRect().right, holder: holder && holder.getBoundingClientRect().right,
          head: table.querySelector("th").textContent};
});
const labels = Array.from(document.querySelectorAll("dl.provenance dt"), dt => {
  const dd = dt.nextElementSibling, range = document.createRange();
  range.selectNodeContents(dd);
  const label = dt.getBoundingClientRect(), line = range.getClientRects()[0];
  return {label: dt.textContent, middle: (label.top + label.bottom) / 2, top: line.top, bottom: line.bottom,
          label_right: label.right, value_left: line.left};
});
return {viewport, page: document.documentElement.scrollWidth, tables, labels};
"""


@pytest.mark.parametrize("width", WIDTHS)
def test_no_table_is_cut_off_and_each_label_sits_beside_its_value(browser: Any, report: Path, width: int) -> None:
    browser.set_window_size(width, 1000)
    browser.get(report.as_uri())
    layout = browser.execute_script(LAYOUT)
    viewport = layout["viewport"]
    assert layout["page"] <= viewport, "the page itself scrolls sideways: something is wider than the window"
    assert len(layout["tables"]) == 3  # the summary, the baseline's and the portfolio (two solvers, one board)
    for table in layout["tables"]:
        if table["holder"] is None:  # a table that does not scroll must fit the page
            assert table["right"] <= viewport, f"a table ends at {table['right']:.0f} px of {viewport}"
        else:  # one that does: its container fits, and the rest is a scroll away
            assert table["holder"] <= viewport, f"a table's container ends at {table['holder']:.0f} px"
    assert {label["label"] for label in layout["labels"]} >= {"created", "python", "packages", "grid"}
    for label in layout["labels"]:
        assert label["top"] <= label["middle"] <= label["bottom"], f"{label['label']} drifted off its value"
        assert label["label_right"] <= label["value_left"], f"{label['label']} overlaps its value"


def test_a_narrow_window_scrolls_the_wide_table_in_its_own_box(browser: Any, report: Path) -> None:
    """At 800 px the summary is wider than the page: its box scrolls, and scrolling it shows its last column."""
    browser.set_window_size(800, 1000)
    browser.get(report.as_uri())
    shown = browser.execute_script(
        """
        const box = document.querySelector(".table-scroll"), cells = box.querySelectorAll("th");
        const before = box.scrollWidth > box.clientWidth;
        box.scrollLeft = box.scrollWidth;
        const last = cells[cells.length - 1].getBoundingClientRect(), edge = box.getBoundingClientRect();
        return {scrolls: before, last_inside: last.right <= edge.right + 1 && last.left >= edge.left};
        """
    )
    assert shown == {"scrolls": True, "last_inside": True}


@pytest.mark.parametrize(
    "spec, opening, queens", [("min-conflicts", "the initial board", 12), ("forward-checking", "the empty board", 0)]
)
def test_the_animation_opens_where_the_run_starts_with_its_axes_named(
    browser: Any, tmp_path: Path, spec: str, opening: str, queens: int
) -> None:
    from nqueens_plugins.views.animate import QUEEN

    nq.animation(nq.solve(spec, 12, limits=nq.Limits(seed=2), trace=True)).save(tmp_path / "run.html")
    browser.set_window_size(700, 1000)
    browser.get((tmp_path / "run.html").as_uri())
    shown = browser.execute_script(
        """
        const curve = document.getElementById("curve");
        return {label: document.getElementById("label").textContent,
                queens: Array.from(document.querySelectorAll("#board circle"))
                  .filter(c => c.getAttribute("stroke") === arguments[0] && !c.classList.contains("attacked")).length,
                words: Array.from(curve.querySelectorAll("text"), t => t.textContent)};
        """,
        QUEEN,
    )
    assert shown["label"].startswith("step 0 of ") and opening in shown["label"], shown["label"]
    assert shown["queens"] == queens
    assert "step" in shown["words"] and "attacking pairs" in shown["words"]
    assert not [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
