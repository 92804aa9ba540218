"""The agreement set and the measuring tool."""
import json

import pytest

from capjudge import CallableJudge
from capjudge.agreement_tool import (
    AgreementSetError,
    REPORT_PATH,
    align_claims,
    cohen_kappa,
    confusion,
    forward_labels,
    load_set,
    measure,
    measure_differences,
    per_label,
    render_markdown,
    split_of,
)
from capjudge.cli import main
from capjudge.embedded import EmbeddedJudge
from capjudge.protocol import Item, validate_judgement

CATEGORIES = {"object", "attribute", "action_pose", "spatial_relation", "composition", "text_symbol",
              "background", "camera_viewpoint", "image_property", "expression"}


# -- the set itself --------------------------------------------------------------------------
def test_set_is_large_enough_and_covers_every_category():
    diff, eq = load_set("difference", "all"), load_set("equivalence", "all")
    assert len(diff) >= 150 and len(eq) >= 150
    assert {i["category"] for r in diff for i in r["items"]} == CATEGORIES
    assert {True, False} == {r["equivalent"] for r in eq}
    assert {"text_error", "visual_feature"} == {r["kind"] for r in eq}
    labels = {c["label"] for r in diff for c in r["claims"]}
    assert labels == {"correct", "wrong", "ambiguous", "detail", "hallucination"}


@pytest.mark.parametrize("kind", ["difference", "equivalence"])
def test_halves_are_disjoint_and_fixed_by_id(kind):
    tune, test = load_set(kind, "tune"), load_set(kind, "test")
    assert tune and test
    assert not {r["id"] for r in tune} & {r["id"] for r in test}
    assert all(split_of(r["id"]) == "tune" for r in tune) and all(split_of(r["id"]) == "test" for r in test)


def test_human_labels_are_valid_judgements_and_item_labels_follow_the_forward_check():
    for r in load_set("difference", "all"):
        items = [Item.from_mapping(i) for i in r["items"]]
        claims = validate_judgement({"claims": r["claims"]}, items)
        assert forward_labels(items, claims) == r["item_labels"], r["id"]
        assert all(c["text"].strip() for c in r["claims"]), r["id"]


def test_malformed_line_is_named_by_file_and_line(tmp_path):
    (tmp_path / "equivalence_test.jsonl").write_text('{"id": "a", "predicted": "x", "reference": "y", "kind": "text_error", "equivalent": true}\n{oops\n')
    with pytest.raises(AgreementSetError, match=r"equivalence_test.jsonl:2: not JSON"):
        load_set("equivalence", "test", root=tmp_path)
    (tmp_path / "equivalence_test.jsonl").write_text('{"id": "a", "predicted": "x"}\n')
    with pytest.raises(AgreementSetError, match=r":1 \(id 'a'\): missing field\(s\) reference, kind, equivalent"):
        load_set("equivalence", "test", root=tmp_path)
    with pytest.raises(ValueError, match="split"):
        load_set("equivalence", "dev", root=tmp_path)


# -- statistics ------------------------------------------------------------------------------
def test_kappa_known_values():
    assert cohen_kappa(["a", "b", "a", "b"], ["a", "b", "a", "b"]) == 1.0
    assert cohen_kappa(["a", "a", "b", "b"], ["a", "b", "a", "b"]) == 0.0
    assert cohen_kappa(["a", "a", "b", "b"], ["b", "b", "a", "a"]) == -1.0
    # 20 items, observed 0.7, expected 0.5 -> 0.4
    human = ["y"] * 10 + ["n"] * 10
    judge = ["y"] * 7 + ["n"] * 3 + ["n"] * 7 + ["y"] * 3
    assert cohen_kappa(human, judge) == pytest.approx(0.4)
    assert cohen_kappa(["a"] * 3, ["a"] * 3) == 1.0


def test_confusion_and_per_label():
    h, j = ["c", "c", "w", "m"], ["c", "w", "w", "c"]
    assert confusion(h, j, ["c", "w", "m"]) == [[1, 1, 0], [0, 1, 0], [1, 0, 0]]
    pl = per_label(h, j, ["c", "w"])
    assert pl["c"] == {"precision": 0.5, "recall": 0.5, "support": 2}
    assert pl["w"]["precision"] == 0.5 and pl["w"]["recall"] == 1.0


def test_alignment_is_one_to_one_and_reports_leftovers():
    assert align_claims(["the dog was added", "the sky is blue"], ["The dog was added on the left"]) == [(0, 0), (1, None)]
    assert align_claims([], ["x y"]) == [(None, 0)]


# -- measuring judges ------------------------------------------------------------------------
def _oracle():
    """A callable judge that answers exactly what the humans said."""
    diff = {r["prediction"]: r["claims"] for r in load_set("difference", "all")}
    eq = {(r["predicted"], r["reference"]): r["equivalent"] for r in load_set("equivalence", "all")}
    return CallableJudge(difference=lambda items, p: {"claims": diff[p]}, equivalent=lambda p, r, k: eq[(p, r)])


def test_oracle_judge_agrees_perfectly():
    rep = measure(_oracle(), "test")
    d, e = rep["difference"], rep["equivalence"]
    assert d["item"]["accuracy"] == d["item"]["kappa"] == 1.0
    assert d["claim"]["accuracy"] == 1.0 and d["claim"]["alignment_rate"] == 1.0
    assert d["hallucinated_pair"]["kappa"] == 1.0 and not d["disagreements"]
    assert e["accuracy"] == e["kappa"] == 1.0


def test_a_judge_that_calls_everything_a_hallucination_has_no_item_agreement():
    judge = CallableJudge(difference=lambda items, p: {"claims": [{"text": p, "label": "hallucination", "item": None}]},
                          equivalent=lambda p, r, k: True)
    rep = measure(judge, "tune")
    item = rep["difference"]["item"]
    assert set(item["labels"]) == {"correct", "wrong", "missed"}
    assert item["kappa"] == pytest.approx(0.0)
    assert sum(row[2] for row in item["confusion"]) == item["n"]  # every key item judged missed
    assert rep["equivalence"]["accuracy"] < 0.8


def test_judge_errors_are_counted():
    rows = load_set("difference", "tune")[:3]
    rep = measure_differences(CallableJudge(difference=lambda items, p: {"claims": "nope"}), rows)
    assert rep["judge_errors"] == 3
    assert all(d["error"] for d in rep["disagreements"])


def test_embedded_judge_meets_the_targets_on_the_tune_half():
    rep = measure(EmbeddedJudge(), "tune")
    assert rep["difference"]["item"]["kappa"] >= 0.6
    assert rep["equivalence"]["accuracy"] >= 0.9


def test_report_md_is_what_the_tool_prints_for_the_test_half():
    """REPORT.md must be regenerated (capjudge agreement --update-report) when the judge or the set changes."""
    assert REPORT_PATH.read_text(encoding="utf-8") == render_markdown(measure(EmbeddedJudge(), "test"))


# -- command line ----------------------------------------------------------------------------
def test_cli_writes_json_and_markdown(tmp_path, capsys):
    out, md = tmp_path / "agree.json", tmp_path / "agree.md"
    assert main(["agreement", "--split", "tune", "--json", str(out), "--markdown", str(md), "--disagreements"]) == 0
    printed = capsys.readouterr().out
    assert "items" in printed and "kappa=" in printed and "judge:embedded" in printed
    rep = json.loads(out.read_text())
    assert rep["split"] == "tune" and rep["difference"]["cases"] == len(load_set("difference", "tune"))
    assert md.read_text().startswith("# Judge agreement with human labels")


def test_cli_refuses_to_write_the_report_from_the_tune_half(capsys):
    assert main(["agreement", "--split", "tune", "--update-report"]) == 2
    assert "--split test" in capsys.readouterr().err
