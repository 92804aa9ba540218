"""metrics/diffcap_f1: evaluate.load from the repo root, direct use, exact SPEC numbers, the card's example."""
import doctest
import importlib.util
import os

import evaluate
import pytest

from diffcap_bench.schema import CATEGORIES

METRIC_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "metrics", "diffcap_f1")


def item(i, text, cat="object", amb=False):
    return {"id": i, "text": text, "category": cat, "ambiguous": amb}


REFS = [
    # pair 0: K=2 (object, attribute) + 1 ambiguous
    [item("a", "cup added"), item("b", "cup is red", "attribute"), item("z", "shadow", "image_property", True)],
    # pair 1: K=3, all object... one expression
    [item("c", "dog removed"), item("d", "man smiles", "expression"), item("e", "tree added")],
    # pair 2: K=0 (only an ambiguous item)
    [item("y", "slight blur", "image_property", True)],
    # pair 3: the judge fails -> counted, left out
    [item("f", "sign changed", "text_symbol")],
]
PREDS = ["P0", "P1", "P2", "P3"]
JUDGEMENTS = {
    # C=1 (a), W=1 (b), M=0 ; claims: correct a, wrong b, ambiguous z, detail -> P=1/2, R=1/2, F1=1/2, H=1/4
    "P0": [("cup appears", "correct", "a"), ("cup is blue", "wrong", "b"), ("shadow", "ambiguous", "z"), ("leaf", "detail", None)],
    # C=2 (c twice, d), M=1 (e); claims: correct c x2, correct d, hallucination x1 -> P=3/4, R=2/3, F1=12/17, H=1/4
    "P1": [("dog gone", "correct", "c"), ("no dog", "correct", "c"), ("smiles", "correct", "d"), ("a cat", "hallucination", None)],
    # K=0; claims: hallucination -> P=0, H=1 ; recall/F1 undefined
    "P2": [("a boat", "hallucination", None)],
}


def table_judge(items, prediction):
    if prediction == "P3":
        return {"claims": [{"text": "x", "label": "correct", "item": "no-such-item"}]}  # invalid -> judge error
    return {"claims": [{"text": t, "label": lab, "item": it} for t, lab, it in JUDGEMENTS[prediction]]}


def check_hand_computed(r):
    assert r["n_pairs"] == 4 and r["n_pairs_scored"] == 3 and r["n_judge_errors"] == 1
    assert r["n_pairs_no_key_items"] == 1
    assert r["recall"] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert r["f1_star"] == pytest.approx((1 / 2 + 12 / 17) / 2)
    assert r["precision_star"] == pytest.approx((1 / 2 + 3 / 4 + 0) / 3)
    assert r["hallucination_rate"] == pytest.approx((1 / 4 + 1 / 4 + 1) / 3)
    assert r["hallucinated_pair_rate"] == pytest.approx(1.0)
    # micro: C=3, K=5 ; c_correct=4, c_wrong=1, c_hall=2 ; n_claims=9
    assert r["micro_recall"] == pytest.approx(3 / 5)
    assert r["micro_precision_star"] == pytest.approx(4 / 7)
    assert r["micro_f1_star"] == pytest.approx(2 * (4 / 7) * (3 / 5) / (4 / 7 + 3 / 5))
    assert r["micro_hallucination_rate"] == pytest.approx(3 / 9)
    # per category: object a,c correct, e missed -> 2/3 ; attribute b wrong -> 0 ; expression d -> 1
    assert r["recall_object"] == pytest.approx(2 / 3)
    assert r["recall_attribute"] == 0.0 and r["recall_expression"] == 1.0
    assert r["recall_text_symbol"] is None  # only item is in the errored pair
    assert all(f"recall_{c}" in r for c in CATEGORIES)
    assert r["f1_star_ci_low"] <= r["f1_star"] <= r["f1_star_ci_high"]
    assert r["judge_signature"].startswith("judge:callable")


def test_evaluate_load_from_repo_root_gives_spec_numbers(in_repo_root):
    metric = evaluate.load("metrics/diffcap_f1")
    check_hand_computed(metric.compute(predictions=PREDS, references=REFS, judge=table_judge))


def _module():
    spec = importlib.util.spec_from_file_location("diffcap_f1_direct", os.path.join(METRIC_DIR, "diffcap_f1.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_class_instantiated_directly_and_add_batch():
    metric = _module().DiffcapF1()
    metric.add_batch(predictions=PREDS[:2], references=REFS[:2])
    metric.add_batch(predictions=PREDS[2:], references=REFS[2:])
    check_hand_computed(metric.compute(judge=table_judge))


def test_kwargs_description_example_runs(in_repo_root):
    mod = _module()
    test = doctest.DocTestParser().get_doctest(mod._KWARGS_DESCRIPTION, {}, "diffcap_f1._KWARGS_DESCRIPTION", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 4 and result.failed == 0


def test_nested_reference_features_are_type_checked():
    metric = _module().DiffcapF1()
    bad = [[{"id": "a", "text": "cup", "category": 0, "ambiguous": False}]]  # category must be a name
    with pytest.raises((TypeError, ValueError)):
        metric.compute(predictions=["x"], references=bad, judge=table_judge)


def test_unknown_category_name_is_refused():
    metric = _module().DiffcapF1()
    with pytest.raises(ValueError, match="unknown categories"):
        metric.compute(predictions=["x"], references=[[item("a", "cup", "furniture")]], judge=table_judge)


def test_default_embedded_judge_and_cache(tmp_path):
    metric = _module().DiffcapF1()
    refs = [[item("a", "a red cup was added on the table")]]
    cache = str(tmp_path / "judge.sqlite")
    r1 = metric.compute(predictions=["A red cup was added on the table."], references=refs, cache=cache)
    r2 = metric.compute(predictions=["A red cup was added on the table."], references=refs, cache=cache)
    assert r1["judge_signature"].startswith("judge:embedded") and r1 == r2
    assert r1["recall"] == 1.0 and r1["n_judge_errors"] == 0
    assert os.path.getsize(cache) > 0


def test_metric_card_has_front_matter_and_documents_formulas():
    text = open(os.path.join(METRIC_DIR, "README.md"), encoding="utf-8").read()
    assert text.startswith("---\n") and "title:" in text and "sdk: gradio" in text
    for needle in ("precision_star", "hallucination_rate", "openai:", "Cohen", "judge="):
        assert needle in text, needle


def test_evaluate_load_by_name_from_inside_metrics(repo_root, monkeypatch):
    monkeypatch.chdir(os.path.join(repo_root, "metrics"))
    metric = evaluate.load("diffcap_f1")
    r = metric.compute(predictions=PREDS[:1], references=REFS[:1], judge=table_judge, n_resamples=10)
    assert r["f1_star"] == 0.5 and r["n_pairs"] == 1
