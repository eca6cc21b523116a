"""Proofs layer, any process: the checker's inner loops (parsing, unit propagation, RUP and RAT), one source for numba and Python.

Everything lives in flat numpy arrays so that numba compiles it and the plain
Python path runs it unchanged:

* the clause arena ``lits`` (int32), each clause at ``cstart[c]`` for
  ``clen[c]`` literals, ``alive[c]`` 0 once deleted;
* two watched literals per clause of two or more, kept in positions 0 and 1:
  clause ``c`` owns the list cells ``2c`` and ``2c + 1``, linked per literal
  through ``head`` / ``nxt``. A cell of a deleted clause is unlinked lazily,
  the next time propagation walks past it (no search of the list);
* an order-free hash of each clause's literal set (``hhead`` / ``hnext``), so a
  deletion finds its clause whatever order its literals are written in;
* the assignment ``assign[v]`` (1 true, -1 false, 0 open), the trail, and per
  variable the clause that forced it (``reason``), so that deleting a clause
  that forces a top-level literal can be ignored, as drat-trim does;
* scalars in ``st`` (indices below).

Work (watch cells visited, clause literals scanned) is counted in ``st[WORK]``
so the Python driver regains control every few thousand propagations to check
the clock: an operation over its allowance is undone and tried again later with
a larger one.
"""

from __future__ import annotations

import numpy as np

from nqueens_plugins.proofs.jit import kernel

# Indices into the scalar state ``st``.
N_CLAUSES, N_LITS, TRAIL, QHEAD, REFUTED, WORK, IGNORED, MISSING, LIVE = range(9)
STATE_SIZE = 9

# Operation kinds.
FORMULA, LEMMA, DELETE = 0, 1, 2

# What ``run_ops`` returns (in ``out[0]``, the operation's index in ``out[1]``).
DONE, PAUSED, PAUSED_MID, NOT_IMPLIED, EMPTY_DERIVED, TOO_MANY_LITERALS = range(6)

# What the parsers return (in ``res[0]``).
PARSE_OK, PARSE_GARBAGE, PARSE_VARIABLE, PARSE_TRUNCATED, PARSE_LONG_LINE, PARSE_BAD_BINARY = range(6)


@kernel
def lit_index(lit: int) -> int:
    return 2 * lit if lit > 0 else 1 - 2 * lit


@kernel
def value(assign: np.ndarray, lit: int) -> int:
    a = assign[lit] if lit > 0 else -assign[-lit]
    return int(a)


@kernel
def enqueue(assign: np.ndarray, reason: np.ndarray, trail: np.ndarray, st: np.ndarray, lit: int, c: int) -> None:
    v = lit if lit > 0 else -lit
    assign[v] = 1 if lit > 0 else -1
    reason[v] = c
    trail[st[TRAIL]] = lit
    st[TRAIL] += 1


@kernel
def backtrack(assign: np.ndarray, trail: np.ndarray, st: np.ndarray, to: int) -> None:
    for i in range(to, st[TRAIL]):
        lit = trail[i]
        assign[lit if lit > 0 else -lit] = 0
    st[TRAIL] = to
    st[QHEAD] = to


@kernel
def propagate(
    lits: np.ndarray,
    cstart: np.ndarray,
    clen: np.ndarray,
    alive: np.ndarray,
    head: np.ndarray,
    nxt: np.ndarray,
    assign: np.ndarray,
    reason: np.ndarray,
    trail: np.ndarray,
    st: np.ndarray,
    hard: int,
) -> int:
    """Unit propagation from ``st[QHEAD]``: -1 at a fixpoint, a clause id on a conflict, -2 over ``hard`` work."""
    while st[QHEAD] < st[TRAIL]:
        false_lit = -trail[st[QHEAD]]
        st[QHEAD] += 1
        li = lit_index(false_lit)
        prev = -1
        cell = head[li]
        while cell != -1:
            st[WORK] += 1
            following = nxt[cell]
            c = cell >> 1
            if alive[c] == 0:  # a deleted clause: drop its cell now
                if prev == -1:
                    head[li] = following
                else:
                    nxt[prev] = following
                cell = following
                continue
            s = cstart[c]
            if lits[s] == false_lit:
                lits[s] = lits[s + 1]
                lits[s + 1] = false_lit
            other = lits[s]
            if value(assign, other) == 1:
                prev = cell
                cell = following
                continue
            moved = False
            for k in range(s + 2, s + clen[c]):
                q = lits[k]
                if value(assign, q) != -1:
                    lits[s + 1] = q
                    lits[k] = false_lit
                    if prev == -1:
                        head[li] = following
                    else:
                        nxt[prev] = following
                    lq = lit_index(q)
                    nxt[cell] = head[lq]
                    head[lq] = cell
                    moved = True
                    break
            if moved:
                cell = following
                continue
            if value(assign, other) == -1:
                return c
            enqueue(assign, reason, trail, st, other, c)
            prev = cell
            cell = following
        if st[WORK] > hard:
            return -2
    return -1


@kernel
def clause_hash(values: np.ndarray, start: int, length: int) -> int:
    """A hash of a set of literals that does not depend on their order."""
    total = 0
    for k in range(start, start + length):
        x = (int(values[k]) * 2654435761) & 0xFFFFFFFF
        x ^= x >> 15
        total = (total + x) & 0xFFFFFFFF
    return total


@kernel
def add_clause(
    src: np.ndarray,
    a: int,
    length: int,
    lits: np.ndarray,
    cstart: np.ndarray,
    clen: np.ndarray,
    alive: np.ndarray,
    head: np.ndarray,
    nxt: np.ndarray,
    hhead: np.ndarray,
    hnext: np.ndarray,
    assign: np.ndarray,
    reason: np.ndarray,
    trail: np.ndarray,
    mark: np.ndarray,
    st: np.ndarray,
) -> None:
    """Store ``src[a:a+length]`` (duplicates dropped) as a clause and watch it; a unit is enqueued, an all-false clause refutes."""
    s = st[N_LITS]
    m = 0
    for k in range(a, a + length):
        q = src[k]
        li = lit_index(q)
        if mark[li] == 0:
            mark[li] = 1
            lits[s + m] = q
            m += 1
    for k in range(s, s + m):
        mark[lit_index(lits[k])] = 0
    c = st[N_CLAUSES]
    st[N_CLAUSES] += 1
    st[N_LITS] += m
    st[LIVE] += m
    cstart[c] = s
    clen[c] = m
    alive[c] = 1
    h = clause_hash(lits, s, m) & (len(hhead) - 1)
    hnext[c] = hhead[h]
    hhead[h] = c
    if st[REFUTED] != 0:
        return
    if m == 0:
        st[REFUTED] = 1
        return
    if m == 1:
        v = value(assign, lits[s])
        if v == -1:
            st[REFUTED] = 1
        elif v == 0:
            enqueue(assign, reason, trail, st, lits[s], c)
        return
    # Watch a true literal if there is one, else open ones: false literals only when nothing else is left.
    best = 0
    for k in range(m):
        v = value(assign, lits[s + k])
        if v == 1:
            best = k
            break
        if v == 0 and value(assign, lits[s + best]) == -1:
            best = k
    lits[s], lits[s + best] = lits[s + best], lits[s]
    for k in range(1, m):
        if value(assign, lits[s + k]) != -1:
            lits[s + 1], lits[s + k] = lits[s + k], lits[s + 1]
            break
    for w in range(2):
        lw = lit_index(lits[s + w])
        nxt[2 * c + w] = head[lw]
        head[lw] = 2 * c + w
    first = value(assign, lits[s])
    if first == -1:
        st[REFUTED] = 1
    elif first == 0 and value(assign, lits[s + 1]) == -1:
        enqueue(assign, reason, trail, st, lits[s], c)


@kernel
def delete_clause(
    src: np.ndarray,
    a: int,
    length: int,
    lits: np.ndarray,
    cstart: np.ndarray,
    clen: np.ndarray,
    alive: np.ndarray,
    hhead: np.ndarray,
    hnext: np.ndarray,
    assign: np.ndarray,
    reason: np.ndarray,
    mark: np.ndarray,
    st: np.ndarray,
) -> None:
    """Delete the live clause with the literal set of ``src[a:a+length]``.

    A clause that forces a top-level literal stays (``st[IGNORED]``), as in
    drat-trim: deleting it would leave that literal without a reason, and
    keeping it only checks against more clauses, never fewer. A clause not
    found is counted (``st[MISSING]``) and otherwise ignored.
    """
    m = 0
    h = 0
    for k in range(a, a + length):
        li = lit_index(src[k])
        if mark[li] == 0:
            mark[li] = 1
            m += 1
            x = (int(src[k]) * 2654435761) & 0xFFFFFFFF
            x ^= x >> 15
            h = (h + x) & 0xFFFFFFFF
    bucket = h & (len(hhead) - 1)
    prev = -1
    c = hhead[bucket]
    while c != -1:
        if alive[c] == 1 and clen[c] == m:
            same = True
            for k in range(cstart[c], cstart[c] + m):
                if mark[lit_index(lits[k])] == 0:
                    same = False
                    break
            if same:
                break
        prev = c
        c = hnext[c]
    for k in range(a, a + length):
        mark[lit_index(src[k])] = 0
    if c == -1:
        st[MISSING] += 1
        return
    for k in range(cstart[c], cstart[c] + m):
        q = lits[k]
        v = q if q > 0 else -q
        if assign[v] != 0 and reason[v] == c:
            st[IGNORED] += 1
            return
    alive[c] = 0
    st[LIVE] -= m
    if prev == -1:
        hhead[bucket] = hnext[c]
    else:
        hnext[prev] = hnext[c]


@kernel
def rehash(
    cstart: np.ndarray,
    clen: np.ndarray,
    alive: np.ndarray,
    lits: np.ndarray,
    hhead: np.ndarray,
    hnext: np.ndarray,
    st: np.ndarray,
) -> None:
    """Fill a new (larger, emptied) ``hhead`` with every live clause."""
    for c in range(st[N_CLAUSES]):
        if alive[c] == 1:
            h = clause_hash(lits, cstart[c], clen[c]) & (len(hhead) - 1)
            hnext[c] = hhead[h]
            hhead[h] = c


@kernel
def compact(
    lits: np.ndarray,
    cstart: np.ndarray,
    clen: np.ndarray,
    alive: np.ndarray,
    head: np.ndarray,
    nxt: np.ndarray,
    hhead: np.ndarray,
    hnext: np.ndarray,
    assign: np.ndarray,
    reason: np.ndarray,
    trail: np.ndarray,
    renumber: np.ndarray,
    st: np.ndarray,
) -> None:
    """Drop deleted clauses from the arena (a long proof deletes most of what it adds): renumber the live
    ones in order, move their literals down, and rebuild the watch lists, the hash and the reasons.

    Called at the top level only, between operations: each clause keeps its two watched literals in
    positions 0 and 1, which stay valid watches.
    """
    kept = 0
    position = 0
    for c in range(st[N_CLAUSES]):
        if alive[c] == 0:
            renumber[c] = -1
            continue
        renumber[c] = kept
        s = cstart[c]
        m = clen[c]
        for j in range(m):
            lits[position + j] = lits[s + j]
        cstart[kept] = position
        clen[kept] = m
        alive[kept] = 1
        position += m
        kept += 1
    for c in range(kept, st[N_CLAUSES]):
        alive[c] = 0
    for i in range(st[TRAIL]):
        v = trail[i] if trail[i] > 0 else -trail[i]
        if reason[v] >= 0:
            reason[v] = renumber[reason[v]]
    st[N_CLAUSES] = kept
    st[N_LITS] = position
    head[:] = -1
    hhead[:] = -1
    for c in range(kept):
        if clen[c] >= 2:
            for w in range(2):
                lw = lit_index(lits[cstart[c] + w])
                nxt[2 * c + w] = head[lw]
                head[lw] = 2 * c + w
        h = clause_hash(lits, cstart[c], clen[c]) & (len(hhead) - 1)
        hnext[c] = hhead[h]
        hhead[h] = c


@kernel
def rup(
    src: np.ndarray,
    a: int,
    length: int,
    lits: np.ndarray,
    cstart: np.ndarray,
    clen: np.ndarray,
    alive: np.ndarray,
    head: np.ndarray,
    nxt: np.ndarray,
    assign: np.ndarray,
    reason: np.ndarray,
    trail: np.ndarray,
    st: np.ndarray,
    hard: int,
) -> int:
    """1 when assigning the clause's negation propagates to a conflict, 0 when not (the state is left for RAT), -2 over work."""
    for k in range(a, a + length):
        v = value(assign, src[k])
        if v == 1:
            return 1
        if v == 0:
            enqueue(assign, reason, trail, st, -src[k], -1)
    r = propagate(lits, cstart, clen, alive, head, nxt, assign, reason, trail, st, hard)
    if r == -2:
        return -2
    return 1 if r >= 0 else 0


@kernel
def rat(
    src: np.ndarray,
    a: int,
    length: int,
    lits: np.ndarray,
    cstart: np.ndarray,
    clen: np.ndarray,
    alive: np.ndarray,
    head: np.ndarray,
    nxt: np.ndarray,
    assign: np.ndarray,
    reason: np.ndarray,
    trail: np.ndarray,
    st: np.ndarray,
    hard: int,
) -> int:
    """RAT on the clause's first literal p, from the state ``rup`` left (its negation propagated).

    For every live clause D holding -p, the resolvent (the clause plus D without
    -p) must be RUP: assign the negation of D's other literals on top and
    propagate. 1 when all are, 0 when one is not, -2 over work.
    """
    if length == 0:
        return 0
    pivot = -src[a]
    for d in range(st[N_CLAUSES]):
        if alive[d] == 0:
            continue
        s = cstart[d]
        st[WORK] += 1 + clen[d] // 8
        holds = False
        for k in range(s, s + clen[d]):
            if lits[k] == pivot:
                holds = True
                break
        if not holds:
            continue
        if st[WORK] > hard:
            return -2
        save = st[TRAIL]
        implied = False
        for k in range(s, s + clen[d]):
            q = lits[k]
            if q == pivot:
                continue
            v = value(assign, q)
            if v == 1:
                implied = True
                break
            if v == 0:
                enqueue(assign, reason, trail, st, -q, -1)
        if not implied:
            r = propagate(lits, cstart, clen, alive, head, nxt, assign, reason, trail, st, hard)
            if r == -2:
                return -2
            implied = r >= 0
        backtrack(assign, trail, st, save)
        if not implied:
            return 0
    return 1


@kernel
def run_ops(
    kinds: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    src: np.ndarray,
    first: int,
    count: int,
    lits: np.ndarray,
    cstart: np.ndarray,
    clen: np.ndarray,
    alive: np.ndarray,
    head: np.ndarray,
    nxt: np.ndarray,
    hhead: np.ndarray,
    hnext: np.ndarray,
    assign: np.ndarray,
    reason: np.ndarray,
    trail: np.ndarray,
    mark: np.ndarray,
    st: np.ndarray,
    soft: int,
    hard: int,
    max_literals: int,
    out: np.ndarray,
) -> None:
    """Apply operations ``first .. count - 1`` in order: formula clauses and deletions as given, lemmas once checked.

    Stops at the first lemma not implied, at the empty clause, past
    ``max_literals`` stored, and (``PAUSED``) once ``soft`` work is done between
    two operations, or (``PAUSED_MID``, the operation undone) past ``hard``
    inside one: the caller checks the clock and calls again.
    """
    st[WORK] = 0
    out[0] = DONE
    out[1] = count
    if st[REFUTED] == 0 and st[QHEAD] < st[TRAIL]:  # top-level propagation an earlier call left unfinished
        r = propagate(lits, cstart, clen, alive, head, nxt, assign, reason, trail, st, hard)
        if r == -2:
            out[0] = PAUSED_MID
            out[1] = first
            return
        if r >= 0:
            st[REFUTED] = 1
    for i in range(first, count):
        if st[WORK] >= soft and i > first:
            out[0] = PAUSED
            out[1] = i
            return
        kind = kinds[i]
        a = starts[i]
        length = lengths[i]
        if kind == DELETE:
            delete_clause(src, a, length, lits, cstart, clen, alive, hhead, hnext, assign, reason, mark, st)
            continue
        if kind == LEMMA and st[REFUTED] == 0:
            top = st[TRAIL]
            implied = rup(src, a, length, lits, cstart, clen, alive, head, nxt, assign, reason, trail, st, hard)
            if implied == 0:
                implied = rat(src, a, length, lits, cstart, clen, alive, head, nxt, assign, reason, trail, st, hard)
            backtrack(assign, trail, st, top)
            if implied == -2:
                out[0] = PAUSED_MID
                out[1] = i
                return
            if implied == 0:
                out[0] = NOT_IMPLIED
                out[1] = i
                return
        if kind == LEMMA and length == 0:
            out[0] = EMPTY_DERIVED
            out[1] = i
            return
        if st[LIVE] + length > max_literals:
            out[0] = TOO_MANY_LITERALS
            out[1] = i
            return
        add_clause(src, a, length, lits, cstart, clen, alive, head, nxt, hhead, hnext, assign, reason, trail, mark, st)
        if st[REFUTED] == 0:
            r = propagate(lits, cstart, clen, alive, head, nxt, assign, reason, trail, st, hard)
            if r >= 0:
                st[REFUTED] = 1
            elif r == -2:  # the operation is done; the next call finishes its propagation first
                out[0] = PAUSED
                out[1] = i + 1
                return


@kernel
def is_space(b: int) -> bool:
    return b == 32 or b == 10 or b == 13 or b == 9 or b == 11 or b == 12


@kernel
def parse_text(
    data: np.ndarray,
    n: int,
    eof: bool,
    max_variable: int,
    max_line: int,
    kinds: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    where: np.ndarray,
    values: np.ndarray,
    line0: int,
    res: np.ndarray,
) -> None:
    """Parse text DRAT in ``data[:n]`` into operations, up to the end of the last complete clause.

    ``res``: status, bytes consumed, operations, literals, the line number at the
    end of what was consumed, the largest variable seen, and on an error the
    line and the offending value. ``where`` holds each operation's line. A
    clause cut by the end of ``data`` is left for the next call, unless ``eof``.
    """
    i = 0
    line = line0
    line_start = 0
    n_ops = 0
    n_values = 0
    consumed = 0
    consumed_line = line0
    largest = 0
    status = PARSE_OK
    bad = 0
    bad_line = 0
    while True:
        while i < n and is_space(data[i]):
            if data[i] == 10:
                line += 1
                line_start = i + 1
            i += 1
        if i - line_start > max_line:
            status = PARSE_LONG_LINE
            bad_line = line
            break
        if i >= n:
            consumed = n
            consumed_line = line
            break
        if data[i] == 99:  # 'c': a comment to the end of its line
            j = i
            while j < n and data[j] != 10:
                j += 1
            if j - line_start > max_line:
                status = PARSE_LONG_LINE
                bad_line = line
                break
            if j >= n and not eof:
                break
            i = j
            consumed = i
            consumed_line = line
            continue
        clause_line = line
        kind = LEMMA
        if data[i] == 100:  # 'd'
            kind = DELETE
            i += 1
            if i < n and not is_space(data[i]):
                status = PARSE_GARBAGE
                bad_line = line
                break
        first_value = n_values
        finished = False
        incomplete = False
        while True:
            while i < n and is_space(data[i]):
                if data[i] == 10:
                    line += 1
                    line_start = i + 1
                i += 1
            if i - line_start > max_line:
                status = PARSE_LONG_LINE
                bad_line = line
                break
            if i >= n:
                if eof:
                    status = PARSE_TRUNCATED
                    bad_line = clause_line
                else:
                    incomplete = True
                break
            negative = False
            if data[i] == 45:  # '-'
                negative = True
                i += 1
            digits = 0
            number = 0
            while i < n and 48 <= data[i] <= 57 and digits < 11:
                number = number * 10 + (int(data[i]) - 48)
                digits += 1
                i += 1
            if i >= n and not eof:
                incomplete = True
                break
            if digits == 0 or digits > 10 or (i < n and not is_space(data[i])):
                status = PARSE_GARBAGE
                bad_line = line
                break
            if number == 0:
                finished = True
                break
            if number > max_variable:
                status = PARSE_VARIABLE
                bad_line = clause_line
                bad = number
                break
            largest = max(largest, number)
            values[n_values] = -number if negative else number
            n_values += 1
        if status != PARSE_OK:
            break
        if incomplete:
            n_values = first_value
            break
        if finished:
            kinds[n_ops] = kind
            starts[n_ops] = first_value
            lengths[n_ops] = n_values - first_value
            where[n_ops] = clause_line
            n_ops += 1
            consumed = i
            consumed_line = line
    res[0] = status
    res[1] = consumed
    res[2] = n_ops
    res[3] = n_values
    res[4] = consumed_line
    res[5] = largest
    res[6] = bad_line
    res[7] = bad


@kernel
def parse_binary(
    data: np.ndarray,
    n: int,
    eof: bool,
    max_variable: int,
    max_clause: int,
    kinds: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    where: np.ndarray,
    values: np.ndarray,
    offset0: int,
    res: np.ndarray,
) -> None:
    """Parse binary DRAT (``a``/``d``, then literals as varints of 2|v| + sign, then 0) like ``parse_text``.

    ``where`` holds each operation's byte offset in the file (binary has no lines).
    """
    i = 0
    n_ops = 0
    n_values = 0
    consumed = 0
    largest = 0
    status = PARSE_OK
    bad = 0
    bad_at = 0
    while i < n:
        marker = int(data[i])
        if marker != 97 and marker != 100:
            status = PARSE_BAD_BINARY
            bad_at = offset0 + i
            bad = marker
            break
        clause_at = i
        i += 1
        first_value = n_values
        incomplete = False
        while True:
            number = 0
            shift = 0
            ended = False
            while i < n and shift < 35:
                b = data[i]
                i += 1
                number |= (int(b) & 127) << shift
                shift += 7
                if b < 128:
                    ended = True
                    break
            if not ended:
                if shift >= 35:
                    status = PARSE_GARBAGE
                    bad_at = offset0 + clause_at
                elif eof:
                    status = PARSE_TRUNCATED
                    bad_at = offset0 + clause_at
                else:
                    incomplete = True
                break
            if number == 0:
                break
            variable = number >> 1
            if variable == 0 or variable > max_variable:
                status = PARSE_VARIABLE if variable else PARSE_GARBAGE
                bad_at = offset0 + clause_at
                bad = variable
                break
            if n_values - first_value >= max_clause:
                status = PARSE_LONG_LINE
                bad_at = offset0 + clause_at
                break
            largest = max(largest, variable)
            values[n_values] = -variable if number & 1 else variable
            n_values += 1
        if status != PARSE_OK:
            break
        if incomplete:
            n_values = first_value
            break
        kinds[n_ops] = DELETE if marker == 100 else LEMMA
        starts[n_ops] = first_value
        lengths[n_ops] = n_values - first_value
        where[n_ops] = offset0 + clause_at
        n_ops += 1
        consumed = i
    res[0] = status
    res[1] = consumed
    res[2] = n_ops
    res[3] = n_values
    res[4] = 0
    res[5] = largest
    res[6] = bad_at
    res[7] = bad
