"""``symbalbench demo``: the baselines on the bundled sample; reference_diff clearly beats random."""
import io

import pytest

from symbalbench.demo import build_synthetic, run_demo, score_baselines, strength_table


@pytest.fixture(scope="module")
def demo():
    stream = io.StringIO()
    results = run_demo(progress=False, stream=stream)
    return results, stream.getvalue()


def test_demo_prints_the_table(demo):
    _, text = demo
    assert "| baseline | variant | Acc@1 | Acc@5 |" in text
    for name in ("reference_diff", "frequency", "random"):
        assert f"| {name} |" in text


def test_reference_diff_clearly_beats_random_on_the_sample(demo):
    results, _ = demo
    ref = results["reference_diff"]["scores"]["overall"]
    rnd = results["random"]["scores"]["overall"]
    assert ref["accuracy@5"] >= 0.8 and rnd["accuracy@5"] <= 0.1
    assert ref["accuracy@1"] - rnd["accuracy@1"] >= 0.5


def test_demo_writes_reports(tmp_path):
    run_demo(out_dir=str(tmp_path / "demo"), progress=False, stream=io.StringIO())
    assert (tmp_path / "demo" / "reference_diff.jsonl").exists()
    assert (tmp_path / "demo" / "random" / "scores.json").exists()


@pytest.mark.slow
def test_synthetic_build_strength_study(tmp_path):
    """A smaller version of ``demo --synthetic``: every strength is present and reference_diff >= random."""
    import symbalbench
    from capjudge import resolve_judge

    folder = build_synthetic(tmp_path / "build", n_images=300, n_studies=240)
    results = score_baselines(symbalbench.load(str(folder)), resolve_judge("embedded"), ("reference_diff", "random"))
    by = results["reference_diff"]["scores"]["breakdowns"]["strength"]
    rnd = results["random"]["scores"]["breakdowns"]["strength"]
    assert list(by) == ["low", "medium", "high"]
    assert all(by[s]["accuracy@5"] >= rnd[s]["accuracy@5"] for s in by)
    assert "natural low @1/@5" in strength_table(results)
