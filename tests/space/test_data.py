"""The Space's data layer, called as plain functions (no Gradio)."""
from __future__ import annotations

import pytest

import data
import space_fixtures
from benchcore.errors import InputError


def test_data_module_does_not_import_gradio():
    # data.py is the layer tests and scripts use without a UI toolkit
    source = (data.__file__ and open(data.__file__, encoding="utf-8").read())
    assert "import gradio" not in source and "from gradio" not in source


def test_config_arguments_win_over_environment():
    env = {"DIFFCAP_DATA": "env/dc", "SYMBAL_DATA": "env/sb", "LEADERBOARD_DIR": "env/lb"}
    assert data.config_from([], environ=env) == data.SpaceConfig("env/dc", "env/sb", "env/lb")
    assert data.config_from(["--symbal", "arg/sb"], environ=env).symbal == "arg/sb"
    assert data.config_from([], environ={}) == data.SpaceConfig()


# ----------------------------------------------------------------------------- DiffCap browser

def test_index_reads_sources_categories_and_ambiguous_flags(diffcap_folder):
    first = data.diffcap_index(diffcap_folder)[0]
    assert first == data.PairSummary("fx-001", "web", ("object", "image_property", "background"), (False, False, True))
    assert data.pair_ids(diffcap_folder) == ["fx-001", "fx-002", "fx-003", "fx-004"]


@pytest.mark.parametrize("filters, expected", [
    ({}, ["fx-001", "fx-002", "fx-003", "fx-004"]),
    ({"categories": ["image_property"]}, ["fx-001", "fx-004"]),
    ({"categories": ["attribute", "text_symbol"]}, ["fx-002", "fx-003"]),
    ({"sources": ["synthetic_2d"]}, ["fx-002", "fx-003"]),
    ({"ambiguous": "with ambiguous items"}, ["fx-001", "fx-004"]),
    ({"ambiguous": "without ambiguous items", "sources": ["synthetic_2d", "web"]}, ["fx-002", "fx-003"]),
    ({"categories": ["expression"]}, []),
])
def test_filters_combine_categories_sources_and_ambiguous(diffcap_folder, filters, expected):
    assert data.filter_pairs(diffcap_folder, **filters) == expected


def test_unknown_ambiguous_filter_is_refused(diffcap_folder):
    with pytest.raises(ValueError, match="ambiguous filter"):
        data.filter_pairs(diffcap_folder, ambiguous="sometimes")


def test_category_counts_cover_every_category_and_split_key_from_ambiguous(diffcap_folder):
    records = data.category_counts(diffcap_folder, ["fx-001", "fx-004"])
    assert len(records) == 2 * len(data.category_names())
    got = {(r["category"], r["kind"]): r["items"] for r in records if r["items"]}
    assert got == {("object", "key"): 1, ("image_property", "key"): 1, ("background", "ambiguous"): 1,
                   ("image_property", "ambiguous"): 1}


def test_step_wraps_and_starts_from_an_end_when_current_is_filtered_out():
    ids = ["a", "b", "c"]
    assert data.step_pair(ids, "b", 1) == "c"
    assert data.step_pair(ids, "c", 1) == "a"
    assert data.step_pair(ids, "gone", 1) == "a"
    assert data.step_pair(ids, "gone", -1) == "c"


def test_pair_view_gives_both_images_and_items_with_category_names(diffcap_folder):
    view = data.pair_view(diffcap_folder, "fx-003")
    assert view.image_a.size == view.image_b.size == (96, 96)
    assert view.source == "synthetic_2d"
    assert data.difference_rows(view.items) == [
        ["fx-003-1", "text_symbol", "The text STOP became GO.", "key"],
        ["fx-003-2", "camera_viewpoint", "The picture is mirrored.", "key"],
    ]


def test_unknown_pair_names_the_id(diffcap_folder):
    with pytest.raises(data.UnknownId, match="nope"):
        data.pair_view(diffcap_folder, "nope")


# ----------------------------------------------------------------------------- scoring a caption

def test_scoring_labels_claims_items_and_metrics(diffcap_folder):
    result = data.score_caption(diffcap_folder, "fx-001",
                                "A red ball appears on the table. The sky is brighter. A cat sits on the chair.")
    assert result.error is None
    assert [c.label for c in result.claims] == ["correct", "wrong", "hallucination"]
    assert [(it.id, status) for it, status in result.items] == [
        ("fx-001-1", "correct"), ("fx-001-2", "wrong"), ("fx-001-3", "ambiguous")]
    assert result.metrics == pytest.approx({"recall": 0.5, "precision_star": 1 / 3, "f1_star": 0.4,
                                            "hallucination_rate": 2 / 3})
    assert result.judge.startswith("judge:embedded")


def test_an_empty_caption_misses_every_key_item(diffcap_folder):
    result = data.score_caption(diffcap_folder, "fx-003", "Nothing changed.")
    assert [status for _, status in result.items] == ["missed", "missed"]
    assert result.metrics["recall"] == 0.0


def test_judge_spec_from_the_ui_fields():
    assert data.judge_spec("", "") == "embedded"
    assert data.judge_spec(" http://h:8000/v1 ", "m") == "openai:m?base_url=http://h:8000/v1"
    with pytest.raises(ValueError, match="both"):
        data.judge_spec("http://h:8000/v1", "")
    with pytest.raises(ValueError, match="http"):
        data.judge_spec("file:///etc/passwd", "m")
    with pytest.raises(ValueError, match="model name"):
        data.judge_spec("http://h:8000/v1", "m?base_url=http://elsewhere")


def test_a_visitor_url_never_receives_the_hosts_api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "host-secret")
    judge = data.make_judge("openai:m?base_url=http://127.0.0.1:9/v1")
    assert judge._headers() == {}
    assert data.make_judge("openai:m?base_url=http://127.0.0.1:9/v1", "visitor")._headers() == {
        "Authorization": "Bearer visitor"}


# ----------------------------------------------------------------------------- SymbalBench helpers

def test_caption_segments_mark_only_a_valid_span():
    assert data.caption_segments("ab cd", 3, 5) == [("ab ", None), ("cd", "inserted"), ("", None)]
    assert data.caption_segments("ab cd", 3, 99) == [("ab cd", None)]
    assert data.caption_segments("ab cd", 2, 2) == [("ab cd", None)]


def test_cramers_v_of_independent_and_perfect_tables():
    assert data.cramers_v([[10, 10], [10, 10]]) == 0.0
    assert data.cramers_v([[5, 0], [0, 7]]) == 1.0
    assert data.cramers_v([[0, 0], [3, 4]]) == 0.0  # empty margin


# ----------------------------------------------------------------------------- leaderboard

def test_leaderboard_reads_both_kinds_and_sorts_best_first(tmp_path):
    space_fixtures.make_leaderboard_folder(tmp_path)

    entries = data.read_leaderboard(str(tmp_path))
    assert [(e.benchmark, e.model) for e in entries] == [("diffcap", "bad"), ("diffcap", "good"), ("symbal", "detector")]
    headers, rows = data.leaderboard_rows(entries, "diffcap")
    assert headers[0] == "model" and headers[1] == "f1_star" and headers[-1] == "judge"
    assert [r[0] for r in rows] == ["good", "bad"]
    assert rows[0][-1] == "judge:embedded|test"
    sym_headers, sym_rows = data.leaderboard_rows(entries, "symbal")
    assert sym_headers == ["model", "accuracy@1", "accuracy@5", "judge"] and sym_rows[0][1] == 1.0
    chart = data.breakdown_records(entries, "symbal", "strength")
    assert chart == [{"model": "detector", "strength": "high", "value": 1.0}]
    per_cat = {(r["model"], r["category"]): r["value"] for r in data.breakdown_records(entries, "diffcap", "category")}
    assert per_cat[("good", "object")] == 1.0 and per_cat[("bad", "object")] == 0.0


def test_a_broken_scores_file_is_named(tmp_path):
    (tmp_path / "scores.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match="scores.json"):
        data.read_leaderboard(str(tmp_path))


def test_missing_leaderboard_folder_is_empty(tmp_path):
    assert data.read_leaderboard(str(tmp_path / "absent")) == ()


def test_docstring_examples_of_the_space_modules():
    # space/ is not a package on pytest's doctest paths, so its examples are run here
    import doctest

    import views.common

    for module in (data, views.common):
        failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert attempted > 0 and failed == 0, module.__name__
