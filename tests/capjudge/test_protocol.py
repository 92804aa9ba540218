"""The lead's protocol pieces: validate_judgement, CallableJudge, resolve_judge."""
import pytest

from capjudge import CallableJudge, resolve_judge
from capjudge.embedded import EmbeddedJudge
from capjudge.protocol import (
    DifferenceCase,
    EquivalenceCase,
    InvalidJudgement,
    Item,
    Judge,
    validate_judgement,
)
from capjudge.registry import parse_spec

ITEMS = [Item("d1", "a cat was added", "object"), Item("d2", "the sky is darker", "image_property", ambiguous=True)]


def claim(label, item=None, text="t"):
    return {"text": text, "label": label, "item": item}


def test_valid_judgement_round_trips():
    got = validate_judgement({"claims": [claim("correct", "d1"), claim("ambiguous", "d2"), claim("detail"), claim("hallucination")]}, ITEMS)
    assert [(c.label, c.item) for c in got] == [("correct", "d1"), ("ambiguous", "d2"), ("detail", None), ("hallucination", None)]


@pytest.mark.parametrize("obj, reason", [
    ([], "object with a 'claims' list"),
    ({"claims": "x"}, "must be a list"),
    ({"claims": ["x"]}, "claim 0: must be an object"),
    ({"claims": [{"text": 1, "label": "detail", "item": None}]}, "'text' must be a string"),
    ({"claims": [claim("great")]}, "label 'great' is not one of"),
    ({"claims": [claim("correct", "d9")]}, "needs the id of an existing item"),
    ({"claims": [claim("wrong")]}, "needs the id of an existing item"),
    ({"claims": [claim("correct", "d2")]}, "must name a key item"),
    ({"claims": [claim("ambiguous", "d1")]}, "must name an ambiguous item"),
    ({"claims": [claim("detail"), claim("hallucination", "d1")]}, "claim 1: label 'hallucination' must have item null"),
])
def test_invalid_judgements_are_rejected_with_a_reason(obj, reason):
    with pytest.raises(InvalidJudgement, match=reason):
        validate_judgement(obj, ITEMS)


def test_callable_judge_validates_and_records_errors():
    answers = iter([
        {"claims": [claim("correct", "d1")]},
        {"claims": [claim("correct", "d2")]},  # invalid: d2 is ambiguous
    ])

    def difference(items, prediction):
        if prediction == "boom":
            raise RuntimeError("backend down")
        return next(answers)

    judge = CallableJudge(difference=difference)
    cases = [DifferenceCase.make(ITEMS, "a cat", "p1"), DifferenceCase.make(ITEMS, "dark", "p2"), DifferenceCase.make(ITEMS, "boom", "p3")]
    ok, invalid, failed = judge.judge_differences(cases)
    assert ok.ok and ok.claims[0].item == "d1"
    assert not invalid.ok and "p2" in invalid.error and invalid.claims == ()
    assert not failed.ok and "backend down" in failed.error
    assert "judge:callable" in judge.signature


def test_callable_equivalence_must_return_bool():
    judge = CallableJudge(equivalent=lambda p, r, kind: "yes" if p == r else False)
    same, other = judge.judge_equivalences([EquivalenceCase("dog", "dog", "text_error"), EquivalenceCase("cat", "dog", "text_error")])
    assert not same.ok and "str" in same.error
    assert other.ok and other.equivalent is False
    with pytest.raises(TypeError):
        judge.judge_differences([])


def test_resolve_judge_by_spec_object_and_callable():
    assert isinstance(resolve_judge(), EmbeddedJudge)
    assert isinstance(resolve_judge("embedded"), EmbeddedJudge)
    emb = EmbeddedJudge()
    assert resolve_judge(emb) is emb
    two = resolve_judge(lambda items, prediction: {"claims": []})
    assert isinstance(two, CallableJudge) and two.difference is not None and two.equivalent is None
    three = resolve_judge(lambda p, r, kind: True)
    assert isinstance(three, CallableJudge) and three.equivalent is not None
    assert isinstance(emb, Judge)


def test_resolve_judge_rejects_unknown_backends_and_objects():
    with pytest.raises(ValueError, match="unknown judge backend"):
        resolve_judge("claude:opus")
    with pytest.raises(TypeError):
        resolve_judge(42)


def test_parse_spec_lowercases_backend_and_keeps_options():
    assert parse_spec("Embedded?threshold=0.3") == ("embedded", "", {"threshold": "0.3"})
