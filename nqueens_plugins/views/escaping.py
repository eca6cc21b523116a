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
  with a leading ``'``, as OWASP advises;
* JSON: ``NaN`` and ``Infinity`` are not JSON (Python writes them by default),
  so a non-finite number is written as ``null``;
* a link in an HTML page to a local file named in a results file (a kept proof):
  a name such as ``javascript:...`` would be a script, a quote would end the
  attribute. The link is a relative path, percent-encoded (so no ``:`` can make
  it a scheme), or a ``file:`` URL, then escaped for the attribute.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
import urllib.parse
from pathlib import Path
from typing import Any

__all__ = ["for_csv", "for_href", "for_markdown", "for_terminal", "strict_json"]

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
