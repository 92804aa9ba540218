"""Text normalisation for the embedded judge: tokens, light lemmas and lexicon tags.

Nothing is downloaded: lemmas come from a few suffix rules plus the irregular forms in
``lexicon.json``. The rules are a *stemmer* more than a dictionary lemmatiser — what
matters is that the same word always maps to the same key on both sides of a
comparison, because every lexicon phrase is put through the very same pipeline.

>>> [lemma(w) for w in ["dogs", "buses", "smiling", "smiled", "smile", "added", "men", "blurred"]]
['dog', 'bus', 'smil', 'smil', 'smil', 'add', 'man', 'blur']
>>> [t.key for t in scan("The motorbike isn't there")]
['the', 'C:motorcycle', 'NEG', 'ther']
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Optional

LEXICON_PATH = Path(__file__).with_name("lexicon.json")

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_VOWELS = set("aeiouy")


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens; ``n't`` becomes ``not`` and possessive ``'s`` is dropped.

    >>> tokenize("The man's hat doesn't fit, T-shirt!")
    ['the', 'man', 'hat', 'does', 'not', 'fit', 't', 'shirt']
    """
    text = text.lower().replace("\u2019", "'").replace("can't", "can not").replace("won't", "will not")
    text = text.replace("n't", " not")
    out = []
    for w in _WORD.findall(text):
        if w.endswith("'s"):
            w = w[:-2]
        out.append(w.replace("'", ""))
    return [w for w in out if w]


def _strip_double(w: str) -> str:
    # "runn" -> "run", "blurr" -> "blur"; keep "ss", "ll" endings as they are real ("glass").
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "slz" and w[-1] not in _VOWELS:
        return w[:-1]
    return w


def _stem(w: str) -> str:
    if len(w) <= 3 or w.isdigit():
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith(("sses", "xes", "ches", "shes", "zes")):
        w = w[:-2]
    elif w.endswith("ses") and len(w) > 5:
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("ing") and len(w) > 5:
        w = _strip_double(w[:-3])
    elif w.endswith("ied") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("ed") and len(w) > 4:
        w = _strip_double(w[:-2])
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


@lru_cache(maxsize=50_000)
def lemma(word: str) -> str:
    """The comparison key of one token (irregular forms first, then suffix rules)."""
    irregular = load_lexicon().irregular
    return irregular.get(word) or _stem(word)


def lemmas(text: str) -> tuple[str, ...]:
    """Lemma keys of every token of ``text``."""
    return tuple(lemma(w) for w in tokenize(text))


@dataclass(frozen=True)
class Tag:
    """What a lexicon phrase means: ``kind`` is concept/pole/value/neg/target/source/change/shared."""

    kind: str
    axis: str = ""
    value: str = ""


@dataclass(frozen=True)
class Token:
    """One scanned unit: a plain word or a lexicon phrase, with its tags."""

    text: str
    key: str
    tags: tuple[Tag, ...]
    pos: int

    def has(self, kind: str) -> bool:
        return any(t.kind == kind for t in self.tags)


class Lexicon:
    """The compiled word knowledge of ``lexicon.json`` (see that file's ``_about``)."""

    def __init__(self, data: dict, digest: str):
        self.digest = digest
        self.irregular: dict[str, str] = dict(data["irregular"])
        self.raw = data
        self._phrases: dict[tuple[str, ...], list[Tag]] = {}
        self.max_len = 1

    def compile(self) -> "Lexicon":
        d = self.raw
        for canon, variants in d["synonyms"].items():
            for v in [canon.replace("_", " "), *variants]:
                self._add(v, Tag("concept", value=canon))
        for axis, spec in d["axes"].items():
            for pole, words in spec["poles"].items():
                for w in words:
                    self._add(w, Tag("pole", axis, pole))
        for axis, spec in d["value_axes"].items():
            for value, words in spec["values"].items():
                for w in words:
                    self._add(w, Tag("value", axis, value))
        for kind, key in (("neg", "negations"), ("target", "target_markers"), ("source", "source_markers"),
                          ("change", "change_cues"), ("shared", "shared_scene_cues")):
            for w in d[key]:
                self._add(w, Tag(kind))
        self.stopwords = frozenset(lemmas_raw(w, self.irregular) for w in d["stopwords"])
        self.generic = {lemmas_raw(w, self.irregular): float(v) for w, v in d["generic"].items()}
        self.axis_weight = {a: float(s["weight"]) for a, s in {**d["axes"], **d["value_axes"]}.items()}
        self.value_axes = frozenset(d["value_axes"])
        self.objects = frozenset(d["object_concepts"])
        self.meta = frozenset(lemmas_raw(w, self.irregular) for m in d["meta_words"] for w in tokenize(m))
        self.framing = frozenset(lemmas_raw(w, self.irregular) for w in d["framing"])
        self.hypernym: dict[str, str] = {}
        for cat, members in d["categories"].items():
            if cat.startswith("_"):
                continue
            for m in members:
                key = tuple(lemmas_raw(w, self.irregular) for w in tokenize(m))
                self.hypernym[" ".join(key)] = cat
        return self

    def _add(self, phrase: str, tag: Tag) -> None:
        key = tuple(lemmas_raw(w, self.irregular) for w in tokenize(phrase))
        if not key:
            return
        tags = self._phrases.setdefault(key, [])
        if tag not in tags:
            tags.append(tag)
        self.max_len = max(self.max_len, len(key))

    def lookup(self, key: tuple[str, ...]) -> Optional[list[Tag]]:
        return self._phrases.get(key)


def lemmas_raw(word: str, irregular: dict[str, str]) -> str:
    """:func:`lemma` without the cache, for compiling the lexicon itself."""
    return irregular.get(word) or _stem(word)


def lexicon_files() -> list[Path]:
    """The data files whose content defines the judge (hashed into its signature)."""
    return [LEXICON_PATH]


@lru_cache(maxsize=1)
def load_lexicon() -> Lexicon:
    """Read and compile ``lexicon.json`` once per process."""
    raw = LEXICON_PATH.read_bytes()
    data = json.loads(raw)
    return Lexicon(data, hashlib.sha256(raw).hexdigest()[:12]).compile()


def scan(text: str) -> list[Token]:
    """Tokens of ``text`` with lexicon phrases joined greedily, longest first.

    A phrase found in the lexicon becomes one token whose ``key`` names its first tag
    (``C:<concept>``, ``P:<axis>=<pole>``, ``V:<axis>=<value>`` or the marker kind).
    """
    lex = load_lexicon()
    words = tokenize(text)
    keys = [lemma(w) for w in words]
    out: list[Token] = []
    i = 0
    while i < len(keys):
        found = None
        for n in range(min(lex.max_len, len(keys) - i), 0, -1):
            tags = lex.lookup(tuple(keys[i:i + n]))
            if tags:
                found = (n, tags)
                break
        if found is None:
            out.append(Token(words[i], keys[i], (), len(out)))
            i += 1
            continue
        n, tags = found
        out.append(Token(" ".join(words[i:i + n]), _tag_key(tags[0]), tuple(tags), len(out)))
        i += n
    return out


def _tag_key(tag: Tag) -> str:
    if tag.kind == "concept":
        return f"C:{tag.value}"
    if tag.kind in ("pole", "value"):
        return f"{'P' if tag.kind == 'pole' else 'V'}:{tag.axis}={tag.value}"
    return tag.kind.upper()


def content_keys(tokens: Iterable[Token]) -> list[str]:
    """Keys of tokens that carry meaning on their own (no stop words, no markers)."""
    lex = load_lexicon()
    out = []
    for t in tokens:
        if t.tags:
            if any(tag.kind == "concept" for tag in t.tags):
                out.append(t.key)
            continue
        if t.key in lex.stopwords or t.key.isdigit():
            continue
        out.append(t.key)
    return out
