"""Reading results (issue 10): python benchmarks/reporting.py

* `nqueens report` on 100,000 records within 5 s, in flat memory: the peak resident
  memory of the report of 100,000 records is within 20 MiB of that of 10,000 (the file
  is streamed; only each group's numbers are kept);
* the HTML report of the README's comparison (7 solvers, 3 sizes, 10 trials) under 1 MB.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from common import finish, header, report

from nqueens_plugins.formats.records import environment

SOLVERS = [
    "min-conflicts",
    "simulated-annealing",
    "random-restart",
    "steepest-ascent",
    "backtracking",
    "forward-checking[order=mrv,values=middle]",
    "ortools-cpsat",
]


def write_records(path: Path, count: int) -> None:
    rng = random.Random(0)
    header_line = environment("benchmark") | {"grid": {"seed": 0, "timeout": 10.0}}
    with path.open("w") as handle:
        handle.write(json.dumps(header_line) + "\n")
        for index in range(count):
            solver = SOLVERS[index % len(SOLVERS)]
            solved = rng.random() < 0.9
            record = {
                "type": "run",
                "solver": solver,
                "name": solver.split("[")[0],
                "options": {},
                "seed": 0,
                "trial": index,
                "status": "solved" if solved else "gave-up",
                "verified": True if solved else None,
                "reason": None,
                "queens": None,
                "iterations": rng.randrange(1, 5000),
                "moves": rng.randrange(1, 500),
                "counters": {"restarts": 0},
                "seconds": rng.expovariate(200),
                "overhead_seconds": 0.0,
                "n": [8, 16, 32, 64][index % 4],
                "fixed": {},
                "blocked": [],
                "instance": "x",
                "source": None,
                "plugin": "p",
                "distribution": "d",
                "version": "1",
                "timestamp": "t",
                "timeout": 10.0,
            }
            handle.write(json.dumps(record) + "\n")


def report_run(path: Path, *options: str) -> tuple[float, float]:
    """(seconds, peak MiB) of `nqueens report FILE` in a fresh process."""
    # VmHWM, not getrusage's ru_maxrss: Linux carries the parent's peak into ru_maxrss across exec.
    program = (
        "import sys, time; from nqueens_plugins.cli import main; sys.argv = ['nqueens', 'report', *sys.argv[1:]];"
        "start = time.perf_counter()\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
        "peak = next(int(line.split()[1]) for line in open('/proc/self/status') if line.startswith('VmHWM:'))\n"
        "print(time.perf_counter() - start, peak, file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, str(path), *options], capture_output=True, text=True, check=True
    )
    seconds, peak = done.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(peak) / 1024


def main() -> None:
    header("nqueens report: streamed")
    with tempfile.TemporaryDirectory() as folder:
        small, large = Path(folder) / "10k.jsonl", Path(folder) / "100k.jsonl"
        write_records(small, 10_000)
        write_records(large, 100_000)
        _, small_peak = report_run(small, "--format", "json")
        seconds, large_peak = report_run(large, "--format", "json")
        report("report of 100,000 records", seconds, 5.0)
        report(
            "peak memory, 100,000 records minus 10,000 records",
            large_peak - small_peak,
            20.0,
            unit="MiB",
            note=f"{small_peak:.0f} MiB -> {large_peak:.0f} MiB",
        )
        seconds, _ = report_run(large, "--baseline", "min-conflicts", "--format", "json")
        report("report --baseline min-conflicts of 100,000 records (bootstrap and rank tests)", seconds, None)

        header("the HTML report of the README's comparison")
        runs = Path(folder) / "runs.jsonl"
        subprocess.run(
            [
                "nqueens",
                "compare",
                "-s",
                ",".join(SOLVERS[:4] + SOLVERS[5:] + ["python-constraint"]),
                "-n",
                "8,16,32",
                "--trials",
                "10",
                "--out",
                str(runs),
            ],
            check=True,
            capture_output=True,
        )
        page = Path(folder) / "report.html"
        seconds, _ = report_run(runs, "--format", "html", "-o", str(page))
        report(
            "HTML report size, 7 solvers x 3 sizes x 10 trials",
            page.stat().st_size / 2**20,
            1.0,
            unit="MB",
            note=f"written in {seconds:.2f} s",
        )
    finish()


if __name__ == "__main__":
    main()
