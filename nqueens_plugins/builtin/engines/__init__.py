"""Engines of the built-in solvers: boards with incremental conflict counts and compiled kernels.

Not plugins themselves (nothing here registers a solver) and not part of the
contract: the plugin modules in ``builtin/`` use them, nothing else in the
host does.
"""
