"""Small benchmark folders made by code, so the data-layer tests do not depend on the samples."""
from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

# pair id -> (source, [(item id, text, category, ambiguous)])
DIFFCAP_PAIRS = {
    "fx-001": ("web", [("fx-001-1", "A red ball was added on the table.", "object", False),
                       ("fx-001-2", "The sky is darker.", "image_property", False),
                       ("fx-001-3", "A faint shadow moved.", "background", True)]),
    "fx-002": ("synthetic_2d", [("fx-002-1", "The square is blue instead of green.", "attribute", False)]),
    "fx-003": ("synthetic_2d", [("fx-003-1", "The text STOP became GO.", "text_symbol", False),
                                ("fx-003-2", "The picture is mirrored.", "camera_viewpoint", False)]),
    "fx-004": ("video_frame", [("fx-004-1", "A slight blur.", "image_property", True)]),
}


def _image(colour: str, shape_colour: str, size: int = 96) -> Image.Image:
    img = Image.new("RGB", (size, size), colour)
    ImageDraw.Draw(img).rectangle([size // 4, size // 4, size // 2, size // 2], fill=shape_colour)
    return img


def make_diffcap_folder(root: Path) -> str:
    """A loadable DiffCap-Bench folder (data/test-*.parquet) with the pairs of DIFFCAP_PAIRS."""
    from datasets import Dataset

    import diffcap_bench

    rows = {"pair_id": [], "image_a": [], "image_b": [], "source": [], "differences": []}
    for n, (pair_id, (source, items)) in enumerate(DIFFCAP_PAIRS.items()):
        rows["pair_id"].append(pair_id)
        rows["image_a"].append(_image("white", "green"))
        rows["image_b"].append(_image("lightgrey", ["red", "blue", "black", "green"][n]))
        rows["source"].append(diffcap_bench.SOURCES.index(source))
        rows["differences"].append([{"id": i, "text": t, "category": diffcap_bench.CATEGORIES.index(c),
                                     "ambiguous": a} for i, t, c, a in items])
    ds = Dataset.from_dict(rows, features=diffcap_bench.FEATURES)
    (root / "data").mkdir(parents=True, exist_ok=True)
    ds.to_parquet(str(root / "data" / "test-00000-of-00001.parquet"))
    return str(root)


def diffcap_scores_doc(model: str, hit: bool) -> dict:
    """A DiffCap-Bench scores.json document made by the real scoring and report functions."""
    from capjudge import Claim, Item
    from diffcap_bench import report, scoring

    items = [Item("a", "x", "object"), Item("b", "y", "attribute")]
    claims = [Claim("x", "correct", "a")] if hit else [Claim("z", "hallucination")]
    pc = scoring.pair_counts(items, claims, "p1", "web")
    return report.scores_document(scoring.aggregate([pc], n_resamples=10), scoring.per_pair_columns([pc]),
                                  "judge:embedded|test", model=model)


def symbal_scores_doc(model: str, hit: bool) -> dict:
    """A SymbalBench scores.json document around the real Accuracy@K scoring."""
    from symbalbench import report, scoring

    out = scoring.ScenarioOutcome("s1", {"domain": "natural", "strength": "high"}, 1 if hit else None, 1, False)
    return report.scores_document(scoring.score_outcomes([out], ks=[1, 5], n_resamples=10),
                                  {"model": model, "judge_signature": "judge:embedded|test"})


def make_leaderboard_folder(root: Path) -> str:
    """Two DiffCap runs ("good" beats "bad"), one SymbalBench run, one unrelated scores.json."""
    import json

    docs = {"good": diffcap_scores_doc("good", True), "bad": diffcap_scores_doc("bad", False),
            "sym": symbal_scores_doc("detector", True), "other": {"something": "else"}}
    for name, doc in docs.items():
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / "scores.json").write_text(json.dumps(doc), encoding="utf-8")
    return str(root)
