"""Gradio widget for the symbal_accuracy metric (the app of a metric Space: ``python app.py``)."""
import os

import evaluate

from benchcore.metric_widget import build_widget

# Load by folder path, so the app works from any working directory and offline.
module = evaluate.load(os.path.dirname(os.path.abspath(__file__)))
demo = build_widget(
    module,
    example_predictions=[[{"text_error": "dog", "visual_feature": "car"},
                          {"text_error": "cat", "visual_feature": "bus"}]],
    example_references=[{"text_error": "dog", "visual_feature": "automobile", "domain": "natural",
                         "strength": "high", "sampling": "random", "size": "large"}],
)

if __name__ == "__main__":
    demo.launch()
