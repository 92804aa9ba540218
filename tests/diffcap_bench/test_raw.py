"""Raw layout validation: every bad input stops the build with a message naming the culprit."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from benchcore.errors import InputError
from diffcap_bench import raw
from diffcap_bench.builder import DiffCapBuilder


def _png(path: Path, color=(200, 30, 30), size=(32, 24)) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, color).save(path, format="PNG")


def _record(pair_id: str = "p1", **over) -> dict:
    rec = {
        "pair_id": pair_id,
        "image_a": f"images/{pair_id}_a.png",
        "image_b": f"images/{pair_id}_b.png",
        "source": "web",
        "differences": [
            {"id": f"{pair_id}-1", "text": "A red ball appears.", "category": "object", "ambiguous": False},
            {"id": f"{pair_id}-2", "text": "The sky is darker.", "category": "background"},
        ],
    }
    rec.update(over)
    return rec


def make_raw(root: Path, records: list[dict] | None = None, lines: list[str] | None = None) -> Path:
    """A raw folder with valid images for every pair_id and the given records (or raw lines)."""
    records = records if records is not None else [_record("p1"), _record("p2")]
    for rec in records:
        if isinstance(rec, dict) and "pair_id" in rec:
            _png(root / "images" / f"{rec['pair_id']}_a.png")
            _png(root / "images" / f"{rec['pair_id']}_b.png", color=(30, 30, 200))
    text = lines if lines is not None else [json.dumps(r) for r in records]
    (root / "annotations.jsonl").write_text("\n".join(text) + "\n", encoding="utf-8")
    return root


def build(root: Path, tmp_path: Path):
    return DiffCapBuilder(show_progress=False).build(root, tmp_path / "out")


def test_valid_folder_reads_all_pairs_with_names(tmp_path):
    pairs = raw.read_pairs(make_raw(tmp_path / "raw"))
    assert [p.pair_id for p in pairs] == ["p1", "p2"]
    assert pairs[0].differences[1] == {"id": "p1-2", "text": "The sky is darker.", "category": "background",
                                       "ambiguous": False}  # ambiguous defaults to false


def test_malformed_json_names_file_and_line(tmp_path):
    root = make_raw(tmp_path / "raw", records=[_record("p1")],
                    lines=[json.dumps(_record("p1")), "", '{"pair_id": "p2", "image_a": '])
    with pytest.raises(raw.MalformedJSON, match=r"annotations\.jsonl line 3: malformed JSON"):
        raw.read_pairs(root)


def test_line_that_is_not_an_object_is_malformed(tmp_path):
    root = make_raw(tmp_path / "raw", records=[_record("p1")], lines=[json.dumps(_record("p1")), "[1, 2]"])
    with pytest.raises(raw.MalformedJSON, match="line 2: expected a JSON object, got list"):
        raw.read_pairs(root)


def test_unknown_category_names_line_field_and_value(tmp_path):
    bad = _record("p2")
    bad["differences"][1]["category"] = "colour"
    root = make_raw(tmp_path / "raw", [_record("p1"), bad])
    with pytest.raises(raw.UnknownCategory) as e:
        raw.read_pairs(root)
    msg = str(e.value)
    assert "annotations.jsonl line 2" in msg and "differences[1].category" in msg and "'colour'" in msg
    assert "attribute" in msg  # lists the valid names


def test_unknown_source_is_refused(tmp_path):
    root = make_raw(tmp_path / "raw", [_record("p1", source="tv")])
    with pytest.raises(raw.UnknownSource, match=r"line 1, field 'source': unknown source 'tv'"):
        raw.read_pairs(root)


def test_duplicate_pair_id_names_both_lines(tmp_path):
    root = make_raw(tmp_path / "raw", [_record("p1"), _record("p2"), _record("p1")])
    with pytest.raises(raw.DuplicateId, match=r"line 3, field 'pair_id': duplicate pair_id 'p1' \(first at annotations\.jsonl line 1\)"):
        raw.read_pairs(root)


def test_duplicate_item_id_names_pair_and_field(tmp_path):
    bad = _record("p1")
    bad["differences"][1]["id"] = "p1-1"
    root = make_raw(tmp_path / "raw", [bad])
    with pytest.raises(raw.DuplicateId, match=r"line 1, field 'differences\[1\]\.id': duplicate item id 'p1-1' in pair 'p1'"):
        raw.read_pairs(root)


def test_empty_difference_list(tmp_path):
    root = make_raw(tmp_path / "raw", [_record("p1"), _record("p2", differences=[])])
    with pytest.raises(raw.EmptyDifferences, match=r"line 2, field 'differences': pair 'p2' has an empty difference list"):
        raw.read_pairs(root)


def test_missing_field_is_named(tmp_path):
    rec = _record("p1")
    del rec["differences"][0]["text"]
    root = make_raw(tmp_path / "raw", [rec])
    with pytest.raises(raw.MissingField, match=r"line 1, field 'differences\[0\]\.text': must be a non-empty string \(missing\)"):
        raw.read_pairs(root)


def test_non_boolean_ambiguous_is_refused(tmp_path):
    rec = _record("p1")
    rec["differences"][0]["ambiguous"] = "yes"
    root = make_raw(tmp_path / "raw", [rec])
    with pytest.raises(raw.MissingField, match=r"differences\[0\]\.ambiguous': must be true or false"):
        raw.read_pairs(root)


def test_missing_image_names_field_and_file(tmp_path):
    root = make_raw(tmp_path / "raw")
    (root / "images" / "p2_b.png").unlink()
    with pytest.raises(raw.MissingImage) as e:
        build(root, tmp_path)
    assert "annotations.jsonl line 2, field 'image_b'" in str(e.value) and "p2_b.png does not exist" in str(e.value)


def test_path_escaping_with_dotdot_is_refused(tmp_path):
    _png(tmp_path / "outside.png")
    root = make_raw(tmp_path / "raw", [_record("p1", image_a="../outside.png")])
    with pytest.raises(raw.ImagePathError, match=r"line 1, field 'image_a': image path '\.\./outside\.png' escapes the raw folder"):
        raw.read_pairs(root)


def test_absolute_path_is_refused(tmp_path):
    _png(tmp_path / "abs.png")
    root = make_raw(tmp_path / "raw", [_record("p1", image_b=str(tmp_path / "abs.png"))])
    with pytest.raises(raw.ImagePathError, match=r"line 1, field 'image_b': image path '.*abs\.png' is absolute"):
        raw.read_pairs(root)


def test_symlink_leaving_the_folder_is_refused(tmp_path):
    _png(tmp_path / "secret.png")
    root = make_raw(tmp_path / "raw", [_record("p1", image_a="images/link.png")])
    (root / "images" / "link.png").symlink_to(tmp_path / "secret.png")
    with pytest.raises(raw.ImagePathError, match="escapes the raw folder"):
        raw.read_pairs(root)


def test_non_image_file_is_refused(tmp_path):
    root = make_raw(tmp_path / "raw")
    (root / "images" / "p1_a.png").write_text("this is a text file, not a picture")
    with pytest.raises(raw.NotAnImage, match=r"line 1, field 'image_a': file .*p1_a\.png is not an image"):
        build(root, tmp_path)


def test_truncated_image_is_unreadable(tmp_path):
    root = make_raw(tmp_path / "raw")
    path = root / "images" / "p2_a.png"
    Image.new("RGB", (64, 64), (10, 200, 10)).save(path, format="PNG")
    path.write_bytes(path.read_bytes()[:60])  # header intact, pixel data cut
    with pytest.raises(raw.UnreadableImage, match=r"line 2, field 'image_a': image .*p2_a\.png cannot be decoded"):
        build(root, tmp_path)


def test_decompression_bomb_is_refused_at_pillows_limit(tmp_path):
    root = make_raw(tmp_path / "raw")
    # 10000 x 10000 = 100M pixels > Pillow's default MAX_IMAGE_PIXELS (~89.5M); 1-bit keeps it small
    Image.new("1", (10_000, 10_000)).save(root / "images" / "p1_b.png", format="PNG")
    with pytest.raises(raw.DecompressionBomb) as e:
        build(root, tmp_path)
    assert "line 1, field 'image_b'" in str(e.value) and "decompression-bomb limit" in str(e.value)
    assert not (tmp_path / "out").exists()


def test_every_raw_error_is_an_input_error():
    for cls in (raw.MalformedJSON, raw.UnknownCategory, raw.DuplicateId, raw.ImagePathError, raw.MissingImage,
                raw.NotAnImage, raw.UnreadableImage, raw.DecompressionBomb, raw.EmptyDifferences):
        assert issubclass(cls, InputError)


def test_missing_annotations_file(tmp_path):
    (tmp_path / "raw").mkdir()
    with pytest.raises(FileNotFoundError, match="annotations.jsonl not found"):
        raw.read_pairs(tmp_path / "raw")


def test_adapter_maps_another_layout_and_errors_name_the_record(tmp_path):
    root = make_raw(tmp_path / "raw")
    (root / "annotations.jsonl").unlink()
    table = [("p1", "A red ball appears."), ("p2", "A cat sits.")]

    def my_layout(folder: Path):
        for pid, text in table:
            yield {"pair_id": pid, "image_a": f"images/{pid}_a.png", "image_b": f"images/{pid}_b.png",
                   "source": "video_frame", "differences": [{"id": "1", "text": text, "category": "object"}]}

    pairs = raw.read_pairs(root, adapter=my_layout)
    assert [p.source for p in pairs] == ["video_frame", "video_frame"]
    table.append(("p3", "x"))
    table[2] = ("p1", "again")
    with pytest.raises(raw.DuplicateId, match="adapter my_layout record 3"):
        raw.read_pairs(root, adapter=my_layout)
    raw.write_annotations(list(my_layout(root))[:2], root)
    assert len(raw.read_pairs(root)) == 2


CSV_HEADER = "pair_id,image_a,image_b,source,item_id,text,category,ambiguous\n"


def test_csv_layout_builds_like_jsonl(tmp_path, capsys):
    from diffcap_bench.cli import main as cli_main

    root = make_raw(tmp_path / "raw")
    (root / "annotations.jsonl").unlink()
    (root / "annotations.csv").write_text(
        CSV_HEADER
        + "p1,images/p1_a.png,images/p1_b.png,web,a,\"A ball, red, appears.\",object,false\n"
        + "p1,images/p1_a.png,images/p1_b.png,web,b,Slightly darker.,image_property,yes\n"
        + "p2,images/p2_a.png,images/p2_b.png,advertisement,a,The sign changed.,text_symbol,\n",
        encoding="utf-8")
    pairs = raw.read_pairs(root, adapter=raw.items_csv_adapter)
    assert [(p.pair_id, len(p.differences)) for p in pairs] == [("p1", 2), ("p2", 1)]
    assert pairs[0].differences[0]["text"] == "A ball, red, appears." and pairs[0].differences[1]["ambiguous"]
    assert cli_main(["build", str(root), str(tmp_path / "out"), "--layout", "csv", "--quiet"]) == 0
    assert "2 pairs, 3 items (1 ambiguous)" in capsys.readouterr().out


def test_csv_layout_errors_name_the_csv_line(tmp_path):
    root = make_raw(tmp_path / "raw")
    (root / "annotations.csv").write_text(
        CSV_HEADER
        + "p1,images/p1_a.png,images/p1_b.png,web,a,A ball appears.,object,false\n"
        + "p2,images/p2_a.png,images/p2_b.png,web,a,Odd.,colour,false\n", encoding="utf-8")
    with pytest.raises(raw.UnknownCategory, match=r"annotations\.csv line 3, field 'differences\[0\]\.category'"):
        raw.read_pairs(root, adapter=raw.items_csv_adapter)
