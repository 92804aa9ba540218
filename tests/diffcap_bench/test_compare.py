"""compare: paired bootstrap over shared pairs, so a user can tell whether A really beats B."""
import pytest

from benchcore.errors import InputError
from diffcap_bench.compare import compare_scores, render_comparison


def doc(values, model="m", judge="judge:x", metric_cols=("f1_star", "recall", "hallucination_rate")):
    ids = [f"p{i}" for i in range(len(values))]
    return {"model": model, "judge_signature": judge,
            "per_pair": {"pair_id": ids, **{m: list(values) for m in metric_cols}}}


def test_identical_runs_no_difference():
    r = compare_scores(doc([0.2, 0.5, 0.9]), doc([0.2, 0.5, 0.9]), n_resamples=200)
    for m in r["metrics"].values():
        assert (m["diff"], m["ci_low"], m["ci_high"], m["p_value"]) == (0.0, 0.0, 0.0, 1.0)
    assert "no clear difference" in render_comparison(r)


def test_clear_difference_has_interval_above_zero_and_small_p():
    a = doc([0.8 + 0.01 * (i % 5) for i in range(100)], "A")
    b = doc([0.5 + 0.02 * (i % 7) for i in range(100)], "B")
    r = compare_scores(a, b, metrics=("f1_star",))
    f = r["metrics"]["f1_star"]
    assert f["diff"] == pytest.approx(f["mean_a"] - f["mean_b"]) and f["ci_low"] > 0 and f["p_value"] < 0.01
    assert "A better" in render_comparison(r)


def test_lower_hallucination_rate_is_better():
    a, b = doc([0.0] * 50, "A"), doc([0.5] * 50, "B")
    r = compare_scores(a, b, metrics=("hallucination_rate",), n_resamples=100)
    assert r["metrics"]["hallucination_rate"]["diff"] == -0.5
    assert "A better" in render_comparison(r)


def test_only_shared_pairs_with_values_are_paired():
    a = {"judge_signature": "j", "per_pair": {"pair_id": ["p1", "p2", "p3"], "recall": [1.0, None, 0.5]}}
    b = {"judge_signature": "j", "per_pair": {"pair_id": ["p3", "p1", "p4"], "recall": [0.5, 0.0, 1.0]}}
    r = compare_scores(a, b, metrics=("recall",), n_resamples=100)["metrics"]["recall"]
    assert r["n"] == 2 and r["diff"] == 0.5  # p1: 1 - 0 ; p3: 0.5 - 0.5 ; p2 (K = 0) and p4 skipped


def test_no_shared_pairs_is_an_input_error():
    a = {"per_pair": {"pair_id": ["p1"], "recall": [1.0]}}
    b = {"per_pair": {"pair_id": ["q1"], "recall": [1.0]}}
    with pytest.raises(InputError, match="share no scored pair"):
        compare_scores(a, b, metrics=("recall",))


def test_missing_column_is_an_input_error():
    with pytest.raises(InputError, match="no per-pair 'f1_star'"):
        compare_scores({"per_pair": {"pair_id": []}}, doc([1.0]))


def test_different_judges_warn():
    r = compare_scores(doc([1.0, 0.0], judge="judge:a"), doc([1.0, 0.0], judge="judge:b"), n_resamples=50)
    assert not r["same_judge"] and "different judges" in render_comparison(r)


def test_deterministic():
    a, b = doc([0.1 * (i % 10) for i in range(40)]), doc([0.1 * ((i + 3) % 10) for i in range(40)])
    assert compare_scores(a, b) == compare_scores(a, b)
