"""The bundled sample is exactly what the code builds from the seeded fixtures."""
import hashlib
import io

import numpy as np
import PIL
import pyarrow
import pyarrow.parquet as pq
from PIL import Image

from symbalbench.builder import SAMPLE_FILES, build_sample
from symbalbench.store import sample_dir

# The encoders that wrote the committed sample (update when regenerating it). With other
# versions the bytes may legitimately differ (JPEG encoder, Parquet writer): then the
# content must still match.
SAMPLE_ENCODERS = {"pyarrow": "26.0.1", "pillow": "12.3.0"}


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _same_encoders() -> bool:
    return SAMPLE_ENCODERS == {"pyarrow": pyarrow.__version__, "pillow": PIL.__version__}


def _assert_same_content(built, bundled):
    a, b = pq.read_table(built), pq.read_table(bundled)
    if "image" not in a.column_names or not pyarrow.types.is_struct(a.schema.field("image").type):
        assert a.equals(b), built.name  # domain tables hold image ids, not image bytes
        return
    assert a.drop_columns(["image"]).equals(b.drop_columns(["image"])), built.name
    for x, y in zip(a.column("image").to_pylist(), b.column("image").to_pylist()):
        px, py = (np.asarray(Image.open(io.BytesIO(v["bytes"])).convert("L"), dtype=int) for v in (x, y))
        assert px.shape == py.shape and np.abs(px - py).mean() < 2.0, built.name


def test_rebuilding_the_sample_gives_the_bundled_bytes(tmp_path):
    report = build_sample(tmp_path / "s")
    assert report.n_scenarios == 24 and not report.refused
    built = sorted(p.name for p in (tmp_path / "s" / "data").iterdir())
    bundled = sorted(p.name for p in (sample_dir() / "data").iterdir())
    assert built == bundled
    for name in built:
        if _same_encoders():
            assert _sha(tmp_path / "s" / "data" / name) == _sha(sample_dir() / "data" / name), name
        else:
            _assert_same_content(tmp_path / "s" / "data" / name, sample_dir() / "data" / name)
    for name in SAMPLE_FILES:
        assert _sha(tmp_path / "s" / name) == _sha(sample_dir() / name), name


def test_sample_covers_domains_strengths_samplings_sizes_and_is_small():
    s = pq.read_table(sample_dir() / "data" / "scenarios.parquet").to_pylist()
    assert {r["domain"] for r in s} == {"natural", "medical"}
    assert {r["strength"] for r in s} == {"low", "medium", "high"}
    assert {r["sampling"] for r in s if r["domain"] == "natural"} == {"random", "popular", "adversarial"}
    assert {r["size"] for r in s if r["domain"] == "natural"} == {"small", "large"}
    assert all(abs(r["achieved_v"] - r["target_v"]) <= 0.02 for r in s)
    size = sum(p.stat().st_size for p in (sample_dir() / "data").iterdir())
    assert size < 3 * 2**20
