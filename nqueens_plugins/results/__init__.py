"""Results layer, parent side: what answers settle and add up to, never how they are run.

``crosscheck`` (what a cross-check's answers settle: checks, verdicts),
``statistics`` (censored summaries, intervals, tests) and ``summary`` (records
grouped into table rows). Runs nothing (``workflows/`` does) and renders
nothing (the views do).
"""
