"""Does model A really beat model B? A paired bootstrap over the pairs both runs scored.

Works on two ``scores.json`` documents (their ``per_pair`` columns): for each metric the
pairs where both runs have a value (recall and F1* skip pairs without key items; a pair
whose judgement errored in either run is skipped) are lined up by ``pair_id``, and
:func:`benchcore.stats.paired_bootstrap` gives mean(A) - mean(B), its 95% interval and a
two-sided p-value.

>>> a = {"judge_signature": "j", "per_pair": {"pair_id": ["p1", "p2"], "f1_star": [1.0, 0.5]}}
>>> b = {"judge_signature": "j", "per_pair": {"pair_id": ["p2", "p1"], "f1_star": [0.5, 0.0]}}
>>> r = compare_scores(a, b, metrics=("f1_star",), n_resamples=100)["metrics"]["f1_star"]
>>> r["diff"], r["n"]
(0.5, 2)
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from benchcore.errors import InputError
from benchcore.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, paired_bootstrap
from benchcore.tables import markdown_table

COMPARED_METRICS: tuple[str, ...] = ("f1_star", "recall", "hallucination_rate")


def _values(doc: Mapping[str, Any], metric: str, label: str) -> dict[str, float]:
    cols = doc.get("per_pair", {})
    if metric not in cols or "pair_id" not in cols:
        raise InputError(f"scores {label} has no per-pair {metric!r} column")
    return {pid: float(v) for pid, v in zip(cols["pair_id"], cols[metric]) if v is not None}


def compare_scores(
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    metrics: Sequence[str] = COMPARED_METRICS,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict:
    """Paired bootstrap of A - B per metric over shared pairs (see module doc).

    Returns ``{"same_judge": bool, "metrics": {name: {diff, ci_low, ci_high, p_value, n,
    mean_a, mean_b}}}``. Raises :class:`InputError` when the runs share no pair.
    Lower is better for ``hallucination_rate``: a negative diff favours A there.
    """
    out: dict[str, Any] = {
        "model_a": a.get("model", "A"), "model_b": b.get("model", "B"),
        "same_judge": a.get("judge_signature") == b.get("judge_signature"),
        "judge_a": a.get("judge_signature"), "judge_b": b.get("judge_signature"),
        "bootstrap": {"resamples": n_resamples, "seed": seed, "level": 0.95, "unit": "pair"},
        "metrics": {},
    }
    for metric in metrics:
        va, vb = _values(a, metric, "A"), _values(b, metric, "B")
        shared = [pid for pid in va if pid in vb]  # A's order: deterministic
        if not shared:
            raise InputError(f"the two score files share no scored pair for {metric!r}; were they scored on the same dataset?")
        xa, xb = [va[p] for p in shared], [vb[p] for p in shared]
        res = paired_bootstrap(xa, xb, n_resamples=n_resamples, seed=seed)
        res["mean_a"], res["mean_b"] = sum(xa) / len(xa), sum(xb) / len(xb)
        out["metrics"][metric] = res
    return out


def render_comparison(result: Mapping[str, Any]) -> str:
    """A markdown table of :func:`compare_scores`'s result, with a warning if judges differ."""
    rows = []
    for name, r in result["metrics"].items():
        better = "A" if (r["diff"] > 0) != (name == "hallucination_rate") else "B"
        verdict = f"{better} better" if r["ci_low"] > 0 or r["ci_high"] < 0 else "no clear difference"
        if r["diff"] == 0:
            verdict = "no clear difference"
        # a bootstrap p-value of 0 only means "below the resolution 1/resamples"
        p = f"< {1 / result['bootstrap']['resamples']:.3g}" if r["p_value"] == 0 else r["p_value"]
        rows.append([name, r["n"], r["mean_a"], r["mean_b"], r["diff"], f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]",
                     p, verdict])
    text = (f"A = {result['model_a']}, B = {result['model_b']}\n\n"
            + markdown_table(["metric", "pairs", "A", "B", "A - B", "95% CI", "p", "verdict"], rows))
    if not result["same_judge"]:
        text += (f"\n\nwarning: the runs used different judges ({result['judge_a']} vs {result['judge_b']}); "
                 "differences may come from the judges, not the models")
    return text
