"""The validating results-file reader against a reader that checks nothing (issue 37):
python benchmarks/records_reader.py [RUNS]; and what ``nqueens report`` holds in memory (issue 52):
python benchmarks/records_reader.py --report-memory RUNS

Reading trusts no file (formats/records.py: every field typed and ranged, every board re-verified,
non-finite numbers refused), and that costs time over plain ``json.loads``. The yardstick is
``json.loads`` of every line of the same file, measured in the same run; the figure is the reader's
time over it, for a file of plain 8x8 runs and one of runs on a published 28x28 Blocked n-Queens
instance (its blocked squares are checked on every record). Reported, no target: the price of the
checks, stated.

``--report-memory RUNS`` writes a gzip file of one header and RUNS copies of one record (a real 8x8 run of
``bitset-mrv``), runs ``nqueens report`` on it in a fresh process and prints that process's peak RSS
(``VmHWM`` from its own /proc/self/status, read as it ends) and the seconds it took: ``report`` is said to
read a file of any size in flat memory. The machine's CPU and load average are printed with it.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import header, machine, median_of, report

import nqueens_plugins as nq
from nqueens_plugins.formats.records import Loaded, scan_records

RUNS = int(sys.argv[-1]) if len(sys.argv) > 1 and sys.argv[-1].isdigit() else 100_000
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


def peak_rss() -> str:
    """This process's peak resident memory, as the kernel counts it (VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def child_report(path: str) -> None:
    """The child of ``--report-memory``: ``nqueens report PATH`` (its table thrown away), then its peak RSS."""
    from nqueens_plugins.cli import main as nqueens

    sys.argv = ["nqueens", "report", path, "--format", "csv"]
    try:
        nqueens()
    finally:
        print(f"VmHWM {peak_rss()}", file=sys.stderr)


def report_memory() -> None:
    """One header and RUNS copies of one record, gzipped; ``nqueens report`` on it in a fresh process."""
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout.splitlines()
    cpu = next((line.split(":", 1)[1].strip() for line in lscpu if line.startswith("Model name")), "?")
    print(f"{cpu}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        head, record = template(folder, "-n", "8")
        path = folder / "runs.jsonl.gz"
        line = (json.dumps(record) + "\n").encode()
        batch = line * 10_000
        with gzip.open(path, "wb", compresslevel=1) as handle:
            handle.write(head.encode() + b"\n")
            for _ in range(RUNS // 10_000):
                handle.write(batch)
            handle.write(line * (RUNS % 10_000))
        started = time.perf_counter()
        child = subprocess.run(
            [sys.executable, __file__, "--child-report", str(path)], capture_output=True, text=True, check=False
        )
        spent = time.perf_counter() - started
        peak = next((text for text in child.stderr.splitlines() if text.startswith("VmHWM")), "VmHWM unknown")
        print(f"nqueens report of {RUNS:,} gzipped records: exit {child.returncode}, {spent:.1f} s, {peak}")
        if child.returncode:
            print(child.stderr.strip()[-2000:])


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child-report":
        child_report(sys.argv[2])
        return
    if "--report-memory" in sys.argv:
        report_memory()
        return
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
