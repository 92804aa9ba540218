"""scores.json / report.md / chart: present the numbers they are given, in readable, stable form."""
import json

import pytest

from benchcore.errors import InputError
from diffcap_bench.report import (
    JsonlWriter,
    plot_recall_per_category,
    read_scores_json,
    render_report,
    scores_document,
    write_report,
)
from diffcap_bench.scoring import PairCounts, aggregate, per_pair_columns


def make_doc(errors=None, missing=(), empty=()):
    pairs = [
        PairCounts("p1", "web", n_correct=1, n_wrong=1, c_correct=1, c_wrong=1, by_category={"object": [1, 1], "attribute": [0, 1]}),
        PairCounts("p2", "synthetic_2d", n_missed=1, c_hallucination=2, by_category={"object": [0, 1]}),
        PairCounts("p3", "synthetic_2d", c_detail=1),
    ]
    scores = aggregate(pairs, n_resamples=100, errors=errors)
    return scores_document(scores, per_pair_columns(pairs), "judge:test|model:x", dataset="sample",
                           predictions="runs/model_a.jsonl", missing=missing, empty=empty)


def test_report_has_headline_category_and_source_tables():
    text = render_report(make_doc())
    assert text.startswith("# DiffCap-Bench scores: model_a")
    assert "judge:test|model:x" in text and "1 without key items" in text
    assert "| recall | 0.250 | [" in text  # macro mean of 0.5 and 0 (p3 has K = 0)
    assert "| object | 2 | 0.500 |" in text and "| attribute | 1 | 0.000 |" in text and "| expression | 0 | n/a |" in text
    assert "| synthetic_2d | 2 |" in text and "| web | 1 |" in text
    assert "recall_per_category.png" in text


def test_report_lists_errors_missing_and_empty():
    text = render_report(make_doc(errors={"p9": "timeout"}, missing=["p7"], empty=["p8"]))
    assert "**judge errors** (1): excluded from every number: `p9`" in text
    assert "**missing predictions** (1)" in text and "`p7`" in text and "`p8`" in text


def test_long_lists_are_cut_in_the_report_but_complete_in_json(tmp_path):
    missing = [f"m{i}" for i in range(80)]
    doc = make_doc(missing=missing)
    assert "and 30 more (see scores.json)" in render_report(doc)
    write_report(tmp_path, doc)
    assert json.loads((tmp_path / "scores.json").read_text())["missing_predictions"] == missing


def test_scores_json_is_strict_json_with_nulls_and_reads_back(tmp_path):
    write_report(tmp_path, make_doc())
    raw = (tmp_path / "scores.json").read_text()
    assert "NaN" not in raw
    doc = read_scores_json(tmp_path)  # a folder works too
    assert doc["per_pair"]["recall"] == [0.5, 0.0, None]
    assert doc["recall_per_category"]["expression"] is None
    assert doc["model"] == "model_a" and doc["format"] == "diffcap-bench/scores@1"


def test_read_scores_json_refuses_other_files(tmp_path):
    (tmp_path / "a.json").write_text("[1, 2]")
    (tmp_path / "b.json").write_bytes(b"\xff\xfe")
    for name in ("a.json", "b.json"):
        with pytest.raises(InputError, match=name):
            read_scores_json(tmp_path / name)
    with pytest.raises(FileNotFoundError):
        read_scores_json(tmp_path / "none.json")


def test_chart_is_a_png_with_stable_bytes(tmp_path):
    doc = make_doc()
    plot_recall_per_category(doc, tmp_path / "a.png")
    plot_recall_per_category(doc, tmp_path / "b.png")
    data = (tmp_path / "a.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data == (tmp_path / "b.png").read_bytes()


def test_jsonl_writer_one_sorted_record_a_line(tmp_path):
    with JsonlWriter(tmp_path / "j.jsonl") as w:
        w({"b": 1, "a": "é"})
        w({"c": None})
    assert (tmp_path / "j.jsonl").read_text(encoding="utf-8") == '{"a": "é", "b": 1}\n{"c": null}\n'
