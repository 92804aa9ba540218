"""The shipped baselines: ``reference_diff``, ``tagger`` (image-side hook), ``frequency`` and ``random``.

Each is a small class with a ``name`` and ``__call__(data: DetectorInput) -> ranked
guesses``; options are constructor arguments. Same input and options -> same guesses.
"""
from __future__ import annotations

import zlib
from typing import Any, Callable, Optional, Sequence

import numpy as np

from benchcore.errors import InputError
from symbalbench.baselines.base import DetectorInput, Guess, indicator_matrix, phi_matrix, rank_pairs
from symbalbench.baselines.concepts import ConceptVocabulary, default_vocabulary

DEFAULT_TOP = 5
# Only errors asserted (unsupported) in at least this many rows are candidates: one-off
# slips cannot be systematic.
MIN_ERROR_ROWS = 2
# A concept the evidence never mentions anywhere (e.g. devices, when references are report
# impressions that only list findings) is "unsupported" everywhere without being an error:
# such a candidate error keeps only this share of its association score.
UNCOVERED_WEIGHT = 0.5


def _sorted_names(counts: dict[str, int], min_count: int) -> list[str]:
    return sorted((n for n, c in counts.items() if c >= min_count), key=lambda n: (-counts[n], n))


def _counts(sets: Sequence[set[str]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for s in sets:
        for n in s:
            out[n] = out.get(n, 0) + 1
    return out


def associate(asserted: Sequence[set[str]], support: Sequence[Optional[set[str]]], top: int,
              max_errors: int = 10) -> list[Guess]:
    """Rank (t, v) by the association of "t asserted but unsupported" with "v evidenced".

    ``asserted[r]``: names the caption of row r asserts; ``support[r]``: names the row's
    independent evidence (references or image tags) asserts, or None when the row has
    none (then it gives no error evidence). Evidence of v is ``support | asserted``:
    a caption's other mentions are evidence too (reports name devices in the findings).
    A candidate error the support never mentions in any row is down-weighted
    (:data:`UNCOVERED_WEIGHT`): the evidence may simply not speak about that kind of thing.
    """
    errors = [(a - s) if s is not None else set() for a, s in zip(asserted, support)]
    evidence = [(s or set()) | a for a, s in zip(asserted, support)]
    covered = set().union(*(s for s in support if s)) if any(support) else set()
    t_names = _sorted_names(_counts(errors), MIN_ERROR_ROWS)[:max_errors]
    v_counts = _counts(evidence)
    v_names = [n for n in _sorted_names(v_counts, 2) if v_counts[n] < len(evidence)]
    if not t_names or not v_names:
        return []
    phi = phi_matrix(indicator_matrix(errors, t_names), indicator_matrix(evidence, v_names))
    weight = np.array([1.0 if t in covered else UNCOVERED_WEIGHT for t in t_names])[:, None]
    return rank_pairs(phi * weight, t_names, v_names, top)


class ReferenceDiff:
    """Reference-based, no model: caption phrases the references do not support are error
    candidates; the visual feature is the concept most associated with those errors
    (phi / Cramér's V); guesses are ranked by that association."""

    name = "reference_diff"
    variant = "reference_based"

    def __init__(self, top: int = DEFAULT_TOP, vocabulary: Optional[ConceptVocabulary] = None, max_errors: int = 10,
                 max_references: Optional[int] = None):
        self.top, self.vocabulary, self.max_errors = int(top), vocabulary, int(max_errors)
        # Read at most this many references per row (fewer references = weaker evidence; used
        # to stress the baseline on synthetic data where all references are clean).
        self.max_references = None if max_references is None else int(max_references)

    def __call__(self, data: DetectorInput) -> list[Guess]:
        if data.references is None:
            raise InputError("reference_diff needs references: run it on the reference_based variant")
        vocab = self.vocabulary or default_vocabulary()
        asserted = [vocab.find(c) for c in data.captions]
        refs_used = [list(refs or [])[:self.max_references] for refs in data.references]
        support = [vocab.find_all(refs) if refs else None for refs in refs_used]
        return associate(asserted, support, self.top, self.max_errors)


class TaggerDetector:
    """Reference-free, image side: a user-supplied ``tagger(image) -> list[str]`` (e.g. a
    CLIP zero-shot tagger, see :class:`EmbeddingTagger`) says what each image shows;
    caption concepts the tags do not support are error candidates, tags are the evidence
    of v; ranking as in :class:`ReferenceDiff`."""

    name = "tagger"
    variant = "reference_free"

    def __init__(self, tagger: Callable[[Any], Sequence[str]], top: int = DEFAULT_TOP,
                 vocabulary: Optional[ConceptVocabulary] = None, max_errors: int = 10):
        if not callable(tagger):
            raise TypeError("tagger must be a callable image -> list of names")
        self.tagger, self.top, self.vocabulary, self.max_errors = tagger, int(top), vocabulary, int(max_errors)

    def _tags(self, vocab: ConceptVocabulary, image: Any) -> set[str]:
        tags = set()
        for tag in self.tagger(image):
            tags |= {tag} if tag in vocab.names else vocab.find(str(tag))
        return tags

    def __call__(self, data: DetectorInput) -> list[Guess]:
        vocab = self.vocabulary or default_vocabulary()
        asserted = [vocab.find(c) for c in data.captions]
        support = [self._tags(vocab, data.load_image(ref)) for ref in data.images]
        return associate(asserted, support, self.top, self.max_errors)


class EmbeddingTagger:
    """Turn embedding functions into a tagger: the ``top_n`` vocabulary names whose text
    embedding is most similar (cosine) to the image embedding, above ``threshold``.

    ``image_fn(image) -> vector`` and ``text_fn(list[str]) -> matrix`` are the user's
    (e.g. a CLIP model's two towers); nothing is downloaded here.
    """

    def __init__(self, image_fn: Callable[[Any], Any], text_fn: Callable[[list[str]], Any],
                 names: Optional[Sequence[str]] = None, top_n: int = 5, threshold: Optional[float] = None,
                 prompt: str = "a photo of {}"):
        self.image_fn, self.top_n, self.threshold = image_fn, int(top_n), threshold
        self.names = list(names) if names is not None else list(default_vocabulary().names)
        emb = np.asarray(text_fn([prompt.format(n) for n in self.names]), dtype=np.float64)
        self._text = emb / np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-12)

    def __call__(self, image: Any) -> list[str]:
        v = np.asarray(self.image_fn(image), dtype=np.float64).ravel()
        sims = self._text @ (v / max(float(np.linalg.norm(v)), 1e-12))
        order = sorted(range(len(self.names)), key=lambda j: (-sims[j], self.names[j]))[:self.top_n]
        return [self.names[j] for j in order if self.threshold is None or sims[j] >= self.threshold]


class Frequency:
    """Floor: the most often co-mentioned caption concepts, no association, no evidence."""

    name = "frequency"
    variant = "reference_free"

    def __init__(self, top: int = DEFAULT_TOP, vocabulary: Optional[ConceptVocabulary] = None):
        self.top, self.vocabulary = int(top), vocabulary

    def __call__(self, data: DetectorInput) -> list[Guess]:
        vocab = self.vocabulary or default_vocabulary()
        asserted = [vocab.find(c) for c in data.captions]
        names = _sorted_names(_counts(asserted), 1)[:30]
        m = indicator_matrix(asserted, names).astype(np.float64)
        return rank_pairs(m.T @ m, names, names, self.top)


class RandomBaseline:
    """Floor: distinct (t, v) pairs drawn uniformly from the concepts the captions mention.

    Seeded by ``seed`` and a checksum of the captions, so the same dataset always gets the
    same guesses while different datasets get different ones.
    """

    name = "random"
    variant = "reference_free"

    def __init__(self, top: int = DEFAULT_TOP, seed: int = 0, vocabulary: Optional[ConceptVocabulary] = None):
        self.top, self.seed, self.vocabulary = int(top), int(seed), vocabulary

    def __call__(self, data: DetectorInput) -> list[Guess]:
        vocab = self.vocabulary or default_vocabulary()
        names = sorted(vocab.find_all(data.captions))
        if len(names) < 2:
            return []
        checksum = zlib.crc32("\n".join(data.captions).encode("utf-8"))
        rng = np.random.default_rng([self.seed, checksum])
        pairs = [(t, v) for t in names for v in names if t != v]
        pick = rng.choice(len(pairs), size=min(self.top, len(pairs)), replace=False)
        return [{"text_error": pairs[i][0], "visual_feature": pairs[i][1]} for i in pick]
