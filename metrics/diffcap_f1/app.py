"""Gradio widget for the diffcap_f1 metric (the app of a metric Space: ``python app.py``)."""
import os

import evaluate

from benchcore.metric_widget import build_widget

# Load by folder path, so the app works from any working directory and offline.
module = evaluate.load(os.path.dirname(os.path.abspath(__file__)))
demo = build_widget(
    module,
    example_predictions=["A red cup was added on the table. The sky turned green."],
    example_references=[[{"id": "d1", "text": "a red cup was added on the table", "category": "object",
                          "ambiguous": False}]],
)

if __name__ == "__main__":
    demo.launch()
