"""The base record every adapter produces, and the Arrow table a builder consumes.

A base is a labelled image-text collection (SPEC §2). One record per image:
``record_id``, ``image`` (a path relative to the base root; images are never copied per row),
``caption`` (stands for the model-generated caption), ``references`` (other human texts),
``labels`` (features present), ``label_area`` (fraction of the image each label covers,
aligned with ``labels``), ``uncertain`` (features that may be present — MIMIC's -1.0 —
and so can never be inserted as an error) and ``negated`` (features the caption explicitly
says are absent — MIMIC's 0.0; still eligible, but chosen last so that an inserted claim
rarely contradicts the report).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Iterable, Optional

import pyarrow as pa

from benchcore.errors import InputError

BASE_SCHEMA = pa.schema([
    ("record_id", pa.string()),
    ("image", pa.string()),
    ("caption", pa.string()),
    ("references", pa.list_(pa.string())),
    ("labels", pa.list_(pa.string())),
    ("label_area", pa.list_(pa.float64())),
    ("uncertain", pa.list_(pa.string())),
    ("negated", pa.list_(pa.string())),
])

DOMAINS = ("natural", "medical")


@dataclasses.dataclass
class BaseRecord:
    """One image of a base.

    >>> r = BaseRecord("1", "val2017/000000000001.jpg", "A dog.", ["A pup."], ["dog"], {"dog": 0.2})
    >>> r.labels, r.label_area["dog"]
    (['dog'], 0.2)
    """

    record_id: str
    image: str
    caption: str
    references: list[str] = dataclasses.field(default_factory=list)
    labels: list[str] = dataclasses.field(default_factory=list)
    label_area: dict[str, float] = dataclasses.field(default_factory=dict)
    uncertain: list[str] = dataclasses.field(default_factory=list)
    negated: list[str] = dataclasses.field(default_factory=list)

    def validate(self, source: str) -> None:
        """Raise InputError naming ``source`` and the record when a field is malformed."""
        where = f"{source}: record {self.record_id!r}"
        if not self.record_id:
            raise InputError(f"{source}: a record has an empty record_id")
        if not isinstance(self.caption, str) or not self.caption.strip():
            raise InputError(f"{where}: empty caption")
        if not isinstance(self.image, str) or not self.image:
            raise InputError(f"{where}: empty image path")
        if len(set(self.labels)) != len(self.labels):
            raise InputError(f"{where}: duplicate labels {self.labels}")
        for lab, area in self.label_area.items():
            if lab not in self.labels:
                raise InputError(f"{where}: label_area names {lab!r} which is not in labels")
            if not (0.0 <= float(area) <= 1.0):
                raise InputError(f"{where}: label_area[{lab!r}] = {area} is outside [0, 1]")
        overlap = set(self.labels) & set(self.uncertain)
        if overlap:
            raise InputError(f"{where}: {sorted(overlap)} both present and uncertain")
        overlap = (set(self.labels) | set(self.uncertain)) & set(self.negated)
        if overlap:
            raise InputError(f"{where}: {sorted(overlap)} both negated and present/uncertain")


@dataclasses.dataclass
class Base:
    """A validated base: its domain, the folder images are relative to, and the records table."""

    domain: str
    table: pa.Table
    root: Optional[Path] = None
    source: str = ""
    stats: dict = dataclasses.field(default_factory=dict)

    def __len__(self) -> int:
        return self.table.num_rows

    def records(self) -> list[BaseRecord]:
        """The table back as records (small bases and tests only)."""
        out = []
        for row in self.table.to_pylist():
            area = dict(zip(row["labels"], row["label_area"]))
            out.append(BaseRecord(row["record_id"], row["image"], row["caption"], row["references"],
                                  row["labels"], area, row["uncertain"], row["negated"]))
        return out


def records_to_table(records: Iterable[BaseRecord], source: str = "base") -> pa.Table:
    """Validate records and pack them into an Arrow table sorted by record_id (unique ids)."""
    recs = sorted(records, key=lambda r: r.record_id)
    seen: set[str] = set()
    for r in recs:
        r.validate(source)
        if r.record_id in seen:
            raise InputError(f"{source}: duplicate record_id {r.record_id!r}")
        seen.add(r.record_id)
    cols = {
        "record_id": [r.record_id for r in recs],
        "image": [r.image for r in recs],
        "caption": [r.caption for r in recs],
        "references": [list(r.references) for r in recs],
        "labels": [list(r.labels) for r in recs],
        "label_area": [[float(r.label_area.get(lab, 0.0)) for lab in r.labels] for r in recs],
        "uncertain": [list(r.uncertain) for r in recs],
        "negated": [list(r.negated) for r in recs],
    }
    return pa.table(cols, schema=BASE_SCHEMA)


def make_base(domain: str, records: Iterable[BaseRecord], root: Optional[Path | str] = None,
              source: str = "base", stats: Optional[dict] = None) -> Base:
    """A :class:`Base` from records (validated, sorted by record_id)."""
    if domain not in DOMAINS:
        raise InputError(f"{source}: domain must be one of {DOMAINS}, got {domain!r}")
    table = records_to_table(records, source)
    if table.num_rows == 0:
        raise InputError(f"{source}: no usable records")
    return Base(domain, table, Path(root) if root is not None else None, source, dict(stats or {}))
