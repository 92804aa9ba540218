"""Baseline detectors for SymbalBench and the interface any detector follows.

A detector is a callable taking one dataset as a :class:`DetectorInput` (captions,
image references + loader, references in the ``reference_based`` variant — never the
answer columns) and returning a ranked list of ``{"text_error", "visual_feature"}``.

- ``reference_diff`` (reference_based, no model): unsupported caption phrases vs the
  references; the visual feature most associated (phi / Cramér's V) with them.
- ``tagger`` (reference_free): the same with a user-supplied image tagger or
  embedding functions (:class:`EmbeddingTagger`) as evidence instead of references.
- ``frequency`` and ``random``: floors.

>>> data = DetectorInput(captions=["A dog near a car.", "A cat."], images=["a.jpg", "b.jpg"])
>>> make_baseline("frequency", top=1)(data)
[{'text_error': 'car', 'visual_feature': 'dog'}]
"""
from __future__ import annotations

from typing import Any

from symbalbench.baselines.base import DetectorInput, Detector, detector_input, phi_matrix
from symbalbench.baselines.concepts import ConceptVocabulary, default_vocabulary
from symbalbench.baselines.detectors import (EmbeddingTagger, Frequency, RandomBaseline, ReferenceDiff,
                                              TaggerDetector, associate)
from symbalbench.baselines.run import run_detector

BASELINES = {
    "reference_diff": ReferenceDiff,
    "tagger": TaggerDetector,
    "frequency": Frequency,
    "random": RandomBaseline,
}


def make_baseline(name: str, **options: Any) -> Detector:
    """A baseline by name with its options (``top=``, ``seed=`` for random, ``tagger=`` for tagger)."""
    try:
        cls = BASELINES[name]
    except KeyError:
        raise ValueError(f"unknown baseline {name!r}; choose from {', '.join(BASELINES)}") from None
    return cls(**options)


__all__ = ["BASELINES", "ConceptVocabulary", "Detector", "DetectorInput", "EmbeddingTagger", "Frequency",
           "RandomBaseline", "ReferenceDiff", "TaggerDetector", "associate", "default_vocabulary",
           "detector_input", "make_baseline", "phi_matrix", "run_detector"]
