"""Results layer, parent side: what a comparison runs and what its runs add up to (parent process).

``grid`` (which runs a comparison makes, streamed as records), ``crosscheck``
(exact solvers against each other and against published counts),
``statistics`` (censored summaries, intervals, tests) and ``summary`` (records
grouped into table rows). Renders nothing; the views do.
"""
