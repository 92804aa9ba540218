import numpy as np
import pytest

from benchcore.stats import bootstrap_ci, bootstrap_indices, paired_bootstrap


def test_bootstrap_is_deterministic_for_a_seed():
    vals = np.linspace(0, 1, 37)
    assert bootstrap_ci(vals, seed=7) == bootstrap_ci(vals, seed=7)
    assert bootstrap_ci(vals, seed=7) != bootstrap_ci(vals, seed=8)


def test_bootstrap_interval_contains_mean_and_narrows_with_n():
    rng = np.random.default_rng(0)
    small = rng.random(20)
    big = rng.random(2000)
    lo_s, hi_s = bootstrap_ci(small)
    lo_b, hi_b = bootstrap_ci(big)
    assert lo_s <= small.mean() <= hi_s
    assert lo_b <= big.mean() <= hi_b
    assert (hi_b - lo_b) < (hi_s - lo_s)


def test_bootstrap_of_constant_is_a_point_and_empty_is_nan():
    assert bootstrap_ci([0.5] * 10) == (0.5, 0.5)
    lo, hi = bootstrap_ci([])
    assert lo != lo and hi != hi


def test_bootstrap_custom_statistic():
    lo, hi = bootstrap_ci([1, 2, 3, 4, 100], statistic=np.median, n_resamples=200)
    assert 1 <= lo <= hi <= 100


def test_indices_shape():
    assert bootstrap_indices(5, n_resamples=3, seed=1).shape == (3, 5)


def test_paired_bootstrap_detects_a_clear_difference():
    a = [0.9, 0.8, 0.85, 0.95, 0.9] * 20
    b = [0.1, 0.2, 0.15, 0.05, 0.1] * 20
    r = paired_bootstrap(a, b)
    assert r["diff"] == pytest.approx(0.76)
    assert r["ci_low"] > 0.7 and r["p_value"] < 0.01 and r["n"] == 100


def test_paired_bootstrap_no_difference_has_large_p():
    a = [0.5, 0.6, 0.4, 0.5] * 10
    r = paired_bootstrap(a, a)
    assert r["diff"] == 0.0 and r["p_value"] == 1.0


def test_paired_bootstrap_rejects_unequal_lengths():
    with pytest.raises(ValueError, match="equal lengths"):
        paired_bootstrap([1, 2], [1])
