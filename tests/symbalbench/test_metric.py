"""The symbal_accuracy evaluate module: loads offline both ways, matches hand-computed Accuracy@K."""
import doctest
import os

import pytest

evaluate = pytest.importorskip("evaluate")


def same(predicted, reference, kind):
    return predicted.strip().lower() == reference.strip().lower()


def g(t, v):
    return {"text_error": t, "visual_feature": v}


PREDICTIONS = [
    [g("dog", "car")],                                   # hit@1
    [g("cat", "car"), g("bus", "cat"), g("cat", "Bus")],  # hit@3
    [g("edema", "chest tube")],                          # miss
    [],                                                  # no prediction: miss, listed
]
REFERENCES = [
    {"scenario_id": "n1", "text_error": "dog", "visual_feature": "car", "domain": "natural", "strength": "high",
     "sampling": "random", "size": "small"},
    {"scenario_id": "n2", "text_error": "cat", "visual_feature": "bus", "domain": "natural", "strength": "low",
     "sampling": "popular", "size": "large"},
    {"scenario_id": "m1", "text_error": "edema", "visual_feature": "pacemaker", "domain": "medical",
     "strength": "high", "sampling": None, "size": None},
    {"scenario_id": "m2", "text_error": "cardiomegaly", "visual_feature": "chest tube", "domain": "medical",
     "strength": "low"},
]


@pytest.fixture
def metric(in_repo_root):
    return evaluate.load("metrics/symbal_accuracy")


def test_loads_from_repo_root_and_matches_hand_computed(metric):
    r = metric.compute(predictions=PREDICTIONS, references=REFERENCES, k=[1, 2, 3, 5], judge=same)
    assert (r["accuracy@1"], r["accuracy@2"], r["accuracy@3"], r["accuracy@5"]) == (0.25, 0.25, 0.5, 0.5)
    assert r["domain=natural/accuracy@5"] == 1.0 and r["domain=medical/accuracy@5"] == 0.0
    assert r["strength=high/accuracy@1"] == 0.5
    assert r["sampling=popular/accuracy@3"] == 1.0 and r["size=small/n"] == 1
    assert r["n_scenarios"] == 4 and r["n_missing"] == 1 and r["missing_scenarios"] == ["m2"]
    assert r["n_judge_errors"] == 0 and "callable" in r["judge_signature"]
    assert r["accuracy@5_ci_low"] <= 0.5 <= r["accuracy@5_ci_high"]


def test_loads_by_name_from_inside_metrics(monkeypatch, repo_root):
    monkeypatch.chdir(os.path.join(repo_root, "metrics"))
    m = evaluate.load("symbal_accuracy")
    r = m.compute(predictions=PREDICTIONS, references=REFERENCES, k=5, judge=same)
    assert r["accuracy@5"] == 0.5 and "accuracy@1" not in r


def test_default_k_is_1_and_5(metric):
    r = metric.compute(predictions=PREDICTIONS, references=REFERENCES, judge=same)
    assert r["accuracy@1"] == 0.25 and r["accuracy@5"] == 0.5


def test_add_and_add_batch_paths(metric):
    for p, ref in zip(PREDICTIONS[:2], REFERENCES[:2]):
        metric.add(prediction=p, reference={"text_error": ref["text_error"], "visual_feature": ref["visual_feature"]})
    metric.add_batch(predictions=PREDICTIONS[2:], references=REFERENCES[2:])
    r = metric.compute(k=[1], judge=same)
    assert r["accuracy@1"] == 0.25 and r["n_scenarios"] == 4


def test_judge_error_counts_and_never_hits(metric):
    def broken(predicted, reference, kind):
        raise RuntimeError("backend down")

    r = metric.compute(predictions=PREDICTIONS[:1], references=REFERENCES[:1], k=1, judge=broken)
    assert r["accuracy@1"] == 0.0 and r["n_judge_errors"] == 2


def test_duplicate_scenario_ids_are_refused(metric):
    with pytest.raises(ValueError, match="appears twice"):
        metric.compute(predictions=PREDICTIONS[:2], references=[REFERENCES[0], REFERENCES[0]], judge=same)


def test_guess_missing_a_field_is_refused(metric):
    with pytest.raises(ValueError, match=r"predictions\[0\]: guess 1 is missing field 'visual_feature'"):
        metric.compute(predictions=[[{"text_error": "dog"}]], references=REFERENCES[:1], judge=same)


def test_kwargs_description_example_runs(metric):
    """_KWARGS_DESCRIPTION is not a docstring pytest collects, so run its example here."""
    test = doctest.DocTestParser().get_doctest(metric.inputs_description, {}, "symbal_accuracy", None, 0)
    assert test.examples, "the metric's usage string lost its example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_embedded_judge_is_the_default(metric):
    r = metric.compute(predictions=[[g("dogs", "Car")]], references=REFERENCES[:1], k=1)
    assert r["accuracy@1"] == 1.0 and "embedded" in r["judge_signature"]


def test_metric_card_front_matter(repo_root):
    import yaml

    text = open(os.path.join(repo_root, "metrics", "symbal_accuracy", "README.md"), encoding="utf-8").read()
    assert text.startswith("---\n")
    meta = yaml.safe_load(text.split("---\n")[1])
    assert meta["sdk"] == "gradio" and meta["app_file"] == "app.py" and "evaluate" in meta["tags"]
    assert "## Values for the shipped baselines" in text and "reference_diff" in text


def test_spec_string_judges_use_the_shared_cache_by_default(metric, tmp_path, monkeypatch):
    monkeypatch.setenv("CAPJUDGE_CACHE_DIR", str(tmp_path))
    r = metric.compute(predictions=PREDICTIONS[:1], references=REFERENCES[:1], k=1, judge="embedded")
    assert r["accuracy@1"] == 1.0 and (tmp_path / "judge.sqlite").exists()
    metric.compute(predictions=PREDICTIONS[:1], references=REFERENCES[:1], k=1, judge=same)
    explicit = tmp_path / "mine.sqlite"
    metric.compute(predictions=PREDICTIONS[:1], references=REFERENCES[:1], k=1, judge="embedded", cache=str(explicit))
    assert explicit.exists()
