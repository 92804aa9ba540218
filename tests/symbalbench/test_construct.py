"""Construction: exact 2x2 counts for a target V (property-based), insertion, row choice."""
import re

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symbalbench.construct import (Counts, Refusal, build_rows, choose_counts, cramers_v, insert_sentence,
                                   scenario_rng, sentence_boundaries)


def brute_force_best(n1, n0, e1, e0, target):
    """Smallest |V - target| over every integer table the constraints allow."""
    best = np.inf
    for a in range(0, e1 + 1):
        for c in range(0, e0 + 1):
            v = cramers_v(a, n1 - a, c, n0 - c)
            if (a + c) not in (0, n1 + n0):
                best = min(best, abs(v - target))
    return best


@st.composite
def margins(draw, max_n=4000):
    n1 = draw(st.integers(1, max_n // 4))
    n0 = draw(st.integers(1, max_n))
    e1 = draw(st.integers(0, n1))
    e0 = draw(st.integers(0, n0))
    target = draw(st.floats(0.05, 0.95))
    return n1, n0, e1, e0, target


@settings(max_examples=300, deadline=None)
@given(margins())
def test_counts_hit_target_within_tolerance_or_refuse_with_reason(m):
    n1, n0, e1, e0, target = m
    got = choose_counts(n1, n0, e1, e0, target)
    if isinstance(got, Refusal):
        # A refusal says why: nothing eligible, or the closest reachable V (which is out of tolerance).
        m = re.match(r"closest reachable V is ([0-9.]+)", got.reason)
        assert m or "nothing to insert" in got.reason, got.reason
        if m:
            assert abs(float(m.group(1)) - target) > 0.02 - 5e-4
    else:
        assert isinstance(got, Counts)
        assert got.n11 + got.n10 == n1 and got.n01 + got.n00 == n0
        assert 0 <= got.n11 <= e1 and 0 <= got.n01 <= e0
        assert got.achieved_v == pytest.approx(cramers_v(got.n11, got.n10, got.n01, got.n00))
        assert abs(got.achieved_v - target) <= 0.02


@settings(max_examples=150, deadline=None)
@given(margins(max_n=60))
def test_refusal_only_when_no_integer_table_reaches_the_target(m):
    n1, n0, e1, e0, target = m
    got = choose_counts(n1, n0, e1, e0, target)
    best = brute_force_best(n1, n0, e1, e0, target)
    if isinstance(got, Refusal):
        assert best > 0.02 - 1e-12
    else:
        assert abs(got.achieved_v - target) <= max(best, 0.005) + 1e-12


def test_default_grid_targets_reached_on_seed_sized_margins():
    # 4349 records, v in 3% - 20% of them, t absent from 90% of the v-records.
    for n1 in (130, 400, 870):
        for target in (0.3, 0.6, 0.9):
            got = choose_counts(n1, 4349 - n1, int(n1 * 0.9), 4000 - n1, target)
            assert isinstance(got, Counts) and abs(got.achieved_v - target) <= 0.005


def test_unreachable_high_target_is_refused_with_max_v():
    got = choose_counts(200, 4000, 100, 3900, 0.9)  # half of the v-images already contain t
    assert isinstance(got, Refusal)
    assert "max V with 100 of 200 v-records eligible is 0.698" in got.reason


def test_prefers_the_most_v_records_asserting_t():
    got = choose_counts(100, 900, 100, 900, 0.9)
    assert got.n11 >= 90


def test_sentence_boundaries_and_insertion_spans():
    cap = "A man rides a horse. A dog runs!"
    assert sentence_boundaries(cap) == [0, 21, len(cap)]
    for at in sentence_boundaries(cap):
        new, s, e = insert_sentence(cap, "There is a cat.", at)
        assert new[s:e] == "There is a cat."
        assert new[:s].rstrip() + " " + new[e:].lstrip() == cap or new.replace("There is a cat.", "").split() == cap.split()


def test_insertion_at_end_adds_full_stop_to_unpunctuated_caption():
    new, s, e = insert_sentence("a dog on a couch  ", "A cat is here.", len("a dog on a couch  "))
    assert new == "a dog on a couch. A cat is here." and new[s:e] == "A cat is here."


def _toy(n=400, seed=0):
    rng = np.random.default_rng(seed)
    vp = rng.random(n) < 0.2
    el = rng.random(n) < 0.9
    caps = pa.array([f"Caption number {i}. Second sentence." for i in range(n)])
    bounds = [sentence_boundaries(c) for c in caps.to_pylist()]
    return caps, bounds, vp, el


def test_build_rows_inserts_exactly_the_counts_only_in_eligible_rows():
    caps, bounds, vp, el = _toy()
    counts = choose_counts(int(vp.sum()), int((~vp).sum()), int((vp & el).sum()), int((~vp & el).sum()), 0.6)
    out = build_rows(caps, bounds, vp, el, counts, ["A cat is here.", "There is a cat."], scenario_rng(0, "x"))
    ins = out.inserted
    assert int((ins & vp).sum()) == counts.n11 and int((ins & ~vp).sum()) == counts.n01
    assert not (ins & ~el).any()
    new = out.captions.to_pylist()
    old = caps.to_pylist()
    for i in range(len(old)):
        if ins[i]:
            assert new[i][out.span_start[i]:out.span_end[i]] in ("A cat is here.", "There is a cat.")
            assert out.template_index[i] in (0, 1)
        else:
            assert new[i] == old[i] and out.span_start[i] == -1 and out.template_index[i] == -1


def test_build_rows_same_seed_same_rows_other_seed_other_rows():
    caps, bounds, vp, el = _toy()
    counts = choose_counts(int(vp.sum()), int((~vp).sum()), int((vp & el).sum()), int((~vp & el).sum()), 0.3)
    run = lambda seed, sid: build_rows(caps, bounds, vp, el, counts, ["S1.", "S2."], scenario_rng(seed, sid))
    a, b, c = run(1, "s"), run(1, "s"), run(2, "s")
    assert a.captions.equals(b.captions) and np.array_equal(a.inserted, b.inserted)
    assert not np.array_equal(a.inserted, c.inserted)
    assert not np.array_equal(a.inserted, run(1, "other").inserted)


def test_preferred_rows_are_used_first():
    caps, bounds, vp, el = _toy(n=1000, seed=3)
    prefer = np.random.default_rng(9).random(1000) < 0.6
    counts = choose_counts(int(vp.sum()), int((~vp).sum()), int((vp & el).sum()), int((~vp & el).sum()), 0.3)
    out = build_rows(caps, bounds, vp, el, counts, ["S."], scenario_rng(0, "p"), prefer=prefer)
    for side in (vp, ~vp):
        chosen = out.inserted & side
        pool = el & side & prefer
        if chosen.sum() <= pool.sum():
            assert not (chosen & ~prefer).any()
        else:  # every preferred row used before any other
            assert (pool <= chosen).all()
