"""A user's own CPMpy model as a solver: ``cpmpy_solver(name, build)`` in a session, ``ModelSolver`` in a plugin.

``build(problem)`` returns a CPMpy model of ``problem`` (its fixed queens and blocked squares
included, as the user models them) and its queen variables: n integer variables
(``queens[c]`` = the row of column c's queen) or an n x n Boolean grid (``x[r, c]``). The solver
runs it on the backend its ``backend`` option names, exactly as ``cpmpy`` runs its own model
(``run.py``): isolated in a worker, its time limit through the backend's own parameter, its boards
verified, its no-solution claims held against what is known, its counts against OEIS. Nothing the
model says is believed: a model that forgets a constraint gives boards the verifier rejects
(``invalid``), and one that adds a constraint too many is caught where a solution is known.

``build`` travels to the worker with the solver: by value (cloudpickle) when it is defined in a
notebook or script, by reference when it is importable (an installed plugin's module).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from nqueens_cpmpy.adapter import BackendAdapter
from nqueens_plugins import Problem

Build = Callable[[Problem], tuple[Any, Any]]


class ModelSolver(BackendAdapter):
    """A solver whose model is ``build(problem)``, on any CPMpy backend (option ``backend``)."""

    options = (BackendAdapter.backend_option,)

    def __init__(
        self,
        name: str,
        build: Build,
        *,
        summary: str | None = None,
        supports_blocked: bool = True,
        max_n: int | None = 1000,
    ) -> None:
        if not callable(build):
            raise TypeError(f"build must be a function of the problem, not {build!r}")
        self.name = name  # type: ignore[misc]  # a ClassVar on Solver; one instance per user model here
        self.build = build
        self.summary = summary or f"{getattr(build, '__name__', 'a model')}, a CPMpy model, on any CPMpy backend."  # type: ignore[misc]
        self.supports_blocked = supports_blocked  # type: ignore[misc]
        self.max_n = max_n  # type: ignore[misc]

    def pose(self, problem: Problem, options: Mapping[str, Any]) -> tuple[Any, Any]:
        built = self.build(problem)
        if not (isinstance(built, tuple) and len(built) == 2):
            raise TypeError(f"{self.name}: build(problem) must return (model, queens), not {type(built).__name__}")
        return built

    def __repr__(self) -> str:
        return f"<solver {self.name} (a CPMpy model: {getattr(self.build, '__name__', self.build)!r})>"


def cpmpy_solver(name: str, build: Build, **settings: Any) -> Any:
    """Register ``build`` as the solver ``name`` for this session (``nq.register``) and return the
    registration (a ``with`` block undoes it). ``settings``: ``summary``, ``supports_blocked``, ``max_n``."""
    import nqueens_plugins as nq

    return nq.register(ModelSolver(name, build, **settings))
