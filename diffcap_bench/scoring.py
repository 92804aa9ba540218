"""DiffCap-Bench scoring maths (SPEC §1). Pure functions: no I/O, no judge calls.

The flow, one way::

    items + claims --item_labels--> key-item labels (the forward check)
                   --pair_counts--> PairCounts (C, W, M, claim counts, per-category hits)
                   --pair_metrics--> recall, precision*, F1*, hallucination rate of one pair
    [PairCounts]   --aggregate--> macro (headline) and micro numbers, recall per category,
                                  breakdown per source, hallucinated_pair_rate, bootstrap CIs

Per pair (C/W/M = key items correct/wrong/missed, K = C + W + M)::

    recall             = C / K                                   (undefined when K = 0)
    precision_star     = c_correct / (c_correct + c_wrong + c_hall), 0 when the denominator is 0
    f1_star            = 2 P R / (P + R), 0 when P + R = 0        (undefined when K = 0)
    hallucination_rate = (c_wrong + c_hall) / n_claims, 0 when n_claims = 0

``detail`` and ``ambiguous`` claims are neutral. A pair with K = 0 is left out of the
recall and F1* means (and counted); its precision* and hallucination rate still count.
Claims are counted as claims: two ``correct`` claims for one item make c_correct = 2 but
C = 1 (the item is correct once).

>>> from capjudge import Claim, Item
>>> items = [Item("d1", "a cat was added", "object"), Item("d2", "sky is darker", "image_property"),
...          Item("d3", "faint shadow", "image_property", ambiguous=True)]
>>> claims = [Claim("a cat appears", "correct", "d1"), Claim("a dog appears", "hallucination")]
>>> m = pair_metrics(pair_counts(items, claims))
>>> (m.recall, m.precision_star, round(m.f1_star, 4), m.hallucination_rate)
(0.5, 0.5, 0.5, 0.5)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Optional, Sequence

import numpy as np

from benchcore.stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from capjudge.protocol import Claim, Item
from diffcap_bench.schema import CATEGORIES, SOURCES  # in ClassLabel order

# Per-pair metrics averaged over pairs (macro); the first two skip pairs with K = 0.
PAIR_METRICS: tuple[str, ...] = ("recall", "precision_star", "f1_star", "hallucination_rate")
ITEM_LABELS: tuple[str, ...] = ("correct", "wrong", "missed")
# Resampling indices are drawn this many bytes at a time, so memory stays flat as pairs grow
# (all 1000 x n indices at once would be 86 MB for 10 750 pairs).
BOOTSTRAP_BLOCK_BYTES = 4 * 2**20


# ---------------------------------------------------------------- one pair

def item_labels(items: Sequence[Item], claims: Sequence[Claim]) -> dict[str, str]:
    """The forward check: label each *key* item ``correct``, ``wrong`` or ``missed``.

    A key item is correct if any claim is correct for it, else wrong if any claim is
    wrong for it, else missed. Ambiguous items get no label (they are neither rewarded
    nor punished).

    >>> its = [Item("a", "x", "object"), Item("b", "y", "object"), Item("c", "z", "object")]
    >>> item_labels(its, [Claim("", "wrong", "a"), Claim("", "correct", "a"), Claim("", "wrong", "b")])
    {'a': 'correct', 'b': 'wrong', 'c': 'missed'}
    """
    correct = {c.item for c in claims if c.label == "correct"}
    wrong = {c.item for c in claims if c.label == "wrong"}
    out = {}
    for it in items:
        if it.ambiguous:
            continue
        out[it.id] = "correct" if it.id in correct else "wrong" if it.id in wrong else "missed"
    return out


@dataclass
class PairCounts:
    """Everything the aggregates need from one judged pair (small: kept for every pair)."""

    pair_id: str = ""
    source: str = ""
    n_correct: int = 0  # C: key items labelled correct
    n_wrong: int = 0  # W
    n_missed: int = 0  # M
    c_correct: int = 0  # claim counts
    c_wrong: int = 0
    c_hallucination: int = 0
    c_detail: int = 0
    c_ambiguous: int = 0
    # category -> [key items correct, key items total]
    by_category: dict[str, list[int]] = field(default_factory=dict)

    @property
    def n_key(self) -> int:
        """K = C + W + M."""
        return self.n_correct + self.n_wrong + self.n_missed

    @property
    def n_claims(self) -> int:
        return self.c_correct + self.c_wrong + self.c_hallucination + self.c_detail + self.c_ambiguous

    def to_dict(self) -> dict:
        return {
            "C": self.n_correct, "W": self.n_wrong, "M": self.n_missed, "K": self.n_key,
            "c_correct": self.c_correct, "c_wrong": self.c_wrong, "c_hallucination": self.c_hallucination,
            "c_detail": self.c_detail, "c_ambiguous": self.c_ambiguous, "n_claims": self.n_claims,
        }


def pair_counts(items: Sequence[Item], claims: Sequence[Claim], pair_id: str = "", source: str = "") -> PairCounts:
    """Count item labels and claim labels of one pair (claims must be validated already).

    >>> its = [Item("a", "x", "object"), Item("b", "y", "attribute")]
    >>> pc = pair_counts(its, [Claim("", "correct", "a"), Claim("", "correct", "a"), Claim("", "detail")])
    >>> (pc.n_correct, pc.n_missed, pc.c_correct, pc.n_claims, pc.by_category)
    (1, 1, 2, 3, {'object': [1, 1], 'attribute': [0, 1]})
    """
    labels = item_labels(items, claims)
    pc = PairCounts(pair_id=pair_id, source=source)
    category = {it.id: it.category for it in items}
    for item_id, label in labels.items():
        setattr(pc, f"n_{label}", getattr(pc, f"n_{label}") + 1)
        hits = pc.by_category.setdefault(category[item_id], [0, 0])
        hits[0] += label == "correct"
        hits[1] += 1
    for c in claims:
        setattr(pc, f"c_{c.label}", getattr(pc, f"c_{c.label}") + 1)
    return pc


@dataclass(frozen=True)
class PairMetrics:
    """The SPEC §1 numbers of one pair; recall and f1_star are None when K = 0."""

    recall: Optional[float]
    precision_star: float
    f1_star: Optional[float]
    hallucination_rate: float
    hallucinated: bool  # at least one wrong or hallucinated claim

    def to_dict(self) -> dict:
        return {"recall": self.recall, "precision_star": self.precision_star, "f1_star": self.f1_star,
                "hallucination_rate": self.hallucination_rate, "hallucinated": self.hallucinated}


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def f1(precision: float, recall: float) -> float:
    """Harmonic mean, 0 when both are 0.

    >>> f1(0.5, 1.0)
    0.6666666666666666
    """
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def pair_metrics(pc: PairCounts) -> PairMetrics:
    """Recall, precision*, F1* and hallucination rate of one pair (SPEC §1 formulas).

    >>> pair_metrics(PairCounts(n_missed=2))  # nothing said: recall 0, precision* 0
    PairMetrics(recall=0.0, precision_star=0.0, f1_star=0.0, hallucination_rate=0.0, hallucinated=False)
    >>> pair_metrics(PairCounts(c_detail=1)).recall is None  # K = 0
    True
    """
    bad = pc.c_wrong + pc.c_hallucination
    precision = _ratio(pc.c_correct, pc.c_correct + bad)
    recall = pc.n_correct / pc.n_key if pc.n_key else None
    return PairMetrics(
        recall=recall,
        precision_star=precision,
        f1_star=None if recall is None else f1(precision, recall),
        hallucination_rate=_ratio(bad, pc.n_claims),
        hallucinated=bad > 0,
    )


# ---------------------------------------------------------------- many pairs

def _mean(values: Sequence[float]) -> Optional[float]:
    return float(np.mean(values)) if len(values) else None


def bootstrap_mean_ci(values: Sequence[float], n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                      level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean, resampling in blocks of bounded memory.

    Draws the same generator stream as :func:`benchcore.stats.bootstrap_ci`, so the
    interval is identical to it; only the peak memory differs.

    >>> from benchcore.stats import bootstrap_ci
    >>> v = [0.0, 0.5, 1.0] * 40
    >>> bootstrap_mean_ci(v) == bootstrap_ci(v)
    True
    """
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    rows = max(1, BOOTSTRAP_BLOCK_BYTES // (8 * arr.size))
    means = np.empty(n_resamples)
    for start in range(0, n_resamples, rows):
        k = min(rows, n_resamples - start)
        means[start:start + k] = arr[rng.integers(0, arr.size, size=(k, arr.size))].mean(axis=1)
    alpha = (1.0 - level) / 2.0
    return (float(np.quantile(means, alpha)), float(np.quantile(means, 1.0 - alpha)))


def _ci(values: Sequence[float], n_resamples: int, seed: int) -> list[Optional[float]]:
    if not len(values) or n_resamples <= 0:
        return [None, None]
    lo, hi = bootstrap_mean_ci(values, n_resamples=n_resamples, seed=seed)
    return [lo, hi]


def per_pair_columns(pairs: Sequence[PairCounts]) -> dict[str, list]:
    """Per-pair metrics as columns (``pair_id``, ``source``, the four metrics, ``hallucinated``).

    recall and f1_star hold None for pairs with K = 0. This is what ``compare`` pairs up.
    """
    cols: dict[str, list] = {"pair_id": [], "source": [], **{m: [] for m in PAIR_METRICS}, "hallucinated": []}
    for pc in pairs:
        m = pair_metrics(pc)
        cols["pair_id"].append(pc.pair_id)
        cols["source"].append(pc.source)
        for name in PAIR_METRICS:
            cols[name].append(getattr(m, name))
        cols["hallucinated"].append(m.hallucinated)
    return cols


def macro_scores(pairs: Sequence[PairCounts], n_resamples: int = DEFAULT_RESAMPLES,
                 seed: int = DEFAULT_SEED) -> tuple[dict, dict]:
    """Means over pairs (the headline) and their bootstrap 95% intervals.

    Returns ``(macro, ci)``; ``ci[name] = [low, high]``. Means of nothing are None.
    """
    cols = per_pair_columns(pairs)
    macro, ci = {}, {}
    for name in PAIR_METRICS + ("hallucinated",):
        values = [float(v) for v in cols[name] if v is not None]
        key = "hallucinated_pair_rate" if name == "hallucinated" else name
        macro[key] = _mean(values)
        ci[key] = _ci(values, n_resamples, seed)
    return macro, ci


def micro_scores(pairs: Iterable[PairCounts]) -> dict:
    """Pooled counts over all pairs, then the same formulas.

    >>> micro_scores([PairCounts(n_correct=1, n_missed=1, c_correct=1), PairCounts(n_missed=2, c_hallucination=1)])
    {'recall': 0.25, 'precision_star': 0.5, 'f1_star': 0.3333333333333333, 'hallucination_rate': 0.5}
    """
    C = K = cc = cw = ch = n = 0
    for pc in pairs:
        C, K = C + pc.n_correct, K + pc.n_key
        cc, cw, ch, n = cc + pc.c_correct, cw + pc.c_wrong, ch + pc.c_hallucination, n + pc.n_claims
    recall = C / K if K else None
    precision = _ratio(cc, cc + cw + ch)
    return {
        "recall": recall,
        "precision_star": precision,
        "f1_star": None if recall is None else f1(precision, recall),
        "hallucination_rate": _ratio(cw + ch, n),
    }


def recall_per_category(pairs: Iterable[PairCounts], categories: Sequence[str] = CATEGORIES) -> tuple[dict, dict]:
    """Recall pooled over the key items of each category; None for a category without items.

    Returns ``(recall, n_items)`` keyed by category (the given order, then any unknown
    category found in the data, so nothing is silently dropped).
    """
    hits = {c: [0, 0] for c in categories}
    for pc in pairs:
        for cat, (ok, total) in pc.by_category.items():
            h = hits.setdefault(cat, [0, 0])
            h[0] += ok
            h[1] += total
    recall = {c: (ok / total if total else None) for c, (ok, total) in hits.items()}
    return recall, {c: total for c, (_, total) in hits.items()}


def per_source_scores(pairs: Sequence[PairCounts]) -> dict[str, dict]:
    """Macro numbers per source (no intervals), in the schema's source order (unknown ones last)."""
    groups: dict[str, list[PairCounts]] = {}
    for pc in pairs:
        groups.setdefault(pc.source, []).append(pc)
    order = {s: i for i, s in enumerate(SOURCES)}
    out = {}
    for source in sorted(groups, key=lambda s: (order.get(s, len(order)), s)):
        group = groups[source]
        macro, _ = macro_scores(group, n_resamples=0)
        out[source] = {"n_pairs": len(group), **macro}
    return out


def aggregate(
    pairs: Sequence[PairCounts],
    categories: Sequence[str] = CATEGORIES,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    errors: Optional[Mapping[str, str]] = None,
) -> dict:
    """All benchmark numbers of a run from the judged pairs (errored pairs already left out).

    ``errors`` maps pair_id -> judge error message for pairs whose judgement failed; they
    are counted and listed, never scored.

    >>> s = aggregate([PairCounts("p1", "web", n_correct=1, c_correct=1, by_category={"object": [1, 1]})], n_resamples=10)
    >>> s["macro"]["f1_star"], s["recall_per_category"]["object"], s["n_pairs_scored"]
    (1.0, 1.0, 1)
    """
    errors = dict(errors or {})
    macro, ci = macro_scores(pairs, n_resamples, seed)
    recall_cat, items_cat = recall_per_category(pairs, categories)
    return {
        "n_pairs": len(pairs) + len(errors),
        "n_pairs_scored": len(pairs),
        "n_pairs_no_key_items": sum(1 for pc in pairs if pc.n_key == 0),
        "n_judge_errors": len(errors),
        "macro": macro,
        "ci95": ci,
        "micro": micro_scores(pairs),
        "recall_per_category": recall_cat,
        "key_items_per_category": items_cat,
        "per_source": per_source_scores(pairs),
        "bootstrap": {"resamples": n_resamples, "seed": seed, "level": 0.95, "unit": "pair"},
        "judge_errors": errors,
    }


def flat_scores(scores: Mapping) -> dict:
    """The flat dict of the ``diffcap_f1`` metric from :func:`aggregate`'s nested one.

    Keys: the macro numbers, ``micro_*``, ``recall_<category>``, ``<metric>_ci_low/high``,
    ``n_pairs``, ``n_pairs_no_key_items``, ``n_judge_errors``.
    """
    out: dict = dict(scores["macro"])
    out.update({f"micro_{k}": v for k, v in scores["micro"].items()})
    out.update({f"recall_{c}": v for c, v in scores["recall_per_category"].items()})
    for name, (lo, hi) in scores["ci95"].items():
        out[f"{name}_ci_low"], out[f"{name}_ci_high"] = lo, hi
    for key in ("n_pairs", "n_pairs_scored", "n_pairs_no_key_items", "n_judge_errors"):
        out[key] = scores[key]
    return out


def is_missing(value: Optional[float]) -> bool:
    """True for None or NaN (an undefined number)."""
    return value is None or (isinstance(value, float) and math.isnan(value))
