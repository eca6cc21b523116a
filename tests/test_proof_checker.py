"""The independent DRUP/DRAT checker (issue 39): real solvers' proofs pass, every kind of damage is refused in one line."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nqueens_plugins.core.canonical_cnf import CanonicalCnf, canonical_cnf
from nqueens_plugins.core.problem import Problem
from nqueens_plugins.formats import instances
from nqueens_plugins.proofs import CheckReport, check_proof
from nqueens_plugins.proofs import checker as checker_module

pysat_solvers = pytest.importorskip("pysat.solvers")

# Instances pysat says have no solution (found by a seeded random search), with proofs of tens of lemmas.
BLOCKED_UNSAT = [
    Problem(n=6, blocked=frozenset({(0, 0), (1, 0), (1, 5), (2, 0), (3, 0), (5, 0)})),
    Problem(n=6, blocked=frozenset({(3, 0), (4, 5), (5, 1), (5, 3)})),
    Problem(n=6, blocked=frozenset({(1, 3), (2, 0), (3, 4), (5, 2)})),
    Problem(n=6, blocked=frozenset({(0, 4), (2, 5), (4, 0), (5, 2)})),
]
FIXED_UNSAT = Problem(n=6, fixed={0: 0, 1: 2})  # no 6-queens solution has a queen in a corner
DATA = Path(__file__).resolve().parent / "data"


def big_problem() -> Problem:
    """Excluded Diagonals, n = 10, list 4-2 with 5 diagonals: no solution, a proof of some 350 lines."""
    return instances.diagonal_lists(DATA / "diag-10-4-2.param")[0].instance(5)


def pysat_proof(formula: CanonicalCnf, solver: str = "cadical195") -> list[str] | None:
    """The DRUP lines pysat's ``solver`` writes, or None when the formula has a model."""
    with pysat_solvers.Solver(name=solver, bootstrap_with=list(formula.clauses()), with_proof=True) as sat:
        if sat.solve():
            return None
        return list(sat.get_proof())


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def binary(lines: list[str]) -> bytes:
    """Text DRAT lines in drat-trim's binary form: 'a'/'d', varints of 2|v| + sign, then 0."""
    out = bytearray()
    for line in lines:
        tokens = line.split()
        out += b"d" if tokens[0] == "d" else b"a"
        for token in tokens[1:] if tokens[0] == "d" else tokens:
            literal = int(token)
            number = 2 * abs(literal) + (literal < 0) if literal else 0
            while True:
                byte = number & 0x7F
                number >>= 7
                out.append(byte | (0x80 if number else 0))
                if not number:
                    break
    return bytes(out)


def refused(report: CheckReport, *fragments: str) -> str:
    """Assert the report is a refusal in one line holding every fragment; return the reason."""
    assert not report.certified
    assert report.reason is not None
    assert "\n" not in report.reason
    for fragment in fragments:
        assert fragment in report.reason, report.reason
    return report.reason


@pytest.fixture(scope="module")
def big() -> tuple[CanonicalCnf, list[str]]:
    formula = canonical_cnf(big_problem())
    lines = pysat_proof(formula)
    assert lines is not None and len(lines) > 200
    return formula, lines


# --- valid proofs ----------------------------------------------------------------


@pytest.mark.parametrize("solver", ["cadical195", "glucose4", "lingeling"])
@pytest.mark.parametrize("problem", [Problem(n=2), Problem(n=3), FIXED_UNSAT, *BLOCKED_UNSAT])
def test_a_solvers_proof_is_certified(tmp_path: Path, problem: Problem, solver: str) -> None:
    formula = canonical_cnf(problem)
    lines = pysat_proof(formula, solver)
    assert lines is not None
    report = check_proof(formula, write(tmp_path / "proof.drat", lines))
    assert report.certified, report.reason
    assert report.reason is None
    assert report.lemmas == sum(1 for line in lines if not line.startswith("d"))
    assert report.deletions == sum(1 for line in lines if line.startswith("d"))
    assert report.bytes == (tmp_path / "proof.drat").stat().st_size


def test_the_same_proof_in_binary_is_certified(tmp_path: Path, big: tuple[CanonicalCnf, list[str]]) -> None:
    formula, lines = big
    path = tmp_path / "proof.bin"
    path.write_bytes(binary(lines))
    report = check_proof(formula, path)
    assert report.certified, report.reason
    assert report.lemmas == sum(1 for line in lines if not line.startswith("d"))


def test_comments_chunks_compaction_and_pauses_change_nothing(
    tmp_path: Path, big: tuple[CanonicalCnf, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Clauses cut by the end of a chunk are carried to the next one; compaction keeps every live clause; a
    check paused after every step (and undone and retried with more room inside one) reaches the same end."""
    formula, lines = big
    monkeypatch.setattr(checker_module, "CHUNK", 7)
    monkeypatch.setattr(checker_module, "COMPACT_FROM", 0)
    monkeypatch.setattr(checker_module, "SOFT_WORK", 1)
    monkeypatch.setattr(checker_module, "HARD_WORK", 1)
    compactions = []
    compact = checker_module.k.compact
    monkeypatch.setattr(checker_module.k, "compact", lambda *arrays: compactions.append(1) or compact(*arrays))
    column = " ".join(str(formula.variable(0, row)) for row in range(10) if formula.variable(0, row))
    churn = [f"{column} 0", f"d {column} 0"] * 1000  # a clause of the formula added again and deleted: dead weight
    path = write(tmp_path / "proof.drat", ["c written by cadical", *churn, *lines[:-1], "c the end", lines[-1]])
    assert check_proof(formula, path).certified
    assert compactions
    path.write_bytes(binary(lines))
    assert check_proof(formula, path).certified


def test_a_formula_refuted_by_propagation_alone_needs_no_proof(tmp_path: Path) -> None:
    blocked_row = Problem(n=4, blocked=frozenset((c, 1) for c in range(4)))
    report = check_proof(canonical_cnf(blocked_row), write(tmp_path / "empty.drat", []))
    assert report.certified
    report = check_proof(canonical_cnf(Problem(n=4)), write(tmp_path / "empty.drat", []))
    refused(report, "never derives the empty clause (0 lemmas read)")


def test_a_rat_lemma_on_its_first_literal_is_accepted_and_a_false_one_refused(tmp_path: Path) -> None:
    """An extension variable x <-> (1 and 2) is RAT, never RUP; a unit x after -x 1 is neither."""
    formula = canonical_cnf(BLOCKED_UNSAT[1])  # no unit clause: variables 1 and 2 are open at the top level
    lines = pysat_proof(formula)
    assert lines is not None
    x = formula.variables + 1
    definition = [f"-{x} 1 0", f"-{x} 2 0", f"{x} -1 -2 0"]
    assert check_proof(formula, write(tmp_path / "rat.drat", [*definition, *lines])).certified
    report = check_proof(formula, write(tmp_path / "bad.drat", [f"-{x} 1 0", f"{x} 0", *lines]))
    refused(report, "lemma 2 (line 2) is not implied", f"{x} 0")


def test_deleting_a_unit_that_is_a_reason_is_ignored(tmp_path: Path) -> None:
    formula = canonical_cnf(FIXED_UNSAT)
    lines = pysat_proof(formula)
    assert lines is not None
    square = formula.variable(0, 0)
    report = check_proof(formula, write(tmp_path / "proof.drat", [f"d {square} 0", *lines]))
    assert report.certified, report.reason


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    n=st.integers(1, 7),
    blocked=st.sets(st.tuples(st.integers(0, 6), st.integers(0, 6)), max_size=10),
    fixed=st.dictionaries(st.integers(0, 6), st.integers(0, 6), max_size=2),
)
def test_every_proof_pysat_writes_is_certified(
    tmp_path: Path, n: int, blocked: set[tuple[int, int]], fixed: dict[int, int]
) -> None:
    problem = Problem(
        n=n,
        blocked=frozenset((c, r) for c, r in blocked if c < n and r < n),
        fixed={c: r for c, r in fixed.items() if c < n and r < n},
    )
    formula = canonical_cnf(problem)
    lines = pysat_proof(formula)
    if lines is None:
        return
    report = check_proof(formula, write(tmp_path / "proof.drat", lines))
    assert report.certified, (problem, report.reason)


# --- damaged proofs ----------------------------------------------------------------


def test_dropping_a_needed_lemma_is_refused(tmp_path: Path) -> None:
    formula = canonical_cnf(BLOCKED_UNSAT[0])
    lines = pysat_proof(formula)
    assert lines is not None
    reasons = []
    for i, line in enumerate(lines[:-1]):
        if line.startswith("d"):
            continue
        report = check_proof(formula, write(tmp_path / "proof.drat", lines[:i] + lines[i + 1 :]))
        if not report.certified:
            reasons.append(refused(report, "is not implied"))
    assert reasons, "no lemma of the proof was needed"
    assert all(reason.startswith("lemma ") and "(line " in reason for reason in reasons)


def test_a_flipped_literal_is_refused(tmp_path: Path) -> None:
    formula = canonical_cnf(BLOCKED_UNSAT[0])
    lines = pysat_proof(formula)
    assert lines is not None
    reasons, own = [], 0
    for i, line in enumerate(lines[:-1]):
        tokens = line.split()
        if tokens[0] == "d" or len(tokens) < 2:
            continue
        tokens[0] = str(-int(tokens[0]))
        report = check_proof(formula, write(tmp_path / "proof.drat", [*lines[:i], " ".join(tokens), *lines[i + 1 :]]))
        if not report.certified:
            reasons.append(refused(report, "is not implied"))
            own += f"(line {i + 1}) is not implied: {' '.join(tokens)}" in reasons[-1]
    assert own, reasons  # the flipped lemma itself, at least once (else a later one that needed it)


def test_a_missing_empty_clause_is_refused(tmp_path: Path, big: tuple[CanonicalCnf, list[str]]) -> None:
    formula, lines = big
    assert lines[-1] == "0"
    report = check_proof(formula, write(tmp_path / "proof.drat", lines[:-1]))
    lemmas = sum(1 for line in lines[:-1] if not line.startswith("d"))
    last = max(i for i, line in enumerate(lines[:-1]) if not line.startswith("d")) + 1
    refused(report, f"never derives the empty clause ({lemmas:,} lemmas read, the last at line {last:,})")
    path = tmp_path / "proof.bin"
    path.write_bytes(binary(lines[:-1]))
    refused(
        check_proof(formula, path), f"({lemmas:,} lemmas read, the last at byte {len(binary(lines[: last - 1])):,})"
    )


def test_a_proof_of_another_instance_is_refused(tmp_path: Path) -> None:
    lines = pysat_proof(canonical_cnf(BLOCKED_UNSAT[0]))
    assert lines is not None
    report = check_proof(canonical_cnf(BLOCKED_UNSAT[1]), write(tmp_path / "proof.drat", lines))
    refused(report, "is not implied")


def test_a_truncated_proof_is_refused(tmp_path: Path, big: tuple[CanonicalCnf, list[str]]) -> None:
    formula, lines = big
    cut = next(i for i, line in enumerate(lines) if len(line.split()) > 3 and not line.startswith("d"))
    path = tmp_path / "proof.drat"
    path.write_text("".join(line + "\n" for line in lines[:cut]) + lines[cut].rsplit(" ", 1)[0])
    refused(check_proof(formula, path), "truncated", f"(line {cut + 1}) has no terminating 0")
    path.write_bytes(binary(lines[: cut + 1])[:-1])
    refused(check_proof(formula, path), "binary proof is truncated")


def test_garbage_is_refused(tmp_path: Path) -> None:
    formula = canonical_cnf(FIXED_UNSAT)
    path = tmp_path / "proof.drat"
    path.write_text("1 2 0\n3 x 0\n")
    refused(check_proof(formula, path), "not DRAT at line 2")
    path.write_text("1 2 0\n3 -0.5 0\n")
    refused(check_proof(formula, path), "not DRAT at line 2")
    path.write_bytes(b"\xff\xfe\x00garbage")
    refused(check_proof(formula, path), "binary proof has byte 0xff at byte 0")


def test_a_corrupted_binary_proof_is_refused(tmp_path: Path, big: tuple[CanonicalCnf, list[str]]) -> None:
    formula, lines = big
    data = bytearray(binary(lines))
    data[len(data) // 2 :] = bytes(len(data) - len(data) // 2)  # its second half zeroed
    path = tmp_path / "proof.bin"
    path.write_bytes(bytes(data))
    refused(check_proof(formula, path), "binary proof has byte 0x00")


def test_a_variable_out_of_range_is_refused(tmp_path: Path) -> None:
    formula = canonical_cnf(FIXED_UNSAT)
    beyond = formula.variables + checker_module.EXTENSION_VARIABLES + 1
    report = check_proof(formula, write(tmp_path / "proof.drat", [f"2 {beyond} 0", "0"]))
    refused(report, f"names variable {beyond:,}", f"formula's {formula.variables} variables", "1,000,000 extension")
    lines = pysat_proof(formula)
    assert lines is not None
    lemmas = [line for line in lines if not line.startswith("d")][:3]
    report = check_proof(formula, write(tmp_path / "proof.drat", [*lemmas, f"{beyond} 0", "0"]))  # one batch
    refused(report, f"the clause after lemma 3 (line 4) names variable {beyond:,}")


def test_a_long_line_and_too_many_literals_are_refused(tmp_path: Path, big: tuple[CanonicalCnf, list[str]]) -> None:
    formula, lines = big
    path = tmp_path / "proof.drat"
    path.write_text("1 " * (checker_module.MAX_LINE_BYTES // 2 + 1) + "0\n")
    refused(check_proof(formula, path), "line longer than 1,048,576 bytes")
    report = check_proof(formula, write(path, lines), max_literals=sum(map(len, formula.clauses())) + 10)
    refused(report, "would store more than", "(max_literals)")


def test_a_sparse_10_gb_file_is_refused_by_its_size(tmp_path: Path) -> None:
    path = tmp_path / "huge.drat"
    path.touch()
    os.truncate(path, 10 << 30)
    report = check_proof(canonical_cnf(FIXED_UNSAT), path)
    refused(report, "10,737,418,240 bytes, over the 1,073,741,824-byte limit")
    assert report.bytes == 10 << 30 and report.lemmas == 0


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    path = tmp_path / "proof.fifo"
    os.mkfifo(path)
    reports: list[CheckReport] = []
    worker = threading.Thread(target=lambda: reports.append(check_proof(canonical_cnf(FIXED_UNSAT), path)), daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive(), "check_proof blocked on a FIFO"
    refused(reports[0], "not a regular file (a FIFO)")


def test_links_folders_and_missing_files_are_refused(tmp_path: Path) -> None:
    formula = canonical_cnf(FIXED_UNSAT)
    lines = pysat_proof(formula)
    assert lines is not None
    target = write(tmp_path / "proof.drat", lines)
    assert check_proof(formula, target).certified
    link = tmp_path / "link.drat"
    link.symlink_to(target)
    refused(check_proof(formula, link), "is a symbolic link")
    refused(check_proof(formula, tmp_path), "not a regular file (a folder)")
    refused(check_proof(formula, tmp_path / "absent.drat"), "cannot read the proof")


def test_out_of_time_is_refused(tmp_path: Path, big: tuple[CanonicalCnf, list[str]]) -> None:
    formula, lines = big
    report = check_proof(formula, write(tmp_path / "proof.drat", lines), seconds=0)
    refused(report, "out of checking time after lemma 0 of the proof")


def test_out_of_time_is_noticed_within_a_proof(
    tmp_path: Path, big: tuple[CanonicalCnf, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clock is read every few thousand propagations: a deadline that passes mid-proof stops it there."""
    formula, lines = big
    path = write(tmp_path / "proof.drat", lines)
    monkeypatch.setattr(checker_module, "SOFT_WORK", 1)
    reads = [0]

    def clock() -> float:
        reads[0] += 1
        return float(reads[0])

    monkeypatch.setattr(checker_module.time, "perf_counter", clock)
    assert check_proof(formula, path, seconds=1e9).certified
    whole = reads[0]
    reads[0] = 0
    report = check_proof(formula, path, seconds=whole - 10)
    reason = refused(report, "out of checking time after lemma")
    assert "after lemma 0 " not in reason


def test_the_compiled_code_is_not_cached_inside_the_package() -> None:
    folder = Path(checker_module.__file__).parent
    assert not [path.name for path in folder.rglob("*") if path.suffix in (".nbi", ".nbc")]


# --- compressed proofs ----------------------------------------------------------------

COMPRESSORS = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_a_compressed_proof_is_read_as_it_unpacks(
    tmp_path: Path, big: tuple[CanonicalCnf, list[str]], kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Text and binary, in chunks far smaller than a clause (carried across, as for a plain file); a broken
    lemma is named at the same line as in the plain file, and the report's size is the file's on disk."""
    formula, lines = big
    compress = COMPRESSORS[kind]
    path = tmp_path / "proof.z"
    path.write_bytes(compress("".join(line + "\n" for line in lines).encode()))
    report = check_proof(formula, path)
    assert report.certified, report.reason
    assert report.bytes == path.stat().st_size
    path.write_bytes(compress(binary(lines)))
    assert check_proof(formula, path).certified
    monkeypatch.setattr(checker_module, "CHUNK", 7)
    assert check_proof(formula, path).certified
    plain = write(tmp_path / "proof.drat", [*lines[:9], "0", *lines[9:]])  # the empty clause, unproved
    path.write_bytes(compress(plain.read_bytes()))
    assert check_proof(formula, path).reason == check_proof(formula, plain).reason
    refused(check_proof(formula, path), "(line 10) is not implied: 0")


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_a_compression_bomb_is_over_budget_after_max_bytes_unpacked(tmp_path: Path, kind: str) -> None:
    """A few kilobytes that unpack to 256 MiB of blank lines: the bound is on what comes out."""
    path = tmp_path / "bomb"
    piece = COMPRESSORS[kind](b"\n" * (16 << 20))
    path.write_bytes(piece * 16)  # each format reads concatenated streams (members) as one
    assert path.stat().st_size < 1 << 20
    report = check_proof(canonical_cnf(FIXED_UNSAT), path, max_bytes=4 << 20)
    refused(report, "the proof (unpacked) grew past the 4,194,304-byte limit")


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_a_cut_or_damaged_stream_is_one_line(tmp_path: Path, big: tuple[CanonicalCnf, list[str]], kind: str) -> None:
    formula, lines = big
    whole = COMPRESSORS[kind]("".join(line + "\n" for line in lines).encode())
    path = tmp_path / "proof.z"
    path.write_bytes(whole[: len(whole) // 2])
    refused(check_proof(formula, path), f"the {kind}-compressed proof", "ends early (the file is cut)")
    path.write_bytes(whole[:6] + b"\xff" * 64)  # the magic bytes, then nothing a decompressor takes
    refused(check_proof(formula, path), f"the {kind}-compressed proof", "is damaged after 0 bytes unpacked")


def test_a_proof_that_ends_before_its_stream_breaks_is_certified(
    tmp_path: Path, big: tuple[CanonicalCnf, list[str]]
) -> None:
    """What unpacked before a break is checked first: the empty clause before it refutes the formula (a
    proof is judged by its lemmas, and these are all there); a break before the empty clause is said."""
    formula, lines = big
    path = tmp_path / "proof.gz"
    path.write_bytes(gzip.compress("".join(line + "\n" for line in lines).encode()) + b"\x1f\x8b\x08garbage")
    assert check_proof(formula, path).certified
    text = "".join(line + "\n" for line in lines[:-1]).encode()
    path.write_bytes(gzip.compress(text) + b"\x1f\x8b\x08garbage")  # a second member, cut in its header
    refused(
        check_proof(formula, path), "the gzip-compressed proof", f"ends early (the file is cut) after {len(text):,}"
    )


def test_the_clock_is_read_while_a_compressed_proof_unpacks(tmp_path: Path) -> None:
    path = tmp_path / "blank.gz"
    path.write_bytes(gzip.compress(b"\n" * (8 << 20)))
    refused(check_proof(canonical_cnf(FIXED_UNSAT), path, seconds=1e-9), "out of checking time")


# --- the plain Python path ----------------------------------------------------------

PURE_SCRIPT = """
import json, sys
from pathlib import Path
from nqueens_plugins.core.canonical_cnf import canonical_cnf
from nqueens_plugins.core.problem import Problem
from nqueens_plugins.formats import instances
from nqueens_plugins.proofs import check_proof
from nqueens_plugins.proofs.checker import JIT
cases = json.loads(sys.argv[1])
results = []
for n, blocked, path in cases:
    report = check_proof(canonical_cnf(Problem(n=n, blocked=frozenset(map(tuple, blocked)))), Path(path))
    results.append([report.certified, report.reason])
print(json.dumps({"jit": JIT, "results": results}))
"""


def test_the_plain_python_path_gives_the_same_verdicts(tmp_path: Path) -> None:
    problem = BLOCKED_UNSAT[0]
    formula = canonical_cnf(problem)
    lines = pysat_proof(formula)
    assert lines is not None
    flipped = lines[0].split()
    flipped[0] = str(-int(flipped[0]))
    files = {
        "valid": write(tmp_path / "valid.drat", lines),
        "binary": tmp_path / "valid.bin",
        "no empty clause": write(tmp_path / "open.drat", lines[:-1]),
        "flipped": write(tmp_path / "flipped.drat", [" ".join(flipped), *lines[1:]]),
        "garbage": tmp_path / "garbage.bin",
    }
    files["binary"].write_bytes(binary(lines))
    files["garbage"].write_bytes(b"a\x02\x07\xff\xff\xff\xff\xff\x00")
    cases = [[problem.n, sorted(problem.blocked), str(path)] for path in files.values()]
    done = subprocess.run(
        [sys.executable, "-c", PURE_SCRIPT, json.dumps(cases)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        env={**os.environ, "NQUEENS_PROOFS_NO_JIT": "1"},
    )
    answer = json.loads(done.stdout)
    assert answer["jit"] is False
    expected = [check_proof(formula, path) for path in files.values()]
    assert [certified for certified, _ in answer["results"]] == [True, True, False, False, False]
    assert answer["results"] == [[report.certified, report.reason] for report in expected]
