"""Data access for the Space: plain functions, no Gradio.

Every view of the app calls these functions and only formats their results; the tests call
them directly. Datasets are loaded lazily (never at import time) and cached per path with
``functools.lru_cache``: the cached values are read-only, so sessions share nothing mutable.

Paths: ``None`` means the bundled sample of each benchmark; a string is a built folder.
"""
from __future__ import annotations

import argparse
import base64
import io
import json
import math
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence

from symbalbench.store import VARIANTS  # reference_free, reference_based (light import: no data)

# --------------------------------------------------------------------------------------------
# Constants that are data: colours of the ten categories and of the labels (one place).
# --------------------------------------------------------------------------------------------

CATEGORY_COLOURS: dict[str, str] = {
    "object": "#e6194b",
    "attribute": "#f58231",
    "action_pose": "#bfa300",
    "spatial_relation": "#3cb44b",
    "composition": "#008080",
    "text_symbol": "#4363d8",
    "background": "#911eb4",
    "camera_viewpoint": "#a9a9a9",
    "image_property": "#f032e6",
    "expression": "#9a6324",
}
CLAIM_COLOURS: dict[str, str] = {
    "correct": "#2e7d32",
    "wrong": "#f9a825",
    "ambiguous": "#90a4ae",
    "detail": "#1e88e5",
    "hallucination": "#c62828",
}
ITEM_STATUS_COLOURS: dict[str, str] = {
    "correct": "#2e7d32",
    "wrong": "#f9a825",
    "missed": "#c62828",
    "ambiguous": "#90a4ae",
}
AMBIGUOUS_CHOICES: tuple[str, ...] = ("any", "with ambiguous items", "without ambiguous items")
ANY = "any"  # the "no filter" value of the filters of both browsers
ROW_FILTERS: tuple[str, ...] = ("v present", "t inserted")
DEFAULT_PAGE_SIZE = 8
THUMBNAIL_PX = 112


class UnknownId(LookupError):
    """A pair or scenario id that the loaded folder does not hold."""


# --------------------------------------------------------------------------------------------
# Configuration: which folders the app reads.
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SpaceConfig:
    """Folders the app reads; ``None`` means the bundled samples and the Space's example leaderboard."""

    diffcap: Optional[str] = None
    symbal: Optional[str] = None
    leaderboard: Optional[str] = None


def default_leaderboard_dir() -> str:
    """The folder of example ``scores.json`` files shipped with the Space."""
    return str(Path(__file__).resolve().parent / "leaderboard")


def config_from(argv: Optional[Sequence[str]] = None, environ: Mapping[str, str] = os.environ) -> SpaceConfig:
    """Read the folders from command-line arguments, falling back to environment variables.

    >>> config_from(["--diffcap", "built/diffcap"], environ={"SYMBAL_DATA": "built/symbal"})
    SpaceConfig(diffcap='built/diffcap', symbal='built/symbal', leaderboard=None)
    """
    args, _ = app_argument_parser().parse_known_args(argv)
    return SpaceConfig(
        diffcap=args.diffcap or environ.get("DIFFCAP_DATA") or None,
        symbal=args.symbal or environ.get("SYMBAL_DATA") or None,
        leaderboard=args.leaderboard or environ.get("LEADERBOARD_DIR") or None,
    )


def app_argument_parser() -> argparse.ArgumentParser:
    """Arguments of ``python space/app.py`` (each folder can also come from an env variable)."""
    p = argparse.ArgumentParser(description="DiffCap-Bench & SymbalBench Space (offline on the bundled samples).")
    p.add_argument("--diffcap", help="built DiffCap-Bench folder (env DIFFCAP_DATA; default: bundled sample)")
    p.add_argument("--symbal", help="built SymbalBench folder (env SYMBAL_DATA; default: bundled sample)")
    p.add_argument("--leaderboard", help="folder of scores.json files (env LEADERBOARD_DIR)")
    p.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"))
    p.add_argument("--port", type=int, default=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))
    return p


# --------------------------------------------------------------------------------------------
# DiffCap-Bench: index, filters, one pair.
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PairSummary:
    """What the filters need of one pair (no images)."""

    pair_id: str
    source: str
    categories: tuple[str, ...]  # one per difference item
    ambiguous: tuple[bool, ...]  # one per difference item


@dataclass(frozen=True)
class PairView:
    """One pair as the browser shows it."""

    pair_id: str
    source: str
    image_a: Any  # PIL.Image.Image
    image_b: Any
    items: tuple  # tuple[capjudge.Item, ...], category as a name


@lru_cache(maxsize=4)
def diffcap_dataset(path: Optional[str] = None):
    """The DiffCap-Bench test split at ``path`` (``None``: the bundled sample), loaded once."""
    import diffcap_bench

    return diffcap_bench.load(split="test", path=path)


def category_names() -> tuple[str, ...]:
    """The ten DiffCap-Bench categories in ClassLabel order."""
    from diffcap_bench.schema import CATEGORIES

    return CATEGORIES


def source_names() -> tuple[str, ...]:
    """The DiffCap-Bench sources in ClassLabel order."""
    from diffcap_bench.schema import SOURCES

    return SOURCES


@lru_cache(maxsize=4)
def diffcap_index(path: Optional[str] = None) -> tuple[PairSummary, ...]:
    """Summaries of every pair at ``path``, read once without decoding images."""
    from diffcap_bench.schema import category_name, source_name

    ds = diffcap_dataset(path).select_columns(["pair_id", "source", "differences"])
    return tuple(
        PairSummary(
            pair_id=str(row["pair_id"]),
            source=source_name(row["source"]),
            categories=tuple(category_name(d["category"]) for d in row["differences"] or []),
            ambiguous=tuple(bool(d["ambiguous"]) for d in row["differences"] or []),
        )
        for row in ds.to_list()
    )


@lru_cache(maxsize=4)
def _row_numbers(path: Optional[str]) -> Mapping[str, int]:
    return {s.pair_id: n for n, s in enumerate(diffcap_index(path))}


def _row_number(path: Optional[str], pair_id: str) -> int:
    n = _row_numbers(path).get(pair_id)
    if n is None:
        raise UnknownId(f"pair {pair_id!r} is not in {path or 'the bundled DiffCap-Bench sample'}")
    return n


def pair_ids(path: Optional[str] = None) -> list[str]:
    """Every pair id at ``path`` in dataset order."""
    return [s.pair_id for s in diffcap_index(path)]


def _keeps(s: PairSummary, categories: set[str], sources: set[str], ambiguous: str) -> bool:
    if categories and not categories.intersection(s.categories):
        return False
    if sources and s.source not in sources:
        return False
    if ambiguous == AMBIGUOUS_CHOICES[1]:
        return any(s.ambiguous)
    if ambiguous == AMBIGUOUS_CHOICES[2]:
        return not any(s.ambiguous)
    return True


def filter_pairs(path: Optional[str] = None, categories: Iterable[str] = (), sources: Iterable[str] = (),
                 ambiguous: str = ANY) -> list[str]:
    """Pair ids that pass the filters, in dataset order.

    A pair passes ``categories`` if one of its items has one of them, ``sources`` if its source
    is one of them (an empty filter keeps everything), and ``ambiguous`` if it is "any", or
    "with ambiguous items" / "without ambiguous items" and the pair has / has no ambiguous item.
    """
    if ambiguous not in AMBIGUOUS_CHOICES:
        raise ValueError(f"ambiguous filter must be one of {AMBIGUOUS_CHOICES}, got {ambiguous!r}")
    cats, srcs = set(categories or ()), set(sources or ())
    return [s.pair_id for s in diffcap_index(path) if _keeps(s, cats, srcs, ambiguous)]


def category_counts(path: Optional[str], ids: Iterable[str]) -> list[dict]:
    """Items per category over the pairs ``ids``: one record per (category, key/ambiguous).

    Every category appears (with 0 when absent) so the chart keeps its axis steady.
    """
    wanted = set(ids)
    counts = {(c, k): 0 for c in category_names() for k in ("key", "ambiguous")}
    for s in diffcap_index(path):
        if s.pair_id in wanted:
            for cat, amb in zip(s.categories, s.ambiguous):
                counts[(cat, "ambiguous" if amb else "key")] += 1
    return [{"category": c, "kind": k, "items": n} for (c, k), n in counts.items()]


def step_pair(ids: Sequence[str], current: Optional[str], step: int) -> Optional[str]:
    """The pair ``step`` places from ``current`` in ``ids``, wrapping around at both ends.

    >>> step_pair(["a", "b", "c"], "c", 1), step_pair(["a", "b", "c"], "a", -1), step_pair([], "a", 1)
    ('a', 'c', None)
    """
    if not ids:
        return None
    pos = ids.index(current) if current in ids else (-1 if step > 0 else 0)
    return ids[(pos + step) % len(ids)]


def pair_view(path: Optional[str], pair_id: str) -> PairView:
    """The images, source and difference items of one pair."""
    from diffcap_bench.schema import row_items, source_name

    row = diffcap_dataset(path)[_row_number(path, pair_id)]
    return PairView(pair_id=pair_id, source=source_name(row["source"]), image_a=row["image_a"],
                    image_b=row["image_b"], items=tuple(row_items(row)))


def difference_rows(items: Sequence[Any]) -> list[list[str]]:
    """Rows of the difference table: id, category, text, "ambiguous" or "key"."""
    return [[it.id, it.category, it.text, "ambiguous" if it.ambiguous else "key"] for it in items]


# --------------------------------------------------------------------------------------------
# DiffCap-Bench: score one caption.
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CaptionScore:
    """A judged caption: claims, the status of each item, the per-pair metrics."""

    claims: tuple  # tuple[capjudge.Claim, ...]
    items: tuple[tuple[Any, str], ...]  # (Item, "correct" | "wrong" | "missed" | "ambiguous" | "not judged")
    metrics: dict[str, float] = field(default_factory=dict)
    judge: str = ""
    error: Optional[str] = None


def judge_spec(base_url: str = "", model: str = "") -> str:
    """The judge spec for the UI's fields: embedded unless a URL and a model are given.

    >>> judge_spec(), judge_spec("http://127.0.0.1:8000/v1", "qwen")
    ('embedded', 'openai:qwen?base_url=http://127.0.0.1:8000/v1')
    """
    base_url, model = (base_url or "").strip(), (model or "").strip()
    if not base_url and not model:
        return "embedded"
    if not (base_url and model):
        raise ValueError("an OpenAI-compatible judge needs both a base URL and a model name")
    if not base_url.startswith(("http://", "https://")):
        raise ValueError(f"base URL must start with http:// or https://, got {base_url!r}")
    if any(ch in model for ch in "?&= "):
        raise ValueError(f"model name {model!r} must not contain '?', '&', '=' or spaces")
    from urllib.parse import quote

    return f"openai:{model}?base_url={quote(base_url, safe=':/')}"


@lru_cache(maxsize=1)
def _embedded_judge():
    # The embedded judge is deterministic and holds only read-only tables: one per process.
    from capjudge import resolve_judge

    return resolve_judge("embedded")


def make_judge(spec: str, api_key: str = ""):
    """A judge for ``spec``; an OpenAI-compatible judge is built per request (never shared).

    The Space never sends a key from its own environment to a URL a visitor typed (that would
    hand the host's secret to any server); only a key the visitor gives for this one request.
    """
    if spec == "embedded":
        return _embedded_judge()
    from capjudge import parse_spec
    from capjudge.openai import OpenAIJudge

    backend, model, options = parse_spec(spec)
    if backend != "openai":
        raise ValueError(f"the Space offers the embedded judge or an OpenAI-compatible URL, not {spec!r}")

    return OpenAIJudge(model=model, base_url=options["base_url"], api_key=api_key, api_key_env="",
                       progress=False, max_retries=2, timeout=60.0)


def score_caption(path: Optional[str], pair_id: str, caption: str, spec: str = "embedded",
                  api_key: str = "") -> CaptionScore:
    """Judge ``caption`` against the items of ``pair_id`` and compute that pair's metrics."""
    from capjudge import DifferenceCase

    items = pair_view_items(path, pair_id)
    judge = make_judge(spec, api_key)
    result = judge.judge_differences([DifferenceCase.make(items, caption, pair_id)])[0]
    if result.error:
        # a failed judgement is never scored: the items are "not judged", not "missed"
        return CaptionScore(claims=(), items=tuple((it, "not judged") for it in items),
                            judge=judge.signature, error=result.error)
    status = item_status(items, result.claims)
    return CaptionScore(claims=tuple(result.claims), items=tuple((it, status[it.id]) for it in items),
                        metrics=pair_metrics(items, result.claims), judge=judge.signature)


def pair_view_items(path: Optional[str], pair_id: str) -> tuple:
    """The difference items of one pair (without decoding its images)."""
    from diffcap_bench.schema import row_items

    row = diffcap_dataset(path).select_columns(["differences"])[_row_number(path, pair_id)]
    return tuple(row_items(row))


def item_status(items: Sequence[Any], claims: Sequence[Any]) -> dict[str, str]:
    """Each item's status: the forward check of the scoring module; ambiguous items stay "ambiguous"."""
    from diffcap_bench import scoring

    labels = scoring.item_labels(items, claims)
    return {it.id: ("ambiguous" if it.ambiguous else labels[it.id]) for it in items}


def pair_metrics(items: Sequence[Any], claims: Sequence[Any]) -> dict[str, float]:
    """recall, precision_star, f1_star and hallucination_rate of one judged pair."""
    from diffcap_bench import scoring

    m = scoring.pair_metrics(scoring.pair_counts(items, claims)).to_dict()
    return {k: _as_float(m[k]) for k in scoring.PAIR_METRICS}


def _as_float(v: Any) -> float:
    return float("nan") if v is None else float(v)


# --------------------------------------------------------------------------------------------
# SymbalBench: scenarios, contingency table, pages of rows.
# --------------------------------------------------------------------------------------------

SCENARIO_FILTERS: tuple[str, ...] = ("domain", "strength", "sampling", "size")


@lru_cache(maxsize=4)
def symbal_bench(path: Optional[str] = None):
    """The SymbalBench folder at ``path`` (``None``: the bundled sample), loaded once."""
    import symbalbench

    return symbalbench.load(path=path)


@lru_cache(maxsize=4)
def scenario_table(path: Optional[str] = None) -> tuple[dict, ...]:
    """Every scenario's row of the ``scenarios`` table, as read-only dicts in table order."""
    return tuple(symbal_bench(path).scenarios.to_list())


def scenario_choices(path: Optional[str] = None) -> dict[str, list[str]]:
    """For each filter (domain, strength, sampling, size) the values present in display order; "any" first."""
    from symbalbench.scoring import VALUE_ORDER  # display order: low, medium, high, ...

    out = {}
    for key in SCENARIO_FILTERS:
        values = {str(s[key]) for s in scenario_table(path) if s.get(key) not in (None, "")}
        known = [v for v in VALUE_ORDER.get(key, ()) if v in values]
        out[key] = [ANY] + known + sorted(values - set(known))
    return out


def filter_scenarios(path: Optional[str] = None, **filters: str) -> list[str]:
    """Scenario ids whose domain/strength/sampling/size match ``filters`` ("any" or empty matches all)."""
    unknown = set(filters) - set(SCENARIO_FILTERS)
    if unknown:
        raise ValueError(f"unknown scenario filter(s) {sorted(unknown)}; use {SCENARIO_FILTERS}")
    wanted = {k: v for k, v in filters.items() if v and v != ANY}
    return [str(s["scenario_id"]) for s in scenario_table(path)
            if all(str(s.get(k)) == v for k, v in wanted.items())]


def _scenario(path: Optional[str], scenario_id: str) -> dict:
    for s in scenario_table(path):
        if str(s["scenario_id"]) == scenario_id:
            return s
    raise UnknownId(f"scenario {scenario_id!r} is not in {path or 'the bundled SymbalBench sample'}")


@lru_cache(maxsize=16)
def _flags(path: Optional[str], scenario_id: str) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """(v_present, inserted) of every row of one scenario, read once."""
    _scenario(path, scenario_id)
    ds = symbal_bench(path).dataset(scenario_id).select_columns(["v_present", "inserted"])
    cols = ds.to_dict()
    return tuple(bool(v) for v in cols["v_present"]), tuple(bool(v) for v in cols["inserted"])


def contingency(path: Optional[str], scenario_id: str) -> list[list[int]]:
    """The 2×2 table [[v & t, v & not t], [not v & t, not v & not t]] of one scenario."""
    v_present, inserted = _flags(path, scenario_id)
    table = [[0, 0], [0, 0]]
    for v, t in zip(v_present, inserted):
        table[0 if v else 1][0 if t else 1] += 1
    return table


def cramers_v(table: Sequence[Sequence[int]]) -> float:
    """Cramér's V (phi, unsigned) of a 2×2 table; 0 when a margin is empty.

    >>> round(cramers_v([[30, 10], [10, 30]]), 3)
    0.5
    """
    (a, b), (c, d) = table
    denom = math.sqrt((a + b) * (c + d) * (a + c) * (b + d))
    return 0.0 if denom == 0 else abs(a * d - b * c) / denom


def scenario_summary(path: Optional[str], scenario_id: str) -> dict:
    """t, v, target and achieved V (stored and recomputed) and the 2×2 table of one scenario."""
    s = _scenario(path, scenario_id)
    table = contingency(path, scenario_id)
    return {
        "scenario_id": scenario_id,
        **{k: s.get(k) for k in ("domain", "text_error", "visual_feature", "sampling", "size", "strength")},
        "target_v": float(s["target_v"]),
        "achieved_v": float(s["achieved_v"]),
        "recomputed_v": round(cramers_v(table), 6),
        "n_rows": int(s["n_rows"]),
        "contingency": table,
    }


@dataclass(frozen=True)
class RowPage:
    """One page of a scenario's rows after the row filters."""

    rows: tuple[dict, ...]
    page: int  # 1-based, clamped into range
    n_pages: int
    n_matching: int


def scenario_page(path: Optional[str], scenario_id: str, variant: str = "reference_free", page: int = 1,
                  page_size: int = DEFAULT_PAGE_SIZE, only: Iterable[str] = ()) -> RowPage:
    """Rows ``page`` (1-based) of one scenario; ``only`` holds "v present" and/or "t inserted".

    Each row dict has record_id, image (the stored ref), caption, the inserted span, labels,
    v_present, inserted, template_id and, for the reference-based variant, references.
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    only = set(only or ())
    if only - set(ROW_FILTERS):
        raise ValueError(f"row filters must be among {ROW_FILTERS}, got {sorted(only)}")
    v_present, inserted = _flags(path, scenario_id)
    keep = [n for n, (v, t) in enumerate(zip(v_present, inserted))
            if ("v present" not in only or v) and ("t inserted" not in only or t)]
    n_pages = max(1, math.ceil(len(keep) / page_size))
    page = min(max(1, int(page or 1)), n_pages)
    chosen = keep[(page - 1) * page_size: page * page_size]
    ds = symbal_bench(path).dataset(scenario_id, variant=variant)
    rows = ds.select(chosen).to_list() if chosen else []
    return RowPage(rows=tuple(rows), page=page, n_pages=n_pages, n_matching=len(keep))


def caption_segments(caption: str, start: Optional[int], end: Optional[int]) -> list[tuple[str, Optional[str]]]:
    """The caption split around the inserted span, for highlighting.

    >>> caption_segments("A dog. A cat is there.", 7, 22)
    [('A dog. ', None), ('A cat is there.', 'inserted'), ('', None)]
    >>> caption_segments("A dog.", None, None)
    [('A dog.', None)]
    """
    if start is None or end is None or not (0 <= start <= end <= len(caption)) or start == end:
        return [(caption, None)]
    return [(caption[:start], None), (caption[start:end], "inserted"), (caption[end:], None)]


@lru_cache(maxsize=512)
def thumbnail_data_uri(path: Optional[str], ref: str, px: int = THUMBNAIL_PX) -> str:
    """A small JPEG of image ``ref`` as a ``data:`` URI (cached: thumbnails never change)."""
    image = symbal_bench(path).image(ref).convert("RGB")
    image.thumbnail((px, px))
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=85)
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


# --------------------------------------------------------------------------------------------
# Leaderboard: scores.json files of both scoring CLIs.
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ScoreEntry:
    """One scored model read from a ``scores.json`` file."""

    benchmark: str  # "diffcap" | "symbal"
    model: str
    judge: str
    metrics: Mapping[str, float]  # headline numbers, one column each
    breakdown: Mapping[str, float]  # per category (DiffCap recall) or per strength (SymbalBench Acc@1)
    file: str


DIFFCAP_COLUMNS: tuple[str, ...] = ("f1_star", "recall", "precision_star", "hallucination_rate",
                                    "hallucinated_pair_rate")


def _benchmark_of(doc: Mapping[str, Any]) -> Optional[str]:
    """Tell the two scores.json kinds apart: "diffcap", "symbal" or None (not a scores file)."""
    tag = str(doc.get("benchmark") or doc.get("format") or "").lower()
    if tag.startswith("diffcap") or ("macro" in doc and "recall_per_category" in doc):
        return "diffcap"
    if tag.startswith("symbal") or ("overall" in doc and "breakdowns" in doc):
        return "symbal"
    return None


def _model_name(doc: Mapping[str, Any], file: Path) -> str:
    for key in ("model", "method", "name"):
        if doc.get(key):
            return str(doc[key])
    return file.parent.name or file.stem


def _diffcap_entry(doc: Mapping[str, Any], file: Path) -> ScoreEntry:
    macro = doc.get("macro") or {}
    return ScoreEntry(
        benchmark="diffcap", model=_model_name(doc, file), judge=str(doc.get("judge_signature", "")),
        metrics={k: _as_float(macro.get(k)) for k in DIFFCAP_COLUMNS},
        breakdown={str(c): _as_float(v) for c, v in (doc.get("recall_per_category") or {}).items()},
        file=str(file),
    )


def _symbal_entry(doc: Mapping[str, Any], file: Path) -> ScoreEntry:
    overall = doc.get("overall") or {}
    ks = [k for k in (doc.get("ks") or [1, 5])]
    by_strength = (doc.get("breakdowns") or {}).get("strength") or {}
    return ScoreEntry(
        benchmark="symbal", model=_model_name(doc, file), judge=str(doc.get("judge_signature", "")),
        metrics={f"accuracy@{k}": _as_float(overall.get(f"accuracy@{k}")) for k in ks},
        breakdown={str(s): _as_float(block.get("accuracy@1")) for s, block in by_strength.items()},
        file=str(file),
    )


def read_leaderboard(folder: Optional[str]) -> tuple[ScoreEntry, ...]:
    """Every ``scores.json`` under ``folder`` (recursively), sorted by benchmark then model.

    A JSON file that is not a scores file of either benchmark is skipped; a broken one is an
    error naming the file. Not cached: a folder of results changes while the Space runs.
    """
    from benchcore.errors import InputError

    root = Path(folder or default_leaderboard_dir())
    if not root.is_dir():
        return ()
    entries = []
    for file in sorted(root.rglob("scores.json")):
        try:
            doc = json.loads(file.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise InputError(f"{file}: not valid JSON ({e})") from None
        kind = _benchmark_of(doc) if isinstance(doc, dict) else None
        if kind == "diffcap":
            entries.append(_diffcap_entry(doc, file))
        elif kind == "symbal":
            entries.append(_symbal_entry(doc, file))
    return tuple(sorted(entries, key=lambda e: (e.benchmark, e.model, e.file)))


def leaderboard_rows(entries: Sequence[ScoreEntry], benchmark: str) -> tuple[list[str], list[list]]:
    """(headers, rows) of one benchmark's table, best first by its first metric (missing last)."""
    chosen = [e for e in entries if e.benchmark == benchmark]
    metric_names: list[str] = []
    for e in chosen:
        metric_names += [m for m in e.metrics if m not in metric_names]
    rows = [[e.model, *(e.metrics.get(m, float("nan")) for m in metric_names), e.judge] for e in chosen]
    if metric_names:
        rows.sort(key=lambda r: (r[1] != r[1], -(r[1] if r[1] == r[1] else 0.0), r[0]))
    return ["model", *metric_names, "judge"], rows


def breakdown_records(entries: Sequence[ScoreEntry], benchmark: str, key: str) -> list[dict]:
    """Long-form records {model, key: group, value} for the per-category / per-strength chart."""
    return [{"model": e.model, key: group, "value": value}
            for e in entries if e.benchmark == benchmark
            for group, value in e.breakdown.items() if value == value]
