"""Bring a proof (issue 50): ``nqueens check-proof`` and ``nq.check_proof`` on proofs a SAT solver of the user's wrote.

The round trip is the user's: the canonical CNF exported as DIMACS by ``nqueens instances export``, solved
by python-sat's CaDiCaL with its DRUP proof, the proof written as text or binary DRAT, plain or compressed,
and checked. The mutation set is 45 proofs made wrong in seven ways from that genuine one; each is first
judged by an independent checker written here (plain Python, unit propagation over occurrence lists), so
that no mutant that is still a valid proof is counted as one the checker must reject, and the line the
checker names is the line that independent check names.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import random
import socket
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nqueens_plugins as nq

pysat_formula = pytest.importorskip("pysat.formula")
pysat_solvers = pytest.importorskip("pysat.solvers")

RunCli = Callable[..., tuple[int, str, str]]
DIAGONALS = "diag-10-4-1.param@7"  # shipped, published: no solution from 7 excluded diagonals on
FOUR = ("-n", "4", "--blocked", "0:1,0:2")  # both 4-queens solutions have their first queen on row 1 or 2
COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "plain": lambda data: data,
    "gzip": gzip.compress,
    "bzip2": bz2.compress,
    "xz": lzma.compress,
}
Clause = list[int]


# --- the user's side: export, solve, write -------------------------------------------------------------


def export_dimacs(run_cli: RunCli, folder: Path, *board: str) -> list[Clause]:
    """The instance exported as DIMACS through the command, and its clauses as pysat reads them."""
    cnf = folder / "formula.cnf"
    code, _, err = run_cli("instances", "export", *board, "--format", "dimacs", "-o", str(cnf))
    assert code == 0, err
    return [list(clause) for clause in pysat_formula.CNF(from_file=str(cnf)).clauses]


def cadical_proof(clauses: list[Clause]) -> list[str]:
    """CaDiCaL 1.5.3's DRUP proof that ``clauses`` have no model (text lines, deletions included)."""
    with pysat_solvers.Cadical153(bootstrap_with=clauses, with_proof=True) as sat:
        assert sat.solve() is False
        return list(sat.get_proof())


def text(lines: Iterable[str]) -> bytes:
    return "".join(line + "\n" for line in lines).encode()


def binary(lines: Iterable[str]) -> bytes:
    """Text DRAT in binary DRAT: 'a' (or 'd'), each literal l as the varint 2|l| + (l < 0), then 0."""
    out = bytearray()
    for line in lines:
        tokens = line.split()
        deletion = tokens[0] == "d"
        out += b"d" if deletion else b"a"
        for token in tokens[1:] if deletion else tokens:
            literal = int(token)
            number = 2 * abs(literal) + (literal < 0)
            while True:
                out.append((number & 0x7F) | (0x80 if number > 0x7F else 0))
                number >>= 7
                if not number:
                    break
    return bytes(out)


def lemmas_of(lines: Iterable[str]) -> list[str]:
    """The proof without its deletions: still a proof (more clauses kept only help), and one the
    independent check below sees exactly as the checker does."""
    return [line for line in lines if not line.startswith("d")]


# --- the independent check ------------------------------------------------------------------------------


class Reference:
    """DRUP/DRAT without deletions, as slowly and plainly as it can be said: each lemma must make unit
    propagation fail once its literals are all false (RUP), or every resolvent on its first literal must
    (RAT); the proof holds at its first empty clause, or once the clauses so far propagate to a conflict."""

    def __init__(self, clauses: Sequence[Clause]) -> None:
        self.clauses: list[Clause] = []
        self.occurs: dict[int, list[int]] = defaultdict(list)
        for clause in clauses:
            self.add(clause)

    def add(self, clause: Clause) -> None:
        for literal in set(clause):
            self.occurs[literal].append(len(self.clauses))
        self.clauses.append(list(clause))

    def conflict(self, assumed: Iterable[int]) -> bool:
        """Whether unit propagation from the units, the empty clauses and ``assumed`` reaches a conflict."""
        true: set[int] = set()
        queue: list[int] = []

        def assign(literal: int) -> bool:
            if -literal in true:
                return False
            if literal not in true:
                true.add(literal)
                queue.append(literal)
            return True

        starts = [*assumed, *(clause[0] for clause in self.clauses if len(set(clause)) == 1)]
        if any(not clause for clause in self.clauses) or not all(assign(literal) for literal in starts):
            return True
        while queue:
            falsified = -queue.pop()
            for index in self.occurs[falsified]:
                open_literals = [x for x in self.clauses[index] if -x not in true]
                if any(x in true for x in open_literals):
                    continue
                if not open_literals or (len(set(open_literals)) == 1 and not assign(open_literals[0])):
                    return True
        return False

    def implied(self, lemma: Clause) -> bool:
        if self.conflict(-x for x in lemma):
            return True
        if not lemma:
            return False
        first = lemma[0]
        return all(
            self.conflict(-x for x in [*lemma, *(y for y in self.clauses[i] if y != -first)])
            for i in list(self.occurs[-first])
        )

    def verdict(self, lemmas: Sequence[Clause]) -> tuple[bool, int | None]:
        """(valid, the index of the first lemma that fails, None if none does)."""
        refuted = self.conflict(())
        for index, lemma in enumerate(lemmas):
            if not refuted and not self.implied(lemma):
                return False, index
            if not lemma:
                return True, None
            self.add(lemma)
            refuted = refuted or self.conflict(())
        return False, None


def reference_verdict(formula: Sequence[Clause], lines: Sequence[str]) -> tuple[bool, int | None]:
    return Reference(formula).verdict([[int(x) for x in line.split()[:-1]] for line in lines])


# --- fixtures ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def diagonals() -> tuple[list[Clause], list[str]]:
    """The Excluded Diagonals instance's clauses, exported through the API, and CaDiCaL's proof of it."""
    dimacs, _ = nq.export("dimacs", instance=DIAGONALS)
    clauses = [list(clause) for clause in pysat_formula.CNF(from_string=dimacs).clauses]
    lines = cadical_proof(clauses)
    assert len(lemmas_of(lines)) > 50 and lines[-1] == "0"
    return clauses, lines


def checked(run_cli: RunCli, *args: str) -> tuple[int, dict[str, object]]:
    """``nqueens check-proof ARGS --json``: the exit status and what it printed."""
    code, out, err = run_cli("check-proof", *args, "--json")
    assert code != 2, err
    return code, json.loads(out)


# --- the round trip ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
@pytest.mark.parametrize("form", ["text", "binary"])
def test_a_proof_from_the_users_own_sat_solver_is_certified(
    run_cli: RunCli, tmp_path: Path, kind: str, form: str
) -> None:
    clauses = export_dimacs(run_cli, tmp_path, *FOUR)
    lines = cadical_proof(clauses)
    proof = tmp_path / "proof.drat"
    proof.write_bytes(COMPRESSORS[kind](text(lines) if form == "text" else binary(lines)))
    code, out, err = run_cli("check-proof", *FOUR, str(proof))
    assert code == 0, err
    assert out.startswith(f"certified: {proof} refutes n=4 ")
    lemmas = len(lemmas_of(lines))
    assert f"({lemmas:,} lemmas, {proof.stat().st_size:,} bytes" in out
    code, out, _ = run_cli("check-proof", "-n", "4", str(proof))  # the plain board has solutions
    assert code == 3 and out.startswith("rejected: lemma 1 ")


def test_an_instance_file_and_the_api_take_the_same_proof(
    run_cli: RunCli, tmp_path: Path, diagonals: tuple[list[Clause], list[str]]
) -> None:
    _, lines = diagonals
    proof = tmp_path / "proof.drat.gz"
    proof.write_bytes(gzip.compress(text(lines)))
    code, answer = checked(run_cli, DIAGONALS, str(proof))
    assert code == 0 and answer["status"] == "certified" and answer["instance"] == DIAGONALS
    assert answer["lemmas"] == len(lemmas_of(lines)) and answer["bytes"] == proof.stat().st_size
    result = nq.check_proof(DIAGONALS, proof, limits=nq.Limits(check_timeout=30))
    assert result.certified and result.reason is None and result.lemmas == answer["lemmas"]
    problem = nq.problem_of(instance=DIAGONALS)
    assert nq.check_proof(problem, str(proof)).status == "certified"
    more = nq.problem_of(instance=DIAGONALS.replace("@7", "@8"))  # one more diagonal: other variables
    wrong = nq.check_proof(more, proof)
    assert wrong.status == "rejected" and wrong.reason is not None and wrong.reason.startswith("lemma ")
    assert nq.check_proof(4, proof, blocked="0:1,0:2").status == "rejected"


def test_a_symbolic_link_the_user_gives_is_followed(run_cli: RunCli, tmp_path: Path) -> None:
    lines = cadical_proof(export_dimacs(run_cli, tmp_path, *FOUR))
    target = tmp_path / "proof.drat"
    target.write_bytes(text(lines))
    link = tmp_path / "link.drat"
    link.symlink_to(target)
    code, out, err = run_cli("check-proof", *FOUR, str(link))
    assert code == 0 and out.startswith(f"certified: {link} refutes"), err


# --- the mutation set -------------------------------------------------------------------------------------


def flipped(line: str, position: int) -> str:
    tokens = line.split()
    tokens[position] = str(-int(tokens[position]))
    return " ".join(tokens)


def mutants(formula: list[Clause], lines: list[str], others: list[list[str]]) -> list[tuple[str, bytes, str]]:
    """45 proofs made wrong from ``lines`` (deletions dropped): (kind, the file's bytes, the place the reason
    must name). The lemma-by-lemma kinds are kept only where the independent check finds them wrong, and
    the place is where it says they fail."""
    rng = random.Random(50)
    base = lemmas_of(lines)
    made: list[tuple[str, bytes, str]] = []

    def keep(kind: str, proof: list[str], wanted: int) -> bool:
        if sum(1 for each in made if each[0] == kind) >= wanted:
            return False
        valid, failing = reference_verdict(formula, proof)
        if valid:
            return False
        if failing is None:  # read to its end without the empty clause: the last lemma is named
            place = f"({len(proof):,} lemmas read, the last at line {len(proof):,})"
        else:
            place = f"lemma {failing + 1:,} (line {failing + 1:,}) is not implied"
        made.append((kind, text(proof), place))
        return True

    candidates = list(range(len(base) - 1))
    rng.shuffle(candidates)
    for index in candidates:  # dropped lemmas: only those the rest of the proof needs
        keep("dropped", base[:index] + base[index + 1 :], 8)
    for index in candidates:  # flipped literals
        literals = len(base[index].split()) - 1
        if literals:
            keep("flipped", [*base[:index], flipped(base[index], rng.randrange(literals)), *base[index + 1 :]], 8)
    for end in sorted(rng.sample(range(1, len(base) - 1), 3)):  # cut before the empty clause, at a line
        keep("cut", base[:end], 5)
    long_lines = [index for index, line in enumerate(base) if len(line.split()) > 2]
    for end in sorted(rng.sample(long_lines, 2)):  # cut inside a clause: its terminating 0 and more gone
        cut = base[end].rsplit(" ", 2)[0]
        made.append(("cut", text(base[:end]) + cut.encode(), f"its last clause (line {end + 1:,}) has no"))
    for index in sorted(rng.sample(range(len(base) - 1), 12)):  # an empty clause, early
        keep("bogus empty clause", [*base[:index], "0", *base[index:]], 6)
    for other in others:  # another instance's proof
        keep("another instance's proof", lemmas_of(other), 6)
    variables = max(abs(x) for clause in formula for x in clause)
    fresh = variables + 1

    def tricks(a: int, b: int, c: int) -> list[list[str]]:
        """Lemmas that use a fresh variable x, RAT where the rule allows and not here."""
        return [
            [f"-{fresh} {a} 0", f"{fresh} 0"],  # x -> a, then x: its resolvent, a, is not implied
            [f"{a} {fresh} 0"],  # RAT on x, but x is its second literal: the first is the one checked
            [f"-{fresh} {a} 0", f"-{fresh} {b} 0", f"{fresh} {-a} {-b} 0", f"-{fresh} {c} 0"],  # x <-> a & b, x -> c
        ]

    for attempt in range(300):  # two of each, with literals drawn until the independent check finds it wrong
        literals = [rng.choice([-1, 1]) * rng.randint(1, variables) for _ in range(3)]
        kind = attempt % 3
        if sum(1 for each in made if each[0] == f"RAT trick {kind}") < 2:
            keep(f"RAT trick {kind}", [*tricks(*literals)[kind], *base], 2)
    made[:] = [("RAT trick", *rest) if kind.startswith("RAT") else (kind, *rest) for kind, *rest in made]
    width = len(text(base[:10]))
    garbage = [
        (text(base[:4]) + b"1 x 0\n" + text(base[4:]), "not DRAT at line 5"),
        (text(base[:9]) + b"-3 0.5 0\n" + text(base[9:]), "not DRAT at line 10"),
        (text(base[:2]) + b"2 --3 0\n" + text(base[2:]), "not DRAT at line 3"),
        (text(base)[:width] + b"\x00\xff\xfe" + text(base)[width:], "binary proof has byte 0x2d at byte 0"),
        (binary(base[:6]) + b"\x7f\x01" + binary(base[6:]), f"byte 0x7f at byte {len(binary(base[:6])):,}"),
        (text([*base[:3], f"{variables + 2_000_000} 0", *base[3:]]), "the clause after lemma 3 (line 4)"),
    ]
    made += [("garbage bytes", data, place) for data, place in garbage]
    return made


def test_45_wrong_proofs_are_each_rejected_naming_where(
    run_cli: RunCli, tmp_path: Path, diagonals: tuple[list[Clause], list[str]]
) -> None:
    formula, lines = diagonals
    others = [
        cadical_proof(export_dimacs(run_cli, tmp_path / name, *board))
        for name, board in [
            ("four", FOUR),
            ("eight", ("--instance", DIAGONALS.replace("@7", "@8"))),
            ("ten", ("--instance", DIAGONALS.replace("@7", "@10"))),
            ("fixed", ("-n", "6", "--fixed", "0:0")),
            ("corner", ("-n", "6", "--fixed", "5:5")),
            ("two", ("-n", "5", "--fixed", "0:0,1:3", "--blocked", "2:1")),
            ("three", ("-n", "3")),
        ]
        if not (tmp_path / name).mkdir(parents=True)
    ]
    made = mutants(formula, lines, others)
    kinds = {kind: sum(1 for each in made if each[0] == kind) for kind, _, _ in made}
    assert len(made) == 45, kinds
    assert min(kinds.values()) >= 5 and len(kinds) == 7, kinds
    proof = tmp_path / "proof.drat"
    for kind, data, place in made:
        proof.write_bytes(data)
        code, answer = checked(run_cli, DIAGONALS, str(proof))
        assert code == 3 and answer["status"] == "rejected", (kind, answer)
        reason = str(answer["reason"])
        assert place in reason and "\n" not in reason, (kind, place, reason)
    proof.write_bytes(text(lemmas_of(lines)))  # the controls: the same proof, unmutated, deletions dropped
    assert reference_verdict(formula, lemmas_of(lines)) == (True, None)
    assert checked(run_cli, DIAGONALS, str(proof))[0] == 0
    fresh = max(abs(x) for clause in formula for x in clause) + 1
    proof.write_bytes(text([f"{fresh} 5 0", *lemmas_of(lines)]))  # RAT on a fresh first literal: fine
    assert reference_verdict(formula, [f"{fresh} 5 0", *lemmas_of(lines)]) == (True, None)
    assert checked(run_cli, DIAGONALS, str(proof))[0] == 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_mutation_gets_the_verdict_the_independent_check_gives(
    diagonals: tuple[list[Clause], list[str]], data: st.DataObject
) -> None:
    """Dropped lemmas, flipped literals and inserted clauses, valid or not: the two checks agree, and on
    the line that fails."""
    formula, lines = diagonals
    proof = lemmas_of(lines)
    for _ in range(data.draw(st.integers(1, 3))):
        index = data.draw(st.integers(0, len(proof) - 2))
        action = data.draw(st.sampled_from(["drop", "flip", "insert"]))
        if action == "drop":
            del proof[index]
        elif action == "flip" and len(proof[index].split()) > 1:
            proof[index] = flipped(proof[index], data.draw(st.integers(0, len(proof[index].split()) - 2)))
        elif action == "insert":
            literals = data.draw(st.lists(st.integers(-30, 30).filter(bool), max_size=3))
            proof.insert(index, " ".join(map(str, [*literals, 0])))
    valid, failing = reference_verdict(formula, proof)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "proof.drat"
        path.write_bytes(text(proof))
        result = nq.check_proof(DIAGONALS, path)
    assert result.certified == valid, (proof, result.reason)
    if failing is not None:
        assert result.reason is not None and result.reason.startswith(f"lemma {failing + 1:,} (line {failing + 1:,})")


# --- bad input and budgets --------------------------------------------------------------------------------


def one_line_error(run_cli: RunCli, *args: str) -> str:
    code, out, err = run_cli("check-proof", *args)
    assert code == 2 and not out, (out, err)
    assert err.count("\n") == 1 and err.startswith("nqueens: error: ") and "Traceback" not in err
    return err


def test_what_is_not_a_regular_file_is_refused_in_one_line(run_cli: RunCli, tmp_path: Path) -> None:
    assert "does not exist" in one_line_error(run_cli, *FOUR, str(tmp_path / "absent.drat"))
    assert "it is a folder" in one_line_error(run_cli, *FOUR, str(tmp_path))
    fifo = tmp_path / "proof.fifo"
    os.mkfifo(fifo)
    assert "FIFO" in one_line_error(run_cli, *FOUR, str(fifo))  # refused without waiting for a writer
    link = tmp_path / "to-fifo.drat"
    link.symlink_to(fifo)
    assert "FIFO" in one_line_error(run_cli, *FOUR, str(link))  # a link is followed; its target must be regular
    assert "device" in one_line_error(run_cli, *FOUR, "/dev/zero")
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(tmp_path / "s"))
        assert "it is a socket, not a regular file" in one_line_error(run_cli, *FOUR, str(tmp_path / "s"))


def test_the_instance_is_given_one_way(run_cli: RunCli, tmp_path: Path) -> None:
    proof = tmp_path / "proof.drat"
    proof.write_text("0\n")
    assert "INSTANCE PROOF, or -n SIZE" in one_line_error(run_cli, str(proof))
    assert "not both" in one_line_error(run_cli, "-n", "4", DIAGONALS, str(proof))
    assert "not 3 arguments" in one_line_error(run_cli, DIAGONALS, str(proof), str(proof))
    assert "does not exist" in one_line_error(run_cli, str(tmp_path / "absent.param@3"), str(proof))
    assert "board size" in one_line_error(run_cli, "-n", "four", str(proof))
    with pytest.raises(nq.BadInput, match="limits is an nq.Limits"):
        nq.check_proof(4, proof, limits=60)  # type: ignore[arg-type]


def test_an_empty_proof_is_a_proof_without_the_empty_clause(run_cli: RunCli, tmp_path: Path) -> None:
    """Rejected, not bad input: the file is there and readable, and proves nothing; unless unit propagation
    alone refutes the formula (a row with every square blocked), when there is nothing left to prove."""
    empty = tmp_path / "empty.drat"
    empty.touch()
    code, out, _ = run_cli("check-proof", *FOUR, str(empty))
    assert code == 3 and out == "rejected: the proof never derives the empty clause (0 lemmas read)\n"
    code, out, _ = run_cli("check-proof", "-n", "4", "--blocked", "0:1,1:1,2:1,3:1", str(empty))
    assert code == 0 and out.startswith("certified:")


def test_a_bz2_bomb_is_over_budget_not_a_hang(run_cli: RunCli, tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.drat.bz2"
    bomb.write_bytes(bz2.compress(b"\n" * (64 << 20)) * 64)  # 4 GiB of blank lines in a few kilobytes
    assert bomb.stat().st_size < 1 << 20
    code, out, err = run_cli("check-proof", *FOUR, str(bomb), "--certificate-size", "1M")
    assert code == 1, err
    assert out == "over budget: the proof (unpacked) grew past the 1,048,576-byte limit while it was read\n"


def test_a_proof_over_its_size_on_disk_is_over_budget(run_cli: RunCli, tmp_path: Path) -> None:
    sparse = tmp_path / "huge.drat"
    sparse.touch()
    os.truncate(sparse, 3 << 20)
    code, out, _ = run_cli("check-proof", *FOUR, str(sparse), "--certificate-size", "2M")
    assert code == 1 and out.startswith("over budget: ") and "more than the 2 MiB" in out


def test_a_tiny_check_timeout_is_over_budget(
    run_cli: RunCli, tmp_path: Path, diagonals: tuple[list[Clause], list[str]]
) -> None:
    _, lines = diagonals
    proof = tmp_path / "proof.drat"
    proof.write_bytes(text(lines * 20))  # the proof twenty times over: it certifies on its first empty clause
    assert checked(run_cli, DIAGONALS, str(proof))[0] == 0
    code, out, _ = run_cli("check-proof", DIAGONALS, str(proof), "--check-timeout", "1e-9")
    assert code == 1 and out.startswith("over budget: out of checking time"), out


def test_a_checker_without_memory_is_over_budget(run_cli: RunCli, tmp_path: Path) -> None:
    """The limit is the checker process's own: a proof that names a variable near the extension limit needs
    arrays of some 20 MB, which 1 MiB cannot hold (started afresh for it, whatever an earlier check left in
    the warm one's heap); the next check, with room, starts a fresh checker and certifies the same proof."""
    from nqueens_plugins.execution.checker_process import checker

    lines = cadical_proof(export_dimacs(run_cli, tmp_path, *FOUR))
    proof = tmp_path / "proof.drat"
    proof.write_bytes(text([f"{14 + 999_999} 0", *lines]))  # RAT on a fresh variable: a valid first lemma
    checker().close()
    code, out, _ = run_cli("check-proof", *FOUR, str(proof), "--check-memory", "1M")
    assert code == 1 and out.startswith("over budget: ") and "out of memory" in out, out
    assert run_cli("check-proof", *FOUR, str(proof))[0] == 0
