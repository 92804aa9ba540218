"""Wrap plain Python callables as a judge (SPEC §3).

``difference(items, prediction) -> judgement dict`` and
``equivalent(predicted, reference, kind) -> bool``. Whatever the callable returns is
validated like any backend's output; an exception or an invalid answer becomes a
recorded error for that case, never a success.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from capjudge.protocol import (
    DifferenceCase,
    DifferenceResult,
    EquivalenceCase,
    EquivalenceResult,
    InvalidJudgement,
    validate_judgement,
)
from capjudge.version import __version__

DifferenceFn = Callable[[list, str], Any]
EquivalenceFn = Callable[[str, str, str], Any]


def _name(fn: Optional[Callable]) -> str:
    if fn is None:
        return "none"
    return getattr(fn, "__qualname__", None) or type(fn).__name__


class CallableJudge:
    """A judge made of one or two user callables."""

    def __init__(self, difference: Optional[DifferenceFn] = None, equivalent: Optional[EquivalenceFn] = None):
        if difference is None and equivalent is None:
            raise ValueError("CallableJudge needs a difference callable, an equivalence callable, or both")
        self.difference = difference
        self.equivalent = equivalent

    @property
    def signature(self) -> str:
        return f"judge:callable|difference:{_name(self.difference)}|equivalent:{_name(self.equivalent)}|capjudge:{__version__}"

    def judge_differences(self, cases: Sequence[DifferenceCase]) -> list[DifferenceResult]:
        if self.difference is None:
            raise TypeError("this callable judge has no difference callable")
        return [self._one_difference(c) for c in cases]

    def _one_difference(self, case: DifferenceCase) -> DifferenceResult:
        try:
            raw = self.difference([i.to_dict() for i in case.items], case.prediction)
            return DifferenceResult(claims=validate_judgement(raw, case.items))
        except InvalidJudgement as e:
            return DifferenceResult(error=f"invalid judgement for {case.case_id or 'case'}: {e}")
        except Exception as e:  # a user callable may fail in any way; record, never score
            return DifferenceResult(error=f"difference callable failed on {case.case_id or 'case'}: {type(e).__name__}: {e}")

    def judge_equivalences(self, cases: Sequence[EquivalenceCase]) -> list[EquivalenceResult]:
        if self.equivalent is None:
            raise TypeError("this callable judge has no equivalence callable")
        out = []
        for c in cases:
            try:
                v = self.equivalent(c.predicted, c.reference, c.kind)
            except Exception as e:
                out.append(EquivalenceResult(error=f"equivalence callable failed: {type(e).__name__}: {e}"))
                continue
            if not isinstance(v, bool):
                out.append(EquivalenceResult(error=f"equivalence callable returned {type(v).__name__}, not bool"))
            else:
                out.append(EquivalenceResult(equivalent=v))
        return out
