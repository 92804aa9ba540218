"""COCO adapter: official ``instances_<split>.json`` + ``captions_<split>.json`` -> base records.

Quirks handled (as COCO publishes its files):
- category ids run 1..90 with gaps; names are mapped through the ``categories`` list;
- instance annotations are polygons (``iscrowd`` 0) or RLE (``iscrowd`` 1): both carry ``area``,
  which is all we need — ``label_area`` = summed annotation area of a category / image area
  (capped at 1);
- 5-7 captions per image with stray spaces and newlines: whitespace is collapsed;
- an image may be listed in either file's ``images``: the union is used (conflicting
  entries are an error).
The generated caption is the caption with the lowest annotation id; the others are references.
Images without any caption are skipped and counted in ``Base.stats``.
"""
from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Iterable, Optional

import numpy as np

from benchcore.errors import InputError
from symbalbench.base.records import Base, BaseRecord, make_base

_WS = re.compile(r"\s+")


def clean_text(text: str) -> str:
    """Collapse runs of whitespace (incl. newlines) and strip.

    >>> clean_text("  A man  riding\\n a horse .\\n")
    'A man riding a horse .'
    """
    return _WS.sub(" ", text).strip()


def _read_json(path: Path) -> dict:
    if not path.is_file():
        raise InputError(f"{path}: file not found")
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not valid JSON (line {e.lineno}: {e.msg})") from None
    for key in ("images", "annotations"):
        if not isinstance(data.get(key), list):
            raise InputError(f"{path}: missing the {key!r} list of the COCO format")
    return data


def find_split(root: Path) -> str:
    """The split to read when none is given: val2017 if present, else the only one."""
    splits = sorted(p.name[len("instances_"):-len(".json")] for p in (root / "annotations").glob("instances_*.json"))
    if not splits:
        raise InputError(f"{root / 'annotations'}: no instances_<split>.json found")
    if "val2017" in splits:
        return "val2017"
    if len(splits) > 1:
        raise InputError(f"{root}: several splits {splits}; choose one with split=")
    return splits[0]


def _images(files: list[tuple[Path, dict]]) -> dict[int, dict]:
    """Union of the ``images`` lists of both files; the same id must describe the same image."""
    images: dict[int, dict] = {}
    for path, data in files:
        for i, img in enumerate(data["images"]):
            try:
                iid, w, h, name = int(img["id"]), int(img["width"]), int(img["height"]), str(img["file_name"])
            except (KeyError, TypeError, ValueError):
                raise InputError(f"{path}: images[{i}] needs id, file_name, width and height") from None
            if w <= 0 or h <= 0:
                raise InputError(f"{path}: image {iid} has size {w}x{h}")
            entry = {"file_name": name, "width": w, "height": h}
            if iid in images and images[iid] != entry:
                raise InputError(f"{path}: image {iid} is listed differently in the two files "
                                 f"({images[iid]} vs {entry})")
            images[iid] = entry
    return images


def _categories(path: Path, data: dict) -> dict[int, str]:
    cats = data.get("categories")
    if not isinstance(cats, list) or not cats:
        raise InputError(f"{path}: missing the 'categories' list")
    try:
        return {int(c["id"]): str(c["name"]) for c in cats}
    except (KeyError, TypeError, ValueError):
        raise InputError(f"{path}: every category needs an id and a name") from None


def _areas(path: Path, data: dict, images: dict[int, dict], cats: dict[int, str]) -> dict[int, dict[str, float]]:
    """image id -> {category name: summed annotation area in pixels}."""
    areas: dict[int, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for ann in data["annotations"]:
        aid = ann.get("id", "?")
        try:
            iid, cid, area = int(ann["image_id"]), int(ann["category_id"]), float(ann["area"])
        except (KeyError, TypeError, ValueError):
            raise InputError(f"{path}: annotation {aid} needs image_id, category_id and area") from None
        if iid not in images:
            raise InputError(f"{path}: annotation {aid} refers to image {iid}, listed in neither file")
        if cid not in cats:
            raise InputError(f"{path}: annotation {aid} has unknown category_id {cid}")
        if area < 0:
            raise InputError(f"{path}: annotation {aid} has negative area {area}")
        if ann.get("iscrowd", 0) not in (0, 1):
            raise InputError(f"{path}: annotation {aid} has iscrowd={ann.get('iscrowd')!r} (0 or 1)")
        areas[iid][cats[cid]] += area
    return areas


def _captions(path: Path, data: dict, images: dict[int, dict]) -> dict[int, list[tuple[int, str]]]:
    caps: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for ann in data["annotations"]:
        aid = ann.get("id", "?")
        try:
            iid, cid, text = int(ann["image_id"]), int(ann["id"]), ann["caption"]
        except (KeyError, TypeError, ValueError):
            raise InputError(f"{path}: caption annotation {aid} needs id, image_id and caption") from None
        if iid not in images:
            raise InputError(f"{path}: caption {aid} refers to image {iid}, listed in neither file")
        if not isinstance(text, str):
            raise InputError(f"{path}: caption {aid} is not text")
        text = clean_text(text)
        if text:
            caps[iid].append((cid, text))
    return caps


def select_ids(ids: Iterable[int], image_ids: Optional[Iterable[int]] = None,
               count: Optional[int] = None, seed: int = 0) -> list[int]:
    """The image subset: explicit ids, or ``count`` ids drawn with ``seed``, or all; sorted.

    >>> select_ids([5, 1, 9, 3], count=2, seed=0) == select_ids([1, 3, 5, 9], count=2, seed=0)
    True
    """
    pool = sorted(set(ids))
    if image_ids is not None:
        wanted = sorted(set(int(i) for i in image_ids))
        missing = sorted(set(wanted) - set(pool))
        if missing:
            raise InputError(f"requested image ids not in the base: {missing[:10]}")
        return wanted
    if count is not None:
        if count > len(pool):
            raise InputError(f"asked for {count} images but the base has {len(pool)}")
        rng = np.random.default_rng(seed)
        return sorted(int(pool[i]) for i in rng.choice(len(pool), size=count, replace=False))
    return pool


def load_coco(root: str | Path, split: Optional[str] = None, image_ids: Optional[Iterable[int]] = None,
              count: Optional[int] = None, seed: int = 0, check_images: bool = True) -> Base:
    """Read a COCO folder (``annotations/`` + ``<split>/`` images) into a natural-domain base.

    ``image_ids`` or ``count`` (with ``seed``) choose a subset (the seed release used 4349 images).
    """
    root = Path(root)
    split = split or find_split(root)
    inst_path = root / "annotations" / f"instances_{split}.json"
    cap_path = root / "annotations" / f"captions_{split}.json"
    inst, capd = _read_json(inst_path), _read_json(cap_path)
    images = _images([(inst_path, inst), (cap_path, capd)])
    cats = _categories(inst_path, inst)
    areas = _areas(inst_path, inst, images, cats)
    caps = _captions(cap_path, capd, images)

    no_caption = sorted(i for i in images if not caps.get(i))
    chosen = select_ids([i for i in images if caps.get(i)], image_ids, count, seed)
    records = []
    for iid in chosen:
        img = images[iid]
        rel = f"{split}/{img['file_name']}"
        if check_images and not (root / rel).is_file():
            raise InputError(f"{root / rel}: image file of image {iid} not found")
        texts = [t for _, t in sorted(caps[iid])]
        pixels = float(img["width"] * img["height"])
        present = areas.get(iid, {})
        labels = sorted(present)
        records.append(BaseRecord(
            record_id=f"{iid:012d}", image=rel, caption=texts[0], references=texts[1:], labels=labels,
            label_area={lab: min(1.0, present[lab] / pixels) for lab in labels}))
    stats = {"split": split, "images_listed": len(images), "skipped_no_caption": len(no_caption),
             "records": len(records)}
    return make_base("natural", records, root=root, source=str(inst_path), stats=stats)
