"""Generic manifest adapter: JSONL or Parquet rows with the base record fields.

Each row: ``record_id`` (str), ``image`` (path relative to the manifest's folder or ``root``),
``caption`` (str), ``labels`` (list[str]); optional ``references`` (list[str]), ``label_area``
({label: fraction} or a list aligned with ``labels``), ``uncertain`` and ``negated`` (list[str]).
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from benchcore.errors import InputError
from benchcore.jsonl import read_objects
from symbalbench.base.records import Base, BaseRecord, make_base

REQUIRED = ("record_id", "image", "caption", "labels")


def _rows(path: Path) -> list[tuple[str, dict]]:
    """(location for error messages, row) pairs."""
    if not path.is_file():
        raise InputError(f"{path}: file not found")
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return [(f"row {i}", r) for i, r in enumerate(pq.read_table(path).to_pylist())]
    return [(f"line {n}", row) for n, row in read_objects(path, "a JSON object (one base record)")]


def _record(path: Path, where: str, row: dict) -> BaseRecord:
    missing = [k for k in REQUIRED if row.get(k) in (None, "")]
    if missing:
        raise InputError(f"{path}: {where}: missing field(s) {missing}")
    labels = row["labels"]
    if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
        raise InputError(f"{path}: {where} (record {row['record_id']!r}): labels must be a list of strings")
    area = row.get("label_area") or {}
    if isinstance(area, list):
        if len(area) != len(labels):
            raise InputError(f"{path}: {where} (record {row['record_id']!r}): label_area has "
                             f"{len(area)} values for {len(labels)} labels")
        area = dict(zip(labels, area))
    if not isinstance(area, dict):
        raise InputError(f"{path}: {where} (record {row['record_id']!r}): label_area must be a dict or list")
    return BaseRecord(str(row["record_id"]), str(row["image"]), str(row["caption"]),
                      list(row.get("references") or []), list(labels),
                      {str(k): float(v) for k, v in area.items()}, list(row.get("uncertain") or []),
                      list(row.get("negated") or []))


def load_manifest(path: str | Path, domain: str = "natural", root: Optional[str | Path] = None,
                  check_images: bool = False) -> Base:
    """Read a JSONL/Parquet manifest into a base of ``domain`` ("natural" or "medical")."""
    path = Path(path)
    root = Path(root) if root else path.parent
    records = []
    for where, row in _rows(path):
        rec = _record(path, where, row)
        if check_images and not (root / rec.image).is_file():
            raise InputError(f"{path}: {where}: image {root / rec.image} not found")
        records.append(rec)
    return make_base(domain, records, root=root, source=str(path), stats={"records": len(records)})
