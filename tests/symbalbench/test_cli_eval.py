"""``symbalbench evaluate | run-baseline``: end to end on the bundled sample, and bad input -> exit 2."""
import importlib
import json
import sys

import pytest

from benchcore.cli import run_cli


def cli(argv):
    """The real ``symbalbench`` entry point when all its command modules exist, else the eval commands alone."""
    try:
        importlib.import_module("symbalbench.cli_build")
        from symbalbench.cli import main

        return main(argv)
    except ImportError:
        return run_cli("symbalbench", "test", ["symbalbench.cli_eval"], argv)


@pytest.fixture(scope="module")
def ref_preds(tmp_path_factory):
    path = tmp_path_factory.mktemp("preds") / "reference_diff.jsonl"
    assert cli(["run-baseline", "reference_diff", "--out", str(path), "--quiet"]) == 0
    return path


def test_run_baseline_writes_valid_predictions(ref_preds):
    import symbalbench
    from symbalbench.predictions import read_predictions

    bench = symbalbench.load()
    p = read_predictions(ref_preds, scenario_ids=bench.scenario_ids, k=5)
    assert len(p.guesses) >= len(bench.scenario_ids) - 2
    assert all(1 <= len(g) <= 5 for g in p.guesses.values())


def test_evaluate_writes_the_four_outputs(ref_preds, tmp_path, capsys):
    out = tmp_path / "eval"
    assert cli(["evaluate", str(ref_preds), "--out", str(out), "--quiet", "--no-cache"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["accuracy.png", "report.md", "scores.json", "verdicts.jsonl"]
    doc = json.loads((out / "scores.json").read_text())
    assert doc["benchmark"] == "symbalbench" and doc["n_scenarios"] == 24
    assert doc["overall"]["accuracy@5"] >= 0.8
    assert set(doc["breakdowns"]) >= {"domain", "strength", "sampling", "size", "domain+strength"}
    assert doc["judging"]["distinct_pairs"] > 0 and "embedded" in doc["judge_signature"]
    assert len((out / "verdicts.jsonl").read_text().splitlines()) == 24
    assert "## By strength" in (out / "report.md").read_text()
    assert "Accuracy@1 =" in capsys.readouterr().out


def test_same_input_same_bytes(ref_preds, tmp_path):
    for name in ("a", "b"):
        assert cli(["evaluate", str(ref_preds), "--out", str(tmp_path / name), "--quiet", "--no-cache"]) == 0
    for f in ("scores.json", "verdicts.jsonl", "report.md", "accuracy.png"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f


def test_cache_makes_the_second_run_free(ref_preds, tmp_path):
    cache = tmp_path / "judge.sqlite"
    for name in ("a", "b"):
        assert cli(["evaluate", str(ref_preds), "--out", str(tmp_path / name), "--quiet", "--cache", str(cache)]) == 0
    first = json.loads((tmp_path / "a" / "scores.json").read_text())["judging"]["cache"]
    second = json.loads((tmp_path / "b" / "scores.json").read_text())["judging"]["cache"]
    assert first["asked"] > 0 and second["asked"] == 0 and second["hits"] == first["asked"]


def test_missing_scenarios_are_listed_and_short_lists_noted(ref_preds, tmp_path, capsys):
    lines = ref_preds.read_text().splitlines()
    kept = tmp_path / "partial.jsonl"
    first = json.loads(lines[0])
    first["guesses"] = first["guesses"][:1]
    kept.write_text("\n".join([json.dumps(first)] + lines[1:3]) + "\n")
    assert cli(["evaluate", str(kept), "--out", str(tmp_path / "o"), "--quiet", "--no-cache"]) == 0
    doc = json.loads((tmp_path / "o" / "scores.json").read_text())
    assert doc["n_missing"] == 21 and len(doc["missing_scenarios"]) == 21
    assert any("fewer than K=5" in n and ":1:" in n for n in doc["notes"])
    assert "fewer than K=5" in capsys.readouterr().err


def test_bad_predictions_exit_2_naming_the_line(ref_preds, tmp_path, capsys):
    lines = ref_preds.read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], lines[0], '{"scenario_id": "nope", "guesses": []}',
                              json.dumps({"scenario_id": json.loads(lines[1])["scenario_id"],
                                          "guesses": [{"text_error": "dog"}]})]) + "\n")
    assert cli(["evaluate", str(bad), "--out", str(tmp_path / "o"), "--quiet", "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl:2: duplicate scenario_id" in err and "line 1" in err
    assert "bad.jsonl:3: unknown scenario_id 'nope'" in err and "bad.jsonl:3: 'guesses' is empty" in err
    assert "bad.jsonl:4: guess 1 is missing field 'visual_feature'" in err
    assert not (tmp_path / "o").exists()


def test_strict_makes_short_lists_errors(ref_preds, tmp_path, capsys):
    assert cli(["evaluate", str(ref_preds), "--out", str(tmp_path / "o"), "--quiet", "--no-cache", "--k", "1,50",
                "--strict"]) == 2
    assert "fewer than K=50 (strict mode)" in capsys.readouterr().err


def test_unknown_baseline_and_missing_tagger_exit_2(tmp_path, capsys):
    assert cli(["run-baseline", "oracle", "--out", str(tmp_path / "p.jsonl"), "--quiet"]) == 2
    assert "choose from" in capsys.readouterr().err
    assert cli(["run-baseline", "tagger", "--out", str(tmp_path / "p.jsonl"), "--quiet"]) == 2
    assert "--tagger" in capsys.readouterr().err


def test_tagger_baseline_with_a_user_module(tmp_path, monkeypatch):
    (tmp_path / "my_tagger.py").write_text("def tag(image):\n    return ['person', 'car']\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("my_tagger", None)
    out = tmp_path / "p.jsonl"
    assert cli(["run-baseline", "tagger", "--tagger", "my_tagger:tag", "--out", str(out), "--quiet",
                "--scenarios", "med-pacemaker-atelectasis-high"]) == 0
    assert out.exists()


def test_missing_dataset_folder_exits_2(ref_preds, tmp_path, capsys):
    assert cli(["evaluate", str(ref_preds), "--dataset", str(tmp_path / "nope"), "--quiet", "--no-cache"]) == 2
    assert "not found" in capsys.readouterr().err
