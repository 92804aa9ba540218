"""The builder writes a Hub-ready folder: Parquet shards with embedded images + a card."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from diffcap_bench import CATEGORIES, FEATURES
from diffcap_bench.builder import DiffCapBuilder, DiffCapConfig, iter_rows
from diffcap_bench.cli import main as cli_main
from diffcap_bench.synth import generate


@pytest.fixture(scope="module")
def raw_dir(tmp_path_factory) -> Path:
    return generate(tmp_path_factory.mktemp("raw") / "raw", n=12, seed=5, show_progress=False)


@pytest.fixture(scope="module")
def built(raw_dir, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("built") / "out"
    DiffCapBuilder(show_progress=False).build(raw_dir, out)
    return out


def front_matter(readme: Path) -> dict:
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


def test_version_has_release_notes():
    assert DiffCapBuilder.VERSION in DiffCapBuilder.RELEASE_NOTES


def test_output_folder_layout(built):
    files = sorted(p.relative_to(built).as_posix() for p in built.rglob("*") if p.is_file())
    assert files == ["README.md", "data/test-00000-of-00001.parquet"]


def test_card_yaml_has_configs_dataset_info_and_metadata(built):
    meta = front_matter(built / "README.md")
    assert meta["configs"] == [{"config_name": "default", "data_files": [{"split": "test", "path": "data/test-*"}]}]
    info = meta["dataset_info"]
    assert info["splits"][0]["name"] == "test" and info["splits"][0]["num_examples"] == 12
    assert info["download_size"] == (built / "data/test-00000-of-00001.parquet").stat().st_size
    names = [f["name"] for f in info["features"]]
    assert names == ["pair_id", "image_a", "image_b", "source", "differences"]
    cat = info["features"][4]["list"][2]["dtype"]["class_label"]["names"]
    assert [cat[i] for i in sorted(cat, key=int)] == list(CATEGORIES)
    assert meta["license"] and meta["task_categories"] == ["image-to-text"]


def test_card_has_dataset_card_sections_layout_and_citation(built):
    body = (built / "README.md").read_text(encoding="utf-8")
    for heading in ("## Dataset Summary", "## Dataset Structure", "### Data Fields", "## Dataset Creation",
                    "### Raw layout read by the builder", "### Limitations and Biases", "### Citation Information"):
        assert heading in body
    assert "arXiv:2605.04503" in body and "annotations.jsonl" in body and "**12 pairs**" in body
    assert "$" not in body.replace("$$", "")  # every placeholder was filled


def test_parquet_carries_features_and_embedded_image_bytes(built, raw_dir):
    table = pq.read_table(built / "data/test-00000-of-00001.parquet")
    hf = json.loads(table.schema.metadata[b"huggingface"])
    assert hf["info"]["features"] == FEATURES.to_dict()
    rows = list(iter_rows(built))
    lines = [json.loads(x) for x in (raw_dir / "annotations.jsonl").read_text().splitlines()]
    assert [r["pair_id"] for r in rows] == [x["pair_id"] for x in lines]  # file order kept
    assert rows[0]["image_a"]["bytes"] == (raw_dir / lines[0]["image_a"]).read_bytes()
    assert rows[0]["differences"][0]["category"] == CATEGORIES.index(lines[0]["differences"][0]["category"])


def test_built_folder_loads_with_datasets(built):
    import diffcap_bench

    ds = diffcap_bench.load(path=str(built))
    assert len(ds) == 12 and ds.features == FEATURES
    img = ds[0]["image_b"]
    assert img.size == (256, 192)
    assert {it.category for r in ds for it in diffcap_bench.row_items(r)} <= set(CATEGORIES)


def test_same_input_same_bytes(raw_dir, built, tmp_path):
    DiffCapBuilder(show_progress=False).build(raw_dir, tmp_path / "again")
    for name in ("README.md", "data/test-00000-of-00001.parquet"):
        assert (tmp_path / "again" / name).read_bytes() == (built / name).read_bytes()


def test_shards_are_named_and_ordered(raw_dir, tmp_path):
    s = DiffCapBuilder(DiffCapConfig(shard_rows=5, row_group_rows=2, show_progress=False)).build(raw_dir, tmp_path / "o")
    assert s.shards == tuple(f"data/test-{i:05d}-of-00003.parquet" for i in range(3))
    assert [pq.read_metadata(tmp_path / "o" / sh).num_rows for sh in s.shards] == [5, 5, 2]
    assert pq.read_metadata(tmp_path / "o" / s.shards[0]).num_row_groups == 3
    import diffcap_bench

    ds = diffcap_bench.load(path=str(tmp_path / "o"))
    assert ds["pair_id"] == sorted(ds["pair_id"]) and len(ds) == 12


def test_failed_build_leaves_previous_output_untouched(raw_dir, built, tmp_path):
    import shutil

    bad = tmp_path / "raw"
    shutil.copytree(raw_dir, bad)
    out = tmp_path / "out"
    shutil.copytree(built, out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    victim = sorted((bad / "images").iterdir())[-1]
    victim.write_bytes(b"not a png")
    with pytest.raises(Exception, match=victim.name):
        DiffCapBuilder(show_progress=False).build(bad, out)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(x.name for x in tmp_path.iterdir()) == ["out", "raw"]  # no temp folder left behind


def test_cli_build_reports_and_bad_input_exits_2(raw_dir, tmp_path, capsys):
    assert cli_main(["build", str(raw_dir), str(tmp_path / "o"), "--quiet", "--license", "apache-2.0"]) == 0
    assert "12 pairs" in capsys.readouterr().out
    assert front_matter(tmp_path / "o" / "README.md")["license"] == "apache-2.0"
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "annotations.jsonl").write_text('{"pair_id": "x"\n')
    assert cli_main(["build", str(tmp_path / "bad"), str(tmp_path / "o2"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "annotations.jsonl line 1: malformed JSON" in err and not (tmp_path / "o2").exists()


def test_refuses_to_replace_a_foreign_folder_or_the_input(raw_dir, tmp_path):
    from benchcore.errors import InputError

    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("precious")
    with pytest.raises(InputError, match="exists and is not a built DiffCap-Bench folder"):
        DiffCapBuilder(show_progress=False).build(raw_dir, foreign)
    assert (foreign / "thesis.tex").read_text() == "precious"
    with pytest.raises(InputError, match="would replace the input"):
        DiffCapBuilder(show_progress=False).build(raw_dir, raw_dir.parent)
    with pytest.raises(InputError, match="not a raw DiffCap-Bench folder"):
        generate(foreign, n=1, seed=0, show_progress=False)
    (tmp_path / "empty").mkdir()
    DiffCapBuilder(show_progress=False).build(raw_dir, tmp_path / "empty")  # an empty folder is fine
    assert (tmp_path / "empty" / "README.md").is_file()
