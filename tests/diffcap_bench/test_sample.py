"""The bundled sample: loadable offline from the repo root and from anywhere, rebuildable from its seed."""
from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from PIL import Image

import diffcap_bench
from diffcap_bench import CATEGORIES, FEATURES
from diffcap_bench.synth import make_sample

PKG = Path(diffcap_bench.__file__).resolve().parent


def check_sample(ds) -> None:
    assert len(ds) >= 60
    assert ds.features == FEATURES
    assert isinstance(ds[0]["image_a"], Image.Image) and isinstance(ds[0]["image_b"], Image.Image)
    cats = {CATEGORIES[d["category"]] for row in ds["differences"] for d in row}
    assert cats == set(CATEGORIES)
    assert len(set(ds["source"])) >= 3


def test_load_dataset_from_repo_root(in_repo_root):
    from datasets import load_dataset

    check_sample(load_dataset("diffcap_bench", split="test"))


def test_load_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ds = diffcap_bench.load()
    check_sample(ds)
    items = diffcap_bench.row_items(ds[0])
    assert items and all(i.category in CATEGORIES for i in items)


def test_sample_is_small_and_has_no_loading_script():
    size = sum(p.stat().st_size for p in (PKG / "data").glob("*"))
    assert size < 5_000_000
    assert not (PKG / "diffcap_bench.py").exists()  # datasets >= 4 refuses <name>/<name>.py
    assert sorted(p.name for p in (PKG / "data").iterdir()) == ["test-00000-of-00001.parquet"]


def test_sample_has_about_six_items_per_pair_and_ambiguous_ones():
    rows = pq.read_table(PKG / "data" / "test-00000-of-00001.parquet", columns=["differences"]).to_pylist()
    items = [d for r in rows for d in r["differences"]]
    assert 5.5 <= len(items) / len(rows) <= 7.0
    assert any(d["ambiguous"] for d in items)


def _decoded(folder: Path) -> list:
    rows = pq.read_table(folder / "data" / "test-00000-of-00001.parquet").to_pylist()
    for r in rows:
        for k in ("image_a", "image_b"):
            with Image.open(io.BytesIO(r[k]["bytes"])) as im:
                r[k] = np.asarray(im.convert("RGB"))
    return rows


def _assert_same_content(built: list, committed: list) -> None:
    """Same rows; images equal but for glyph edges (another FreeType may antialias text differently)."""
    assert len(built) == len(committed)
    for b, c in zip(built, committed):
        assert {k: v for k, v in b.items() if not k.startswith("image")} == \
               {k: v for k, v in c.items() if not k.startswith("image")}
        for k in ("image_a", "image_b"):
            assert b[k].shape == c[k].shape, (b["pair_id"], k)
            assert np.mean(np.any(b[k] != c[k], axis=-1)) < 0.01, (b["pair_id"], k)


def test_rebuilding_from_the_seed_gives_the_committed_bytes(tmp_path):
    built = make_sample.build_sample(tmp_path / "built")
    differing = make_sample.differing_files(built)
    recipe = json.loads(make_sample.RECIPE.read_text())
    if recipe["versions"] == make_sample.library_versions():
        assert differing == [], f"rebuilt sample differs from the committed one: {differing}"
    else:
        # other encoder versions (Pillow, zlib, FreeType, pyarrow) may encode the same pixels and
        # rows into other bytes: then the decoded content must still be identical
        _assert_same_content(_decoded(built), _decoded(PKG))
    assert (built / "README.md").read_text() == (PKG / "README.md").read_text()
