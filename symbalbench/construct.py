"""Construction of one misalignment dataset: eligibility, exact 2x2 counts, sampling, insertion.

**The association.** A dataset is every base record once. Each row has two binary facts:
"v is in the image" (the row's ``labels`` contain v) and "t is asserted" (a t sentence was
inserted into its caption). Cramér's V of this 2x2 table over *all* rows is the strength:

    n11 = v present, t inserted      n10 = v present, t not inserted
    n01 = v absent,  t inserted      n00 = v absent,  t not inserted
    V = (n11*n00 - n10*n01) / sqrt(n1. * n0. * n.1 * n.0)

(for a 2x2 table Cramér's V is |phi|; we only build positive associations, so V = phi).

**Eligibility.** t is inserted only where it is an error: never in a row whose labels contain t,
nor where t is uncertain (MIMIC -1.0). Such rows stay in the dataset and simply count as
"t not inserted" (n10 or n00) — they are real image-caption pairs that do not assert t.
So with e1 / e0 eligible rows among v-present / v-absent rows, n11 <= e1 and n01 <= e0.

**Exact counts.** :func:`choose_counts` searches the integers: for every n11 in 1..e1 it solves
the quadratic phi(n11, n01) = target for n01 and tries the neighbouring integers. Among the
candidates within ``precision`` (default 0.005) of the target it keeps the largest n11 (as many
v-images as possible repeat the error — "captions repeat t whenever v is present"), then the
smallest error. If none is that close it keeps the closest. If the closest is further than
``tolerance`` (0.02) the scenario is refused with a reason.

**Which rows.** The n11 and n01 rows are drawn uniformly among eligible rows with a generator
seeded by (seed, scenario_id) — among rows whose caption does not explicitly negate t first
(MIMIC blank before 0.0), so an inserted claim contradicts the report only when the counts need
it. Each gets a template (uniform) inserted at a sentence boundary (uniform over the caption's
boundaries, start and end included). Same seed -> same rows.
"""
from __future__ import annotations

import dataclasses
import math
import re
import warnings
import zlib
from typing import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

DEFAULT_TOLERANCE = 0.02
DEFAULT_PRECISION = 0.005


# ---------------------------------------------------------------------------- the 2x2 table
def cramers_v(n11: int, n10: int, n01: int, n00: int) -> float:
    """Signed phi of a 2x2 table (Cramér's V is its absolute value); 0 for a degenerate table.

    >>> round(cramers_v(50, 0, 0, 50), 3), round(cramers_v(25, 25, 25, 25), 3)
    (1.0, 0.0)
    """
    r1, r0, c1, c0 = n11 + n10, n01 + n00, n11 + n01, n10 + n00
    den = math.sqrt(float(r1) * r0 * c1 * c0)
    return 0.0 if den == 0 else (float(n11) * n00 - float(n10) * n01) / den


def _phi(a: np.ndarray, c: np.ndarray, n1: int, n0: int) -> np.ndarray:
    """Vectorised phi when a of n1 v-rows and c of n0 other rows are inserted."""
    n = n1 + n0
    m1 = a + c
    den = np.sqrt(float(n1) * n0 * m1 * (n - m1))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (a * n0 - c * n1) / den
    return np.where(den > 0, out, np.nan)


@dataclasses.dataclass(frozen=True)
class Counts:
    """The chosen 2x2 table and the V it achieves."""

    n11: int
    n10: int
    n01: int
    n00: int
    achieved_v: float


@dataclasses.dataclass(frozen=True)
class Refusal:
    """A scenario the base cannot support, and why."""

    reason: str


def max_reachable_v(n1: int, n0: int, e1: int) -> float:
    """The largest V possible: every eligible v-row asserts t, no other row does.

    >>> round(max_reachable_v(100, 900, 100), 3)
    1.0
    """
    if n1 == 0 or n0 == 0 or e1 == 0:
        return 0.0
    return cramers_v(e1, n1 - e1, 0, n0)


def choose_counts(n1: int, n0: int, e1: int, e0: int, target: float,
                  tolerance: float = DEFAULT_TOLERANCE, precision: float = DEFAULT_PRECISION) -> Counts | Refusal:
    """Exact integer 2x2 counts with V as close to ``target`` as the base allows (see module doc).

    ``n1``/``n0``: rows with / without v; ``e1``/``e0``: of those, rows where t may be inserted.

    >>> c = choose_counts(300, 4049, 290, 3900, 0.6)
    >>> abs(c.achieved_v - 0.6) <= 0.005, c.n11 + c.n10 == 300, c.n11 <= 290
    (True, True, True)
    >>> choose_counts(10, 100, 0, 100, 0.3).reason
    't is present or uncertain in all 10 records with v: nothing to insert'
    """
    if not (0.0 < target < 1.0):
        return Refusal(f"target V {target} must be in (0, 1)")
    if n1 == 0 or n0 == 0:
        return Refusal(f"v is present in {n1} of {n1 + n0} records: no association is possible")
    if e1 == 0:
        return Refusal(f"t is present or uncertain in all {n1} records with v: nothing to insert")
    a = np.arange(1, e1 + 1, dtype=np.float64)
    n = n1 + n0
    k = target * target * n1 * n0
    # (a*n0 - c*n1)^2 = k*(a + c)*(n - a - c), a quadratic in c: A c^2 + B c + C = 0.
    qa = n1 * n1 + k
    qb = -2.0 * a * n0 * n1 - k * (n - 2.0 * a)
    qc = a * a * n0 * n0 - k * a * (n - a)
    disc = np.sqrt(np.maximum(qb * qb - 4 * qa * qc, 0.0))
    roots = np.stack([(-qb - disc) / (2 * qa), (-qb + disc) / (2 * qa)])
    cands = np.concatenate([np.floor(roots), np.ceil(roots), np.zeros((1, a.size)), np.full((1, a.size), e0)])
    cands = np.clip(cands, 0, e0)
    aa = np.broadcast_to(a, cands.shape)
    err = np.abs(_phi(aa, cands, n1, n0) - target)
    err = np.where(np.isnan(err), np.inf, err)
    flat_a, flat_c, flat_e = aa.ravel(), cands.ravel(), err.ravel()
    close = flat_e <= precision
    pool = np.flatnonzero(close) if close.any() else np.arange(flat_e.size)
    # Sort keys: largest a first among close candidates, otherwise smallest error; then c.
    if close.any():
        order = np.lexsort((flat_c[pool], flat_e[pool], -flat_a[pool]))
    else:
        order = np.lexsort((flat_c[pool], -flat_a[pool], flat_e[pool]))
    best = pool[order[0]]
    n11, n01 = int(flat_a[best]), int(flat_c[best])
    achieved = cramers_v(n11, n1 - n11, n01, n0 - n01)
    if not abs(achieved - target) <= tolerance:
        return Refusal(f"closest reachable V is {achieved:.3f} (target {target} ± {tolerance}); "
                       f"max V with {e1} of {n1} v-records eligible is {max_reachable_v(n1, n0, e1):.3f}")
    return Counts(n11, n1 - n11, n01, n0 - n01, achieved)


# ---------------------------------------------------------------------------- insertion
_BOUNDARY = re.compile(r"[.!?](?=\s+\S)")


def sentence_boundaries(caption: str) -> list[int]:
    """Character offsets where a sentence may be inserted: start, after each inner sentence, end.

    >>> sentence_boundaries("A dog. A cat!  A cow")
    [0, 7, 15, 20]
    """
    inner = [m.end() + (len(caption[m.end():]) - len(caption[m.end():].lstrip())) for m in _BOUNDARY.finditer(caption)]
    return [0] + inner + [len(caption)]


def insert_sentence(caption: str, sentence: str, at: int) -> tuple[str, int, int]:
    """Insert ``sentence`` at boundary offset ``at``; return (new caption, span start, span end).

    At the end, a caption without final punctuation gets a full stop first, so the result reads
    as two sentences. The span covers exactly the inserted sentence.

    >>> insert_sentence("A man riding a horse", "There is a dog.", 20)
    ('A man riding a horse. There is a dog.', 22, 37)
    >>> insert_sentence("A dog. A cat.", "A cow is here.", 7)
    ('A dog. A cow is here. A cat.', 7, 21)
    >>> insert_sentence("A dog.", "A cow.", 0)
    ('A cow. A dog.', 0, 6)
    """
    if at >= len(caption):
        head = caption.rstrip()
        if head and head[-1] not in ".!?":
            head += "."
        start = len(head) + 1
        return f"{head} {sentence}", start, start + len(sentence)
    return f"{caption[:at]}{sentence} {caption[at:]}", at, at + len(sentence)


# ---------------------------------------------------------------------------- one scenario
def scenario_rng(seed: int, scenario_id: str) -> np.random.Generator:
    """The generator of one scenario: depends only on the build seed and the scenario id."""
    return np.random.default_rng([int(seed), zlib.crc32(scenario_id.encode("utf-8"))])


@dataclasses.dataclass
class Inserted:
    """Per-row arrays of one built scenario (length = number of base records)."""

    v_present: np.ndarray
    inserted: np.ndarray
    template_index: np.ndarray  # -1 where nothing was inserted
    span_start: np.ndarray
    span_end: np.ndarray
    captions: pa.Array
    counts: Counts


def _pick(rng: np.random.Generator, candidates: np.ndarray, k: int, prefer: np.ndarray) -> np.ndarray:
    """k rows drawn uniformly from ``candidates``, preferred rows first."""
    first = candidates[prefer[candidates]]
    if k <= first.size:
        return rng.choice(first, k, replace=False)
    return np.concatenate([first, rng.choice(candidates[~prefer[candidates]], k - first.size, replace=False)])


def build_rows(captions: pa.Array, boundaries: Sequence[Sequence[int]], v_present: np.ndarray,
               eligible: np.ndarray, counts: Counts, sentences: Sequence[str],
               rng: np.random.Generator, prefer: np.ndarray | None = None) -> Inserted:
    """Choose the inserted rows for ``counts`` and produce the new captions and spans.

    ``prefer`` marks rows to use before the others (default: all rows alike). Only the inserted
    captions are touched in Python; the rest is Arrow/numpy work.
    """
    n = len(v_present)
    prefer = np.ones(n, dtype=bool) if prefer is None else prefer
    pos = np.flatnonzero(v_present & eligible)
    neg = np.flatnonzero(~v_present & eligible)
    rows = np.sort(np.concatenate([_pick(rng, pos, counts.n11, prefer), _pick(rng, neg, counts.n01, prefer)]))
    tmpl = rng.integers(0, len(sentences), size=rows.size)
    picks = rng.random(rows.size)
    inserted = np.zeros(n, dtype=bool)
    inserted[rows] = True
    template_index = np.full(n, -1, dtype=np.int32)
    template_index[rows] = tmpl
    span_start = np.full(n, -1, dtype=np.int32)
    span_end = np.full(n, -1, dtype=np.int32)
    originals = captions.take(pa.array(rows)).to_pylist()
    new_texts = []
    for j, (row, text) in enumerate(zip(rows.tolist(), originals)):
        bounds = boundaries[row]
        at = bounds[int(picks[j] * len(bounds))]
        new, s, e = insert_sentence(text, sentences[tmpl[j]], at)
        new_texts.append(new)
        span_start[row], span_end[row] = s, e
    mask = pa.array(inserted)
    new_captions = pc.replace_with_mask(captions, mask, pa.array(new_texts, pa.string())) if rows.size else captions
    return Inserted(v_present, inserted, template_index, span_start, span_end, new_captions, counts)


# ---------------------------------------------------------------------------- feature matrices
@dataclasses.dataclass
class FeatureIndex:
    """Boolean matrices over (records x features) for fast eligibility and co-occurrence."""

    names: list[str]
    present: np.ndarray     # bool [N, F]
    uncertain: np.ndarray   # bool [N, F]
    area: np.ndarray        # float [N, F], NaN where absent
    negated: np.ndarray     # bool [N, F]: the caption says the feature is absent

    @property
    def column(self) -> dict[str, int]:
        return {n: i for i, n in enumerate(self.names)}

    def counts(self) -> np.ndarray:
        return self.present.sum(axis=0)

    def median_area(self) -> np.ndarray:
        """Median label_area of each feature over the records that have it (NaN if none)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns: features never present
            return np.nanmedian(self.area, axis=0)


def feature_index(table: pa.Table, names: Sequence[str]) -> FeatureIndex:
    """Matrices for ``names`` from a base table's ``labels``/``label_area``/``uncertain``/``negated``."""
    names = list(names)
    n, f = table.num_rows, len(names)
    lookup = pa.array(names, pa.string())
    present = np.zeros((n, f), dtype=bool)
    uncertain = np.zeros((n, f), dtype=bool)
    area = np.full((n, f), np.nan)
    negated = np.zeros((n, f), dtype=bool)
    for col, target in (("labels", present), ("uncertain", uncertain), ("negated", negated)):
        lists = table.column(col).combine_chunks()
        parents = pc.list_parent_indices(lists).to_numpy()
        found = pc.index_in(pc.list_flatten(lists), value_set=lookup)
        idx = pc.fill_null(found, -1).to_numpy().astype(np.int64)
        keep = idx >= 0
        idx = idx[keep]
        target[parents[keep], idx] = True
        if col == "labels":
            values = pc.list_flatten(table.column("label_area").combine_chunks()).to_numpy()
            area[parents[keep], idx] = values[keep]
    return FeatureIndex(names, present, uncertain, area, negated)


def domain_features(domain: str, table: pa.Table) -> list[str]:
    """The feature universe of a domain: COCO's 80 names, or findings + devices (+ other labels)."""
    from symbalbench.templates import COCO_NAMES, MEDICAL_DEVICES, MEDICAL_FINDINGS

    base = list(COCO_NAMES) if domain == "natural" else list(MEDICAL_FINDINGS) + list(MEDICAL_DEVICES)
    seen = set(base)
    extra = sorted(set(pc.list_flatten(table.column("labels").combine_chunks()).to_pylist()) - seen)
    return base + extra


def eligibility(fi: FeatureIndex, t: str) -> np.ndarray:
    """Rows where t may be inserted: t neither present nor uncertain."""
    j = fi.column[t]
    return ~(fi.present[:, j] | fi.uncertain[:, j])


def scenario_counts(fi: FeatureIndex, v: str, t: str, target: float, tolerance: float = DEFAULT_TOLERANCE,
                    precision: float = DEFAULT_PRECISION) -> tuple[np.ndarray, np.ndarray, Counts | Refusal]:
    """(v_present, eligible, counts or refusal) of one (v, t, target) on a base."""
    vp = fi.present[:, fi.column[v]]
    el = eligibility(fi, t)
    n1 = int(vp.sum())
    counts = choose_counts(n1, vp.size - n1, int((vp & el).sum()), int((~vp & el).sum()), target,
                           tolerance, precision)
    return vp, el, counts
