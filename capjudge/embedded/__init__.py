"""The embedded judge: offline, deterministic, no model download (SPEC §3).

>>> from capjudge import resolve_judge
>>> resolve_judge("embedded?threshold=0.5").threshold
0.5
"""
from capjudge.embedded.equivalence import equivalent
from capjudge.embedded.judge import EmbeddedJudge
from capjudge.embedded.claims import split_claims

__all__ = ["EmbeddedJudge", "equivalent", "split_claims"]
