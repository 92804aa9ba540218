"""The scenario grid: the default 420-dataset grid and custom grids from a YAML/JSON file.

Default (SPEC §2): natural = 2 sizes x 10 features per size x 3 samplings x 3 strengths x 2
draws of t = 360; medical = 5 devices x 4 findings x 3 strengths = 60. A grid file overrides
any of these keys (missing keys keep their defaults; ``natural: null`` or ``medical: null``
skips a domain)::

    strengths: {low: 0.3, medium: 0.6, high: 0.9}
    tolerance: 0.02
    natural:
      sizes: [small, large]
      features_per_size: 10
      samplings: [random, popular, adversarial]
      draws: 2
      size_threshold: auto     # or a number: small if v's median label_area < threshold
      min_support: 20          # v must be present in (and absent from) >= this many records
    medical:
      findings: [cardiomegaly, pleural effusion, edema, atelectasis, pneumothorax]
      devices: [pacemaker, chest tube, endotracheal tube, central venous catheter, nasogastric tube]
      pairs_per_device: 4      # or give explicit pairs: [[finding, device], ...]

``size_threshold: auto`` splits the candidate features at the median of their median areas,
so both strata have the same number of candidates.
"""
from __future__ import annotations

import copy
import dataclasses
import json
import zlib
from pathlib import Path
from typing import Any, Optional

import numpy as np
import yaml

from benchcore.errors import InputError
from symbalbench.construct import FeatureIndex, max_reachable_v
from symbalbench.templates import MEDICAL_DEVICES, MEDICAL_FINDINGS, slug

SAMPLINGS = ("random", "popular", "adversarial")
SIZES = ("small", "large")

DEFAULT_GRID: dict[str, Any] = {
    "strengths": {"low": 0.3, "medium": 0.6, "high": 0.9},
    "tolerance": 0.02,
    "natural": {"sizes": list(SIZES), "features_per_size": 10, "samplings": list(SAMPLINGS), "draws": 2,
                "size_threshold": "auto", "min_support": 20},
    "medical": {"findings": list(MEDICAL_FINDINGS), "devices": list(MEDICAL_DEVICES), "pairs_per_device": 4,
                "pairs": None, "min_support": 20},
}

# The grid the bundled sample is built with: 18 natural + 6 medical = 24 scenarios.
SAMPLE_GRID: dict[str, Any] = {
    "natural": {"features_per_size": 1, "draws": 1, "min_support": 10},
    "medical": {"devices": ["pacemaker", "central venous catheter"], "pairs_per_device": 1, "min_support": 10},
}


@dataclasses.dataclass(frozen=True)
class Grid:
    """A validated grid (see the module docstring for the keys)."""

    strengths: dict[str, float]
    tolerance: float
    natural: Optional[dict]
    medical: Optional[dict]

    def expected_size(self) -> int:
        """How many scenarios the grid asks for (before any refusal)."""
        s = len(self.strengths)
        total = 0
        if self.natural:
            n = self.natural
            total += len(n["sizes"]) * n["features_per_size"] * len(n["samplings"]) * n["draws"] * s
        if self.medical:
            m = self.medical
            pairs = len(m["pairs"]) if m.get("pairs") else len(m["devices"]) * m["pairs_per_device"]
            total += pairs * s
        return total

    def to_dict(self) -> dict:
        return {"strengths": dict(self.strengths), "tolerance": self.tolerance,
                "natural": copy.deepcopy(self.natural), "medical": copy.deepcopy(self.medical)}


def _merge(base: dict, override: dict, where: str) -> dict:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if key not in base:
            raise InputError(f"{where}: unknown key {key!r} (known: {sorted(base)})")
        if isinstance(base[key], dict) and isinstance(value, dict) and key != "strengths":
            out[key] = _merge(base[key], value, f"{where}.{key}")
        else:
            out[key] = value
    return out


def make_grid(spec: Optional[dict] = None, where: str = "grid") -> Grid:
    """A validated :class:`Grid` from a partial dict (None -> the default 420 grid).

    >>> make_grid().expected_size()
    420
    >>> make_grid(SAMPLE_GRID).expected_size()
    24
    """
    raw = _merge(DEFAULT_GRID, spec or {}, where)
    strengths = raw["strengths"]
    if not isinstance(strengths, dict) or not strengths:
        raise InputError(f"{where}: strengths must be a mapping name -> target V")
    for name, v in strengths.items():
        if not isinstance(v, (int, float)) or not 0 < v < 1:
            raise InputError(f"{where}: strength {name!r} = {v!r} must be a number in (0, 1)")
    tol = raw["tolerance"]
    if not isinstance(tol, (int, float)) or not 0 < tol < 0.5:
        raise InputError(f"{where}: tolerance {tol!r} must be in (0, 0.5)")
    if raw["natural"]:
        _check_natural(raw["natural"], f"{where}.natural")
    if raw["medical"]:
        _check_medical(raw["medical"], f"{where}.medical")
    return Grid({str(k): float(v) for k, v in strengths.items()}, float(tol), raw["natural"], raw["medical"])


def _check_natural(n: dict, where: str) -> None:
    bad = [s for s in n["sizes"] if s not in SIZES]
    if bad or not n["sizes"]:
        raise InputError(f"{where}.sizes: {n['sizes']} must be a non-empty subset of {list(SIZES)}")
    bad = [s for s in n["samplings"] if s not in SAMPLINGS]
    if bad or not n["samplings"]:
        raise InputError(f"{where}.samplings: {n['samplings']} must be a non-empty subset of {list(SAMPLINGS)}")
    for key in ("features_per_size", "draws", "min_support"):
        if not isinstance(n[key], int) or n[key] < 1:
            raise InputError(f"{where}.{key}: {n[key]!r} must be a positive integer")
    th = n["size_threshold"]
    if th != "auto" and not (isinstance(th, (int, float)) and 0 < th < 1):
        raise InputError(f"{where}.size_threshold: {th!r} must be 'auto' or a number in (0, 1)")


def _check_medical(m: dict, where: str) -> None:
    for key, known in (("findings", MEDICAL_FINDINGS), ("devices", MEDICAL_DEVICES)):
        bad = [x for x in m[key] if x not in known]
        if bad or not m[key]:
            raise InputError(f"{where}.{key}: unknown {bad} (known: {known})")
    if m.get("pairs"):
        for i, pair in enumerate(m["pairs"]):
            if (not isinstance(pair, (list, tuple)) or len(pair) != 2 or pair[0] not in MEDICAL_FINDINGS
                    or pair[1] not in MEDICAL_DEVICES):
                raise InputError(f"{where}.pairs[{i}]: {pair!r} must be [finding, device]")
    elif not isinstance(m["pairs_per_device"], int) or not 1 <= m["pairs_per_device"] <= len(m["findings"]):
        raise InputError(f"{where}.pairs_per_device: {m['pairs_per_device']!r} must be in 1..{len(m['findings'])}")


def load_grid(path: Optional[str | Path]) -> Grid:
    """Read a grid file (``.yaml``/``.yml``/``.json``); None -> the default grid."""
    if path is None:
        return make_grid()
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: grid file not found")
    text = p.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if p.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as e:
        raise InputError(f"{p}: cannot parse grid file: {e}") from None
    if not isinstance(data, dict):
        raise InputError(f"{p}: a grid file must hold a mapping")
    return make_grid(data, where=str(p))



# ---------------------------------------------------------------------------- expanding a grid
@dataclasses.dataclass(frozen=True)
class ScenarioPlan:
    """One requested dataset: which error t, which feature v, how strong."""

    scenario_id: str
    domain: str
    text_error: str
    visual_feature: str
    sampling: Optional[str]
    size: Optional[str]
    strength: str
    target_v: float
    draw: int


@dataclasses.dataclass(frozen=True)
class Refused:
    """A requested dataset (or group of them) that the base cannot support."""

    scenario_id: str
    domain: str
    reason: str


def natural_id(size: str, sampling: str, v: str, t: str, strength: str, draw: int) -> str:
    """Id of a natural scenario.

    >>> natural_id("small", "random", "dog", "dining table", "high", 0)
    'nat-small-random-dog-dining_table-high-d0'
    """
    return f"nat-{size}-{sampling}-{slug(v)}-{slug(t)}-{strength}-d{draw}"


def medical_id(device: str, finding: str, strength: str) -> str:
    """Id of a medical scenario.

    >>> medical_id("pacemaker", "cardiomegaly", "high")
    'med-pacemaker-cardiomegaly-high'
    """
    return f"med-{slug(device)}-{slug(finding)}-{strength}"


def _stream(seed: int, name: str) -> np.random.Generator:
    """A generator for one named planning decision, so decisions do not shift each other."""
    return np.random.default_rng([int(seed), zlib.crc32(name.encode("utf-8"))])


def _feasible(fi: FeatureIndex, v: int, candidates: list[int], need: float) -> list[int]:
    """Candidates t for which the strongest target is reachable with v (see construct.max_reachable_v)."""
    vp = fi.present[:, v]
    n1 = int(vp.sum())
    n0 = vp.size - n1
    blocked = ((fi.present | fi.uncertain) & vp[:, None]).sum(axis=0)
    return [t for t in candidates if t != v and max_reachable_v(n1, n0, n1 - int(blocked[t])) >= need]


def size_strata(fi: FeatureIndex, names: list[str], spec: dict) -> tuple[dict[str, list[int]], float]:
    """Supported features split into small/large by their median label_area; also the threshold."""
    counts = fi.counts()
    n = fi.present.shape[0]
    med = fi.median_area()
    col = fi.column
    cand = [col[x] for x in names if counts[col[x]] >= spec["min_support"]
            and n - counts[col[x]] >= spec["min_support"] and not np.isnan(med[col[x]])]
    th = spec["size_threshold"]
    threshold = float(np.median(med[cand])) if th == "auto" and cand else float(th if th != "auto" else 0.0)
    # "auto": features exactly at the median go to "large", so the split is as even as possible.
    return {"small": [j for j in cand if med[j] < threshold], "large": [j for j in cand if med[j] >= threshold]}, threshold


def plan_natural(fi: FeatureIndex, grid: Grid, seed: int) -> tuple[list[ScenarioPlan], list[Refused]]:
    """Expand the natural part of ``grid`` over a natural base's feature index.

    Per size stratum, ``features_per_size`` features v are drawn (seeded) among those with
    ``min_support``; for each v and sampling strategy the t candidates are the base's features
    (COCO's 80 names plus any other label a manifest brings; never v itself) with which the strongest target is reachable, ranked by the strategy; draw k
    takes the k-th candidate. Each (v, t) is built at every strength.
    """
    spec = grid.natural
    plans: list[ScenarioPlan] = []
    refused: list[Refused] = []
    strata, _ = size_strata(fi, fi.names, spec)
    counts = fi.counts()
    names = fi.names
    universe = list(range(len(fi.names)))  # COCO's 80 names, then any other label of the base
    need = max(grid.strengths.values()) - grid.tolerance
    cooc = fi.present[:, universe].T.astype("int64") @ fi.present[:, universe].astype("int64")
    pos = {j: i for i, j in enumerate(universe)}
    for size in spec["sizes"]:
        pool = sorted(strata[size], key=lambda j: names[j])
        k = spec["features_per_size"]
        if len(pool) < k:
            refused.append(Refused(f"nat-{size}-*", "natural",
                                   f"only {len(pool)} features of size {size} have >= {spec['min_support']} "
                                   f"records; {k} requested"))
        chosen = pool if len(pool) <= k else sorted(
            (pool[i] for i in _stream(seed, f"features-{size}").choice(len(pool), k, replace=False)),
            key=lambda j: names[j])
        for v in chosen:
            feasible = _feasible(fi, v, universe, need)
            ranked = {
                "random": [feasible[i] for i in _stream(seed, f"random-{names[v]}").permutation(len(feasible))],
                "popular": sorted(feasible, key=lambda t: (-counts[t], names[t])),
                "adversarial": sorted(feasible, key=lambda t: (-cooc[pos[v], pos[t]], -counts[t], names[t])),
            }
            for sampling in spec["samplings"]:
                for draw in range(spec["draws"]):
                    for strength, target in grid.strengths.items():
                        if draw >= len(ranked[sampling]):
                            sid = natural_id(size, sampling, names[v], "none", strength, draw)
                            refused.append(Refused(sid, "natural", f"only {len(ranked[sampling])} feasible t for v="
                                                   f"{names[v]!r} (max V must reach {need:.2f})"))
                            continue
                        t = ranked[sampling][draw]
                        plans.append(ScenarioPlan(natural_id(size, sampling, names[v], names[t], strength, draw),
                                                  "natural", names[t], names[v], sampling, size, strength, target, draw))
    return plans, refused


def plan_medical(fi: FeatureIndex, grid: Grid, seed: int) -> tuple[list[ScenarioPlan], list[Refused]]:
    """Expand the medical part of ``grid``: (finding, device) pairs x strengths.

    Without explicit ``pairs``, each device is paired with the ``pairs_per_device`` findings
    that reach the highest V with it (ties in the findings' listed order), i.e. the findings
    that least often co-occur with the device.
    """
    spec = grid.medical
    plans, refused = [], []
    col = fi.column
    counts = fi.counts()
    n = fi.present.shape[0]
    if spec.get("pairs"):
        pairs = [(f, d) for f, d in spec["pairs"]]
    else:
        pairs = []
        for d in spec["devices"]:
            vp = fi.present[:, col[d]]
            n1 = int(vp.sum())
            blocked = ((fi.present | fi.uncertain) & vp[:, None]).sum(axis=0)
            reach = {f: max_reachable_v(n1, n - n1, n1 - int(blocked[col[f]])) for f in spec["findings"]}
            ranked = sorted(spec["findings"], key=lambda f: (-reach[f], spec["findings"].index(f)))
            pairs += [(f, d) for f in ranked[:spec["pairs_per_device"]]]
    for finding, device in pairs:
        if counts[col[device]] < spec["min_support"] or n - counts[col[device]] < spec["min_support"]:
            for strength in grid.strengths:
                refused.append(Refused(medical_id(device, finding, strength), "medical",
                                       f"device {device!r} is present in {int(counts[col[device]])} of {n} "
                                       f"records (min_support {spec['min_support']})"))
            continue
        for strength, target in grid.strengths.items():
            plans.append(ScenarioPlan(medical_id(device, finding, strength), "medical", finding, device,
                                      None, None, strength, target, 0))
    return plans, refused
