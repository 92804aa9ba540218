"""DiffCap-Bench schema: the ten difference categories, the five sources and the Features.

This module is the one home of these names (SPEC §1). ``FEATURES`` is built lazily so that
importing the package (e.g. for ``diffcap-bench --help``) does not import ``datasets``.

>>> CATEGORIES[0], CATEGORIES[-1], len(CATEGORIES)
('object', 'expression', 10)
>>> category_name(7), category_name("background")
('camera_viewpoint', 'background')
>>> source_name(3)
'synthetic_2d'
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

from benchcore.errors import InputError

# Fixed ClassLabel order (SPEC §1): the integer stored in Parquet is the index here.
CATEGORIES: tuple[str, ...] = (
    "object",
    "attribute",
    "action_pose",
    "spatial_relation",
    "composition",
    "text_symbol",
    "background",
    "camera_viewpoint",
    "image_property",
    "expression",
)

CATEGORY_MEANINGS: dict[str, str] = {
    "object": "an object added, removed or replaced",
    "attribute": "colour, size, material, shape, pattern or state of an object changed",
    "action_pose": "a person's or animal's action, gesture or pose changed",
    "spatial_relation": "position or arrangement of objects relative to each other changed",
    "composition": "layout or framing of the whole scene changed (elements rearranged, count of items)",
    "text_symbol": "text, numbers, logos or signs changed",
    "background": "the background or setting changed",
    "camera_viewpoint": "viewpoint, zoom, crop, angle or mirror of the camera changed",
    "image_property": "global image property changed: brightness, contrast, blur, noise, colour tone, style",
    "expression": "facial expression changed",
}

SOURCES: tuple[str, ...] = ("web", "video_frame", "advertisement", "synthetic_2d", "synthetic_3d")

SPLIT = "test"  # the benchmark is an evaluation set: one split


class SchemaError(InputError):
    """A category or source name/index that is not part of the schema."""


@lru_cache(maxsize=1)
def features():
    """The ``datasets.Features`` of a DiffCap-Bench row (also available as ``FEATURES``)."""
    from datasets import ClassLabel, Features, Image, List, Value

    return Features(
        {
            "pair_id": Value("string"),
            "image_a": Image(),
            "image_b": Image(),
            "source": ClassLabel(names=list(SOURCES)),
            "differences": List(
                {
                    "id": Value("string"),
                    "text": Value("string"),
                    "category": ClassLabel(names=list(CATEGORIES)),
                    "ambiguous": Value("bool"),
                }
            ),
        }
    )


def __getattr__(name: str) -> Any:  # PEP 562: ``from diffcap_bench.schema import FEATURES``
    if name == "FEATURES":
        return features()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _name(x: Any, names: tuple[str, ...], what: str) -> str:
    # bool is an int subclass; True/False are never valid labels
    if isinstance(x, bool):
        raise SchemaError(f"{what} must be a name or an index, got {x!r}")
    if isinstance(x, int):
        if 0 <= x < len(names):
            return names[x]
        raise SchemaError(f"{what} index {x} out of range 0..{len(names) - 1}")
    if isinstance(x, str) and x in names:
        return x
    raise SchemaError(f"unknown {what} {x!r}; expected one of: {', '.join(names)}")


def category_name(x: int | str) -> str:
    """Category name from a ClassLabel index or a name (validated)."""
    return _name(x, CATEGORIES, "category")


def source_name(x: int | str) -> str:
    """Source name from a ClassLabel index or a name (validated)."""
    return _name(x, SOURCES, "source")


def row_items(row: Mapping[str, Any]):
    """The ``differences`` of a dataset row as ``capjudge.Item`` objects with category NAMES.

    Accepts rows as ``datasets`` returns them (ClassLabel ints) or as raw annotations (names).

    >>> row = {"differences": [{"id": "p1-1", "text": "A cat appears.", "category": 0, "ambiguous": False}]}
    >>> row_items(row)
    [Item(id='p1-1', text='A cat appears.', category='object', ambiguous=False)]
    """
    from capjudge.protocol import Item

    diffs = row.get("differences") or []
    # a column-oriented batch slice ({"id": [...], "text": [...]}) is also accepted
    if isinstance(diffs, Mapping):
        keys = list(diffs)
        diffs = [dict(zip(keys, vals)) for vals in zip(*(diffs[k] for k in keys))]
    return [
        Item(id=str(d["id"]), text=str(d["text"]), category=category_name(d["category"]),
             ambiguous=bool(d.get("ambiguous", False)))
        for d in diffs
    ]
