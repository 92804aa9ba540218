"""``diffcap-bench score`` and ``compare`` end to end on a small dataset folder made here."""
import json

import pytest

from benchcore.cli import run_cli
from capjudge.registry import resolve_judge
from diffcap_bench import cli_score
from diffcap_bench.models import exact_match_judge, predict
from diffcap_bench.predictions import write_predictions_jsonl

ROWS = [
    ("p1", 0, [("a red cup was added on the left", 0, False), ("the sky is darker", 8, False)]),
    ("p2", 3, [("the man is now sitting", 2, False), ("a faint shadow", 8, True)]),
    ("p3", 1, [("the sign reads open", 5, False), ("the car moved to the right", 3, False),
               ("the woman is smiling", 9, False)]),
    ("p4", 4, [("slight blur", 8, True)]),  # no key items
]


@pytest.fixture
def dataset_dir(tmp_path):
    from datasets import Dataset

    from diffcap_bench.schema import features

    d = tmp_path / "ds"
    (d / "data").mkdir(parents=True)
    rows = {"pair_id": [], "image_a": [], "image_b": [], "source": [], "differences": []}
    for pid, src, items in ROWS:
        rows["pair_id"].append(pid)
        rows["image_a"].append(None)
        rows["image_b"].append(None)
        rows["source"].append(src)
        rows["differences"].append([{"id": f"{pid}-{i}", "text": t, "category": c, "ambiguous": a}
                                    for i, (t, c, a) in enumerate(items)])
    Dataset.from_dict(rows, features=features()).to_parquet(str(d / "data" / "test-00000-of-00001.parquet"))
    return str(d)


class CountingJudge:
    """The literal judge, counting how many predictions it was really asked about."""

    def __init__(self, fail_on=()):
        self.calls = 0
        self.fail_on = set(fail_on)

    def __call__(self, items, prediction):
        self.calls += 1
        if prediction in self.fail_on:
            raise RuntimeError("server said 500")
        return exact_match_judge(items, prediction)


@pytest.fixture
def judge(monkeypatch):
    j = CountingJudge()
    monkeypatch.setattr(cli_score, "make_judge", lambda spec, cache: resolve_judge(j, cache=cache or None))
    return j


def cli(*argv):
    return run_cli("diffcap-bench", "test", ["diffcap_bench.cli_score"], list(argv))


def perfect_predictions(tmp_path, drop=(), name="preds.jsonl"):
    from capjudge.protocol import Item

    preds = {}
    for pid, _, items in ROWS:
        if pid in drop:
            continue
        its = [Item(f"{pid}-{i}", t, "object", a) for i, (t, c, a) in enumerate(items)]
        preds[pid] = predict("perfect", its)
    path = tmp_path / name
    write_predictions_jsonl(path, preds)
    return str(path)


def test_score_writes_all_outputs(tmp_path, dataset_dir, judge, capsys):
    out = tmp_path / "out"
    rc = cli("score", perfect_predictions(tmp_path), "--dataset", dataset_dir, "--out", str(out),
             "--cache", str(tmp_path / "c.sqlite"), "--quiet")
    assert rc == 0
    doc = json.loads((out / "scores.json").read_text())
    assert doc["macro"]["f1_star"] == 1.0 and doc["macro"]["hallucination_rate"] == 0.0
    assert doc["n_pairs"] == 4 and doc["n_pairs_no_key_items"] == 1
    assert doc["judge_signature"].startswith("judge:callable")
    assert doc["per_pair"]["pair_id"] == ["p1", "p2", "p3", "p4"]
    assert set(doc["per_source"]) == {"web", "synthetic_2d", "video_frame", "synthetic_3d"}
    lines = [json.loads(x) for x in (out / "judgements.jsonl").read_text().splitlines()]
    assert [r["pair_id"] for r in lines] == ["p1", "p2", "p3", "p4"]
    assert all(c["label"] in ("correct", "wrong", "ambiguous", "detail", "hallucination") for r in lines for c in r["claims"])
    assert lines[0]["items"][0]["label"] == "correct" and lines[1]["items"][1]["label"] == "ambiguous"
    report = (out / "report.md").read_text()
    assert "## Recall per category" in report and "| spatial_relation |" in report and "| synthetic_3d |" in report
    assert (out / "recall_per_category.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    printed = capsys.readouterr().out
    assert "| f1_star | 1.000 |" in printed


def test_rerun_is_resumed_from_cache_and_byte_identical(tmp_path, dataset_dir, judge):
    preds = perfect_predictions(tmp_path)
    cache = str(tmp_path / "c.sqlite")
    assert cli("score", preds, "--dataset", dataset_dir, "--out", str(tmp_path / "o1"), "--cache", cache, "--quiet") == 0
    first_calls = judge.calls
    assert first_calls == 3  # p4 has no key item: its perfect prediction is empty and not sent to the judge
    assert cli("score", preds, "--dataset", dataset_dir, "--out", str(tmp_path / "o2"), "--cache", cache, "--quiet") == 0
    assert judge.calls == first_calls  # every judgement came from the cache
    for name in ("scores.json", "judgements.jsonl", "recall_per_category.png"):
        assert (tmp_path / "o1" / name).read_bytes() == (tmp_path / "o2" / name).read_bytes(), name


def test_missing_pairs_are_scored_empty_and_listed(tmp_path, dataset_dir, judge, capsys):
    out = tmp_path / "out"
    assert cli("score", perfect_predictions(tmp_path, drop={"p3"}), "--dataset", dataset_dir, "--out", str(out),
               "--no-cache", "--quiet") == 0
    doc = json.loads((out / "scores.json").read_text())
    assert doc["missing_predictions"] == ["p3"]
    i = doc["per_pair"]["pair_id"].index("p3")
    assert doc["per_pair"]["recall"][i] == 0.0
    assert "p3" in capsys.readouterr().err and "missing predictions" in (out / "report.md").read_text()


def test_strict_refuses_missing_and_writes_nothing(tmp_path, dataset_dir, judge, capsys):
    out = tmp_path / "out"
    rc = cli("score", perfect_predictions(tmp_path, drop={"p3"}), "--dataset", dataset_dir, "--out", str(out),
             "--strict", "--no-cache")
    assert rc == 2 and not out.exists() and judge.calls == 0
    assert "pair_id 'p3': no prediction" in capsys.readouterr().err


def test_unknown_pair_id_exit_2_naming_line(tmp_path, dataset_dir, judge, capsys):
    p = tmp_path / "bad.jsonl"
    write_predictions_jsonl(p, {"p1": "x", "p9": "y"})
    assert cli("score", str(p), "--dataset", dataset_dir, "--out", str(tmp_path / "o"), "--no-cache") == 2
    assert "line 2 (pair_id 'p9'): not a pair of the dataset" in capsys.readouterr().err


def test_judge_errors_are_listed_not_scored(tmp_path, dataset_dir, monkeypatch, capsys):
    preds = perfect_predictions(tmp_path)
    failing = json.loads(open(preds).readline())["prediction"]  # p1's prediction makes the judge fail
    j = CountingJudge(fail_on={failing})
    monkeypatch.setattr(cli_score, "make_judge", lambda spec, cache: resolve_judge(j, cache=cache or None))
    out = tmp_path / "out"
    assert cli("score", preds, "--dataset", dataset_dir, "--out", str(out), "--no-cache", "--quiet") == 0
    doc = json.loads((out / "scores.json").read_text())
    assert doc["n_judge_errors"] == 1 and list(doc["judge_errors"]) == ["p1"]
    assert "p1" not in doc["per_pair"]["pair_id"] and doc["macro"]["f1_star"] == 1.0
    assert "could not be judged" in capsys.readouterr().err
    first = json.loads((out / "judgements.jsonl").read_text().splitlines()[0])
    assert first["error"] and "RuntimeError" in first["error"] and "metrics" not in first


def test_csv_predictions_accepted(tmp_path, dataset_dir, judge):
    p = tmp_path / "preds.csv"
    p.write_text('pair_id,prediction\np1,"A red cup was added on the left. A dog appears."\n', encoding="utf-8")
    out = tmp_path / "out"
    assert cli("score", str(p), "--dataset", dataset_dir, "--out", str(out), "--no-cache", "--quiet") == 0
    doc = json.loads((out / "scores.json").read_text())
    i = doc["per_pair"]["pair_id"].index("p1")
    assert doc["per_pair"]["recall"][i] == 0.5 and doc["per_pair"]["precision_star"][i] == 0.5


def test_compare_command(tmp_path, dataset_dir, judge, capsys):
    good, bad = tmp_path / "good", tmp_path / "bad"
    assert cli("score", perfect_predictions(tmp_path), "--dataset", dataset_dir, "--out", str(good), "--no-cache", "--quiet") == 0
    p = tmp_path / "bad.jsonl"
    write_predictions_jsonl(p, {"p1": "A dog appears.", "p2": "The man is now sitting."})
    assert cli("score", str(p), "--dataset", dataset_dir, "--out", str(bad), "--no-cache", "--quiet") == 0
    capsys.readouterr()
    assert cli("compare", str(good), str(bad / "scores.json"), "--json", str(tmp_path / "cmp.json"), "--resamples", "200") == 0
    printed = capsys.readouterr().out
    assert "| f1_star |" in printed and "| hallucination_rate |" in printed
    result = json.loads((tmp_path / "cmp.json").read_text())
    assert result["metrics"]["f1_star"]["diff"] > 0 and result["metrics"]["recall"]["n"] == 3


def test_compare_refuses_a_file_that_is_not_scores(tmp_path, capsys):
    (tmp_path / "x.json").write_text("{}")
    assert cli("compare", str(tmp_path / "x.json"), str(tmp_path / "x.json")) == 2
    assert "not a DiffCap-Bench scores.json" in capsys.readouterr().err


def test_default_cache_path_follows_env(monkeypatch, tmp_path):
    monkeypatch.setenv("CAPJUDGE_CACHE_DIR", str(tmp_path))
    assert cli_score.default_cache_path().startswith(str(tmp_path))


def test_bad_judge_spec_is_exit_2_before_any_work(tmp_path, capsys):
    p = tmp_path / "p.jsonl"
    write_predictions_jsonl(p, {"p1": "x"})
    assert cli("score", str(p), "--judge", "nosuch:model", "--no-cache", "--out", str(tmp_path / "o")) == 2
    assert "--judge 'nosuch:model'" in capsys.readouterr().err


def test_missing_dataset_folder_is_exit_2(tmp_path, judge, capsys):
    p = tmp_path / "p.jsonl"
    write_predictions_jsonl(p, {"p1": "x"})
    assert cli("score", str(p), "--dataset", str(tmp_path / "nope"), "--no-cache", "--out", str(tmp_path / "o")) == 2
    assert "nope" in capsys.readouterr().err
