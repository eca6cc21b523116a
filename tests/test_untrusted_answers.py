"""The host believes nothing a plugin says (issue 50): a worker's answer is data, parsed in the parent and never
run there; a no-solution claim's proof is taken from the worker's folder and checked by a checker the service
owns, against the service's own problem, whatever the plugin did to its copy, to its checker or to its proof."""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nqueens_plugins as nq
from nqueens_plugins import Outcome, Problem, Solver, Status
from nqueens_plugins.builtin.bitset_mrv import BitsetMrv
from nqueens_plugins.core.canonical_cnf import clause_count
from nqueens_plugins.core.proof_log import ProofLog
from nqueens_plugins.core.solver import resolve_options
from nqueens_plugins.execution import certificates, wire
from nqueens_plugins.execution.messages import Compiled, Compiling, Done, Guessed, Guessing, Ready, Started, WarmingUp
from nqueens_plugins.execution.tasks import Certificate, Executed, Foreign, OpaquePart, ProofHandoff
from nqueens_plugins.testing import patient_executor

NONE_EXISTS = Problem(4, blocked=frozenset({(0, 1), (0, 2)}))  # test_certificates checks it by brute force
SATISFIABLE = Problem(8, fixed={0: 0}, blocked=frozenset({(7, 7)}))  # 0 4 7 5 2 6 1 3 is a solution
SOLUTION = [0, 4, 7, 5, 2, 6, 1, 3]
LIMITS = nq.Limits(timeout=30, certify="always")


def genuine_proof(problem: Problem) -> list[str]:
    """A true refutation of ``problem``'s canonical CNF, written by the built-in search in this process."""
    lines: list[str] = []

    class Capture(ProofLog):
        def _write(self, clause_text: str) -> None:
            lines.append(f"{clause_text} 0" if clause_text else "0")

    solver = BitsetMrv()
    log = Capture(Path(os.devnull), problem, 1 << 30)
    outcome = solver.solve(problem, random.Random(0), nq.Budget(10, proof=log), resolve_options(solver, {}).options)
    assert outcome.status == Status.NO_SOLUTION and lines[-1] == "0"
    return lines


def claims_none(name: str, before: Callable[[Any, Problem], None]) -> Solver:
    """A certifying solver that does ``before(budget.proof, problem)`` and claims no solution."""

    class Claimant(Solver):
        summary = "Claims no solution after doing something to its proof or its problem."
        complete = True
        certifies = True
        supports_fixed = True
        supports_blocked = True

        def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
            before(budget.proof, problem)
            return Outcome(Status.NO_SOLUTION)

    Claimant.name = name
    return Claimant()


def test_a_plugin_that_changes_its_problem_is_judged_on_the_hosts(registered: Callable[[Solver], str]) -> None:
    """Past the read-only mapping (by the back door a hostile plugin has): two attacking queens added to its copy
    make the proof ``0`` refute it; the service checks the proof against its own problem, where it refutes nothing."""

    def forge(proof: Any, problem: Problem) -> None:
        object.__setattr__(problem, "fixed", {**problem.fixed, 1: 1, 2: 2})
        proof.write_lines(["0"])

    name = registered(claims_none("forges-its-problem", forge))
    for isolate in (True, False):
        result = nq.solve(name, SATISFIABLE, limits=LIMITS, isolate=isolate)
        assert result.status == Status.INVALID and result.certificate == "rejected", result.reason
        assert not result.decided and result.problem == SATISFIABLE
    records = nq.compare([name], [SATISFIABLE], limits=LIMITS)
    assert records[0]["status"] == "invalid" and records[0]["certificate"] == "rejected"


def test_a_plugin_that_patches_the_checker_in_its_worker_gains_nothing(registered: Callable[[Solver], str]) -> None:
    def patch(proof: Any, problem: Problem) -> None:
        from nqueens_plugins import proofs
        from nqueens_plugins.execution import certificates, checker_process

        always = Certificate("certified", None, 1, 1)
        certificates.check = lambda *args, **kwargs: always  # type: ignore[assignment]
        certificates.certificate = lambda *args, **kwargs: always  # type: ignore[assignment]
        checker_process.CheckerProcess.check = lambda *args, **kwargs: {"certified": True}  # type: ignore[method-assign]
        proofs.check_proof = lambda *args, **kwargs: None  # type: ignore[attr-defined]
        proof.write_lines(["0"])

    name = registered(claims_none("patches-the-checker", patch))
    result = nq.solve(name, SATISFIABLE, limits=LIMITS)
    assert result.status == Status.INVALID and result.certificate == "rejected", result.reason


def test_a_proof_rewritten_after_the_answer_is_checked_as_handed_over(registered: Callable[[Solver], str]) -> None:
    """A wrong proof, and a grandchild in a session of its own that writes a true one once the answer is sent:
    the service checks what the worker handed over (and the grandchild is swept with the run)."""
    true_proof = genuine_proof(NONE_EXISTS)

    def late_rewrite(proof: Any, problem: Problem) -> None:
        proof.write_lines(["1 0", "0"])  # not implied: wrong
        proof.close()
        if os.fork() == 0:  # the grandchild, in a session of its own
            os.setsid()
            if os.fork() == 0:
                import time

                time.sleep(0.3)
                Path(proof.path).write_text("\n".join(true_proof) + "\n", encoding="ascii")
            os._exit(0)
        os.wait()

    name = registered(claims_none("rewrites-later", late_rewrite))
    result = nq.solve(name, NONE_EXISTS, limits=LIMITS)
    assert result.status == Status.INVALID and result.certificate == "rejected", result.reason


@pytest.mark.parametrize("kind", ["symlink", "fifo", "folder"])
def test_a_proof_that_is_not_a_regular_file_in_the_runs_folder_is_refused(
    registered: Callable[[Solver], str], tmp_path: Path, kind: str
) -> None:
    elsewhere = tmp_path / "true.drat"
    elsewhere.write_text("\n".join(genuine_proof(NONE_EXISTS)) + "\n", encoding="ascii")

    def replace(proof: Any, problem: Problem) -> None:
        proof.close()
        path = Path(proof.path)
        path.unlink()
        if kind == "symlink":
            path.symlink_to(elsewhere)  # a true proof, but not one of the run's own
        elif kind == "fifo":
            os.mkfifo(path)  # reading it would wait for a writer forever
        else:
            path.mkdir()

    name = registered(claims_none(f"proof-is-a-{kind}", replace))
    result = nq.solve(name, NONE_EXISTS, limits=LIMITS)
    assert result.status == Status.INVALID and result.certificate == "rejected", result.reason
    words = {"symlink": "symbolic link", "fifo": "a FIFO", "folder": "a folder"}[kind]
    assert words in (result.reason or "") and "\n" not in (result.reason or "")


def test_a_genuine_proof_is_certified_and_kept_for_an_outside_checker(tmp_path: Path) -> None:
    kept = tmp_path / "proofs"
    result = nq.solve("bitset-mrv", NONE_EXISTS, limits=nq.Limits(timeout=30, keep_proofs=kept))
    assert result.certified and result.proof is not None and result.proof_sha256 is not None
    proof = Path(result.proof)
    assert proof.parent == kept and proof.name.startswith(NONE_EXISTS.id) and proof.suffix == ".drat"
    assert hashlib.sha256(proof.read_bytes()).hexdigest() == result.proof_sha256
    formula = kept / f"{NONE_EXISTS.id}.cnf"
    header = [line for line in formula.read_text(encoding="ascii").splitlines() if line.startswith("p ")]
    assert header == [f"p cnf 14 {clause_count(NONE_EXISTS)}"]
    record = result.to_dict()
    assert record["proof"] == str(proof) and record["proof_sha256"] == result.proof_sha256
    again = certificates.check(proof, NONE_EXISTS, nq.Limits())
    assert again.status == "certified"
    assert certificates.check(proof, SATISFIABLE, nq.Limits()).status == "rejected"  # another instance's proof
    assert nq.check_proof(NONE_EXISTS, proof).certified  # brought back, as a user brings a proof
    command = [sys.executable, "-m", "nqueens_plugins", "check-proof", "-n", "4", "--blocked", "0:1,0:2", str(proof)]
    assert subprocess.run(command, capture_output=True, check=False, timeout=120).returncode == 0
    command[-1] = str(formula)  # the formula is no proof of itself: it never derives the empty clause
    assert subprocess.run(command, capture_output=True, check=False, timeout=120).returncode == 3


class Payload:
    """Unpickling this would run ``exec`` in the parent: it writes the file the test looks for."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (exec, (f"open({self.marker!r}, 'w').write('ran in the parent')",))


def reducer(name: str, marker: Path, board: list[int]) -> Solver:
    class Reducer(Solver):
        summary = "Returns a board with a payload in its counters."

        def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
            return Outcome(Status.SOLVED, board, 1, 1, {"x": Payload(str(marker))})

    Reducer.name = name
    return Reducer()


def test_an_answer_with_a_reduce_payload_runs_nothing_in_the_parent(
    registered: Callable[[Solver], str], tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    name = registered(reducer("reduces", marker, list(range(8))))  # the diagonal: every queen attacked
    result = nq.solve(name, 8, limits=nq.Limits(timeout=30))
    assert result.status == Status.INVALID and not marker.exists()
    honest = registered(reducer("reduces-honest-board", marker, SOLUTION))
    result = nq.solve(honest, 8, limits=nq.Limits(timeout=30))
    assert result.status == Status.SOLVED and result.verified and not marker.exists()
    assert "x" not in result.counters and "counters dropped" in (result.reason or "")


def forger(name: str) -> Solver:
    """Writes a frame of its own on its worker's pipe (its fd is in the worker's argv) before it returns."""

    class Forger(Solver):
        summary = "Forges a pickled frame on the pipe to its parent."

        def solve(self, problem, rng, budget, options):  # type: ignore[no-untyped-def]
            import pickle
            import struct

            payload = pickle.dumps(Done(Executed(Outcome(Status.SOLVED, list(range(problem.n))), 0.0)))
            os.write(int(sys.argv[2]), struct.pack("!i", len(payload)) + payload)
            return Outcome(Status.GAVE_UP)

    Forger.name = name
    return Forger()


def test_a_frame_a_plugin_forges_on_the_pipe_is_its_error(registered: Callable[[Solver], str]) -> None:
    name = registered(forger("forges-a-frame"))
    result = nq.solve(name, 8, limits=nq.Limits(timeout=30))
    assert result.status == Status.ERROR and "could not be read" in (result.reason or "")
    assert nq.solve("min-conflicts", 8).solved  # the service goes on


def test_a_large_board_crosses_as_an_array() -> None:
    queens = np.arange(1_000_000, dtype=np.int32)
    frame = wire.encode(Done(Executed(Outcome(Status.SOLVED, queens, 3, 4, {"restarts": 2}), 1.5)))
    assert len(frame) < 4_000_000 + 2_000  # the board's bytes and a short header
    done = wire.decode(frame)
    assert isinstance(done, Done) and isinstance(done.executed.outcome, Outcome)
    assert np.array_equal(done.executed.outcome.queens, queens) and done.executed.outcome.counters == {"restarts": 2}
    listed = wire.decode(wire.encode(Done(Executed(Outcome(Status.SOLVED, queens.tolist()), 0.1))))
    assert isinstance(listed, Done) and np.array_equal(listed.executed.outcome.queens, queens)


plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20) | st.binary(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=4).map(tuple)
        | st.dictionaries(st.integers() | st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return type(b) is dict and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plain)
def test_plain_values_make_the_round_trip(value: Any) -> None:
    executed = Executed(value, 0.25, None, Status.SOLVED, prepare_seconds=None)
    back = wire.decode(wire.encode(Done(executed)))
    assert isinstance(back, Done) and same(value, back.executed.outcome)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_either_parse_or_are_one_wire_error(frame: bytes) -> None:
    try:
        wire.decode(frame)
    except wire.WireError as exc:
        assert "\n" not in str(exc)


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
        max_leaves=12,
    )
)
def test_any_json_header_either_parses_or_is_one_wire_error(header: Any) -> None:
    text = json.dumps(header).encode()
    try:
        wire.decode(struct.pack(">I", len(text)) + text)
    except wire.WireError as exc:
        assert "\n" not in str(exc)


def test_every_message_and_the_contracts_classes_make_the_round_trip() -> None:
    for message in (Ready(), WarmingUp(), Compiling("advance"), Compiled(), Guessing(), Guessed(), Started(0.5)):
        assert wire.decode(wire.encode(message)) == message
    trace = nq.Trace(4)
    trace.place(0, 1)
    trace.board([1, 3, 0, 2])
    executed = Executed(
        nq.Count(Status.SOLVED, 2**80, False, 7, {"nodes": 3}),
        0.5,
        trace=trace,
        output="printed",
        output_bytes=7,
        certificate=Certificate("certified", None, 10, 2, 0.1, "kept.drat", "ab" * 32),
        proof=ProofHandoff("/tmp/x/nqueens-proof-1.drat", 10, 2, False),
    )
    back = wire.decode_answer(wire.encode(executed))
    assert back.outcome == executed.outcome and back.certificate == executed.certificate
    assert back.proof == executed.proof and back.trace is not None and back.trace.events == trace.events
    part = OpaquePart(b"\x80\x04pickled", "Piece(1)")
    assert wire.decode_answer(wire.encode(Executed([part, object()], 0.1))).outcome == [part, Foreign("object")]


def test_deciding_to_certify_leaves_a_large_instance_its_time() -> None:
    """n = 3000 with one square blocked: whether a certificate is wanted is counted from n and the blocked squares
    (its formula has some 4.5e10 clauses: none), not by numbering 9 million squares first, in the worker and in
    the service; so the search gets its 2 s and stops itself at its limit, never killed past it: past a grace the
    contract kit's yardstick stretches by this machine's load (a second when quiet), as its budget probe is."""
    with patient_executor() as executor:
        result = nq.solve("backtracking", 3000, blocked="0:0", timeout=2, certify="always", executor=executor)
    assert result.status == Status.TIMED_OUT and result.iterations > 0 and result.reason is None, result.reason
    assert result.certificate is None
