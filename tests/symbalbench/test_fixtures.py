"""Synthetic bases: real formats, seeded bytes."""
import csv
import hashlib
import json

from PIL import Image

from symbalbench.fixtures import make_coco, make_mimic
from symbalbench.templates import CHEXPERT_COLUMNS


def _digest(folder):
    return hashlib.sha256(b"".join(p.relative_to(folder).as_posix().encode() + p.read_bytes()
                                   for p in sorted(folder.rglob("*")) if p.is_file())).hexdigest()


def test_coco_fixture_same_seed_same_bytes(tmp_path):
    assert _digest(make_coco(tmp_path / "a", 30, seed=1)) == _digest(make_coco(tmp_path / "b", 30, seed=1))
    assert _digest(make_coco(tmp_path / "a", 30, seed=1)) != _digest(make_coco(tmp_path / "c", 30, seed=2))


def test_mimic_fixture_same_seed_same_bytes(tmp_path):
    assert _digest(make_mimic(tmp_path / "a", 20, seed=1)) == _digest(make_mimic(tmp_path / "b", 20, seed=1))


def test_coco_fixture_has_the_official_structure(tmp_path):
    root = make_coco(tmp_path / "c", 25, seed=0)
    inst = json.loads((root / "annotations" / "instances_val2017.json").read_text())
    caps = json.loads((root / "annotations" / "captions_val2017.json").read_text())
    for data in (inst, caps):
        assert {"info", "licenses", "images", "annotations"} <= set(data)
    img = inst["images"][0]
    assert {"id", "file_name", "width", "height", "license", "coco_url", "flickr_url", "date_captured"} <= set(img)
    assert img["file_name"] == f"{img['id']:012d}.jpg"
    with Image.open(root / "val2017" / img["file_name"]) as im:
        assert im.size == (img["width"], img["height"])
    ann = inst["annotations"][0]
    assert {"id", "image_id", "category_id", "bbox", "area", "iscrowd", "segmentation"} <= set(ann)
    ids = sorted(i["id"] for i in inst["images"])
    assert any(b - a > 1 for a, b in zip(ids, ids[1:]))  # ids with gaps


def test_mimic_fixture_has_the_official_structure(tmp_path):
    root = make_mimic(tmp_path / "m", 20, seed=0)
    with open(root / "mimic-cxr-2.0.0-chexpert.csv") as f:
        header = next(csv.reader(f))
    assert header == ["subject_id", "study_id"] + CHEXPERT_COLUMNS
    with open(root / "mimic-cxr-2.0.0-metadata.csv") as f:
        meta = list(csv.DictReader(f))
    row = meta[0]
    sub, study = row["subject_id"], row["study_id"]
    image = root / "files" / f"p{sub[:2]}" / f"p{sub}" / f"s{study}" / f"{row['dicom_id']}.jpg"
    with Image.open(image) as im:
        assert im.mode == "L"
    report = (root / "files" / f"p{sub[:2]}" / f"p{sub}" / f"s{study}.txt").read_text()
    assert "FINAL REPORT" in report and "IMPRESSION:" in report and "___" in report
    assert {r["ViewPosition"] for r in meta} >= {"PA", "AP", "LATERAL"}


def test_coco_fixture_synonyms_name_their_category_and_loose_words_name_none():
    from symbalbench.baselines.concepts import default_vocabulary
    from symbalbench.fixtures.coco import LOOSE, SYNONYMS

    vocab = default_vocabulary()
    for name, words in SYNONYMS.items():
        for w in words:
            assert vocab.find(w) == {name}, w
    for w in LOOSE.values():
        assert vocab.find(w) == set(), w


def test_coco_fixture_captions_name_large_objects_often_and_small_ones_rarely(tmp_path):
    from symbalbench.base.coco import load_coco
    from symbalbench.baselines.concepts import default_vocabulary

    vocab = default_vocabulary()
    mentioned = {"large": [0, 0], "small": [0, 0]}  # [mentions, chances]
    for r in load_coco(make_coco(tmp_path / "c", 120, seed=0)).records():
        for text in [r.caption, *r.references]:
            said = vocab.find(text)
            for label, area in r.label_area.items():
                m = mentioned["large" if area >= 0.1 else "small"]
                m[0] += label in said
                m[1] += 1
    large, small = (m[0] / m[1] for m in (mentioned["large"], mentioned["small"]))
    assert large > 0.6 and small < 0.3 and large > 2.5 * small


def test_mimic_impression_does_not_always_restate_the_findings(tmp_path):
    from symbalbench.base.mimic import load_mimic
    from symbalbench.baselines.concepts import default_vocabulary

    vocab = default_vocabulary()
    rows = [r for r in load_mimic(make_mimic(tmp_path / "m", 120, seed=0)).records() if r.references]
    restated = [vocab.find(r.caption) & set(vocab.names[:5]) <= vocab.find_all(r.references) for r in rows]
    assert 0.2 < sum(restated) / len(restated) < 0.95
