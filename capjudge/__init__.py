"""capjudge: the pluggable judge layer shared by DiffCap-Bench and SymbalBench.

>>> from capjudge import resolve_judge
>>> judge = resolve_judge(lambda predicted, reference, kind: predicted.lower() == reference.lower())
>>> [r.equivalent for r in judge.judge_equivalences([EquivalenceCase("Dog", "dog", "visual_feature")])]
[True]
"""
from capjudge.callables import CallableJudge
from capjudge.protocol import (
    CLAIM_LABELS,
    EQUIVALENCE_KINDS,
    BudgetExceeded,
    Claim,
    DifferenceCase,
    DifferenceResult,
    EquivalenceCase,
    EquivalenceResult,
    InvalidJudgement,
    Item,
    Judge,
    JudgeError,
    validate_judgement,
)
from capjudge.registry import parse_spec, resolve_judge
from capjudge.version import __version__

__all__ = [
    "CLAIM_LABELS", "EQUIVALENCE_KINDS", "BudgetExceeded", "CallableJudge", "Claim", "DifferenceCase",
    "DifferenceResult", "EquivalenceCase", "EquivalenceResult", "InvalidJudgement", "Item", "Judge",
    "JudgeError", "parse_spec", "resolve_judge", "validate_judgement", "__version__",
]
