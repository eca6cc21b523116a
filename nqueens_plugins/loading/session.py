"""Loading layer, parent side: solvers registered in this process (``nq.register``), for notebooks and scripts.

An installed plugin reaches the host through an entry point and reaches a worker by
reference: the worker imports its module. A solver written in a notebook cell or a
script has neither: its class lives in ``__main__``, which a worker cannot import.
``register`` makes such a solver a first-class one for this process:

* the same rules as an entry point's ``register`` (``registry.check_solver``), and a
  name taken by any installed or built-in solver, or registered here already, is
  refused, never shadowed: one ``BadInput`` line;
* it is checked to travel by value (cloudpickle): tasks reach workers through
  cloudpickle (``worker_handle.WorkerProcess.submit``), which sends a class defined in
  ``__main__`` whole and any importable class by reference, as before. So isolation,
  time limits and killing apply to it as to any plugin, on a Dask cluster too;
* its provenance is "registered in session" (``Source.session``).

Registrations live here, apart from the loaded registries, which ``host`` rebuilds
with them included (``host.load_registry`` adds them last); registering or
unregistering forgets the loaded registries so the next lookup sees the change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nqueens_plugins.core.errors import BadInput, PluginError
from nqueens_plugins.core.solver import Solver
from nqueens_plugins.loading.registry import SESSION, Registration, Registry, check_solver

_registered: dict[str, Solver] = {}


class SessionSolver:
    """What ``register`` returns: the registration, which a ``with`` block undoes at its end."""

    def __init__(self, solver: Solver, withdraw: Callable[[Solver], None]) -> None:
        self.solver = solver
        self._withdraw = withdraw  # host.unregister: it also forgets the loaded registries

    @property
    def name(self) -> str:
        return self.solver.name

    def __enter__(self) -> Solver:
        return self.solver

    def __exit__(self, *exc_info: object) -> None:
        if _registered.get(self.solver.name) is self.solver:
            self._withdraw(self.solver)

    def __repr__(self) -> str:
        return f"<{self.solver.name!r} registered in session>"


def by_value(solver: Solver) -> bytes:
    """The solver as a worker will receive it, or BadInput naming why it cannot travel."""
    import cloudpickle

    try:
        return cloudpickle.dumps(solver)
    except Exception as exc:  # noqa: BLE001 - any pickling failure means the same thing
        raise BadInput(
            f"solver {solver.name!r} cannot be sent to a worker process ({type(exc).__name__}: {exc}); "
            "keep open files, locks and connections out of its attributes (make them in solve)"
        ) from None


def register(solver: Any, taken: Registry, withdraw: Callable[[Solver], None]) -> SessionSolver:
    """Register ``solver`` for this process; ``taken`` is the registry of everything installed (for names);
    ``withdraw`` undoes it (for the ``with`` block)."""
    try:
        check_solver(solver, dumps=None)
    except PluginError as exc:
        raise BadInput(f"cannot register it: {exc}") from None
    name = solver.name
    if _registered.get(name) is solver:
        raise BadInput(f"solver {name!r} is registered in this session already")
    if name in _registered:
        raise BadInput(f"solver name {name!r} is registered in this session already: nq.unregister({name!r}) first")
    if name in taken.registrations or name in taken.clashes:
        owner = taken.registrations.get(name)
        whose = owner.source.describe() if owner else "two installed plugins"
        raise BadInput(f"solver name {name!r} is taken by {whose}: give yours another name")
    by_value(solver)
    _registered[name] = solver
    return SessionSolver(solver, withdraw)


def unregister(solver: Any) -> None:
    """Withdraw a solver registered here, given by name or as the object."""
    name = solver if isinstance(solver, str) else getattr(solver, "name", None)
    if not isinstance(name, str) or name not in _registered:
        raise BadInput(f"{solver!r} is not a solver registered in this session")
    if not isinstance(solver, str) and _registered[name] is not solver:
        raise BadInput(f"another solver is registered in this session under the name {name!r}")
    del _registered[name]


def registrations() -> list[Registration]:
    """Every solver registered here, as registry entries."""
    return [Registration(solver, SESSION) for solver in _registered.values()]


def clear() -> None:
    """Forget every registration (the test suite starts each test without any)."""
    _registered.clear()
