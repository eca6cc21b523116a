"""The minizinc adapter (plugins/nqueens-minizinc) against the raw minizinc package: python benchmarks/adapter_minizinc.py

Same model (the plugin's default: ``nqueens.mzn`` for plain boards, ``nqueens-dual.mzn`` for blocked
squares), same data, same solver (Gecode), same include folder (the
one ``-I`` the adapter adds so that Debian's old Gecode library gets its own alldifferent), so the
same FlatZinc and the same search; each line checks that the boards and node counts agree. Three
ways to run it, against the plugin, in this process, interleaved, median of REPEATS rounds:

* raw, as the package's documentation writes it: ``Instance(Solver.lookup("gecode"), Model(path))``,
  the data set item by item (``instance["n"] = ...``), ``instance.solve(time_limit=...)``; a new
  Instance per run, as a script solving one instance has, so MiniZinc is asked for the model's
  interface (a process of its own) every time;
* raw, same command: one Instance analysed once and kept, the data as the dzn text in a file
  (``--data``): the very command line the adapter runs, so plugin / this is what the adapter adds
  in Python (the target: at most 1.10);
* the host's in-process call (``nq.solve(..., isolate=False)``: seeds, budget, the verifier, the result).

Then counts (raw: ``solve(all_solutions=True)``, which keeps every solution in a list; the adapter
counts the stream and keeps none) and what one MiniZinc run costs at least (n = 1).

``--options`` instead measures the plugin's variants (model, propagation, search) against each other
on published CSPLib instances, interleaved per instance, each run under a time limit (a miss counts
the limit): how the README's table and the defaults were chosen. ``--set easy`` (the default): the 12
Blocked n-Queens n = 28 that lingeling took longest on and the 8 Excluded Diagonals n = 17/18 that
shiftqueens needed the most nodes for; ``--set hard``: 8 Blocked n-Queens n = 48/50 that lingeling
took 0.4 to 15 s on (evenly spread) and 6 Excluded Diagonals n = 20/21 of 3 to 7 x 10^7 shiftqueens
nodes. ``--set plain``: plain boards n = 50..300. About 20 s to a few minutes per variant.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import warnings
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from common import (
    ASP,
    CSPLIB,
    DIAGONALS,
    count,
    finish,
    header,
    lingeling_answers,
    machine,
    report,
    shiftqueens_results,
    solve,
    timed,
)

from nqueens_plugins import Budget, Problem
from nqueens_plugins.formats.instances import diagonal_lists, load_one, shipped_instance

REPEATS = 7  # rounds per instance; 3 for one that takes over half a second (one run of each, untimed, first)
LIMIT = timedelta(seconds=60)
BLOCKED = CSPLIB / "asp-blocked-queens"
# The published Blocked n-Queens instances benchmarks/adapter_choco.py uses (decided in well under a second here).
EXTRA_INSTANCES = (
    "blockedqueens.28.1449797615.param",
    "blockedqueens.28.1449788237.param",
    "blockedqueens.48.1721325133.param",
    "blockedqueens.50.1642447595.param",
)
Answer = tuple[list[int] | None, int]  # the board (None: no solution) and Gecode's node count


def flags() -> dict[str, str]:
    """The include folder the adapter adds for a Gecode whose MiniZinc library predates fzn_all_different_int."""
    from nqueens_minizinc.adapter import NATIVE_LIBRARY, solver_info

    return {"-I": str(NATIVE_LIBRARY)} if solver_info("gecode").old_gecode_library else {}


def answer_of(result: Any) -> Answer:
    board = None if result.solution is None else [int(row) for row in result.solution.q]
    return board, int(result.statistics.get("nodes", 0))


def model_file(problem: Problem) -> Path:
    """The model file the plugin's default options pose ``problem`` with."""
    from nqueens_minizinc.adapter import MODEL_FILES, MiniZinc, model_for

    return MODEL_FILES[model_for(problem, {o.name: o.default for o in MiniZinc.options})]


def raw_documented(problem: Problem) -> Answer:
    import minizinc

    instance = minizinc.Instance(minizinc.Solver.lookup("gecode"), minizinc.Model(model_file(problem)))
    n = problem.n
    instance["n"] = n
    instance["fixed"] = [problem.fixed.get(column, -1) for column in range(n)]
    instance["blocked"] = [{row for row in range(n) if (column, row) in problem.blocked} for column in range(n)]
    return answer_of(instance.solve(time_limit=LIMIT, **flags()))


KEPT: dict[str, Any] = {}


def raw_same_command(problem: Problem) -> Answer:
    import minizinc

    from nqueens_minizinc.adapter import dzn_text

    model = model_file(problem)
    if model.name not in KEPT:
        KEPT[model.name] = minizinc.Instance(minizinc.Solver.lookup("gecode"), minizinc.Model(model))
        KEPT[model.name].analyse()
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "queens.dzn"
        data.write_text(dzn_text(problem))
        result = KEPT[model.name].solve(
            time_limit=LIMIT, intermediate_solutions=False, **flags(), **{"--data": str(data)}
        )
    return answer_of(result)


def plugin_solve(problem: Problem) -> Answer:
    """The adapter's own ``solve``, called directly: what the plugin adds, without the host around it."""
    from nqueens_minizinc.adapter import MiniZinc

    options = {o.name: o.default for o in MiniZinc.options}
    outcome = MiniZinc().solve(problem, random.Random(0), Budget(60), options)
    return (None if outcome.queens is None else [int(q) for q in outcome.queens]), outcome.iterations


def host_solve(problem: Problem) -> Answer:
    result = solve("minizinc", problem, timeout=60)
    assert result.status in ("solved", "no-solution") and result.verified is not False, result.reason
    return (None if result.queens is None else [int(q) for q in result.queens]), result.iterations


def compare(label: str, problem: Problem) -> float:
    runs: dict[str, Callable[[Problem], Answer]] = {
        "raw": raw_documented,
        "same": raw_same_command,
        "plugin": plugin_solve,
        "host": host_solve,
    }
    answers = {name: run(problem) for name, run in runs.items()}  # warm up; the searches must agree
    nodes = {name: answer[1] for name, answer in answers.items()}
    same = "same search" if len(set(map(repr, answers.values()))) == 1 else f"searches differ: {nodes} nodes"
    times: dict[str, list[float]] = {name: [] for name in runs}
    first = timed(lambda: runs["same"](problem))[0]
    for _ in range(REPEATS if first < 0.5 else 3):  # interleaved, so drift on a busy machine hits all four
        for name, run in runs.items():
            times[name].append(timed(lambda run=run: run(problem))[0])  # type: ignore[misc]
    median = {name: statistics.median(values) for name, values in times.items()}
    answer = "no solution" if answers["raw"][0] is None else "solved"
    ratio = median["plugin"] / median["same"]
    report(
        f"minizinc {label}: plugin / raw, same command",
        ratio,
        1.10,
        unit="x",
        note=f"raw {median['same'] * 1000:.0f} ms, plugin {median['plugin'] * 1000:.0f} ms; "
        f"{answer}, {nodes['raw']} nodes; {same}",
    )
    report(
        f"minizinc {label}: plugin / raw as documented",
        median["plugin"] / median["raw"],
        None,
        unit="x",
        note=f"raw as documented {median['raw'] * 1000:.0f} ms (a new Instance: one more MiniZinc process)",
    )
    report(
        f"minizinc {label}: host's in-process call / raw, same command",
        median["host"] / median["same"],
        None,
        unit="x",
        note=f"host {median['host'] * 1000:.0f} ms (seeds, budget, verifier, result)",
    )
    return ratio


def raw_count(n: int) -> int:
    """Every solution, the package's way: ``solve(all_solutions=True)`` returns them all in a list."""
    import minizinc

    instance = minizinc.Instance(minizinc.Solver.lookup("gecode"), minizinc.Model(model_file(Problem(n))))
    instance["n"], instance["fixed"], instance["blocked"] = n, [-1] * n, [set() for _ in range(n)]
    result = instance.solve(time_limit=LIMIT, all_solutions=True, **flags())
    return len(result.solution)


def counts() -> None:
    header("minizinc counting (--all-solutions; raw keeps every solution, the adapter none; median of 3)")
    for n in (9, 10):
        raw_times, adapter_times = [], []
        for _ in range(3):  # interleaved
            raw_seconds, raw_solutions = timed(lambda n=n: raw_count(n))  # type: ignore[misc]
            seconds, counted = timed(lambda n=n: count("minizinc", n, timeout=60))  # type: ignore[misc]
            assert counted.solutions == raw_solutions
            raw_times.append(raw_seconds)
            adapter_times.append(seconds)
        raw_seconds, seconds = statistics.median(raw_times), statistics.median(adapter_times)
        report(
            f"minizinc count n={n}: adapter / raw as documented",
            seconds / raw_seconds,
            None,
            unit="x",
            note=f"{counted.solutions} solutions; raw {raw_seconds * 1000:.0f} ms, adapter {seconds * 1000:.0f} ms",
        )


# --- --options: the variants against each other --------------------------------------------------

VARIANTS = (  # the default, model=auto, is the dual model where squares are blocked and the classic one elsewhere
    "minizinc[model=classic]",
    "minizinc[model=classic,propagation=value]",
    "minizinc[model=classic,propagation=decomposed]",
    "minizinc[model=classic,search=first-fail-split]",
    "minizinc[model=classic,search=dom-wdeg]",
    "minizinc[model=classic,search=free]",
    "minizinc[model=classic,search=input-order]",
    "minizinc[model=dual]",
    "minizinc[model=dual,propagation=value]",
)


def option_instances(which: str) -> list[tuple[str, Problem]]:
    """The measurement sets (see the module's docstring); chosen from the published results, so the same every time."""
    if which == "plain":
        return [(f"plain n={n}", Problem(n)) for n in (50, 100, 200, 300)]
    answers = lingeling_answers()
    nodes = shiftqueens_results()
    if which == "easy":
        blocked = sorted((k for k in answers if k.split(".")[1] == "28"), key=lambda k: -answers[k][1])[:12]
        diagonal = {n: sorted((k for k in nodes if k[0] == n), key=lambda k: -nodes[k][1])[:4] for n in (17, 18)}
    else:
        middling = sorted(
            (k for k in answers if k.split(".")[1] in ("48", "50") and 0.4 <= answers[k][1] <= 15),
            key=lambda k: answers[k][1],
        )
        blocked = middling[:: max(1, len(middling) // 8)][:8]
        diagonal = {
            n: sorted((k for k in nodes if k[0] == n and 3e7 <= nodes[k][1] <= 7e7), key=lambda k: -nodes[k][1])[:3]
            for n in (20, 21)
        }
    chosen = [(name, load_one(str(ASP / name))) for name in blocked]
    for n, keys in diagonal.items():
        lists = {
            int(d.source.rsplit("-", 1)[1].split(".")[0]): d for d in diagonal_lists(DIAGONALS / f"diag-{n}.tar.gz")
        }
        chosen.extend((f"diag-{n}-4-{identity}@{d}", lists[identity].instance(d)) for _, identity, d in keys)
    return chosen


def compare_options(which: str, limit: float) -> None:
    from nqueens_plugins.loading import host

    header(
        f"minizinc variants on the {which} set, {limit:g} s each (a miss counts {limit:g} s), interleaved per instance"
    )
    problems = option_instances(which)
    variants = {spec: host.registry().variant(spec) for spec in VARIANTS}
    tally: dict[tuple[str, str], list[float]] = {}
    for label, problem in problems:
        family = label.split(" ")[0].split(".")[0].split("-")[0]
        for spec, variant in variants.items():
            outcome = variant.solver.solve(problem, random.Random(0), Budget(limit), variant.options)
            decided = outcome.status in ("solved", "no-solution")
            seconds = float(outcome.counters.get("flatTime", 0.0)) + float(outcome.counters.get("solveTime", 0.0))
            entry = tally.setdefault((spec, family), [0, 0, 0.0, 0])
            entry[0] += 1
            entry[1] += decided
            entry[2] += seconds if decided else limit
            entry[3] += outcome.iterations
    for (spec, family), (total, decided, seconds, nodes) in tally.items():
        report(
            f"{spec} {family}: decided {int(decided)}/{int(total)}, MiniZinc's time",
            seconds,
            None,
            note=f"{int(nodes):,} nodes",
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--options", action="store_true", help="measure the plugin's variants against each other")
    parser.add_argument("--set", choices=("easy", "hard", "plain"), default="easy", help="the instances for --options")
    parser.add_argument("--limit", type=float, default=5.0, help="seconds per run for --options")
    arguments = parser.parse_args()
    warnings.filterwarnings("ignore", message=".*overrides a global constraint file")  # Debian's old Gecode library
    print(machine())
    if arguments.options:
        if arguments.set != "plain" and not CSPLIB.exists():
            print(f"skipped: {CSPLIB} is not there (it sits beside the repository in this project's workspace)")
            return
        compare_options(arguments.set, arguments.limit)
        return
    overhead()
    counts()
    header("what one MiniZinc run costs at least")
    seconds = statistics.median(timed(lambda: plugin_solve(Problem(1)))[0] for _ in range(REPEATS))
    report("one run, n = 1 (minizinc starts, flattens, starts Gecode)", seconds, None)
    finish()


def overhead() -> None:
    cases: list[tuple[str, Problem]] = [("n=30", Problem(30)), ("n=100", Problem(100)), ("n=200", Problem(200))]
    shipped = shipped_instance("blockedqueens.28.1449787894.param")
    assert shipped is not None
    cases.append(("blocked 28.1449787894", load_one(str(shipped))))
    for name in EXTRA_INSTANCES:
        if (BLOCKED / name).exists():  # the published sets sit beside the repository, when they do
            cases.append(
                (f"blocked {name.removeprefix('blockedqueens.').removesuffix('.param')}", load_one(str(BLOCKED / name)))
            )
    header("minizinc adapter against the raw minizinc package, same model, data and search (median, interleaved)")
    ratios = [compare(label, problem) for label, problem in cases]
    report(
        "minizinc plugin / raw same command, geometric mean over the instances",
        statistics.geometric_mean(ratios),
        1.10,
        unit="x",
    )


if __name__ == "__main__":
    main()
