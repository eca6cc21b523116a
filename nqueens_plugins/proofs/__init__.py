"""Proofs layer, any process: the host's independent checker of no-solution certificates (DRUP/DRAT proofs).

It refutes the canonical CNF (``core/canonical_cnf.py``) and imports nothing of
the package but the problem and that formula: no solver's code is trusted.
"""

from nqueens_plugins.proofs.checker import CheckReport, check_proof

__all__ = ["CheckReport", "check_proof"]
