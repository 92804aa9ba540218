"""Accuracy@K for SymbalBench (SPEC §2). Pure functions: no I/O, no judge calls.

A method reads one dataset and returns a ranked list of guesses
``{"text_error": t', "visual_feature": v'}``. A scenario is a *hit at K* when one of
the first K guesses has ``t'`` equivalent to the scenario's ``t`` AND ``v'``
equivalent to its ``v``. A judge decides each equivalence; this module only reads its
verdicts, given as a mapping ``pair_key(predicted, reference, kind) -> True | False |
None`` (``None`` = the judge failed on that pair: never a match, counted apart).

A scenario without a prediction is a miss and is listed in ``missing_scenarios``.

>>> truth = Truth("s1", "dog", "car", {"domain": "natural", "strength": "high"})
>>> verdicts = {pair_key("Dog", "dog", "text_error"): True, pair_key("bus", "car", "visual_feature"): False,
...             pair_key("truck", "car", "visual_feature"): True}
>>> out = scenario_outcome(truth, [{"text_error": "Dog", "visual_feature": "bus"},
...                                {"text_error": "Dog", "visual_feature": "truck"}], verdicts, max_k=5)
>>> out.first_hit, out.hit(1), out.hit(5)
(2, False, True)
>>> score_outcomes([out], ks=[1, 5])["overall"]["accuracy@5"]
1.0
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional, Sequence

from benchcore.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap_ci

GUESS_FIELDS: tuple[str, ...] = ("text_error", "visual_feature")
BREAKDOWN_FIELDS: tuple[str, ...] = ("domain", "strength", "sampling", "size")
# The cross breakdown the report plots (accuracy by strength, one series per domain).
CROSS_BREAKDOWNS: tuple[tuple[str, ...], ...] = (("domain", "strength"),)
DEFAULT_KS: tuple[int, ...] = (1, 5)
# Display order of the known values; unknown values follow, sorted.
VALUE_ORDER: dict[str, tuple[str, ...]] = {
    "domain": ("natural", "medical"),
    "strength": ("low", "medium", "high"),
    "sampling": ("random", "popular", "adversarial"),
    "size": ("small", "large"),
}

PairKey = tuple[str, str, str]
Verdicts = Mapping[PairKey, Optional[bool]]

_SPACES = re.compile(r"\s+")


def normalize_name(text: str) -> str:
    """The form a name is judged in: case-folded, whitespace collapsed.

    Two guesses that differ only in case or spacing are the same question for a judge,
    so they share one verdict (and one cache entry).

    >>> normalize_name("  Dining   Table ")
    'dining table'
    """
    return _SPACES.sub(" ", str(text)).strip().casefold()


def pair_key(predicted: str, reference: str, kind: str) -> PairKey:
    """Key of one equivalence question in a verdicts mapping."""
    return (normalize_name(predicted), normalize_name(reference), kind)


def parse_ks(ks: int | str | Iterable[int] | None) -> tuple[int, ...]:
    """Sorted distinct K values from an int, ``"1,5"`` or a list; each K must be >= 1.

    >>> parse_ks("5,1"), parse_ks(3), parse_ks(None)
    ((1, 5), (3,), (1, 5))
    """
    if ks is None:
        return DEFAULT_KS
    if isinstance(ks, str):
        ks = [int(p) for p in ks.split(",") if p.strip()]
    elif isinstance(ks, int):
        ks = [ks]
    out = sorted({int(k) for k in ks})
    if not out or out[0] < 1:
        raise ValueError(f"K values must be integers >= 1, got {ks!r}")
    return tuple(out)


@dataclass(frozen=True)
class Truth:
    """The answer of one scenario: t, v and the metadata used for breakdowns."""

    scenario_id: str
    text_error: str
    visual_feature: str
    meta: Mapping[str, Optional[str]] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> "Truth":
        """From a scenarios-table row (or any mapping with the same keys); empty metadata -> None."""
        meta = {f: (row.get(f) or None) for f in BREAKDOWN_FIELDS}
        return cls(str(row["scenario_id"]), str(row["text_error"]), str(row["visual_feature"]), meta)


@dataclass(frozen=True)
class ScenarioOutcome:
    """How one scenario's guesses fared against its truth."""

    scenario_id: str
    meta: Mapping[str, Optional[str]]
    first_hit: Optional[int]  # 1-based rank of the first matching guess, None if none matched
    n_guesses: int  # guesses given (all of them, not only the first K)
    missing: bool  # no prediction at all for this scenario
    error_pairs: frozenset = frozenset()  # pair keys whose verdict was a judge error

    def hit(self, k: int) -> bool:
        return self.first_hit is not None and self.first_hit <= k


def guess_matches(guess: Mapping[str, str], truth: Truth, verdicts: Verdicts) -> tuple[Optional[bool], Optional[bool]]:
    """(text_error verdict, visual_feature verdict) of one guess; None where the judge failed.

    A pair absent from ``verdicts`` is a programming error (the judging step must cover
    every pair scoring reads), so it raises KeyError rather than silently missing.
    """
    te = verdicts[pair_key(guess["text_error"], truth.text_error, "text_error")]
    vf = verdicts[pair_key(guess["visual_feature"], truth.visual_feature, "visual_feature")]
    return te, vf


def scenario_outcome(truth: Truth, guesses: Optional[Sequence[Mapping[str, str]]], verdicts: Verdicts,
                     max_k: int) -> ScenarioOutcome:
    """Score one scenario: the rank of the first guess (within ``max_k``) matching both t and v."""
    if not guesses:
        return ScenarioOutcome(truth.scenario_id, dict(truth.meta), None, 0, missing=True)
    first_hit = None
    errors = set()
    for rank, guess in enumerate(guesses[:max_k], start=1):
        te, vf = guess_matches(guess, truth, verdicts)
        if te is None:
            errors.add(pair_key(guess["text_error"], truth.text_error, "text_error"))
        if vf is None:
            errors.add(pair_key(guess["visual_feature"], truth.visual_feature, "visual_feature"))
        if te is True and vf is True and first_hit is None:
            first_hit = rank
    return ScenarioOutcome(truth.scenario_id, dict(truth.meta), first_hit, len(guesses), False, frozenset(errors))


def score_predictions(truths: Sequence[Truth], predictions: Mapping[str, Sequence[Mapping[str, str]]],
                      verdicts: Verdicts, ks: Iterable[int] | int | None = None) -> list[ScenarioOutcome]:
    """Outcomes of every scenario in ``truths`` (predictions keyed by scenario id; absent = missing)."""
    max_k = max(parse_ks(ks))
    return [scenario_outcome(t, predictions.get(t.scenario_id), verdicts, max_k) for t in truths]


def needed_pairs(truths: Sequence[Truth], predictions: Mapping[str, Sequence[Mapping[str, str]]],
                 ks: Iterable[int] | int | None = None) -> list[PairKey]:
    """Distinct pair keys scoring will read, in first-seen order (guesses beyond max K are not judged)."""
    max_k = max(parse_ks(ks))
    seen: dict[PairKey, None] = {}
    for t in truths:
        for g in (predictions.get(t.scenario_id) or ())[:max_k]:
            seen.setdefault(pair_key(g["text_error"], t.text_error, "text_error"))
            seen.setdefault(pair_key(g["visual_feature"], t.visual_feature, "visual_feature"))
    return list(seen)


def _accuracy_block(outcomes: Sequence[ScenarioOutcome], ks: Sequence[int], n_resamples: int, seed: int) -> dict:
    """n, accuracy@K and its bootstrap interval for one group of scenarios."""
    block: dict[str, Any] = {"n": len(outcomes)}
    for k in ks:
        hits = [1.0 if o.hit(k) else 0.0 for o in outcomes]
        block[f"accuracy@{k}"] = sum(hits) / len(hits) if hits else float("nan")
        lo, hi = bootstrap_ci(hits, n_resamples=n_resamples, seed=seed)
        block[f"accuracy@{k}_ci"] = [lo, hi]
    return block


def _ordered_values(field_name: str, values: Iterable[str]) -> list[str]:
    known = VALUE_ORDER.get(field_name, ())
    vals = set(values)
    return [v for v in known if v in vals] + sorted(vals - set(known))


def group_outcomes(outcomes: Sequence[ScenarioOutcome], fields: Sequence[str]) -> dict[str, list[ScenarioOutcome]]:
    """Group by the values of ``fields`` (joined with ``,`` as ``"natural,high"``), in display order.

    Scenarios where a field is empty (e.g. sampling of a medical scenario) are left out.
    """
    groups: dict[tuple, list[ScenarioOutcome]] = {}
    for o in outcomes:
        key = tuple(o.meta.get(f) for f in fields)
        if any(v is None or v == "" for v in key):
            continue
        groups.setdefault(key, []).append(o)
    orders = [_ordered_values(f, {k[i] for k in groups}) for i, f in enumerate(fields)]
    ordered = sorted(groups, key=lambda key: tuple(orders[i].index(v) for i, v in enumerate(key)))
    return {",".join(key): groups[key] for key in ordered}


def score_outcomes(outcomes: Sequence[ScenarioOutcome], ks: Iterable[int] | int | None = None,
                   n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> dict:
    """Accuracy@K overall and per breakdown, 95% bootstrap intervals over scenarios, missing list.

    Returns ``{"ks", "n_scenarios", "n_missing", "missing_scenarios", "n_judge_errors",
    "overall": {n, accuracy@K, accuracy@K_ci}, "breakdowns": {name: {value: block}}}``
    where breakdown names are the fields of :data:`BREAKDOWN_FIELDS` and ``"domain+strength"``.
    ``n_judge_errors`` counts distinct (guess, truth, kind) questions the judge failed on.
    """
    ks = parse_ks(ks)
    breakdowns = {}
    for fields in [(f,) for f in BREAKDOWN_FIELDS] + list(CROSS_BREAKDOWNS):
        groups = group_outcomes(outcomes, fields)
        if groups:
            breakdowns["+".join(fields)] = {v: _accuracy_block(g, ks, n_resamples, seed) for v, g in groups.items()}
    errors = set().union(*(o.error_pairs for o in outcomes)) if outcomes else set()
    missing = [o.scenario_id for o in outcomes if o.missing]
    return {
        "ks": list(ks),
        "n_scenarios": len(outcomes),
        "n_missing": len(missing),
        "missing_scenarios": missing,
        "n_judge_errors": len(errors),
        "overall": _accuracy_block(outcomes, ks, n_resamples, seed),
        "breakdowns": breakdowns,
    }


def flatten_scores(scores: Mapping[str, Any]) -> dict[str, Any]:
    """The flat dict of the ``evaluate`` module: ``accuracy@K``, ``accuracy@K_ci_low/high``,
    ``<field>=<value>/accuracy@K`` (+ ``_ci_low/_ci_high`` and ``/n``), counts, missing list.

    >>> s = score_outcomes([ScenarioOutcome("a", {"domain": "natural"}, 1, 1, False)], ks=[1])
    >>> flat = flatten_scores(s)
    >>> flat["accuracy@1"], flat["domain=natural/accuracy@1"], flat["n_scenarios"]
    (1.0, 1.0, 1)
    """
    ks = scores["ks"]
    flat: dict[str, Any] = {}

    def put(prefix: str, block: Mapping[str, Any]) -> None:
        for k in ks:
            flat[f"{prefix}accuracy@{k}"] = block[f"accuracy@{k}"]
            lo, hi = block[f"accuracy@{k}_ci"]
            flat[f"{prefix}accuracy@{k}_ci_low"] = lo
            flat[f"{prefix}accuracy@{k}_ci_high"] = hi

    put("", scores["overall"])
    for name, groups in scores["breakdowns"].items():
        fields = name.split("+")
        for value, block in groups.items():
            label = ",".join(f"{f}={v}" for f, v in zip(fields, value.split(",")))
            put(f"{label}/", block)
            flat[f"{label}/n"] = block["n"]
    for key in ("n_scenarios", "n_missing", "n_judge_errors", "missing_scenarios"):
        flat[key] = scores[key]
    return flat
