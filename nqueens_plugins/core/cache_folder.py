"""Core layer, any process: the user's cache folder, where the host keeps what it can rebuild.

``$NQUEENS_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/nqueens-plugins``, else
``~/.cache/nqueens-plugins``. It holds the import probes' verdicts and, in a
``numba`` subfolder, the built-in engines' compiled kernels. It lives in the core
because the built-in plugins may import nothing else of the package.
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_VARIABLE = "NQUEENS_CACHE_DIR"


def cache_folder() -> Path:
    """The folder (not created here); raises RuntimeError when no variable is set and there is no home."""
    if os.environ.get(CACHE_VARIABLE):
        return Path(os.environ[CACHE_VARIABLE])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "nqueens-plugins"
