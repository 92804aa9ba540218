"""Do two names mean the same object, finding or device? (SymbalBench's equivalence question.)

A name is reduced to the set of things it names: lexicon concepts (synonyms joined:
motorbike -> motorcycle, enlarged heart -> cardiomegaly, cardiac device -> pacemaker)
mapped to their category (man -> person), after dropping framing words ("captions
falsely mention", "presence of", "signs of") and modifiers the lexicon knows (colours,
sizes, sides). Two names are equivalent when they name the same non-empty set, neither
is negated alone ("no pacemaker"), and neither ends in a head noun the lexicon does not
know ("dog collar" is not a dog).

>>> equivalent("captions falsely mention a dog", "dog")
True
>>> equivalent("Motorbikes", "motorcycle"), equivalent("enlarged heart", "cardiomegaly")
(True, True)
>>> equivalent("cat", "dog"), equivalent("cardiomegaly", "edema"), equivalent("hot dog", "dog")
(False, False, False)
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from capjudge.embedded.normalize import lemma, load_lexicon, scan

_NEGATORS = frozenset({"no", "not", "without", "absence", "absent", "negative", "free", "NEG"})
_BREAKS = frozenset({"in", "on", "with", "of", "near", "next", "at", "by", "for"})
_STOPS = frozenset({"when", "whenever", "if", "while", "because", "where"})  # what follows is context, not the name


@dataclass(frozen=True)
class Name:
    """What a name refers to."""

    known: frozenset  # lexicon categories it names
    unknown: frozenset  # other content lemmas
    head_known: bool  # is the head noun (last content word of the first phrase) a lexicon concept?
    negated: bool


@lru_cache(maxsize=50_000)
def parse_name(text: str) -> Name:
    """Reduce a predicted or reference name to the things it names."""
    lex = load_lexicon()
    known, unknown = set(), set()
    negated = False
    head_known = None
    in_head_phrase = True
    for tok in scan(text):
        if tok.key in _STOPS:
            break
        if " " not in tok.text and lemma(tok.text) in lex.framing:
            continue
        if tok.key in _NEGATORS or tok.has("neg"):
            negated = True
            continue
        if tok.key in _BREAKS:
            in_head_phrase = in_head_phrase and not (known or unknown)
            continue
        concept = next((t.value for t in tok.tags if t.kind == "concept"), None)
        if concept is not None:
            known.add(lex.hypernym.get(concept.replace("_", " "), concept))
            if in_head_phrase:
                head_known = True
            continue
        if tok.tags or tok.key in lex.stopwords or tok.key in lex.framing or tok.key.isdigit():
            continue
        if tok.key in lex.hypernym:
            known.add(lex.hypernym[tok.key])
            if in_head_phrase:
                head_known = True
            continue
        unknown.add(tok.key)
        if in_head_phrase:
            head_known = False
    return Name(frozenset(known), frozenset(unknown), bool(head_known) if head_known is not None else not unknown, negated)


def equivalent(predicted: str, reference: str, kind: str = "visual_feature") -> bool:
    """True when ``predicted`` names the same thing as ``reference`` (``kind`` is not needed
    by this judge: objects, findings and devices share one lexicon)."""
    p, r = parse_name(predicted), parse_name(reference)
    if p.negated != r.negated:
        return False
    if p.known or r.known:
        return p.known == r.known and p.head_known and r.head_known
    return bool(p.unknown) and p.unknown == r.unknown
