"""Scoring speed of SymbalBench: 420 scenarios x 5 guesses, embedded judge behind a warm sqlite cache.

Prints: distinct (guess, truth, kind) questions, judge calls on a cold cache (must equal
the distinct questions), judge calls on a warm cache (0), the warm wall time (target
< 2 s) and its ratio to a naive baseline measured in the same run (every guess's two
questions sent to the embedded judge, no deduplication, no cache).

    python benchmarks/bench_symbal_score.py
"""
from __future__ import annotations

import os
import sys
import tempfile
import time

import numpy as np

from capjudge import resolve_judge
from capjudge.cache import CachedJudge
from capjudge.protocol import EquivalenceCase
from symbalbench.judging import evaluate_predictions
from symbalbench.scoring import Truth, needed_pairs, pair_key, score_outcomes, score_predictions
from symbalbench.templates import COCO_NAMES, MEDICAL_DEVICES, MEDICAL_FINDINGS

N_GUESSES = 5
# How a method might spell a name: the name itself, a plural, a synonym, a description.
VARIANTS = {"motorcycle": "motorbike", "tv": "television", "couch": "sofa", "cardiomegaly": "enlarged heart",
            "pacemaker": "cardiac pacemaker", "airplane": "plane", "person": "man"}


class CountingJudge:
    """Passes equivalence questions to ``inner`` and counts them."""

    def __init__(self, inner):
        self.inner, self.calls = inner, 0

    @property
    def signature(self) -> str:
        return self.inner.signature

    def judge_differences(self, cases):
        return self.inner.judge_differences(cases)

    def judge_equivalences(self, cases):
        self.calls += len(cases)
        return self.inner.judge_equivalences(cases)


def spell(rng: np.random.Generator, name: str) -> str:
    r = rng.random()
    if r < 0.2 and name in VARIANTS:
        return VARIANTS[name]
    if r < 0.3:
        return name + "s"
    if r < 0.4:
        return f"captions falsely mention a {name}"
    return name


def fabricate(seed: int = 0) -> tuple[list[Truth], dict[str, list[dict]]]:
    """420 scenarios shaped like the default grid, 5 ranked guesses each (some right, most wrong)."""
    rng = np.random.default_rng(seed)
    truths, preds = [], {}
    strengths = ("low", "medium", "high")
    for i in range(360):
        t, v = rng.choice(COCO_NAMES, size=2, replace=False)
        meta = {"domain": "natural", "strength": strengths[i % 3], "sampling": ("random", "popular", "adversarial")[i // 3 % 3],
                "size": ("small", "large")[i // 9 % 2]}
        truths.append(Truth(f"nat-{i:03d}", str(t), str(v), meta))
    for i in range(60):
        t, v = rng.choice(MEDICAL_FINDINGS), rng.choice(MEDICAL_DEVICES)
        truths.append(Truth(f"med-{i:02d}", str(t), str(v), {"domain": "medical", "strength": strengths[i % 3]}))
    for truth in truths:
        pool_t = MEDICAL_FINDINGS if truth.meta["domain"] == "medical" else COCO_NAMES
        pool_v = MEDICAL_DEVICES if truth.meta["domain"] == "medical" else COCO_NAMES
        guesses = [{"text_error": spell(rng, str(rng.choice(pool_t))), "visual_feature": spell(rng, str(rng.choice(pool_v)))}
                   for _ in range(N_GUESSES)]
        if rng.random() < 0.6:  # the right answer somewhere in the list
            guesses[int(rng.integers(N_GUESSES))] = {"text_error": spell(rng, truth.text_error),
                                                     "visual_feature": spell(rng, truth.visual_feature)}
        preds[truth.scenario_id] = guesses
    return truths, preds


def naive(truths, preds, ks) -> float:
    """Baseline: each guess's two questions sent to the judge as they come, no dedup, no cache."""
    judge = resolve_judge("embedded")
    start = time.perf_counter()
    verdicts = {}
    for t in truths:
        for g in preds[t.scenario_id][:max(ks)]:
            cases = [EquivalenceCase(g["text_error"], t.text_error, "text_error"),
                     EquivalenceCase(g["visual_feature"], t.visual_feature, "visual_feature")]
            r = judge.judge_equivalences(cases)
            verdicts[pair_key(g["text_error"], t.text_error, "text_error")] = r[0].equivalent if r[0].ok else None
            verdicts[pair_key(g["visual_feature"], t.visual_feature, "visual_feature")] = r[1].equivalent if r[1].ok else None
    score_outcomes(score_predictions(truths, preds, verdicts, ks), ks)
    return time.perf_counter() - start


def main() -> int:
    ks = (1, 5)
    truths, preds = fabricate()
    distinct = len(needed_pairs(truths, preds, ks))
    print(f"scenarios: {len(truths)}, guesses: {sum(len(g) for g in preds.values())}, "
          f"questions (2 per guess): {2 * sum(len(g) for g in preds.values())}, distinct pairs: {distinct}")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "judge.sqlite")
        cold = CountingJudge(resolve_judge("embedded"))
        start = time.perf_counter()
        ev = evaluate_predictions(truths, preds, CachedJudge(cold, path), ks=ks, progress=False)
        cold_s = time.perf_counter() - start
        print(f"cold cache: {cold_s:.3f} s, judge calls: {cold.calls} (distinct pairs: {distinct}) "
              f"-> {'OK' if cold.calls == distinct else 'MISMATCH'}")
        warm = CountingJudge(resolve_judge("embedded"))
        start = time.perf_counter()
        ev2 = evaluate_predictions(truths, preds, CachedJudge(warm, path), ks=ks, progress=False)
        warm_s = time.perf_counter() - start
        assert ev2.scores["overall"] == ev.scores["overall"], "warm and cold scores differ"
        print(f"warm cache: {warm_s:.3f} s (target < 2 s: {'OK' if warm_s < 2 else 'SLOW'}), judge calls: {warm.calls}")
    base_s = naive(truths, preds, ks)
    print(f"baseline (no dedup, no cache): {base_s:.3f} s; warm / baseline = {warm_s / base_s:.2f}x, "
          f"cold / baseline = {cold_s / base_s:.2f}x")
    print(f"Accuracy@1 = {ev.scores['overall']['accuracy@1']:.3f}, Accuracy@5 = {ev.scores['overall']['accuracy@5']:.3f}")
    return 0 if cold.calls == distinct and warm.calls == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
