"""Workflows layer, parent side: what runs a batch of tasks through an executor and hands the answers on.

``grid`` (a comparison: solvers x boards x trials, streamed as records),
``crosscheck`` (every solver on every board, judged by ``results/crosscheck.py``),
``counting`` (a count split into the pieces its solver offers), ``race`` (several solvers
on one instance, the first decided answer wins) and ``tune`` (an iterated race fed with
runs). They decide which tasks to run and in what order; judging and aggregating the answers
is ``results/``, rendering them ``views/``.
"""
