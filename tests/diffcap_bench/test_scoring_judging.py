"""The judging loop: chunks, progress, empty predictions, judge failures never scored as success."""
import pytest

from capjudge.protocol import BudgetExceeded, DifferenceResult, Item, JudgeError
from diffcap_bench.judging import Pair, judge_pairs, judgement_record, pairs_from_rows, score_pairs
from diffcap_bench.models import exact_match_judge

PAIRS = [Pair(f"p{i}", "web", (Item(f"p{i}-a", "a cup was added", "object"),)) for i in range(10)]
PREDS = {p.pair_id: "A cup was added." for p in PAIRS}


class ScriptedJudge:
    """Answers like the literal judge; raises the given exception on the given call number."""

    signature = "judge:scripted"

    def __init__(self, fail_call=None, exc=None):
        self.batches = []
        self.fail_call, self.exc = fail_call, exc

    def judge_differences(self, cases):
        self.batches.append([c.case_id for c in cases])
        if len(self.batches) == self.fail_call:
            raise self.exc
        from capjudge.protocol import validate_judgement

        return [DifferenceResult(validate_judgement(exact_match_judge([i.to_dict() for i in c.items], c.prediction), c.items))
                for c in cases]

    def judge_equivalences(self, cases):
        return []


def test_judge_is_asked_in_chunks_in_order():
    j = ScriptedJudge()
    out = list(judge_pairs(PAIRS, PREDS, j, chunk_size=4, progress=False))
    assert [len(b) for b in j.batches] == [4, 4, 2]
    assert [x.pair.pair_id for x in out] == [p.pair_id for p in PAIRS] and all(x.result.ok for x in out)


def test_empty_predictions_are_not_sent_and_have_no_claims():
    j = ScriptedJudge()
    preds = {**PREDS, "p1": "   ", "p2": ""}
    del preds["p3"]  # missing -> empty
    out = list(judge_pairs(PAIRS[:4], preds, j, chunk_size=10, progress=False))
    assert j.batches == [["p0"]]
    assert [x.result.claims for x in out[1:]] == [(), (), ()] and all(x.result.ok for x in out)


def test_a_failing_batch_becomes_errors_for_that_batch_only():
    j = ScriptedJudge(fail_call=2, exc=JudgeError("HTTP 503 after 5 retries"))
    counts, errors = score_pairs(PAIRS, PREDS, j, chunk_size=4, progress=False)
    assert sorted(errors) == ["p4", "p5", "p6", "p7"] and "503" in errors["p4"]
    assert [c.pair_id for c in counts] == ["p0", "p1", "p2", "p3", "p8", "p9"]


def test_budget_exceeded_stops_asking_and_marks_the_rest():
    j = ScriptedJudge(fail_call=2, exc=BudgetExceeded("token budget spent"))
    counts, errors = score_pairs(PAIRS, PREDS, j, chunk_size=4, progress=False)
    assert len(j.batches) == 2 and len(counts) == 4 and len(errors) == 6
    assert all("budget" in e for e in errors.values())


def test_callable_judge_exceptions_and_invalid_answers_are_errors():
    def judge(items, prediction):
        if "boom" in prediction:
            raise ValueError("boom")
        return {"claims": [{"text": prediction, "label": "correct", "item": "nope"}]}

    counts, errors = score_pairs(PAIRS[:2], {"p0": "boom", "p1": "x"}, judge, progress=False)
    assert counts == [] and set(errors) == {"p0", "p1"}
    assert "ValueError" in errors["p0"] and "invalid judgement" in errors["p1"]


def test_sink_receives_every_pair_including_errors():
    records = []
    j = ScriptedJudge(fail_call=1, exc=JudgeError("down"))
    score_pairs(PAIRS[:3], PREDS, j, chunk_size=2, progress=False, sink=records.append)
    assert [r["pair_id"] for r in records] == ["p0", "p1", "p2"]
    assert records[0]["error"] and "metrics" not in records[0]
    assert records[2]["metrics"]["recall"] == 1.0 and records[2]["items"][0]["label"] == "correct"


def test_judgement_record_labels_items():
    pair = Pair("p", "web", (Item("a", "x", "object"), Item("b", "y", "object"), Item("z", "w", "object", True)))
    from capjudge.protocol import Claim
    from diffcap_bench.judging import JudgedPair
    from diffcap_bench.scoring import pair_counts

    res = DifferenceResult((Claim("x!", "wrong", "a"),))
    rec = judgement_record(JudgedPair(pair, "x!", res), pair_counts(pair.items, res.claims))
    assert [i["label"] for i in rec["items"]] == ["wrong", "missed", "ambiguous"]
    assert rec["counts"]["W"] == 1 and rec["metrics"]["hallucination_rate"] == 1.0


def test_pairs_from_rows_converts_classlabel_ints():
    rows = [{"pair_id": "p1", "source": 3, "differences": [{"id": "d", "text": "t", "category": 9, "ambiguous": False}]}]
    (p,) = pairs_from_rows(rows)
    assert p.source == "synthetic_2d" and p.items[0].category == "expression"


def test_wrong_number_of_results_is_a_judge_bug():
    class Short(ScriptedJudge):
        def judge_differences(self, cases):
            return []

    with pytest.raises(RuntimeError, match="returned 0 results for 1"):
        list(judge_pairs(PAIRS[:1], PREDS, Short(), progress=False))
