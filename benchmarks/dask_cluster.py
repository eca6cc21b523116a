"""The Dask backend on a LocalCluster of 2 single-threaded workers (execution-service issue):

    python benchmarks/dask_cluster.py [--skip-count]

* 1 000 runs of min-conflicts at n = 8: at most 2x the same grid on 2 local workers;
* 10 000 runs streamed to a results file: the client's peak memory grows by less than
  20 MiB over the 1 000-run grid's (chunks in flight are bounded; records are not kept);
* count n = 17 (bitboard, numba) as a Dask task: within 1.2x of the local count.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
from pathlib import Path

from common import finish, header, report, timed

from nqueens_plugins.core.limits import Limits
from nqueens_plugins.execution.local import LocalExecutor
from nqueens_plugins.execution.tasks import Task
from nqueens_plugins.formats.inputs import make_problem
from nqueens_plugins.loading import host
from nqueens_plugins.workflows.grid import Grid, stream


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def drain(grid: Grid, executor: object, out: Path) -> int:
    count = 0
    for _ in stream(grid, executor=executor, out=out):
        count += 1
    return count


def main() -> None:
    from distributed import Client, LocalCluster

    from nqueens_plugins.execution.dask_cluster import DaskExecutor

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-count", action="store_true")
    arguments = parser.parse_args()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    client = Client(cluster, set_as_default=False)
    variants = host.registry().variants("min-conflicts")
    try:
        header("1 000 runs of min-conflicts n = 8: 2 local workers against a LocalCluster of 2")
        grid = Grid(variants, [make_problem(8)], trials=1000, limits=Limits(timeout=10, seed=0))
        with tempfile.TemporaryDirectory() as folder, LocalExecutor(2) as local, DaskExecutor(client=client) as dask:
            drain(
                Grid(variants, [make_problem(8)], trials=20, limits=Limits(timeout=10, seed=1)),
                dask,
                Path(folder) / "warm.jsonl",
            )
            local_seconds, _ = timed(lambda: drain(grid, local, Path(folder) / "local.jsonl"))
            dask_seconds, _ = timed(lambda: drain(grid, dask, Path(folder) / "dask.jsonl"))
            report("local, 2 worker processes (reference)", local_seconds, None)
            report("Dask LocalCluster, 2 single-threaded workers", dask_seconds, None)
            report("Dask / local", dask_seconds / local_seconds, 2.0, "x")

            header("the client's memory over a 10 000-run grid on the cluster")
            before = peak_mib()
            big = Grid(variants, [make_problem(8)], trials=10_000, limits=Limits(timeout=10, seed=2))
            seconds, runs = timed(lambda: drain(big, dask, Path(folder) / "big.jsonl"))
            report(f"{runs:,} runs recorded", seconds, None)
            report(
                "client peak memory growth over the 1 000-run grid's",
                peak_mib() - before,
                20,
                "MiB",
                note=f"peak {peak_mib():.0f} MiB",
            )

            if not arguments.skip_count:
                header("count n = 17 (bitboard, numba, both cores)")
                task = Task.count(host.registry().variant("bitboard"), make_problem(17))
                local.run(Task.count(host.registry().variant("bitboard"), make_problem(12)))  # warm the kernel
                dask.run(Task.count(host.registry().variant("bitboard"), make_problem(12)))
                local_count, local_result = timed(lambda: local.run(task))
                dask_count, dask_result = timed(lambda: dask.run(task))
                assert local_result.verified and dask_result.verified
                report(
                    "local count n = 17 (reference)", local_count, None, note=f"{local_result.solutions:,} solutions"
                )
                report("Dask count n = 17", dask_count, None)
                report("Dask / local", dask_count / local_count, 1.2, "x")
    finally:
        client.close()
        cluster.close()
    finish()


if __name__ == "__main__":
    main()
