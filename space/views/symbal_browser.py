"""SymbalBench browser: pick a scenario, see its (t, v), Cramér's V and 2×2 table, page its rows.

Named endpoints: ``/symbal_filter`` (domain, strength, sampling, size -> scenario ids),
``/symbal_scenario`` (scenario id, variant, row filters -> summary, table, first page) and
``/symbal_page`` (scenario id, variant, row filters, page -> that page of rows).
"""
from __future__ import annotations

import html

import gradio as gr

import data
from views.common import fmt_number, shown_to_user

CONTINGENCY_HEADERS = ["", "t inserted", "t not inserted", "total"]


def summary_markdown(s: dict) -> str:
    """The scenario's header: t, v, its grid coordinates and target vs achieved V."""
    where = " · ".join(f"{k} **{s[k]}**" for k in ("domain", "strength", "sampling", "size") if s.get(k))
    return (f"### `{s['scenario_id']}`\n"
            f"**t** (error text): `{s['text_error']}` &nbsp; **v** (visual feature): `{s['visual_feature']}`\n\n"
            f"{where}\n\n"
            f"Cramér's V: target **{fmt_number(s['target_v'])}**, achieved **{fmt_number(s['achieved_v'])}** "
            f"(recomputed from the rows: {fmt_number(s['recomputed_v'])}) · {s['n_rows']} rows")


def contingency_rows(table: list[list[int]]) -> list[list]:
    """The 2×2 table with margins, rows "v present" / "v absent" / "total"."""
    (a, b), (c, d) = table
    return [["v present", a, b, a + b], ["v absent", c, d, c + d], ["total", a + c, b + d, a + b + c + d]]


def rows_html(path, page: data.RowPage, variant: str) -> str:
    """One page of rows as an HTML table: thumbnail, caption with the inserted span marked, refs."""
    with_refs = variant == "reference_based"
    head = "<tr><th>image</th><th>caption</th>" + ("<th>references</th>" if with_refs else "") + "<th>flags</th></tr>"
    body = [_row_html(path, row, with_refs) for row in page.rows]
    if not body:
        body = ["<tr><td colspan='4'>No row matches the filters.</td></tr>"]
    return f"<div class='symbal-rows'><table>{head}{''.join(body)}</table></div>"


def _row_html(path, row: dict, with_refs: bool) -> str:
    segments = data.caption_segments(row["caption"], row.get("span_start"), row.get("span_end"))
    caption = "".join(f"<mark title='inserted t'>{html.escape(text)}</mark>" if label else html.escape(text)
                      for text, label in segments)
    flags = ", ".join(name for name, on in (("v present", row.get("v_present")), ("t inserted", row.get("inserted")))
                      if on) or "–"
    labels = html.escape(", ".join(map(str, row.get("labels") or [])))
    refs = ""
    if with_refs:
        refs = "<td>" + "<br>".join(html.escape(str(r)) for r in (row.get("references") or [])) + "</td>"
    thumb = data.thumbnail_data_uri(path, row["image"])
    return (f"<tr><td><img src='{thumb}' alt='{html.escape(str(row['record_id']))}'>"
            f"<div class='flag'>{html.escape(str(row['record_id']))}</div></td>"
            f"<td>{caption}<div class='flag'>labels: {labels}</div></td>{refs}"
            f"<td class='flag'>{flags}</td></tr>")


def build(config: data.SpaceConfig) -> gr.Blocks:
    """The browser view for the SymbalBench folder of ``config`` (bundled sample by default)."""
    path = config.symbal

    def on_load():
        choices = data.scenario_choices(path)
        filters = tuple(gr.update(choices=choices[k], value=data.ANY) for k in data.SCENARIO_FILTERS)
        return (*filters, *on_filter(data.ANY, data.ANY, data.ANY, data.ANY, None))

    def on_filter(domain, strength, sampling, size, current):
        ids = data.filter_scenarios(path, domain=domain, strength=strength, sampling=sampling, size=size)
        keep = current if current in ids else (ids[0] if ids else None)
        return gr.update(choices=ids, value=keep), f"**{len(ids)}** scenarios match."

    @shown_to_user
    def page_outputs(scenario_id, variant, only, page):
        if not scenario_id:
            return "", 1, ""
        rp = data.scenario_page(path, scenario_id, variant, int(page or 1), data.DEFAULT_PAGE_SIZE, only)
        status = f"page {rp.page} of {rp.n_pages} · {rp.n_matching} rows match"
        return rows_html(path, rp, variant), rp.page, status

    @shown_to_user
    def on_scenario(scenario_id, variant, only):
        if not scenario_id:
            return "No scenario matches the filters.", [], "", 1, ""
        s = data.scenario_summary(path, scenario_id)
        return (summary_markdown(s), contingency_rows(s["contingency"]), *page_outputs(scenario_id, variant, only, 1))

    def pager(step):
        def on_step(scenario_id, variant, only, page):
            return page_outputs(scenario_id, variant, only, int(page or 1) + step)
        return on_step

    with gr.Blocks() as view:
        with gr.Row():
            with gr.Column(scale=1, min_width=260):
                domain = gr.Dropdown([data.ANY], value=data.ANY, label="Domain", elem_id="sb-domain")
                strength = gr.Dropdown([data.ANY], value=data.ANY, label="Strength", elem_id="sb-strength")
                sampling = gr.Dropdown([data.ANY], value=data.ANY, label="Sampling", elem_id="sb-sampling")
                size = gr.Dropdown([data.ANY], value=data.ANY, label="Size of v", elem_id="sb-size")
                scenario = gr.Dropdown([], label="Scenario (type an id to jump)", filterable=True,
                                       allow_custom_value=True, elem_id="sb-scenario")
                status = gr.Markdown(elem_id="sb-status")
            with gr.Column(scale=3):
                summary = gr.Markdown(elem_id="sb-summary")
                contingency = gr.Dataframe(headers=CONTINGENCY_HEADERS, label="2×2 contingency (rows)",
                                           interactive=False, elem_id="sb-contingency")
                with gr.Row():
                    variant = gr.Radio(list(data.VARIANTS), value=data.VARIANTS[0], label="View",
                                       elem_id="sb-variant")
                    only = gr.CheckboxGroup(list(data.ROW_FILTERS), label="Only rows with", elem_id="sb-only")
                with gr.Row():
                    prev_btn = gr.Button("◀ Previous page", size="sm", elem_id="sb-prev")
                    page = gr.Number(1, label="Page", precision=0, minimum=1, elem_id="sb-page")
                    next_btn = gr.Button("Next page ▶", size="sm", elem_id="sb-next")
                page_status = gr.Markdown(elem_id="sb-page-status")
                rows = gr.HTML(elem_id="sb-rows")

        filters = [domain, strength, sampling, size]
        view.load(on_load, None, filters + [scenario, status], api_name="symbal_choices")
        for n, control in enumerate(filters):  # one named endpoint serves all four filters
            control.change(on_filter, filters + [scenario], [scenario, status],
                           api_name="symbal_filter" if n == 0 else False)
        page_out = [rows, page, page_status]
        scenario.change(on_scenario, [scenario, variant, only], [summary, contingency, *page_out],
                        api_name="symbal_scenario")
        for control in (variant, only):
            control.change(lambda s, v, o: page_outputs(s, v, o, 1), [scenario, variant, only], page_out,
                           api_name=False)
        page.submit(page_outputs, [scenario, variant, only, page], page_out, api_name="symbal_page")
        prev_btn.click(pager(-1), [scenario, variant, only, page], page_out, api_name=False)
        next_btn.click(pager(+1), [scenario, variant, only, page], page_out, api_name=False)
    return view
