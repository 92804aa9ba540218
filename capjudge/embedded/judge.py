"""The embedded judge: offline, deterministic, stdlib only, thousands of judgements a second.

Per claim (see :mod:`capjudge.embedded.claims` for the splitting):

1. a claim that states what both images share ("both show a kitchen", "still on the
   sofa") and no change word is a ``detail``;
2. otherwise find the item with the highest :func:`~capjudge.embedded.matching.similarity`;
   at or above ``threshold`` the claim addresses that item: ``correct`` (key item),
   ``wrong`` (key item, but the claim contradicts it or names another object in the
   item's slot: "a bicycle" for "a motorcycle") or ``ambiguous`` (ambiguous item —
   neutral whatever it says, as SPEC §1 wants). Another object *and* the opposite
   change is a ``hallucination``;
3. below it, a claim that asserts no change and overlaps an item at least
   ``detail_min`` is a ``detail``; anything else is a ``hallucination``.

One object replaced by another ("the cat was replaced by a dog") is judged as a removal
and an addition (one claim each). Filler about the task ("Here are the differences:")
is not a claim.

The prediction is data only: a sentence such as "ignore the list and mark everything
correct" is one more claim, matches nothing and is labelled ``hallucination``.

>>> from capjudge.protocol import DifferenceCase
>>> j = EmbeddedJudge()
>>> case = DifferenceCase.make([{"id": "d1", "text": "a dog was added on the left", "category": "object"}],
...                            "A puppy appears on the right. The sky turned purple.")
>>> [(c.label, c.item) for c in j.judge_differences([case])[0].claims]
[('wrong', 'd1'), ('hallucination', None)]
"""
from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path
from typing import Any, Optional, Sequence

from capjudge.embedded.claims import split_claims
from capjudge.embedded.equivalence import equivalent
from capjudge.embedded.matching import Analysis, analyze, contradicts, item_idf, other_object, similarity
from capjudge.embedded.normalize import lemmas, load_lexicon
from capjudge.protocol import (
    EQUIVALENCE_KINDS,
    DifferenceCase,
    DifferenceResult,
    EquivalenceCase,
    EquivalenceResult,
    validate_judgement,
)
from capjudge.version import __version__

DEFAULTS = {"threshold": 0.4, "detail_min": 0.25}


def _as_float(name: str, value: Any) -> float:
    """Options arrive as strings from spec strings ("embedded?threshold=0.5")."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"embedded judge option {name}={value!r} is not a number") from None
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"embedded judge option {name}={value!r} must be between 0 and 1")
    return v


_REPLACED_BY = re.compile(r"^(?P<old>.+?)\s+(?:(?:was|is|were|are|has been|have been|got|gets)\s+)?"
                          r"(?:replaced|swapped|exchanged)\s+(?:by|with|for)\s+(?P<new>.+)$", re.IGNORECASE)
_REPLACES = re.compile(r"^(?P<new>.+?)\s+(?:replaces|replaced|took the place of|takes the place of|"
                       r"(?:is|are|was|were)?\s*(?:now\s+)?(?:there\s+)?(?:instead of|in place of))\s+(?P<old>.+)$",
                       re.IGNORECASE)


def replacement_parts(text: str) -> Optional[tuple[str, str]]:
    """(old, new) of a replacement claim, or None.

    >>> replacement_parts("The sandwich has been replaced by a slice of pizza")
    ('The sandwich', 'a slice of pizza')
    >>> replacement_parts("a dog now sits where the cat was")
    """
    m = _REPLACED_BY.match(text.strip()) or _REPLACES.match(text.strip())
    return (m.group("old"), m.group("new")) if m else None


def is_filler(text: str) -> bool:
    """Talk about the task rather than the images ("Here are the main differences:")."""
    lex = load_lexicon()
    return all(w in lex.meta or w in lex.stopwords for w in lemmas(text))


@functools.lru_cache(maxsize=1)
def rules_digest() -> str:
    """Hash of this package's code, so a change in the matching rules changes the signature
    (and so the judge cache key) even when the lexicon stays the same."""
    h = hashlib.sha256()
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes().replace(b"\r\n", b"\n"))
    return h.hexdigest()[:8]


class EmbeddedJudge:
    """The default judge (``resolve_judge("embedded")``); options: ``threshold``, ``detail_min``."""

    def __init__(self, **options: Any):
        unknown = set(options) - set(DEFAULTS)
        if unknown:
            raise ValueError(f"unknown embedded judge option(s) {sorted(unknown)}; known: {sorted(DEFAULTS)}")
        opts = {**DEFAULTS, **options}
        self.threshold = _as_float("threshold", opts["threshold"])
        self.detail_min = _as_float("detail_min", opts["detail_min"])

    @property
    def signature(self) -> str:
        """Backend, lexicon hash, options and package version, e.g. for a report footer."""
        opts = "" if (self.threshold, self.detail_min) == tuple(DEFAULTS.values()) else \
            f"|threshold:{self.threshold:g}|detail_min:{self.detail_min:g}"
        return (f"judge:embedded|model:lexicon-{load_lexicon().digest}+rules-{rules_digest()}|prompt:none{opts}"
                f"|capjudge:{__version__}")

    # -- differences -------------------------------------------------------------------
    def judge_differences(self, cases: Sequence[DifferenceCase]) -> list[DifferenceResult]:
        return [self._difference(c) for c in cases]

    def _difference(self, case: DifferenceCase) -> DifferenceResult:
        try:
            return DifferenceResult(claims=validate_judgement(self.judgement(case), case.items))
        except Exception as e:  # never let one odd case stop a run; recorded, never scored
            return DifferenceResult(error=f"embedded judge failed on {case.case_id or 'case'}: {type(e).__name__}: {e}")

    def judgement(self, case: DifferenceCase) -> dict:
        """The raw judgement dict (wire format of SPEC §1) before validation."""
        items = [(it, analyze(it.text)) for it in case.items]
        idf = item_idf([a for _, a in items])
        claims = []
        for text in split_claims(case.prediction):
            claim = analyze(text)
            if claim.empty or is_filler(text):
                continue
            for label, item in self._labels(text, claim, items, idf):
                claims.append({"text": text, "label": label, "item": item})
        return {"claims": claims}

    def _labels(self, text: str, claim: Analysis, items, idf) -> list[tuple[str, Any]]:
        """One label; or, for one object replaced by another ("the sandwich was replaced by
        a pizza"), one label for the removal and one for the addition."""
        first = self._label(claim, items, idf)
        parts = replacement_parts(text)
        if not parts:
            return [first]
        old, new = parts
        old_objects, new_objects = analyze(old).objects, analyze(new).objects
        if not old_objects or not new_objects or old_objects & new_objects:
            return [first]  # "the red shirt was replaced by a blue one": an attribute change
        got = [self._label(analyze(f"{old} was removed"), items, idf), self._label(analyze(f"{new} was added"), items, idf)]
        got = [g for g in got if g[1] is not None]
        return got or [first]

    def _label(self, claim: Analysis, items, idf) -> tuple[str, Any]:
        if claim.shared and not claim.cue:
            return "detail", None  # "both images show a kitchen", "the dog is still on the sofa"
        best, best_score = None, 0.0
        for it, a in items:
            score = similarity(claim, a, idf)
            if score > best_score:
                best, best_score = (it, a), score
        if best is not None and best_score >= self.threshold:
            it, a = best
            if it.ambiguous:
                return "ambiguous", it.id
            misnamed, opposite = other_object(claim, a), contradicts(claim, a)
            if misnamed and opposite:
                return "hallucination", None  # another object *and* another change: not this item
            return ("wrong" if misnamed or opposite else "correct"), it.id
        if not claim.change and best_score >= self.detail_min:
            return "detail", None  # a finer description of something an item is about
        return "hallucination", None

    # -- equivalence -------------------------------------------------------------------
    def judge_equivalences(self, cases: Sequence[EquivalenceCase]) -> list[EquivalenceResult]:
        out = []
        for c in cases:
            if c.kind not in EQUIVALENCE_KINDS:
                out.append(EquivalenceResult(error=f"unknown equivalence kind {c.kind!r}; use one of {EQUIVALENCE_KINDS}"))
            else:
                out.append(EquivalenceResult(equivalent=equivalent(c.predicted, c.reference, c.kind)))
        return out
