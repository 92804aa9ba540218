"""Find the benchmark's concepts (COCO names, findings, devices) asserted in free text.

The baselines need one thing from language: which of the benchmark's feature names a
caption or reference *asserts*. Nothing here is new vocabulary: the names come from
the builder's name lists (``symbalbench.templates``) and the synonyms, hypernyms
("man" names ``person``) and word normalisation from the embedded judge's lexicon
(``capjudge.embedded``), so a baseline and the judge read words the same way.

A mention inside a negated clause ("No pneumothorax.", "without a pacemaker") is not
an assertion.

>>> vocab = default_vocabulary()
>>> sorted(vocab.find("Two men ride motorbikes past a TV; no dog."))
['motorcycle', 'person', 'tv']
>>> sorted(vocab.find("The heart is enlarged. There is no pleural effusion. A pacer is in place."))
['cardiomegaly', 'pacemaker']
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

from capjudge.embedded.normalize import LEXICON_PATH, lemmas

# Clause boundaries for negation scope: a negation cue reaches to the end of its clause.
_CLAUSE = re.compile(r"[.;:!?,\n]|\b(?:but|while|whereas)\b")


class ConceptVocabulary:
    """Canonical names and the phrases (as lemma tuples) that assert each of them."""

    def __init__(self, phrases: Mapping[str, Iterable[str]], negation_cues: Iterable[str] = ()):
        self.names: list[str] = list(phrases)
        self._index: dict[tuple[str, ...], str] = {}
        for name in self.names:  # earlier names win a phrase claimed twice (deterministic)
            for phrase in [name, *phrases[name]]:
                key = lemmas(phrase)
                if key:
                    self._index.setdefault(key, name)
        self._max_len = max((len(k) for k in self._index), default=1)
        self._negations = {lemmas(c) for c in negation_cues if lemmas(c)}
        self._neg_max = max((len(k) for k in self._negations), default=1)

    def _negated_spans(self, toks: Sequence[str]) -> int:
        """Index of the first token after a negation cue (len(toks) if there is none)."""
        for i in range(len(toks)):
            for n in range(1, self._neg_max + 1):
                if tuple(toks[i:i + n]) in self._negations:
                    return i
        return len(toks)

    def find(self, text: str) -> set[str]:
        """Canonical names asserted (not negated) in ``text``; longest phrase match first."""
        found: set[str] = set()
        for clause in _CLAUSE.split(text or ""):
            toks = lemmas(clause)
            neg_at = self._negated_spans(toks)
            i = 0
            while i < len(toks):
                for n in range(min(self._max_len, len(toks) - i), 0, -1):
                    name = self._index.get(tuple(toks[i:i + n]))
                    if name is not None:
                        if i < neg_at:
                            found.add(name)
                        i += n
                        break
                else:
                    i += 1
        return found

    def find_all(self, texts: Iterable[str]) -> set[str]:
        """Union of :meth:`find` over several texts (e.g. all references of a row)."""
        out: set[str] = set()
        for t in texts:
            out |= self.find(t)
        return out


def _lexicon_groups() -> list[set[str]]:
    """Synonym and hypernym groups of the embedded judge's lexicon (keys use ``_`` for spaces)."""
    lex = json.loads(LEXICON_PATH.read_text(encoding="utf-8"))
    groups = []
    for section in ("synonyms", "categories"):
        for key, words in lex.get(section, {}).items():
            if key.startswith("_") or not isinstance(words, list):
                continue
            groups.append({key.replace("_", " "), *words})
    return groups


@lru_cache(maxsize=1)
def default_vocabulary() -> ConceptVocabulary:
    """COCO's 80 names + the 5 findings + the 5 devices, with every known synonym."""
    from symbalbench.templates import COCO_NAMES, DEVICE_SYNONYMS, MEDICAL_DEVICES, MEDICAL_FINDINGS, NEGATION_CUES

    groups = _lexicon_groups()
    phrases: dict[str, list[str]] = {}
    for name in [*MEDICAL_FINDINGS, *MEDICAL_DEVICES, *COCO_NAMES]:
        extra = [w for g in groups if name in g for w in sorted(g)]
        extra += DEVICE_SYNONYMS.get(name, [])
        phrases[name] = extra
    cues = set(NEGATION_CUES) | {"no", "not", "without", "absent", "negative for", "free of", "never"}
    return ConceptVocabulary(phrases, negation_cues=sorted(cues))
