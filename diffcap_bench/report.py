"""Write a scoring run's outputs: ``scores.json``, ``report.md`` and a recall-per-category chart.

The report only presents numbers it is given (from :func:`diffcap_bench.scoring.aggregate`);
it never recomputes a score. ``judgements.jsonl`` is streamed by the caller through
:class:`JsonlWriter` while pairs are judged.

``scores.json`` holds everything ``compare`` needs: the aggregate numbers, the judge
signature, and ``per_pair`` — columns ``pair_id``, ``source``, ``recall``,
``precision_star``, ``f1_star``, ``hallucination_rate``, ``hallucinated`` (recall and
f1_star are null for a pair without key items; pairs whose judgement errored are absent
and listed in ``judge_errors``).
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from benchcore.tables import fmt, markdown_table
from diffcap_bench.scoring import PAIR_METRICS

SCORES_FORMAT = "diffcap-bench/scores@1"
SCORES_FILE, JUDGEMENTS_FILE, REPORT_FILE, CHART_FILE = "scores.json", "judgements.jsonl", "report.md", "recall_per_category.png"
HEADLINE = PAIR_METRICS + ("hallucinated_pair_rate",)
MAX_LISTED = 50  # ids listed in report.md per list (scores.json lists all)


class JsonlWriter:
    """Append JSON records to a file one line each (UTF-8, sorted keys for stable bytes)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._f = open(self.path, "w", encoding="utf-8", newline="\n")

    def __call__(self, record: Mapping[str, Any]) -> None:
        self._f.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> "JsonlWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def scores_document(
    scores: Mapping[str, Any],
    per_pair: Mapping[str, list],
    judge_signature: str,
    dataset: str = "",
    predictions: str = "",
    missing: Sequence[str] = (),
    empty: Sequence[str] = (),
    model: str = "",
) -> dict:
    """The content of ``scores.json``: aggregates + per-pair columns + provenance."""
    return {
        "format": SCORES_FORMAT,
        "model": model or Path(predictions).stem,
        "dataset": dataset,
        "predictions": predictions,
        "judge_signature": judge_signature,
        **scores,
        "missing_predictions": list(missing),
        "empty_predictions": list(empty),
        "per_pair": {k: list(v) for k, v in per_pair.items()},
    }


def write_scores_json(path: str | os.PathLike, doc: Mapping[str, Any]) -> None:
    # allow_nan=False: an undefined number must be null, never the non-JSON NaN
    Path(path).write_text(json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8")


def read_scores_json(path: str | os.PathLike) -> dict:
    """Load a ``scores.json`` written by :func:`write_scores_json` (InputError if it is not one)."""
    from benchcore.errors import InputError

    p = Path(path)
    if p.is_dir():
        p = p / SCORES_FILE
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"{p}: not a scores.json file ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != SCORES_FORMAT or "per_pair" not in doc:
        raise InputError(f"{p}: not a DiffCap-Bench scores.json (expected format {SCORES_FORMAT!r} with per_pair)")
    return doc


def _ci_text(ci: Optional[Sequence[Optional[float]]]) -> str:
    if not ci or ci[0] is None:
        return "n/a"
    return f"[{fmt(float(ci[0]))}, {fmt(float(ci[1]))}]"


def _num(v: Any) -> Any:
    return "n/a" if v is None else v


def headline_table(doc: Mapping[str, Any]) -> str:
    """Macro (headline) numbers with 95% intervals, micro beside them."""
    rows = []
    for name in HEADLINE:
        micro = _num(doc["micro"][name]) if name in doc["micro"] else "—"  # a share of pairs has no micro form
        rows.append([name, _num(doc["macro"].get(name)), _ci_text(doc["ci95"].get(name)), micro])
    return markdown_table(["metric", "macro", "95% CI", "micro"], rows)


def category_table(doc: Mapping[str, Any]) -> str:
    rows = [[cat, doc["key_items_per_category"].get(cat, 0), _num(r)] for cat, r in doc["recall_per_category"].items()]
    return markdown_table(["category", "key items", "recall"], rows)


def source_table(doc: Mapping[str, Any]) -> str:
    rows = [[src or "(none)", s["n_pairs"], *(_num(s.get(m)) for m in HEADLINE)] for src, s in doc["per_source"].items()]
    return markdown_table(["source", "pairs", *HEADLINE], rows)


def _id_list(title: str, ids: Sequence[str], why: str) -> list[str]:
    if not ids:
        return []
    shown = ", ".join(f"`{i}`" for i in list(ids)[:MAX_LISTED])
    more = f" and {len(ids) - MAX_LISTED} more (see scores.json)" if len(ids) > MAX_LISTED else ""
    return [f"- **{title}** ({len(ids)}): {why} {shown}{more}"]


def render_report(doc: Mapping[str, Any]) -> str:
    """``report.md``: headline, per-category and per-source tables, and what was left out."""
    parts = [
        f"# DiffCap-Bench scores: {doc.get('model') or 'model'}",
        "",
        f"- dataset: `{doc.get('dataset', '')}`; predictions: `{doc.get('predictions', '')}`",
        f"- judge: `{doc['judge_signature']}`",
        f"- pairs: {doc['n_pairs']} ({doc['n_pairs_scored']} scored, {doc['n_judge_errors']} judge errors, "
        f"{doc['n_pairs_no_key_items']} without key items: left out of recall and F1* means)",
        f"- intervals: {doc['bootstrap']['resamples']} bootstrap resamples of pairs, seed {doc['bootstrap']['seed']}",
        "",
        "## Headline (macro: mean over pairs)",
        "",
        headline_table(doc),
        "",
        "## Recall per category (pooled over key items)",
        "",
        category_table(doc),
        "",
        f"![recall per category]({CHART_FILE})",
        "",
        "## Per source (macro)",
        "",
        source_table(doc),
        "",
    ]
    notes = (_id_list("judge errors", list(doc.get("judge_errors", {})), "excluded from every number:")
             + _id_list("missing predictions", doc.get("missing_predictions", []), "scored as empty predictions:")
             + _id_list("empty predictions", doc.get("empty_predictions", []), "scored as saying nothing:"))
    if notes:
        parts += ["## Left out or scored as empty", "", *notes, ""]
    return "\n".join(parts)


def plot_recall_per_category(doc: Mapping[str, Any], path: str | os.PathLike) -> None:
    """Bar chart of recall per category (PNG, Agg canvas, no pyplot global state, stable bytes)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    cats = list(doc["recall_per_category"])
    values = [doc["recall_per_category"][c] for c in cats]
    fig = Figure(figsize=(8, 4), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    bars = ax.bar(range(len(cats)), [v or 0.0 for v in values], color="#4C72B0")
    for bar, v, c in zip(bars, values, cats):
        label = "n/a" if v is None else f"{v:.2f}\nn={doc['key_items_per_category'].get(c, 0)}"
        ax.text(bar.get_x() + bar.get_width() / 2, (v or 0.0) + 0.01, label, ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(cats)), cats, rotation=35, ha="right", fontsize=8)
    ax.set_ylim(0, 1.15)
    ax.set_ylabel("recall")
    ax.set_title(f"Recall per category: {doc.get('model') or 'model'}")
    fig.tight_layout()
    fig.savefig(path, format="png", metadata={"Software": None})


def write_report(out_dir: str | os.PathLike, doc: Mapping[str, Any]) -> None:
    """Write ``scores.json``, ``report.md`` and the chart into ``out_dir``."""
    out = Path(out_dir)
    write_scores_json(out / SCORES_FILE, doc)
    (out / REPORT_FILE).write_text(render_report(doc), encoding="utf-8")
    plot_recall_per_category(doc, out / CHART_FILE)
