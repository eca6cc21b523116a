"""Built-in engine, worker side: the inner loop of ``bitset-mrv``, one source for two engines (numba, Python).

Written in the subset of Python that numba compiles: integer arithmetic and
indexing of flat arrays, so the same functions also run unchanged on Python
lists when numba is missing or ``kernel=python`` is asked for.

State, for each depth d of the search (flat arrays, index ``d * n + i``):

* ``columns[d*n + c]``: bit mask of the rows still open in column c;
* ``rows[d*n + r]``: bit mask of the columns still open in row r (the same
  squares seen the other way, kept so both kinds of line can be counted);
* ``done_columns[d]``, ``done_rows[d]``: lines that already hold a queen;
* ``kind[d]``, ``line[d]``: the line branched on at d (0 a column, 1 a row);
* ``candidates[d]``: the squares of that line not tried yet;
* ``placed_row[d]``, ``placed_column[d]``: the queen being tried at d.

``scalars`` holds [depth, nodes, solutions, backtracks, events, proof]. ``advance``
runs until it finds a solution (when asked for the first), exhausts the tree,
or has placed ``node_limit`` more queens; the caller polls its budget between
calls and calls again to continue exactly where it stopped.

A traced run passes ``events``, a flat array of (kind, column, row) triples
(``PLACE`` or ``REMOVE``): each queen placed or taken back is written there,
``scalars[EVENTS]`` counting the triples, and the loop pauses before the array
could overflow so the caller can hand them to the trace and empty it. An
untraced run passes an empty array and pays one comparison per step.

A certified run passes ``proof`` as well, a flat array where each refuted
*decision* (a queen tried on a line that had two open squares or more) is
written as a lemma: its length k, then the k squares (``column * n + row``) of
the decisions on the path down to it, ``scalars[PROOF]`` counting the numbers.
The caller turns each into the clause "not all of these queens" (RUP: see
``builtin/bitset_mrv.py``), and the loop pauses, like for events, before the
array could overflow. ``decided[d]`` says whether the queen at depth d was a
decision; an unproved run passes an empty ``proof`` and pays one comparison
per refutation.
"""

from __future__ import annotations

from typing import Any

try:
    from numba import njit
    from numba.extending import register_jitable
except ImportError:  # the pure-Python engine needs neither
    njit = None  # type: ignore[assignment]

    def register_jitable(function: Any = None, **options: Any) -> Any:  # type: ignore[no-redef]
        return function if function is not None else (lambda f: f)


EXHAUSTED, FOUND, PAUSED = 0, 1, 2
DEPTH, NODES, SOLUTIONS, BACKTRACKS, EVENTS, PROOF = 0, 1, 2, 3, 4, 5
SCALARS = 6
PLACE, REMOVE = 1, 2


@register_jitable(inline="always")
def popcount(x: int) -> int:
    """Set bits of a non-negative 63-bit integer (no multiplication, so Python ints agree)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x = x + (x >> 8)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return x & 0x7F


@register_jitable(inline="always")
def record(events: Any, recorded: int, kind: int, column: int, row: int) -> int:
    """Write one (kind, column, row) event at index ``recorded``; returns the new count."""
    events[recorded * 3] = kind
    events[recorded * 3 + 1] = column
    events[recorded * 3 + 2] = row
    return recorded + 1


@register_jitable
def lemma(proof: Any, written: int, n: int, depth: int, decided: Any, placed_column: Any, placed_row: Any) -> int:
    """Write the lemma of the decision refuted at ``depth``: the squares of every decision down to it."""
    start = written
    written += 1
    for d in range(depth + 1):
        if decided[d]:
            proof[written] = placed_column[d] * n + placed_row[d]
            written += 1
    proof[start] = written - start - 1
    return written


@register_jitable(inline="always")
def place(n: int, columns: Any, rows: Any, base: int, done_columns: int, done_rows: int, row: int, column: int) -> None:
    """Remove every square the queen at (row, column) attacks from the open lines at ``base``.

    On a column ``distance`` away the queen attacks its own row and the rows
    ``distance`` above and below it; rows see the columns the same way.
    """
    for other in range(n):
        if not (done_columns >> other) & 1:
            distance = other - column if other > column else column - other
            attacked = 1 << row
            if row + distance < n:
                attacked |= 1 << (row + distance)
            if row >= distance:
                attacked |= 1 << (row - distance)
            columns[base + other] &= ~attacked
    for other in range(n):
        if not (done_rows >> other) & 1:
            distance = other - row if other > row else row - other
            attacked = 1 << column
            if column + distance < n:
                attacked |= 1 << (column + distance)
            if column >= distance:
                attacked |= 1 << (column - distance)
            rows[base + other] &= ~attacked
    columns[base + column] = 0
    rows[base + row] = 0


@register_jitable(inline="always")
def select(n: int, columns: Any, rows: Any, base: int, done_columns: int, done_rows: int) -> Any:
    """The open line with the fewest open squares: (squares, kind, index); kind -1 when none is left."""
    best = n + 1
    kind = -1
    index = -1
    for column in range(n):
        if not (done_columns >> column) & 1:
            size = popcount(columns[base + column])
            if size < best:
                best, kind, index = size, 0, column
                if size == 0:
                    return best, kind, index
    for row in range(n):
        if not (done_rows >> row) & 1:
            size = popcount(rows[base + row])
            if size < best:
                best, kind, index = size, 1, row
                if size == 0:
                    return best, kind, index
    return best, kind, index


def advance(
    n: int,
    columns: Any,
    rows: Any,
    done_columns: Any,
    done_rows: Any,
    kind: Any,
    line: Any,
    candidates: Any,
    placed_row: Any,
    placed_column: Any,
    scalars: Any,
    node_limit: int,
    first: bool,
    events: Any,
    decided: Any,
    proof: Any,
) -> int:
    """Continue the depth-first search from the state in the arrays; see the module docstring."""
    depth = scalars[DEPTH]
    nodes = scalars[NODES]
    solutions = scalars[SOLUTIONS]
    backtracks = scalars[BACKTRACKS]
    stop = nodes + node_limit
    recorded = scalars[EVENTS]
    room = len(events) - 6  # two events at most per step, three numbers each
    written = scalars[PROOF]
    proof_room = len(proof) - n - 2  # one lemma at most per step, n + 1 numbers at most
    code = EXHAUSTED
    while depth >= 0:
        if room > 0 and recorded * 3 > room:
            code = PAUSED  # the caller empties the events, then calls again
            break
        if proof_room > 0 and written > proof_room:
            code = PAUSED  # the caller writes out the lemmas, then calls again
            break
        remaining = candidates[depth]
        if remaining == 0:
            depth -= 1
            if depth >= 0:
                backtracks += 1  # the queen tried at the parent is taken back
                if room > 0:
                    recorded = record(events, recorded, REMOVE, placed_column[depth], placed_row[depth])
                if proof_room > 0 and decided[depth]:  # its subtree is refuted
                    written = lemma(proof, written, n, depth, decided, placed_column, placed_row)
            continue
        if nodes >= stop:
            code = PAUSED
            break
        bit = remaining & -remaining
        candidates[depth] = remaining ^ bit
        position = popcount(bit - 1)
        if kind[depth] == 0:
            row, column = position, line[depth]
        else:
            row, column = line[depth], position
        placed_row[depth] = row
        placed_column[depth] = column
        nodes += 1
        if room > 0:
            recorded = record(events, recorded, PLACE, column, row)
        base, child = depth * n, (depth + 1) * n
        # A loop, not a slice assignment: numba compiles a slice's broadcast check with its error message
        # (string formatting), which took half of this kernel's compile (2.2 s of 4.5 s), and gains nothing here.
        for offset in range(n):
            columns[child + offset] = columns[base + offset]
            rows[child + offset] = rows[base + offset]
        now_columns = done_columns[depth] | (1 << column)
        now_rows = done_rows[depth] | (1 << row)
        done_columns[depth + 1] = now_columns
        done_rows[depth + 1] = now_rows
        place(n, columns, rows, child, now_columns, now_rows, row, column)
        size, next_kind, index = select(n, columns, rows, child, now_columns, now_rows)
        if next_kind == -1:
            solutions += 1
            if first:
                code = FOUND
                break
            backtracks += 1
            if room > 0:
                recorded = record(events, recorded, REMOVE, column, row)
            continue
        if size == 0:
            backtracks += 1  # a dead end: the queen just placed is taken back
            if room > 0:
                recorded = record(events, recorded, REMOVE, column, row)
            if proof_room > 0 and decided[depth]:
                written = lemma(proof, written, n, depth, decided, placed_column, placed_row)
            continue
        depth += 1
        decided[depth] = size > 1
        kind[depth] = next_kind
        line[depth] = index
        candidates[depth] = columns[child + index] if next_kind == 0 else rows[child + index]
    scalars[DEPTH] = depth
    scalars[NODES] = nodes
    scalars[SOLUTIONS] = solutions
    scalars[BACKTRACKS] = backtracks
    scalars[EVENTS] = recorded
    scalars[PROOF] = written
    return code


if njit is not None:
    from nqueens_plugins.builtin.engines.kernel_cache import compiled

    COMPILED: Any = compiled(advance)
else:
    COMPILED = None

PYTHON = advance
