"""What a run costs, measured by nqueens (``execution/measuring.py``) and by BenchExec's ``runexec``, side by
side: python benchmarks/measurement.py [--quick]

Issue 55 asks the figures of ``RunMeter`` (CPU seconds of the run's threads and processes, peak memory,
threads and processes at most) to agree with BenchExec's, the tool of the SAT competition, the MiniZinc
Challenge and SV-COMP, which measures a run's process tree with a cgroup. Needs ``pip install
'.[benchexec]'`` (``runexec`` on the PATH or beside this Python) and a machine that lets it make cgroups.

For each case, the same solver call (``nq.solve`` or ``nq.count`` with ``isolate=False``) is made in a
fresh *driver* process (this file with ``--driver``), which imports the package, makes the same call
on a small board first (as a worker warms a solver up), then makes the measured call inside a
``RunMeter``, and writes the meter's figures to a file. That driver is run three ways:

1. by ``runexec --no-container``: BenchExec's figures of the whole driver process, its start,
   imports and warm-up included (with this process's ``HOME``: runexec gives a run an empty home of
   its own, where the user's cache folder would be empty, and every run would probe the plugins'
   imports and compile the built-ins' kernels again); and again with ``--skip`` (everything but the measured call), so
   that the difference of the two CPU times is the call's, as BenchExec sees it;
2. as a child of this process inside a ``RunMeter``: the whole driver as nqueens' meter sees it from
   outside, the same scope as (1) (CPU seconds through ``RUSAGE_CHILDREN`` once reaped; memory the
   child's own peak, sampled);
3. the meter's figures of the call alone, from inside the driver (what a worker will record).

It prints, never asserts: CPU seconds side by side (whole process against whole process, and call
against call), peak memory (the call's peak in the driver, which holds the driver's own memory, against
BenchExec's peak of the whole driver), threads and processes (BenchExec reports neither), and each ratio.
The wiring of the meter into the worker (around ``calls.perform``) comes next; until then the driver
stands in for a worker: a warmed process that makes one call.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()


@dataclass(frozen=True)
class Case:
    label: str
    kind: str  # "solve" or "count"
    spec: str
    n: int


CASES = (
    Case("single-threaded built-in", "count", "bitset-mrv", 14),
    Case("CP-SAT, 1 worker", "solve", "ortools-cpsat[workers=1]", 120),
    Case("CP-SAT, 4 workers", "solve", "ortools-cpsat[workers=4]", 120),
    Case("MiniZinc (child processes)", "count", "minizinc", 12),
    Case("memory-hungry: join count", "count", "bitboard[method=join,workers=1]", 18),
)
QUICK = (
    Case("single-threaded built-in", "count", "bitset-mrv", 12),
    Case("CP-SAT, 4 workers", "solve", "ortools-cpsat[workers=4]", 40),
    Case("MiniZinc (child processes)", "count", "minizinc", 8),
)
REPEATS = 3  # runs of each side, interleaved; the medians are shown
WARM_N = 8  # the board the driver warms the solver on, as a worker's warm-up does
WALL_LIMIT = 600  # seconds runexec lets a driver run
MIB = 2**20


def resident() -> dict[str, int]:
    """This process's resident bytes by kind: a cgroup is charged for a library's pages only if it read them first."""
    from nqueens_plugins.execution.measuring import status_fields

    return {name: kb * 1024 for name, kb in status_fields("self").items() if name in ("RssAnon", "RssFile")}


def driver(kind: str, spec: str, n: int, out: Path, skip: bool, cgroup: bool) -> None:
    """The process every side measures: import, warm up, then (unless ``skip``) the call in a RunMeter; then
    this whole process's CPU seconds by ``getrusage`` (itself and its reaped children, from its start). With
    ``cgroup``, the driver first enters a cgroup of its own (as a worker would, before any plugin code) and
    the meter measures with it."""
    import resource

    from nqueens_plugins.execution.measuring import CgroupV1, RunMeter

    group = CgroupV1.enter() if cgroup else None
    if cgroup and group is None:
        out.write_text("{}", encoding="utf-8")
        return
    import nqueens_plugins as nq

    call = nq.solve if kind == "solve" else nq.count
    call(spec, WARM_N, isolate=False)
    figures: dict[str, object] = {"before": resident()}
    if not skip:
        meter = RunMeter(cgroup=group)
        start = time.perf_counter()
        meter.start()
        result = call(spec, n, isolate=False)
        measure = meter.stop()
        wall = time.perf_counter() - start
        figures |= {**measure.to_dict(), "after": resident(), "wall": wall, "status": str(result.status)}
    usages = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    figures["whole_cpu"] = sum(usage.ru_utime + usage.ru_stime for usage in usages)
    out.write_text(json.dumps(figures), encoding="utf-8")
    if group is not None:
        group.leave()


def runexec_path() -> str | None:
    beside = Path(sys.executable).with_name("runexec")
    return str(beside) if beside.exists() else shutil.which("runexec")


def driver_command(case: Case, out: Path, skip: bool, cgroup: bool = False) -> list[str]:
    command = [sys.executable, str(HERE), "--driver", case.kind, case.spec, str(case.n), str(out)]
    return command + (["--skip"] if skip else []) + (["--cgroup"] if cgroup else [])


def by_runexec(runexec: str, case: Case, folder: Path, skip: bool) -> tuple[dict[str, float], dict[str, Any]]:
    """BenchExec's figures of one driver process (cputime, walltime in seconds, memory in bytes), and what the
    driver measured of itself in that same run."""
    out, log = folder / "runexec.json", folder / "runexec.log"
    done = subprocess.run(
        [runexec, "--no-container", "--walltimelimit", str(WALL_LIMIT), "--output", str(log), "--"]
        + ["env", f"HOME={Path.home()}"]  # runexec gives a run a fresh HOME: our cache folder (the import
        + driver_command(case, out, skip),  # probes' verdicts, the compiled kernels) would be empty
        capture_output=True,
        text=True,
        check=False,
    )
    figures = dict(re.findall(r"^(\w+)=(.*)$", done.stdout, re.MULTILINE))
    if figures.get("returnvalue") != "0":
        raise SystemExit(
            f"runexec failed on {case.spec}: {done.stdout[-500:]} {done.stderr[-2000:]} {log.read_text()[-2000:]}"
        )
    theirs = {
        "cpu": float(figures["cputime"].rstrip("s")),
        "wall": float(figures["walltime"].rstrip("s")),
        "memory": float(figures["memory"].rstrip("B")),
    }
    return theirs, json.loads(out.read_text(encoding="utf-8"))


def by_meter(case: Case, folder: Path) -> dict[str, Any]:
    """The whole driver measured from outside by a RunMeter (this process's own RSS taken out)."""
    from nqueens_plugins.execution.measuring import RunMeter, status_fields

    out = folder / "meter.json"
    own = status_fields("self").get("VmRSS", 0) * 1024
    meter = RunMeter()
    meter.start()
    subprocess.run(driver_command(case, out, skip=False), check=True)
    whole = meter.stop().to_dict()
    if whole["peak_memory_bytes"] is not None:
        whole["peak_memory_bytes"] -= own  # type: ignore[operator]  # this process's RSS is not the driver's
    return whole


def by_cgroup(case: Case, folder: Path) -> dict[str, Any]:
    """The call's figures measured with the cgroup backend, in a driver that entered a cgroup of its own."""
    out = folder / "cgroup.json"
    subprocess.run(driver_command(case, out, skip=False, cgroup=True), check=True)
    return dict(json.loads(out.read_text(encoding="utf-8")))


def ratio(ours: float | None, theirs: float | None) -> str:
    if ours is None or theirs is None or theirs <= 0:
        return "-"
    return f"{ours / theirs:.3f}"


def seconds(value: object) -> str:
    return "unknown" if value is None else f"{float(value):.3f} s"  # type: ignore[arg-type]


def mebibytes(value: object) -> str:
    return "unknown" if value is None else f"{float(value) / MIB:.1f} MiB"  # type: ignore[arg-type]


def load() -> str:
    return " ".join(f"{figure:.2f}" for figure in os.getloadavg())


def medians(figures: list[dict[str, Any]]) -> dict[str, Any]:
    """Each numeric figure's median over the repeats (the first repeat's for anything else)."""
    merged = dict(figures[0])
    for key, value in figures[0].items():
        if isinstance(value, dict):
            merged[key] = medians([figure[key] for figure in figures])
        elif isinstance(value, (int, float)) and all(isinstance(figure.get(key), (int, float)) for figure in figures):
            merged[key] = statistics.median(figure[key] for figure in figures)
    return merged


def compare(runexec: str, case: Case) -> None:
    runs: list[tuple[dict[str, Any], ...]] = []
    with tempfile.TemporaryDirectory(prefix="nqueens-measurement-") as name:
        folder = Path(name)
        for _ in range(REPEATS):  # interleaved, so that a change of the machine's load touches every side alike
            runs.append((*by_runexec(runexec, case, folder, False), *by_runexec(runexec, case, folder, True),
                         by_meter(case, folder), by_cgroup(case, folder)))  # fmt: skip
    theirs, call, base, inner_base, whole, grouped = (medians([run[index] for run in runs]) for index in range(6))
    grouped = grouped if "cpu_seconds" in grouped else {"cpu_seconds": None, "peak_memory_bytes": None}
    their_call = theirs["cpu"] - base["cpu"]
    before, after = call["before"], call["after"]
    print(f"\n== {case.label}: nq.{case.kind}({case.spec!r}, {case.n}) -> {call['status']}; load {load()}")
    print(
        f"   medians of {REPEATS} interleaved runs of each side; the call's CPU seconds, each run: "
        + ", ".join(f"{run[1]['cpu_seconds']:.3f}" for run in runs)
    )
    row = "  {:<54} {:>12} {:>12} {:>7}"
    print(row.format("figure", "nqueens", "runexec", "ratio"))
    lines = (
        ("CPU, whole driver (same run; ours: getrusage before exit)", seconds(call["whole_cpu"]), seconds(theirs["cpu"]),
         ratio(call["whole_cpu"], theirs["cpu"])),
        ("CPU, driver without the call", seconds(inner_base["whole_cpu"]), seconds(base["cpu"]),
         ratio(inner_base["whole_cpu"], base["cpu"])),
        ("CPU, the call (RunMeter; runexec: with - without)", seconds(call["cpu_seconds"]), seconds(their_call),
         ratio(call["cpu_seconds"], their_call)),
        ("CPU, the call (ours: with a cgroup of its own)", seconds(grouped["cpu_seconds"]), seconds(their_call),
         ratio(grouped["cpu_seconds"], their_call)),
        ("CPU, whole driver (ours: RunMeter from outside)", seconds(whole["cpu_seconds"]), seconds(theirs["cpu"]),
         ratio(whole["cpu_seconds"], theirs["cpu"])),
        ("peak memory, the call (runexec: whole driver)", mebibytes(call["peak_memory_bytes"]),
         mebibytes(theirs["memory"]), ratio(call["peak_memory_bytes"], theirs["memory"])),
        ("peak memory, the call (ours: with a cgroup of its own)", mebibytes(grouped["peak_memory_bytes"]),
         mebibytes(theirs["memory"]), ratio(grouped["peak_memory_bytes"], theirs["memory"])),
        ("peak memory, driver without the call", "", mebibytes(base["memory"]), ""),
        ("  RSS before the call: anonymous, file-backed", mebibytes(before.get("RssAnon")),
         mebibytes(before.get("RssFile")), ""),
        ("  RSS after the call: anonymous, file-backed", mebibytes(after.get("RssAnon")),
         mebibytes(after.get("RssFile")), ""),
        ("peak memory, whole driver (RunMeter from outside)", mebibytes(whole["peak_memory_bytes"]),
         mebibytes(theirs["memory"]), ratio(whole["peak_memory_bytes"], theirs["memory"])),
        ("wall, the call / whole driver", seconds(call["wall"]), seconds(theirs["wall"]), ""),
        ("threads, processes at most (the call)", f"{call['max_threads']}, {call['max_processes']}", "-", ""),
    )  # fmt: skip
    for line in lines:
        print(row.format(*line))
    print(f"  methods: cpu {call['cpu_method']}, memory {call['memory_method']}, threads {call['threads_method']}")


def main() -> None:
    if sys.argv[1:2] == ["--driver"]:
        kind, spec, n, out = sys.argv[2:6]
        driver(kind, spec, int(n), Path(out), skip="--skip" in sys.argv[6:], cgroup="--cgroup" in sys.argv[6:])
        return
    sys.path.insert(0, str(HERE.parent))
    from common import machine

    runexec = runexec_path()
    print("What a run costs: nqueens' RunMeter against BenchExec's runexec (--no-container)")
    print(machine())
    print(
        f"kernel {os.uname().release}; cgroups: {cgroups()}; this process pinned to cores {sorted(os.sched_getaffinity(0))}"
    )
    if runexec is None:
        print("runexec is not installed (pip install '.[benchexec]'): nothing to compare")
        return
    version = subprocess.run([runexec, "--version"], capture_output=True, text=True, check=False).stdout.strip()
    print(f"runexec {version}")
    for case in QUICK if "--quick" in sys.argv else CASES:
        compare(runexec, case)
    print(f"\nload at the end {load()}")


def cgroups() -> str:
    mounts = Path("/proc/mounts").read_text(encoding="ascii") if Path("/proc/mounts").exists() else ""
    kinds = sorted({line.split()[2] for line in mounts.splitlines() if line.split()[2] in ("cgroup", "cgroup2")})
    return ", ".join(kinds) or "none"


if __name__ == "__main__":
    main()
