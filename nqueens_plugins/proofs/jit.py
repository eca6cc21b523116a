"""Proofs layer, any process: the checker's own optional numba shim, compiled when numba imports, plain Python otherwise.

The checker shares no code with any solver, so it does not borrow the built-in
engines' shim (``builtin/engines/kernels.py``): one source serves both paths,
and ``NQUEENS_PROOFS_NO_JIT=1`` (read once, at import) forces the plain one so
that the tests run both. The machine code is cached on disk (the compile takes
10 s or more on a busy machine, in every host process that checks a proof), but
not where numba's ``cache=True`` puts it, beside the source inside the package:
in ``numba`` under the user's cache folder (``$NQUEENS_CACHE_DIR``, else
``$XDG_CACHE_HOME/nqueens-plugins``, else ``~/.cache/nqueens-plugins``, the
folder ``core/cache_folder.py`` names, worked out here again so as to import
nothing), or in ``NUMBA_CACHE_DIR`` when set. A folder that cannot be written,
or a numba whose cache internals moved, means no cache, never an error.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["JIT", "NO_JIT_VARIABLE", "kernel"]

NO_JIT_VARIABLE = "NQUEENS_PROOFS_NO_JIT"

F = TypeVar("F", bound=Callable[..., Any])


def _plain(function: F) -> F:
    return function


def _cache_root() -> str:
    """Where the compiled kernels go: numba's own variable, else the package's cache folder's ``numba``."""
    from numba.core import config

    if getattr(config, "CACHE_DIR", ""):
        return str(config.CACHE_DIR)  # type: ignore[attr-defined]
    if os.environ.get("NQUEENS_CACHE_DIR"):
        return os.path.join(os.environ["NQUEENS_CACHE_DIR"], "numba")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "nqueens-plugins", "numba")


def _cached(dispatcher: Any, function: Callable[..., Any]) -> Any:
    """Give ``dispatcher`` a disk cache in ``_cache_root()`` (what numba's ``enable_caching`` does, located elsewhere)."""
    from numba.core import caching

    class Locator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        def __init__(self, py_func: Callable[..., Any], py_file: str) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = os.path.join(_cache_root(), self.get_suitable_cache_subpath(py_file))

        def get_cache_path(self) -> str:
            return self._cache_path

        @classmethod
        def from_function(cls, py_func: Callable[..., Any], py_file: str) -> Any:
            try:
                return super().from_function(py_func, py_file)
            except (RuntimeError, OSError):  # no home, or a folder that cannot be written: no cache
                return None

    class Impl(caching.CompileResultCacheImpl):
        _locator_classes: list[type[object]] = [Locator]  # noqa: RUF012

    class Cache(caching.FunctionCache):
        _impl_class = Impl

        def save_overload(self, sig: Any, data: Any) -> None:
            try:
                super().save_overload(sig, data)
            except OSError:  # the folder went away since: the next process compiles again
                pass

    # numba moved its internals, or found no folder: compiled in every process
    with contextlib.suppress(Exception):
        dispatcher._cache = Cache(function)
    return dispatcher


def _load() -> tuple[bool, Callable[[Any], Any]]:
    """numba's ``njit`` (with the disk cache above) when it imports and is not switched off; the identity otherwise."""
    if os.environ.get(NO_JIT_VARIABLE, "") not in ("", "0"):
        return False, _plain
    try:
        import numba
    except ImportError:
        return False, _plain

    def compiled(function: Callable[..., Any]) -> Any:
        dispatcher = numba.njit(nogil=True)(function)
        if not hasattr(dispatcher, "_cache"):  # NUMBA_DISABLE_JIT: the plain function
            return dispatcher
        return _cached(dispatcher, function)

    return True, compiled


JIT, _decorator = _load()


def kernel(function: F) -> F:
    """``function`` compiled by numba (nopython, GIL released) when ``JIT``, else itself."""
    compiled: F = _decorator(function)
    return compiled
