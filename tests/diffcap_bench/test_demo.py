"""The demo: reference models on the bundled sample, ranked sensibly by the metric."""
import json

import pytest

from benchcore.cli import run_cli
from capjudge.protocol import Item
from diffcap_bench.cli_score import load_pairs, run_demo
from diffcap_bench.models import REFERENCE_MODELS, exact_match_judge, garble, predict


def assert_sensible_ranking(docs):
    f1 = {m: d["macro"]["f1_star"] for m, d in docs.items()}
    hall = {m: d["macro"]["hallucination_rate"] for m, d in docs.items()}
    assert f1["perfect"] > f1["noisy"] > f1["hallucinating"], f1
    assert hall["hallucinating"] > max(hall["perfect"], hall["noisy"]), hall


def test_demo_ranks_reference_models_with_the_embedded_judge(tmp_path, capsys):
    out = tmp_path / "demo"
    rc = run_cli("diffcap-bench", "test", ["diffcap_bench.cli_score"], ["demo", "--out", str(out), "--no-cache", "--quiet"])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "| perfect |" in printed and "| hallucinating |" in printed
    docs = {m: json.loads((out / m / "scores.json").read_text()) for m in REFERENCE_MODELS}
    assert all(d["judge_signature"].startswith("judge:embedded") for d in docs.values())
    assert all(d["n_judge_errors"] == 0 and d["n_pairs"] >= 20 for d in docs.values())
    assert_sensible_ranking(docs)
    for m in REFERENCE_MODELS:  # the demo leaves predictions a newcomer can re-score
        assert (out / m / "predictions.jsonl").exists() and (out / m / "report.md").exists()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reference_models_rank_the_same_with_a_literal_judge(seed):
    assert_sensible_ranking(run_demo(judge=exact_match_judge, seed=seed, progress=False, n_resamples=10))


def test_reference_models_are_deterministic_and_seeded():
    pairs = load_pairs()[:10]
    for model in REFERENCE_MODELS:
        a = [predict(model, p.items, 0, p.pair_id) for p in pairs]
        assert a == [predict(model, p.items, 0, p.pair_id) for p in pairs]
    noisy = [predict("noisy", p.items, s, p.pair_id) for p in pairs for s in (0, 1)]
    assert noisy[0::2] != noisy[1::2]


def test_perfect_states_only_key_items_and_noisy_garbles():
    items = (Item("a", "The cup on the left is red", "attribute"), Item("b", "a faint shadow", "image_property", True))
    assert predict("perfect", items) == "The cup on the left is red."
    assert garble("The cup on the left is red") in ("The cup on the right is red", "The cup on the left is blue")
    with pytest.raises(ValueError, match="unknown reference model"):
        predict("oracle", items)
