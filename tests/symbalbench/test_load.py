"""Loading: symbalbench.load() anywhere offline, zero-copy slices, variants, images, load_dataset."""
import pytest

import symbalbench
from symbalbench.store import sample_dir


@pytest.fixture(scope="module")
def bench():
    return symbalbench.load()


def test_load_works_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    b = symbalbench.load()
    assert len(b) == 24 and b.root == sample_dir()


def test_scenarios_table_columns(bench):
    cols = set(bench.scenarios.column_names)
    assert {"scenario_id", "domain", "text_error", "visual_feature", "sampling", "size", "strength", "target_v",
            "achieved_v", "n_rows", "n_inserted", "n_v_present", "row_start", "row_end"} <= cols
    assert bench.scenario_ids == list(bench.scenarios["scenario_id"])


def test_dataset_is_a_contiguous_zero_copy_slice(bench):
    for sid in bench.scenario_ids:
        s = bench.scenario(sid)
        ds = bench.dataset(sid, variant="reference_based")
        assert len(ds) == s["n_rows"] and set(ds["scenario_id"]) == {sid}
        assert ds._indices is None  # a slice of the Arrow table, no indices mapping
        assert sum(ds["inserted"]) == s["n_inserted"] and sum(ds["v_present"]) == s["n_v_present"]


def test_variants_share_rows_and_differ_by_references(bench):
    sid = bench.scenario_ids[0]
    free = bench.dataset(sid)
    based = bench.dataset(sid, variant="reference_based")
    assert "references" not in free.column_names and "references" in based.column_names
    assert free["caption"] == based["caption"]
    with pytest.raises(ValueError, match="variant"):
        bench.dataset(sid, variant="other")
    with pytest.raises(KeyError, match="unknown scenario_id"):
        bench.dataset("nope")


def test_row_columns_and_spans(bench):
    sid = next(s for s in bench.scenario_ids if s.startswith("med-"))
    row = next(r for r in bench.dataset(sid) if r["inserted"])
    assert row["caption"][row["span_start"]:row["span_end"]]
    assert row["template_id"].startswith(bench.scenario(sid)["text_error"].replace(" ", "_"))
    assert bench.scenario(sid)["text_error"] not in row["labels"]


def test_image_comes_from_the_images_table(bench):
    ds = bench.dataset(bench.scenario_ids[0])
    img = bench.image(ds[0]["image"])
    assert img.size == (96, 72)
    med = bench.dataset(bench.scenario_ids[-1])
    assert bench.image(med[0]["image"]).mode == "L"


@pytest.mark.parametrize("config,rows", [("scenarios", 24), ("natural", 3600), ("medical", 960), ("images", 360)])
def test_load_dataset_from_repo_root_offline(in_repo_root, config, rows):
    from datasets import load_dataset

    ds = load_dataset("symbalbench", config, split="test")
    assert ds.num_rows == rows


def test_package_python_files_do_not_confuse_load_dataset(in_repo_root):
    from pathlib import Path

    from datasets import load_dataset

    assert not Path("symbalbench/symbalbench.py").exists()
    assert list(Path("symbalbench").glob("*.py"))  # the package's modules sit next to the card
    ds = load_dataset("symbalbench", split="test")  # default config: scenarios
    assert "achieved_v" in ds.column_names


def test_large_builds_are_memory_mapped_and_still_sliced(monkeypatch):
    import symbalbench.store as store

    monkeypatch.setattr(store, "IN_MEMORY_BYTES", 0)  # force the from_parquet (memory-mapped) path
    b = symbalbench.load()
    sid = b.scenario_ids[5]
    ds = b.dataset(sid)
    assert ds._indices is None and len(ds) == b.scenario(sid)["n_rows"] and set(ds["scenario_id"]) == {sid}
    assert b.domain_table("natural").cache_files  # backed by an Arrow file on disk
