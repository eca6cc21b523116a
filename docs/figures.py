"""Regenerate every figure the documentation shows, from the code as it is today: python docs/figures.py

* ``comparison.png``: the README's quick-start comparison (``nqueens compare``), drawn by ``nqueens plot``;
* ``report.png``: the HTML report of that comparison (``nqueens report --format html``) in headless Chromium;
* ``animation.png``: ``nqueens animate`` of the run docs/methods.md traces, in headless Chromium;
* ``phase-transition.png``: ``benchmarks/phase_transition.py --files 50`` (minutes; ``--skip-phase`` keeps
  the one there).

Run from the repository root with the quick start's plugins installed (``nqueens-ortools``,
``nqueens-constraint``), matplotlib (the ``plot`` extra) and Debian's ``chromium``; ``../shared/csplib``
beside the repository for the phase transition. Every figure is written over the one in ``docs/``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent


def nqueens(*arguments: str) -> None:
    subprocess.run([sys.executable, "-m", "nqueens_plugins", *arguments], check=True, cwd=ROOT)


def quick_start_comparison() -> list[str]:
    """The comparison command of the README's quick start, as it stands there."""
    readme = (ROOT / "README.md").read_text()
    quick_start = readme.split("## Quick start", 1)[1]
    command = re.findall(r"```\n(.*?)```", quick_start, flags=re.DOTALL)[0].strip()
    comparison = command.split("&& nqueens ", 1)[1]
    return [argument.strip('"') for argument in re.findall(r'"[^"]*"|\S+', comparison)]


def screenshot(page: Path, output: Path, width: int, height: int) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("figures: chromium is needed for the screenshots (apt-get install chromium)")
    subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--window-size={width},{height}",
            f"--screenshot={output}",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skip-phase", action="store_true", help="keep phase-transition.png (it takes minutes)")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        runs = work / "runs.jsonl"
        nqueens(*quick_start_comparison(), "--out", str(runs))
        nqueens("plot", str(runs), "-o", str(DOCS / "comparison.png"))
        nqueens("report", str(runs), "--format", "html", "-o", str(work / "report.html"))
        screenshot(work / "report.html", DOCS / "report.png", 1280, 1500)  # a laptop: the width the tests fit
        nqueens("solve", "-s", "min-conflicts", "-n", "12", "--seed", "2", "--trace", str(work / "run.json"))
        nqueens("animate", str(work / "run.json"), "-o", str(work / "run.html"))
        screenshot(work / "run.html", DOCS / "animation.png", 640, 900)
    if not arguments.skip_phase:
        subprocess.run(
            [
                sys.executable,
                "benchmarks/phase_transition.py",
                "--files",
                "50",
                "-o",
                str(DOCS / "phase-transition.png"),
            ],
            check=True,
            cwd=ROOT,
        )
    print("figures: written in docs/")


if __name__ == "__main__":
    main()
