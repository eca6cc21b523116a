"""The Dask backend against a LocalCluster: the same records as a local run, a killed Dask
worker losing nothing, hangs killed on the cluster, version mismatches and bad addresses."""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

import nqueens_plugins as nq
from nqueens_plugins.core.errors import BadInput
from nqueens_plugins.execution import dask_chunks, dask_cluster
from nqueens_plugins.execution.dask_cluster import DaskExecutor
from nqueens_plugins.execution.tasks import Task
from nqueens_plugins.formats.inputs import make_problem
from nqueens_plugins.formats.records import read_records, run_key
from nqueens_plugins.loading import host
from nqueens_plugins.workflows.grid import Grid, stream


def start_cluster() -> tuple[object, object]:
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    return cluster, distributed.Client(cluster, set_as_default=False)


@pytest.fixture(scope="module")
def client() -> Iterator[object]:
    cluster, client = start_cluster()
    yield client
    client.close()
    cluster.close()


def essentials(records: list[dict]) -> list[tuple]:
    return sorted(
        (r["solver"], r["n"], r["trial"], r["seed"], r["status"], r["queens"], r["iterations"], r["moves"])
        for r in records
    )


def test_the_same_seed_gives_the_same_records_as_a_local_run(client, tmp_path: Path) -> None:
    solvers, sizes = ["min-conflicts", "backtracking", "simulated-annealing"], [6, 8, 10]
    with nq.executor_for(jobs=2) as executor:
        local = nq.compare(solvers, sizes, trials=4, limits=nq.Limits(timeout=10, seed=3), executor=executor)
    with DaskExecutor(client=client, chunk_size=5) as executor:
        remote = nq.compare(
            solvers, sizes, trials=4, limits=nq.Limits(timeout=10, seed=3), executor=executor, out=tmp_path / "r.jsonl"
        )
    assert essentials(remote) == essentials(local)
    assert len(read_records(tmp_path / "r.jsonl").records) == len(local) == 36


def test_a_killed_dask_worker_loses_no_record_and_doubles_none(client, tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    grid = Grid(host.registry().variants("min-conflicts"), [make_problem(64)], trials=120, limits=nq.Limits(timeout=30))
    pids = list(client.run(os.getpid).values())
    with DaskExecutor(client=client, chunk_size=4) as executor:
        records = []
        for record in stream(grid, executor=executor, out=out):
            records.append(record)
            if len(records) == 8:
                os.kill(pids[0], signal.SIGKILL)  # mid-grid: its chunks run again elsewhere
    keys = [run_key(r) for r in read_records(out).records]
    assert len(keys) == len(set(keys)) == 120
    assert all(r["status"] == "solved" and r["verified"] is True for r in records)


def test_a_small_count_on_the_cluster_is_one_task_and_verified(client) -> None:
    with DaskExecutor(client=client) as executor:
        result = executor.run(Task.count(host.registry().variant("bitboard"), make_problem(10)))
    assert result.solutions == 724 and result.verified is True


def test_a_hang_on_the_cluster_is_killed_there(fake_distribution) -> None:
    fake_distribution("nqueens-hostile", {"hostile": "hostile_solvers"}, {})
    cluster, client = start_cluster()  # started after the plugin is installed, as on a real cluster
    try:
        with DaskExecutor(client=client) as executor:
            # 5 s, not 1: the control's run must fit even on a 2-core machine running a scheduler,
            # two Dask workers and a test load (its worker's preparation is not part of it).
            records = nq.compare(
                ["hostile-sleeps", "min-conflicts"], [8], trials=2, limits=nq.Limits(timeout=5), executor=executor
            )
    finally:
        client.close()
        cluster.close()
    statuses = sorted((r["solver"], r["status"]) for r in records)
    assert statuses == [("hostile-sleeps", "timed-out")] * 2 + [("min-conflicts", "solved")] * 2
    assert all("killed after" in r["reason"] for r in records if r["solver"] == "hostile-sleeps")


def test_plugin_version_mismatch_is_named(client, monkeypatch: pytest.MonkeyPatch) -> None:
    real = dask_chunks.installed_plugins()
    monkeypatch.setattr(dask_cluster, "installed_plugins", lambda: {**real, "nqueens-ortools": "9.9"})
    there = re.escape(real["nqueens-ortools"])  # the version installed, whichever it is
    with pytest.raises(
        BadInput, match=rf"Dask worker tcp://\S+ has other plugin versions: nqueens-ortools {there} there, 9.9 here"
    ):
        DaskExecutor(client=client)


def test_an_unreachable_scheduler_is_one_line(run_cli) -> None:
    with pytest.raises(BadInput, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        DaskExecutor("tcp://127.0.0.1:9", connect_seconds=1)
    code, _, err = run_cli("compare", "-s", "min-conflicts", "-n", "8", "--executor", "dask")
    assert code == 2 and "needs --scheduler" in err


def test_a_count_is_split_into_pieces_across_the_cluster(client) -> None:
    """The count workflow spreads a count over the cluster's workers (DaskExecutor.splits_counts)."""
    blocked = make_problem(12, blocked=[(0, 0), (3, 5), (7, 7)])
    with DaskExecutor(client=client) as executor:
        result = nq.count("bitboard", 12, kernel="python", executor=executor)
        split = nq.count("bitboard", blocked, executor=executor)
    assert result.solutions == 14_200 and result.verified is True and result.counters["parts"] > 1
    assert split.solutions == nq.count("backtracking", blocked).solutions


def test_a_solver_registered_in_session_runs_on_the_cluster(client) -> None:
    """nq.register's solver (a class no Dask worker can import) reaches the cluster's workers by value."""
    from test_session import odd_then_even_solver

    nq.register(odd_then_even_solver())
    with DaskExecutor(client=client, chunk_size=2) as executor:
        records = nq.compare(["odd-then-even"], [7, 8, 10], trials=1, executor=executor)
    assert {r["n"]: r["status"] for r in records} == {7: "solved", 8: "invalid", 10: "solved"}


def test_a_count_piece_travels_alone_and_runs_are_chunked() -> None:
    """Count pieces are long: chunked 25 to a Dask task, a kill lost up to 25 pieces (20 minutes at n = 21)."""
    from dataclasses import replace

    from nqueens_plugins.execution.tasks import TaskKind

    variant = host.registry_for(["bitboard"]).variant("bitboard")
    piece = replace(Task.count(variant, make_problem(12)), kind=TaskKind.COUNT_PART)
    solve = Task.solve(host.registry_for(["backtracking"]).variant("backtracking"), make_problem(8))
    tasks = [solve, solve, piece, piece, solve, solve, solve]
    chunks = list(dask_cluster.in_chunks(tasks, 2))
    assert chunks == [[solve, solve], [piece], [piece], [solve, solve], [solve]]
    assert [len(chunk) for chunk in dask_cluster.in_chunks(range(60), 25)] == [25, 25, 10]


def test_a_certificate_on_the_cluster_is_checked_there_by_the_service_and_comes_back_as_data(client) -> None:
    """On a Dask worker the proof is checked by the service's checker started there (run_chunk's executor),
    against the task's problem, and the answer travels back as a wire frame: certified, as on this machine."""
    none_exists = nq.Problem(4, blocked=frozenset({(0, 1), (0, 2)}))
    with DaskExecutor(client=client) as executor:
        records = nq.compare(["bitset-mrv"], [none_exists], timeout=30, certify="always", executor=executor)
    assert [(r["status"], r["certificate"], r["verified"]) for r in records] == [("no-solution", "certified", True)]
