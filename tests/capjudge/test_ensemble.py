"""The ensemble judge: per-claim and per-pair majority, the tie rule, disagreement rates."""
import pytest

from capjudge.callables import CallableJudge
from capjudge.ensemble import EnsembleJudge
from capjudge.openai import OpenAIJudge
from capjudge.protocol import DifferenceCase, EquivalenceCase, Item
from capjudge.testing.cases import difference_cases, fast_options
from capjudge.testing.server import ScriptedServer, server_error

ITEMS = [Item("d1", "a cat was added", "object"), Item("d2", "the car moved left", "spatial_relation"),
         Item("d3", "the light is warmer", "image_property", ambiguous=True)]
CASE = DifferenceCase.make(ITEMS, "A cat appeared. The car moved right. The light is warmer.", "p1")
PAIR = EquivalenceCase("motorbike", "motorcycle", "visual_feature")


def claim(text, label, item=None):
    return {"text": text, "label": label, "item": item}


def diff_judge(*claims):
    """A callable judge that always answers these claims."""
    return CallableJudge(difference=lambda items, prediction: {"claims": list(claims)})


def eq_judge(value):
    return CallableJudge(equivalent=lambda p, r, k: value)


def failing_judge():
    def boom(*args):
        raise RuntimeError("backend down")
    return CallableJudge(difference=boom, equivalent=boom)


def labels(result):
    return [(c.text, c.label, c.item) for c in result.claims]


def test_per_claim_majority():
    a = diff_judge(claim("A cat appeared", "correct", "d1"), claim("The car moved right", "wrong", "d2"))
    b = diff_judge(claim("a cat appeared.", "correct", "d1"), claim("The car moved right", "hallucination"))
    c = diff_judge(claim("A cat appeared", "detail"), claim("The car moved right", "wrong", "d2"),
                   claim("The light is warmer", "ambiguous", "d3"))
    ensemble = EnsembleJudge([a, b, c])
    result = ensemble.judge_differences([CASE])[0]
    # the ambiguous claim is found by one judge of three: 'absent' wins and it is dropped
    assert labels(result) == [("A cat appeared", "correct", "d1"), ("The car moved right", "wrong", "d2")]
    assert ensemble.stats["difference_units"] == 3 and ensemble.stats["difference_disagreements"] == 3


def test_unanimous_judges_do_not_disagree():
    a = diff_judge(claim("A cat appeared", "correct", "d1"))
    ensemble = EnsembleJudge([a, a, a])
    assert labels(ensemble.judge_differences([CASE])[0]) == [("A cat appeared", "correct", "d1")]
    assert ensemble.disagreement_rates() == {"difference": 0.0, "equivalence": 0.0}


def test_tie_first_goes_to_the_earliest_judge():
    a = diff_judge(claim("A cat appeared", "correct", "d1"))
    b = diff_judge(claim("A cat appeared", "hallucination"))
    assert labels(EnsembleJudge([a, b]).judge_differences([CASE])[0]) == [("A cat appeared", "correct", "d1")]
    assert labels(EnsembleJudge([b, a]).judge_differences([CASE])[0]) == [("A cat appeared", "hallucination", None)]
    assert [r.equivalent for r in EnsembleJudge([eq_judge(True), eq_judge(False)]).judge_equivalences([PAIR])] == [True]


def test_tie_strict_goes_against_the_model_under_test():
    a = diff_judge(claim("A cat appeared", "correct", "d1"), claim("The light is warmer", "detail"))
    b = diff_judge(claim("A cat appeared", "wrong", "d1"))
    result = EnsembleJudge([a, b], tie="strict").judge_differences([CASE])[0]
    # correct vs wrong -> wrong; detail vs absent -> absent (dropped)
    assert labels(result) == [("A cat appeared", "wrong", "d1")]
    assert [r.equivalent for r in EnsembleJudge([eq_judge(True), eq_judge(False)], tie="strict")
            .judge_equivalences([PAIR])] == [False]


def test_equivalence_majority_and_disagreement_rate():
    ensemble = EnsembleJudge([eq_judge(True), eq_judge(True), eq_judge(False)])
    assert [r.equivalent for r in ensemble.judge_equivalences([PAIR, PAIR])] == [True, True]
    assert ensemble.disagreement_rates()["equivalence"] == 1.0
    assert ensemble.stats["equivalence_pairs"] == 2


def test_failed_members_do_not_vote_and_all_failed_is_an_error():
    ok = diff_judge(claim("A cat appeared", "correct", "d1"))
    ensemble = EnsembleJudge([failing_judge(), ok])
    assert labels(ensemble.judge_differences([CASE])[0]) == [("A cat appeared", "correct", "d1")]
    assert ensemble.stats["member_errors"] == 1
    both_down = EnsembleJudge([failing_judge(), failing_judge()])
    result = both_down.judge_differences([CASE])[0]
    assert not result.ok and "every ensemble member failed" in result.error and "backend down" in result.error
    assert not both_down.judge_equivalences([PAIR])[0].ok


def test_signature_lists_members_and_tie_rule():
    ensemble = EnsembleJudge([eq_judge(True), eq_judge(False)], tie="strict")
    assert ensemble.signature.startswith("judge:ensemble|tie:strict|members:[judge:callable|")
    assert ensemble.signature.count("judge:callable") == 2


def test_bad_configuration_is_refused():
    with pytest.raises(ValueError, match="at least two"):
        EnsembleJudge([eq_judge(True)])
    with pytest.raises(ValueError, match="tie="):
        EnsembleJudge([eq_judge(True), eq_judge(False)], tie="coin")


def test_ensemble_of_http_judges_on_replicas():
    with ScriptedServer() as a, ScriptedServer() as b, ScriptedServer() as c:
        c.rule("tree fell", server_error(500))  # the third judge always fails here
        judges = [OpenAIJudge("test-model", base_url=s.base_url, **fast_options(max_retries=0)) for s in (a, b, c)]
        ensemble = EnsembleJudge(judges)
        results = ensemble.judge_differences(difference_cases(3))
    assert all(r.ok for r in results)
    assert [c.label for c in results[0].claims] == ["correct", "wrong", "hallucination"]
    assert ensemble.stats["member_errors"] == 3 and ensemble.disagreement_rates()["difference"] == 0.0
