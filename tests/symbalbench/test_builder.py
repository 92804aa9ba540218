"""Builder: Hub-ready folder, determinism, refusals, both variants, CLI build."""
import hashlib
import json

import pyarrow.parquet as pq
import pytest
import yaml

from symbalbench.base.coco import load_coco
from symbalbench.base.manifest import load_manifest
from symbalbench.base.mimic import load_mimic
from symbalbench.builder import SymbalBenchBuilder
from symbalbench.cli import main as cli_main
from symbalbench.fixtures import make_coco, make_mimic
from symbalbench.grid import SAMPLE_GRID, make_grid
from symbalbench.store import load


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    root = tmp_path_factory.mktemp("bases")
    return make_coco(root / "coco", 150, seed=2), make_mimic(root / "mimic", 150, seed=2)


def _digest(folder):
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _build(bases, out, seed=0, images="embed", grid=SAMPLE_GRID):
    coco, mimic = bases
    return SymbalBenchBuilder(make_grid(grid), seed=seed, images=images, progress=False).build(
        out, load_coco(coco), load_mimic(mimic))


def test_build_writes_hub_ready_folder_with_configs(bases, tmp_path):
    report = _build(bases, tmp_path / "out")
    out = tmp_path / "out"
    assert report.n_scenarios == 24 and not report.refused
    card = (out / "README.md").read_text()
    front = yaml.safe_load(card.split("---")[1])
    names = [c["config_name"] for c in front["configs"]]
    assert names == ["scenarios", "natural", "medical", "images"]
    for c in front["configs"]:
        paths = c["data_files"][0]["path"]
        for p in [paths] if isinstance(paths, str) else paths:
            assert (out / p).is_file()
    assert "SymbalBench 1.0.0" in card and "Release notes" in card and "$" not in card.split("---", 2)[2]
    info = json.loads((out / "build_info.json").read_text())
    assert info["version"] == SymbalBenchBuilder.VERSION and info["n_scenarios"] == 24


def test_same_seed_same_bytes_other_seed_other_bytes(bases, tmp_path):
    _build(bases, tmp_path / "a", seed=7)
    _build(bases, tmp_path / "b", seed=7)
    _build(bases, tmp_path / "c", seed=8)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")
    assert _digest(tmp_path / "a")["data/natural-00000-of-00001.parquet"] != \
        _digest(tmp_path / "c")["data/natural-00000-of-00001.parquet"]


def test_domain_tables_sorted_by_scenario_with_contiguous_ranges(bases, tmp_path):
    _build(bases, tmp_path / "out")
    scen = pq.read_table(tmp_path / "out" / "data" / "scenarios.parquet").to_pylist()
    for domain in ("natural", "medical"):
        rows = pq.read_table(tmp_path / "out" / "data" / f"{domain}-00000-of-00001.parquet",
                             columns=["scenario_id"]).column("scenario_id").to_pylist()
        mine = [s for s in scen if s["domain"] == domain]
        assert [s["scenario_id"] for s in mine] == sorted(s["scenario_id"] for s in mine)
        assert rows == sorted(rows)
        for s in mine:
            assert set(rows[s["row_start"]:s["row_end"]]) == {s["scenario_id"]}
            assert s["n_rows"] == 150 and s["n_inserted"] == s["n11"] + s["n01"]


def test_images_stored_once_and_rows_refer_to_them(bases, tmp_path):
    _build(bases, tmp_path / "out")
    images = pq.read_table(tmp_path / "out" / "data" / "images.parquet")
    assert images.num_rows == 300 and len(set(images.column("image_id").to_pylist())) == 300
    assert all(x["bytes"] for x in images.column("image").to_pylist())


def test_reference_mode_stores_paths_and_load_reads_from_base(bases, tmp_path):
    _build(bases, tmp_path / "out", images="reference")
    bench = load(tmp_path / "out")
    row = bench.dataset(bench.scenario_ids[-1])[0]
    img = bench.image(row["image"])
    assert img.size == (64, 64)  # synthetic radiograph read from the MIMIC folder
    assert all(x["bytes"] is None for x in pq.read_table(tmp_path / "out" / "data" / "images.parquet")
               .column("image").to_pylist())


def test_unreachable_targets_are_refused_with_reason_not_built(bases, tmp_path):
    grid = {"strengths": {"extreme": 0.99}, "tolerance": 0.001,
            "natural": {"features_per_size": 1, "draws": 1, "samplings": ["adversarial"], "min_support": 10},
            "medical": None}
    report = _build(bases, tmp_path / "out", grid=grid)
    built = pq.read_table(tmp_path / "out" / "data" / "scenarios.parquet").num_rows
    assert built == report.n_scenarios == 0 and len(report.refused) == 2
    assert all("closest reachable V is 1.000 (target 0.99" in r.reason for r in report.refused)
    assert "Refused datasets" in (tmp_path / "out" / "README.md").read_text()


def test_failed_build_leaves_previous_output(bases, tmp_path):
    _build(bases, tmp_path / "out")
    before = _digest(tmp_path / "out")
    coco, _ = bases
    with pytest.raises(Exception):
        SymbalBenchBuilder(make_grid(SAMPLE_GRID), images="embed", progress=False).build(
            tmp_path / "out", load_coco(coco), load_coco(coco))  # a natural base given as medical
    assert _digest(tmp_path / "out") == before


def test_cli_build_from_coco_and_manifest(bases, tmp_path, capsys):
    coco, mimic = bases
    grid = tmp_path / "grid.yaml"
    grid.write_text(yaml.safe_dump(SAMPLE_GRID))
    rc = cli_main(["build", "--coco", str(coco), "--mimic", str(mimic), "--out", str(tmp_path / "o"),
                   "--grid", str(grid), "--seed", "3"])
    assert rc == 0 and "built 24 datasets" in capsys.readouterr().out
    # the generic manifest path: a manifest written from the COCO base builds the same natural data
    man = tmp_path / "m.jsonl"
    with open(man, "w") as f:
        for r in load_coco(coco).records():
            f.write(json.dumps({"record_id": r.record_id, "image": r.image, "caption": r.caption,
                                "references": r.references, "labels": r.labels, "label_area": r.label_area}) + "\n")
    rc = cli_main(["build", "--manifest", str(man), "--manifest-root", str(coco), "--out", str(tmp_path / "m"),
                   "--grid", str(grid), "--seed", "3"])
    assert rc == 0
    a = pq.read_table(tmp_path / "o" / "data" / "natural-00000-of-00001.parquet")
    b = pq.read_table(tmp_path / "m" / "data" / "natural-00000-of-00001.parquet")
    assert a.equals(b)


def test_cli_build_bad_input_exits_2_naming_the_file(tmp_path, capsys):
    rc = cli_main(["build", "--coco", str(tmp_path), "--out", str(tmp_path / "o")])
    assert rc == 2 and str(tmp_path) in capsys.readouterr().err


def test_sharded_build_verifies_and_loads_across_shards(bases, tmp_path):
    from symbalbench.verify import verify

    coco, mimic = bases
    report = SymbalBenchBuilder(make_grid(SAMPLE_GRID), images="embed", progress=False, shard_rows=1000).build(
        tmp_path / "out", load_coco(coco), load_mimic(mimic))
    shards = sorted(p.name for p in (tmp_path / "out" / "data").glob("natural-*.parquet"))
    assert len(shards) == 3 and shards[0] == "natural-00000-of-00003.parquet"
    assert [f for f in report.files if "natural" in f] == [f"data/{s}" for s in shards]
    assert verify(tmp_path / "out").ok
    bench = load(tmp_path / "out")
    for sid in bench.scenario_ids:
        ds = bench.dataset(sid)
        assert len(ds) == 150 and set(ds["scenario_id"]) == {sid}


def test_cli_coco_ids_file_selects_images(bases, tmp_path, capsys):
    coco, _ = bases
    ids = [int(r) for r in load_coco(coco).table.column("record_id").to_pylist()[:60]]
    f = tmp_path / "ids.txt"
    f.write_text("# chosen images\n" + "\n".join(map(str, ids)) + "\n")
    grid = tmp_path / "g.json"
    grid.write_text(json.dumps({"medical": None, "natural": {"features_per_size": 1, "draws": 1, "min_support": 5,
                                                             "samplings": ["popular"]}}))
    assert cli_main(["build", "--coco", str(coco), "--coco-ids", str(f), "--grid", str(grid),
                     "--out", str(tmp_path / "o")]) == 0
    rows = pq.read_table(tmp_path / "o" / "data" / "scenarios.parquet").column("n_rows").to_pylist()
    assert rows and set(rows) == {60}
    f.write_text("12\nabc\n")
    assert cli_main(["build", "--coco", str(coco), "--coco-ids", str(f), "--out", str(tmp_path / "p")]) == 2
    assert "line 2: 'abc' is not an image id" in capsys.readouterr().err


def test_manifest_base_with_its_own_label_vocabulary(tmp_path):
    from PIL import Image

    rng = __import__("numpy").random.default_rng(0)
    names = ["widget", "gizmo", "sprocket", "doohickey"]
    (tmp_path / "img").mkdir()
    Image.new("RGB", (8, 8)).save(tmp_path / "img" / "x.png")
    with open(tmp_path / "m.jsonl", "w") as f:
        for i in range(300):
            labels = sorted({names[int(k)] for k in rng.integers(0, 4, size=int(rng.integers(1, 3)))})
            area = {lab: float(rng.uniform(0.01, 0.05) if lab in ("widget", "gizmo") else rng.uniform(0.3, 0.6))
                    for lab in labels}
            f.write(json.dumps({"record_id": f"r{i:03d}", "image": "img/x.png", "caption": "A thing on a table.",
                                "labels": labels, "label_area": area}) + "\n")
    grid = {"natural": {"features_per_size": 1, "draws": 1, "min_support": 10, "samplings": ["popular"]},
            "medical": None, "strengths": {"medium": 0.6}}
    report = SymbalBenchBuilder(make_grid(grid), progress=False).build(
        tmp_path / "o", load_manifest(tmp_path / "m.jsonl"))
    scen = pq.read_table(tmp_path / "o" / "data" / "scenarios.parquet").to_pylist()
    assert len(scen) == 2 and not report.refused
    assert {s["visual_feature"] for s in scen} <= set(names) and {s["text_error"] for s in scen} <= set(names)
    row = next(r for r in load(tmp_path / "o").dataset(scen[0]["scenario_id"]) if r["inserted"])
    assert scen[0]["text_error"] in row["caption"][row["span_start"]:row["span_end"]]
