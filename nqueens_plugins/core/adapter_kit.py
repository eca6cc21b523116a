"""Core layer, any process: the adapter kit. What every solver that wraps a library says the same way.

A plugin that wraps a solver library (CP-SAT, Z3, a SAT solver) states three
things the host asks about before any run, and states them in the same words
whichever library it wraps:

* what must be installed: a module (found with ``importlib.util.find_spec``,
  never imported, so listing plugins stays cheap) or a program on the PATH, and
  the one line that says how to install it (``Requirement``);
* the largest board each value of an option takes, and why (``SizeLimit``): a
  model with n^2 variables stops sooner than one with n;
* for ``nqueens count``'s question "how long would this take?", the seconds one
  solution costs when the library enumerates them: the kit multiplies it by the
  number of solutions (OEIS A000170, extrapolated past its table).

``Adapter`` is a ``Solver`` that reads these declarations in ``precheck``
and ``count_seconds``, so an adapter states only what is its own. It is opt in: a
plugin may subclass ``Solver`` directly, as before.

Input formats that more than one library reads are written here once (``dzn_text``, the MiniZinc
data that nqueens-choco exports and nqueens-minizinc runs): a plugin imports only the contract,
never another plugin, so what two of them share lives in the kit.
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from nqueens_plugins.core.problem import Problem
from nqueens_plugins.core.solver import Solver

# Past A000170's table each n multiplies the number of solutions by about this much (the
# ratio of its last terms is 10.3-10.5 and grows slowly): an estimate, for a warning only.
GROWTH_PAST_TABLE = 10.5


@dataclass(frozen=True)
class Requirement:
    """Something a solver needs installed (a top-level ``module`` or a ``program`` on the PATH, one of
    the two) and ``hint``, the one line ``precheck`` says when it is missing: what to install, and how."""

    hint: str
    module: str | None = None
    program: str | None = None

    def __post_init__(self) -> None:
        if (self.module is None) == (self.program is None):
            raise ValueError("a Requirement names a module or a program (one of the two)")

    def missing(self) -> bool:
        """Whether it is not installed. A module is looked up, not imported: importing a solver
        library can take seconds, and ``nqueens plugins`` asks every plugin."""
        if self.program is not None:
            return shutil.which(self.program) is None
        try:
            return importlib.util.find_spec(str(self.module)) is None
        except (ImportError, ValueError):  # a parent package missing, or a module without a spec
            return True


@dataclass(frozen=True)
class SizeLimit:
    """The largest board a solver takes, per value of one of its options (``option``), or for the
    whole solver (``option`` None, ``largest`` one number).

    ``largest`` maps an option value to its largest n; a value it does not list is held to
    ``max_n`` alone. ``why`` says what outgrows the budget or the memory past the limit (one
    text, or one per value; "" says nothing). A refusal names the value of the option that
    takes the largest boards, when it takes this one.
    """

    largest: int | Mapping[str, int]
    why: str | Mapping[str, str] = ""
    option: str | None = None

    def limit(self, options: Mapping[str, Any]) -> int | None:
        """The largest n these options allow (None: this limit does not apply to them)."""
        if isinstance(self.largest, int):
            return self.largest
        return self.largest.get(options[str(self.option)])

    def reason(self, options: Mapping[str, Any]) -> str:
        if isinstance(self.why, str):
            return self.why
        return self.why.get(options[str(self.option)], "")


class Adapter(Solver):
    """A ``Solver`` that wraps a library: it declares what it needs, how large a board each option
    takes and what one enumerated solution costs, and the host's questions are answered from that.

    * ``requires``: the ``Requirement`` objects, checked in order; ``precheck`` says the first
      missing one's hint;
    * ``size_limits``: the ``SizeLimit`` objects, checked in order after the requirements and
      before ``max_n`` and the memory check; set ``max_n`` to the largest board of all;
    * ``seconds_per_solution(n, options)`` (and ``count_setup_seconds``, a fixed cost such as
      grounding): ``count_seconds`` of a plain board is the number of solutions times it.

    Override ``precheck`` for a check of your own and call ``super().precheck(n, options)`` first.
    """

    requires: ClassVar[tuple[Requirement, ...]] = ()
    size_limits: ClassVar[tuple[SizeLimit, ...]] = ()
    # How a refusal names the value that takes the board (``option``, ``value``, ``limit``).
    larger_value_text: ClassVar[str] = "{option}={value} takes n up to {limit:,}"

    def precheck(self, n: int, options: Mapping[str, Any]) -> str | None:
        """The first missing requirement's hint, then the first size limit ``n`` is past, then ``max_n``
        and memory (``Solver.precheck``); None when this variant takes the board."""
        for requirement in self.requires:
            if requirement.missing():
                return requirement.hint
        for size_limit in self.size_limits:
            largest = size_limit.limit(options)
            if largest is not None and n > largest:
                return self.too_large(n, options, size_limit, largest)
        return super().precheck(n, options)

    def too_large(self, n: int, options: Mapping[str, Any], size_limit: SizeLimit, largest: int) -> str:
        """One line: which variant refuses n, up to where it goes, why, and which value of the option takes n."""
        why = size_limit.reason(options)
        option = size_limit.option
        label = self.name if option is None else f"{self.name}[{option}={options[option]}]"
        line = f"{label} accepts n up to {largest:,}{f' ({why})' if why else ''}; {n:,} is too large"
        if option is None:
            return line
        value, limit = self.largest_alternative(options, option, size_limit)
        if limit is None:
            return f"{line}: {option}={value} takes it"
        if limit < n:
            return line
        return f"{line}: {self.larger_value_text.format(option=option, value=value, limit=limit)}"

    def largest_alternative(
        self, options: Mapping[str, Any], option: str, size_limit: SizeLimit
    ) -> tuple[Any, int | None]:
        """The value of ``option`` (among its ``choices``, or the values ``size_limit`` lists) that takes the
        largest boards, the other options as they are, and how large (None: no limit)."""
        declared = next((o for o in self.options if o.name == option), None)
        listed = () if isinstance(size_limit.largest, int) else tuple(size_limit.largest)
        values = declared.choices if declared is not None and declared.choices is not None else listed
        best: tuple[Any, int] = (options[option], 0)
        for value in values:
            limit = self.largest_n(dict(options) | {option: value})
            if limit is None:
                return value, None
            if limit > best[1]:
                best = (value, limit)
        return best

    def largest_n(self, options: Mapping[str, Any]) -> int | None:
        """The largest board these options allow under every size limit and ``max_n`` (None: no limit)."""
        limits = [limit for size_limit in self.size_limits if (limit := size_limit.limit(options)) is not None]
        if self.max_n is not None:
            limits.append(self.max_n)
        return min(limits, default=None)

    def seconds_per_solution(self, n: int, options: Mapping[str, Any]) -> float | None:
        """Seconds this variant takes per solution when it counts a plain n x n board by enumeration,
        measured on your machine (None: it cannot tell, and ``count_seconds`` says None)."""
        return None

    def count_setup_seconds(self, n: int, options: Mapping[str, Any]) -> float:
        """Seconds a count of a plain n x n board takes before its first solution (0 unless overridden)."""
        return 0.0

    def count_seconds(self, problem: Problem, options: Mapping[str, Any]) -> float | None:
        """About how long counting a plain board takes: its solutions times ``seconds_per_solution``, plus
        ``count_setup_seconds``; None for other instances (how many solutions they have is not known)."""
        if not problem.is_plain:
            return None
        per_solution = self.seconds_per_solution(problem.n, options)
        if per_solution is None:
            return None
        return solutions_estimate(problem.n) * per_solution + self.count_setup_seconds(problem.n, options)


def solutions_estimate(n: int) -> float:
    """How many solutions a plain n x n board has: OEIS A000170 where it is known, extrapolated past it."""
    from nqueens_plugins.core.verify import A000170  # numpy, which the verifier needs, only when asked

    if n < len(A000170):
        return float(A000170[n])
    return A000170[-1] * GROWTH_PAST_TABLE ** (n - len(A000170) + 1)


def dzn_text(problem: Problem) -> str:
    """The MiniZinc data of ``problem`` for the plugins' ``nqueens.mzn``: ``n``, ``fixed`` (per column,
    the row of its fixed queen or -1) and ``blocked`` (per column, the set of its blocked rows); rows
    0-based. One writer, so that the data either plugin exports runs with either plugin's model."""
    n = problem.n
    fixed = [problem.fixed.get(column, -1) for column in range(n)]
    blocked: list[list[int]] = [[] for _ in range(n)]
    for column, row in sorted(problem.blocked):
        blocked[column].append(row)
    sets = ", ".join("{" + ", ".join(map(str, rows)) + "}" for rows in blocked)
    return f"n = {n};\nfixed = [{', '.join(map(str, fixed))}];\nblocked = [{sets}];\n"
