"""Formats layer, parent side: one rule for every file the suite writes whole (``-o``, ``--trace``, exports).

A file a command writes may stand where a user keeps something of worth: the
results file the command is reading, a count's pieces, a trace. So, before any
work (``check_output``):

* never the file being read (``nqueens report runs.jsonl -o runs.jsonl``), by
  identity (device and inode), so no spelling or link gets around it;
* never a symbolic link: what it points to may be anything, anywhere;
* never a special file or a folder;
* never an existing data file of the suite of another kind (a results file, a
  count's pieces, a trace, an instance) replaced by something else: the user
  removes it or chooses another name, we do not guess;
* a data file (``keep_others``: a trace) replaces nothing but its own kind or an
  empty file, as ``compare --out`` and ``count --out`` never write over a file
  that is not their own: a file of words or figures a user keeps is not a trace,
  and ``--trace`` is easily given the wrong name. A report, a figure or an
  export (``-o``) replaces any other file that is not a data file of the suite,
  as a shell's ``>`` would: that is what ``-o`` is asked to do;
* never a folder made that the user did not ask for: the folder a file is
  written into must exist (a mistyped ``-o /nonexistent/dir/r.html`` is an
  error, not a tree made as root). A folder an option names to be made
  (``--keep-proofs DIR``, ``instances generate --out DIR``, an ASlib scenario)
  is made, but only that one: its parent must exist (``check_new_folder``).

Then the text is written whole or not at all (``write_whole``): to a temporary
file beside the target, flushed to disk, and renamed over it, so a full disk or
a kill leaves the earlier file as it was, never a torn one.

Files that commands *append* to (``compare --out``, ``count --out``) are kept by
their own writers (``records.ResultsWriter``, ``count_pieces``), which lock them.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from nqueens_plugins.core.errors import BadInput

__all__ = ["check_new_folder", "check_output", "existing_kind", "write_whole"]

SNIFFED_BYTES = 4096  # the suite's data files say their format in their first line
FORMAT_MARK = re.compile(rb'"format"\s*:\s*"(nqueens-[a-z-]+)"')
INSTANCE_SUFFIXES = (".param", ".dzn")
KIND_NAMES = {
    "nqueens-results": "a results file",
    "nqueens-count-pieces": "a count's pieces file",
    "nqueens-trace": "a trace",
}


def existing_kind(path: Path) -> str | None:
    """What data file of the suite ``path`` already is ("a results file", ...), or None (absent, or not ours).

    Reads at most ``SNIFFED_BYTES`` of a regular file, without blocking (a FIFO is never opened here)."""
    try:
        status = path.lstat()
    except OSError:
        return None
    if not stat.S_ISREG(status.st_mode):
        return None
    if path.suffix.lower() in INSTANCE_SUFFIXES or path.name.lower().endswith(
        tuple(s + ".gz" for s in INSTANCE_SUFFIXES)
    ):
        return "an instance file"
    try:
        with path.open("rb") as handle:
            start = handle.read(SNIFFED_BYTES)
    except OSError:
        return None
    found = FORMAT_MARK.search(start)
    if found is None:
        return None
    return KIND_NAMES.get(found.group(1).decode(), f"a {found.group(1).decode()} file")


def check_output(
    path: Path, kind: str, *, reading: Iterable[Path] = (), flag: str = "-o", keep_others: bool = False
) -> None:
    """Refuse, in one line and before any work, an output that would harm what is there (the module's rules).

    ``kind`` is what will be written, as ``existing_kind`` names it ("a trace") or in words ("a report");
    ``reading`` the files the command reads; ``flag`` the option that named ``path``, for the message;
    ``keep_others``: an existing non-empty file that is not ``kind`` is refused too (a data file such as a
    trace, which nothing asks to write over a user's notes). Missing folders are refused, never made."""
    shown = repr(str(path))
    try:
        status = path.lstat()
    except (FileNotFoundError, NotADirectoryError):  # its folder is checked below
        status = None
    except OSError as exc:
        raise BadInput(f"cannot write {shown}: {exc.strerror}") from None
    if status is not None:
        if stat.S_ISLNK(status.st_mode):
            raise BadInput(f"{flag} {shown} is a symbolic link; give the file itself (a link may point anywhere)")
        if stat.S_ISDIR(status.st_mode):
            raise BadInput(f"cannot write {shown}: it is a folder")
        if not stat.S_ISREG(status.st_mode):
            raise BadInput(f"cannot write {shown}: it is not a regular file (a device, a FIFO or a socket)")
        for source in reading:
            with contextlib.suppress(OSError):
                if os.path.samefile(source, path):
                    raise BadInput(f"{flag} {shown} is the file this command reads; write to another file")
        there = existing_kind(path)
        if there is not None and there != kind:
            raise BadInput(
                f"{flag} {shown} is {there}; it is not replaced by {kind}: remove it first or choose another name"
            )
        if keep_others and there is None and status.st_size > 0:
            raise BadInput(
                f"{flag} {shown} already exists and is not {kind}; it is not replaced: remove it first or choose "
                "another name"
            )
        if not os.access(path, os.W_OK):
            raise BadInput(f"cannot write {shown}: permission denied")
    folder = path.parent if str(path.parent) else Path(".")
    check_folder_exists(folder, shown, flag)


def check_folder_exists(folder: Path, shown: str, flag: str) -> None:
    """Refuse a folder to write into that is missing, is no folder, or cannot be written: a folder is made only
    when a user names it to be made (``check_new_folder``), never as a side effect of a mistyped path."""
    try:
        status = folder.stat()
    except (FileNotFoundError, NotADirectoryError):
        raise BadInput(
            f"cannot write {shown}: the folder {str(folder)!r} does not exist; make it first or correct {flag}"
        ) from None
    except OSError as exc:
        raise BadInput(f"cannot write {shown}: {exc.strerror}") from None
    if not stat.S_ISDIR(status.st_mode):
        raise BadInput(f"cannot write {shown}: {str(folder)!r} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise BadInput(f"cannot write {shown}: permission denied")


def check_new_folder(folder: Path, flag: str) -> None:
    """Refuse, before any work, a folder an option names to be made (``--keep-proofs DIR``) whose parent is
    missing: that one folder is what the user asked for, a chain of folders above it is a typing mistake
    (``/nonexistent/dir``). An existing folder (or a link to one: the user's way to name it) is taken; anything
    else there is refused."""
    shown = repr(str(folder))
    try:
        status = folder.lstat()
    except (FileNotFoundError, NotADirectoryError):
        status = None
    except OSError as exc:
        raise BadInput(f"{flag} {shown}: {exc.strerror}") from None
    if status is not None:
        if not os.path.isdir(folder):
            raise BadInput(f"{flag} {shown} is not a folder")
        return
    parent = folder.parent if str(folder.parent) else Path(".")
    check_folder_exists(parent, shown, flag)


def write_whole(path: Path, content: str | bytes) -> None:
    """Write ``content`` to ``path`` whole or not at all: a temporary file beside it, synced, then renamed over
    it (a kill or a full disk leaves the earlier file untouched, and no temporary file behind)."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    folder = path.parent if str(path.parent) else Path(".")
    try:
        mode = stat.S_IMODE(path.stat().st_mode)  # a replaced file keeps its permissions
    except OSError:
        mode = 0o666 & ~current_umask()
    try:
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".partial")
    except OSError as exc:
        raise BadInput(f"cannot write {str(path)!r}: {exc.strerror}") from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise BadInput(f"cannot write {str(path)!r}: {exc.strerror}; nothing was written there") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
