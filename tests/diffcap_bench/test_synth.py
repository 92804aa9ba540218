"""Synthetic generator: deterministic, all categories, ~6 items per pair, items true of the pixels."""
from __future__ import annotations

import copy
import random
from collections import Counter

import numpy as np
import pytest
from PIL import ImageOps

from diffcap_bench import CATEGORIES, SOURCES
from diffcap_bench.cli import main as cli_main
from diffcap_bench.raw import parse_pair
from diffcap_bench.synth import edits as E
from diffcap_bench.synth import generate, make_pair
from diffcap_bench.synth.scene import CELL_H, CELL_W, Entity, Scene, render_scene, slot_center


@pytest.fixture(scope="module")
def records():
    return [make_pair(seed=11, index=i)[0] for i in range(200)]


def files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_same_seed_same_bytes_different_seed_different(tmp_path):
    a = files(generate(tmp_path / "a", n=5, seed=3, show_progress=False))
    b = files(generate(tmp_path / "b", n=5, seed=3, show_progress=False))
    c = files(generate(tmp_path / "c", n=5, seed=4, show_progress=False))
    assert a == b
    assert len(a) == 11 and a["annotations.jsonl"] != c["annotations.jsonl"]


def test_pair_depends_only_on_seed_and_index():
    r1, a1, b1 = make_pair(seed=9, index=7)
    make_pair(seed=9, index=3)
    r2, a2, b2 = make_pair(seed=9, index=7)
    assert r1 == r2 and a1.tobytes() == a2.tobytes() and b1.tobytes() == b2.tobytes()


def test_records_are_valid_annotations(records):
    for r in records:
        parse_pair(r, r["pair_id"])  # raises on any schema problem
    ids = [d["id"] for r in records for d in r["differences"]]
    assert len(ids) == len(set(ids))


def test_every_category_within_ten_pairs(records):
    assert {d["category"] for r in records[:10] for d in r["differences"]} == set(CATEGORIES)
    assert {r["differences"][0]["category"] for r in records} <= set(CATEGORIES)


def test_about_six_items_per_pair_some_ambiguous(records):
    counts = [len(r["differences"]) for r in records]
    assert 5.6 <= np.mean(counts) <= 6.9 and min(counts) >= 2
    items = [d for r in records for d in r["differences"]]
    share = sum(d["ambiguous"] for d in items) / len(items)
    assert 0.04 <= share <= 0.2


def test_sources_spread_mostly_synthetic_2d(records):
    src = Counter(r["source"] for r in records)
    assert set(src) == set(SOURCES)
    assert src.most_common(1)[0][0] == "synthetic_2d"


def test_item_texts_vary(records):
    texts = [d["text"] for r in records for d in r["differences"]]
    assert len(set(texts)) > 0.8 * len(texts)
    first_words = Counter(t.split()[0] for t in texts)
    assert len(first_words) >= 8
    assert all(t[0].isupper() and t.endswith((".", '"')) for t in texts)


def test_cli_synth_writes_raw_folder(tmp_path, capsys):
    assert cli_main(["synth", "--n", "3", "--seed", "1", "--quiet", str(tmp_path / "r")]) == 0
    assert "wrote 3 synthetic pairs" in capsys.readouterr().out
    assert len((tmp_path / "r" / "annotations.jsonl").read_text().splitlines()) == 3
    assert len(list((tmp_path / "r" / "images").glob("*.png"))) == 6


# --- true by construction: an edit changes exactly what its item says ---

def scene_with_all_kinds() -> Scene:
    ents = [
        Entity(0, "shape", 0, color="red", shape="ball"),
        Entity(1, "shape", 1, color="blue", shape="box"),
        Entity(2, "figure", 2, color="green", pose="standing"),
        Entity(3, "face", 3, color="yellow", expression="smiling"),
        Entity(4, "sign", 4, color="orange", text="OPEN"),
        Entity(5, "group", 5, color="purple", count=3, layout="row"),
    ]
    return Scene(entities=ents)


def ctx_for(seed: int = 0) -> E.PairContext:
    a = scene_with_all_kinds()
    return E.PairContext(rng=random.Random(seed), a=a, b=copy.deepcopy(a))


def changed_cells(ctx: E.PairContext) -> set[int]:
    """Slots whose cell differs between the rendered first and second scenes."""
    a = np.asarray(render_scene(ctx.a), dtype=int)
    b = np.asarray(render_scene(ctx.b), dtype=int)
    out = set()
    for slot in range(8):
        x, y = slot_center(slot)
        box = (slice(int(y - CELL_H / 2), int(y + CELL_H / 2)), slice(int(x - CELL_W / 2), int(x + CELL_W / 2)))
        if np.abs(a[box] - b[box]).sum():
            out.add(slot)
    return out


@pytest.mark.parametrize("edit, slot_of", [
    (E.attr_color, None), (E.pose, 2), (E.expression, 3), (E.sign_text, 4), (E.group_count, 5),
    (E.group_layout, 5), (E.object_remove, None), (E.attr_style, None),
])
def test_local_edit_changes_only_its_entity(edit, slot_of):
    ctx = ctx_for()
    result = edit(ctx)
    assert result is not None
    (eid,) = ctx.touched
    slot = next(e.slot for e in ctx.a.entities if e.eid == eid)
    assert slot_of is None or slot == slot_of
    assert changed_cells(ctx) == {slot}
    assert E.P.POSITIONS[slot] in result.describe() or result.category == "composition"


def test_add_and_swap_change_only_their_slots():
    ctx = ctx_for(1)
    add = E.object_add(ctx)
    new = ctx.b.entities[-1]
    assert changed_cells(ctx) == {new.slot} and E.name(new) in add.describe()
    ctx = ctx_for(2)
    E.spatial_swap(ctx)
    assert len(changed_cells(ctx)) == 2


def test_mirror_flips_the_whole_image_and_later_positions():
    ctx = ctx_for()
    ctx.a.entities = ctx.a.entities[:1]
    ctx.b = copy.deepcopy(ctx.a)
    mirror = E.camera_mirror(ctx)
    assert np.array_equal(np.asarray(ImageOps.mirror(render_scene(ctx.a))), np.asarray(render_scene(ctx.b)))
    assert mirror.category == "camera_viewpoint"
    assert ctx.where_b(0) == "in the top right corner"  # an object added in slot 0 shows up on the right


def test_global_edits_keep_the_entities():
    ctx = ctx_for()
    for fn in (E.background_sky, E.prop_blur, E.prop_noise, E.camera_tilt):
        assert fn(ctx) is not None
    assert [e.slot for e in ctx.b.entities] == [e.slot for e in ctx.a.entities]
    assert E.camera_zoom(ctx) is None  # one camera change per pair


def test_greyscale_forbids_colour_items_and_vice_versa():
    ctx = ctx_for()
    assert E.prop_greyscale(ctx) is not None
    assert E.attr_color(ctx) is None and E.object_add(ctx) is None and E.background_sky(ctx) is None
    gray = np.asarray(render_scene(ctx.b))
    assert np.array_equal(gray[..., 0], gray[..., 1])
    ctx = ctx_for()
    E.attr_color(ctx)
    assert E.prop_greyscale(ctx) is None


def test_every_category_has_an_edit_that_applies():
    for cat, options in E.EDITS.items():
        assert any(fn(ctx_for(i)) is not None for i, (fn, _) in enumerate(options)), cat
    assert set(E.EDITS) == set(CATEGORIES)


def test_no_mirror_when_a_sign_would_read_backwards():
    ctx = ctx_for()  # the scene has a sign
    assert E.camera_mirror(ctx) is None
    assert ctx.b.camera is None
