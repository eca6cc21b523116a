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
  removes it or chooses another name, we do not guess.

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

__all__ = ["check_output", "existing_kind", "write_whole"]

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


def check_output(path: Path, kind: str, *, reading: Iterable[Path] = (), flag: str = "-o") -> None:
    """Refuse, in one line and before any work, an output that would harm what is there (the module's rules).

    ``kind`` is what will be written, as ``existing_kind`` names it ("a trace") or in words ("a report");
    ``reading`` the files the command reads; ``flag`` the option that named ``path``, for the message.
    Missing folders are made, as ``mkdir -p`` would."""
    shown = repr(str(path))
    try:
        status = path.lstat()
    except (FileNotFoundError, NotADirectoryError):  # the folders are made (or refused) below
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
        if not os.access(path, os.W_OK):
            raise BadInput(f"cannot write {shown}: permission denied")
    folder = path.parent if str(path.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadInput(f"cannot write {shown}: cannot make folder {str(folder)!r} ({exc.strerror})") from None
    if not os.access(folder, os.W_OK):
        raise BadInput(f"cannot write {shown}: permission denied")


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
