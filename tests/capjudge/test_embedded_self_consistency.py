"""The embedded judge recognises every item of the bundled DiffCap sample stated verbatim.

A prediction that repeats an item's own text can only be correct: a failure here is a
rule of the judge misfiring (e.g. "both arms" once read as "both images are the same")."""
import pytest

import diffcap_bench
from capjudge import DifferenceCase
from capjudge.embedded import EmbeddedJudge
from diffcap_bench.schema import row_items


@pytest.fixture(scope="module")
def sample_items():
    ds = diffcap_bench.load().select_columns(["pair_id", "differences"])
    return [(row["pair_id"], row_items(row)) for row in ds]


def test_each_key_item_stated_verbatim_is_judged_correct_for_that_item(sample_items):
    cases, expected = [], []
    for pair_id, items in sample_items:
        for it in items:
            if not it.ambiguous:
                cases.append(DifferenceCase.make(items, it.text, f"{pair_id}/{it.id}"))
                expected.append(it.id)
    results = EmbeddedJudge().judge_differences(cases)
    misses = [(case.case_id, [(c.label, c.item) for c in r.claims])
              for case, want, r in zip(cases, expected, results)
              if not any(c.label == "correct" and c.item == want for c in r.claims)]
    assert len(cases) > 300
    assert misses == []


def test_both_arms_is_not_a_statement_about_both_images():
    from capjudge.embedded.matching import analyze

    assert not analyze("The person is standing with both arms down in the after image.").shared
    assert analyze("Both images show a kitchen.").shared
