"""Core layer, any process: ``CertificateStatus``, the four words that say what a no-solution certificate is worth.

One closed set, shared by everyone who says or reads it: the checker (``proofs/``)
decides one of the first three and returns it as a field of its answer, never
left to be read out of its message; the service adds ``unchecked`` when no checker
could answer; a run's record, the pipe from a worker, ``nqueens check-proof`` and a
report's re-check all carry the same words. It lives in the core because the
checker may import nothing above it.

A ``StrEnum``: each member is the string it stands for (``CertificateStatus.CERTIFIED
== "certified"``), so the JSON of a record, a table and every comparison with a string
are what they were; its ``repr`` is the string's too, so the repr of a record that
holds one reads as it did when the field was a plain string.
"""

from __future__ import annotations

import enum

__all__ = ["CHECKER_VERDICTS", "CertificateStatus"]


class CertificateStatus(enum.StrEnum):
    """What became of a certificate: what the checker decided, or that none could decide."""

    CERTIFIED = "certified"  # the proof refutes the instance's canonical CNF: the no-solution claim is decided
    REJECTED = "rejected"  # it does not (a lemma not implied, no empty clause, not a proof at all)
    OVER_BUDGET = "over-budget"  # past its size, checking time or memory: unknown either way
    UNCHECKED = "unchecked"  # no checker answered (it failed, or there was no proof to check)

    __repr__ = str.__repr__  # 'certified', as the field showed when it was a plain string

    @classmethod
    def parse(cls, value: object) -> CertificateStatus | None:
        """The status ``value`` names (a string from a pipe or a file), or None if it names none."""
        return cls._value2member_map_.get(value) if type(value) is str else None  # type: ignore[return-value]


# What a checker that ran to its end decides: anything else (unchecked) means it could not.
CHECKER_VERDICTS = frozenset({CertificateStatus.CERTIFIED, CertificateStatus.REJECTED, CertificateStatus.OVER_BUDGET})
