"""The checker program refuses a formula its memory cannot hold before building any of it (``over_memory``,
from the formula's size alone), in one line, and stays fit for the next request; its estimate follows what
the checker really allocates to load a formula."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nqueens_plugins.core.canonical_cnf import canonical_cnf, formula_size
from nqueens_plugins.core.problem import Problem
from nqueens_plugins.proofs.check_program import formula_bytes
from nqueens_plugins.proofs.checker import check_proof, warm_up

NONE_EXISTS = Problem(4, blocked=frozenset({(0, 1), (0, 2)}))  # test_certificates checks it by brute force
LARGE = Problem(200, blocked=frozenset({(0, 0)}))  # 13.2 million clauses: about 2 GB to load, under MAX_CLAUSES
GIB = 1 << 30


def request(problem: Problem, proof: Path, memory: int) -> bytes:
    fields = {"n": problem.n, "fixed": sorted(problem.fixed.items()), "blocked": sorted(problem.blocked)}
    limits = {"proof": str(proof), "max_bytes": GIB, "seconds": 60.0, "memory": memory}
    return (json.dumps(fields | limits) + "\n").encode()


@pytest.fixture
def program() -> Iterator[subprocess.Popen[bytes]]:
    started = subprocess.Popen(
        [sys.executable, "-m", "nqueens_plugins.proofs.check_program", str(4 * GIB)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert started.stdout is not None
    assert json.loads(started.stdout.readline())["ready"] is True
    yield started
    started.kill()
    started.wait()


def ask(program: subprocess.Popen[bytes], line: bytes) -> dict[str, Any]:
    assert program.stdin is not None and program.stdout is not None
    program.stdin.write(line)
    program.stdin.flush()
    answer = json.loads(program.stdout.readline())
    assert isinstance(answer, dict)
    return answer


def test_a_formula_over_the_checkers_memory_is_refused_before_it_is_built(
    program: subprocess.Popen[bytes], tmp_path: Path
) -> None:
    proof = tmp_path / "empty.drat"
    proof.write_bytes(b"")
    need = formula_bytes(formula_size(LARGE), LARGE.n)
    assert need > 2 * GIB  # what the request below cannot hold
    answer = ask(program, request(LARGE, proof, GIB))
    assert answer["status"] == "over-budget" and "certified" not in answer  # one verdict, one field
    assert answer["reason"].startswith(
        f"the formula needs about {need:,} bytes, over the checker's memory of {GIB:,} ("
    )
    assert "\n" not in answer["reason"] and answer["lemmas"] == 0
    # Had it loaded the formula it would have run out of memory ("out of memory") and exited; it answers on.
    assert program.poll() is None
    beyond = Problem(3000, blocked=frozenset({(0, 0)}))  # over MAX_CLAUSES: said so, still without building it
    answer = ask(program, request(beyond, proof, 1 << 62))
    assert answer["status"] == "over-budget" and "too large to certify" in answer["reason"]
    assert program.poll() is None
    answer = ask(program, request(NONE_EXISTS, proof, GIB))  # a small one is checked as ever
    assert answer["status"] in ("certified", "rejected") and "formula needs" not in (answer["reason"] or "")


def test_the_estimate_follows_what_loading_a_formula_allocates(tmp_path: Path) -> None:
    """Against tracemalloc's peak of checking an empty proof (the formula loaded, nothing else read): within 20 %.
    A change to how the checker loads a formula that moves this is a change the factors must follow."""
    proof = tmp_path / "empty.drat"
    proof.write_bytes(b"")
    warm_up()
    for problem in (Problem(40, blocked=frozenset({(0, 0)})), Problem(50, fixed={3: 1}, blocked=frozenset({(5, 5)}))):
        formula = canonical_cnf(problem)
        tracemalloc.start()
        try:
            report = check_proof(formula, proof)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert report.reason is None or "never derives the empty clause" in report.reason
        estimate = formula_bytes(formula_size(problem), problem.n)
        assert 0.8 * peak < estimate < 1.2 * peak, (problem.n, estimate, peak)
