"""The synthetic MIMIC-format base of the seed's size supports all 60 default medical datasets.

Guards the fixture against confounders that push a (device, finding) pair out of reach of
V = 0.9 (the full-scale benchmark must build all 420 datasets)."""
from symbalbench.base.mimic import load_mimic
from symbalbench.builder import SymbalBenchBuilder
from symbalbench.fixtures import make_mimic


def test_seed_size_medical_base_builds_every_default_medical_dataset(tmp_path):
    root = make_mimic(tmp_path / "mimic", n_studies=2233, seed=0, image_size=8)
    report = SymbalBenchBuilder(seed=0, progress=False, card=False).build(tmp_path / "out", medical=load_mimic(root))
    assert [r.reason for r in report.refused] == []
    assert report.n_scenarios == 60
