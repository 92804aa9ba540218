"""Load a built SymbalBench folder: scenarios, one dataset as a zero-copy slice, images.

A build folder is what :class:`symbalbench.builder.SymbalBenchBuilder` writes (the bundled
sample is ``symbalbench/README.md`` + ``symbalbench/data/``). One dataset is the contiguous
rows ``row_start:row_end`` of its domain table; :meth:`SymbalBench.dataset` returns them with
``Dataset.select(range(...))``, which slices the Arrow table without copying.
"""
from __future__ import annotations

import io
import json
from functools import cached_property
from importlib.resources import files
from pathlib import Path
from typing import Any, Optional

from benchcore.errors import InputError

VARIANTS = ("reference_free", "reference_based")
IN_MEMORY_BYTES = 64 * 1024 * 1024  # smaller domain tables are read into memory; larger are memory-mapped


def sample_dir() -> Path:
    """Folder of the bundled sample (inside the installed package)."""
    return Path(str(files("symbalbench")))


class SymbalBench:
    """A built SymbalBench: ``scenarios``, ``dataset(id, variant)``, ``image(ref)``."""

    def __init__(self, root: str | Path, image_roots: Optional[dict[str, str]] = None):
        self.root = Path(root)
        if not (self.root / "data" / "scenarios.parquet").is_file():
            raise InputError(f"{self.root}: not a SymbalBench build (no data/scenarios.parquet)")
        info_path = self.root / "build_info.json"
        self.info: dict = json.loads(info_path.read_text(encoding="utf-8")) if info_path.is_file() else {}
        self.image_roots = dict(self.info.get("image_roots") or {})
        self.image_roots.update(image_roots or {})
        self._domains: dict[str, Any] = {}
        self._rows = {r["scenario_id"]: r for r in self.scenarios.to_list()}

    def __repr__(self) -> str:
        return f"SymbalBench({str(self.root)!r}, {len(self._rows)} datasets)"

    def __len__(self) -> int:
        return len(self._rows)

    @cached_property
    def scenarios(self):
        """The scenarios table as a ``datasets.Dataset``."""
        import pyarrow.parquet as pq
        from datasets import Dataset

        return Dataset(pq.read_table(self.root / "data" / "scenarios.parquet"))

    @property
    def scenario_ids(self) -> list[str]:
        return list(self._rows)

    def scenario(self, scenario_id: str) -> dict:
        """The scenarios-table row of one dataset."""
        try:
            return dict(self._rows[scenario_id])
        except KeyError:
            raise KeyError(f"unknown scenario_id {scenario_id!r} ({len(self._rows)} in {self.root})") from None

    def domain_table(self, domain: str):
        """The whole natural or medical table as a ``datasets.Dataset`` (loaded once)."""
        if domain not in self._domains:
            shards = sorted((self.root / "data").glob(f"{domain}-*-of-*.parquet"))
            if not shards:
                raise InputError(f"{self.root}: no {domain} table in data/")
            self._domains[domain] = _read_shards(shards)
        return self._domains[domain]

    def dataset(self, scenario_id: str, variant: str = "reference_free"):
        """One dataset as a zero-copy slice of its domain table.

        ``reference_free`` drops the ``references`` column; ``reference_based`` keeps it.
        """
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
        row = self.scenario(scenario_id)
        ds = self.domain_table(row["domain"]).select(range(row["row_start"], row["row_end"]))
        return ds.remove_columns(["references"]) if variant == "reference_free" else ds

    @cached_property
    def _images(self) -> dict[str, dict]:
        import pyarrow.parquet as pq

        path = self.root / "data" / "images.parquet"
        if not path.is_file():
            return {}
        t = pq.read_table(path)
        ids = t.column("image_id").to_pylist()
        return dict(zip(ids, t.column("image").to_pylist()))

    def image(self, image_ref: str):
        """The image of a row's ``image`` id as a PIL image (embedded bytes or the base folder)."""
        from PIL import Image

        entry = self._images.get(image_ref)
        if entry and entry.get("bytes"):
            img = Image.open(io.BytesIO(entry["bytes"]))
            img.load()
            return img
        domain, _, rel = image_ref.partition("/")
        root = self.image_roots.get(domain)
        if not root:
            raise InputError(f"image {image_ref!r}: no embedded bytes and no image root for {domain!r}; "
                             f"pass image_roots={{'{domain}': '/path/to/base'}} to symbalbench.load")
        path = Path(root) / (entry["path"] if entry else rel)
        if not path.is_file():
            raise InputError(f"image {image_ref!r}: {path} not found")
        img = Image.open(path)
        img.load()
        return img


def _read_shards(shards: list[Path]):
    from datasets import Dataset, concatenate_datasets
    import pyarrow.parquet as pq

    if sum(p.stat().st_size for p in shards) <= IN_MEMORY_BYTES:
        import pyarrow as pa

        return Dataset(pa.concat_tables([pq.read_table(p) for p in shards]))
    return concatenate_datasets([Dataset.from_parquet(str(p), split="test") for p in shards])


def load(path: Optional[str | Path] = None, image_roots: Optional[dict[str, str]] = None) -> SymbalBench:
    """Open a build folder, or the bundled sample when ``path`` is None (works offline, any cwd).

    >>> bench = load()
    >>> sid = bench.scenario_ids[0]
    >>> len(bench.dataset(sid)) == bench.scenario(sid)["n_rows"]
    True
    """
    return SymbalBench(path if path is not None else sample_dir(), image_roots)
