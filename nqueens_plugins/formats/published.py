"""Formats layer, any process: the published answers for the CSPLib instance sets (has a solution, or has none).

A verified board proves an instance satisfiable, but nothing a solver returns
proves one unsatisfiable: a no-solution claim can only agree or disagree with
what is known. What is known, beyond the verifier's own facts (plain boards),
is published: the answers of the authors' runs that come with CSPLib problems
079 and 080 (Gent, Jefferson and Nightingale, JAIR 59, 2017):

* Excluded Diagonals (``diag-N-4-ID.param@D``, N = 8..21, 14,000 files): the
  bitset solver's run over every prefix D. Excluding more diagonals only takes
  squares away, so each file has a threshold: satisfiable below it, not from it
  on. The table keeps that threshold per file (checked monotone when built).
* Blocked n-Queens (``blockedqueens.N.ID.param``, 400 files): lingeling's run.

Instances are matched by the file name CSPLib gives them and their board size
(a file renamed loses its answer; a different file given a CSPLib name would get
the wrong one, so a verified board always outranks this table). The table ships
as ``data/published-answers.txt.gz``; ``python -m nqueens_plugins.formats.published
CSPLIB_FOLDER`` rebuilds it from the published results files.
"""

from __future__ import annotations

import gzip
import re
import sys
from collections import defaultdict
from functools import cache
from importlib import resources
from pathlib import Path

TABLE = "published-answers.txt.gz"
DIAGONALS = re.compile(r"diag-(\d+)-4-(\d+)\.param@(\d+)")
BLOCKED = re.compile(r"blockedqueens\.(\d+)\.(\d+)\.param")
SOURCE = "CSPLib prob079/prob080 published results"


def published_answer(source: str | None, n: int) -> bool | None:
    """Whether the instance named ``source`` (as records and problems name it: the file name,
    ``@D`` for a diagonal prefix) has a solution: True, False, or None when nothing is published."""
    if not source:
        return None
    name = source.replace("\\", "/").rsplit("/", 1)[-1]
    diagonal = DIAGONALS.fullmatch(name)
    if diagonal:
        size, identifier, prefix = (int(part) for part in diagonal.groups())
        found = table()[0].get((size, identifier))
        if found is None or size != n:
            return None
        threshold, longest = found
        return None if prefix > longest else prefix < threshold
    blocked = BLOCKED.fullmatch(name)
    if blocked:
        size, identifier = (int(part) for part in blocked.groups())
        answer = table()[1].get((size, identifier))
        return None if answer is None or size != n else answer
    return None


@cache
def table() -> tuple[dict[tuple[int, int], tuple[int, int]], dict[tuple[int, int], bool]]:
    """(Excluded Diagonals: (N, ID) -> (first unsatisfiable prefix, longest prefix run), Blocked: (N, ID) -> sat)."""
    diagonals: dict[tuple[int, int], tuple[int, int]] = {}
    blocked: dict[tuple[int, int], bool] = {}
    data = resources.files("nqueens_plugins") / "data" / TABLE
    with data.open("rb") as raw, gzip.open(raw, "rt", encoding="ascii") as lines:
        for line in lines:
            kind, *numbers = line.split()
            if kind == "diag":
                size, identifier, threshold, longest = (int(x) for x in numbers)
                diagonals[(size, identifier)] = (threshold, longest)
            elif kind == "blocked":
                size, identifier, satisfiable = (int(x) for x in numbers)
                blocked[(size, identifier)] = bool(satisfiable)
    return diagonals, blocked


def build(csplib: Path) -> str:
    """The table's text from CSPLib's results files (``shiftqueens-results.txt.gz``,
    ``lingeling-results.txt.gz``); raises ValueError where the published data is not monotone."""
    prefixes: dict[tuple[int, int], dict[int, bool]] = defaultdict(dict)
    with gzip.open(csplib / "excluded-diagonals" / "shiftqueens-results.txt.gz", "rt", encoding="ascii") as lines:
        for line in lines:
            fields = line.split()
            size, prefix, _, identifier = (int(x) for x in fields[:4])
            prefixes[(size, identifier)][prefix] = fields[5] != "0"
    out = [f"# {SOURCE}: diag N ID first-unsatisfiable-prefix longest-prefix | blocked N ID satisfiable"]
    for (size, identifier), answers in sorted(prefixes.items()):
        shortest, longest = min(answers), max(answers)  # prefix 0 (a plain board) is not run: it has solutions
        if sorted(answers) != list(range(shortest, longest + 1)):
            raise ValueError(f"diag-{size}-4-{identifier}: prefixes {sorted(answers)} have gaps")
        threshold = next((d for d in range(shortest, longest + 1) if not answers[d]), longest + 1)
        if any(answers[d] != (d < threshold) for d in answers):
            raise ValueError(f"diag-{size}-4-{identifier}: satisfiable again after an unsatisfiable prefix")
        out.append(f"diag {size} {identifier} {threshold} {longest}")
    with gzip.open(csplib / "asp-blocked-queens" / "lingeling-results.txt.gz", "rt", encoding="ascii") as lines:
        for line in lines:
            fields = line.split()
            if len(fields) >= 4 and fields[3] in ("SATISFIABLE", "UNSATISFIABLE"):
                out.append(f"blocked {fields[0]} {fields[2]} {int(fields[3] == 'SATISFIABLE')}")
    return "\n".join(out) + "\n"


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: python -m nqueens_plugins.formats.published CSPLIB_FOLDER")
    target = Path(__file__).resolve().parents[1] / "data" / TABLE
    with gzip.GzipFile(target, "wb", mtime=0) as out:  # the same bytes on every rebuild
        out.write(build(Path(sys.argv[1])).encode("ascii"))
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
