"""What CPMpy adds per run: a backend through ``cpmpy`` against the same backend through our direct adapter.

    python benchmarks/adapter_cpmpy.py [--quick]

For each backend the suite also reaches directly (OR-Tools, python-sat, Z3, Choco; MiniZinc where
a MiniZinc recent enough for CPMpy is installed), on the same boards, in this process (``solve``:
the solver, not the isolation around it), interleaved runs, median wall time of the solver call:
``cpmpy[backend=B]`` and the direct adapter, and what CPMpy itself reports of its run, the
model's transformation and posting (``transform_seconds``) against the backend's own runtime
(``solve_seconds``). The two do not run the same search (CPMpy's model and encodings are its own:
python-sat gets the Boolean grid with pindakaas's encodings, Z3 integers), so the difference is
CPMpy's overhead plus the model's; ``transform_seconds`` is the overhead alone. Reported, not judged.
"""

from __future__ import annotations

import statistics
import sys

from common import header, machine, report, solve, timed

BOARDS = {"n = 8": {"n": 8}, "n = 32": {"n": 32}, "diag-10-4-1@7": {"instance": "diag-10-4-1.param@7"}}
PAIRS = {  # the CPMpy backend -> our direct adapter of the same library
    "ortools": "ortools-cpsat",
    "pysat": "pysat",
    "z3": "z3",
    "choco": "choco",
    "minizinc": "minizinc",
}


def runnable(spec: str) -> str | None:
    """Why ``spec`` cannot run here, or None."""
    import nqueens_plugins as nq

    try:
        solve(spec, 4)
    except nq.BadInput as refused:
        return str(refused)
    return None


def main() -> None:
    quick = "--quick" in sys.argv
    repeats = 3 if quick else 9
    print(machine())
    for backend, direct in PAIRS.items():
        through = f"cpmpy[backend={backend}]"
        refused = runnable(through) or runnable(direct)
        if refused is not None:
            print(f"\n== {through} against {direct}: not run ({refused})")
            continue
        header(f"{through} against {direct} (median of {repeats}, seconds of the solver call in this process)")
        for board, where in BOARDS.items():
            times: dict[str, list[float]] = {through: [], direct: []}
            transform, backend_time, unsolved = [], [], []
            for _ in range(repeats):
                for spec in (through, direct):
                    seconds, result = timed(lambda spec=spec: solve(spec, timeout=60, **where))
                    times[spec].append(seconds)
                    if str(result.status) not in ("solved", "no-solution"):
                        unsolved.append(f"{spec} {result.status}")
                    if spec == through:
                        transform.append(result.counters.get("transform_seconds", 0.0))
                        backend_time.append(result.counters.get("solve_seconds", 0.0))
            via, alone = statistics.median(times[through]), statistics.median(times[direct])
            undecided = f"; not decided: {', '.join(sorted(set(unsolved)))}" if unsolved else ""
            note = f"direct {alone:.3f} s, {1000 * (via - alone):+.1f} ms{undecided}"
            report(f"{board}: through CPMpy", via, None, "s", note)
            report(
                f"{board}: CPMpy's transformation and posting",
                statistics.median(transform),
                None,
                "s",
                f"the backend's own runtime {statistics.median(backend_time):.3f} s",
            )
    print(machine())


if __name__ == "__main__":
    main()
