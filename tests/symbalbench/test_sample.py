"""The bundled sample is exactly what the code builds from the seeded fixtures."""
import hashlib

from symbalbench.builder import SAMPLE_FILES, build_sample
from symbalbench.store import sample_dir


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_rebuilding_the_sample_gives_the_bundled_bytes(tmp_path):
    report = build_sample(tmp_path / "s")
    assert report.n_scenarios == 24 and not report.refused
    built = sorted(p.name for p in (tmp_path / "s" / "data").iterdir())
    bundled = sorted(p.name for p in (sample_dir() / "data").iterdir())
    assert built == bundled
    for name in built:
        assert _sha(tmp_path / "s" / "data" / name) == _sha(sample_dir() / "data" / name), name
    for name in SAMPLE_FILES:
        assert _sha(tmp_path / "s" / name) == _sha(sample_dir() / name), name


def test_sample_covers_domains_strengths_samplings_sizes_and_is_small():
    import pyarrow.parquet as pq

    s = pq.read_table(sample_dir() / "data" / "scenarios.parquet").to_pylist()
    assert {r["domain"] for r in s} == {"natural", "medical"}
    assert {r["strength"] for r in s} == {"low", "medium", "high"}
    assert {r["sampling"] for r in s if r["domain"] == "natural"} == {"random", "popular", "adversarial"}
    assert {r["size"] for r in s if r["domain"] == "natural"} == {"small", "large"}
    assert all(abs(r["achieved_v"] - r["target_v"]) <= 0.02 for r in s)
    size = sum(p.stat().st_size for p in (sample_dir() / "data").iterdir())
    assert size < 3 * 2**20
