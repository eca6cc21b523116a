"""Execution layer: every call into plugin code, and the judging of what came back.

Each module says in its first line which process it runs in: worker side
(``calls``, ``worker``, ``dask_chunks``: they touch the plugin), parent side
(``executor``, ``local``, ``worker_handle``, ``judge``, ``answers``, ``counting``,
``dask_cluster``: they never trust it), or both (``tasks`` and ``messages``, what
travels between them; ``processes``; ``inprocess``, which runs both sides in one
process for the contract kit and benchmarks). Imports the core and the formats only: a task carries its solver,
so nothing here looks plugins up by name.
"""
