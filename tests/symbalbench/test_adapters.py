"""Base adapters: COCO, MIMIC-CXR-JPG and manifest, with the real formats' quirks and bad inputs."""
import csv
import json

import pytest

from benchcore.errors import InputError
from symbalbench.base.coco import clean_text, load_coco
from symbalbench.base.manifest import load_manifest
from symbalbench.base.mimic import choose_frontal, load_mimic, mine_devices, read_chexpert, report_sections
from symbalbench.fixtures import make_coco, make_mimic
from symbalbench.templates import COCO_NAMES


@pytest.fixture(scope="module")
def coco_dir(tmp_path_factory):
    return make_coco(tmp_path_factory.mktemp("coco"), n_images=120, seed=3)


@pytest.fixture(scope="module")
def mimic_dir(tmp_path_factory):
    return make_mimic(tmp_path_factory.mktemp("mimic"), n_studies=80, seed=3)


def _json(path):
    return json.loads(path.read_text())


# ---------------------------------------------------------------- COCO
def test_coco_reads_every_captioned_image_with_labels_from_instances(coco_dir):
    base = load_coco(coco_dir)
    assert base.domain == "natural" and len(base) == 120
    inst = _json(coco_dir / "annotations" / "instances_val2017.json")
    names = {c["id"]: c["name"] for c in inst["categories"]}
    rec = {r.record_id: r for r in base.records()}
    ann = inst["annotations"][0]
    r = rec[f"{ann['image_id']:012d}"]
    assert names[ann["category_id"]] in r.labels
    assert set(lab for r in base.records() for lab in r.labels) <= set(COCO_NAMES)


def test_coco_category_ids_have_gaps_and_names_map_through_them(coco_dir):
    cats = _json(coco_dir / "annotations" / "instances_val2017.json")["categories"]
    ids = {c["id"] for c in cats}
    assert len(cats) == 80 and max(ids) == 90 and {12, 26, 29, 30, 45, 66, 68, 69, 71, 83}.isdisjoint(ids)
    assert {c["name"] for c in cats} == set(COCO_NAMES)


def test_coco_label_area_sums_polygon_and_rle_annotations(coco_dir):
    inst = _json(coco_dir / "annotations" / "instances_val2017.json")
    crowd = [a for a in inst["annotations"] if a["iscrowd"] == 1]
    assert crowd and isinstance(crowd[0]["segmentation"], dict)  # the fixture has RLE annotations
    a = crowd[0]
    img = next(i for i in inst["images"] if i["id"] == a["image_id"])
    name = next(c["name"] for c in inst["categories"] if c["id"] == a["category_id"])
    expected = sum(x["area"] for x in inst["annotations"]
                   if x["image_id"] == a["image_id"] and x["category_id"] == a["category_id"])
    rec = next(r for r in load_coco(coco_dir).records() if r.record_id == f"{a['image_id']:012d}")
    assert rec.label_area[name] == pytest.approx(expected / (img["width"] * img["height"]))


def test_coco_captions_cleaned_first_by_id_is_caption_rest_are_references(coco_dir):
    caps = _json(coco_dir / "annotations" / "captions_val2017.json")["annotations"]
    assert any(c["caption"] != c["caption"].strip() or "  " in c["caption"] for c in caps)  # stray whitespace
    iid = caps[0]["image_id"]
    mine = sorted((c["id"], clean_text(c["caption"])) for c in caps if c["image_id"] == iid)
    assert 5 <= len(mine) <= 7
    rec = next(r for r in load_coco(coco_dir).records() if r.record_id == f"{iid:012d}")
    assert rec.caption == mine[0][1] and rec.references == [t for _, t in mine[1:]]
    assert all("\n" not in t and t == t.strip() for t in [rec.caption, *rec.references])


def test_coco_images_listed_in_only_one_file_are_kept(coco_dir):
    inst = {i["id"] for i in _json(coco_dir / "annotations" / "instances_val2017.json")["images"]}
    caps = {i["id"] for i in _json(coco_dir / "annotations" / "captions_val2017.json")["images"]}
    assert inst - caps and caps - inst
    ids = {r.record_id for r in load_coco(coco_dir).records()}
    assert {f"{i:012d}" for i in (inst - caps) | (caps - inst)} <= ids


def test_coco_subset_by_count_is_seeded_and_by_ids_exact(coco_dir):
    a = load_coco(coco_dir, count=30, seed=1)
    b = load_coco(coco_dir, count=30, seed=1)
    c = load_coco(coco_dir, count=30, seed=2)
    assert a.table.equals(b.table) and not a.table.equals(c.table) and len(a) == 30
    some = [int(r) for r in a.table.column("record_id").to_pylist()[:3]]
    assert load_coco(coco_dir, image_ids=some).table.column("record_id").to_pylist() == \
        [f"{i:012d}" for i in sorted(some)]


def _broken_copy(coco_dir, tmp_path, edit):
    import shutil

    dst = tmp_path / "coco"
    shutil.copytree(coco_dir, dst)
    path = dst / "annotations" / "instances_val2017.json"
    data = _json(path)
    edit(data)
    path.write_text(json.dumps(data))
    return dst


def test_coco_unknown_category_names_file_and_annotation(coco_dir, tmp_path):
    def edit(d):
        d["annotations"][4]["category_id"] = 12  # one of COCO's unused ids
    root = _broken_copy(coco_dir, tmp_path, edit)
    ann_id = _json(root / "annotations" / "instances_val2017.json")["annotations"][4]["id"]
    with pytest.raises(InputError, match=rf"instances_val2017.json: annotation {ann_id} has unknown category_id 12"):
        load_coco(root)


def test_coco_annotation_for_unlisted_image_is_an_error(coco_dir, tmp_path):
    root = _broken_copy(coco_dir, tmp_path, lambda d: d["annotations"][0].update(image_id=999999999))
    with pytest.raises(InputError, match="refers to image 999999999, listed in neither file"):
        load_coco(root)


def test_coco_missing_area_and_bad_json_and_missing_image(coco_dir, tmp_path):
    root = _broken_copy(coco_dir, tmp_path, lambda d: d["annotations"][2].pop("area"))
    with pytest.raises(InputError, match="needs image_id, category_id and area"):
        load_coco(root)
    (root / "annotations" / "instances_val2017.json").write_text("{not json")
    with pytest.raises(InputError, match="instances_val2017.json: not valid JSON"):
        load_coco(root)
    with pytest.raises(InputError, match="file not found"):
        load_coco(tmp_path / "nowhere", split="val2017")


def test_coco_missing_image_file_names_the_file(coco_dir, tmp_path):
    import shutil

    dst = tmp_path / "c"
    shutil.copytree(coco_dir, dst)
    victim = sorted((dst / "val2017").iterdir())[0]
    victim.unlink()
    with pytest.raises(InputError, match=victim.name):
        load_coco(dst)
    assert len(load_coco(dst, check_images=False)) == 120


# ---------------------------------------------------------------- MIMIC
def test_mimic_label_values_positive_uncertain_blank(mimic_dir):
    chex = read_chexpert(mimic_dir / "mimic-cxr-2.0.0-chexpert.csv")
    base = {r.record_id: r for r in load_mimic(mimic_dir).records()}
    seen = set()
    for study, labels in chex.items():
        rec = base.get(f"s{study}")
        if rec is None:
            continue
        for name, v in labels.items():
            if name == "_subject":
                continue
            seen.add(v)
            assert (name in rec.labels) == (v == 1), (study, name, v)
            assert (name in rec.uncertain) == (v == -1)
    assert seen == {1, 0, -1, None}


def test_mimic_frontal_choice_prefers_pa_then_ap_then_smallest_id(tmp_path):
    path = tmp_path / "meta.csv"
    rows = [["d3", "10000001", "50000001", "AP"], ["d2", "10000001", "50000001", "LATERAL"],
            ["d9", "10000001", "50000001", "PA"], ["d1", "10000001", "50000002", "AP"],
            ["d0", "10000001", "50000002", "AP"], ["d5", "10000001", "50000003", "LL"]]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["dicom_id", "subject_id", "study_id", "ViewPosition"])
        w.writerows(rows)
    got = choose_frontal(path)
    assert got == {"50000001": ("10000001", "d9"), "50000002": ("10000001", "d0")}


def test_mimic_skips_studies_without_frontal_and_points_at_frontal_jpg(mimic_dir):
    base = load_mimic(mimic_dir)
    assert len(base) == 80 and base.stats["skipped_no_frontal"] == 3
    for r in base.records()[:10]:
        assert (mimic_dir / r.image).is_file() and r.image.startswith("files/p1")


def test_mimic_report_sections_findings_caption_impression_reference():
    text = ("   FINAL REPORT\n EXAMINATION:  CHEST\n INDICATION: ___ with cough\n\n FINDINGS: \n  Heart size is\n"
            " normal.  No effusion.\n\n IMPRESSION: \n No acute process.\n")
    sec = report_sections(text)
    assert sec["FINDINGS"] == "Heart size is normal. No effusion." and sec["IMPRESSION"] == "No acute process."
    assert sec["INDICATION"] == "___ with cough"


def test_mimic_combined_findings_and_impression_heading(tmp_path, mimic_dir):
    import shutil

    root = tmp_path / "m"
    shutil.copytree(mimic_dir, root)
    rec = load_mimic(root).records()[0]
    report = next(root.glob(f"files/*/*/{rec.record_id}.txt"))
    report.write_text("FINAL REPORT\n FINDINGS AND IMPRESSION:\n Heart is normal. Lungs are clear.\n")
    again = next(r for r in load_mimic(root).records() if r.record_id == rec.record_id)
    assert again.caption == "Heart is normal. Lungs are clear." and again.references == []


def test_mimic_impression_only_reports_use_impression(mimic_dir):
    recs = load_mimic(mimic_dir).records()
    only = [r for r in recs if not r.references]
    both = [r for r in recs if r.references]
    assert only and both
    assert all("FINDINGS" not in r.caption and "IMPRESSION" not in r.caption for r in recs)


@pytest.mark.parametrize("text,expected", [
    ("Left chest wall pacemaker in place.", ["pacemaker"]),
    ("No pacemaker.", []),
    ("The chest tube has been removed.", []),
    ("Interval removal of the endotracheal tube.", []),
    ("Without evidence of a central line.", []),
    ("The NG tube is no longer seen.", []),
    ("Right PICC line ends in the SVC.", ["central venous catheter"]),
    ("ET tube and enteric tube in standard position. No pneumothorax.", ["endotracheal tube", "nasogastric tube"]),
    ("No change in position of the right chest tube.", ["chest tube"]),
    ("Pacemaker leads are intact without pneumothorax.", ["pacemaker"]),
    ("There is no pneumothorax, and the pacemaker is in place.", ["pacemaker"]),
    ("No pacemaker or ICD is seen.", []),
])
def test_device_mining_rules_and_negation(text, expected):
    assert mine_devices(text) == expected


def test_mimic_mined_devices_match_device_csv_where_report_has_findings(mimic_dir):
    mined = {r.record_id: r for r in load_mimic(mimic_dir).records()}
    given = {r.record_id: r for r in load_mimic(mimic_dir, device_csv=mimic_dir / "devices.csv").records()}
    checked = 0
    for rid, r in mined.items():
        if r.references:  # a FINDINGS section exists, where the fixture describes devices
            assert r.labels == given[rid].labels
            checked += 1
    assert checked > 50


def _copy_mimic(mimic_dir, tmp_path):
    import shutil

    dst = tmp_path / "m"
    shutil.copytree(mimic_dir, dst)
    return dst


def test_mimic_bad_label_value_names_file_line_and_column(mimic_dir, tmp_path):
    root = _copy_mimic(mimic_dir, tmp_path)
    path = root / "mimic-cxr-2.0.0-chexpert.csv"
    lines = path.read_text().splitlines()
    cells = lines[3].split(",")
    cells[3] = "yes"  # column 4 = Cardiomegaly
    lines[3] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"chexpert.csv: line 4, column 'Cardiomegaly': value 'yes'"):
        load_mimic(root)


def test_mimic_missing_report_and_missing_column(mimic_dir, tmp_path):
    root = _copy_mimic(mimic_dir, tmp_path)
    first = load_mimic(root).records()[0]
    report = next(root.glob(f"files/*/*/{first.record_id}.txt"))
    report.unlink()
    with pytest.raises(InputError, match=rf"{first.record_id}.txt: report of study {first.record_id[1:]} not found"):
        load_mimic(root)
    meta = root / "mimic-cxr-2.0.0-metadata.csv"
    meta.write_text(meta.read_text().replace("ViewPosition", "View"))
    with pytest.raises(InputError, match=r"metadata.csv: missing column\(s\) \['ViewPosition'\]"):
        load_mimic(root)


# ---------------------------------------------------------------- manifest
def test_manifest_jsonl_and_parquet_give_the_same_base(tmp_path):
    rows = [{"record_id": "b", "image": "img/b.png", "caption": "A cat.", "labels": ["cat"], "label_area": [0.3]},
            {"record_id": "a", "image": "img/a.png", "caption": "A dog.", "labels": ["dog", "car"],
             "label_area": {"dog": 0.2, "car": 0.01}, "references": ["A pup."], "uncertain": []}]
    jl = tmp_path / "m.jsonl"
    jl.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    base = load_manifest(jl, domain="natural")
    assert base.table.column("record_id").to_pylist() == ["a", "b"]
    assert base.records()[0].label_area == {"dog": 0.2, "car": 0.01}
    import pyarrow as pa
    import pyarrow.parquet as pq

    norm = [dict(r, label_area=list(dict(zip(r["labels"], r["label_area"])).values())
                 if isinstance(r["label_area"], list) else [r["label_area"][x] for x in r["labels"]],
                 references=r.get("references", []), uncertain=[]) for r in rows]
    pq.write_table(pa.Table.from_pylist(norm), tmp_path / "m.parquet")
    assert load_manifest(tmp_path / "m.parquet").table.equals(base.table)


@pytest.mark.parametrize("line,message", [
    ('{"record_id": "x", "image": "a.png", "labels": []}', r"line 2: missing field\(s\) \['caption'\]"),
    ('{"record_id": "x", "image": "a.png", "caption": "c", "labels": "dog"}', "record 'x'.*labels must be a list"),
    ('not json', "line 2: not valid JSON"),
    ('{"record_id": "x", "image": "a.png", "caption": "c", "labels": ["dog"], "label_area": {"dog": 3}}',
     r"record 'x': label_area\['dog'\] = 3.0 is outside"),
    ('{"record_id": "ok", "image": "a.png", "caption": "c", "labels": []}', "duplicate record_id 'ok'"),
])
def test_manifest_bad_rows_name_file_and_line(tmp_path, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"record_id": "ok", "image": "a.png", "caption": "c", "labels": []}\n' + line + "\n")
    with pytest.raises(InputError, match=message):
        load_manifest(path)


def test_mimic_negative_findings_are_recorded_as_negated(mimic_dir):
    chex = read_chexpert(mimic_dir / "mimic-cxr-2.0.0-chexpert.csv")
    for r in load_mimic(mimic_dir).records()[:30]:
        labels = chex[r.record_id[1:]]
        assert set(r.negated) == {k for k, v in labels.items() if k != "_subject" and v == 0}
