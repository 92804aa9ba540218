"""The metric Spaces' app.py build a working widget on gradio 6 (without launching a server)."""
import importlib.util
from pathlib import Path

import pytest

from benchcore.metric_widget import compute_from_json

ROOT = Path(__file__).resolve().parents[2]


def _load_app(name: str):
    spec = importlib.util.spec_from_file_location(f"{name}_app", ROOT / "metrics" / name / "app.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # not __main__: builds the page, does not launch it
    return mod


@pytest.mark.parametrize("name", ["diffcap_f1", "symbal_accuracy"])
def test_app_builds_a_blocks_page_with_a_compute_endpoint(name, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # loads by its own folder, from anywhere
    import gradio as gr

    app = _load_app(name)
    assert isinstance(app.demo, gr.Blocks)
    assert "/compute" in app.demo.get_api_info()["named_endpoints"]


def test_diffcap_widget_example_scores_as_the_spec_says():
    app = _load_app("diffcap_f1")
    s = compute_from_json(app.module, '["A red cup was added on the table. The sky turned green."]',
                          '[[{"id": "d1", "text": "a red cup was added on the table", "category": "object", '
                          '"ambiguous": false}]]')
    assert (s["recall"], s["precision_star"], s["hallucination_rate"]) == (1.0, 0.5, 0.5)


def test_symbal_widget_example_counts_a_synonym_hit():
    app = _load_app("symbal_accuracy")
    s = compute_from_json(app.module, '[[{"text_error": "dog", "visual_feature": "car"}]]',
                          '[{"text_error": "dog", "visual_feature": "automobile", "domain": "natural", '
                          '"strength": "high", "sampling": "random", "size": "large"}]')
    assert s["accuracy@1"] == 1.0


def test_bad_json_names_the_field():
    with pytest.raises(ValueError, match="references: not valid JSON"):
        compute_from_json(object(), "[]", "[{")
