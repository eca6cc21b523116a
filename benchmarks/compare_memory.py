"""Memory of `nqueens compare` against the number of runs (issue 37): python benchmarks/compare_memory.py

The command keeps no record once it is summarised and written, so its resident memory after
20,000 runs must be within 10 % of what it was after 1,000. Measured from outside: the real
command in a child process, its VmRSS read from /proc while the results file is counted.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import finish, header, machine, report

RUNS = 20_000
FIRST = 1_000


def resident_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def lines_in(path: Path) -> int:
    try:
        with path.open("rb") as handle:
            return sum(1 for _ in handle)
    except FileNotFoundError:
        return 0


def main() -> None:
    print(machine())
    header(f"compare: parent resident memory after {FIRST:,} and {RUNS:,} runs")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "runs.jsonl"
        command = subprocess.Popen(
            [sys.executable, "-m", "nqueens_plugins", "compare", "-s", "min-conflicts", "-n", "8",
             "--trials", str(RUNS), "--jobs", "2", "--out", str(out), "--format", "json"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )  # fmt: skip
        early = late = None
        while command.poll() is None:
            done = lines_in(out) - 1  # the header
            try:
                if early is None and done >= FIRST:
                    early = resident_kib(command.pid)
                if done >= RUNS - 100:
                    late = resident_kib(command.pid)  # the last look before it summarises and ends
            except (OSError, RuntimeError):
                break
            time.sleep(0.05)
        assert command.wait() == 0, command.stderr.read() if command.stderr else ""
        assert early is not None and late is not None, "the command ended before it could be measured"
        report(
            f"resident after {RUNS:,} runs / after {FIRST:,}",
            late / early,
            1.10,
            "x",
            note=f"{early / 1024:.1f} MiB -> {late / 1024:.1f} MiB",
        )
    finish()


if __name__ == "__main__":
    main()
