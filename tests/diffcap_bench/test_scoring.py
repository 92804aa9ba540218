"""Hand-worked checks of the SPEC §1 formulas and every edge case the SPEC names."""
import math

import pytest

from capjudge.protocol import Claim, Item
from diffcap_bench.scoring import (
    CATEGORIES,
    PairCounts,
    aggregate,
    flat_scores,
    item_labels,
    pair_counts,
    pair_metrics,
    per_pair_columns,
)

KEY = [Item("a", "cat added", "object"), Item("b", "sky darker", "image_property"), Item("c", "man sits", "action_pose")]
AMB = Item("z", "faint shadow", "image_property", ambiguous=True)


def metrics(items, claims):
    return pair_metrics(pair_counts(items, claims))


def test_forward_check_prefers_correct_over_wrong_for_the_same_item():
    claims = [Claim("cat removed", "wrong", "a"), Claim("cat added", "correct", "a")]
    assert item_labels(KEY, claims) == {"a": "correct", "b": "missed", "c": "missed"}


def test_forward_check_wrong_when_no_correct_claim():
    assert item_labels(KEY, [Claim("sky brighter", "wrong", "b")])["b"] == "wrong"


def test_ambiguous_items_get_no_item_label_and_do_not_count_in_k():
    pc = pair_counts(KEY + [AMB], [Claim("shadow", "ambiguous", "z")])
    assert "z" not in item_labels(KEY + [AMB], [])
    assert pc.n_key == 3 and pc.c_ambiguous == 1


def test_wrong_plus_correct_claim_for_one_item():
    # C=1 of K=3; claims: 1 correct, 1 wrong -> P = 1/2, R = 1/3, F1 = 2*(1/2)(1/3)/(5/6) = 0.4
    m = metrics(KEY, [Claim("cat removed", "wrong", "a"), Claim("cat added", "correct", "a")])
    assert m.recall == pytest.approx(1 / 3)
    assert m.precision_star == 0.5
    assert m.f1_star == pytest.approx(0.4)
    assert m.hallucination_rate == 0.5
    assert m.hallucinated


def test_duplicate_correct_claims_count_once_for_recall_twice_as_claims():
    pc = pair_counts(KEY, [Claim("cat added", "correct", "a"), Claim("a cat was added", "correct", "a")])
    assert (pc.n_correct, pc.c_correct) == (1, 2)
    m = pair_metrics(pc)
    assert m.recall == pytest.approx(1 / 3) and m.precision_star == 1.0
    assert m.f1_star == pytest.approx(0.5)  # 2 * 1 * (1/3) / (4/3)


def test_no_claims_gives_zero_everything_but_defined():
    m = metrics(KEY, [])
    assert (m.recall, m.precision_star, m.f1_star, m.hallucination_rate, m.hallucinated) == (0.0, 0.0, 0.0, 0.0, False)


def test_only_neutral_claims_precision_zero_hallucination_zero():
    m = metrics(KEY + [AMB], [Claim("shadow", "ambiguous", "z"), Claim("a leaf moved", "detail")])
    assert m.precision_star == 0.0  # denominator c_correct + c_wrong + c_hall is 0
    assert m.hallucination_rate == 0.0  # 0 bad of 2 claims
    assert m.recall == 0.0 and m.f1_star == 0.0


def test_neutral_claims_do_not_change_precision_but_dilute_hallucination_rate():
    base = [Claim("cat added", "correct", "a"), Claim("dog added", "hallucination")]
    m1 = metrics(KEY, base)
    m2 = metrics(KEY, base + [Claim("leaf", "detail"), Claim("x", "detail")])
    assert m1.precision_star == m2.precision_star == 0.5
    assert (m1.hallucination_rate, m2.hallucination_rate) == (0.5, 0.25)


def test_k_zero_pair_has_no_recall_or_f1_but_keeps_precision_and_hallucination():
    m = metrics([AMB], [Claim("dog", "hallucination"), Claim("shadow", "ambiguous", "z")])
    assert m.recall is None and m.f1_star is None
    assert m.precision_star == 0.0 and m.hallucination_rate == 0.5


def test_k_zero_pairs_left_out_of_recall_and_f1_means_and_counted():
    full = PairCounts("p1", "web", n_correct=1, n_missed=1, c_correct=1, by_category={"object": [1, 2]})
    k0 = PairCounts("p2", "web", c_hallucination=1)
    s = aggregate([full, k0], n_resamples=50)
    assert s["n_pairs_no_key_items"] == 1
    assert s["macro"]["recall"] == 0.5  # only p1
    assert s["macro"]["f1_star"] == pytest.approx(2 / 3)  # only p1: P=1, R=.5
    assert s["macro"]["precision_star"] == 0.5  # mean of 1 and 0
    assert s["macro"]["hallucination_rate"] == 0.5  # mean of 0 and 1
    assert s["macro"]["hallucinated_pair_rate"] == 0.5


def test_macro_micro_per_category_and_source_by_hand():
    # p1 (web): items a(object) correct, b(image_property) wrong; claims 1 correct, 1 wrong, 1 detail
    p1 = pair_counts(KEY[:2], [Claim("", "correct", "a"), Claim("", "wrong", "b"), Claim("", "detail")], "p1", "web")
    # p2 (synthetic_2d): a, b, c all missed; claims: 2 hallucinations
    p2 = pair_counts(KEY, [Claim("", "hallucination"), Claim("", "hallucination")], "p2", "synthetic_2d")
    s = aggregate([p1, p2], n_resamples=200)
    # p1: R=1/2, P=1/2, F1=1/2, H=1/3 ; p2: R=0, P=0, F1=0, H=1
    assert s["macro"]["recall"] == pytest.approx(0.25)
    assert s["macro"]["precision_star"] == pytest.approx(0.25)
    assert s["macro"]["f1_star"] == pytest.approx(0.25)
    assert s["macro"]["hallucination_rate"] == pytest.approx((1 / 3 + 1) / 2)
    assert s["macro"]["hallucinated_pair_rate"] == 1.0
    # micro: C=1, K=5 ; c_correct=1, c_wrong=1, c_hall=2 ; n_claims=5
    assert s["micro"]["recall"] == pytest.approx(0.2)
    assert s["micro"]["precision_star"] == pytest.approx(0.25)
    assert s["micro"]["f1_star"] == pytest.approx(2 * 0.25 * 0.2 / 0.45)
    assert s["micro"]["hallucination_rate"] == pytest.approx(3 / 5)
    # per category pooled: object 1 of 2, image_property 0 of 2, action_pose 0 of 1, others None
    assert s["recall_per_category"]["object"] == 0.5
    assert s["recall_per_category"]["image_property"] == 0.0
    assert s["recall_per_category"]["action_pose"] == 0.0
    assert s["recall_per_category"]["expression"] is None
    assert list(s["recall_per_category"]) == list(CATEGORIES)
    assert s["per_source"]["web"]["recall"] == 0.5 and s["per_source"]["synthetic_2d"]["n_pairs"] == 1


def test_bootstrap_intervals_bracket_the_mean_and_are_deterministic():
    pairs = [PairCounts(f"p{i}", n_correct=i % 3, n_missed=2 - i % 3, c_correct=i % 3, c_hallucination=i % 2)
             for i in range(60)]
    s1, s2 = aggregate(pairs), aggregate(pairs)
    assert s1["ci95"] == s2["ci95"]
    for name in ("recall", "precision_star", "f1_star", "hallucination_rate", "hallucinated_pair_rate"):
        lo, hi = s1["ci95"][name]
        assert lo <= s1["macro"][name] <= hi and lo < hi


def test_judge_errors_are_counted_and_listed_not_scored():
    s = aggregate([PairCounts("p1", n_correct=1, c_correct=1)], errors={"p2": "timeout"}, n_resamples=10)
    assert (s["n_pairs"], s["n_pairs_scored"], s["n_judge_errors"]) == (2, 1, 1)
    assert s["judge_errors"] == {"p2": "timeout"} and s["macro"]["recall"] == 1.0


def test_no_pairs_at_all_gives_none_not_nan():
    s = aggregate([], errors={"p1": "boom"})
    assert s["macro"]["recall"] is None and s["ci95"]["recall"] == [None, None]
    assert s["micro"]["recall"] is None


def test_flat_scores_has_every_key_of_the_metric():
    flat = flat_scores(aggregate([PairCounts("p1", n_correct=1, c_correct=1, by_category={"object": [1, 1]})], n_resamples=10))
    for k in ("recall", "precision_star", "f1_star", "hallucination_rate", "hallucinated_pair_rate",
              "micro_recall", "micro_precision_star", "micro_f1_star", "micro_hallucination_rate",
              "recall_ci_low", "f1_star_ci_high", "n_pairs", "n_judge_errors", "n_pairs_no_key_items"):
        assert k in flat
    assert all(f"recall_{c}" in flat for c in CATEGORIES)
    assert not any(isinstance(v, float) and math.isnan(v) for v in flat.values())


def test_per_pair_columns_align_with_pairs():
    cols = per_pair_columns([PairCounts("p1", "web", n_correct=1, c_correct=1), PairCounts("p2", "web", c_detail=1)])
    assert cols["pair_id"] == ["p1", "p2"]
    assert cols["recall"] == [1.0, None] and cols["precision_star"] == [1.0, 0.0]
