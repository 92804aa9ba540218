"""The default 420 grid, custom grid files, and the sampling strategies of t given v."""
import json

import pytest

from benchcore.errors import InputError
from symbalbench.base.coco import load_coco
from symbalbench.base.mimic import load_mimic
from symbalbench.construct import domain_features, feature_index, max_reachable_v
from symbalbench.fixtures import make_coco, make_mimic
from symbalbench.grid import SAMPLE_GRID, load_grid, make_grid, plan_medical, plan_natural, size_strata
from symbalbench.templates import COCO_NAMES


@pytest.fixture(scope="module")
def natural_fi(tmp_path_factory):
    base = load_coco(make_coco(tmp_path_factory.mktemp("coco"), 1200, seed=5, image_size=(16, 12)))
    return feature_index(base.table, domain_features("natural", base.table))


@pytest.fixture(scope="module")
def medical_fi(tmp_path_factory):
    base = load_mimic(make_mimic(tmp_path_factory.mktemp("mimic"), 600, seed=5, image_size=16))
    return feature_index(base.table, domain_features("medical", base.table))


def test_default_grid_is_360_natural_plus_60_medical():
    g = make_grid()
    assert g.expected_size() == 420
    assert g.strengths == {"low": 0.3, "medium": 0.6, "high": 0.9}
    assert make_grid({"medical": None}).expected_size() == 360
    assert make_grid({"natural": None}).expected_size() == 60


def test_default_grid_expands_to_420_on_seed_like_bases(natural_fi, medical_fi):
    nat, ref_n = plan_natural(natural_fi, make_grid(), seed=0)
    med, ref_m = plan_medical(medical_fi, make_grid(), seed=0)
    assert (len(nat), len(med)) == (360, 60) and not ref_n and not ref_m
    assert len({p.scenario_id for p in nat + med}) == 420
    for key, n in (("size", 2), ("sampling", 3), ("strength", 3), ("draw", 2)):
        assert len({getattr(p, key) for p in nat}) == n
    assert len({(p.text_error, p.visual_feature) for p in med}) == 20
    assert all(p.text_error != p.visual_feature for p in nat)
    assert all(p.sampling is None and p.size is None for p in med)


def test_size_strata_split_by_median_label_area(natural_fi):
    strata, threshold = size_strata(natural_fi, COCO_NAMES, make_grid().natural)
    med = natural_fi.median_area()
    assert strata["small"] and strata["large"]
    assert all(med[j] < threshold for j in strata["small"]) and all(med[j] >= threshold for j in strata["large"])
    fixed, th = size_strata(natural_fi, COCO_NAMES, dict(make_grid().natural, size_threshold=0.1))
    assert th == 0.1 and all(med[j] < 0.1 for j in fixed["small"])


def test_popular_sampling_takes_the_most_frequent_feasible_t(natural_fi):
    plans, _ = plan_natural(natural_fi, make_grid(), seed=0)
    counts = natural_fi.counts()
    col = natural_fi.column
    for p in plans:
        if p.sampling == "popular" and p.draw == 0 and p.strength == "high":
            v = col[p.visual_feature]
            n1 = int(counts[v])
            blocked = ((natural_fi.present | natural_fi.uncertain) & natural_fi.present[:, v][:, None]).sum(axis=0)
            feasible = [col[x] for x in COCO_NAMES if x != p.visual_feature and
                        max_reachable_v(n1, len(natural_fi.present) - n1, n1 - int(blocked[col[x]])) >= 0.88]
            assert counts[col[p.text_error]] == max(counts[j] for j in feasible)


def test_adversarial_sampling_takes_t_cooccurring_most_with_v(natural_fi):
    plans, _ = plan_natural(natural_fi, make_grid(), seed=0)
    col = natural_fi.column
    pres = natural_fi.present
    checked = 0
    for p in plans:
        if p.sampling == "adversarial" and p.strength == "low":
            v = col[p.visual_feature]
            cooc = (pres[:, v][:, None] & pres).sum(axis=0)
            others = [p2 for p2 in plans if p2.sampling == "random" and p2.visual_feature == p.visual_feature]
            # the adversarial t co-occurs with v at least as often as any random draw
            assert all(cooc[col[p.text_error]] >= cooc[col[o.text_error]] for o in others)
            checked += 1
    assert checked == 40


def test_random_sampling_is_seeded(natural_fi):
    pick = lambda seed: [p.text_error for p in plan_natural(natural_fi, make_grid(), seed)[0] if p.sampling == "random"]
    assert pick(0) == pick(0)
    assert pick(0) != pick(1)


def test_medical_pairs_each_device_with_its_most_reachable_findings(medical_fi):
    plans, _ = plan_medical(medical_fi, make_grid(), seed=0)
    pairs = {(p.visual_feature, p.text_error) for p in plans}
    for device in make_grid().medical["devices"]:
        assert sum(d == device for d, _ in pairs) == 4


def test_sample_grid_has_all_strengths_samplings_sizes(natural_fi, medical_fi):
    g = make_grid(SAMPLE_GRID)
    nat, _ = plan_natural(natural_fi, g, 0)
    med, _ = plan_medical(medical_fi, g, 0)
    assert len(nat) + len(med) == 24
    assert {p.sampling for p in nat} == {"random", "popular", "adversarial"} and {p.size for p in nat} == {"small", "large"}


def test_custom_grid_from_yaml_and_json(tmp_path, natural_fi):
    y = tmp_path / "g.yaml"
    y.write_text("strengths: {weak: 0.2, strong: 0.8}\nnatural:\n  sizes: [large]\n  features_per_size: 2\n"
                 "  samplings: [popular]\n  draws: 1\nmedical: null\n")
    g = load_grid(y)
    assert g.expected_size() == 4 and g.medical is None
    plans, _ = plan_natural(natural_fi, g, 0)
    assert sorted({p.strength for p in plans}) == ["strong", "weak"] and len(plans) == 4
    j = tmp_path / "g.json"
    j.write_text(json.dumps({"medical": {"pairs": [["edema", "pacemaker"]]}, "natural": None}))
    assert load_grid(j).expected_size() == 3


@pytest.mark.parametrize("text,message", [
    ("strengths: {low: 1.5}", "strength 'low' = 1.5 must be a number in"),
    ("natural: {samplings: [weird]}", "samplings"),
    ("natural: {featurs_per_size: 3}", "unknown key 'featurs_per_size'"),
    ("medical: {findings: [cancer]}", r"unknown \['cancer'\]"),
    ("medical: {pairs: [[pacemaker, edema]]}", r"pairs\[0\]"),
    ("- just a list", "must hold a mapping"),
    ("a: [", "cannot parse grid file"),
])
def test_bad_grid_files_name_the_file_and_key(tmp_path, text, message):
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(InputError, match=message) as e:
        load_grid(p)
    assert "bad.yaml" in str(e.value)


def test_rare_device_is_refused_with_a_reason(medical_fi):
    g = make_grid({"natural": None, "medical": {"min_support": 10_000}})
    plans, refused = plan_medical(medical_fi, g, 0)
    assert not plans and len(refused) == 60 and "min_support" in refused[0].reason
