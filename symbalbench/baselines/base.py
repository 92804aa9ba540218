"""The detector interface and the association maths the baselines share.

A *detector* reads ONE dataset and returns ranked guesses::

    detector(data: DetectorInput) -> list[{"text_error": str, "visual_feature": str}]

:class:`DetectorInput` holds only what a real method may see: the captions, the image
references (and a loader for them), and the references in the ``reference_based``
variant. The answer columns of a dataset (``labels``, ``v_present``, ``inserted``,
``template_id``, ``span_*``) and the scenario id (it may spell t and v) are never
passed; :func:`detector_input` is the one place that builds the input from a dataset.

Association: for a candidate error t, ``e_t[r]`` says row r asserts t without support
(its references / image tags do not mention it); for a candidate feature v, ``p_v[r]``
says row r shows evidence of v. A systematic misalignment makes ``e_t`` and ``p_v``
associated; the score of (t, v) is the signed phi coefficient of that 2x2 table (equal
to Cramér's V when positive), computed for all pairs at once with matrix products.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Protocol, Sequence

import numpy as np

Guess = dict  # {"text_error": str, "visual_feature": str}
DETECTOR_COLUMNS: tuple[str, ...] = ("image", "caption", "references")


def _no_loader(ref: str) -> Any:
    raise RuntimeError(f"no image loader was given; cannot open image {ref!r}")


@dataclass(frozen=True)
class DetectorInput:
    """One dataset as a detector sees it: columns of equal length, nothing of the answer."""

    captions: Sequence[str]
    images: Sequence[str]
    references: Optional[Sequence[Sequence[str]]] = None  # None in the reference_free variant
    load_image: Callable[[str], Any] = field(default=_no_loader, compare=False)

    def __post_init__(self):
        if len(self.images) != len(self.captions):
            raise ValueError(f"{len(self.captions)} captions but {len(self.images)} images")
        if self.references is not None and len(self.references) != len(self.captions):
            raise ValueError(f"{len(self.captions)} captions but {len(self.references)} reference lists")

    def __len__(self) -> int:
        return len(self.captions)


class Detector(Protocol):
    """What ``run-baseline`` and the demo call: a name and ``__call__(data) -> ranked guesses``."""

    name: str

    def __call__(self, data: DetectorInput) -> list[Guess]: ...


def detector_input(dataset: Any, load_image: Callable[[str], Any] = _no_loader) -> DetectorInput:
    """Build a :class:`DetectorInput` from a ``datasets.Dataset`` of one scenario.

    Reads the ``caption``, ``image`` and (when present) ``references`` columns as
    Arrow, so images are not decoded and no other column is touched.
    """
    cols = [c for c in DETECTOR_COLUMNS if c in dataset.column_names]
    table = dataset.select_columns(cols).with_format("arrow")[:]
    refs = table.column("references").to_pylist() if "references" in cols else None
    images = table.column("image").to_pylist() if "image" in cols else [""] * table.num_rows
    images = [i if isinstance(i, str) else (i or {}).get("path") or "" for i in images]
    captions = [c or "" for c in table.column("caption").to_pylist()]
    return DetectorInput(captions=captions, images=images, references=refs, load_image=load_image)


def indicator_matrix(sets: Sequence[set[str]], names: Sequence[str]) -> np.ndarray:
    """Rows x names boolean matrix: ``M[r, j]`` is ``names[j] in sets[r]``."""
    col = {n: j for j, n in enumerate(names)}
    m = np.zeros((len(sets), len(names)), dtype=bool)
    for r, s in enumerate(sets):
        for n in s:
            j = col.get(n)
            if j is not None:
                m[r, j] = True
    return m


def phi_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Signed phi coefficient of every column of ``a`` against every column of ``b``.

    For boolean rows x A and rows x B matrices returns A x B. A constant column has
    phi 0 (no association can be seen).

    >>> a = np.array([[1], [1], [0], [0]], dtype=bool); b = np.array([[1, 0], [1, 1], [0, 0], [0, 1]], dtype=bool)
    >>> phi_matrix(a, b).round(3).tolist()
    [[1.0, 0.0]]
    """
    n = a.shape[0]
    if n == 0:
        return np.zeros((a.shape[1], b.shape[1]))
    af, bf = a.astype(np.float64), b.astype(np.float64)
    n11 = af.T @ bf
    na, nb = af.sum(axis=0)[:, None], bf.sum(axis=0)[None, :]
    num = n * n11 - na * nb
    den = np.sqrt(na * (n - na) * nb * (n - nb))
    with np.errstate(divide="ignore", invalid="ignore"):
        phi = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return phi


def rank_pairs(scores: np.ndarray, t_names: Sequence[str], v_names: Sequence[str], top: int,
               min_score: float = 0.0) -> list[Guess]:
    """The ``top`` (t, v) pairs by score (t != v), ties broken by name for determinism."""
    cand = [(-float(scores[i, j]), t, v) for i, t in enumerate(t_names) for j, v in enumerate(v_names)
            if t != v and scores[i, j] > min_score]
    cand.sort()
    return [{"text_error": t, "visual_feature": v} for _, t, v in cand[:top]]
