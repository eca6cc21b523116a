"""Loading layer, parent side: the registry that plugins fill: which solvers exist and who supplied each one.

The object a plugin receives as ``register`` is a ``PluginRegister`` bound to
that plugin, so every solver is recorded with its source, and a failure is
pinned on the plugin that caused it.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

import cloudpickle

from nqueens_plugins.core.errors import BadInput, PluginError
from nqueens_plugins.core.solver import (
    FAMILIES,
    NAME_PATTERN,
    OPTION_TYPES,
    Solver,
    Variant,
    expand_sweep,
    parse_spec,
    resolve_options,
    split_specs,
)


@dataclass(frozen=True)
class Source:
    """Where a plugin came from: its plugin name and, for installed ones, the distribution."""

    plugin: str
    distribution: str | None = None
    version: str | None = None

    @property
    def builtin(self) -> bool:
        return self.plugin.startswith("builtin-") and self.distribution == "nqueens-plugins"

    @property
    def session(self) -> bool:
        """Registered in this process by ``nq.register`` (``loading/session.py``), not installed."""
        return self == SESSION

    def describe(self) -> str:
        if self.session:
            return "registered in session"
        if self.distribution:
            return f"plugin {self.plugin!r} from {self.distribution} {self.version or ''}".strip()
        return f"plugin {self.plugin!r}"


SESSION = Source("session")  # the source of every solver nq.register adds


@dataclass(frozen=True)
class Registration:
    solver: Solver
    source: Source


@dataclass(frozen=True)
class LoadError:
    """A plugin that could not be imported or could not register; the rest still work."""

    source: Source
    message: str


@dataclass
class Registry:
    """Every registered solver by name, plus the plugins that failed or were blocked."""

    registrations: dict[str, Registration] = field(default_factory=dict)
    load_errors: list[LoadError] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    # What kept the import probes from working at all (not any plugin's doing): every plugin is then imported,
    # as if its names were not known, and this says why.
    probe_failures: list[str] = field(default_factory=list)
    clashes: dict[str, list[Source]] = field(default_factory=dict)  # a solver name two plugins claim -> both
    not_imported: list[str] = field(
        default_factory=list
    )  # entry points left out: they supply none of the names asked for

    def clash_errors(self) -> list[LoadError]:
        """One error per plugin that claimed a solver name another installed plugin claims too."""
        errors = []
        for name, sources in sorted(self.clashes.items()):
            everyone = " and ".join(source.describe() for source in sources)
            for source in sources:
                message = (
                    f"solver name {name!r} is claimed by {everyone}: refused for all of them; uninstall all but one"
                )
                errors.append(LoadError(source, message))
        return errors

    def __iter__(self) -> Iterator[Registration]:
        return iter(sorted(self.registrations.values(), key=lambda r: r.solver.name))

    def __contains__(self, name: str) -> bool:
        return name in self.registrations

    def names(self) -> list[str]:
        return sorted(self.registrations)

    def get(self, name: str) -> Registration:
        try:
            return self.registrations[name]
        except KeyError:
            raise BadInput(self._unknown_message(name)) from None

    def variant(self, spec: str, **options: Any) -> Variant:
        """Resolve ``NAME[key=value,...]`` (plus keyword options) into a typed variant."""
        name, raw = parse_spec(spec)
        if any("|" in value for value in raw.values()):
            raise BadInput(f"{spec!r} is a sweep of several variants (a|b): give it to compare, which runs each")
        clash = set(raw) & set(options)
        if clash:
            raise BadInput(f"option {min(clash)!r} is given twice for {name}")
        return resolve_options(self.get(name).solver, raw | options)

    def variants(self, specs: str | Sequence[str]) -> list[Variant]:
        """Variants from ``"all"``, a comma-separated string ``"a,b[x=1|2]"`` or a list of specs; each once.

        A sweep (``x=1|2``) stands for one variant per combination of its values.
        """
        if isinstance(specs, str):
            specs = self.names() if specs.strip() == "all" else split_specs(specs)
        variants = [self.variant(expanded) for spec in specs for expanded in expand_sweep(spec)]
        labels = [v.label for v in variants]
        for label in labels:
            if labels.count(label) > 1:
                raise BadInput(f"solver {label} is named twice")
        return variants

    def _unknown_message(self, name: str) -> str:
        if name in self.clashes:
            everyone = " and ".join(source.describe() for source in self.clashes[name])
            return f"solver {name!r} is claimed by {everyone}; refused for all of them: uninstall all but one"
        distribution = SHIPPED_APART.get(name)
        if distribution is not None and not installed(distribution):
            return (
                f"unknown solver {name!r}: it comes with the {distribution} distribution, which is not installed "
                f"(from the repository: pip install ./plugins/{distribution})"
            )
        by_lower = {known.lower(): known for known in self.registrations}
        close = [by_lower[match] for match in difflib.get_close_matches(name.lower(), by_lower, n=3, cutoff=0.5)]
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        failed = len(self.load_errors)
        broken = f" ({failed} plugin(s) failed to load: see 'nqueens plugins')" if failed else ""
        blocked = f" (blocked by NQUEENS_DISABLE_PLUGINS: {', '.join(self.blocked)})" if self.blocked else ""
        return f"unknown solver {name!r}{hint}{broken}{blocked}; 'nqueens plugins' lists every solver"


# The solvers of the plugin distributions in this repository's plugins/ folder, by the distribution that
# brings each: a user who names one without it installed is told what to install, not just "unknown".
SHIPPED_APART = {
    "ortools-cpsat": "nqueens-ortools",
    "python-constraint": "nqueens-constraint",
    "z3": "nqueens-z3",
    "highs": "nqueens-highs",
    "clingo": "nqueens-clingo",
    "choco": "nqueens-choco",
    "pysat": "nqueens-pysat",
    "minizinc": "nqueens-minizinc",
}


def installed(distribution: str) -> bool:
    try:
        metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        return False
    return True


class PluginRegister:
    """The ``register`` callable handed to one plugin's ``nqueens_register_solvers`` (a ``SolverRegister``),
    bound to that plugin so that every solver is recorded with its source."""

    def __init__(self, registry: Registry, source: Source) -> None:
        self._registry = registry
        self._source = source
        self.added: list[str] = []

    def __call__(self, solver: Solver) -> None:
        check_solver(solver)
        registry = self._registry
        existing = registry.registrations.get(solver.name)
        if existing is not None and existing.source.builtin:
            raise PluginError(
                f"solver name {solver.name!r} is registered twice: by {existing.source.describe()} "
                f"and by {self._source.describe()}; a built-in's name is never taken over"
            )
        if existing is not None or solver.name in registry.clashes:
            # Two installed plugins claim one name: whichever loads first would win by
            # site-packages order, so an impostor could take a real solver's name.
            # Neither gets it (see ``Registry.clash_errors``).
            claimants = registry.clashes.setdefault(solver.name, [existing.source] if existing else [])
            claimants.append(self._source)
            registry.registrations.pop(solver.name, None)
            return
        registry.registrations[solver.name] = Registration(solver, self._source)
        self.added.append(solver.name)

    def withdraw(self) -> None:
        """Remove what this plugin registered (it failed half way through)."""
        for name in self.added:
            self._registry.registrations.pop(name, None)
        self.added.clear()


def check_solver(solver: Any, dumps: Callable[[Any], bytes] | None = cloudpickle.dumps) -> None:
    """Raise PluginError unless ``solver`` meets the contract described in ``Solver``; ``dumps`` is how
    it travels to a worker (``worker_handle.WorkerProcess.submit``; None: the caller checks that itself)."""
    name = getattr(solver, "name", None)
    label = repr(name) if isinstance(name, str) else repr(solver)
    if isinstance(solver, type):
        raise PluginError(f"register() takes a solver instance, not the class {solver.__name__}")
    if not isinstance(solver, Solver):
        # The host relies on more than solve(): is_complete, counts, precheck and the flags.
        raise PluginError(f"solver {label}: must be an instance of a nqueens_plugins.Solver subclass")
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise PluginError(f"solver {label}: name must be kebab-case (like 'my-solver')")
    summary = getattr(solver, "summary", None)
    if not isinstance(summary, str) or not summary.strip() or "\n" in summary.strip():
        raise PluginError(f"solver {label}: summary must be one non-empty line")
    if not callable(getattr(solver, "solve", None)):
        raise PluginError(f"solver {label}: has no solve(problem, rng, budget, options) method")
    for flag in ("complete", "supports_fixed", "supports_blocked", "counts_unique", "stops_at_budget"):
        if not isinstance(getattr(solver, flag, False), bool):
            raise PluginError(f"solver {label}: {flag} must be True or False")
    family = getattr(solver, "family", None)
    if family is not None and not (
        isinstance(family, str) and family.strip() and len(family) <= 30 and "\n" not in family
    ):
        raise PluginError(f"solver {label}: family must be a short name (like {FAMILIES[0]!r}) or None")
    exports = getattr(solver, "exports", ())
    if not (isinstance(exports, tuple) and all(isinstance(f, str) and f.isidentifier() for f in exports)):
        raise PluginError(f"solver {label}: exports must be a tuple of format names (like ('dimacs',))")
    options = getattr(solver, "options", ())
    seen: set[str] = set()
    for option in options:
        if not (hasattr(option, "name") and hasattr(option, "type") and hasattr(option, "parse")):
            raise PluginError(f"solver {label}: options must be nqueens_plugins.Option objects")
        if option.type not in OPTION_TYPES:
            raise PluginError(f"solver {label}: option {option.name!r} has unsupported type {option.type!r}")
        if option.name in seen:
            raise PluginError(f"solver {label}: option {option.name!r} is declared twice")
        seen.add(option.name)
    if dumps is None:
        return
    try:
        dumps(solver)
    except Exception as exc:  # noqa: BLE001 - any pickling failure means the same thing
        raise PluginError(f"solver {label}: cannot be sent to a worker process ({exc})") from None
