"""Built-in engine, worker side: numba's disk cache of the compiled kernels, kept in the user's cache folder.

numba's own ``cache=True`` writes its ``.nbi`` and ``.nbc`` files beside the
source, in ``__pycache__``: inside site-packages, where pip's uninstall leaves
them (a later editable install in the same venv then finds a stray
``nqueens_plugins`` folder that shadows it: every solve an ImportError), or in a
checkout's tree. ``compiled`` compiles like ``numba.njit(cache=True, nogil=True)``
but keeps the machine code in ``<cache folder>/numba`` (``core.cache_folder``),
or in the user's own ``NUMBA_CACHE_DIR`` when set, for these kernels only: no
numba setting is changed, so another plugin's numba functions in the same worker
cache where numba puts them. A folder that cannot be written means no cache (a
compile in every process), never an error and never the package's folder.

When numba compiles one of these kernels (a cache miss: a new machine, a new
numba or a changed source), it says so through ``core.compile_notes`` (the
worker tells its parent, which shows it and does not hold it to
``--prepare-timeout``); loading one from the cache says nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numba
from numba.core import caching, config, event

from nqueens_plugins.core import compile_notes
from nqueens_plugins.core.cache_folder import cache_folder


class UserCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """numba's ``NUMBA_CACHE_DIR`` locator, with our cache folder where that variable is unset: one
    subfolder per source folder (numba names it by the folder's path), so installs never share files."""

    def __init__(self, py_func: Callable[..., Any], py_file: str) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        root = getattr(config, "CACHE_DIR", "") or os.path.join(cache_folder(), "numba")
        self._cache_path = os.path.join(root, self.get_suitable_cache_subpath(py_file))

    def get_cache_path(self) -> str:
        return self._cache_path

    @classmethod
    def from_function(cls, py_func: Callable[..., Any], py_file: str) -> UserCacheLocator | None:
        """The locator, or None (no cache) when the folder cannot be made and written, or there is no home."""
        try:
            locator: UserCacheLocator | None = super().from_function(py_func, py_file)
        except RuntimeError:
            return None
        return locator


class _KernelCacheImpl(caching.CompileResultCacheImpl):
    # numba's own list (its class attribute) goes on to the source's own __pycache__: not here
    _locator_classes: list[type[object]] = [UserCacheLocator]  # noqa: RUF012


class KernelCache(caching.FunctionCache):
    """numba's per-function cache, located by ``UserCacheLocator`` only."""

    _impl_class = _KernelCacheImpl

    def save_overload(self, sig: Any, data: Any) -> None:
        try:
            super().save_overload(sig, data)
        except OSError:  # the folder went away or read-only since: the next process compiles again
            pass


class CompileListener(event.Listener):
    """Hears numba's compile events (fired on a cache miss only) and tells ``core.compile_notes`` when the
    outermost of our kernels starts and ends compiling (numba's own helpers and kernels compiled inside
    another of ours are part of it)."""

    def __init__(self) -> None:
        self.ours: set[int] = set()  # ids of the dispatchers ``compiled`` made (they live as long as their module)
        self.depth = 0

    def on_start(self, ev: event.Event) -> None:
        if id(ev.data.get("dispatcher")) in self.ours:
            self.depth += 1
            if self.depth == 1:
                compile_notes.started(ev.data["dispatcher"].py_func.__name__.lstrip("_"))

    def on_end(self, ev: event.Event) -> None:
        if id(ev.data.get("dispatcher")) in self.ours and self.depth > 0:
            self.depth -= 1
            if self.depth == 0:
                compile_notes.ended(ev.data["dispatcher"].py_func.__name__.lstrip("_"))


LISTENER = CompileListener()
event.register("numba:compile", LISTENER)


def compiled(function: Callable[..., Any]) -> Any:
    """``function`` compiled by numba (nopython, GIL released), its machine code cached in the user's cache folder."""
    dispatcher = numba.njit(nogil=True)(function)
    if not hasattr(dispatcher, "_cache"):  # NUMBA_DISABLE_JIT: the plain function
        return dispatcher
    LISTENER.ours.add(id(dispatcher))
    try:
        dispatcher._cache = KernelCache(function)  # what numba's enable_caching does, with our locator
    except RuntimeError:  # numba found no folder it could write: compiled in every process
        pass
    return dispatcher
