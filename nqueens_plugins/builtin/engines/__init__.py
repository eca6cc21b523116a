"""Engines of the built-in solvers: boards with incremental conflict counts and compiled kernels.

Not plugins themselves (nothing here registers a solver) and not part of the
contract: the plugin modules in ``builtin/`` use them, nothing else in the
host does.

Boards for local search: ``board`` (incremental conflict counts) and ``lean_board`` (the
same in about 9 bytes a queen), ``swap_kernel`` (the inner loops of swap search). Complete
search and counting: ``bitset_mrv_kernel``, ``bitboard_kernel``, ``constellations`` and
``constellation_kernel`` (start constellations), ``symmetry_count`` (one board per symmetry
class), and counting by joining half boards: ``join_plan`` (the plan), ``join_python`` and
``join_kernel`` (the engines), ``join_symmetric`` (the boards a turn leaves unchanged) and
``join_bits`` (popcount for the kernels). Choosing and compiling: ``kernels`` (compiled or
pure Python), ``kernel_cache`` (numba's disk cache), ``prefetch`` (a cache prefetch for the
kernels).
"""
