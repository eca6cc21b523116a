"""Formats layer, parent side: instance files in and out (CSPLib formats, our JSON) and seeded generators.

Formats, told apart by their content (all coordinates end up as ``queens[c] = r``,
0-based, column first, like everything else in this project):

* **Blocked n-Queens** (the ASP competition set, CSPLib prob080), Essence' style::

      letting n = 28
      letting blocks = [[1,1], [1,2], ...]

  Each pair is a blocked square ``[row, column]``, both **1-based**.
* **n-Queens Completion** (CSPLib prob079), Essence' style::

      letting n = 10
      letting init = [[0,3], [4,1], ...]

  Each pair is a pre-placed queen ``[row, column]``, both **0-based** (the
  CSPLib model indexes its board from 0). ``init`` and ``blocks`` may share a file.
* **Excluded Diagonals** (CSPLib prob079 data)::

      n =  10
      numdiags =  14
      diags =  [[18, 0], [1, 1], ...]

  ``[d, 1]`` excludes the sum diagonal ``row + column = d``; ``[d, 0]`` the
  difference diagonal ``row - column = d - (n - 1)``; 0-based. One file holds
  ``numdiags + 1`` instances: the one with ``d`` diagonals takes the first ``d``
  pairs, chosen as ``FILE@d`` (``FILE@a..b`` or ``FILE@all`` for several).
* **nqueens JSON** (ours; results records embed the same fields)::

      {"format": "nqueens-instance", "version": 1, "n": 8,
       "fixed": {"0": 2}, "blocked": [[3, 5], ...]}

  ``fixed`` maps column -> row; ``blocked`` lists ``[column, row]``; 0-based.

A ``.tar.gz``/``.tgz``/``.tar`` archive stands for every instance file inside
it (the CSPLib sets ship so). Every refusal is a ``BadInput`` naming the file
and, where there is one, the line.

Instance files come from other people, so reading is bounded before anything is
allocated (``formats/reading.py`` opens them: regular files only, never a FIFO,
a device or a kernel file): a file, and each archive member by what it unpacks
to, at most ``MAX_INSTANCE_BYTES``; an archive at most ``MAX_ARCHIVE_BYTES`` on
disk and unpacked, ``MAX_ARCHIVE_MEMBERS`` files; a board at most
``MAX_FILE_N``; at most ``MAX_BLOCKED_SQUARES`` pairs listed, and blocked
squares built, per file (for excluded diagonals, over every instance selected).
A UTF-8 byte-order mark is skipped.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import tarfile
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from importlib import resources
from itertools import accumulate
from pathlib import Path
from typing import IO, Any

from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.core.problem import Problem
from nqueens_plugins.formats.inputs import make_problem
from nqueens_plugins.formats.output_files import check_new_folder
from nqueens_plugins.formats.reading import (
    READ_ERRORS,
    TooLarge,
    open_regular,
    read_bounded,
    size_text,
    unpacked,
)

JSON_FORMAT = "nqueens-instance"
JSON_VERSION = 1
MAX_INSTANCE_BYTES = 32 * 2**20  # a file or archive member; 1,000,000 squares take about 13 MB
MAX_ARCHIVE_BYTES = 128 * 2**20  # an archive, on disk and unpacked (a CSPLib set unpacks to 1 MB)
MAX_ARCHIVE_MEMBERS = 50_000  # the 14 CSPLib Excluded Diagonals archives hold 14,000 files
MAX_FILE_N = 100_000
MAX_BLOCKED_SQUARES = 1_000_000  # blocked squares built from one file (n = 1,000 fully): about 200 MB
JSON_SEPARATORS = 3 * MAX_BLOCKED_SQUARES  # commas and colons: a blocked square takes two
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar")
GENERATOR_KINDS = ("completion", "blocked", "diagonals")

STATEMENT = re.compile(r"(?m)^[ \t]*(?:letting[ \t]+)?([A-Za-z_]\w*)[ \t]*(?:=|\bbe\b)")
INTEGER = re.compile(r"\s*([+-]?\d+)\s*")
PAIR = re.compile(r"\[\s*(-?\d{1,18})\s*,\s*(-?\d{1,18})\s*\]")
# A list of pairs; the ASP files end theirs with a trailing comma ("[28,27],\n]").
PAIR_LIST = re.compile(
    r"\s*\[\s*(?:\[\s*-?\d{1,18}\s*,\s*-?\d{1,18}\s*\]\s*(?:,\s*\[\s*-?\d{1,18}\s*,\s*-?\d{1,18}\s*\]\s*)*(?:,\s*)?)?\]\s*"
)


@dataclass(frozen=True)
class Diagonals:
    """An Excluded Diagonals list: instance ``d`` excludes the first ``d`` diagonals."""

    n: int
    diagonals: tuple[tuple[int, int], ...]  # (d, t) as in the file
    source: str

    def instance(self, count: int) -> Problem:
        """The instance ``@count``; its size is checked before a square is built."""
        if not 0 <= count <= len(self.diagonals):
            raise BadInput(f"{self.source}: @{count} is beyond its list of {len(self.diagonals)} diagonals")
        covered = self.crossings(count)[count]
        if covered > MAX_BLOCKED_SQUARES:
            raise BadInput(
                f"{self.source}@{count}: its {count:,} diagonals cross {covered:,} squares of the "
                f"{self.n:,}x{self.n:,} board; at most {MAX_BLOCKED_SQUARES:,} blocked squares are read from "
                f"an instance file"
            )
        squares = diagonal_squares(self.n, self.diagonals[:count])  # on the board by construction
        return Problem(self.n, {}, frozenset(squares), f"{self.source}@{count}")

    def crossings(self, upto: int) -> list[int]:
        """Per prefix length d (0..upto), the squares its first d diagonals cross (a square where
        two of them cross counted twice): the bound checked before building instance d."""
        lengths = (len(diagonal_rows(self.n, d, kind)) for d, kind in self.diagonals[:upto])
        return list(accumulate(lengths, initial=0))


def diagonal_rows(n: int, d: int, kind: int) -> range:
    """The rows the diagonal ``[d, kind]`` crosses (``kind`` 1: row + column = d; else row - column =
    d - (n - 1)): found by arithmetic, so a short diagonal of a huge board costs its length, not n."""
    if kind == 1:
        return range(max(0, d - (n - 1)), min(d, n - 1) + 1)
    shift = d - (n - 1)
    return range(max(0, shift), min(n - 1, n - 1 + shift) + 1)


def diagonal_squares(n: int, diagonals: Iterable[tuple[int, int]]) -> set[tuple[int, int]]:
    """The (column, row) squares of the given ``[d, t]`` diagonals."""
    squares: set[tuple[int, int]] = set()
    for d, kind in diagonals:
        rows = diagonal_rows(n, d, kind)
        if kind == 1:
            squares.update((d - row, row) for row in rows)
        else:
            squares.update((row - (d - (n - 1)), row) for row in rows)
    return squares


# --- reading -------------------------------------------------------------------


def load(specs: str | Sequence[str]) -> list[Problem]:
    """Every instance named by ``specs``: paths, directories, globs or archives, comma-separated
    in one string or as a list, each optionally followed by ``@d``, ``@a..b`` or ``@all``."""
    items = split_specs(specs)
    if not items:
        raise BadInput("no instance files given")
    problems: list[Problem] = []
    for item in items:
        path_text, selection = split_selection(item)
        paths = expand_path(path_text)
        for path in paths:
            for name, text in read_texts(path):
                shown = path.name if shipped_instance(path.name) == path else name  # as the user named it
                problems.extend(parse(text, shown, selection))
    return problems


def load_one(spec: str) -> Problem:
    """Exactly one instance (``solve``/``count --instance``)."""
    problems = load([spec])
    if len(problems) != 1:
        raise BadInput(f"{spec!r} names {len(problems)} instances; give one (a file, with @d for excluded diagonals)")
    return problems[0]


def diagonal_lists(path: str | Path) -> list[Diagonals]:
    """Every Excluded Diagonals list in a file or archive, unexpanded (one per file, not per d)."""
    lists = []
    for name, text in read_texts(Path(path)):
        lists.append(parse_diagonals(read_statements(text, name), text, name))
    return lists


def split_specs(specs: str | Sequence[str]) -> list[str]:
    if isinstance(specs, str):
        return [s.strip() for s in specs.split(",") if s.strip()]
    return [str(s).strip() for s in specs if str(s).strip()]


def split_selection(item: str) -> tuple[str, str | None]:
    """``file.param@5`` -> (``file.param``, ``5``); a path without ``@`` has no selection."""
    path, sep, selection = item.rpartition("@")
    if not sep:
        return item, None
    if not re.fullmatch(r"\s*(\d+|\d+\s*\.\.\s*\d+|all)\s*", selection):
        raise BadInput(f"cannot read {item!r}: after @ comes a diagonal count d, a range a..b, or all")
    return path, selection.strip()


def expand_path(text: str) -> list[Path]:
    if any(char in text for char in "*?["):
        matches = pattern_files(text)
        if not matches:
            raise BadInput(f"no instance file matches {text!r}")
        return matches
    path = Path(text)
    if path.is_dir():
        files = folder_files(path, text)
        if not files:
            raise BadInput(f"the folder {text!r} holds no instance files")
        return files
    if not path.exists():
        shipped = shipped_instance(text)
        if shipped is None:
            raise BadInput(
                f"instance file {text!r} does not exist (nor is it one of the instances shipped with the package: "
                f"{', '.join(SHIPPED)})"
            )
        return [shipped]
    return [path]


MAGIC = re.compile(r"[*?[]")


def pattern_files(text: str) -> list[Path]:
    """The regular files a glob pattern (``*``, ``?``, ``[...]``, ``**`` for any folders) names, in name order.

    Matched while the folders are walked as ``folder_files`` walks them, not by ``glob.glob``: that follows links
    to folders, and a link back up the tree (``sub/up -> ..``) made ``data/**/*.param`` run for ever; a
    folder that vanished in the meantime is passed over, one that cannot be read is refused in one line.
    Only the folders the pattern can reach are listed."""
    parts = Path(text).parts
    fixed = next((index for index, part in enumerate(parts) if MAGIC.search(part)), len(parts))
    base = Path(*parts[:fixed]) if fixed else Path(".")
    rest = parts[fixed:]
    if not rest:  # no magic after all (a name with no wildcard in it): the file itself, if it is one
        return [base] if regular_file(base) else []
    if not base.is_dir():
        return []
    found: list[Path] = []
    for root, relative, folders, names in walk(base, text):
        folders[:] = [name for name in folders if may_reach(rest, (*relative, name))]
        found.extend(Path(root, name) for name in names if matches(rest, (*relative, name)))
    return sorted(path for path in found if regular_file(path))


def component_matches(pattern: str, name: str) -> bool:
    """One path component against one of the pattern's, as glob does: a name starting with ``.`` is matched
    only by a pattern that starts with ``.`` too."""
    if name.startswith(".") and not pattern.startswith("."):
        return False
    return fnmatchcase(name, pattern)


def matches(pattern: Sequence[str], path: Sequence[str]) -> bool:
    """Whether the components of ``path`` (below the pattern's fixed folder) match the pattern's; ``**`` stands
    for any number of folders, none included, but not hidden ones (as glob's)."""
    if not pattern:
        return not path
    if pattern[0] == "**":
        return matches(pattern[1:], path) or bool(path) and not path[0].startswith(".") and matches(pattern, path[1:])
    return bool(path) and component_matches(pattern[0], path[0]) and matches(pattern[1:], path[1:])


def may_reach(pattern: Sequence[str], folder: Sequence[str]) -> bool:
    """Whether a file below ``folder`` could match: the walk lists no folder the pattern cannot reach."""
    if not folder:
        return bool(pattern)
    if not pattern:
        return False
    if pattern[0] == "**":
        return may_reach(pattern[1:], folder) or not folder[0].startswith(".") and may_reach(pattern, folder[1:])
    return component_matches(pattern[0], folder[0]) and may_reach(pattern[1:], folder[1:])


def walk(folder: Path, text: str) -> Iterator[tuple[str, tuple[str, ...], list[str], list[str]]]:
    """``os.walk`` of ``folder`` without following links to folders (each root also given relative to
    ``folder``, as its components); a subfolder that vanishes during the walk is passed over (nothing is there
    to read), one that cannot be read is a ``BadInput`` naming it (the instances below it would be missing
    from a comparison that looks complete). The caller may prune ``folders`` in place, as with ``os.walk``."""
    unreadable: list[OSError] = []

    def note(error: OSError) -> None:
        if not isinstance(error, (FileNotFoundError, NotADirectoryError)):
            unreadable.append(error)

    for root, folders, names in os.walk(folder, onerror=note, followlinks=False):
        if unreadable:
            break
        yield root, Path(root).relative_to(folder).parts, folders, names
    if unreadable:
        error = unreadable[0]
        where = error.filename if error.filename is not None else str(folder)
        raise BadInput(
            f"cannot read the folder {where!r} inside {text!r}: {error.strerror or error}; the instances below it "
            "would be missing"
        )


def folder_files(folder: Path, text: str) -> list[Path]:
    """Every regular file below ``folder`` whose name does not start with ``.``, in name order.

    A folder is a snapshot taken while others may change it: a subfolder that vanishes during the walk held
    nothing to read and is passed over; one that cannot be read is refused in one line (the instances below it
    would be silently missing from a comparison that looks complete). Links to folders are not followed (a
    link may point anywhere, or back up the tree in a loop)."""
    files: list[Path] = []
    for root, _relative, _folders, names in walk(folder, text):
        files.extend(Path(root, name) for name in names if not name.startswith("."))
    return sorted(path for path in files if regular_file(path))


def regular_file(path: Path) -> bool:
    """Whether ``path`` is (or links to) a regular file now; False once it is gone."""
    try:
        return path.is_file()
    except OSError:
        return False


SHIPPED = ("diag-10-4-1.param", "blockedqueens.28.1449787894.param", "blockedqueens.56.1860451109.param")


def shipped_instance(name: str) -> Path | None:
    """One of the published instances shipped in the package's data folder, named bare (no folder), so
    that examples run from any folder: ``nq.solve("bitset-mrv", instance="diag-10-4-1.param@6")``."""
    if name not in SHIPPED:
        return None
    shipped = Path(str(resources.files("nqueens_plugins") / "data" / name))
    return shipped if shipped.is_file() else None


def read_texts(path: Path) -> Iterator[tuple[str, str]]:
    """(name, text) of the file, or of every regular file inside an archive (in name order)."""
    archive = path.name.endswith(ARCHIVE_SUFFIXES)
    handle = open_regular(path, "instance file", MAX_ARCHIVE_BYTES if archive else MAX_INSTANCE_BYTES)
    with handle:
        try:
            if archive:
                texts = archive_texts(handle, path)
            else:
                texts = [(str(path), decode(read_bounded(handle, MAX_INSTANCE_BYTES, str(path)), str(path)))]
        except tarfile.TarError as exc:
            raise BadInput(f"{path}: not a readable archive ({exc})") from None
        except READ_ERRORS as exc:
            if isinstance(exc, OSError) and exc.errno is not None:  # the disk's fault, or /proc's
                raise BadInput(f"cannot read instance file {str(path)!r}: {exc.strerror or exc}") from None
            raise BadInput(f"{path}: not a readable archive ({exc})") from None  # its compression is broken
    yield from texts


def archive_texts(handle: IO[bytes], path: Path) -> list[tuple[str, str]]:
    """Every regular file of a tar archive (gzip, bzip2 or xz compressed, or not), read as one stream:
    each member and the whole archive are bounded by the bytes they unpack to, counted as they come
    (never by a size field alone), so a small archive of a huge member stops at the limit."""
    stream = unpacked(handle, MAX_ARCHIVE_BYTES, str(path))
    texts = []
    with tarfile.open(fileobj=stream, mode="r|") as archive:
        for count, member in enumerate(archive, start=1):
            if count > MAX_ARCHIVE_MEMBERS:
                raise TooLarge(f"{path}: more than {MAX_ARCHIVE_MEMBERS:,} files in one archive")
            if not member.isfile():
                continue
            where = f"{path}:{member.name}"
            if member.size > MAX_INSTANCE_BYTES:
                raise TooLarge(
                    f"{where}: {size_text(member.size)} unpacked, more than the "
                    f"{size_text(MAX_INSTANCE_BYTES)} an instance file may be"
                )
            data = archive.extractfile(member)
            if data is not None:
                text = decode(read_bounded(data, MAX_INSTANCE_BYTES, where), where)
                texts.append((f"{path.name}:{member.name}", text))
    return sorted(texts, key=lambda named: named[0])


def decode(data: bytes | bytearray, name: str) -> str:
    """UTF-8 text; a byte-order mark (as some editors write) is skipped."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BadInput(f"{name}: not a text file (byte {exc.start} is not UTF-8)") from None


def parse(text: str, name: str, selection: str | None = None) -> list[Problem]:
    """The instances in one file's text; ``selection`` is the part after ``@``, if any."""
    text = text.removeprefix("\ufeff")  # a byte-order mark, as some editors write
    stripped = text.lstrip()
    if stripped.startswith("{"):
        problems = [parse_json(text, name)]
    else:
        statements = read_statements(text, name)
        if "diags" in statements or "numdiags" in statements:
            diagonals = parse_diagonals(statements, text, name)
            return select_diagonals(diagonals, selection, name)
        problems = [parse_essence(statements, text, name)]
    if selection is not None:
        raise BadInput(f"{name}: @{selection} selects excluded diagonals, but this is not an Excluded Diagonals file")
    return problems


def line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def read_statements(text: str, name: str) -> dict[str, tuple[str, int]]:
    """``name = value`` statements: {name: (value text, offset of the value)}. ``$`` starts a comment."""
    text = re.sub(r"\$[^\n]*", lambda m: " " * len(m.group()), text)  # keep offsets, so line numbers hold
    matches = list(STATEMENT.finditer(text))
    if not matches:
        raise BadInput(
            f"{name}: not an instance file (expected 'letting n = ...' with blocks or init, "
            f"'n = ... diags = [...]', or nqueens JSON)"
        )
    leading = text[: matches[0].start()].strip()
    if leading and not leading.lower().startswith("language"):
        raise BadInput(f"{name}:{line_of(text, 0)}: cannot read {leading.splitlines()[0][:40]!r}")
    statements: dict[str, tuple[str, int]] = {}
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        key = match.group(1)
        if key in statements:
            raise BadInput(f"{name}:{line_of(text, match.start())}: {key} is given twice")
        statements[key] = (text[match.end() : end], match.end())
    return statements


def integer(
    statements: dict[str, tuple[str, int]], key: str, text: str, name: str, allowed: range, meaning: str
) -> int:
    """The whole number ``key = ...``, refused outside ``allowed`` with the bound in the message
    (and never converted when it has more digits than any allowed value could)."""
    if key not in statements:
        raise BadInput(f"{name}: no '{key} = ...' line")
    value, offset = statements[key]
    where = f"{name}:{line_of(text, offset)}"
    match = INTEGER.fullmatch(value)
    if not match:
        raise BadInput(f"{where}: {key} must be a whole number, not {value.strip()[:40]!r}")
    digits = match.group(1)
    bounds = f"{meaning} ({allowed.start:,}..{allowed.stop - 1:,})"
    if len(digits.lstrip("+-")) > 18:
        raise BadInput(f"{where}: {key} = {digits[:12]}... ({len(digits):,} digits) is not {bounds}")
    number = int(digits)
    if number not in allowed:
        raise BadInput(f"{where}: {key} = {number:,} is not {bounds}")
    return number


def board_size(statements: dict[str, tuple[str, int]], text: str, name: str) -> int:
    return integer(statements, "n", text, name, range(1, MAX_FILE_N + 1), "a board size read from instance files")


def pairs(statements: dict[str, tuple[str, int]], key: str, text: str, name: str) -> Iterator[tuple[int, int, int]]:
    """The ``[[a, b], ...]`` list of ``key`` as (a, b, offset of the pair), one at a time; a list longer
    than ``MAX_BLOCKED_SQUARES`` is refused before any pair is read."""
    value, offset = statements[key]
    if not PAIR_LIST.fullmatch(value):
        raise BadInput(f"{name}:{line_of(text, offset + first_flaw(value))}: {key} must be a list of [a, b] pairs")
    listed = value.count("[") - 1  # the list matched: one bracket opens each pair
    if listed > MAX_BLOCKED_SQUARES:
        raise BadInput(
            f"{name}:{line_of(text, offset)}: {key} lists {listed:,} pairs; an instance file may list "
            f"at most {MAX_BLOCKED_SQUARES:,}"
        )
    return ((int(m.group(1)), int(m.group(2)), offset + m.start()) for m in PAIR.finditer(value))


def first_flaw(value: str) -> int:
    """Where a malformed pair list first goes wrong (for the line number in the message)."""
    position = len(value) - len(value.lstrip())
    if not value.startswith("[", position):
        return position
    position += 1
    pair, separator, closing = re.compile(r"\s*" + PAIR.pattern), re.compile(r"\s*,"), re.compile(r"\s*\]\s*")
    while True:
        match = pair.match(value, position)
        if not match:
            end = closing.match(value, position)
            if end:  # the list closes here: what follows it is wrong
                return end.end()
            return position + len(value[position:]) - len(value[position:].lstrip())
        position = match.end()  # just after the pair: a missing comma is reported on the pair's line
        comma = separator.match(value, position)
        if not comma:
            end = closing.match(value, position)
            return end.end() if end else position
        position = comma.end()


def parse_essence(statements: dict[str, tuple[str, int]], text: str, name: str) -> Problem:
    n = board_size(statements, text, name)
    if "blocks" not in statements and "init" not in statements:
        raise BadInput(f"{name}: an Essence' instance needs 'letting blocks = [...]' or 'letting init = [...]'")
    blocked = []
    for row, column, offset in pairs(statements, "blocks", text, name) if "blocks" in statements else []:
        if not (1 <= row <= n and 1 <= column <= n):
            raise BadInput(
                f"{name}:{line_of(text, offset)}: blocked square [{row},{column}] is off the board (1-based, n = {n})"
            )
        blocked.append((column - 1, row - 1))
    fixed: dict[int, int] = {}
    for row, column, offset in pairs(statements, "init", text, name) if "init" in statements else []:
        if not (0 <= row < n and 0 <= column < n):
            raise BadInput(
                f"{name}:{line_of(text, offset)}: queen [{row},{column}] is off the board (0-based, n = {n})"
            )
        if column in fixed and fixed[column] != row:
            raise BadInput(f"{name}:{line_of(text, offset)}: two queens in column {column}")
        fixed[column] = row
    return make_problem(n, fixed, blocked, source=name)


def parse_diagonals(statements: dict[str, tuple[str, int]], text: str, name: str) -> Diagonals:
    n = board_size(statements, text, name)
    if "diags" not in statements:
        raise BadInput(f"{name}: no 'diags = [...]' line")
    diagonals = []
    for d, kind, offset in pairs(statements, "diags", text, name):
        if kind not in (0, 1) or not 0 <= d <= 2 * n - 2:
            raise BadInput(f"{name}:{line_of(text, offset)}: [{d}, {kind}] is not a diagonal of a {n}x{n} board")
        diagonals.append((d, kind))
    if "numdiags" in statements:
        most = range(MAX_BLOCKED_SQUARES + 1)
        declared = integer(statements, "numdiags", text, name, most, "a number of diagonals a file may list")
        if declared != len(diagonals):
            raise BadInput(f"{name}: numdiags = {declared}, but the list has {len(diagonals)} diagonals")
    return Diagonals(n, tuple(diagonals), name)


def select_diagonals(diagonals: Diagonals, selection: str | None, name: str) -> list[Problem]:
    total = len(diagonals.diagonals)
    if selection is None:
        raise BadInput(
            f"{name} lists {total} excluded diagonals: choose how many with {name}@d (0..{total}), @a..b or @all"
        )
    if selection == "all":
        counts = range(total + 1)
    elif ".." in selection:
        low, high = (int(part) for part in selection.split(".."))
        if high < low:
            raise BadInput(f"{name}@{selection}: the range is empty")
        counts = range(low, high + 1)
    else:
        counts = range(int(selection), int(selection) + 1)
    if counts.stop - 1 > total:  # as instance() would say of the first count beyond the list
        diagonals.instance(max(counts.start, total + 1))
    covered = diagonals.crossings(counts.stop - 1)
    squares = sum(covered[count] for count in counts)
    if len(counts) > 1 and squares > MAX_BLOCKED_SQUARES:
        raise BadInput(
            f"{name}@{selection}: its {len(counts):,} instances block up to {squares:,} squares in all; at most "
            f"{MAX_BLOCKED_SQUARES:,} are read from an instance file: choose fewer (@a..b)"
        )
    return [diagonals.instance(count) for count in counts]


def parse_json(text: str, name: str) -> Problem:
    separators = text.count(",") + text.count(":")  # every value after the first needs one
    if separators > JSON_SEPARATORS:
        raise BadInput(
            f"{name}: {separators:,} commas and colons, more than an instance holds "
            f"(at most {MAX_BLOCKED_SQUARES:,} blocked squares)"
        )
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"{name}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise BadInput(f"{name}: not valid JSON (nested too deep)") from None
    except ValueError as exc:  # a number of more digits than int() takes
        raise BadInput(f"{name}: not valid JSON ({str(exc).splitlines()[0][:80]})") from None
    if not isinstance(data, dict) or data.get("format") != JSON_FORMAT:
        raise BadInput(f'{name}: a JSON instance needs "format": "{JSON_FORMAT}"')
    return problem_from_json(data, name)


def problem_from_json(data: dict[str, Any], source: str | None) -> Problem:
    """Our JSON form (also the instance fields of a results record) into a Problem."""
    where = source or "instance"
    n = data.get("n")
    if not isinstance(n, int) or isinstance(n, bool):
        raise BadInput(f"{where}: n must be a whole number")
    check_size(n, where)
    fixed_raw = data.get("fixed") or {}
    blocked_raw = data.get("blocked") or []
    if not isinstance(fixed_raw, dict) or not isinstance(blocked_raw, list):
        raise BadInput(f"{where}: fixed must map columns to rows and blocked list [column, row] pairs")
    if len(blocked_raw) > MAX_BLOCKED_SQUARES:
        raise BadInput(f"{where}: {len(blocked_raw):,} blocked squares; an instance may have {MAX_BLOCKED_SQUARES:,}")
    try:
        fixed = {int(column): row for column, row in fixed_raw.items()}
    except ValueError:
        raise BadInput(f"{where}: fixed maps whole-number columns to rows") from None
    blocked = [tuple(square) if isinstance(square, list) else square for square in blocked_raw]
    return make_problem(n, fixed, blocked, source=source)


def check_size(n: int, name: str) -> None:
    if not 1 <= n <= MAX_FILE_N:
        raise BadInput(f"{name}: n = {n:,} is not a board size read from instance files (1..{MAX_FILE_N:,})")


# --- writing -------------------------------------------------------------------


def to_json(problem: Problem) -> dict[str, Any]:
    """Our JSON form: the same fields a results record carries."""
    return {
        "format": JSON_FORMAT,
        "version": JSON_VERSION,
        "n": problem.n,
        "fixed": {str(c): r for c, r in problem.fixed.items()},
        "blocked": [list(square) for square in sorted(problem.blocked)],
    }


def essence_text(problem: Problem) -> str:
    """The Essence' form: ``blocks`` 1-based [row, column], ``init`` 0-based [row, column]."""
    lines = [f"letting n = {problem.n}"]
    if problem.blocked:
        blocks = ",\n".join(f"[{r + 1},{c + 1}]" for c, r in sorted(problem.blocked, key=lambda s: (s[1], s[0])))
        lines.append(f"letting blocks = [{blocks}]")
    if problem.fixed or not problem.blocked:
        init = ", ".join(f"[{r},{c}]" for c, r in problem.fixed.items())
        lines.append(f"letting init = [{init}]")
    return "\n".join(lines) + "\n"


def diagonals_text(n: int, diagonals: Sequence[tuple[int, int]]) -> str:
    """The Excluded Diagonals form, as the CSPLib generator writes it."""
    listed = ", ".join(f"[{d}, {t}]" for d, t in diagonals)
    return f"n =  {n}\nnumdiags =  {len(diagonals)}\ndiags =  [{listed}]\n"


# --- generating ----------------------------------------------------------------


def instance_rng(kind: str, n: int, parameter: int, seed: int, index: int) -> random.Random:
    digest = hashlib.sha256(f"{kind}|{n}|{parameter}|{seed}|{index}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def random_completion(n: int, queens: int, rng: random.Random) -> dict[int, int]:
    """``queens`` pre-placed queens, none attacking another: random columns, each queen on a
    random row no earlier queen attacks (drawn again from scratch if the board fills up)."""
    if not 0 <= queens <= n:
        raise BadInput(f"a completion instance places 0..n queens, not {queens}")
    for _ in range(10_000):
        fixed: dict[int, int] = {}
        for column in rng.sample(range(n), queens):
            free = [r for r in range(n) if all(r != fr and abs(r - fr) != abs(column - fc) for fc, fr in fixed.items())]
            if not free:
                break
            fixed[column] = rng.choice(free)
        else:
            return fixed
    raise BadInput(f"could not place {queens} non-attacking queens on a {n}x{n} board")


def random_blocked(n: int, squares: int, rng: random.Random) -> list[tuple[int, int]]:
    """``squares`` distinct squares, uniformly at random."""
    if not 0 <= squares <= n * n:
        raise BadInput(f"a {n}x{n} board has 0..{n * n} squares to block, not {squares}")
    return [(index % n, index // n) for index in rng.sample(range(n * n), squares)]


def random_diagonals(n: int, minimum: int, rng: random.Random) -> list[tuple[int, int]]:
    """Every diagonal that can go, in a random order whose prefixes are the instances.

    As CSPLib's queens-diag-gen.py: the sum and difference diagonals are shuffled
    apart, a fair coin picks which list gives the next one, and a diagonal is
    kept only if every row and column it crosses keeps at least ``minimum``
    open squares. (We count open squares exactly; the CSPLib script counts a
    square twice when two excluded diagonals cross on it, so it keeps a few
    more squares open than ``minimum``.)
    """
    sums, differences = list(range(2 * n - 1)), list(range(2 * n - 1))
    rng.shuffle(sums)
    rng.shuffle(differences)
    open_in_row, open_in_column = [n] * n, [n] * n
    closed: set[tuple[int, int]] = set()
    chosen = []
    while sums or differences:
        kind = 1 if differences == [] or (sums and rng.random() < 0.5) else 0
        d = (sums if kind == 1 else differences).pop()
        squares = [s for s in diagonal_squares(n, [(d, kind)]) if s not in closed]
        rows_hit, columns_hit = Counter(r for _, r in squares), Counter(c for c, _ in squares)
        if any(open_in_row[r] - k < minimum for r, k in rows_hit.items()) or any(
            open_in_column[c] - k < minimum for c, k in columns_hit.items()
        ):
            continue
        for column, row in squares:
            open_in_row[row] -= 1
            open_in_column[column] -= 1
            closed.add((column, row))
        chosen.append((d, kind))
    return chosen


def generate(kind: str, n: int, count: int, seed: int, parameter: int, out: Path) -> list[Path]:
    """Write ``count`` instances of ``kind`` to ``out``; the same arguments give the same files.

    ``parameter`` is the number of queens (completion), of blocked squares
    (blocked), or the minimum open squares per row and column (diagonals).
    """
    if kind not in GENERATOR_KINDS:
        raise BadInput(f"instance kind is one of {', '.join(GENERATOR_KINDS)}; not {kind!r}")
    if not 1 <= n <= 1000:
        raise BadInput(f"generate boards of 1..1000, not n = {n}")
    if not 1 <= count <= 100_000:
        raise BadInput(f"--count must be 1..100,000, not {count}")
    check_new_folder(out, "--out")  # the folder named is made, never the folders above it
    try:
        out.mkdir(exist_ok=True)
    except OSError as exc:
        raise BadInput(f"cannot create {str(out)!r}: {exc.strerror}") from None
    written = []
    for index in range(count):
        rng = instance_rng(kind, n, parameter, seed, index)
        if kind == "completion":
            text = essence_text(make_problem(n, random_completion(n, parameter, rng)))
            name = f"completion-{n}-q{parameter}-s{seed}-{index + 1}.param"
        elif kind == "blocked":
            text = essence_text(make_problem(n, blocked=random_blocked(n, parameter, rng)))
            name = f"blocked-{n}-b{parameter}-s{seed}-{index + 1}.param"
        else:
            text = diagonals_text(n, random_diagonals(n, parameter, rng))
            name = f"diag-{n}-{parameter}-s{seed}-{index + 1}.param"
        path = out / name
        try:
            path.write_text(text)
        except OSError as exc:
            raise BadInput(f"cannot write {str(path)!r}: {exc.strerror}") from None
        written.append(path)
    return written
