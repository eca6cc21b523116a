"""Views layer, parent side: text from files and plugins made safe for the place it is printed.

Solver names, instance labels and reasons come from results files anyone may
write and from plugins we do not trust. Each output has its own way to be
abused, so each has its own escape:

* a terminal: control characters (ESC starts a sequence that can set the
  window title, clear the screen or rewrite what was printed) are shown as
  ``\\x1b``-style text, never sent;
* Markdown: ``|`` and line breaks would split a table's cells and rows, and
  HTML would pass into the rendered page;
* CSV: a cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
  return is a formula to a spreadsheet (``=HYPERLINK(...)``): it is quoted
  with a leading ``'``, as OWASP advises. CSV written to a file (``-o``) keeps
  every other byte a name holds, in CSV's own quoting: it is data for a
  program. CSV printed on stdout is read on a terminal (directly, or at the end
  of ``| head``, ``| less -R``, a CI log), so each cell is escaped as the table's
  are (``csv_for_terminal``), whether or not stdout is a terminal right now: a
  pipe is no promise that no terminal is at its end, and a program that wants
  the exact names has ``-o``;
* anything else printed on stdout as text (``printed_lines``): every line's
  control characters shown, the line breaks between lines kept, a last guard
  under the per-medium escapes;
* JSON: ``NaN`` and ``Infinity`` are not JSON (Python writes them by default),
  so a non-finite number is written as ``null``;
* a link in an HTML page to a local file named in a results file (a kept proof):
  a name such as ``javascript:...`` would be a script, a quote would end the
  attribute. The link is a relative path, percent-encoded (so no ``:`` can make
  it a scheme), or a ``file:`` URL, then escaped for the attribute.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import os
import re
import urllib.parse
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "csv_for_terminal",
    "csv_text",
    "for_csv",
    "for_href",
    "for_markdown",
    "for_terminal",
    "printed_lines",
    "strict_json",
]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def for_terminal(text: str) -> str:
    """``text`` with every character Python does not call printable shown as an escape (``\\x1b``, ``\\n``,
    ``\\u202e``): control and format characters move the cursor, reorder text (bidi) or hide it."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else visible(char) for char in text)


def visible(char: str) -> str:
    if char in "\n\t\r":
        return repr(char)[1:-1]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def for_markdown(text: str) -> str:
    """One table cell: HTML escaped, ``|`` and backslashes escaped, control characters shown, on one line."""
    cell = for_terminal(text).replace("&", "&amp;").replace("<", "&lt;")  # no tag can open; "> 2" stays
    return cell.replace("\\", "\\\\").replace("|", "\\|")


def for_csv(value: Any) -> Any:
    """A cell a spreadsheet will not run: text that would start a formula gets a leading ``'`` (a number,
    negative or not, is left as it is: it is not text a user wrote)."""
    if not isinstance(value, str) or not value.startswith(FORMULA_STARTS):
        return value
    if NUMBER.fullmatch(value):
        return value
    return "'" + value


def csv_text(rows: Iterable[Sequence[Any]]) -> str:
    """CSV lines, one per row, ended by ``\\n``, with every cell that holds a ``\\r`` or a ``\\n`` quoted.

    Python's writer quotes a cell holding a character of its line terminator only: with ``\\n`` as terminator a
    bare ``\\r`` inside a name went out unquoted, and a reader took it for the end of a record (a row split in
    two, its cells shifted). Each row is written with RFC 4180's ``\\r\\n`` as terminator, so both characters
    are quoted in a cell, and that terminator is then replaced by ``\\n``."""
    lines = []
    for row in rows:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\r\n").writerow(row)
        lines.append(buffer.getvalue().removesuffix("\r\n"))
    return "\n".join(lines)


def csv_for_terminal(text: str) -> str:
    """CSV text as it is printed on stdout: each cell's control characters shown as text (``for_terminal``), so
    ``ESC ] 0;TITLE BEL`` or a C1 CSI cannot drive the terminal and a line break inside a cell cannot pass for
    another record; CSV's quoting is kept (a cell with ``,`` or ``"`` is still one cell)."""
    if all(line.isprintable() for line in text.split("\n")):
        return text  # no cell holds a control character or a line break: the usual case, as it was
    return csv_text([for_terminal(cell) for cell in row] for row in csv.reader(io.StringIO(text, newline="")))


def printed_lines(text: str) -> str:
    """Text printed on a terminal line by line: the line breaks kept, every other character that is not printable
    shown as an escape. A last guard under the escapes of each medium, which have already made their text safe."""
    return "\n".join(map(for_terminal, text.split("\n")))


def for_href(target: str | os.PathLike[str], page_folder: str | os.PathLike[str]) -> str:
    """A link to a local file, as the value of an HTML ``href``: relative to the page's folder when the file is
    there or below (the page and the file can move together), else a ``file:`` URL of its absolute path; either
    way percent-encoded, so the link names that file and nothing else, and escaped for a quoted attribute."""
    path = Path(os.path.abspath(target))
    folder = Path(os.path.abspath(page_folder))
    if path.is_relative_to(folder) and path != folder:
        url = urllib.parse.quote(path.relative_to(folder).as_posix(), safe="/")
    else:
        url = path.as_uri()
    return html.escape(url, quote=True)


def strict_json(value: Any, **settings: Any) -> str:
    """``json.dumps`` that writes only JSON: a NaN or an infinity becomes ``null`` (what is known of it is
    nothing a reader can use as a number)."""
    return json.dumps(finite(value), allow_nan=False, **settings)


def finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(item) for item in value]
    return value
