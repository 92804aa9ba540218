"""Write an evaluation's outputs: ``scores.json``, ``verdicts.jsonl``, ``report.md``, ``accuracy.png``.

A report never recomputes a score: everything comes from the scores dict made by
:func:`symbalbench.scoring.score_outcomes` and the verdicts of the judging step.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from benchcore.tables import markdown_table
from symbalbench.scoring import VALUE_ORDER, ScenarioOutcome, Truth, guess_matches, pair_key

SCORES_FILE = "scores.json"
VERDICTS_FILE = "verdicts.jsonl"
REPORT_FILE = "report.md"
PLOT_FILE = "accuracy.png"
BENCHMARK = "symbalbench"  # lets a leaderboard tell these scores from DiffCap-Bench's
MAX_LISTED_MISSING = 30


def _json_safe(obj: Any) -> Any:
    """NaN -> null (JSON has no NaN); tuples -> lists."""
    if isinstance(obj, float) and math.isnan(obj):
        return None
    if isinstance(obj, Mapping):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    return obj


def scores_document(scores: Mapping[str, Any], meta: Mapping[str, Any]) -> dict:
    """The ``scores.json`` content: ``benchmark``, run metadata, then the scores."""
    return _json_safe({"benchmark": BENCHMARK, **meta, **scores})


def verdict_rows(truths: Sequence[Truth], predictions: Mapping[str, Sequence[Mapping[str, str]]],
                 outcomes: Sequence[ScenarioOutcome], verdicts: Mapping, max_k: int,
                 errors: Optional[Mapping] = None) -> list[dict]:
    """One JSON-ready row per scenario: its truth, metadata, first hit and each judged guess.

    A verdict is ``true``/``false``, or ``null`` for a judge error (message in ``*_error``).
    """
    rows = []
    for truth, outcome in zip(truths, outcomes):
        judged = []
        for rank, g in enumerate((predictions.get(truth.scenario_id) or [])[:max_k], start=1):
            te, vf = guess_matches(g, truth, verdicts)
            entry = {"rank": rank, "text_error": g["text_error"], "visual_feature": g["visual_feature"],
                     "text_error_equivalent": te, "visual_feature_equivalent": vf}
            if te is None:
                entry["text_error_judge_error"] = (errors or {}).get(pair_key(g["text_error"], truth.text_error, "text_error"))
            if vf is None:
                entry["visual_feature_judge_error"] = (errors or {}).get(
                    pair_key(g["visual_feature"], truth.visual_feature, "visual_feature"))
            judged.append(entry)
        rows.append({"scenario_id": truth.scenario_id, "text_error": truth.text_error,
                     "visual_feature": truth.visual_feature, **dict(truth.meta), "missing": outcome.missing,
                     "n_guesses": outcome.n_guesses, "first_hit": outcome.first_hit, "guesses": judged})
    return rows


def _block_row(label: str, block: Mapping[str, Any], ks: Sequence[int]) -> list:
    row: list = [label, block["n"]]
    for k in ks:
        lo, hi = block[f"accuracy@{k}_ci"]
        row += [block[f"accuracy@{k}"], f"[{_fmt(lo)}, {_fmt(hi)}]"]
    return row


def _fmt(v: Optional[float]) -> str:
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3f}"


def render_markdown(scores: Mapping[str, Any], meta: Mapping[str, Any], notes: Sequence[str] = ()) -> str:
    """The human-readable report: overall Accuracy@K, one table per breakdown, the missing list."""
    ks = scores["ks"]
    header = ["group", "n"] + [h for k in ks for h in (f"Acc@{k}", "95% CI")]
    lines = [f"# SymbalBench evaluation{': ' + str(meta['method']) if meta.get('method') else ''}", ""]
    for key in ("predictions", "dataset", "judge_signature"):
        if meta.get(key) or scores.get(key):
            lines.append(f"- **{key.replace('_', ' ')}**: `{meta.get(key) or scores.get(key)}`")
    lines += [f"- **scenarios**: {scores['n_scenarios']} ({scores['n_missing']} without a prediction, "
              f"scored as misses)", f"- **judge errors**: {scores['n_judge_errors']} distinct questions "
              "(never counted as equivalent)", "", "## Overall", "",
              markdown_table(header, [_block_row("all", scores["overall"], ks)]), ""]
    for name, groups in scores["breakdowns"].items():
        lines += [f"## By {name.replace('+', ' and ')}", "",
                  markdown_table(header, [_block_row(v, b, ks) for v, b in groups.items()]), ""]
    if scores["missing_scenarios"]:
        shown = scores["missing_scenarios"][:MAX_LISTED_MISSING]
        more = len(scores["missing_scenarios"]) - len(shown)
        lines += ["## Scenarios without a prediction", "", ", ".join(f"`{s}`" for s in shown)
                  + (f" and {more} more (see {VERDICTS_FILE})" if more > 0 else ""), ""]
    if notes:
        lines += ["## Notes on the predictions file", ""] + [f"- {n}" for n in notes] + [""]
    lines += [f"![Accuracy by strength and domain]({PLOT_FILE})", ""]
    return "\n".join(lines)


def plot_accuracy(scores: Mapping[str, Any], path: str | Path) -> None:
    """Grouped bars: Accuracy@K by strength, one bar per domain and one for all domains."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = scores["ks"][:1] + scores["ks"][-1:] if len(scores["ks"]) > 1 else scores["ks"]
    by = scores["breakdowns"]
    strengths = list(by.get("strength", {})) or list(VALUE_ORDER["strength"])
    series = {"all": {s: by.get("strength", {}).get(s) for s in strengths}}
    for key, block in by.get("domain+strength", {}).items():
        domain, strength = key.split(",")
        series.setdefault(domain, {})[strength] = block
    fig, axes = plt.subplots(1, len(ks), figsize=(4.2 * len(ks), 3.8), squeeze=False)
    width = 0.8 / max(1, len(series))
    for ax, k in zip(axes[0], ks):
        for i, (name, blocks) in enumerate(series.items()):
            vals = [(blocks.get(s) or {}).get(f"accuracy@{k}", float("nan")) for s in strengths]
            xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(strengths))]
            ax.bar(xs, [0 if math.isnan(v) else v for v in vals], width=width, label=name)
        ax.set_xticks(range(len(strengths)), strengths)
        ax.set_ylim(0, 1)
        ax.set_xlabel("strength")
        ax.set_ylabel(f"Accuracy@{k}")
        ax.set_title(f"Accuracy@{k} by strength")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))  # leave room for the legend under the panels
    fig.savefig(path, dpi=100, metadata={"Software": None})  # no version stamp: same scores, same bytes
    plt.close(fig)


def write_report(out_dir: str | Path, scores: Mapping[str, Any], rows: Sequence[Mapping[str, Any]],
                 meta: Mapping[str, Any], notes: Sequence[str] = ()) -> dict[str, Path]:
    """Write the four files into ``out_dir`` (which must exist) and return their paths."""
    out = Path(out_dir)
    paths = {name: out / name for name in (SCORES_FILE, VERDICTS_FILE, REPORT_FILE, PLOT_FILE)}
    doc = scores_document(scores, {**meta, "notes": list(notes)})
    paths[SCORES_FILE].write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    with paths[VERDICTS_FILE].open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(_json_safe(row), ensure_ascii=False) + "\n")
    paths[REPORT_FILE].write_text(render_markdown(scores, meta, notes), encoding="utf-8")
    plot_accuracy(scores, paths[PLOT_FILE])
    return paths
