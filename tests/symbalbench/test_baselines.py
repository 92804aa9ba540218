"""Baselines on small synthetic datasets made here: the association finds (t, v); floors do not."""
import numpy as np
import pytest

from symbalbench.baselines import (DetectorInput, EmbeddingTagger, TaggerDetector, default_vocabulary,
                                   detector_input, make_baseline, phi_matrix, run_detector)

OBJECTS = ["car", "bus", "bench", "person", "bicycle", "umbrella", "cat", "horse"]


def synthetic(t="dog", v="car", n=120, strength=0.9, seed=0):
    """Rows of (captions, references, labels): t asserted mostly where v is present."""
    rng = np.random.default_rng(seed)
    captions, refs, labels = [], [], []
    for _ in range(n):
        labs = sorted(set(rng.choice(OBJECTS, size=2, replace=False)))
        cap = f"A photo with a {labs[0]} and a {labs[1]}."
        insert = (v in labs and rng.random() < strength) or (v not in labs and rng.random() < (1 - strength) * 0.2)
        if insert:
            cap += f" There is also a {t} in the picture."
        captions.append(cap)
        refs.append([f"A {labs[0]} next to a {labs[1]}.", f"Some {labs[1]} and {labs[0]}."])
        labels.append(labs)
    return captions, refs, labels


def as_input(captions, refs, labels, with_refs=True):
    images = [f"img{i}" for i in range(len(captions))]
    table = dict(zip(images, labels))
    return DetectorInput(captions, images, refs if with_refs else None, load_image=table.__getitem__)


def test_reference_diff_finds_the_misalignment_first():
    guesses = make_baseline("reference_diff")(as_input(*synthetic()))
    assert guesses[0] == {"text_error": "dog", "visual_feature": "car"}
    assert 1 <= len(guesses) <= 5  # only positively associated pairs are guessed


def test_reference_diff_refuses_the_reference_free_variant():
    with pytest.raises(ValueError, match="reference_based"):
        make_baseline("reference_diff")(as_input(*synthetic(), with_refs=False))


def test_tagger_hook_with_a_fake_tagger():
    fake_tagger = lambda labels: list(labels)  # the fake loader hands the image's labels as "the image"
    guesses = TaggerDetector(fake_tagger)(as_input(*synthetic(t="bench", v="bus", strength=0.9), with_refs=False))
    assert guesses[0] == {"text_error": "bench", "visual_feature": "bus"}


def test_embedding_tagger_turns_embeddings_into_tags():
    names = ["dog", "car", "bus"]
    text_fn = lambda prompts: np.eye(3)[[names.index(p.split()[-1]) for p in prompts]]
    tagger = EmbeddingTagger(image_fn=lambda img: np.array([0.9, 0.1, 0.5]), text_fn=text_fn, names=names, top_n=2)
    assert tagger(None) == ["dog", "bus"]
    strict = EmbeddingTagger(image_fn=lambda img: np.array([0.9, 0.1, 0.5]), text_fn=text_fn, names=names,
                             top_n=3, threshold=0.6)
    assert strict(None) == ["dog"]


def test_floors_are_deterministic():
    data = as_input(*synthetic())
    a, b = make_baseline("random", seed=1)(data), make_baseline("random", seed=1)(data)
    assert a == b and len(a) == 5
    assert make_baseline("random", seed=2)(data) != a
    assert make_baseline("frequency")(data) == make_baseline("frequency")(data)


def test_frequency_ranks_the_most_co_mentioned_pair_first():
    data = DetectorInput(["A dog and a car.", "A dog, a car and a cat.", "A cat."], ["a", "b", "c"])
    assert make_baseline("frequency", top=1)(data) == [{"text_error": "car", "visual_feature": "dog"}]


def test_no_association_at_zero_strength_ranks_low():
    guesses = make_baseline("reference_diff")(as_input(*synthetic(strength=0.0, seed=3)))
    assert {"text_error": "dog", "visual_feature": "car"} != (guesses[:1] or [None])[0]


def test_unknown_baseline_name():
    with pytest.raises(ValueError, match="choose from"):
        make_baseline("oracle")


def test_phi_matches_cramers_v_of_a_2x2_table():
    a = np.array([1] * 30 + [0] * 70, dtype=bool)[:, None]
    b = np.array([1] * 25 + [0] * 5 + [1] * 10 + [0] * 60, dtype=bool)[:, None]
    n11, n10, n01, n00 = 25, 5, 10, 60
    v = (n11 * n00 - n10 * n01) / np.sqrt(30 * 70 * 35 * 65)
    assert phi_matrix(a, b)[0, 0] == pytest.approx(v)


def test_negated_mentions_are_not_assertions():
    vocab = default_vocabulary()
    assert vocab.find("No pneumothorax. Chest tube in place.") == {"chest tube"}
    assert vocab.find("A man without a hat, a dog without a leash") == {"person", "dog"}


def test_detector_input_reads_only_image_caption_references():
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_dict({
        "scenario_id": ["nat-dog-car"] * 2, "record_id": ["a", "b"], "image": ["x.jpg", "y.jpg"],
        "caption": ["A dog.", "A car."], "references": [["a dog"], ["a car"]], "labels": [["dog"], ["car"]],
        "v_present": [True, False], "inserted": [False, False]})
    data = detector_input(ds)
    assert data.captions == ["A dog.", "A car."] and data.images == ["x.jpg", "y.jpg"]
    assert data.references == [["a dog"], ["a car"]]
    assert set(vars(data)) == {"captions", "images", "references", "load_image"}  # no answer columns
    assert detector_input(ds.remove_columns("references")).references is None


class FakeBench:
    """The three methods run_detector uses, over in-memory datasets."""

    def __init__(self, scenarios):
        import datasets

        self.scenario_ids = list(scenarios)
        self._ds = {sid: datasets.Dataset.from_dict(cols) for sid, cols in scenarios.items()}

    def dataset(self, sid, variant="reference_free"):
        ds = self._ds[sid]
        return ds.remove_columns("references") if variant == "reference_free" else ds

    def image(self, ref):
        raise AssertionError("reference_diff must not open images")


def test_run_detector_over_scenarios_uses_the_detectors_variant():
    pytest.importorskip("datasets")
    caps, refs, labels = synthetic()
    cols = {"image": [f"i{i}" for i in range(len(caps))], "caption": caps, "references": refs, "labels": labels}
    bench = FakeBench({"s1": cols, "s2": {**cols, "caption": ["nothing here"] * len(caps)}})
    out = run_detector(make_baseline("reference_diff"), bench, progress=False)
    assert out["s1"][0] == {"text_error": "dog", "visual_feature": "car"}
    assert "s2" not in out  # no guesses: left out, scored as a miss
