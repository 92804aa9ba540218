"""Ask a judge the equivalence questions scoring needs, each distinct question once.

Scoring a run reads, for every guess within the first K, two verdicts: is the guessed
text error equivalent to t, is the guessed visual feature equivalent to v. Many guesses
repeat (a baseline guesses the same names across scenarios), so questions are keyed by
(normalised guess, normalised truth, kind), deduplicated, and sent to
``judge.judge_equivalences`` in chunks. A failed question (``result.error`` set, or no
verdict) maps to ``None``: never a hit, counted as a judge error by scoring.

>>> from capjudge import resolve_judge
>>> judge = resolve_judge(lambda p, r, kind: p == r)
>>> verdicts = judge_pairs(judge, [("dog", "dog", "text_error"), ("cat", "dog", "text_error")], progress=False)
>>> verdicts[("cat", "dog", "text_error")]
False
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Optional, Sequence

from benchcore.stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from capjudge.protocol import EquivalenceCase, Judge
from symbalbench.scoring import (PairKey, Truth, needed_pairs, parse_ks, score_outcomes,
                                 score_predictions)

DEFAULT_CHUNK_SIZE = 256


@dataclass
class JudgingStats:
    """What one judging pass cost: distinct questions, how many failed, chunks sent."""

    n_pairs: int = 0
    n_errors: int = 0
    n_chunks: int = 0


def judge_pairs(judge: Judge, pairs: Iterable[PairKey], chunk_size: int = DEFAULT_CHUNK_SIZE,
                progress: bool = True, stats: Optional[JudgingStats] = None,
                errors: Optional[dict[PairKey, str]] = None) -> dict[PairKey, Optional[bool]]:
    """Verdict of every distinct pair key: True / False, or None when the judge failed.

    ``pairs`` are ``(predicted, reference, kind)`` keys already normalised (see
    :func:`symbalbench.scoring.pair_key`); duplicates are judged once. Pass ``errors``
    (a dict) to collect the judge's error message per failed key.
    """
    from tqdm.auto import tqdm

    unique = list(dict.fromkeys(pairs))
    stats = stats if stats is not None else JudgingStats()
    stats.n_pairs += len(unique)
    verdicts: dict[PairKey, Optional[bool]] = {}
    with tqdm(total=len(unique), desc="judging equivalences", unit="pair", disable=not progress or not unique) as bar:
        for start in range(0, len(unique), chunk_size):
            chunk = unique[start:start + chunk_size]
            results = judge.judge_equivalences([EquivalenceCase(p, r, k) for p, r, k in chunk])
            if len(results) != len(chunk):
                raise RuntimeError(f"judge {judge.signature} returned {len(results)} results for {len(chunk)} cases")
            stats.n_chunks += 1
            for key, res in zip(chunk, results):
                ok = res.error is None and res.equivalent is not None
                verdicts[key] = bool(res.equivalent) if ok else None
                if not ok:
                    stats.n_errors += 1
                    if errors is not None:
                        errors[key] = res.error or "judge gave no verdict"
            bar.update(len(chunk))
    return verdicts


@dataclass
class Evaluation:
    """Everything one scoring run produced: scores, per-scenario outcomes, verdicts, cost."""

    scores: dict
    outcomes: list
    verdicts: dict
    errors: dict
    stats: JudgingStats
    judge_signature: str


def evaluate_predictions(truths: Sequence[Truth], predictions: Mapping[str, Sequence[Mapping[str, str]]],
                         judge: Judge, ks: Iterable[int] | int | None = None, progress: bool = True,
                         chunk_size: int = DEFAULT_CHUNK_SIZE, n_resamples: int = DEFAULT_RESAMPLES,
                         seed: int = DEFAULT_SEED) -> Evaluation:
    """Judge the distinct pairs the predictions need, then score (the pure part) every scenario."""
    ks = parse_ks(ks)
    stats = JudgingStats()
    errors: dict[PairKey, str] = {}
    verdicts = judge_pairs(judge, needed_pairs(truths, predictions, ks), chunk_size=chunk_size,
                           progress=progress, stats=stats, errors=errors)
    outcomes = score_predictions(truths, predictions, verdicts, ks)
    scores = score_outcomes(outcomes, ks, n_resamples=n_resamples, seed=seed)
    scores["judge_signature"] = judge.signature
    return Evaluation(scores, outcomes, verdicts, errors, stats, judge.signature)
