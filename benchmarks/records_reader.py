"""The validating results-file reader against a reader that checks nothing (issue 37):
python benchmarks/records_reader.py [RUNS]

Reading trusts no file (formats/records.py: every field typed and ranged, every board re-verified,
non-finite numbers refused), and that costs time over plain ``json.loads``. The yardstick is
``json.loads`` of every line of the same file, measured in the same run; the figure is the reader's
time over it, for a file of plain 8x8 runs and one of runs on a published 28x28 Blocked n-Queens
instance (its blocked squares are checked on every record). Reported, no target: the price of the
checks, stated.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from common import header, machine, median_of, report

import nqueens_plugins as nq
from nqueens_plugins.formats.records import Loaded, scan_records

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
BLOCKED_28 = Path(nq.__file__).parent / "data" / "blockedqueens.28.1449787894.param"


def template(folder: Path, *board: str) -> tuple[str, dict[str, object]]:
    """The header line and one run record of a real ``nqueens compare`` on ``board``."""
    out = folder / "one.jsonl"
    subprocess.run(
        [sys.executable, "-m", "nqueens_plugins", "compare", "-s", "bitset-mrv", *board, "--out", str(out),
         "--format", "json"],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    lines = out.read_text().splitlines()
    out.unlink()
    return lines[0], json.loads(lines[1])


def write_runs(path: Path, head: str, record: dict[str, object]) -> None:
    """RUNS copies of ``record``, each its own trial and seed, after the header."""
    with path.open("w") as handle:
        handle.write(head + "\n")
        for trial in range(RUNS):
            handle.write(json.dumps(record | {"trial": trial, "seed": trial}) + "\n")


def unchecked(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for line in handle if json.loads(line).get("type") == "run")


def validated(path: Path) -> int:
    return sum(1 for _ in scan_records(path, Loaded()))


def main() -> None:
    print(machine())
    header(f"reading a results file of {RUNS:,} runs: validating reader / json.loads of every line")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        for label, board in (("plain 8x8", ("-n", "8")), ("blocked 28x28", ("--instances", str(BLOCKED_28)))):
            path = folder / "runs.jsonl"
            write_runs(path, *template(folder, *board))
            assert unchecked(path) == validated(path) == RUNS
            floor = median_of(lambda: unchecked(path), 3)
            reader = median_of(lambda: validated(path), 3)
            report(f"{label}: json.loads only", floor, None)
            report(f"{label}: validating reader", reader, None)
            report(f"{label}: reader / json.loads", reader / floor, None, "x")
            path.unlink()


if __name__ == "__main__":
    main()
