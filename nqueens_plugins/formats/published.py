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

``read_results`` reads those results files as a user names them (``cross-check
--expected``): through ``formats/reading.py``, regular files only, bounded in what
they unpack to and line by line, every name checked to be one this table could hold.
"""

from __future__ import annotations

import gzip
import re
import sys
from collections import defaultdict
from functools import cache
from importlib import resources
from pathlib import Path

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.formats.reading import READ_ERRORS, bounded_lines, open_regular, unpacked

TABLE = "published-answers.txt.gz"
MAX_RESULTS_BYTES = 128 * 2**20  # unpacked; shiftqueens-results.txt.gz unpacks to 47 MB
MAX_RESULTS_LINE = 4096  # bytes; the published lines are at most 208
MAX_RESULTS_LINES = 1_000_000  # each kept as an answer; shiftqueens-results.txt.gz holds 319,000 lines
NUMBER = r"([0-9]{1,18})"  # a size, a count or an identifier
# N -1 ID SATISFIABLE|UNSATISFIABLE ...   and   N D M ID FILE:Solutions: S Nodes: ...
LINGELING_LINE = re.compile(
    rf"\s*{NUMBER}\s+\S+\s+{NUMBER}\s+(SATISFIABLE|UNSATISFIABLE)(?:\s.*)?", re.ASCII | re.DOTALL
)
SHIFTQUEENS_LINE = re.compile(
    rf"\s*{NUMBER}\s+{NUMBER}\s+{NUMBER}\s+{NUMBER}\s+\S*Solutions:\S*\s+{NUMBER}(?:\s.*)?", re.ASCII | re.DOTALL
)
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


def read_results(path: str) -> dict[str, bool]:
    """Published answers: {instance file name (with @d): satisfiable}.

    Reads the two CSPLib results files (plain or gzipped): lingeling's run on the
    ASP Blocked n-Queens set (``N -1 ID SATISFIABLE|UNSATISFIABLE ...``) and the
    shiftqueens run on the Excluded Diagonals set
    (``N D 4 ID FILE:Solutions: S Nodes: ...``). Any other line is refused by number.
    """
    answers: dict[str, bool] = {}
    with open_regular(path, "expected-answers file", MAX_RESULTS_BYTES) as handle:
        try:
            for number, raw in bounded_lines(
                unpacked(handle, MAX_RESULTS_BYTES, path), path, MAX_RESULTS_LINE, MAX_RESULTS_LINES
            ):
                line = text_of(raw, f"{path}:{number}")
                if line.strip():
                    name, satisfiable = results_line(line, f"{path}:{number}")
                    answers[name] = satisfiable
        except READ_ERRORS as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise BadInput(f"cannot read expected answers from {path!r}: {reason}") from None
    if not answers:
        raise BadInput(f"{path!r} holds no published answers")
    return answers


def text_of(raw: bytes, where: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(f"{where}: not a line of text (byte {exc.start} is not UTF-8)") from None


def results_line(line: str, where: str) -> tuple[str, bool]:
    """(instance name, satisfiable) from one line: the name is one ``published_answer`` would
    match (``blockedqueens.N.ID.param``, ``diag-N-M-ID.param@D``), or the line is refused."""
    diagonal = SHIFTQUEENS_LINE.fullmatch(line)  # the long file: 319,000 lines
    if diagonal:
        n, diagonals, minimum, identifier, solutions = diagonal.groups()
        return f"diag-{n}-{minimum}-{identifier}.param@{diagonals}", solutions.strip("0") != ""
    blocked = LINGELING_LINE.fullmatch(line)
    if blocked:
        n, identifier, answer = blocked.groups()
        return f"blockedqueens.{n}.{identifier}.param", answer == "SATISFIABLE"
    raise BadInput(f"{where}: not a line of the lingeling or shiftqueens results")


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: python -m nqueens_plugins.formats.published CSPLIB_FOLDER")
    target = Path(__file__).resolve().parents[1] / "data" / TABLE
    with gzip.GzipFile(target, "wb", mtime=0) as out:  # the same bytes on every rebuild
        out.write(build(Path(sys.argv[1])).encode("ascii"))
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
