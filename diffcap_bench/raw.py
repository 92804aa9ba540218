"""Read and validate the DiffCap-Bench raw layout.

The raw layout (documented in the dataset card)::

    RAW_DIR/
      annotations.jsonl      one pair per line (UTF-8 JSON object)
      images/...             the image files, any sub-folders

Each line::

    {"pair_id": "p0001", "image_a": "images/p0001_a.png", "image_b": "images/p0001_b.png",
     "source": "synthetic_2d",
     "differences": [{"id": "p0001-1", "text": "...", "category": "object", "ambiguous": false}]}

Image paths are relative to RAW_DIR and may not leave it. ``ambiguous`` defaults to false.
Every problem raises a ``RawFormatError`` (an ``InputError``) whose message names the file,
the line and the field at fault.

Another layout is mapped onto this one by an *adapter*: any callable
``adapter(raw_dir) -> Iterable[dict]`` yielding dicts shaped like the lines above (image paths
still relative to ``raw_dir``), or ``(location, dict)`` tuples so errors name the adapter's own
file and line. ``items_csv_adapter`` (one CSV row per item; ``diffcap-bench build --layout csv``)
is the bundled example. Pass an adapter as ``read_pairs(raw_dir, adapter=...)`` or
``DiffCapBuilder(adapter=...)``, or write the mapped records once with ``write_annotations``.
"""
from __future__ import annotations

import io
import json
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional

from benchcore.errors import InputError
from diffcap_bench.schema import CATEGORIES, SOURCES

ANNOTATIONS = "annotations.jsonl"
IMAGE_FIELDS = ("image_a", "image_b")

Adapter = Callable[[Path], Iterable[dict]]


# --- errors: one type per kind of bad input, all catchable as RawFormatError / InputError ---

class RawFormatError(InputError):
    """A problem in the raw layout. ``where`` is e.g. ``annotations.jsonl line 3``."""

    def __init__(self, where: str, field: Optional[str], problem: str):
        self.where, self.field, self.problem = where, field, problem
        at = f"{where}, field '{field}'" if field else where
        super().__init__(f"{at}: {problem}")


class MalformedJSON(RawFormatError):
    """A line is not a JSON object."""


class MissingField(RawFormatError):
    """A required field is absent or has the wrong type."""


class UnknownCategory(RawFormatError):
    """A difference item's category is not one of the ten."""


class UnknownSource(RawFormatError):
    """A pair's source is not one of the five."""


class DuplicateId(RawFormatError):
    """A ``pair_id`` (in the file) or an item ``id`` (in one pair) occurs twice."""


class EmptyDifferences(RawFormatError):
    """A pair has no difference items."""


class ImagePathError(RawFormatError):
    """An image path is absolute or escapes the raw folder."""


class MissingImage(RawFormatError):
    """An image file does not exist."""


class NotAnImage(RawFormatError):
    """A file exists but Pillow does not recognise it as an image."""


class UnreadableImage(RawFormatError):
    """An image file is recognised but cannot be decoded (truncated, corrupt)."""


class DecompressionBomb(RawFormatError):
    """An image has more pixels than Pillow's decompression-bomb limit."""


# --- records ---

@dataclass(frozen=True)
class RawPair:
    """One validated pair: names (not indices), image paths relative to the raw folder."""

    pair_id: str
    image_a: str
    image_b: str
    source: str
    differences: tuple[dict, ...]
    where: str  # "annotations.jsonl line N", for later messages (e.g. image errors)


def iter_annotation_lines(path: Path) -> Iterator[tuple[str, Any]]:
    """Yield (location, parsed JSON) per non-blank line; malformed JSON raises with its line."""
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            where = f"{path.name} line {lineno}"
            try:
                yield where, json.loads(line)
            except json.JSONDecodeError as e:
                raise MalformedJSON(where, None, f"malformed JSON ({e.msg} at column {e.colno})") from None


def _require_str(rec: dict, key: str, where: str, prefix: str = "") -> str:
    v = rec.get(key)
    if not isinstance(v, str) or not v.strip():
        got = "missing" if key not in rec else f"got {v!r}"
        raise MissingField(where, prefix + key, f"must be a non-empty string ({got})")
    return v


def parse_pair(rec: Any, where: str) -> RawPair:
    """Validate one annotation record (no file access) and return it as a ``RawPair``."""
    if not isinstance(rec, dict):
        raise MalformedJSON(where, None, f"expected a JSON object, got {type(rec).__name__}")
    pair_id = _require_str(rec, "pair_id", where)
    image_a = _require_str(rec, "image_a", where)
    image_b = _require_str(rec, "image_b", where)
    source = _require_str(rec, "source", where)
    if source not in SOURCES:
        raise UnknownSource(where, "source", f"unknown source {source!r}; expected one of: {', '.join(SOURCES)}")
    diffs = rec.get("differences")
    if not isinstance(diffs, list):
        raise MissingField(where, "differences", f"must be a list of items (got {diffs!r})")
    if not diffs:
        raise EmptyDifferences(where, "differences", f"pair {pair_id!r} has an empty difference list")
    items, seen = [], {}
    for k, d in enumerate(diffs):
        field = f"differences[{k}]"
        if not isinstance(d, dict):
            raise MissingField(where, field, f"must be an object, got {d!r}")
        item_id = _require_str(d, "id", where, field + ".")
        text = _require_str(d, "text", where, field + ".")
        cat = d.get("category")
        if cat not in CATEGORIES:
            raise UnknownCategory(where, field + ".category",
                                  f"unknown category {cat!r}; expected one of: {', '.join(CATEGORIES)}")
        amb = d.get("ambiguous", False)
        if not isinstance(amb, bool):
            raise MissingField(where, field + ".ambiguous", f"must be true or false, got {amb!r}")
        if item_id in seen:
            raise DuplicateId(where, field + ".id",
                              f"duplicate item id {item_id!r} in pair {pair_id!r} (first at differences[{seen[item_id]}])")
        seen[item_id] = k
        items.append({"id": item_id, "text": text, "category": cat, "ambiguous": amb})
    return RawPair(pair_id, image_a, image_b, source, tuple(items), where)


def resolve_image_path(raw_dir: Path, rel: str, where: str, field: str) -> Path:
    """The file of an image path, refusing absolute paths and anything outside ``raw_dir``."""
    p = Path(rel)
    if p.is_absolute() or rel.startswith(("/", "\\")) or (len(rel) > 1 and rel[1] == ":"):
        raise ImagePathError(where, field, f"image path {rel!r} is absolute; paths must be relative to {raw_dir}")
    root = raw_dir.resolve()
    full = (root / p).resolve()  # resolves ../ and symlinks
    if not full.is_relative_to(root):
        raise ImagePathError(where, field, f"image path {rel!r} escapes the raw folder {raw_dir}")
    return full


def read_image_bytes(path: Path, where: str, field: str, max_pixels: Optional[int] = None) -> bytes:
    """Read an image file and check Pillow can decode it within the decompression-bomb limit.

    ``max_pixels`` defaults to ``PIL.Image.MAX_IMAGE_PIXELS``. Returns the file's bytes unchanged.
    """
    from PIL import Image, UnidentifiedImageError

    if not path.is_file():
        raise MissingImage(where, field, f"image file {path} does not exist")
    try:
        data = path.read_bytes()
    except OSError as e:
        raise UnreadableImage(where, field, f"cannot read image file {path}: {e}") from None
    limit = Image.MAX_IMAGE_PIXELS if max_pixels is None else max_pixels
    try:
        with warnings.catch_warnings():
            # Pillow warns (and past twice the limit raises) while opening; both mean "bomb" here
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as im:
                w, h = im.size
                if limit is not None and w * h > limit:
                    raise Image.DecompressionBombError(f"{w}x{h} = {w * h:,} pixels")
                im.load()
    except UnidentifiedImageError:
        raise NotAnImage(where, field, f"file {path} is not an image Pillow can identify") from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as e:
        raise DecompressionBomb(where, field, f"image {path} is over the decompression-bomb limit of "
                                              f"{limit:,} pixels ({e})") from None
    except (OSError, SyntaxError, ValueError) as e:
        raise UnreadableImage(where, field, f"image {path} cannot be decoded: {e}") from None
    return data


def _adapter_records(adapter: Adapter, root: Path) -> Iterator[tuple[str, Any]]:
    """(location, record) from an adapter; it may yield ``(location, dict)`` to name its own lines."""
    name = getattr(adapter, "__name__", type(adapter).__name__)
    for i, rec in enumerate(adapter(root), start=1):
        if isinstance(rec, tuple) and len(rec) == 2 and isinstance(rec[0], str):
            yield rec
        else:
            yield f"adapter {name} record {i}", rec


def read_pairs(raw_dir: str | Path, adapter: Optional[Adapter] = None) -> list[RawPair]:
    """Parse and validate every record of a raw folder (not the images; see ``check_images``).

    Duplicate ``pair_id`` values are refused, naming both lines.
    """
    root = Path(raw_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"raw folder {root} does not exist")
    if adapter is None:
        ann = root / ANNOTATIONS
        if not ann.is_file():
            raise FileNotFoundError(f"{ann} not found: a raw folder holds {ANNOTATIONS} and the images")
        records: Iterable[tuple[str, Any]] = iter_annotation_lines(ann)
    else:
        records = _adapter_records(adapter, root)
    pairs, first_seen = [], {}
    for where, rec in records:
        pair = parse_pair(rec, where)
        if pair.pair_id in first_seen:
            raise DuplicateId(where, "pair_id", f"duplicate pair_id {pair.pair_id!r} (first at {first_seen[pair.pair_id]})")
        first_seen[pair.pair_id] = where
        for field in IMAGE_FIELDS:
            resolve_image_path(root, getattr(pair, field), where, field)
        pairs.append(pair)
    if not pairs:
        raise InputError(f"{root / ANNOTATIONS}: no pairs found")
    return pairs


def load_pair_images(raw_dir: str | Path, pair: RawPair, max_pixels: Optional[int] = None) -> tuple[bytes, bytes]:
    """Validated bytes of the two images of ``pair``."""
    root = Path(raw_dir)
    out = []
    for field in IMAGE_FIELDS:
        path = resolve_image_path(root, getattr(pair, field), pair.where, field)
        out.append(read_image_bytes(path, pair.where, field, max_pixels))
    return out[0], out[1]


def items_csv_adapter(raw_dir: Path, filename: str = "annotations.csv") -> Iterator[dict]:
    """Adapter for a spreadsheet layout: ``annotations.csv`` with one row per difference item.

    Columns: ``pair_id, image_a, image_b, source, item_id, text, category, ambiguous``
    (``ambiguous`` is true/false/1/0/yes/no or empty). Rows of one pair must be consecutive;
    pairs come out in file order, each as ``("annotations.csv line N", record)`` so errors name
    the line of the pair's first row.
    """
    import csv

    path = Path(raw_dir) / filename
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found (the csv layout has one row per difference item)")
    truthy = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False, "": False}
    current: Optional[dict] = None
    where = ""
    with open(path, encoding="utf-8", newline="") as f:
        for lineno, row in enumerate(csv.DictReader(f), start=2):  # line 1 is the header
            flag = (row.get("ambiguous") or "").strip().lower()
            if flag not in truthy:
                raise MissingField(f"{filename} line {lineno}", "ambiguous", f"must be true or false, got {flag!r}")
            if current is None or row.get("pair_id") != current["pair_id"]:
                if current is not None:
                    yield where, current
                where = f"{filename} line {lineno}"
                current = {k: row.get(k) for k in ("pair_id", "image_a", "image_b", "source")}
                current["differences"] = []
            current["differences"].append({"id": row.get("item_id"), "text": row.get("text"),
                                           "category": row.get("category"), "ambiguous": truthy[flag]})
    if current is not None:
        yield where, current


# name -> adapter, for ``diffcap-bench build --layout NAME`` (None: annotations.jsonl itself)
LAYOUTS: dict[str, Optional[Adapter]] = {"jsonl": None, "csv": items_csv_adapter}


def write_annotations(records: Iterable[dict], raw_dir: str | Path) -> Path:
    """Write adapter output as ``annotations.jsonl`` (sorted keys, UTF-8, one line per pair)."""
    path = Path(raw_dir) / ANNOTATIONS
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for rec in records:
            f.write(json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")
    return path
