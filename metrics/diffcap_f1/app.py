"""Gradio widget for the diffcap_f1 metric (a Hugging Face Space: ``python app.py``).

evaluate's ``launch_gradio_widget`` is used when it works; it was written for gradio 3
(``gr.inputs``), so with gradio >= 4 a small equivalent interface is built instead.
"""
import json

import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("diffcap_f1")


def _fallback_widget(metric):
    import gradio as gr

    example_refs = [[{"id": "d1", "text": "a red cup was added on the table", "category": "object", "ambiguous": False}]]

    def compute(predictions_json: str, references_json: str) -> dict:
        return metric.compute(predictions=json.loads(predictions_json), references=json.loads(references_json))

    gr.Interface(
        fn=compute,
        inputs=[gr.Textbox(label="predictions (JSON list of strings)", value='["A red cup was added on the table."]'),
                gr.Textbox(label="references (JSON list of difference lists)", value=json.dumps(example_refs), lines=4)],
        outputs=gr.JSON(label=metric.name),
        title=f"Metric: {metric.name}",
        description=metric.info.description,
    ).launch()


try:
    launch_gradio_widget(module)
except AttributeError:  # gradio >= 4 has no gr.inputs / gr.outputs
    _fallback_widget(module)
