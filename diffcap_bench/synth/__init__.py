"""Synthetic DiffCap-Bench pairs drawn with Pillow, with difference lists true by construction.

``generate(out_raw_dir, n, seed)`` writes a raw folder (``annotations.jsonl`` + ``images/``)
that ``diffcap-bench build`` reads. For each pair a scene is planned, drawn as the first image,
edited (one edit per difference item) and drawn again as the second image. Pair ``i`` depends
only on ``(seed, i)``, so the same seed gives the same bytes and a larger ``n`` extends a
smaller run.

>>> record, a, b = make_pair(seed=1, index=0)
>>> record["differences"][0]["category"] in CATEGORIES, a.size == b.size == (256, 192)
(True, True)
"""
from __future__ import annotations

import copy
import io
import json
import random
from pathlib import Path
from typing import Optional

from diffcap_bench.schema import CATEGORIES
from diffcap_bench.synth import phrases as P
from diffcap_bench.synth.edits import PairContext, pick_edit
from diffcap_bench.synth.scene import Entity, Scene, render_scene

__all__ = ["generate", "make_pair", "CATEGORY_WEIGHTS", "SOURCE_WEIGHTS"]

# How often each category is planned (object and attribute changes dominate real benchmarks).
CATEGORY_WEIGHTS: dict[str, float] = {
    "object": 0.20, "attribute": 0.18, "action_pose": 0.07, "spatial_relation": 0.10, "composition": 0.07,
    "text_symbol": 0.08, "background": 0.08, "camera_viewpoint": 0.05, "image_property": 0.10, "expression": 0.07,
}
# Mostly synthetic_2d, spread over all five sources (the source only changes the drawing style).
SOURCE_WEIGHTS: dict[str, float] = {
    "synthetic_2d": 0.6, "web": 0.1, "video_frame": 0.1, "advertisement": 0.1, "synthetic_3d": 0.1,
}
# entity kinds a planned category needs in the first scene
NEEDS: dict[str, tuple[str, ...]] = {
    "object": ("shape",), "attribute": ("shape",), "action_pose": ("figure",), "spatial_relation": ("shape",),
    "composition": ("group",), "text_symbol": ("sign",), "expression": ("face",),
}
MAX_ENTITIES = 6  # of 8 slots: keep two free for additions and moves
PNG_LEVEL = 6


def pair_rng(seed: int, index: int) -> random.Random:
    """Independent, stable stream per pair (string seeds hash with SHA-512 in CPython)."""
    return random.Random(f"diffcap-synth:{seed}:{index}")


def n_edits(rng: random.Random) -> int:
    """3..9 differences, mean 3 + 6 * 0.54 = 6.24 (the benchmark has 6.25 per pair)."""
    return 3 + sum(rng.random() < 0.54 for _ in range(6))


def plan_categories(rng: random.Random, index: int, k: int) -> list[str]:
    """k categories; the first cycles through all ten so every ten pairs cover every category."""
    cats, weights = zip(*CATEGORY_WEIGHTS.items())
    return [CATEGORIES[index % len(CATEGORIES)]] + rng.choices(cats, weights=weights, k=k - 1)


def new_entity(rng: random.Random, kind: str, eid: int, slot: int, used: set) -> Entity:
    color = rng.choice(list(P.COLORS))
    if kind == "shape":
        options = [(c, s) for c in P.COLORS for s in P.SHAPES if (c, s) not in used]
        color, shape = rng.choice(options)
        used.add((color, shape))
        style = rng.choice(P.STYLES) if shape in P.SIMPLE_SHAPES and rng.random() < 0.3 else "filled"
        return Entity(eid, "shape", slot, color=color, shape=shape, style=style, scale=rng.choice((0.85, 1.0, 1.0, 1.15)))
    if kind == "figure":
        return Entity(eid, "figure", slot, color=color, pose=rng.choice(list(P.POSES)))
    if kind == "face":
        return Entity(eid, "face", slot, color=rng.choice(("yellow", "orange", "pink")),
                      expression=rng.choice(list(P.EXPRESSIONS)))
    if kind == "sign":
        pool = P.SIGN_NUMBERS if rng.random() < 0.3 else P.SIGN_WORDS
        return Entity(eid, "sign", slot, color=color, text=rng.choice(pool))
    if kind == "group":
        return Entity(eid, "group", slot, color=color, count=rng.randint(2, 5), item=rng.choice(P.GROUP_ITEMS),
                      layout=rng.choice(list(P.GROUP_LAYOUTS)))
    raise ValueError(kind)


def first_scene(rng: random.Random, plan: list[str], source: str) -> Scene:
    """A scene holding what the planned edits need, plus a distractor or two."""
    kinds = [kind for cat in plan for kind in NEEDS.get(cat, ())]
    if "advertisement" == source and "sign" not in kinds:
        kinds.insert(0, "sign")  # an ad always carries text
    kinds += rng.choices(("shape", "shape", "figure", "face", "sign"), k=rng.randint(1, 2))
    kinds = kinds[:MAX_ENTITIES]
    slots = rng.sample(range(8), len(kinds))
    used: set = set()
    entities = [new_entity(rng, kind, eid, slot, used) for eid, (kind, slot) in enumerate(zip(kinds, slots))]
    return Scene(sky=rng.choice(list(P.SKIES)[:5]), ground=rng.choice(list(P.GROUNDS)), hills=rng.random() < 0.3,
                 entities=entities, source=source, frame_color=rng.choice(list(P.COLORS)))


def make_pair(seed: int, index: int, pair_id: Optional[str] = None):
    """One pair: (annotation record with image paths, first image, second image)."""
    rng = pair_rng(seed, index)
    pair_id = pair_id or f"syn{seed}-{index:05d}"
    srcs, sw = zip(*SOURCE_WEIGHTS.items())
    source = rng.choices(srcs, weights=sw)[0]
    k = n_edits(rng)
    plan = plan_categories(rng, index, k)
    a = first_scene(rng, plan, source)
    ctx = PairContext(rng=rng, a=a, b=copy.deepcopy(a))
    ctx.b.noise_seed = rng.getrandbits(32)
    edits = []
    cats, weights = zip(*CATEGORY_WEIGHTS.items())
    queue, attempts = list(plan), 0
    while queue and attempts < 40:
        cat = queue.pop(0)
        edit = pick_edit(rng, cat)(ctx)
        attempts += 1
        if edit is None:  # nothing to edit for this category in this scene: plan another one
            queue.append(rng.choices(cats, weights=weights)[0] if attempts > 2 * k else cat)
            continue
        edits.append(edit)
    rng.shuffle(edits)  # list order should not reveal the planning order
    differences = [{"id": f"{pair_id}-{i}", "text": e.describe(), "category": e.category, "ambiguous": e.ambiguous}
                   for i, e in enumerate(edits, start=1)]
    record = {"pair_id": pair_id, "image_a": f"images/{pair_id}_a.png", "image_b": f"images/{pair_id}_b.png",
              "source": source, "differences": differences}
    return record, render_scene(ctx.a), render_scene(ctx.b)


def png_bytes(img) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG", compress_level=PNG_LEVEL)
    return buf.getvalue()


def generate(out_raw_dir: str | Path, n: int, seed: int = 0, show_progress: bool = True,
             overwrite: bool = True) -> Path:
    """Write ``n`` synthetic pairs as a raw folder (annotations.jsonl + images/); returns its path."""
    from tqdm.auto import tqdm

    from benchcore.outdir import atomic_output_dir

    from diffcap_bench.builder import check_replaceable

    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    check_replaceable(out_raw_dir, lambda d: (d / "annotations.jsonl").is_file(), "a raw DiffCap-Bench folder")
    with atomic_output_dir(out_raw_dir, overwrite=overwrite) as tmp:
        (tmp / "images").mkdir()
        with open(tmp / "annotations.jsonl", "w", encoding="utf-8", newline="\n") as f:
            for i in tqdm(range(n), desc="drawing pairs", unit="pair", disable=not show_progress):
                record, img_a, img_b = make_pair(seed, i)
                (tmp / record["image_a"]).write_bytes(png_bytes(img_a))
                (tmp / record["image_b"]).write_bytes(png_bytes(img_b))
                f.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
    return Path(out_raw_dir)
