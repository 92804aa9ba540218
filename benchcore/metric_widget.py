"""A Gradio widget for an ``evaluate`` metric module (the ``app.py`` of a metric Space).

evaluate's own ``launch_gradio_widget`` was written for gradio 3 (``gr.inputs``) and fails
on gradio >= 4; this builds the same kind of page — JSON in, scores out — on gradio 6.
"""
from __future__ import annotations

import json
from typing import Any


def compute_from_json(metric: Any, predictions_json: str, references_json: str) -> dict:
    """Parse the two JSON inputs and compute; a parse error names the field at fault."""
    try:
        predictions = json.loads(predictions_json)
    except json.JSONDecodeError as e:
        raise ValueError(f"predictions: not valid JSON ({e.msg} at column {e.colno})") from None
    try:
        references = json.loads(references_json)
    except json.JSONDecodeError as e:
        raise ValueError(f"references: not valid JSON ({e.msg} at column {e.colno})") from None
    return metric.compute(predictions=predictions, references=references)


def build_widget(metric: Any, example_predictions: list, example_references: list):
    """A ``gr.Blocks`` page for ``metric`` with the examples filled in (not launched)."""
    import gradio as gr

    with gr.Blocks(title=f"Metric: {metric.name}") as demo:
        gr.Markdown(f"# Metric: {metric.name}\n\n{metric.info.description}")
        preds = gr.Textbox(label="predictions (JSON list)", value=json.dumps(example_predictions), lines=3)
        refs = gr.Textbox(label="references (JSON list)", value=json.dumps(example_references), lines=5)
        button = gr.Button("Compute", variant="primary")
        out = gr.JSON(label="scores")

        def run(p: str, r: str) -> dict:
            try:
                return compute_from_json(metric, p, r)
            except ValueError as e:
                raise gr.Error(str(e))

        button.click(run, [preds, refs], out, api_name="compute")
    return demo
