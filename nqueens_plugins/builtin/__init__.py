"""The built-in plugins: one module per family of methods, registered like any third-party plugin.

Local search: ``min_conflicts``, ``annealing``, ``hill_climbing``, ``swap_search`` and
``random_placement`` (British Museum search, the baseline); complete search: ``backtracking``,
``bitset_mrv`` and ``bitboard`` (exact counting); ``construction``, a solution written down
in O(n). What they compute with (boards, compiled kernels) is in ``engines``, which
registers nothing.
"""
