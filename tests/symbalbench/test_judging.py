"""Judging: each distinct question once, in chunks; failures are errors, never hits."""
from capjudge import resolve_judge
from capjudge.protocol import EquivalenceResult
from symbalbench.judging import JudgingStats, evaluate_predictions, judge_pairs
from symbalbench.scoring import Truth


class CountingJudge:
    """Records every case it is asked; says equivalent iff the strings are equal; fails on 'boom'."""

    signature = "judge:counting"

    def __init__(self):
        self.asked = []
        self.batches = []

    def judge_differences(self, cases):
        raise NotImplementedError

    def judge_equivalences(self, cases):
        self.asked += [(c.predicted, c.reference, c.kind) for c in cases]
        self.batches.append(len(cases))
        return [EquivalenceResult(error="backend down") if c.predicted == "boom"
                else EquivalenceResult(equivalent=c.predicted == c.reference) for c in cases]


def g(t, v):
    return {"text_error": t, "visual_feature": v}


def test_each_distinct_pair_is_judged_once_in_chunks():
    judge = CountingJudge()
    pairs = [("dog", "dog", "text_error")] * 3 + [(f"x{i}", "car", "visual_feature") for i in range(5)]
    stats = JudgingStats()
    verdicts = judge_pairs(judge, pairs, chunk_size=2, progress=False, stats=stats)
    assert len(judge.asked) == len(set(judge.asked)) == 6 == len(verdicts)
    assert judge.batches == [2, 2, 2] and stats.n_pairs == 6 and stats.n_chunks == 3


def test_judge_error_becomes_none_with_message():
    errors = {}
    verdicts = judge_pairs(CountingJudge(), [("boom", "dog", "text_error")], progress=False, errors=errors)
    assert verdicts == {("boom", "dog", "text_error"): None}
    assert errors[("boom", "dog", "text_error")] == "backend down"


def test_callable_that_raises_is_an_error_not_a_hit():
    def flaky(p, r, kind):
        raise RuntimeError("nope")

    truths = [Truth("s", "dog", "car", {"domain": "natural"})]
    ev = evaluate_predictions(truths, {"s": [g("dog", "car")]}, resolve_judge(flaky), ks=[1], progress=False)
    assert ev.scores["overall"]["accuracy@1"] == 0.0 and ev.scores["n_judge_errors"] == 2


def test_evaluate_predictions_counts_distinct_pairs_and_scores():
    judge = CountingJudge()
    truths = [Truth(f"s{i}", "dog", "car", {"domain": "natural"}) for i in range(10)]
    preds = {t.scenario_id: [g("cat", "car"), g("dog", "car")] for t in truths}
    ev = evaluate_predictions(truths, preds, judge, ks=[1, 5], progress=False)
    assert ev.stats.n_pairs == len(judge.asked) == 3  # cat/dog, dog/dog, car/car
    assert ev.scores["overall"]["accuracy@1"] == 0.0 and ev.scores["overall"]["accuracy@5"] == 1.0
    assert ev.scores["judge_signature"] == "judge:counting"
