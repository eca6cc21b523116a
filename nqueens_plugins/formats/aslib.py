"""Formats layer, parent side: a records file written as an ASlib scenario, for the field's algorithm-selection tools.

ASlib (Bischl, Kerschke, Kotthoff, Lindauer et al., the Algorithm Selection
Library; format at aslib.net and github.com/coseal/aslib_data) is a folder:

* ``description.txt``: the scenario (YAML): runtime minimised, the cutoff, the
  algorithms and features, one feature step;
* ``algorithm_runs.arff``: each algorithm's run on each instance (a repetition per
  trial): its runtime and ``runstatus`` (``ok`` when it decided the instance);
* ``feature_values.arff`` and ``feature_runstatus.arff``: the host's features of
  each instance (``results/features.py``), all computed (``ok``);
* ``cv.arff``: each instance's fold (the folds the portfolio table's selector is
  cross-validated on).

Only single solvers are algorithms (a race is a portfolio, what ASlib's tools
build), and only the instances every one of them ran are written (ASlib's tools
expect every algorithm on every instance). The folder is written whole or not at
all: into a temporary folder beside it, renamed into place at the end; an existing
path is refused.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import Status

__all__ = ["RUNSTATUS", "Scenario", "write_scenario"]

# A run's status, as ASlib says it: else "ok" if decided, "other".
RUNSTATUS: dict[str, str] = {Status.TIMED_OUT: "timeout", Status.ERROR: "crash", Status.INVALID: "crash"}


class Scenario:
    """The runs of a records file, gathered per instance and algorithm, ready to write."""

    def __init__(self) -> None:
        self.runs: dict[tuple[int, str], dict[str, list[tuple[int, float, str]]]] = defaultdict(
            lambda: defaultdict(list)
        )
        self.boards: dict[tuple[int, str], tuple[int, Any, Any]] = {}
        self.cutoff: float | None = None

    def add(self, record: Mapping[str, Any], instance: str) -> None:
        solver = str(record["solver"])
        if solver.startswith("race("):
            return
        key = (int(record["n"]), instance)
        decided = record.get("verified") is True and record["status"] in (Status.SOLVED, Status.NO_SOLUTION)
        status = "ok" if decided else RUNSTATUS.get(str(record["status"]), "other")
        self.runs[key][solver].append((int(record["trial"]) + 1, float(record["seconds"]), status))
        self.boards.setdefault(key, (int(record["n"]), record.get("fixed") or {}, record.get("blocked") or []))
        timeout = record.get("timeout")
        if isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
            self.cutoff = max(self.cutoff or 0.0, float(timeout))

    def algorithms(self) -> list[str]:
        return sorted({solver for by_solver in self.runs.values() for solver in by_solver})

    def instances(self) -> list[tuple[int, str]]:
        """The instances every algorithm ran."""
        every = set(self.algorithms())
        return sorted(key for key, by_solver in self.runs.items() if set(by_solver) == every)


def write_scenario(
    folder: Path,
    name: str,
    scenario: Scenario,
    feature_names: Sequence[str],
    features: Callable[[int, dict[int, int], list[tuple[int, int]]], tuple[float, ...]],
    fold_of: Callable[[str], int],
) -> tuple[int, int]:
    """Write ``scenario`` as the ASlib folder ``folder`` (whole or not at all); (algorithms, instances).
    ``features`` and ``fold_of`` are the selector's (``results/``), handed down: a format knows no results."""
    algorithms, instances = scenario.algorithms(), scenario.instances()
    if len(algorithms) < 2 or not instances:
        raise BadInput("an ASlib scenario needs two single solvers or more that ran the same instances")
    if scenario.cutoff is None:
        raise BadInput("an ASlib scenario needs a time limit (the runs had none): compare with --timeout")
    if os.path.lexists(folder):
        raise BadInput(f"{str(folder)!r} exists: an ASlib scenario is written into a new folder")
    scenario_id = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "nqueens"
    feature_names = [re.sub(r"[^A-Za-z0-9]+", "_", feature).strip("_") for feature in feature_names]
    labels = {key: f"n={key[0]}" + (f" {key[1]}" if key[1] else "") for key in instances}
    files = {
        "description.txt": description(scenario_id, algorithms, feature_names, scenario.cutoff),
        "algorithm_runs.arff": arff(
            f"ALGORITHM_RUNS_{scenario_id}",
            [
                ("instance_id", "STRING"),
                ("repetition", "NUMERIC"),
                ("algorithm", "STRING"),
                ("runtime", "NUMERIC"),
                ("runstatus", "{ok, timeout, memout, not_applicable, crash, other}"),
            ],
            [
                [labels[key], repetition, solver, runtime_of(seconds, status, scenario.cutoff), status]
                for key in instances
                for solver in algorithms
                for repetition, seconds, status in sorted(scenario.runs[key][solver])
            ],
        ),
        "feature_values.arff": arff(
            f"FEATURE_VALUES_{scenario_id}",
            [("instance_id", "STRING"), ("repetition", "NUMERIC")] + [(f, "NUMERIC") for f in feature_names],
            [[labels[key], 1, *board_features(scenario.boards[key], features)] for key in instances],
        ),
        "feature_runstatus.arff": arff(
            f"FEATURE_RUNSTATUS_{scenario_id}",
            [
                ("instance_id", "STRING"),
                ("repetition", "NUMERIC"),
                ("board", "{ok, timeout, memout, presolved, crash, other, unknown}"),
            ],
            [[labels[key], 1, "ok"] for key in instances],
        ),
        "cv.arff": arff(
            f"CV_{scenario_id}",
            [("instance_id", "STRING"), ("repetition", "NUMERIC"), ("fold", "NUMERIC")],
            [[labels[key], 1, fold_of(labels[key]) + 1] for key in instances],
        ),
    }
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        for file, text in files.items():
            (staging / file).write_text(text, encoding="utf-8")
        os.rename(staging, folder)  # refuses an existing non-empty folder; nothing half-written is ever there
    except OSError as exc:
        with contextlib.suppress(OSError):
            shutil.rmtree(staging)
        raise BadInput(f"cannot write {str(folder)!r}: {exc.strerror}") from None
    return len(algorithms), len(instances)


def runtime_of(seconds: float, status: str, cutoff: float) -> float:
    """A run's runtime as ASlib reads it: its seconds when it decided, the cutoff when it did not."""
    return seconds if status == "ok" else cutoff


def board_features(
    board: tuple[int, Any, Any], features: Callable[[int, dict[int, int], list[tuple[int, int]]], tuple[float, ...]]
) -> tuple[float, ...]:
    n, fixed, blocked = board
    squares = [(int(column), int(row)) for column, row in blocked]
    return tuple(features(int(n), {int(c): int(r) for c, r in dict(fixed).items()}, squares))


def description(scenario_id: str, algorithms: list[str], feature_names: list[str], cutoff: float) -> str:
    lines = [
        f"scenario_id: {scenario_id}",
        "performance_measures:\n    - runtime",
        "maximize:\n    - false",
        "performance_type:\n    - runtime",
        f"algorithm_cutoff_time: {cutoff:g}",
        'algorithm_cutoff_memory: "?"',
        f"features_cutoff_time: {cutoff:g}",
        'features_cutoff_memory: "?"',
        "algorithms_deterministic:",
        *(f"    - {quoted(algorithm)}" for algorithm in algorithms),
        "algorithms_stochastic:",
        "features_deterministic:",
        *(f"    - {feature}" for feature in feature_names),
        "features_stochastic:",
        "number_of_feature_steps: 1",
        "feature_steps:\n    board:\n      provides:",
        *(f"        - {feature}" for feature in feature_names),
        "default_steps:\n    - board",
    ]
    return "\n".join(lines) + "\n"


def quoted(text: str) -> str:
    """A YAML scalar: a solver's label (``a[x=1,y=2]``) quoted, since brackets and commas mean lists there."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(c if yaml_printable(c) else f"\\U{ord(c):08x}" for c in escaped) + '"'


def yaml_printable(c: str) -> bool:
    """What YAML lets stand as itself in a double-quoted scalar (the rest is escaped)."""
    o = ord(c)
    return 0x20 <= o <= 0x7E or 0xA0 <= o <= 0xD7FF or 0xE000 <= o <= 0xFFFD and o != 0xFEFF or 0x10000 <= o


def arff(relation: str, attributes: list[tuple[str, str]], rows: Iterable[list[Any]]) -> str:
    lines = [f"@RELATION {relation}", ""]
    lines += [f"@ATTRIBUTE {name} {kind}" for name, kind in attributes]
    lines += ["", "@DATA"]
    lines += [",".join(arff_value(value) for value in row) for row in rows]
    return "\n".join(lines) + "\n"


def arff_value(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return repr(float(value)) if isinstance(value, float) else str(value)
    text = str(value)
    if text in ("ok", "timeout", "memout", "not_applicable", "crash", "other", "presolved", "unknown"):
        return text
    escaped = text.replace("\\", "\\\\").replace("'", "\\'")
    escaped = "".join(f"\\u{ord(c):04x}" if ord(c) < 32 and c != "\t" else c for c in escaped)  # one line each
    return "'" + escaped + "'"
