"""Build a Hub-ready DiffCap-Bench folder from the raw layout.

``DiffCapBuilder(config).build(RAW_DIR, OUT_DIR)`` reads ``annotations.jsonl`` and the images
(validated by ``diffcap_bench.raw``), then writes::

    OUT_DIR/
      README.md                          card from dataset_cards/diffcap_bench.md (YAML configs,
                                         dataset_info with features and split sizes)
      data/test-00000-of-0000N.parquet   shards, image bytes embedded

The folder is written to a temp sibling and moved into place, so a failed build leaves
OUT_DIR untouched. Same raw folder + same config -> byte-identical output (fixed Parquet
writer settings, rows in file order, no timestamps, no absolute paths).
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional

from diffcap_bench.raw import Adapter, RawPair, load_pair_images, read_pairs
from diffcap_bench.schema import CATEGORIES, CATEGORY_MEANINGS, SOURCES, features

CARD_NAME = "diffcap_bench"
CITATION = """@article{diffcapbench2026,
  title   = {DiffCap-Bench: Evaluating Image Difference Captioning},
  journal = {arXiv preprint arXiv:2605.04503},
  year    = {2026},
  url     = {https://arxiv.org/abs/2605.04503}
}"""


@dataclass(frozen=True)
class DiffCapConfig:
    """Options of a build. The defaults give the layout the Hub viewer expects."""

    split: str = "test"
    shard_rows: int = 500  # pairs per Parquet shard (count-based, so shard names are known up front)
    row_group_rows: int = 100  # rows per Parquet row group (the Hub viewer reads row groups)
    compression: str = "snappy"  # image bytes are already compressed; snappy keeps text small and reads fast
    max_image_pixels: Optional[int] = None  # None: Pillow's decompression-bomb limit
    license: str = "cc-by-4.0"
    pretty_name: str = "DiffCap-Bench"
    provenance: str = "Built with `diffcap-bench build` from a raw folder in the documented layout."
    show_progress: bool = True
    adapter: Optional[Adapter] = field(default=None, compare=False)  # maps another raw layout


@dataclass(frozen=True)
class BuildSummary:
    """What a build wrote."""

    out_dir: Path
    num_pairs: int
    num_items: int
    num_ambiguous: int
    shards: tuple[str, ...]
    category_counts: dict[str, int]
    source_counts: dict[str, int]
    dataset_size: int  # Arrow bytes of all rows
    download_size: int  # bytes of the Parquet shards


class DiffCapBuilder:
    """Builder of DiffCap-Bench folders (SPEC §1, §4): versioned, with release notes.

    >>> DiffCapBuilder.VERSION
    '1.0.0'
    >>> DiffCapBuilder(shard_rows=10).config.shard_rows
    10
    """

    VERSION = "1.0.0"
    RELEASE_NOTES: dict[str, str] = {
        "1.0.0": "First release: ten categories, ambiguous flag, five sources, Parquet shards "
                 "with embedded image bytes, card with configs and dataset_info.",
    }

    def __init__(self, config: Optional[DiffCapConfig] = None, **overrides: Any):
        base = config or DiffCapConfig()
        self.config = DiffCapConfig(**{**base.__dict__, **overrides}) if overrides else base

    # --- rows ---

    def to_row(self, pair: RawPair, image_a: bytes, image_b: bytes) -> dict:
        """One dataset row in storage form (ClassLabel indices, image structs with bytes)."""
        return {
            "pair_id": pair.pair_id,
            "image_a": {"bytes": image_a, "path": pair.image_a},
            "image_b": {"bytes": image_b, "path": pair.image_b},
            "source": SOURCES.index(pair.source),
            "differences": [
                {"id": d["id"], "text": d["text"], "category": CATEGORIES.index(d["category"]),
                 "ambiguous": d["ambiguous"]}
                for d in pair.differences
            ],
        }

    def shard_names(self, num_pairs: int) -> list[str]:
        n = max(1, math.ceil(num_pairs / self.config.shard_rows))
        return [f"data/{self.config.split}-{i:05d}-of-{n:05d}.parquet" for i in range(n)]

    # --- build ---

    def build(self, raw_dir: str | Path, out_dir: str | Path, overwrite: bool = True) -> BuildSummary:
        """Validate ``raw_dir`` and write the Hub-ready folder ``out_dir`` atomically."""
        from benchcore.outdir import atomic_output_dir

        cfg = self.config
        if cfg.shard_rows < 1 or cfg.row_group_rows < 1:
            raise ValueError("shard_rows and row_group_rows must be >= 1")
        check_replaceable(out_dir, looks_built, "a built DiffCap-Bench folder", inputs=[raw_dir])
        pairs = read_pairs(raw_dir, adapter=cfg.adapter)
        with atomic_output_dir(out_dir, overwrite=overwrite) as tmp:
            shards, arrow_bytes = self._write_shards(Path(raw_dir), pairs, tmp)
            download = sum((tmp / s).stat().st_size for s in shards)
            summary = self._summary(Path(out_dir), pairs, shards, arrow_bytes, download)
            (tmp / "README.md").write_text(self.render_card(summary), encoding="utf-8", newline="\n")
            _make_readable(tmp)
        return summary

    def _write_shards(self, raw_dir: Path, pairs: list[RawPair], tmp: Path) -> tuple[tuple[str, ...], int]:
        import pyarrow as pa
        from tqdm.auto import tqdm

        cfg = self.config
        schema = features().arrow_schema  # carries the "huggingface" features metadata
        names = self.shard_names(len(pairs))
        (tmp / "data").mkdir()
        total = 0
        bar = tqdm(total=len(pairs), desc="building DiffCap-Bench", unit="pair", disable=not cfg.show_progress)
        for i, name in enumerate(names):
            chunk = pairs[i * cfg.shard_rows:(i + 1) * cfg.shard_rows]
            rows = []
            for pair in chunk:  # one shard of image bytes in memory at a time
                a, b = load_pair_images(raw_dir, pair, cfg.max_image_pixels)
                rows.append(self.to_row(pair, a, b))
                bar.update(1)
            table = pa.Table.from_pylist(rows, schema=schema)
            total += table.nbytes
            write_parquet(table, tmp / name, cfg.row_group_rows, cfg.compression)
        bar.close()
        return tuple(names), total

    def _summary(self, out_dir: Path, pairs: list[RawPair], shards: tuple[str, ...], arrow_bytes: int,
                 download: int) -> BuildSummary:
        cats = Counter(d["category"] for p in pairs for d in p.differences)
        srcs = Counter(p.source for p in pairs)
        return BuildSummary(
            out_dir=out_dir,
            num_pairs=len(pairs),
            num_items=sum(len(p.differences) for p in pairs),
            num_ambiguous=sum(d["ambiguous"] for p in pairs for d in p.differences),
            shards=shards,
            category_counts={c: cats.get(c, 0) for c in CATEGORIES},
            source_counts={s: srcs.get(s, 0) for s in SOURCES},
            dataset_size=arrow_bytes,
            download_size=download,
        )

    # --- card ---

    def front_matter(self, s: BuildSummary) -> dict:
        """YAML of the card: Hub metadata, ``configs`` and ``dataset_info``."""
        from benchcore.cards import features_yaml

        cfg = self.config
        return {
            "pretty_name": cfg.pretty_name,
            "license": cfg.license,
            "language": ["en"],
            "task_categories": ["image-to-text"],
            "tags": ["image-difference-captioning", "vision-language", "benchmark", "evaluation"],
            "size_categories": [size_category(s.num_pairs)],
            "configs": [{"config_name": "default", "data_files": [{"split": cfg.split, "path": f"data/{cfg.split}-*"}]}],
            "dataset_info": {
                "features": features_yaml(features()),
                "splits": [{"name": cfg.split, "num_bytes": s.dataset_size, "num_examples": s.num_pairs}],
                "download_size": s.download_size,
                "dataset_size": s.dataset_size,
            },
        }

    def card_values(self, s: BuildSummary) -> dict:
        from benchcore.tables import markdown_table

        cfg = self.config
        n_items = max(1, s.num_items)
        cat_rows = [[i, f"`{c}`", CATEGORY_MEANINGS[c], s.category_counts[c], f"{100 * s.category_counts[c] / n_items:.1f}%"]
                    for i, c in enumerate(CATEGORIES)]
        src_rows = [[i, f"`{src}`", s.source_counts[src]] for i, src in enumerate(SOURCES)]
        notes = "\n".join(f"- **{v}**: {t}" for v, t in sorted(self.RELEASE_NOTES.items(), reverse=True))
        return {
            "pretty_name": cfg.pretty_name,
            "version": self.VERSION,
            "split": cfg.split,
            "num_pairs": s.num_pairs,
            "num_items": s.num_items,
            "items_per_pair": f"{s.num_items / max(1, s.num_pairs):.2f}",
            "num_ambiguous": s.num_ambiguous,
            "num_shards": len(s.shards),
            "provenance": cfg.provenance,
            "category_table": markdown_table(["index", "category", "meaning", "items", "share"], cat_rows),
            "source_table": markdown_table(["index", "source", "pairs"], src_rows),
            "release_notes": notes,
            "citation": CITATION,
            "license": cfg.license,
        }

    def render_card(self, s: BuildSummary) -> str:
        from benchcore.cards import render_card

        return render_card(CARD_NAME, self.front_matter(s), self.card_values(s))


def looks_built(folder: Path) -> bool:
    return (folder / "README.md").is_file() and (folder / "data").is_dir()


def check_replaceable(out_dir: str | Path, looks_ours, what: str, inputs: Iterable[str | Path] = ()) -> None:
    """Refuse to replace a folder that is not ours, or one that holds an input of the run.

    Writing replaces OUT_DIR as a whole, so a typo like ``build raw/ .`` must not wipe a folder.
    """
    from benchcore.errors import InputError

    out = Path(out_dir).resolve()
    for src in inputs:
        src = Path(src).resolve()
        if src == out or out in src.parents:
            raise InputError(f"output folder {out_dir} would replace the input {src}; choose another folder")
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not looks_ours(out))):
        raise InputError(f"output folder {out_dir} exists and is not {what}; refusing to replace it "
                         f"(remove it or choose another folder)")


def _make_readable(folder: Path) -> None:
    """The temp folder is created private (0700); a dataset folder is meant to be shared."""
    import os

    umask = os.umask(0)
    os.umask(umask)
    folder.chmod(0o777 & ~umask)


def write_parquet(table, path: Path, row_group_rows: int, compression: str) -> None:
    """Write one shard with fixed settings so the same rows give the same bytes."""
    import pyarrow.parquet as pq

    pq.write_table(table, str(path), row_group_size=row_group_rows, compression=compression,
                   use_dictionary=["pair_id"], write_statistics=False, store_schema=True,
                   write_page_index=False)


def size_category(n: int) -> str:
    """Hub ``size_categories`` bucket of ``n`` rows.

    >>> size_category(64), size_category(1075)
    ('n<1K', '1K<n<10K')
    """
    for bound, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < bound:
            return label
    return "n>1M"


def build(raw_dir: str | Path, out_dir: str | Path, config: Optional[DiffCapConfig] = None, **overrides: Any) -> BuildSummary:
    """Shortcut: ``DiffCapBuilder(config, **overrides).build(raw_dir, out_dir)``."""
    return DiffCapBuilder(config, **overrides).build(raw_dir, out_dir)


def iter_rows(out_dir: str | Path) -> Iterable[dict]:
    """Rows of a built folder in storage form (for checks and tools; ``load`` is the usual way)."""
    import pyarrow.parquet as pq

    for shard in sorted(Path(out_dir).glob("data/*.parquet")):
        yield from pq.read_table(shard).to_pylist()
