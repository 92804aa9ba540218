"""Gradio widget for the symbal_accuracy metric (run from this folder: ``python app.py``)."""
import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("symbal_accuracy")
launch_gradio_widget(module)
