"""Every bad predictions file of issue item 5 gets a clear message naming the line and pair id."""
import json

import pytest

from benchcore.errors import InputError
from diffcap_bench.predictions import PredictionsError, match_predictions, read_predictions, write_predictions_jsonl


def jsonl(tmp_path, lines, name="preds.jsonl"):
    p = tmp_path / name
    p.write_bytes(b"".join((ln if isinstance(ln, bytes) else ln.encode()) + b"\n" for ln in lines))
    return p


def rec(pid, text):
    return json.dumps({"pair_id": pid, "prediction": text})


def test_reads_jsonl_skips_blank_lines_and_keeps_line_numbers(tmp_path):
    ps = read_predictions(jsonl(tmp_path, [rec("p1", "a"), "", rec("p2", "b")]))
    assert ps.predictions == {"p1": "a", "p2": "b"} and ps.lines == {"p1": 1, "p2": 3}


def test_reads_csv_with_quoted_commas_and_newlines(tmp_path):
    p = tmp_path / "preds.csv"
    p.write_text('pair_id,prediction\np1,"a cat, a dog"\np2,"line one\nline two"\n', encoding="utf-8")
    assert read_predictions(p).predictions == {"p1": "a cat, a dog", "p2": "line one\nline two"}


def test_roundtrip_with_writer(tmp_path):
    write_predictions_jsonl(tmp_path / "x.jsonl", {"p1": "ünïcode ✓", "p2": ""})
    assert read_predictions(tmp_path / "x.jsonl").predictions == {"p1": "ünïcode ✓", "p2": ""}


def test_duplicate_pair_id_names_both_lines(tmp_path):
    with pytest.raises(PredictionsError, match=r"line 2.*'p1' repeats line 1"):
        read_predictions(jsonl(tmp_path, [rec("p1", "a"), rec("p1", "b")]))


def test_non_string_prediction_names_line_and_id(tmp_path):
    with pytest.raises(PredictionsError, match=r"line 1 \(pair_id 'p1'\): 'prediction' must be a string, got list"):
        read_predictions(jsonl(tmp_path, [json.dumps({"pair_id": "p1", "prediction": ["a"]})]))


def test_non_string_pair_id(tmp_path):
    with pytest.raises(PredictionsError, match=r"line 1: 'pair_id' must be a non-empty string, got 7"):
        read_predictions(jsonl(tmp_path, [json.dumps({"pair_id": 7, "prediction": "a"})]))


def test_one_megabyte_prediction_is_refused_with_its_size(tmp_path):
    with pytest.raises(PredictionsError, match=r"line 2 \(pair_id 'big'\): prediction has 1,000,000 characters"):
        read_predictions(jsonl(tmp_path, [rec("p1", "ok"), rec("big", "x" * 1_000_000)]))
    assert read_predictions(jsonl(tmp_path, [rec("big", "x" * 1_000_000)]), max_chars=2_000_000).predictions["big"]


def test_invalid_utf8_names_the_line(tmp_path):
    bad = b'{"pair_id": "p2", "prediction": "caf\xe9"}'
    with pytest.raises(PredictionsError, match=r"line 2: invalid UTF-8"):
        read_predictions(jsonl(tmp_path, [rec("p1", "a"), bad]))


def test_invalid_utf8_in_csv(tmp_path):
    p = tmp_path / "p.csv"
    p.write_bytes(b"pair_id,prediction\np1,ok\np2,caf\xe9\n")
    with pytest.raises(PredictionsError, match=r"line 3: invalid UTF-8"):
        read_predictions(p)


def test_wrong_columns_jsonl(tmp_path):
    with pytest.raises(PredictionsError, match=r"line 1: missing field\(s\) prediction \(found: pair_id, text\)"):
        read_predictions(jsonl(tmp_path, [json.dumps({"pair_id": "p1", "text": "a"})]))


def test_wrong_columns_csv(tmp_path):
    p = tmp_path / "p.csv"
    p.write_text("id,caption\np1,a\n", encoding="utf-8")
    with pytest.raises(PredictionsError, match=r"CSV header lacks column\(s\) pair_id, prediction \(found: id, caption\)"):
        read_predictions(p)


def test_invalid_json_and_non_object_lines(tmp_path):
    with pytest.raises(PredictionsError) as e:
        read_predictions(jsonl(tmp_path, ["{not json", "[1, 2]", rec("p1", "a")]))
    assert "line 1: not valid JSON" in str(e.value) and "line 2: expected a JSON object" in str(e.value)
    assert len(e.value.problems) == 2


def test_all_problems_reported_at_once_and_error_is_an_input_error(tmp_path):
    with pytest.raises(InputError) as e:
        read_predictions(jsonl(tmp_path, [rec("p1", 1), rec("p2", None), rec("p1", "a"), rec("p1", "b")]))
    assert len(e.value.problems) == 3


def test_empty_file_and_missing_file(tmp_path):
    with pytest.raises(PredictionsError, match="no predictions found"):
        read_predictions(jsonl(tmp_path, [""]))
    with pytest.raises(FileNotFoundError):
        read_predictions(tmp_path / "nope.jsonl")


def test_unknown_pair_ids_are_refused_with_line(tmp_path):
    ps = read_predictions(jsonl(tmp_path, [rec("p1", "a"), rec("typo", "b")]))
    with pytest.raises(PredictionsError, match=r"line 2 \(pair_id 'typo'\): not a pair of the dataset"):
        match_predictions(ps, ["p1", "p2"])


def test_missing_and_empty_are_scored_as_empty_and_listed(tmp_path):
    ps = read_predictions(jsonl(tmp_path, [rec("p1", "a"), rec("p3", "   ")]))
    m = match_predictions(ps, ["p1", "p2", "p3"])
    assert m.predictions == {"p1": "a", "p2": "", "p3": "   "}
    assert (m.missing, m.empty) == (["p2"], ["p3"])


def test_strict_refuses_missing_and_empty(tmp_path):
    ps = read_predictions(jsonl(tmp_path, [rec("p1", "a"), rec("p3", "")]))
    with pytest.raises(PredictionsError) as e:
        match_predictions(ps, ["p1", "p2", "p3"], strict=True)
    assert "pair_id 'p2': no prediction" in str(e.value) and "line 2 (pair_id 'p3'): empty prediction" in str(e.value)


def test_format_sniffed_without_known_suffix(tmp_path):
    p = tmp_path / "preds.txt"
    p.write_text(rec("p1", "a") + "\n", encoding="utf-8")
    assert read_predictions(p).predictions == {"p1": "a"}


def test_unknown_ids_are_reported_with_the_other_faults_in_one_pass(tmp_path):
    from diffcap_bench.predictions import PredictionsError, read_predictions

    f = tmp_path / "p.jsonl"
    f.write_text('{"pair_id": "a", "prediction": "x"}\n{"pair_id": "zz", "prediction": "y"}\n'
                 '{"pair_id": "a", "prediction": 3}\n', encoding="utf-8")
    with pytest.raises(PredictionsError) as e:
        read_predictions(f, pair_ids=["a", "b"])
    message = str(e.value)
    assert "line 2 (pair_id 'zz'): not a pair of the dataset" in message
    assert "line 3 (pair_id 'a'): 'prediction' must be a string" in message
