"""The harness and the command line end to end (harness, foundation and execution-service issues):
python benchmarks/harness.py

* 1 000 runs of min-conflicts at n = 8 with --jobs 2 within 2 s, end to end (the whole
  `nqueens compare` process: isolation, verification and recording included);
* ortools-cpsat at n = 8, 20 trials: p90 of the recorded seconds at most 3x the median
  (the warm start keeps the plugin's first import out of the timing);
* a plugin that never returns, under --timeout 1, recorded within 2 s;
* a plugin that never returns even from its warm-up (the default, a 4x4 solve), under
  --timeout 1: the whole command ends within 3 s, timed-out (the default warm-up gets
  0.5 s, then the solver runs cold in a new worker under the 1 s limit and its grace);
* `nqueens count -n 8` within 1.5x of `nqueens solve -s min-conflicts -n 8`, wall time
  of fresh processes (a small count loads no compiled kernels it will not use);
* `nqueens plugins` within 0.5 s (a fresh process, every installed plugin loaded).

With ``--against REV`` it also runs the same commands from a worktree of revision REV,
interleaved with these sources (fastest of 5 each, fresh processes, each side with its
own probe cache), and prints the ratio now / REV: a refactoring shows no slowdown
when every ratio stays within 1.05.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from common import finish, header, machine, report, timed

ROOT = Path(__file__).resolve().parents[1]

NEVER_RETURNS = """
from nqueens_plugins import Solver, hookimpl

class NeverPrepared(Solver):
    name = "never-prepared"
    summary = "Sleeps forever and ignores its budget, in its default warm-up too."

    def solve(self, problem, rng, budget, options):
        import time
        while True:
            time.sleep(1)

class NeverReturns(NeverPrepared):
    name = "never-returns"
    summary = "Warms up at once, then sleeps forever and ignores its budget."

    def warm_up(self, options, preparation=""):
        pass

@hookimpl
def nqueens_register_solvers(register):
    register(NeverReturns())
    register(NeverPrepared())
"""


def nqueens(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nqueens_plugins", *args], capture_output=True, text=True, env=env, check=False
    )


def install_fake_plugin(site: Path) -> dict[str, str]:
    info = site / "never_returns-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: never-returns\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[nqueens]\nnever = never_returns\n")
    (site / "never_returns.py").write_text(textwrap.dedent(NEVER_RETURNS))
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path])}


def main() -> None:
    print(machine())
    header("the harness, end to end")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "runs.jsonl"
        seconds, done = timed(
            lambda: nqueens(
                "compare",
                "-s",
                "min-conflicts",
                "-n",
                "8",
                "--trials",
                "1000",
                "--jobs",
                "2",
                "--out",
                str(out),
                "--format",
                "json",
            )
        )
        assert done.returncode == 0, done.stderr
        summary = json.loads(done.stdout)[0]
        report(
            "1000 runs of min-conflicts n=8, --jobs 2, recorded",
            seconds,
            2.0,
            note=f"{summary['solved']}/{summary['runs']} solved and verified",
        )
        out = Path(folder) / "cpsat.jsonl"
        done = nqueens(
            "compare",
            "-s",
            "ortools-cpsat",
            "-n",
            "8",
            "--trials",
            "20",
            "--jobs",
            "2",
            "--out",
            str(out),
            "--format",
            "json",
        )
        assert done.returncode == 0, done.stderr
        seconds_each = sorted(
            json.loads(line)["seconds"] for line in out.read_text().splitlines() if '"type":"run"' in line
        )
        median, p90 = statistics.median(seconds_each), seconds_each[int(0.9 * len(seconds_each)) - 1]
        report(
            "ortools-cpsat n=8, 20 trials: p90 / median of recorded seconds",
            p90 / median,
            3.0,
            "x",
            note=f"median {1000 * median:.1f} ms, p90 {1000 * p90:.1f} ms, first {1000 * json.loads(out.read_text().splitlines()[1])['seconds']:.1f} ms",
        )
        env = install_fake_plugin(Path(folder) / "site")
        out = Path(folder) / "never.jsonl"
        done = nqueens(
            "compare",
            "-s",
            "never-returns",
            "-n",
            "8",
            "--timeout",
            "1",
            "--jobs",
            "1",
            "--out",
            str(out),
            "--format",
            "json",
            env=env,
        )
        (record,) = [json.loads(line) for line in out.read_text().splitlines() if '"type":"run"' in line]
        report(
            "a plugin that never returns, --timeout 1: recorded after",
            record["seconds"],
            2.0,
            note=f"status {record['status']}",
        )
        seconds, done = timed(
            lambda: nqueens("solve", "-s", "never-prepared", "-n", "8", "--timeout", "1", "--json", env=env)
        )
        report(
            "a plugin that never ends its default warm-up, --timeout 1: solve ends after",
            seconds,
            3.0,
            note=f"status {json.loads(done.stdout)['status']}",
        )

    header("a small count against a small solve (fresh processes, fastest of 5, interleaved)")
    count_times, solve_times = [], []
    for _ in range(5):
        count_times.append(timed(lambda: nqueens("count", "-n", "8", "--json"))[0])
        solve_times.append(timed(lambda: nqueens("solve", "-s", "min-conflicts", "-n", "8", "--json"))[0])
    report(
        "count -n 8 / solve -s min-conflicts -n 8, wall time",
        min(count_times) / min(solve_times),
        1.5,
        "x",
        note=f"fastest {min(count_times):.3f} s / {min(solve_times):.3f} s",
    )

    header("listing plugins")
    nqueens("plugins")  # warm the file system cache
    seconds, done = timed(lambda: nqueens("plugins"))
    report("nqueens plugins (fresh process, all plugins)", seconds, 0.5)
    if "--against" in sys.argv:
        against(sys.argv[sys.argv.index("--against") + 1])
    finish()


AB_COMMANDS = {
    "compare: 1000 runs of min-conflicts n=8, --jobs 2": (
        "compare", "-s", "min-conflicts", "-n", "8", "--trials", "1000", "--jobs", "2", "--format", "json"
    ),
    "compare: min-conflicts and ortools-cpsat alternating, 2x100 runs, --jobs 2": (
        "compare", "-s", "min-conflicts,ortools-cpsat", "-n", "8", "--trials", "100", "--jobs", "2", "--format", "json"
    ),
    "solve -s min-conflicts -n 64 (start, worker, solve)": ("solve", "-s", "min-conflicts", "-n", "64", "--json"),
    "count -s bitboard -n 12": ("count", "-s", "bitboard", "-n", "12", "--json"),
    "plugins (every plugin listed)": ("plugins",),
}  # fmt: skip


def against(revision: str, rounds: int = 5) -> None:
    """The same commands from these sources and from ``revision``, interleaved round by round."""
    header(f"these sources against revision {revision}: fastest of {rounds}, fresh processes")
    with tempfile.TemporaryDirectory() as folder:
        old = Path(folder) / "old"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old), revision], check=True, capture_output=True
        )
        try:
            sides = {"now": ROOT, "before": old}
            times: dict[tuple[str, str], list[float]] = {}
            for _ in range(rounds):
                for side, source in sides.items():
                    env = {**os.environ, "PYTHONPATH": str(source), "NQUEENS_CACHE_DIR": str(Path(folder) / side)}
                    for label, args in AB_COMMANDS.items():
                        seconds, done = timed(
                            lambda: subprocess.run(
                                [sys.executable, "-m", "nqueens_plugins", *args],
                                capture_output=True,
                                text=True,
                                env=env,
                                cwd=source,
                                check=False,
                            )
                        )
                        assert done.returncode == 0, (side, label, done.stderr)
                        times.setdefault((side, label), []).append(seconds)
            for label in AB_COMMANDS:
                now, before = min(times[("now", label)]), min(times[("before", label)])
                report(
                    f"{label}, now / {revision}",
                    now / before,
                    1.05,
                    unit="x",
                    note=f"fastest {before:.3f} s -> {now:.3f} s",
                )
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)], capture_output=True, check=False
            )


if __name__ == "__main__":
    main()
