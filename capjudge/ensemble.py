"""An ensemble judge: ask several judges, keep the per-claim / per-pair majority.

**Equivalence** (per pair): the majority of the members' ``true``/``false`` answers.

**Difference** (per claim): the members' claims are aligned by their text (compared
after case-folding and dropping punctuation and extra spaces). For each aligned claim
every member that answered the case casts one vote: its ``(label, item)`` for that
claim, or *absent* if it did not find that claim. The claim keeps the answer with the
most votes and is dropped when *absent* wins. Claims come out in the order they were
first seen (first member first).

**Ties** (the documented rule): with ``tie="first"`` (default) a tie goes to the tied
answer given by the earliest member in the list, so list your most trusted judge
first. With ``tie="strict"`` a tie goes to the answer least favourable to the model
under test: for a claim ``wrong`` > ``hallucination`` > ``absent`` > ``ambiguous`` >
``detail`` > ``correct``; for a pair ``false`` beats ``true``.

Members that return an error for a case do not vote on it; if every member fails, the
case's result is an error naming each member's error. :attr:`EnsembleJudge.stats`
counts voting units and disagreements (a unit where the votes were not unanimous);
:meth:`EnsembleJudge.disagreement_rates` gives the rates reports print.

>>> from capjudge.callables import CallableJudge
>>> from capjudge.protocol import EquivalenceCase
>>> yes, no = CallableJudge(equivalent=lambda p, r, k: True), CallableJudge(equivalent=lambda p, r, k: False)
>>> e = EnsembleJudge([yes, no, no])
>>> [r.equivalent for r in e.judge_equivalences([EquivalenceCase("cat", "dog", "visual_feature")])]
[False]
>>> e.disagreement_rates()["equivalence"]
1.0
"""
from __future__ import annotations

import re
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional, Sequence, Union

from capjudge.protocol import (
    Claim,
    DifferenceCase,
    DifferenceResult,
    EquivalenceCase,
    EquivalenceResult,
    Judge,
)
from capjudge.version import __version__

TIE_RULES = ("first", "strict")
ABSENT = ("absent", None)  # the vote of a member that did not find a claim
# tie="strict": lower rank wins, i.e. the outcome least favourable to the model under test.
_STRICT_RANK = {"wrong": 0, "hallucination": 1, "absent": 2, "ambiguous": 3, "detail": 4, "correct": 5}


def claim_key(text: str) -> str:
    """How claim texts are aligned across judges.

    >>> claim_key("  The cat, now RED! ")
    'the cat now red'
    """
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


class EnsembleJudge:
    """Majority of several judges (objects or spec strings); see the module docstring."""

    def __init__(self, judges: Sequence[Union[Judge, str, Any]], *, tie: str = "first", parallel: bool = True):
        from capjudge.registry import resolve_judge

        if len(judges) < 2:
            raise ValueError("an ensemble needs at least two judges")
        if tie not in TIE_RULES:
            raise ValueError(f"tie={tie!r}; use one of {', '.join(TIE_RULES)}")
        self.judges = [resolve_judge(j) for j in judges]
        self.tie = tie
        self.parallel = parallel
        self.stats = {"difference_units": 0, "difference_disagreements": 0,
                      "equivalence_pairs": 0, "equivalence_disagreements": 0, "member_errors": 0, "errors": 0}
        self._lock = threading.Lock()

    @property
    def signature(self) -> str:
        members = ";".join(j.signature for j in self.judges)
        return f"judge:ensemble|tie:{self.tie}|members:[{members}]|capjudge:{__version__}"

    @property
    def cache_identity(self) -> str:
        from capjudge.cache import cache_identity

        return f"judge:ensemble|tie:{self.tie}|members:[{';'.join(cache_identity(j) for j in self.judges)}]"

    @property
    def budget_exhausted(self) -> bool:
        return any(getattr(j, "budget_exhausted", False) for j in self.judges)

    def disagreement_rates(self) -> dict:
        """Share of claims and of pairs on which the members' votes were not unanimous."""
        s = self.stats
        return {
            "difference": s["difference_disagreements"] / s["difference_units"] if s["difference_units"] else 0.0,
            "equivalence": s["equivalence_disagreements"] / s["equivalence_pairs"] if s["equivalence_pairs"] else 0.0,
        }

    def _ask_all(self, method: str, cases: Sequence[Any]) -> list[list]:
        """Each member's results for all cases (members run in parallel threads)."""
        calls = [getattr(j, method) for j in self.judges]
        if not self.parallel:
            return [call(cases) for call in calls]
        with ThreadPoolExecutor(max_workers=len(calls), thread_name_prefix="capjudge-ensemble") as pool:
            return [f.result() for f in [pool.submit(call, cases) for call in calls]]

    def _count(self, **increments: int) -> None:
        with self._lock:
            for k, v in increments.items():
                self.stats[k] += v

    def _pick(self, votes: list, rank: Optional[dict] = None) -> Any:
        """The majority vote; ties broken by the rule (votes are in member order)."""
        counts = Counter(votes)
        best = max(counts.values())
        tied = [v for v in dict.fromkeys(votes) if counts[v] == best]  # member order kept
        if len(tied) == 1 or self.tie == "first":
            return tied[0]
        return min(tied, key=rank) if rank else tied[0]

    # -- equivalence ------------------------------------------------------------------------
    def judge_equivalences(self, cases: Sequence[EquivalenceCase]) -> list[EquivalenceResult]:
        per_member = self._ask_all("judge_equivalences", cases)
        return [self._vote_equivalence([m[i] for m in per_member]) for i in range(len(cases))]

    def _vote_equivalence(self, answers: list[EquivalenceResult]) -> EquivalenceResult:
        votes = [a.equivalent for a in answers if a.ok]
        self._count(member_errors=len(answers) - len(votes))
        if not votes:
            self._count(errors=1)
            return EquivalenceResult(error="every ensemble member failed: " + " | ".join(str(a.error) for a in answers))
        self._count(equivalence_pairs=1, equivalence_disagreements=int(len(set(votes)) > 1))
        return EquivalenceResult(equivalent=self._pick(votes, rank=lambda v: v))  # strict: False < True

    # -- difference -------------------------------------------------------------------------
    def judge_differences(self, cases: Sequence[DifferenceCase]) -> list[DifferenceResult]:
        per_member = self._ask_all("judge_differences", cases)
        return [self._vote_difference([m[i] for m in per_member]) for i in range(len(cases))]

    def _vote_difference(self, answers: list[DifferenceResult]) -> DifferenceResult:
        voters = [a for a in answers if a.ok]
        self._count(member_errors=len(answers) - len(voters))
        if not voters:
            self._count(errors=1)
            return DifferenceResult(error="every ensemble member failed: " + " | ".join(str(a.error) for a in answers))
        # aligned claim key -> (first text seen, each voter's (label, item) or ABSENT)
        texts: dict[str, str] = {}
        for a in voters:
            for c in a.claims:
                texts.setdefault(claim_key(c.text), c.text)
        claims, disagreements = [], 0
        for key, text in texts.items():
            votes = []
            for a in voters:
                mine = [(c.label, c.item) for c in a.claims if claim_key(c.text) == key]
                votes.append(mine[0] if mine else ABSENT)
            disagreements += len(set(votes)) > 1
            label, item = self._pick(votes, rank=lambda v: _STRICT_RANK[v[0]])
            if (label, item) != ABSENT:
                claims.append(Claim(text=text, label=label, item=item))
        self._count(difference_units=len(texts), difference_disagreements=disagreements)
        return DifferenceResult(claims=tuple(claims))
