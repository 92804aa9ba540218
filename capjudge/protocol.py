"""The judge protocol both benchmarks share.

A judge answers two kinds of question, always in batches so a backend can run them
concurrently:

* *difference*: one prediction (free text) against one difference list -> a judgement
  ``{"claims": [{"text", "label", "item"}]}`` (SPEC §1);
* *equivalence*: does a predicted name mean the same as a reference name
  (``kind`` is ``text_error`` or ``visual_feature``)?

A backend never raises for one bad case: it returns a result whose ``error`` is set.
A result with an error is never scored as a success (the scorers count it apart).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Protocol, Sequence, runtime_checkable

CLAIM_LABELS: tuple[str, ...] = ("correct", "wrong", "ambiguous", "detail", "hallucination")
KEY_LABELS = frozenset({"correct", "wrong"})  # claims that must name a key item
EQUIVALENCE_KINDS: tuple[str, ...] = ("text_error", "visual_feature")


class JudgeError(RuntimeError):
    """A judge could not produce a valid answer (after its retries)."""


class InvalidJudgement(ValueError):
    """A judgement does not follow the wire format; the message says why."""


class BudgetExceeded(JudgeError):
    """The token budget of a run is spent; what was judged so far is kept."""


@dataclass(frozen=True)
class Item:
    """One difference item of a pair's ground-truth list."""

    id: str
    text: str
    category: str
    ambiguous: bool = False

    @classmethod
    def from_mapping(cls, m: Mapping[str, Any]) -> "Item":
        cat = m.get("category", "")
        return cls(id=str(m["id"]), text=str(m["text"]), category=str(cat), ambiguous=bool(m.get("ambiguous", False)))

    def to_dict(self) -> dict:
        return {"id": self.id, "text": self.text, "category": self.category, "ambiguous": self.ambiguous}


@dataclass(frozen=True)
class Claim:
    """One atomic claim of a prediction with its label and the item it addresses."""

    text: str
    label: str
    item: Optional[str] = None

    def to_dict(self) -> dict:
        return {"text": self.text, "label": self.label, "item": self.item}


@dataclass(frozen=True)
class DifferenceCase:
    """Question for a difference judgement: items of one pair and one prediction."""

    items: tuple[Item, ...]
    prediction: str
    case_id: str = ""  # e.g. the pair_id, for messages only; never part of a cache key

    @classmethod
    def make(cls, items: Sequence[Item | Mapping[str, Any]], prediction: str, case_id: str = "") -> "DifferenceCase":
        its = tuple(i if isinstance(i, Item) else Item.from_mapping(i) for i in items)
        return cls(items=its, prediction=prediction, case_id=case_id)


@dataclass(frozen=True)
class EquivalenceCase:
    predicted: str
    reference: str
    kind: str  # "text_error" | "visual_feature"


@dataclass(frozen=True)
class DifferenceResult:
    """A validated judgement, or an error (then ``claims`` is empty)."""

    claims: tuple[Claim, ...] = ()
    error: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict:
        return {"claims": [c.to_dict() for c in self.claims], "error": self.error}


@dataclass(frozen=True)
class EquivalenceResult:
    equivalent: Optional[bool] = None
    error: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.equivalent is not None


@runtime_checkable
class Judge(Protocol):
    """What every backend provides. ``signature`` names backend, model, prompt hash and version."""

    @property
    def signature(self) -> str: ...

    def judge_differences(self, cases: Sequence[DifferenceCase]) -> list[DifferenceResult]: ...

    def judge_equivalences(self, cases: Sequence[EquivalenceCase]) -> list[EquivalenceResult]: ...


def validate_judgement(obj: Any, items: Sequence[Item]) -> tuple[Claim, ...]:
    """Check a judgement dict against the wire format and the pair's items.

    Returns the claims; raises :class:`InvalidJudgement` naming the first fault.
    Nothing is repaired: an item id that does not exist, or a label that does not fit
    the item's kind, makes the whole judgement invalid.

    >>> validate_judgement({"claims": [{"text": "a cat appears", "label": "correct", "item": "d1"}]},
    ...                    [Item("d1", "a cat was added", "object")])
    (Claim(text='a cat appears', label='correct', item='d1'),)
    """
    if not isinstance(obj, Mapping) or "claims" not in obj:
        raise InvalidJudgement("judgement must be an object with a 'claims' list")
    claims = obj["claims"]
    if not isinstance(claims, list):
        raise InvalidJudgement("'claims' must be a list")
    by_id = {it.id: it for it in items}
    out = []
    for n, c in enumerate(claims):
        where = f"claim {n}"
        if not isinstance(c, Mapping):
            raise InvalidJudgement(f"{where}: must be an object")
        text, label, item = c.get("text"), c.get("label"), c.get("item")
        if not isinstance(text, str):
            raise InvalidJudgement(f"{where}: 'text' must be a string")
        if label not in CLAIM_LABELS:
            raise InvalidJudgement(f"{where}: label {label!r} is not one of {', '.join(CLAIM_LABELS)}")
        if label in KEY_LABELS or label == "ambiguous":
            if item is None or str(item) not in by_id:
                raise InvalidJudgement(f"{where}: label {label!r} needs the id of an existing item, got {item!r}")
            want_ambiguous = label == "ambiguous"
            if by_id[str(item)].ambiguous != want_ambiguous:
                kind = "an ambiguous" if want_ambiguous else "a key"
                raise InvalidJudgement(f"{where}: label {label!r} must name {kind} item, {item!r} is not")
            item = str(item)
        elif item is not None:
            raise InvalidJudgement(f"{where}: label {label!r} must have item null, got {item!r}")
        out.append(Claim(text=text, label=label, item=item))
    return tuple(out)
