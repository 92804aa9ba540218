"""Predictions files: every fault is reported with its line; short lists are notes, not errors."""
import json

import pytest

from benchcore.errors import InputError
from symbalbench.predictions import PredictionsError, parse_predictions, read_predictions, write_predictions

IDS = {"s1", "s2", "s3"}


def line(sid, guesses):
    return json.dumps({"scenario_id": sid, "guesses": guesses})


G = {"text_error": "dog", "visual_feature": "car"}


def problems(lines, **kw):
    with pytest.raises(PredictionsError) as e:
        parse_predictions(lines, source="p.jsonl", scenario_ids=IDS, **kw)
    return e.value.problems


def test_valid_file_roundtrips(tmp_path):
    path = tmp_path / "p.jsonl"
    write_predictions(path, {"s1": [G, {"text_error": "cat", "visual_feature": "bus"}]})
    p = read_predictions(path, scenario_ids=IDS, k=2)
    assert p.guesses == {"s1": [G, {"text_error": "cat", "visual_feature": "bus"}]}
    assert p.lines == {"s1": 1} and p.notes == []


def test_unknown_id_names_the_line():
    assert problems([line("s1", [G]), line("zzz", [G])]) == ["p.jsonl:2: unknown scenario_id 'zzz' (not in the benchmark)"]


def test_duplicate_names_both_lines():
    (msg,) = problems([line("s1", [G]), "", line("s1", [G])])
    assert msg.startswith("p.jsonl:3: duplicate scenario_id 's1'") and "line 1" in msg


def test_empty_guess_list_is_an_error():
    (msg,) = problems([line("s2", [])])
    assert msg.startswith("p.jsonl:1:") and "empty" in msg


def test_guess_missing_a_field():
    (msg,) = problems([line("s1", [G, {"text_error": "cat"}])])
    assert msg == "p.jsonl:1: guess 2 is missing field 'visual_feature'"


@pytest.mark.parametrize("bad, fragment", [
    ("not json", "not valid JSON"),
    ("[1, 2]", "expected a JSON object with scenario_id and guesses"),
    (json.dumps({"guesses": [G]}), "scenario_id"),
    (json.dumps({"scenario_id": "s1"}), "missing 'guesses'"),
    (json.dumps({"scenario_id": "s1", "guesses": "dog"}), "must be a list"),
    (json.dumps({"scenario_id": "s1", "guesses": ["dog"]}), "guess 1 must be an object"),
    (json.dumps({"scenario_id": "s1", "guesses": [{"text_error": "", "visual_feature": "car"}]}), "non-empty string"),
    (json.dumps({"scenario_id": "s1", "guesses": [{"text_error": 3, "visual_feature": "car"}]}), "non-empty string"),
])
def test_malformed_lines(bad, fragment):
    (msg,) = problems([bad])
    assert msg.startswith("p.jsonl:1:") and fragment in msg


def test_all_problems_are_collected_and_it_is_an_input_error():
    with pytest.raises(InputError) as e:
        parse_predictions([line("x", [G]), line("s1", []), "{"], source="p.jsonl", scenario_ids=IDS)
    assert len(e.value.problems) == 3 and "3 problem(s)" in str(e.value)


def test_list_shorter_than_k_is_a_note_unless_strict():
    p = parse_predictions([line("s1", [G])], source="p.jsonl", scenario_ids=IDS, k=5)
    assert p.notes == ["p.jsonl:1: scenario s1 has 1 guess(es), fewer than K=5 (legal: fewer chances)"]
    (msg,) = problems([line("s1", [G])], k=5, strict=True)
    assert msg.startswith("p.jsonl:1:") and "strict" in msg


def test_list_longer_than_k_is_noted():
    p = parse_predictions([line("s1", [G] * 7)], scenario_ids=IDS, k=5)
    assert "only the first 5 are scored" in p.notes[0]


def test_extra_keys_ignored_and_whitespace_trimmed():
    p = parse_predictions([json.dumps({"scenario_id": "s1", "method": "x",
                                       "guesses": [{"text_error": " dog ", "visual_feature": "car", "score": 0.3}]})])
    assert p.guesses["s1"] == [G]


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.jsonl"):
        read_predictions(tmp_path / "nope.jsonl")


def test_invalid_utf8_is_a_problem_naming_the_line_not_a_crash(tmp_path):
    from symbalbench.predictions import PredictionsError, read_predictions

    f = tmp_path / "preds.jsonl"
    f.write_bytes(b'{"scenario_id": "s1", "guesses": [{"text_error": "dog", "visual_feature": "car"}]}\n'
                  b'{"scenario_id": "s2", "guesses": [{"text_error": "\xff", "visual_feature": "car"}]}\n')
    with pytest.raises(PredictionsError, match=r"preds.jsonl:2: invalid UTF-8"):
        read_predictions(f, scenario_ids={"s1", "s2"})
