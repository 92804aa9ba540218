"""Read and validate a SymbalBench predictions file (JSONL).

One line per scenario::

    {"scenario_id": "nat-...", "guesses": [{"text_error": "dog", "visual_feature": "car"}, ...]}

Guesses are ranked, best first. Extra keys (e.g. a ``score`` per guess, a ``method``
per line) are allowed and ignored. Blank lines are skipped.

Errors (raise :class:`PredictionsError`, every message names ``file:line``): a line that
is not a JSON object, a missing or non-string ``scenario_id``, an id not in the
benchmark, the same id twice (both lines named), ``guesses`` missing, not a list or
empty, a guess that is not an object or lacks a non-empty ``text_error`` /
``visual_feature`` string. All faults are collected and reported together (first 20).

Notes (not errors, see :attr:`Predictions.notes`): a guess list shorter than the
largest K is legal — the scenario simply has fewer chances — and is noted with its
line; pass ``strict=True`` to make it an error. Guesses beyond the largest K are
ignored by scoring (also noted). Scenarios absent from the file are misses; scoring
lists them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection, Iterable, Mapping, Optional, Sequence

from benchcore.errors import InputError
from benchcore.jsonl import decode_lines, parse_object
from symbalbench.scoring import GUESS_FIELDS

MAX_REPORTED = 20


class PredictionsError(InputError):
    """A predictions file has faults; ``problems`` lists each ``file:line: message``."""

    def __init__(self, path: str, problems: Sequence[str]):
        self.path = path
        self.problems = list(problems)
        shown = self.problems[:MAX_REPORTED]
        more = len(self.problems) - len(shown)
        tail = f"\n  ... and {more} more" if more > 0 else ""
        super().__init__(f"{path}: {len(self.problems)} problem(s) in predictions file:\n  " + "\n  ".join(shown) + tail)


@dataclass
class Predictions:
    """Validated predictions: ranked guesses per scenario id, the line each came from, notes."""

    guesses: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    source: str = "<memory>"


def check_guess(g: Any, where: str, n: int) -> tuple[Optional[dict], list[str]]:
    """A clean ``{text_error, visual_feature}`` dict, or the problems found."""
    if not isinstance(g, Mapping):
        return None, [f"{where}: guess {n} must be an object with text_error and visual_feature, got {type(g).__name__}"]
    problems = []
    for f in GUESS_FIELDS:
        v = g.get(f)
        if v is None:
            problems.append(f"{where}: guess {n} is missing field {f!r}")
        elif not isinstance(v, str) or not v.strip():
            problems.append(f"{where}: guess {n} field {f!r} must be a non-empty string, got {v!r}")
    if problems:
        return None, problems
    return {f: g[f].strip() for f in GUESS_FIELDS}, []


def parse_predictions(lines: Iterable[str], source: str = "<memory>", scenario_ids: Optional[Collection[str]] = None,
                      k: Optional[int] = None, strict: bool = False) -> Predictions:
    """Validate JSONL lines; see the module docstring for the rules.

    ``scenario_ids``: the benchmark's ids (unknown ids are errors); ``k``: the largest K
    scored (lists shorter than it are noted, or errors with ``strict``).

    >>> p = parse_predictions(['{"scenario_id": "s1", "guesses": [{"text_error": "dog", "visual_feature": "car"}]}'],
    ...                       scenario_ids={"s1", "s2"}, k=5)
    >>> p.guesses["s1"], p.notes
    ([{'text_error': 'dog', 'visual_feature': 'car'}], ['<memory>:1: scenario s1 has 1 guess(es), fewer than K=5 (legal: fewer chances)'])
    >>> try:
    ...     parse_predictions(['{"scenario_id": "s9", "guesses": []}'], scenario_ids={"s1"})
    ... except PredictionsError as e:
    ...     print(e)
    <memory>: 2 problem(s) in predictions file:
      <memory>:1: unknown scenario_id 's9' (not in the benchmark)
      <memory>:1: 'guesses' is empty for scenario s9 (omit the line to mark it as no prediction)
    """
    known = set(scenario_ids) if scenario_ids is not None else None
    out = Predictions(source=source)
    problems: list[str] = []
    for lineno, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        where = f"{source}:{lineno}"
        obj = parse_object(raw, where, problems, "a JSON object with scenario_id and guesses")
        if obj is None:
            continue
        sid = obj.get("scenario_id")
        if not isinstance(sid, str) or not sid:
            problems.append(f"{where}: missing or non-string 'scenario_id'")
            continue
        line_problems = []
        if known is not None and sid not in known:
            line_problems.append(f"{where}: unknown scenario_id {sid!r} (not in the benchmark)")
        if sid in out.lines:
            line_problems.append(f"{where}: duplicate scenario_id {sid!r} (first given on line {out.lines[sid]})")
        guesses = obj.get("guesses")
        clean: list[dict[str, str]] = []
        if guesses is None:
            line_problems.append(f"{where}: missing 'guesses' for scenario {sid}")
        elif not isinstance(guesses, list):
            line_problems.append(f"{where}: 'guesses' must be a list, got {type(guesses).__name__}")
        elif not guesses:
            line_problems.append(f"{where}: 'guesses' is empty for scenario {sid} (omit the line to mark it as no prediction)")
        else:
            for n, g in enumerate(guesses, start=1):
                guess, bad = check_guess(g, where, n)
                line_problems += bad
                if guess is not None:
                    clean.append(guess)
        if line_problems:
            problems += line_problems
            continue
        out.guesses[sid] = clean
        out.lines[sid] = lineno
        if k is not None and len(clean) < k:
            msg = f"{where}: scenario {sid} has {len(clean)} guess(es), fewer than K={k}"
            if strict:
                problems.append(msg + " (strict mode)")
            else:
                out.notes.append(msg + " (legal: fewer chances)")
        elif k is not None and len(clean) > k:
            out.notes.append(f"{where}: scenario {sid} has {len(clean)} guesses; only the first {k} are scored")
    if problems:
        raise PredictionsError(source, problems)
    return out


def read_predictions(path: str | Path, scenario_ids: Optional[Collection[str]] = None, k: Optional[int] = None,
                     strict: bool = False) -> Predictions:
    """Read and validate a predictions JSONL file (see :func:`parse_predictions`)."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"predictions file {p} not found")
    problems: list[str] = []
    lines = [text for _, text in decode_lines(p.read_bytes(), problems, locate=lambda n: f"{p}:{n}")]
    if problems:  # undecodable bytes: report them before guessing at line contents
        raise PredictionsError(str(p), problems)
    return parse_predictions(lines, source=str(p), scenario_ids=scenario_ids, k=k, strict=strict)


def write_predictions(path: str | Path, guesses: Mapping[str, Sequence[Mapping[str, str]]],
                      extra: Optional[Mapping[str, Any]] = None) -> None:
    """Write predictions JSONL, one line per scenario in the given order (``extra`` keys added per line)."""
    with Path(path).open("w", encoding="utf-8") as fh:
        for sid, gs in guesses.items():
            row = {"scenario_id": sid, **(extra or {}),
                   "guesses": [{f: g[f] for f in GUESS_FIELDS} for g in gs]}
            fh.write(json.dumps(row, ensure_ascii=False, sort_keys=False) + "\n")


def summarize_notes(notes: Sequence[str], limit: int = 5) -> list[str]:
    """The first ``limit`` notes and a count of the rest, for printing."""
    shown = list(notes[:limit])
    if len(notes) > limit:
        shown.append(f"... and {len(notes) - limit} more note(s)")
    return shown
