"""Embedded judge throughput on this machine, against a trivial exact-string baseline.

Judges a DiffCap-sized run (1075 pairs, built from the agreement set with a unique extra
sentence per pair so caches cannot hide the work) and 2000 name equivalences, then prints
judgements per second for the embedded judge and for the baseline measured in the same run.

    python benchmarks/bench_embedded_judge.py [--pairs 1075] [--repeat 3]
"""
from __future__ import annotations

import argparse
import random
import re
import time

from capjudge.agreement_tool import load_set
from capjudge.embedded import EmbeddedJudge
from capjudge.embedded.matching import analyze
from capjudge.embedded.normalize import lemma
from capjudge.embedded.equivalence import parse_name
from capjudge.protocol import Claim, DifferenceCase, DifferenceResult, EquivalenceCase, EquivalenceResult

COLOURS = ["red", "blue", "green", "yellow", "black", "white"]
OBJECTS = ["cup", "dog", "car", "lamp", "chair", "bottle", "kite", "clock"]


def make_cases(n: int, seed: int = 0) -> list[DifferenceCase]:
    rows = load_set("difference", "all")
    rng = random.Random(seed)
    out = []
    for i in range(n):
        r = rows[i % len(rows)]
        extra = f" A {rng.choice(COLOURS)} {rng.choice(OBJECTS)} number {i} was added near the {rng.choice(OBJECTS)}."
        out.append(DifferenceCase.make(r["items"], r["prediction"] + extra, case_id=f"bench-{i}"))
    return out


def make_pairs(n: int) -> list[EquivalenceCase]:
    rows = load_set("equivalence", "all")
    return [EquivalenceCase(f"{r['predicted']} {i % 7 if i >= len(rows) else ''}".strip(), r["reference"], r["kind"])
            for i, r in enumerate(rows[j % len(rows)] for j in range(n))]


class ExactMatchJudge:
    """Baseline: a claim is correct when it equals an item's text, else a hallucination."""

    signature = "judge:exact-baseline"

    def judge_differences(self, cases):
        out = []
        for case in cases:
            texts = {it.text.strip().lower(): it for it in case.items if not it.ambiguous}
            claims = []
            for s in re.split(r"[.!?;\n]+", case.prediction):
                s = s.strip()
                if s:
                    it = texts.get(s.lower())
                    claims.append(Claim(s, "correct", it.id) if it else Claim(s, "hallucination", None))
            out.append(DifferenceResult(tuple(claims)))
        return out

    def judge_equivalences(self, cases):
        return [EquivalenceResult(c.predicted.strip().lower() == c.reference.strip().lower()) for c in cases]


def clear_caches() -> None:
    analyze.cache_clear()
    lemma.cache_clear()
    parse_name.cache_clear()


def rate(fn, items, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        clear_caches()
        t0 = time.perf_counter()
        fn(items)
        best = min(best, time.perf_counter() - t0)
    return len(items) / best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=1075)
    ap.add_argument("--names", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    cases, pairs = make_cases(args.pairs), make_pairs(args.names)
    emb, base = EmbeddedJudge(), ExactMatchJudge()
    emb.judge_differences(cases[:5])  # load the lexicon once, outside the timing
    d_emb, d_base = rate(emb.judge_differences, cases, args.repeat), rate(base.judge_differences, cases, args.repeat)
    e_emb, e_base = rate(emb.judge_equivalences, pairs, args.repeat), rate(base.judge_equivalences, pairs, args.repeat)
    print(f"difference judgements: embedded {d_emb:,.0f}/s, exact-match baseline {d_base:,.0f}/s, "
          f"ratio embedded/baseline {d_emb / d_base:.3f} ({args.pairs} pairs, cold caches)")
    print(f"equivalence judgements: embedded {e_emb:,.0f}/s, exact-match baseline {e_base:,.0f}/s, "
          f"ratio embedded/baseline {e_emb / e_base:.3f} ({args.names} pairs, cold caches)")
    print(f"a full DiffCap-Bench run (1075 pairs) takes {1075 / d_emb:.2f} s with the embedded judge")


if __name__ == "__main__":
    main()
