"""Verify a built folder from its stored rows alone.

For every scenario: the row range holds exactly its rows; ``v_present`` matches the labels;
the 2x2 table and Cramér's V recomputed from ``v_present`` x ``inserted`` equal the stored
counts and ``achieved_v`` (and |V - target| <= tolerance); no inserted t is present or
uncertain in its image; every span covers exactly the template sentence named by
``template_id``; rows without insertion have no template and span -1; every image id is in
the images table.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from benchcore.errors import InputError
from symbalbench.construct import cramers_v
from symbalbench.templates import templates_for

_COLUMNS = ["scenario_id", "image", "caption", "labels", "uncertain", "v_present", "inserted",
            "template_id", "span_start", "span_end"]
MAX_PROBLEMS_PER_SCENARIO = 5


@dataclasses.dataclass
class VerifyReport:
    """Per-scenario results and every problem found (empty when the build is sound)."""

    rows: list[dict]
    problems: list[tuple[str, str]]

    @property
    def ok(self) -> bool:
        return not self.problems

    def table(self, per_scenario: bool = False) -> str:
        """A markdown table: one line per (domain, strength), or per scenario."""
        from benchcore.tables import markdown_table

        if per_scenario:
            return markdown_table(["scenario", "rows", "target", "recomputed V", "abs diff", "ok"],
                                  [[r["scenario_id"], r["n_rows"], r["target_v"], r["v"], abs(r["v"] - r["target_v"]),
                                    "yes" if r["ok"] else "NO"] for r in self.rows], digits=4)
        groups: dict[tuple, list[dict]] = {}
        for r in self.rows:
            groups.setdefault((r["domain"], r["strength"]), []).append(r)
        lines = [[d, s, len(g), sum(x["n_rows"] for x in g), min(x["v"] for x in g), max(x["v"] for x in g),
                  max(abs(x["v"] - x["target_v"]) for x in g), sum(not x["ok"] for x in g)]
                 for (d, s), g in sorted(groups.items())]
        return markdown_table(["domain", "strength", "datasets", "rows", "min V", "max V", "max abs(V - target)",
                               "failed"], lines, digits=4)


def _read_domain(root: Path, domain: str) -> Optional[pa.Table]:
    shards = sorted((root / "data").glob(f"{domain}-*-of-*.parquet"))
    if not shards:
        return None
    return pa.concat_tables([pq.read_table(p, columns=_COLUMNS) for p in shards])


def _contains(lists: pa.Array, value: str) -> np.ndarray:
    """Per row: does the list contain ``value``?"""
    lists = lists.combine_chunks() if isinstance(lists, pa.ChunkedArray) else lists
    flat = pc.equal(pc.list_flatten(lists), value).to_numpy(zero_copy_only=False)
    out = np.zeros(len(lists), dtype=bool)
    parents = pc.list_parent_indices(lists).to_numpy()
    out[parents[flat]] = True
    return out


def verify_scenario(s: dict, rows: pa.Table, tolerance: float) -> tuple[dict, list[str]]:
    """Check one scenario's rows; return its summary row and its problems."""
    problems = []
    n = rows.num_rows
    if n != s["n_rows"]:
        problems.append(f"row range holds {n} rows, n_rows says {s['n_rows']}")
    ids = rows.column("scenario_id")
    if pc.any(pc.not_equal(ids, s["scenario_id"])).as_py():
        problems.append("row range holds rows of another scenario")
    vp = rows.column("v_present").to_numpy()
    ins = rows.column("inserted").to_numpy()
    if not np.array_equal(vp, _contains(rows.column("labels"), s["visual_feature"])):
        problems.append(f"v_present disagrees with labels containing {s['visual_feature']!r}")
    n11, n10 = int((vp & ins).sum()), int((vp & ~ins).sum())
    n01, n00 = int((~vp & ins).sum()), int((~vp & ~ins).sum())
    if (n11, n10, n01, n00) != (s["n11"], s["n10"], s["n01"], s["n00"]):
        problems.append(f"2x2 counts {(n11, n10, n01, n00)} differ from stored {(s['n11'], s['n10'], s['n01'], s['n00'])}")
    v = cramers_v(n11, n10, n01, n00)
    if abs(v - s["achieved_v"]) > 1e-9:
        problems.append(f"recomputed V {v:.6f} differs from stored achieved_v {s['achieved_v']:.6f}")
    if abs(v - s["target_v"]) > tolerance + 1e-12:
        problems.append(f"V {v:.4f} is further than {tolerance} from target {s['target_v']}")
    t = s["text_error"]
    bad = ins & (_contains(rows.column("labels"), t) | _contains(rows.column("uncertain"), t))
    if bad.any():
        problems.append(f"t {t!r} inserted in {int(bad.sum())} rows whose image has it (present or uncertain)")
    problems += _check_spans(s, rows, ins)
    return {**{k: s[k] for k in ("scenario_id", "domain", "strength", "n_rows", "target_v")}, "v": v,
            "ok": not problems}, problems[:MAX_PROBLEMS_PER_SCENARIO]


def _check_spans(s: dict, rows: pa.Table, ins: np.ndarray) -> list[str]:
    problems = []
    starts = rows.column("span_start").to_numpy()
    ends = rows.column("span_end").to_numpy()
    tids = rows.column("template_id")
    no = ~ins
    if (starts[no] != -1).any() or (ends[no] != -1).any() or pc.any(pc.is_valid(pc.filter(tids, pa.array(no)))).as_py():
        problems.append("a row without insertion has a span or template_id")
    sentences = templates_for(s["domain"], s["text_error"])
    idx = np.flatnonzero(ins)
    caps = rows.column("caption").take(pa.array(idx)).to_pylist()
    for i, cap, tid in zip(idx.tolist(), caps, tids.take(pa.array(idx)).to_pylist()):
        expected = sentences.get(tid)
        if expected is None:
            problems.append(f"row {i}: unknown template_id {tid!r}")
        elif cap[starts[i]:ends[i]] != expected:
            problems.append(f"row {i}: span {starts[i]}:{ends[i]} is {cap[starts[i]:ends[i]]!r}, "
                            f"not template {tid} {expected!r}")
        if len(problems) >= MAX_PROBLEMS_PER_SCENARIO:
            break
    return problems


def verify(out_dir: str | Path) -> VerifyReport:
    """Recompute and check everything a build stores (see module docstring)."""
    root = Path(out_dir)
    path = root / "data" / "scenarios.parquet"
    if not path.is_file():
        raise InputError(f"{root}: not a SymbalBench build (no data/scenarios.parquet)")
    info_path = root / "build_info.json"
    info = json.loads(info_path.read_text(encoding="utf-8")) if info_path.is_file() else {}
    tolerance = float(info.get("grid", {}).get("tolerance", 0.02))
    scenarios = pq.read_table(path).to_pylist()
    images = set(pq.read_table(root / "data" / "images.parquet", columns=["image_id"]).column("image_id").to_pylist()) \
        if (root / "data" / "images.parquet").is_file() else None
    rows_out, problems = [], []
    for domain in ("natural", "medical"):
        mine = sorted((s for s in scenarios if s["domain"] == domain), key=lambda s: s["row_start"])
        table = _read_domain(root, domain)
        if table is None:
            if mine:
                problems.append((domain, f"{len(mine)} scenarios but no {domain} table"))
            continue
        expected = 0
        for s in mine:
            if s["row_start"] != expected:
                problems.append((s["scenario_id"], f"row range starts at {s['row_start']}, expected {expected}"))
            expected = s["row_end"]
            summary, probs = verify_scenario(s, table.slice(s["row_start"], s["row_end"] - s["row_start"]), tolerance)
            rows_out.append(summary)
            problems += [(s["scenario_id"], p) for p in probs]
        if expected != table.num_rows:
            problems.append((domain, f"{table.num_rows} rows stored, scenarios cover {expected}"))
        if images is not None:
            missing = set(pc.unique(table.column("image")).to_pylist()) - images
            if missing:
                problems.append((domain, f"{len(missing)} image ids not in images.parquet, e.g. {sorted(missing)[0]!r}"))
    return VerifyReport(rows_out, problems)
