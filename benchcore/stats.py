"""Bootstrap confidence intervals over units (pairs or scenarios). Pure functions."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 12345


def bootstrap_indices(n: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> np.ndarray:
    """Resampling indices of shape (n_resamples, n), the same for the same (n, seed)."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, size=(n_resamples, n))


def bootstrap_ci(
    values: Sequence[float],
    statistic: Callable[[np.ndarray], float] = np.mean,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic`` over ``values`` (one value per unit).

    Returns (nan, nan) for no values.

    >>> lo, hi = bootstrap_ci([0.0, 1.0] * 50)
    >>> 0.35 < lo < 0.5 < hi < 0.65
    True
    """
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return (float("nan"), float("nan"))
    idx = bootstrap_indices(arr.size, n_resamples, seed)
    if statistic is np.mean:
        stats = arr[idx].mean(axis=1)
    else:
        stats = np.array([statistic(arr[row]) for row in idx])
    alpha = (1.0 - level) / 2.0
    return (float(np.quantile(stats, alpha)), float(np.quantile(stats, 1.0 - alpha)))


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> dict:
    """Paired bootstrap of mean(a) - mean(b) over shared units.

    Returns the observed difference, its percentile interval and a two-sided p-value
    (share of resampled differences on the other side of zero, doubled, capped at 1).
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired bootstrap needs equal lengths, got {x.size} and {y.size}")
    if x.size == 0:
        return {"diff": float("nan"), "ci_low": float("nan"), "ci_high": float("nan"), "p_value": float("nan"), "n": 0}
    d = x - y
    idx = bootstrap_indices(d.size, n_resamples, seed)
    stats = d[idx].mean(axis=1)
    alpha = (1.0 - level) / 2.0
    observed = float(d.mean())
    if observed == 0.0 and np.all(stats == 0.0):
        p = 1.0
    else:
        below = float(np.mean(stats <= 0.0)) if observed > 0 else float(np.mean(stats >= 0.0))
        p = min(1.0, 2.0 * below)
    return {
        "diff": observed,
        "ci_low": float(np.quantile(stats, alpha)),
        "ci_high": float(np.quantile(stats, 1.0 - alpha)),
        "p_value": p,
        "n": int(d.size),
    }
