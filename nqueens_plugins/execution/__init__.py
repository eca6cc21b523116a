"""Execution layer: every call into plugin code, and the judging of what came back.

Each module says in its first line which process it runs in: worker side
(``calls``, ``worker``, ``watchdog``, ``dask_chunks``: they touch the plugin; ``measuring``, what a
run cost, measured around the call), parent side
(``executor``, ``local``, ``worker_handle``, ``worker_state``, ``judge``, ``answers``, ``proof_checks``,
``checker_process``, ``dask_cluster``: they never trust it), or both (``tasks``, ``wire`` and
``messages``, what travels between them; ``certificates``, opened before a call and handed over
after it; ``output``, what a plugin prints; ``processes``; ``inprocess``, which runs both sides
in one process for the contract kit and benchmarks). Imports the core and the formats only: a
task carries its solver, so nothing here looks plugins up by name (a count split in pieces is
``workflows/counting.py``).
"""
