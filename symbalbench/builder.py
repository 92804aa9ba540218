"""Build the SymbalBench datasets from bases into a Hub-ready folder.

Layout written (``OUT/``)::

    README.md                         dataset card with YAML configs + dataset_info
    data/scenarios.parquet            one row per dataset (scenario), with its row range
    data/natural-0000i-of-0000n.parquet   every natural dataset, sorted by scenario_id
    data/medical-0000i-of-0000n.parquet   every medical dataset, sorted by scenario_id
    data/images.parquet               each image once: image_id -> {bytes, path}
    build_info.json                   version, seed, grid, base statistics, refused scenarios

Rows of one dataset are contiguous (``row_start``..``row_end``, end exclusive, counted over the
domain's shards in order), so a dataset is a zero-copy slice. A row's ``image`` is an image id
("natural/val2017/000000000139.jpg"); images are stored once in ``images.parquet``, either with
their bytes (``images="embed"``, used for the bundled sample) or only as paths relative to the
base folder (``images="reference"``, the default for full builds: MIMIC-CXR cannot be
redistributed), in which case ``build_info.json`` records the base folders.
"""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Optional

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from benchcore.errors import InputError
from symbalbench import construct
from symbalbench.base.records import Base
from symbalbench.grid import Grid, Refused, ScenarioPlan, make_grid, plan_medical, plan_natural, size_strata
from symbalbench.templates import templates_for

DOMAINS = ("natural", "medical")
SPLIT = "test"

ROW_FIELDS = [
    ("scenario_id", pa.string()), ("record_id", pa.string()), ("image", pa.string()),
    ("caption", pa.string()), ("references", pa.list_(pa.string())), ("labels", pa.list_(pa.string())),
    ("uncertain", pa.list_(pa.string())), ("v_present", pa.bool_()), ("inserted", pa.bool_()),
    ("template_id", pa.string()), ("span_start", pa.int32()), ("span_end", pa.int32()),
]
SCENARIO_FIELDS = [
    ("scenario_id", pa.string()), ("domain", pa.string()), ("text_error", pa.string()),
    ("visual_feature", pa.string()), ("sampling", pa.string()), ("size", pa.string()),
    ("strength", pa.string()), ("draw", pa.int32()), ("target_v", pa.float64()), ("achieved_v", pa.float64()),
    ("n_rows", pa.int64()), ("n_inserted", pa.int64()), ("n_v_present", pa.int64()),
    ("n11", pa.int64()), ("n10", pa.int64()), ("n01", pa.int64()), ("n00", pa.int64()),
    ("n_not_eligible", pa.int64()), ("row_start", pa.int64()), ("row_end", pa.int64()),
]

_DTYPES = {pa.string(): "string", pa.bool_(): "bool", pa.int32(): "int32", pa.int64(): "int64",
           pa.float64(): "float64"}


def row_features():
    """``datasets.Features`` of the natural/medical tables."""
    from datasets import Features, List, Value

    return Features({n: List(Value("string")) if pa.types.is_list(t) else Value(_DTYPES[t]) for n, t in ROW_FIELDS})


def scenario_features():
    from datasets import Features, Value

    return Features({n: Value(_DTYPES[t]) for n, t in SCENARIO_FIELDS})


def image_features():
    from datasets import Features, Image, Value

    return Features({"image_id": Value("string"), "domain": Value("string"), "image": Image()})


ROW_GROUP_ROWS = 128 * 1024  # scenarios are written in row groups of about this many rows


def _flush(writer: pq.ParquetWriter, pending: list[pa.Table]) -> None:
    """Write the pending scenario tables as one row group and empty the list."""
    if pending:
        writer.write_table(pa.concat_tables(pending), row_group_size=10 * ROW_GROUP_ROWS)
        pending.clear()


@dataclasses.dataclass
class BuildReport:
    """What a build produced: counts, refused scenarios and the output folder."""

    out_dir: Path
    n_scenarios: int
    n_rows: dict[str, int]
    refused: list[Refused]
    files: list[str]

    def summary(self) -> str:
        rows = ", ".join(f"{d}: {n:,} rows" for d, n in self.n_rows.items())
        return (f"built {self.n_scenarios} datasets ({rows}) into {self.out_dir}; "
                f"{len(self.refused)} refused")


class SymbalBenchBuilder:
    """Deterministic builder: same bases + grid + seed -> byte-identical folder.

    >>> SymbalBenchBuilder.VERSION
    '1.0.0'
    """

    VERSION = "1.0.0"
    RELEASE_NOTES = {
        "1.0.0": "First release: 420-dataset default grid (360 natural from COCO, 60 medical from "
                 "MIMIC-CXR-JPG), exact-count Cramér's V construction, reference-free and "
                 "reference-based variants, images stored once.",
    }

    def __init__(self, grid: Optional[Grid] = None, seed: int = 0, images: str = "reference",
                 shard_rows: int = 1_000_000, progress: bool = True, card: bool = True, note: str = ""):
        if images not in ("reference", "embed"):
            raise InputError(f"images must be 'reference' or 'embed', got {images!r}")
        self.grid = grid or make_grid()
        self.seed = int(seed)
        self.images = images
        self.shard_rows = int(shard_rows)
        self.progress = progress
        self.card = card
        self.note = note
        self.size_threshold: Optional[float] = None

    # ------------------------------------------------------------------ public
    def build(self, out_dir: str | Path, natural: Optional[Base] = None, medical: Optional[Base] = None) -> BuildReport:
        """Build every scenario of the grid that the given bases support into ``out_dir``."""
        from benchcore.outdir import atomic_output_dir

        bases = {d: b for d, b in (("natural", natural), ("medical", medical)) if b is not None}
        if not bases:
            raise InputError("give at least one base (natural and/or medical)")
        for d, b in bases.items():
            if b.domain != d:
                raise InputError(f"{b.source}: a {b.domain} base was given as the {d} base")
        with atomic_output_dir(out_dir) as tmp:
            report = self._build_into(Path(tmp), bases)
        report.out_dir = Path(out_dir)
        return report

    # ------------------------------------------------------------------ steps
    def _build_into(self, out: Path, bases: dict[str, Base]) -> BuildReport:
        (out / "data").mkdir(parents=True)
        scenario_rows: list[dict] = []
        refused: list[Refused] = []
        n_rows: dict[str, int] = {}
        files: list[str] = []
        for domain, base in bases.items():
            fi = construct.feature_index(base.table, construct.domain_features(domain, base.table))
            planner = plan_natural if domain == "natural" else plan_medical
            spec = self.grid.natural if domain == "natural" else self.grid.medical
            if not spec:
                continue
            plans, ref = planner(fi, self.grid, self.seed)
            if domain == "natural":
                self.size_threshold = size_strata(fi, fi.names, spec)[1]
            refused += ref
            plans.sort(key=lambda p: p.scenario_id)
            rows, ref, shard_files = self._write_domain(out, domain, base, fi, plans)
            scenario_rows += rows
            refused += ref
            files += shard_files
            n_rows[domain] = sum(r["n_rows"] for r in rows)
        scenario_rows.sort(key=lambda r: (r["domain"] != "natural", r["scenario_id"]))
        self._write_scenarios(out, scenario_rows)
        self._write_images(out, bases)
        self._write_info(out, bases, refused, scenario_rows)
        if self.card:
            self._write_card(out, scenario_rows, refused, files, n_rows, bases)
        return BuildReport(out, len(scenario_rows), n_rows, refused, files)

    def _domain_columns(self, domain: str, base: Base) -> dict[str, pa.Array]:
        t = base.table
        image = pa.array([f"{domain}/{p}" for p in t.column("image").to_pylist()], pa.string())
        return {"record_id": t.column("record_id").combine_chunks(), "image": image,
                "references": t.column("references").combine_chunks(),
                "labels": t.column("labels").combine_chunks(),
                "uncertain": t.column("uncertain").combine_chunks(),
                "caption": t.column("caption").combine_chunks()}

    def _write_domain(self, out: Path, domain: str, base: Base, fi, plans: list[ScenarioPlan]):
        from tqdm.auto import tqdm

        cols = self._domain_columns(domain, base)
        captions = cols["caption"]
        boundaries = [construct.sentence_boundaries(c) for c in captions.to_pylist()]
        schema = row_features().arrow_schema
        n = base.table.num_rows
        rows, refused = [], []
        writer, shard, shard_rows, paths = None, 0, 0, []
        pending: list[pa.Table] = []  # scenarios waiting to be written as one row group
        offset = 0
        for plan in tqdm(plans, desc=f"building {domain}", unit="dataset", disable=not self.progress):
            vp, el, counts = construct.scenario_counts(fi, plan.visual_feature, plan.text_error, plan.target_v,
                                                       self.grid.tolerance)
            if isinstance(counts, construct.Refusal):
                refused.append(Refused(plan.scenario_id, domain, counts.reason))
                continue
            sentences_by_id = templates_for(domain, plan.text_error)
            template_ids = list(sentences_by_id)
            built = construct.build_rows(captions, boundaries, vp, el, counts,
                                         [sentences_by_id[k] for k in template_ids],
                                         construct.scenario_rng(self.seed, plan.scenario_id),
                                         prefer=~fi.negated[:, fi.column[plan.text_error]])
            table = self._scenario_table(plan, cols, built, template_ids, schema)
            if writer is None or shard_rows + n > self.shard_rows and shard_rows > 0:
                if writer is not None:
                    _flush(writer, pending)
                    writer.close()
                path = out / "data" / f".{domain}-{shard:05d}.parquet"
                writer = pq.ParquetWriter(path, schema)
                paths.append(path)
                shard, shard_rows = shard + 1, 0
            pending.append(table)
            if sum(t.num_rows for t in pending) >= ROW_GROUP_ROWS:
                _flush(writer, pending)
            shard_rows += n
            rows.append(self._scenario_row(plan, counts, offset, n, int(n - el.sum())))
            offset += n
        if writer is not None:
            _flush(writer, pending)
            writer.close()
        final = []
        for i, p in enumerate(paths):
            name = f"{domain}-{i:05d}-of-{len(paths):05d}.parquet"
            os.replace(p, out / "data" / name)
            final.append(f"data/{name}")
        return rows, refused, final

    @staticmethod
    def _scenario_table(plan: ScenarioPlan, cols: dict, built: construct.Inserted, template_ids: list[str],
                        schema: pa.Schema) -> pa.Table:
        n = len(built.inserted)
        tid = built.template_index
        template_col = pa.array(template_ids, pa.string()).take(pa.array(tid, mask=tid < 0))
        sid = pa.array([plan.scenario_id], pa.string()).take(pa.array(np.zeros(n, dtype=np.int32)))
        arrays = {
            "scenario_id": sid, "record_id": cols["record_id"], "image": cols["image"],
            "caption": built.captions, "references": cols["references"], "labels": cols["labels"],
            "uncertain": cols["uncertain"], "v_present": pa.array(built.v_present), "inserted": pa.array(built.inserted),
            "template_id": template_col, "span_start": pa.array(built.span_start), "span_end": pa.array(built.span_end),
        }
        return pa.Table.from_arrays([arrays[f.name] for f in schema], schema=schema)

    @staticmethod
    def _scenario_row(plan: ScenarioPlan, c: construct.Counts, start: int, n: int, not_eligible: int) -> dict:
        return {"scenario_id": plan.scenario_id, "domain": plan.domain, "text_error": plan.text_error,
                "visual_feature": plan.visual_feature, "sampling": plan.sampling, "size": plan.size,
                "strength": plan.strength, "draw": plan.draw, "target_v": plan.target_v,
                "achieved_v": round(c.achieved_v, 12), "n_rows": n, "n_inserted": c.n11 + c.n01,
                "n_v_present": c.n11 + c.n10, "n11": c.n11, "n10": c.n10, "n01": c.n01, "n00": c.n00,
                "n_not_eligible": not_eligible, "row_start": start, "row_end": start + n}

    def _write_scenarios(self, out: Path, rows: list[dict]) -> None:
        schema = scenario_features().arrow_schema
        table = pa.Table.from_pylist(rows, schema=schema)
        pq.write_table(table, out / "data" / "scenarios.parquet")

    def _write_images(self, out: Path, bases: dict[str, Base]) -> None:
        ids, domains, structs = [], [], []
        for domain, base in bases.items():
            for rel in sorted(set(base.table.column("image").to_pylist())):
                ids.append(f"{domain}/{rel}")
                domains.append(domain)
                data = None
                if self.images == "embed":
                    path = Path(base.root or ".") / rel
                    if not path.is_file():
                        raise InputError(f"{path}: image not found (needed to embed it)")
                    data = path.read_bytes()
                structs.append({"bytes": data, "path": rel})
        schema = image_features().arrow_schema
        table = pa.Table.from_arrays([pa.array(ids, pa.string()), pa.array(domains, pa.string()),
                                      pa.array(structs, schema.field("image").type)], schema=schema)
        pq.write_table(table, out / "data" / "images.parquet")

    def _write_info(self, out: Path, bases, refused, rows) -> None:
        info = {"name": "symbalbench", "version": self.VERSION, "seed": self.seed, "images": self.images,
                "grid": self.grid.to_dict(), "size_threshold": self.size_threshold, "n_scenarios": len(rows),
                "bases": {d: {"records": len(b), "stats": b.stats} for d, b in bases.items()},
                "refused": [dataclasses.asdict(r) for r in refused]}
        if self.images == "reference":
            info["image_roots"] = {d: str(Path(b.root).resolve()) if b.root else None for d, b in bases.items()}
        (out / "build_info.json").write_text(json.dumps(info, indent=1, sort_keys=False) + "\n", encoding="utf-8")

    def _write_card(self, out: Path, rows, refused, files, n_rows, bases) -> None:
        (out / "README.md").write_text(render_card_text(self, rows, refused, files, n_rows, bases), encoding="utf-8")


# ---------------------------------------------------------------------------- the card
def _configs(files: list[str], n_rows: dict[str, int]) -> list[dict]:
    configs = [{"config_name": "scenarios", "data_files": [{"split": SPLIT, "path": "data/scenarios.parquet"}],
                "default": True}]
    for domain in DOMAINS:
        shard = [f for f in files if f.startswith(f"data/{domain}-")]
        if shard:
            configs.append({"config_name": domain, "data_files": [{"split": SPLIT, "path": shard}]})
    configs.append({"config_name": "images", "data_files": [{"split": SPLIT, "path": "data/images.parquet"}]})
    return configs


def render_card_text(builder: SymbalBenchBuilder, rows: list[dict], refused: list[Refused], files: list[str],
                     n_rows: dict[str, int], bases: dict[str, Base]) -> str:
    """README.md of a build: YAML configs + dataset_info, body from ``dataset_cards/symbalbench.md``."""
    from benchcore.cards import features_yaml, render_card
    from benchcore.tables import markdown_table

    configs = _configs(files, n_rows)
    info = [{"config_name": "scenarios", "features": features_yaml(scenario_features())}]
    info += [{"config_name": d, "features": features_yaml(row_features())} for d in DOMAINS if d in n_rows]
    info.append({"config_name": "images", "features": features_yaml(image_features())})
    front = {"pretty_name": "SymbalBench", "license": "other", "language": ["en"],
             "task_categories": ["image-to-text"], "tags": ["vision-language", "misalignment", "benchmark"],
             "configs": configs, "dataset_info": info}
    by_domain = []
    for domain in DOMAINS:
        sel = [r for r in rows if r["domain"] == domain]
        if sel:
            err = max(abs(r["achieved_v"] - r["target_v"]) for r in sel)
            by_domain.append([domain, len(sel), n_rows[domain], err])
    strengths = []
    for name, target in builder.grid.strengths.items():
        sel = [r for r in rows if r["strength"] == name]
        if sel:
            strengths.append([name, target, len(sel), min(r["achieved_v"] for r in sel),
                              max(r["achieved_v"] for r in sel)])
    refused_md = (markdown_table(["scenario", "domain", "reason"], [[r.scenario_id, r.domain, r.reason] for r in refused])
                  if refused else "None: every requested dataset was built.")
    base_md = markdown_table(["domain", "records", "source statistics"],
                             [[d, len(b), ", ".join(f"{k}={v}" for k, v in b.stats.items())] for d, b in bases.items()])
    notes = "\n".join(f"- **{v}**: {text}" for v, text in builder.RELEASE_NOTES.items())
    values = {
        "version": builder.VERSION, "seed": builder.seed, "n_scenarios": len(rows),
        "n_rows": f"{sum(n_rows.values()):,}", "image_mode": builder.images, "tolerance": builder.grid.tolerance,
        "domain_table": markdown_table(["domain", "datasets", "rows", "max abs(achieved - target)"], by_domain, digits=4),
        "strength_table": markdown_table(["strength", "target V", "datasets", "min achieved", "max achieved"],
                                         strengths, digits=4),
        "base_table": base_md, "refused_table": refused_md, "release_notes": notes,
        "grid_json": json.dumps(builder.grid.to_dict(), sort_keys=True), "note": builder.note,
        "size_threshold": "n/a" if builder.size_threshold is None else f"{builder.size_threshold:.4f}",
    }
    return render_card("symbalbench", front, values)


# ---------------------------------------------------------------------------- the bundled sample
SAMPLE_NATURAL_IMAGES = 200
SAMPLE_MEDICAL_STUDIES = 160
SAMPLE_FILES = ("README.md", "build_info.json")


def build_sample(out_dir: str | Path, seed: int = 0, progress: bool = False) -> BuildReport:
    """Build the bundled sample from the seeded synthetic fixtures (24 datasets, both domains).

    The fixtures are generated in a temporary folder; images are embedded, so the sample is
    self-contained. ``symbalbench/README.md``, ``build_info.json`` and ``data/`` are a copy of it.
    """
    from symbalbench.base.coco import load_coco
    from symbalbench.base.mimic import load_mimic
    from symbalbench.fixtures import make_coco, make_mimic
    from symbalbench.grid import SAMPLE_GRID

    with tempfile.TemporaryDirectory(prefix="symbal-sample-") as tmp:
        coco = make_coco(Path(tmp) / "coco", SAMPLE_NATURAL_IMAGES, seed=seed)
        mimic = make_mimic(Path(tmp) / "mimic", SAMPLE_MEDICAL_STUDIES, seed=seed)
        note = (f"This is the bundled sample: built from the seeded synthetic fixtures "
                f"(`symbalbench.fixtures`: {SAMPLE_NATURAL_IMAGES} COCO-format images, "
                f"{SAMPLE_MEDICAL_STUDIES} MIMIC-CXR-JPG-format studies), not from real data.")
        builder = SymbalBenchBuilder(make_grid(SAMPLE_GRID), seed=seed, images="embed", progress=progress, note=note)
        return builder.build(out_dir, load_coco(coco), load_mimic(mimic))


def install_sample(build_dir: str | Path, package_dir: str | Path) -> list[str]:
    """Copy a built sample's card, build_info and data/ into the package folder; return the files."""
    src, dst = Path(build_dir), Path(package_dir)
    if (dst / "data").exists():
        shutil.rmtree(dst / "data")
    shutil.copytree(src / "data", dst / "data")
    for name in SAMPLE_FILES:
        shutil.copy2(src / name, dst / name)
    return sorted([*SAMPLE_FILES, *(f"data/{p.name}" for p in (dst / "data").iterdir())])
