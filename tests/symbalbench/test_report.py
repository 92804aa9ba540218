"""Report files: scores.json (NaN-free, tagged with the benchmark), verdicts.jsonl, report.md, PNG."""
import json

from symbalbench.report import render_markdown, scores_document, verdict_rows, write_report
from symbalbench.scoring import Truth, pair_key, score_outcomes, score_predictions

TRUTHS = [
    Truth("n1", "dog", "car", {"domain": "natural", "strength": "high", "sampling": "random", "size": "small"}),
    Truth("m1", "edema", "pacemaker", {"domain": "medical", "strength": "low", "sampling": None, "size": None}),
    Truth("m2", "cardiomegaly", "chest tube", {"domain": "medical", "strength": "high", "sampling": None, "size": None}),
]
PREDS = {"n1": [{"text_error": "cat", "visual_feature": "car"}, {"text_error": "dog", "visual_feature": "car"}],
         "m1": [{"text_error": "edema", "visual_feature": "pacemaker"}]}
VERDICTS = {pair_key("cat", "dog", "text_error"): False, pair_key("car", "car", "visual_feature"): True,
            pair_key("dog", "dog", "text_error"): True, pair_key("edema", "edema", "text_error"): None,
            pair_key("pacemaker", "pacemaker", "visual_feature"): True}
ERRORS = {pair_key("edema", "edema", "text_error"): "server said 500"}


def make():
    outcomes = score_predictions(TRUTHS, PREDS, VERDICTS, [1, 5])
    return outcomes, score_outcomes(outcomes, [1, 5], n_resamples=100)


def test_verdict_rows_show_each_guess_and_judge_errors():
    outcomes, _ = make()
    rows = verdict_rows(TRUTHS, PREDS, outcomes, VERDICTS, 5, ERRORS)
    assert [r["scenario_id"] for r in rows] == ["n1", "m1", "m2"]
    assert rows[0]["first_hit"] == 2 and rows[0]["guesses"][0]["text_error_equivalent"] is False
    assert rows[1]["guesses"][0]["text_error_equivalent"] is None
    assert rows[1]["guesses"][0]["text_error_judge_error"] == "server said 500"
    assert rows[2]["missing"] is True and rows[2]["guesses"] == []


def test_markdown_has_overall_breakdowns_and_missing():
    _, scores = make()
    md = render_markdown(scores, {"method": "mine", "judge_signature": "judge:x"})
    assert "# SymbalBench evaluation: mine" in md
    assert "| all | 3 | 0.000 |" in md  # no hit at K=1
    for title in ("## By domain", "## By strength", "## By sampling", "## By size", "## By domain and strength"):
        assert title in md
    assert "`m2`" in md and "judge errors**: 1" in md


def test_write_report_files_are_complete_and_deterministic(tmp_path):
    outcomes, scores = make()
    rows = verdict_rows(TRUTHS, PREDS, outcomes, VERDICTS, 5, ERRORS)
    outs = []
    for name in ("a", "b"):
        d = tmp_path / name
        d.mkdir()
        paths = write_report(d, scores, rows, {"method": "mine"}, notes=["p.jsonl:1: short"])
        outs.append({k: p.read_bytes() for k, p in paths.items()})
    assert outs[0] == outs[1]
    doc = json.loads(outs[0]["scores.json"])
    assert doc["benchmark"] == "symbalbench" and doc["method"] == "mine"
    assert doc["overall"]["accuracy@5"] == 1 / 3 and doc["missing_scenarios"] == ["m2"]
    assert doc["notes"] == ["p.jsonl:1: short"]
    assert len(outs[0]["verdicts.jsonl"].splitlines()) == 3
    assert outs[0]["accuracy.png"].startswith(b"\x89PNG")


def test_nan_becomes_null():
    doc = scores_document(score_outcomes([], [1]), {})
    assert doc["overall"]["accuracy@1"] is None
    json.dumps(doc, allow_nan=False)
