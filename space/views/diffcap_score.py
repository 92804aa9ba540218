"""Score a caption: judge a difference caption for one pair and show claims, items and metrics.

Named endpoints: ``/score_pairs`` (the pair list), ``/score_pair`` (pair id -> images) and
``/score_caption`` (pair id, caption, judge fields -> claims, item labels, metrics).
"""
from __future__ import annotations

import gradio as gr

import data
from views.common import coloured_table, fmt_number, shown_to_user

CLAIM_HEADERS = ["claim", "label", "item"]
ITEM_HEADERS = ["id", "status", "category", "difference"]  # status early: always in view
METRIC_HEADERS = ["metric", "value"]
METRIC_NAMES = {"recall": "recall", "precision_star": "precision*", "f1_star": "F1*",
                "hallucination_rate": "hallucination rate"}


def score_outputs(result: data.CaptionScore) -> tuple:
    """What the view shows for a judged caption (also the shapes the API returns)."""
    highlighted = [(c.text + " ", c.label) for c in result.claims]
    claims = coloured_table([[c.text, c.label, c.item or ""] for c in result.claims], CLAIM_HEADERS,
                            {"label": data.CLAIM_COLOURS})
    items = coloured_table([[it.id, status, it.category, it.text] for it, status in result.items], ITEM_HEADERS,
                           {"status": data.ITEM_STATUS_COLOURS, "category": data.CATEGORY_COLOURS})
    metrics = [[METRIC_NAMES[k], fmt_number(v)] for k, v in result.metrics.items()]
    note = f"Judge: `{result.judge}`"
    if result.error:
        note = f"**The judge failed; nothing is scored.** {result.error}\n\n{note}"
    return highlighted, claims, items, metrics, note


def build(config: data.SpaceConfig) -> gr.Blocks:
    """The scoring view for the DiffCap-Bench folder of ``config``."""
    path = config.diffcap

    def on_load():
        ids = data.pair_ids(path)
        return gr.update(choices=ids, value=ids[0] if ids else None)

    @shown_to_user
    def on_pair(pair_id):
        if not pair_id:
            return None, None
        view = data.pair_view(path, pair_id)
        return view.image_a, view.image_b

    @shown_to_user
    def on_score(pair_id, caption, base_url, model, api_key):
        if not pair_id:
            raise gr.Error("Pick a pair first.")
        if not (caption or "").strip():
            raise gr.Error("Type or paste a difference caption to score.")
        spec = data.judge_spec(base_url, model)
        return score_outputs(data.score_caption(path, pair_id, caption, spec, api_key or ""))

    with gr.Blocks() as view:
        with gr.Row():
            with gr.Column(scale=2):
                pair = gr.Dropdown([], label="Pair", filterable=True, allow_custom_value=True, elem_id="sc-pair")
                with gr.Row():
                    image_a = gr.Image(label="Image A", type="pil", format="jpeg", height=240, interactive=False,
                                       elem_classes="pair-image")
                    image_b = gr.Image(label="Image B", type="pil", format="jpeg", height=240, interactive=False,
                                       elem_classes="pair-image")
                caption = gr.Textbox(label="Difference caption", lines=4, elem_id="sc-caption",
                                     placeholder="Describe what changed from image A to image B ...")
                with gr.Accordion("Judge (embedded by default)", open=False):
                    gr.Markdown("Leave empty for the offline embedded judge, or give an OpenAI-compatible "
                                "Chat Completions server (vLLM, TGI, llama.cpp, Ollama, OpenAI).")
                    base_url = gr.Textbox(label="Base URL", placeholder="http://127.0.0.1:8000/v1")
                    model = gr.Textbox(label="Model", placeholder="Qwen2.5-7B-Instruct")
                    api_key = gr.Textbox(label="API key (used for this request only)", type="password")
                score_btn = gr.Button("Score caption", variant="primary", elem_id="sc-score")
            with gr.Column(scale=3):
                claims_text = gr.HighlightedText(label="Claims", color_map=data.CLAIM_COLOURS, show_legend=True,
                                                 combine_adjacent=False, elem_id="sc-claims-text")
                metrics = gr.Dataframe(headers=METRIC_HEADERS, label="Metrics for this caption", interactive=False,
                                       elem_id="sc-metrics")
                claims = gr.Dataframe(headers=CLAIM_HEADERS, label="Claim labels", wrap=True, interactive=False,
                                      column_widths=["60%", "20%", "20%"], elem_id="sc-claims")
                items = gr.Dataframe(headers=ITEM_HEADERS, label="Items: correct / wrong / missed", wrap=True,
                                     interactive=False, column_widths=["20%", "14%", "18%", "48%"],
                                     elem_id="sc-items")
                note = gr.Markdown(elem_id="sc-note")

        view.load(on_load, None, pair, api_name="score_pairs")
        pair.change(on_pair, pair, [image_a, image_b], api_name="score_pair")
        inputs = [pair, caption, base_url, model, api_key]
        outputs = [claims_text, claims, items, metrics, note]
        score_btn.click(on_score, inputs, outputs, api_name="score_caption")
        caption.submit(on_score, inputs, outputs, api_name=False)
    return view
