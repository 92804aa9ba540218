"""Match a claim to the difference item it addresses, and tell right from wrong.

Every text (claim or item) is reduced to an :class:`Analysis`:

* ``content`` — meaning-bearing keys (lexicon concepts like ``C:motorcycle`` or word
  lemmas) with an informativeness weight (generic words such as "side" weigh less);
* ``axes`` — the oppositions it takes a position on (side: left/right, presence:
  add/remove, colour: red/blue/..., number, brightness, expression, ...), each with the
  *target* value (the state in the second image: "from red **to blue**", "is **now** open");
* ``change`` / ``shared`` — whether it asserts a change at all, or states what is common.

A claim and an item match by a weighted Dice overlap of content keys plus the axes they
both speak about. They *contradict* when they share an axis but disagree on its target
("moved left" vs "moved right", "red" vs "blue", "three" vs "two", "smiling" vs "frowning").

>>> a = analyze("A dog was added on the left")
>>> b = analyze("a puppy appears on the right side")
>>> sorted(a.content), contradicts(b, a)
(['C:dog'], True)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional, Sequence

from capjudge.embedded.normalize import Token, lemma, load_lexicon, scan

_NEG_REACH = 3  # a negation flips a pole at most this many tokens after it
_MARK_REACH = 3  # "to", "now", "from" mark a value at most this many tokens after them


@dataclass(frozen=True)
class AxisValue:
    value: str
    target: bool = False  # preceded by "to", "now", "into", "instead" ...
    source: bool = False  # preceded by "from", "used to", "previously" ...


@dataclass(frozen=True)
class Analysis:
    """What the judge understands of one text."""

    text: str
    content: dict  # key -> weight
    categories: frozenset  # hypernym categories of the concepts (man -> person)
    axes: dict  # axis -> tuple[AxisValue, ...] in reading order
    change: bool  # asserts a change (a change word, or a comparative/state pole)
    shared: bool  # speaks of what both images share ("in both", "still", "unchanged")
    cue: bool  # has an explicit change word ("now", "added", "no longer", "replaced")
    subject: Optional[str]  # the first object it names (identity check: bicycle vs motorcycle)
    objects: frozenset  # every object it names

    def target(self, axis: str) -> Optional[str]:
        """The value this text gives the axis in the *second* image."""
        vals = self.axes.get(axis, ())
        if not vals:
            return None
        marked = [v for v in vals if v.target]
        if marked:
            return marked[-1].value
        unmarked = [v for v in vals if not v.source]
        return (unmarked or vals)[-1].value

    def sources(self, axis: str) -> set:
        """Values explicitly marked as the state of the *first* image."""
        return {v.value for v in self.axes.get(axis, ()) if v.source} - {self.target(axis)}

    def values(self, axis: str) -> set:
        return {v.value for v in self.axes.get(axis, ())}

    def directed(self, axis: str) -> bool:
        """True when the text says which way the axis changed (two values or a marker)."""
        vals = self.axes.get(axis, ())
        return len({v.value for v in vals}) >= 2 or any(v.target or v.source for v in vals)

    @property
    def empty(self) -> bool:
        return not self.content and not self.axes


def _flip(axis: str, pole: str) -> str:
    poles = list(load_lexicon().raw["axes"].get(axis, {}).get("poles", {}))
    if len(poles) == 2 and pole in poles:
        return poles[1 - poles.index(pole)]
    return f"not-{pole}"


@lru_cache(maxsize=100_000)
def analyze(text: str) -> Analysis:
    """Analyse one claim or item text (cached: item texts recur across cases)."""
    lex = load_lexicon()
    tokens = scan(text)
    content: dict[str, float] = {}
    categories = set()
    axes: dict[str, list[AxisValue]] = {}
    change = shared = cue = False
    subject = None
    objects = set()
    last_neg = last_target = last_source = -99
    for i, tok in enumerate(tokens):
        kinds = {t.kind for t in tok.tags}
        change = change or "change" in kinds
        cue = cue or "change" in kinds
        shared = shared or "shared" in kinds
        if tok.key in ("P:amount=more", "P:amount=fewer") and i + 1 < len(tokens) and _is_scale(tokens[i + 1]):
            # "more vibrant", "less sharp": a comparative, not a count; "less" flips the pole
            if tok.key == "P:amount=fewer":
                last_neg = i
            continue
        if "change" in kinds and not kinds & {"pole", "value", "concept", "neg"} and tok.key not in lex.stopwords:
            content[" ".join(lemma(w) for w in tok.text.split())] = 0.5  # "swapped", "replaced", "moved": a little meaning of their own
        if "neg" in kinds:
            last_neg = i
            if not _pole_follows(tokens, i):
                axes.setdefault("presence", []).append(AxisValue("remove"))
        if "target" in kinds:
            last_target = i
        if "source" in kinds:
            last_source = i
        for tag in tok.tags:
            if tag.kind == "concept":
                content[tok.key] = lex.generic.get(tag.value, 1.0)
                if tag.value in lex.objects:
                    subject = subject or tag.value
                    objects.add(tag.value)
                categories.add(lex.hypernym.get(tag.value.replace("_", " "), tag.value))
            elif tag.kind in ("pole", "value"):
                if tag.axis == "number" and tag.value == "1" and _next_key(tokens, i) == "of":
                    continue  # "one of the cups" is not a count
                value = tag.value
                if tag.kind == "pole" and i - last_neg <= _NEG_REACH:
                    value = _flip(tag.axis, value)
                # the nearest marker before a value decides: "from smiling to frowning"
                target = 0 < i - last_target <= _MARK_REACH and last_target > last_source
                source = 0 < i - last_source <= _MARK_REACH and last_source > last_target
                axes.setdefault(tag.axis, []).append(AxisValue(value, target=target, source=source))
                if tag.kind == "pole" and tag.axis not in ("side", "depth"):
                    change = True
        if not tok.tags and tok.key not in lex.stopwords and not tok.key.isdigit():
            content[tok.key] = lex.generic.get(tok.key, 1.0)
            categories.add(lex.hypernym.get(tok.key, tok.key))
    return Analysis(text, content, frozenset(categories), {a: tuple(v) for a, v in axes.items()},
                    change, shared, cue, subject, frozenset(objects))


def _is_scale(tok: Token) -> bool:
    return any(t.kind in ("pole", "value") and t.axis != "amount" for t in tok.tags)


def _pole_follows(tokens: Sequence[Token], i: int) -> bool:
    return any(t.has("pole") for t in tokens[i + 1:i + 1 + _NEG_REACH])


def _next_key(tokens: Sequence[Token], i: int) -> str:
    return tokens[i + 1].key if i + 1 < len(tokens) else ""


def contradicts(claim: Analysis, item: Analysis) -> bool:
    """Does the claim take the opposite position of the item on an axis both speak about?"""
    for axis in claim.axes.keys() & item.axes.keys():
        tc, ti = claim.target(axis), item.target(axis)
        if tc == ti:
            continue
        if tc.startswith("not-") or ti.startswith("not-"):  # "no longer smiling" on a 3-pole axis
            if tc.removeprefix("not-") == ti or ti.removeprefix("not-") == tc:
                return True
            continue
        if tc not in item.values(axis):
            return True  # a value the item never mentions: "blue" for a red/green item
        if tc in item.sources(axis):
            return True  # the claim gives the *old* state as the new one ("is red" for "red to blue")
        if claim.directed(axis) and item.directed(axis):
            return True  # both say which way, and the ways differ ("red to blue" vs "blue to red")
    return False


def object_relation(claim: Analysis, item: Analysis) -> str:
    """``same`` object (or no object to compare), ``misnamed`` (another object in the same
    slot: a bicycle for a motorcycle in front of the shop) or ``unrelated`` (another object,
    nothing else in common: a vase vs a clock on the shelf... unless a place is shared)."""
    if not (claim.subject and item.subject and claim.subject not in item.objects and item.subject not in claim.objects):
        return "same"
    context = (claim.content.keys() & item.content.keys()) - {f"C:{o}" for o in claim.objects | item.objects}
    return "misnamed" if context or claim.values("place") & item.values("place") else "unrelated"


def other_object(claim: Analysis, item: Analysis) -> bool:
    """The claim names a different object than the item in the same slot."""
    return object_relation(claim, item) == "misnamed"


def _axis_weight(axis: str) -> float:
    return load_lexicon().axis_weight.get(axis, 0.5)


def _total_weight(a: Analysis, idf: dict) -> float:
    w = sum(v * idf.get(k, 1.0) for k, v in a.content.items())
    return w + sum(2 * _axis_weight(ax) for ax in a.axes)


def similarity(claim: Analysis, item: Analysis, idf: Optional[dict] = None) -> float:
    """How well ``item`` explains ``claim``, in [0, 1].

    A blend of the share of the claim's weight the item covers (0.6) and the share of the
    item's weight the claim covers (0.4). Shared content keys count fully; an axis both
    speak about counts half, and the other half when they agree on its target; two
    different objects in the same slot count a little (it may be a misnamed object);
    different objects with nothing else in common do not match at all.

    >>> round(similarity(analyze("the tv was removed"), analyze("A television has been removed")), 2)
    1.0
    """
    idf = idf or {}
    relation = object_relation(claim, item)
    if relation == "unrelated":
        return 0.0  # two different objects with nothing else in common are two different claims
    shared = 0.0
    for k in claim.content.keys() & item.content.keys():
        shared += claim.content[k] * idf.get(k, 1.0)
    # a weaker cue when both name members of one category ("a man" / "a person")
    loose = (claim.categories & item.categories) - {k[2:] for k in claim.content.keys() & item.content.keys()}
    shared += 0.5 * len(loose)
    if relation == "misnamed":
        shared += 0.5
    for axis in claim.axes.keys() & item.axes.keys():
        shared += _axis_weight(axis)
        if claim.target(axis) == item.target(axis):
            shared += _axis_weight(axis)
    wc, wi = _total_weight(claim, idf), _total_weight(item, idf)
    if wc == 0 or wi == 0:
        return 0.0
    return min(1.0, 0.6 * shared / wc + 0.4 * shared / wi)


def item_idf(items: Sequence[Analysis]) -> dict:
    """Down-weight keys shared by several items of one list (they cannot tell items apart)."""
    df: dict[str, int] = {}
    for a in items:
        for k in a.content:
            df[k] = df.get(k, 0) + 1
    return {k: 1.0 / (1.0 + 0.5 * math.log(n)) if n > 1 else 1.0 for k, n in df.items()}
