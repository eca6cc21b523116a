"""Results layer, parent side: what answers settle and add up to, never how they are run.

``summary`` (records grouped into table rows), ``statistics`` (censored summaries, intervals,
tests), ``crosscheck`` (what a cross-check's answers settle: checks, verdicts), ``recheck``
and ``resume_checks`` (what kept certificates and a resumed file's answers are worth now),
``race`` (what a portfolio race found), ``portfolio`` (virtual and single best solvers),
``features``, ``selector`` and ``schedule`` (which solvers to run on a new instance, learnt
from records), and for tuning ``tuning`` (irace's iterated racing, a machine that asks for
runs), ``elimination`` (which configurations its races drop) and ``held_out`` (the tuned
configuration against the defaults on unseen runs). Runs nothing (``workflows/`` does) and
renders nothing (the views do).
"""
