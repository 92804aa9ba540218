"""Reference "models" that write predictions from the ground-truth difference lists.

They exist so a newcomer can see the metric rank known-good and known-bad outputs
sensibly (``diffcap-bench demo``), and so tests have realistic predictions:

* ``perfect`` states every key item, nothing else;
* ``noisy`` drops some key items and garbles some others (swaps left/right, colours,
  added/removed, ... so the claim addresses the item but states it wrongly);
* ``hallucinating`` states only some key items and invents differences that are not there.

Deterministic: the same (model, pair, seed) always gives the same text.

>>> from capjudge import Item
>>> items = (Item("d1", "a red cup was added on the left", "object"), Item("d2", "faint blur", "image_property", True))
>>> predict("perfect", items, seed=0)
'A red cup was added on the left.'
>>> garble("a red cup was added on the left")
'a blue cup was added on the left'
"""
from __future__ import annotations

import random
import re
from typing import Iterable, Optional, Sequence

from capjudge.protocol import Item

REFERENCE_MODELS: tuple[str, ...] = ("perfect", "noisy", "hallucinating")

# Word swaps that turn a true statement about an item into a wrong one. Symmetric.
_SWAPS = {
    "left": "right", "top": "bottom", "added": "removed", "appears": "disappears", "larger": "smaller",
    "bigger": "smaller", "brighter": "darker", "open": "closed", "more": "fewer", "up": "down",
    "red": "blue", "green": "yellow", "black": "white", "sitting": "standing", "smiling": "frowning",
    "closer": "farther", "above": "below", "front": "back",
    "increased": "decreased", "raised": "lowered", "two": "three", "four": "five",
}
SWAPS = {**_SWAPS, **{v: k for k, v in _SWAPS.items()}}
_WORD = re.compile(r"[A-Za-z]+")

# Differences that are not in any pair: what a hallucinating model adds.
INVENTED = (
    "a purple giraffe appears next to the fence",
    "a hot air balloon is added in the sky",
    "a snowman now stands in the corner",
    "a violin is lying on the floor",
    "a rainbow stretches over the whole scene",
    "a pirate flag was added on the roof",
    "a flock of flamingos appears in the distance",
    "a crystal chandelier hangs from the ceiling",
)

NOISY_DROP, NOISY_GARBLE = 0.3, 0.15  # share of key items the noisy model drops / garbles
HALLUCINATING_KEEP, HALLUCINATING_INVENT = 0.4, (2, 4)  # share kept; how many inventions per pair


def garble(text: str, rng: Optional[random.Random] = None) -> str:
    """Swap one swappable word (the first, or one chosen by ``rng``) so the statement becomes wrong.

    Capitalisation is kept; the text is returned unchanged when it has no swappable word.
    """
    hits = [m for m in _WORD.finditer(text) if m.group(0).lower() in SWAPS]
    if not hits:
        return text
    m = rng.choice(hits) if rng is not None else hits[0]
    w = m.group(0)
    new = SWAPS[w.lower()]
    new = new.capitalize() if w[0].isupper() else new
    return text[:m.start()] + new + text[m.end():]


def _sentence(text: str) -> str:
    text = text.strip().rstrip(".")
    return text[:1].upper() + text[1:] + "." if text else ""


def _join(parts: Sequence[str]) -> str:
    return " ".join(_sentence(p) for p in parts if p.strip())


def predict(model: str, items: Sequence[Item], seed: int = 0, pair_id: str = "") -> str:
    """The prediction of reference ``model`` for one pair's ``items``."""
    rng = random.Random(f"{seed}:{model}:{pair_id}")
    keys = [it.text for it in items if not it.ambiguous]
    if model == "perfect":
        return _join(keys)
    if model == "noisy":
        out = []
        for text in keys:
            r = rng.random()
            if r < NOISY_DROP:
                continue
            if r < NOISY_DROP + NOISY_GARBLE and garble(text) != text:
                out.append(garble(text, rng))
            else:
                out.append(text)
        return _join(out)
    if model == "hallucinating":
        kept = [t for t in keys if rng.random() < HALLUCINATING_KEEP]
        invented = rng.sample(INVENTED, rng.randint(*HALLUCINATING_INVENT))
        parts = kept + invented
        rng.shuffle(parts)
        return _join(parts)
    raise ValueError(f"unknown reference model {model!r}; choose from {', '.join(REFERENCE_MODELS)}")


def predict_pairs(model: str, pairs: Iterable, seed: int = 0) -> dict[str, str]:
    """``{pair_id: prediction}`` of ``model`` for pairs with ``pair_id`` and ``items`` (e.g. judging.Pair)."""
    return {p.pair_id: predict(model, p.items, seed, p.pair_id) for p in pairs}


def _norm(text: str) -> str:
    return " ".join(text.lower().strip().rstrip(".").split())


def exact_match_judge(items: Sequence[dict], prediction: str) -> dict:
    """A literal judge for the reference models (tests, benchmarks): not a real judge.

    Each sentence is one claim: equal to a key item's text -> ``correct``; equal to a
    garbled key item -> ``wrong``; equal to an ambiguous item -> ``ambiguous``; else
    ``hallucination``. ``items`` are dicts as a callable judge receives them.

    >>> items = [{"id": "d1", "text": "a red cup was added", "category": "object", "ambiguous": False}]
    >>> [c["label"] for c in exact_match_judge(items, "A red cup was added. A blue cup was added. A dog.")["claims"]]
    ['correct', 'wrong', 'hallucination']
    """
    exact = {_norm(it["text"]): it for it in items}
    garbled = {_norm(garble(it["text"])): it for it in items if not it["ambiguous"]}
    claims = []
    for sentence in re.split(r"(?<=\.)\s+", prediction.strip()):
        if not sentence.strip():
            continue
        key = _norm(sentence)
        if key in exact:
            it = exact[key]
            label = "ambiguous" if it["ambiguous"] else "correct"
        elif key in garbled:
            it, label = garbled[key], "wrong"
        else:
            it, label = None, "hallucination"
        claims.append({"text": sentence, "label": label, "item": it["id"] if it else None})
    return {"claims": claims}
