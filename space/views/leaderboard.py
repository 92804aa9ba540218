"""Leaderboard: the ``scores.json`` files of both scoring CLIs in one folder, one table each.

Named endpoint: ``/leaderboard`` (reload the folder -> both tables and both charts).
"""
from __future__ import annotations

from typing import Sequence

import gradio as gr
import pandas as pd

import data
from views.common import shown_to_user


# Column names as a reader knows them (the scores.json keys stay in the data layer).
DISPLAY_NAMES = {"f1_star": "F1*", "precision_star": "precision*", "hallucination_rate": "hallucination rate",
                 "hallucinated_pair_rate": "hallucinated pairs", "accuracy@1": "Acc@1", "accuracy@5": "Acc@5"}


def _table(entries, benchmark: str) -> pd.DataFrame:
    headers, rows = data.leaderboard_rows(entries, benchmark)
    headers = [DISPLAY_NAMES.get(h, h) for h in headers]
    # Numbers rounded for reading; the Dataframe's column headers sort on click.
    rows = [[round(v, 4) if isinstance(v, float) and v == v else v for v in row] for row in rows]
    return pd.DataFrame(rows, columns=headers)


def _import_pyplot_once() -> None:
    """Import pyplot on the main thread while building: gr.Plot imports it when rendering, and a
    first import racing in two worker threads fails half-initialised."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401


def grouped_bars(records: list[dict], group_key: str, groups: Sequence[str], title: str):
    """A matplotlib bar chart, one bar per model inside each group (category or strength).

    Gradio's BarPlot stacks or overlaps series; a score in [0, 1] per model needs bars side by side.
    """
    from matplotlib.figure import Figure  # the object API: no pyplot state, safe across threads

    models = sorted({r["model"] for r in records})
    present = [g for g in groups if any(r[group_key] == g for r in records)]
    present += sorted({r[group_key] for r in records} - set(present))
    value = {(r["model"], r[group_key]): r["value"] for r in records}
    fig = Figure(figsize=(11, 3.4), dpi=100)
    ax = fig.subplots()
    width = 0.8 / max(1, len(models))
    for n, model in enumerate(models):
        xs = [i + (n - (len(models) - 1) / 2) * width for i in range(len(present))]
        ax.bar(xs, [value.get((model, g), 0.0) for g in present], width, label=model)
    ax.set_xticks(range(len(present)), present, rotation=25 if len(present) > 5 else 0, ha="right" if len(present) > 5 else "center")
    ax.set_ylim(0, 1.05)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    if models:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    fig.tight_layout()
    return fig


@shown_to_user
def leaderboard_outputs(folder) -> tuple:
    """Both tables, both charts and a note naming the folder and the number of files."""
    entries = data.read_leaderboard(folder)
    diffcap_chart = grouped_bars(data.breakdown_records(entries, "diffcap", "category"), "category",
                                 data.category_names(), "DiffCap-Bench: recall per category")
    symbal_chart = grouped_bars(data.breakdown_records(entries, "symbal", "strength"), "strength",
                                ("low", "medium", "high"), "SymbalBench: Accuracy@1 per strength")
    where = folder or data.default_leaderboard_dir()
    note = (f"{len(entries)} scores.json files read from `{where}`." if entries
            else f"No scores.json files in `{where}`: run `diffcap-bench score` / `symbalbench evaluate` "
                 "and point LEADERBOARD_DIR (or `--leaderboard`) at their output folders.")
    return _table(entries, "diffcap"), diffcap_chart, _table(entries, "symbal"), symbal_chart, note


def build(config: data.SpaceConfig) -> gr.Blocks:
    """The leaderboard view over ``config.leaderboard`` (the Space's example scores by default)."""
    folder = config.leaderboard
    _import_pyplot_once()

    with gr.Blocks() as view:
        with gr.Row():
            note = gr.Markdown(elem_id="lb-note")
            reload_btn = gr.Button("Reload", size="sm", scale=0, elem_id="lb-reload")
        gr.Markdown("## DiffCap-Bench (macro over pairs; F1\\* is the headline)")
        diffcap_table = gr.Dataframe(label="DiffCap-Bench (click a header to sort)", interactive=False, wrap=True,
                                     elem_id="lb-diffcap")
        diffcap_chart = gr.Plot(label="Recall per category", elem_id="lb-diffcap-chart")
        gr.Markdown("## SymbalBench (Accuracy@K over scenarios)")
        symbal_table = gr.Dataframe(label="SymbalBench (click a header to sort)", interactive=False, wrap=True,
                                    elem_id="lb-symbal")
        symbal_chart = gr.Plot(label="Accuracy@1 per strength", elem_id="lb-symbal-chart")

        outputs = [diffcap_table, diffcap_chart, symbal_table, symbal_chart, note]
        view.load(lambda: leaderboard_outputs(folder), None, outputs, api_name=False)
        reload_btn.click(lambda: leaderboard_outputs(folder), None, outputs, api_name="leaderboard")
    return view
