"""The Space served on 127.0.0.1 and driven through its named endpoints with gradio_client.

DiffCap-Bench and the leaderboard use code-made folders (known pairs, known scores); SymbalBench
uses the bundled sample, checked against the data layer.
"""
from __future__ import annotations

import html

import pytest

import data
import space_fixtures
from space_server import launch_space

pytest.importorskip("gradio_client")


@pytest.fixture(scope="module")
def client(diffcap_folder, tmp_path_factory):
    from gradio_client import Client

    leaderboard = space_fixtures.make_leaderboard_folder(tmp_path_factory.mktemp("leaderboard"))
    demo, url = launch_space(data.SpaceConfig(diffcap=diffcap_folder, leaderboard=leaderboard))
    try:
        yield Client(url, verbose=False)
    finally:
        demo.close()


def test_every_view_has_its_named_endpoints(client):
    names = set(client.view_api(return_format="dict", print_info=False)["named_endpoints"])
    assert {"/diffcap_filter", "/diffcap_pair", "/diffcap_prev", "/diffcap_next", "/score_pairs", "/score_pair",
            "/score_caption", "/symbal_choices", "/symbal_filter", "/symbal_scenario", "/symbal_page",
            "/leaderboard"} <= names


# ----------------------------------------------------------------------------- DiffCap browser

def test_filter_endpoint_returns_matching_pairs_and_counts(client):
    pair, chart, status = client.predict(["image_property"], [], "any", None, api_name="/diffcap_filter")
    assert [c[0] for c in pair["choices"]] == ["fx-001", "fx-004"] and pair["value"] == "fx-001"
    assert "**2** of 4 pairs" in status
    counts = {(c, k): n for c, k, n in chart["data"]}
    assert counts[("image_property", "key")] == 1 and counts[("image_property", "ambiguous")] == 1
    assert len(chart["data"]) == 20  # every category, key and ambiguous


def test_pair_endpoint_returns_two_images_a_slider_and_the_coloured_table(client):
    image_a, image_b, slider, table, caption = client.predict("fx-001", api_name="/diffcap_pair")
    assert image_a.endswith(".jpeg") and image_b.endswith(".jpeg") and len(slider) == 2
    assert table["headers"] == ["id", "category", "difference", "kind"]
    assert [r[0] for r in table["data"]] == ["fx-001-1", "fx-001-2", "fx-001-3"]
    assert table["data"][2][3] == "ambiguous"
    assert data.CATEGORY_COLOURS["object"] in table["metadata"]["styling"][0][1]
    assert "fx-001" in caption and "2 key items, 1 ambiguous" in caption


def test_step_endpoints_move_within_the_filter_and_wrap(client):
    assert client.predict([], ["synthetic_2d"], "any", "fx-002", api_name="/diffcap_next") == "fx-003"
    assert client.predict([], ["synthetic_2d"], "any", "fx-003", api_name="/diffcap_next") == "fx-002"
    assert client.predict([], [], "any", "fx-001", api_name="/diffcap_prev") == "fx-004"


# ----------------------------------------------------------------------------- scoring

def test_score_view_lists_pairs(client, diffcap_folder):
    pair = client.predict(api_name="/score_pairs")
    assert [c[0] for c in pair["choices"]] == data.pair_ids(diffcap_folder) and pair["value"] == "fx-001"


def test_scoring_a_known_caption_returns_the_expected_labels(client):
    caption = "A red ball appears on the table. The sky is brighter. A cat sits on the chair."
    highlighted, claims, items, metrics, note = client.predict("fx-001", caption, "", "", "",
                                                               api_name="/score_caption")
    assert [(h["token"].strip(), h["class_or_confidence"]) for h in highlighted] == [
        ("A red ball appears on the table", "correct"), ("The sky is brighter", "wrong"),
        ("A cat sits on the chair", "hallucination")]
    assert [r[1:] for r in claims["data"]] == [["correct", "fx-001-1"], ["wrong", "fx-001-2"], ["hallucination", ""]]
    assert [(r[0], r[1]) for r in items["data"]] == [("fx-001-1", "correct"), ("fx-001-2", "wrong"),
                                                     ("fx-001-3", "ambiguous")]
    assert dict(metrics["data"]) == {"recall": "0.500", "precision*": "0.333", "F1*": "0.400",
                                     "hallucination rate": "0.667"}
    assert "judge:embedded" in note


def test_scoring_without_a_caption_is_an_error_message(client):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="caption"):
        client.predict("fx-001", "   ", "", "", "", api_name="/score_caption")


# ----------------------------------------------------------------------------- SymbalBench browser

def test_symbal_choices_fill_the_filters_and_the_scenario_list(client):
    domain, strength, sampling, size, scenario, status = client.predict(api_name="/symbal_choices")
    assert [c[0] for c in strength["choices"]][:1] == ["any"] and strength["value"] == "any"
    assert {c[0] for c in domain["choices"]} == {"any", "natural", "medical"}
    ids = data.filter_scenarios(None)
    assert [c[0] for c in scenario["choices"]] == ids and scenario["value"] == ids[0]
    assert f"**{len(ids)}** scenarios" in status


def test_symbal_filter_keeps_only_matching_scenarios(client):
    scenario, status = client.predict("medical", "high", "any", "any", None, api_name="/symbal_filter")
    ids = [c[0] for c in scenario["choices"]]
    assert ids and ids == data.filter_scenarios(None, domain="medical", strength="high")
    assert all(data.scenario_summary(None, i)["strength"] == "high" for i in ids)


def test_symbal_scenario_shows_v_values_and_the_contingency_table(client):
    sid = data.filter_scenarios(None, domain="natural")[0]
    summary = data.scenario_summary(None, sid)
    header, table, rows, page, status = client.predict(sid, "reference_free", [], api_name="/symbal_scenario")
    assert sid in header and f"`{summary['text_error']}`" in header and "target" in header
    (a, b), (c, d) = summary["contingency"]
    assert table["data"] == [["v present", a, b, a + b], ["v absent", c, d, c + d],
                             ["total", a + c, b + d, a + b + c + d]]
    assert page == 1 and rows.count("<tr>") == 1 + data.DEFAULT_PAGE_SIZE
    assert "<th>references</th>" not in rows


def test_symbal_page_of_inserted_rows_highlights_t_and_shows_references(client):
    sid = data.filter_scenarios(None, domain="natural")[0]
    expected = data.scenario_page(None, sid, "reference_based", 1, data.DEFAULT_PAGE_SIZE, ["t inserted"])
    rows, page, status = client.predict(sid, "reference_based", ["t inserted"], 1, api_name="/symbal_page")
    assert page == 1 and f"{expected.n_matching} rows match" in status
    assert rows.count("<mark") == len(expected.rows) > 0
    assert "<th>references</th>" in rows and "data:image/jpeg;base64," in rows
    first = expected.rows[0]
    inserted = first["caption"][first["span_start"]:first["span_end"]]
    assert f">{html.escape(inserted)}</mark>" in rows


def test_symbal_page_is_clamped_to_the_last_page(client):
    sid = data.filter_scenarios(None)[0]
    rows, page, status = client.predict(sid, "reference_free", [], 10_000, api_name="/symbal_page")
    assert page == data.scenario_page(None, sid, page=10_000).n_pages and f"page {int(page)} of" in status


# ----------------------------------------------------------------------------- leaderboard

def test_leaderboard_endpoint_returns_both_tables_and_charts(client):
    diffcap, diffcap_chart, symbal, symbal_chart, note = client.predict(api_name="/leaderboard")
    assert diffcap["headers"][:2] == ["model", "F1*"] and diffcap["headers"][-1] == "judge"
    assert [r[0] for r in diffcap["data"]] == ["good", "bad"]
    assert symbal["data"][0][0] == "detector" and symbal["headers"][1] == "Acc@1"
    for chart in (diffcap_chart, symbal_chart):
        assert chart["type"] == "matplotlib" and chart["plot"].startswith("data:image/")
    assert "3 scores.json files" in note


def test_an_unknown_pair_is_a_message_naming_it(client):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="no-such-pair"):
        client.predict("no-such-pair", api_name="/diffcap_pair")


def test_scoring_through_an_openai_compatible_url_uses_only_the_visitors_key(client, monkeypatch):
    from capjudge.testing.server import ScriptedServer

    monkeypatch.setenv("OPENAI_API_KEY", "host-secret")
    caption = "A red ball was added on the table. Not the sky is darker."  # the server's oracle: correct, wrong
    with ScriptedServer() as server:
        highlighted, claims, items, metrics, note = client.predict(
            "fx-001", caption, server.base_url, "test-model", "visitor-key", api_name="/score_caption")
        sent = [h.get("Authorization") for h in server.headers]
    assert [r[1:] for r in claims["data"]] == [["correct", "fx-001-1"], ["wrong", "fx-001-2"]]
    assert "judge:openai|model:test-model" in note
    assert sent and set(sent) == {"Bearer visitor-key"}


def test_a_judge_that_fails_is_reported_and_nothing_is_scored(client):
    from capjudge.testing.server import ScriptedServer, content

    with ScriptedServer(default=content("this is not JSON")) as server:
        highlighted, claims, items, metrics, note = client.predict(
            "fx-001", "A red ball was added on the table.", server.base_url, "test-model", "",
            api_name="/score_caption")
    assert "judge failed" in note and claims["data"] in ([], [["", "", ""]]) and metrics["data"] in ([], [["", ""]])
    assert [r[1] for r in items["data"]] == ["not judged"] * 3
