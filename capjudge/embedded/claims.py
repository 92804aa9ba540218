"""Split a prediction into atomic claims: sentences, clauses, conjunctions and lists.

The splitter works on surface cues only (punctuation, conjunctions, a list of clause
verbs from ``lexicon.json``), so it is fast and predictable:

* sentences end at ``. ! ? ;`` and new lines; bullet and number markers are dropped;
* a sentence is cut at ``and``/``but``/``while``/``whereas``/commas when both sides are
  clauses (have a verb);
* a list of noun phrases sharing one predicate is distributed:
  "a cat, a dog and a bird were added" -> three claims, each "... were added";
* adjectives after the last clause stay with it ("the sky is overcast and grey");
* a clause without a subject borrows the subject of the first one:
  "the man raised his arm and smiled" -> "the man raised his arm", "the man smiled".

>>> split_claims("A cat, a dog and a bird were added. The man raised his arm and smiled!")
['A cat were added', 'a dog were added', 'a bird were added', 'The man raised his arm', 'The man smiled']
>>> split_claims("The car changed from red to blue; the sky is brighter")
['The car changed from red to blue', 'the sky is brighter']
"""
from __future__ import annotations

import re
from functools import lru_cache

from capjudge.embedded.normalize import _stem, load_lexicon, tokenize

_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+|(?<=[a-z0-9\)\"'])[.!?;]+$")
_BULLET = re.compile(r"^\s*(?:[-*\u2022]+|\(?\d{1,2}[.)]|\(?[a-z][)])\s+")
_CONJ = re.compile(r"(\s*,\s*(?:and|but|while|whereas|although|plus)\s+|\s+(?:and|but|while|whereas|although|plus)\s+|\s*,\s*)",
                   re.IGNORECASE)
_ADVERBS = frozenset({"more", "less", "now", "also", "then", "slightly", "much", "very", "has", "have", "is", "are", "was", "were"})
_RELATIVE = frozenset({"which", "who", "that", "where", "whose"})
_DETERMINERS = frozenset({"a", "an", "the", "two", "three", "four", "some", "several", "one", "his", "her", "their", "its"})


@lru_cache(maxsize=1)
def _verbs() -> frozenset[str]:
    return frozenset(load_lexicon().raw["clause_verbs"])


def _has_verb(words: list[str]) -> bool:
    verbs = _verbs()
    for w in words:
        if w in verbs or (len(w) > 4 and w.endswith("ed")) or (len(w) > 5 and w.endswith("ing") and w not in ("building", "ceiling", "painting", "clothing", "evening", "morning")):
            return True
    return False


def _first_verb_index(words: list[str]) -> int:
    for i, w in enumerate(words):
        if _has_verb([w]):
            return i
    return -1


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` without bullet markers or trailing punctuation."""
    out = []
    for line in text.strip().splitlines():
        for part in _SENTENCE_END.split(_BULLET.sub("", line).strip()):
            part = part.strip().rstrip(".!?;:, ").strip()
            if part:
                out.append(part)
    return out


def _split_clauses(sentence: str) -> list[str]:
    pieces = _CONJ.split(sentence)  # [part, separator, part, separator, ...]
    parts, seps = pieces[0::2], [""] + pieces[1::2]
    if len(parts) <= 1:
        return [sentence.strip()]
    claims: list[str] = []
    pending: list[tuple[str, str]] = []  # (separator, verbless part) waiting for a predicate
    subject = ""
    for sep, part in zip(seps, parts):
        part = part.strip()
        if not part:
            continue
        ws = tokenize(part)
        participle = sep.strip() == "," and ws and ws[0].endswith("ing") and claims and not pending
        if ws and (ws[0] in _RELATIVE or participle):  # "..., which was black," / "..., looking down" belong to what precedes
            if pending:
                pending[-1] = (pending[-1][0], pending[-1][1] + sep + part)
            elif claims:
                claims[-1] = claims[-1] + sep + part
            continue
        if not _has_verb(ws):
            pending.append((sep, part))
            continue
        v = _first_verb_index(ws)
        if subject and not pending and all(w in _ADVERBS for w in ws[:v]):
            part = f"{subject} {part[0].lower()}{part[1:]}"
        if pending:
            if v > 0 and all(_is_noun_phrase(p) for _, p in pending):
                predicate = _tail_from_word(part, v)
                claims.extend(f"{p} {predicate}" for _, p in pending)
            else:  # an adverbial ("on the left, ...") or a split adjective ("red and blue kite")
                part = pending[0][1] + "".join(s + p for s, p in pending[1:]) + sep + part
                v = _first_verb_index(tokenize(part))
            pending = []
        if not subject and v > 0:
            subject = _head_words(part, v)
        claims.append(part)
    if pending:
        claims = _attach_tail(claims, pending)
    return claims


def _attach_tail(claims: list[str], pending: list[tuple[str, str]]) -> list[str]:
    """Verbless parts after the last clause are glued back to it
    ("... with a hat and a scarf", "the sky is overcast and grey")."""
    tail = "".join(s + p for s, p in pending)
    return claims[:-1] + [claims[-1] + tail] if claims else [tail.strip(" ,")]


def _is_noun_phrase(part: str) -> bool:
    """A named object or a determiner + noun, not an adverbial like "on the left" or "a red"."""
    lex = load_lexicon()
    ws = tokenize(part)
    tags = [lex.lookup((lex.irregular.get(w) or _stem(w),)) or [] for w in ws]
    if any(t.kind == "concept" for ts in tags for t in ts):
        return True
    return len(ws) >= 2 and ws[0] in _DETERMINERS and not tags[-1]


def _nth_word_offset(text: str, n: int) -> int:
    """Character offset of the n-th word token in ``text`` (as :func:`tokenize` counts)."""
    count = 0
    for m in re.finditer(r"[A-Za-z0-9]+(?:['\u2019][A-Za-z]+)?", text):
        if count == n:
            return m.start()
        count += 1
    return len(text)


def _tail_from_word(text: str, n: int) -> str:
    return text[_nth_word_offset(text, n):].strip()


def _head_words(text: str, n: int) -> str:
    return text[:_nth_word_offset(text, n)].strip()


def split_claims(text: str) -> list[str]:
    """Atomic claims of a prediction, in reading order (empty list for blank text)."""
    out: list[str] = []
    for sentence in split_sentences(text):
        out.extend(c for c in _split_clauses(sentence) if c.strip())
    return out
