"""Leaderboard: the ``scores.json`` files of both scoring CLIs in one folder, one table each.

Named endpoint: ``/leaderboard`` (reload the folder -> both tables and both charts).
"""
from __future__ import annotations

import gradio as gr
import pandas as pd

import data
from views.common import fmt_number, shown_to_user


def _table(entries, benchmark: str) -> pd.DataFrame:
    headers, rows = data.leaderboard_rows(entries, benchmark)
    # Numbers rounded for reading; the Dataframe's column headers sort on click.
    rows = [[round(v, 4) if isinstance(v, float) and v == v else v for v in row] for row in rows]
    return pd.DataFrame(rows, columns=headers)


@shown_to_user
def leaderboard_outputs(folder) -> tuple:
    """Both tables, both charts and a note naming the folder and the number of files."""
    entries = data.read_leaderboard(folder)
    diffcap_chart = pd.DataFrame(data.breakdown_records(entries, "diffcap", "category"),
                                 columns=["model", "category", "value"])
    symbal_chart = pd.DataFrame(data.breakdown_records(entries, "symbal", "strength"),
                                columns=["model", "strength", "value"])
    where = folder or data.default_leaderboard_dir()
    note = (f"{len(entries)} scores.json files read from `{where}`." if entries
            else f"No scores.json files in `{where}`: run `diffcap-bench score` / `symbalbench evaluate` "
                 "and point LEADERBOARD_DIR (or `--leaderboard`) at their output folders.")
    return _table(entries, "diffcap"), diffcap_chart, _table(entries, "symbal"), symbal_chart, note


def build(config: data.SpaceConfig) -> gr.Blocks:
    """The leaderboard view over ``config.leaderboard`` (the Space's example scores by default)."""
    folder = config.leaderboard

    with gr.Blocks() as view:
        with gr.Row():
            note = gr.Markdown(elem_id="lb-note")
            reload_btn = gr.Button("Reload", size="sm", scale=0, elem_id="lb-reload")
        gr.Markdown("## DiffCap-Bench (macro over pairs; F1\\* is the headline)")
        diffcap_table = gr.Dataframe(label="DiffCap-Bench", interactive=False, wrap=True, elem_id="lb-diffcap")
        diffcap_chart = gr.BarPlot(x="category", y="value", color="model", title="Recall per category",
                                   x_label_angle=-40, y_lim=[0, 1], height=320, sort=list(data.category_names()), elem_id="lb-diffcap-chart")
        gr.Markdown("## SymbalBench (Accuracy@K over scenarios)")
        symbal_table = gr.Dataframe(label="SymbalBench", interactive=False, wrap=True, elem_id="lb-symbal")
        symbal_chart = gr.BarPlot(x="strength", y="value", color="model", title="Accuracy@1 per strength",
                                  y_lim=[0, 1], height=320, sort=["low", "medium", "high"], elem_id="lb-symbal-chart")

        outputs = [diffcap_table, diffcap_chart, symbal_table, symbal_chart, note]
        view.load(lambda: leaderboard_outputs(folder), None, outputs, api_name=False)
        reload_btn.click(lambda: leaderboard_outputs(folder), None, outputs, api_name="leaderboard")
    return view


__all__ = ["build", "leaderboard_outputs", "fmt_number"]
