"""Accuracy@K by hand: hits, ranks, missing scenarios, judge errors, breakdowns, intervals."""
import math

import pytest

from symbalbench.scoring import (ScenarioOutcome, Truth, flatten_scores, needed_pairs, pair_key, parse_ks,
                                 score_outcomes, score_predictions)


def exact_verdicts(pairs):
    """A judge that says equivalent iff the normalised names are equal."""
    return {p: p[0] == p[1] for p in pairs}


TRUTHS = [
    Truth("n1", "dog", "car", {"domain": "natural", "strength": "high", "sampling": "random", "size": "small"}),
    Truth("n2", "cat", "bus", {"domain": "natural", "strength": "low", "sampling": "popular", "size": "large"}),
    Truth("m1", "edema", "pacemaker", {"domain": "medical", "strength": "high", "sampling": None, "size": None}),
    Truth("m2", "cardiomegaly", "chest tube", {"domain": "medical", "strength": "low", "sampling": None, "size": None}),
]


def g(t, v):
    return {"text_error": t, "visual_feature": v}


PREDS = {
    "n1": [g("Dog", "car")],                                    # hit at rank 1
    "n2": [g("cat", "car"), g("bus", "cat"), g("cat", "bus")],  # swapped at 2, hit at rank 3
    "m1": [g("edema", "chest tube")] * 5 + [g("edema", "pacemaker")],  # right answer at rank 6: beyond K=5
    # m2 has no prediction: a miss, listed
}


def run(ks=(1, 5), preds=PREDS, verdicts=None):
    verdicts = verdicts if verdicts is not None else exact_verdicts(needed_pairs(TRUTHS, preds, ks))
    return score_outcomes(score_predictions(TRUTHS, preds, verdicts, ks), ks, n_resamples=200)


def test_hand_computed_accuracy_at_1_and_5():
    s = run()
    assert s["overall"]["accuracy@1"] == pytest.approx(1 / 4)
    assert s["overall"]["accuracy@5"] == pytest.approx(2 / 4)
    assert s["n_scenarios"] == 4


def test_any_list_of_k():
    s = run(ks=[1, 2, 3, 6])
    assert [s["overall"][f"accuracy@{k}"] for k in (1, 2, 3, 6)] == [0.25, 0.25, 0.5, 0.75]


def test_missing_scenario_is_a_listed_miss():
    s = run()
    assert s["n_missing"] == 1 and s["missing_scenarios"] == ["m2"]


def test_both_halves_must_match_in_the_same_guess():
    outcomes = score_predictions(TRUTHS, PREDS, exact_verdicts(needed_pairs(TRUTHS, PREDS, 5)), 5)
    assert outcomes[1].first_hit == 3  # the swapped guess at rank 2 does not count


def test_guesses_beyond_max_k_are_not_judged():
    pairs = needed_pairs(TRUTHS, PREDS, [1, 5])
    assert pair_key("edema", "pacemaker", "visual_feature") not in pairs


def test_distinct_pairs_are_deduplicated_case_insensitively():
    pairs = needed_pairs(TRUTHS, {"n1": [g("Dog", "car"), g("dog ", "CAR")]}, 5)
    assert pairs == [("dog", "dog", "text_error"), ("car", "car", "visual_feature")]


def test_judge_error_is_never_a_hit_and_is_counted():
    verdicts = exact_verdicts(needed_pairs(TRUTHS, PREDS, 5))
    verdicts[pair_key("dog", "dog", "text_error")] = None  # the judge failed on this question
    s = run(verdicts=verdicts)
    assert s["overall"]["accuracy@1"] == 0.0
    assert s["n_judge_errors"] == 1


def test_breakdowns_by_domain_strength_sampling_size():
    b = run()["breakdowns"]
    assert b["domain"]["natural"]["accuracy@5"] == 1.0 and b["domain"]["medical"]["accuracy@5"] == 0.0
    assert list(b["strength"]) == ["low", "high"]  # display order, only values present
    assert b["strength"]["high"]["accuracy@1"] == 0.5 and b["strength"]["high"]["n"] == 2
    assert set(b["sampling"]) == {"random", "popular"}  # medical scenarios have no sampling: left out
    assert b["sampling"]["popular"]["n"] == 1
    assert b["size"]["small"]["accuracy@1"] == 1.0
    assert b["domain+strength"]["natural,low"]["accuracy@5"] == 1.0


def test_intervals_bracket_the_estimate_and_are_deterministic():
    a, b = run(), run()
    lo, hi = a["overall"]["accuracy@5_ci"]
    assert 0.0 <= lo <= 0.5 <= hi <= 1.0
    assert a == b


def test_flat_dict_keys():
    flat = flatten_scores(run())
    assert flat["accuracy@1"] == 0.25 and flat["accuracy@5"] == 0.5
    assert flat["accuracy@5_ci_low"] <= 0.5 <= flat["accuracy@5_ci_high"]
    assert flat["strength=high/accuracy@1"] == 0.5 and flat["strength=high/n"] == 2
    assert flat["domain=natural,strength=low/accuracy@5"] == 1.0
    assert flat["n_missing"] == 1 and flat["missing_scenarios"] == ["m2"]


def test_empty_run_gives_nan_not_a_crash():
    s = score_outcomes([], [1])
    assert math.isnan(s["overall"]["accuracy@1"]) and s["n_scenarios"] == 0


@pytest.mark.parametrize("bad", [0, [0, 1], "", []])
def test_k_must_be_positive(bad):
    with pytest.raises(ValueError):
        parse_ks(bad)


def test_truth_from_scenarios_row_maps_null_metadata_to_none():
    t = Truth.from_row({"scenario_id": "m", "text_error": "edema", "visual_feature": "pacemaker",
                        "domain": "medical", "strength": "low", "sampling": None, "size": ""})
    assert t.meta == {"domain": "medical", "strength": "low", "sampling": None, "size": None}


def test_outcome_hit_semantics():
    o = ScenarioOutcome("x", {}, 3, 4, False)
    assert (o.hit(1), o.hit(3), o.hit(5)) == (False, True, True)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

NAMES = st.sampled_from(["dog", "cat", "car", "bus", "edema"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(NAMES, NAMES, st.lists(st.tuples(NAMES, NAMES), max_size=7)), min_size=1, max_size=12))
def test_accuracy_matches_brute_force_and_grows_with_k(cases):
    truths = [Truth(f"s{i}", t, v, {"domain": "natural"}) for i, (t, v, _) in enumerate(cases)]
    preds = {f"s{i}": [g(a, b) for a, b in gs] for i, (_, _, gs) in enumerate(cases) if gs}
    ks = [1, 2, 3, 5, 7]
    s = run_scores(truths, preds, ks)
    accs = [s["overall"][f"accuracy@{k}"] for k in ks]
    assert accs == sorted(accs)
    for k, acc in zip(ks, accs):
        brute = sum(any(a == t and b == v for a, b in gs[:k]) for t, v, gs in cases) / len(cases)
        assert acc == pytest.approx(brute)


def run_scores(truths, preds, ks):
    verdicts = exact_verdicts(needed_pairs(truths, preds, ks))
    return score_outcomes(score_predictions(truths, preds, verdicts, ks), ks, n_resamples=20)
