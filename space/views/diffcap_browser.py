"""DiffCap-Bench browser: filter pairs, step or jump through them, compare the two images.

Named endpoints: ``/diffcap_filter`` (filters -> matching pairs, chart), ``/diffcap_pair``
(pair id -> images, slider, difference table), ``/diffcap_prev`` and ``/diffcap_next``.
"""
from __future__ import annotations

import gradio as gr
import pandas as pd

import data
from views.common import coloured_table, shown_to_user

TABLE_HEADERS = ["id", "category", "difference", "kind"]
IMAGE_HEIGHT = 360


def build(config: data.SpaceConfig) -> gr.Blocks:
    """The browser view for the DiffCap-Bench folder of ``config`` (bundled sample by default)."""
    path = config.diffcap

    def on_filter(categories, sources, ambiguous, current):
        ids = data.filter_pairs(path, categories, sources, ambiguous)
        keep = current if current in ids else (ids[0] if ids else None)
        counts = pd.DataFrame(data.category_counts(path, ids))
        status = f"**{len(ids)}** of {len(data.pair_ids(path))} pairs match the filters."
        return gr.update(choices=ids, value=keep), counts, status

    @shown_to_user
    def on_pair(pair_id):
        if not pair_id:
            return None, None, None, coloured_table([], TABLE_HEADERS, {}), "No pair matches the filters."
        view = data.pair_view(path, pair_id)
        table = coloured_table(data.difference_rows(view.items), TABLE_HEADERS,
                               {"category": data.CATEGORY_COLOURS}, italic_when=("kind", "ambiguous"))
        n_key = sum(not it.ambiguous for it in view.items)
        caption = (f"### `{view.pair_id}` · source **{view.source}** · "
                   f"{n_key} key items, {len(view.items) - n_key} ambiguous")
        return view.image_a, view.image_b, (view.image_a, view.image_b), table, caption

    def stepper(step):
        def on_step(categories, sources, ambiguous, current):
            ids = data.filter_pairs(path, categories, sources, ambiguous)
            return data.step_pair(ids, current, step)
        return on_step

    def on_mode(mode):
        side = mode == "side by side"
        return gr.update(visible=side), gr.update(visible=not side)

    with gr.Blocks() as view:
        with gr.Row():
            with gr.Column(scale=1, min_width=260):
                categories = gr.CheckboxGroup(list(data.category_names()), label="Categories (any of)",
                                              elem_id="dc-categories")
                sources = gr.CheckboxGroup(list(data.source_names()), label="Sources", elem_id="dc-sources")
                ambiguous = gr.Radio(list(data.AMBIGUOUS_CHOICES), value=data.ANY, label="Ambiguous items",
                                     elem_id="dc-ambiguous")
                status = gr.Markdown(elem_id="dc-status")
                chart = gr.BarPlot(x="category", y="items", color="kind", title="Items per category (current filter)",
                                   x_label_angle=-40, height=280, sort=list(data.category_names()), color_map={"key": "#4363d8", "ambiguous": "#bbbbbb"},
                                   elem_id="dc-chart")
            with gr.Column(scale=3):
                with gr.Row():
                    prev_btn = gr.Button("◀ Previous", size="sm", elem_id="dc-prev")
                    pair = gr.Dropdown([], label="Pair (type to jump)", filterable=True, scale=3,
                                       allow_custom_value=True, elem_id="dc-pair")
                    next_btn = gr.Button("Next ▶", size="sm", elem_id="dc-next")
                    mode = gr.Radio(["side by side", "slider"], value="side by side", label="Compare",
                                    elem_id="dc-mode")
                caption = gr.Markdown(elem_id="dc-caption")
                with gr.Row(visible=True) as side_row:
                    image_a = gr.Image(label="Image A", type="pil", format="jpeg", height=IMAGE_HEIGHT,
                                       interactive=False, elem_classes="pair-image", elem_id="dc-image-a")
                    image_b = gr.Image(label="Image B", type="pil", format="jpeg", height=IMAGE_HEIGHT,
                                       interactive=False, elem_classes="pair-image", elem_id="dc-image-b")
                slider = gr.ImageSlider(label="A ◀ slide ▶ B", type="pil", format="jpeg", height=IMAGE_HEIGHT + 80,
                                        visible=False, interactive=False, elem_id="dc-slider")
                table = gr.Dataframe(headers=TABLE_HEADERS, label="Differences", wrap=True, interactive=False,
                                     column_widths=["12%", "18%", "55%", "15%"], elem_id="dc-table")

        filters = [categories, sources, ambiguous]
        pair_outputs = [image_a, image_b, slider, table, caption]
        for n, control in enumerate(filters):  # one named endpoint serves all three filters
            control.change(on_filter, filters + [pair], [pair, chart, status],
                           api_name="diffcap_filter" if n == 0 else False)
        view.load(on_filter, filters + [pair], [pair, chart, status], api_name=False)
        pair.change(on_pair, pair, pair_outputs, api_name="diffcap_pair")
        prev_btn.click(stepper(-1), filters + [pair], pair, api_name="diffcap_prev")
        next_btn.click(stepper(+1), filters + [pair], pair, api_name="diffcap_next")
        mode.change(on_mode, mode, [side_row, slider], api_name=False)
    return view
