"""Read and validate a DiffCap-Bench predictions file.

Two formats, one record per pair:

* JSONL (``.jsonl``/``.json``/``.ndjson``): one object per line with string fields
  ``pair_id`` and ``prediction`` (extra fields are ignored; blank lines are skipped);
* CSV (``.csv``): a header row with columns ``pair_id`` and ``prediction``.

Every problem found is reported at once, each naming the line and pair id, in one
:class:`PredictionsError` (an :class:`~benchcore.errors.InputError`): invalid UTF-8,
invalid JSON, wrong columns, a non-string value, an over-long prediction, a duplicated
pair id. Matching against the dataset (:func:`match_predictions`) adds unknown pair
ids (always an error) and missing pairs and empty predictions (scored as empty
predictions and listed, or refused with ``strict=True``).

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "preds.jsonl")
>>> _ = open(path, "w").write('{"pair_id": "p1", "prediction": "a cat appears"}\\n')
>>> read_predictions(path).predictions
{'p1': 'a cat appears'}
"""
from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Collection, Iterator, Optional, Sequence

from benchcore.errors import InputError
from benchcore.jsonl import decode_lines, parse_object

# A caption of differences is a paragraph; 1 MB of text is a bug or an attack on the judge.
MAX_PREDICTION_CHARS = 20_000
MAX_PROBLEMS_SHOWN = 20
REQUIRED_FIELDS = ("pair_id", "prediction")
JSONL_SUFFIXES = (".jsonl", ".json", ".ndjson")


class PredictionsError(InputError):
    """A predictions file (or its match with the dataset) is not usable; lists every problem."""

    def __init__(self, path: str, problems: Sequence[str]):
        self.path = str(path)
        self.problems = list(problems)
        shown = self.problems[:MAX_PROBLEMS_SHOWN]
        more = len(self.problems) - len(shown)
        lines = [f"{self.path}: {len(self.problems)} problem(s) in the predictions"] + [f"  {p}" for p in shown]
        if more:
            lines.append(f"  ... and {more} more")
        super().__init__("\n".join(lines))


@dataclass
class PredictionSet:
    """Predictions read from one file: pair_id -> text, and the line each came from."""

    path: str
    predictions: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)


@dataclass
class MatchedPredictions:
    """Predictions lined up with the dataset's pairs.

    ``predictions`` has one text per dataset pair ("" for a missing one); ``missing``
    lists pairs without a prediction, ``empty`` pairs whose prediction is blank.
    """

    predictions: dict[str, str]
    missing: list[str]
    empty: list[str]


def _detect_format(path: Path, head: bytes) -> str:
    suffix = path.suffix.lower()
    if suffix in JSONL_SUFFIXES:
        return "jsonl"
    if suffix == ".csv":
        return "csv"
    return "jsonl" if head.lstrip().startswith(b"{") else "csv"


def _check_record(rec: dict, where: str, max_chars: int, problems: list[str]) -> Optional[tuple[str, str]]:
    """Validate the two fields of one record; append problems; return (pair_id, text) if good."""
    missing = [f for f in REQUIRED_FIELDS if f not in rec]
    if missing:
        problems.append(f"{where}: missing field(s) {', '.join(missing)} (found: {', '.join(map(str, rec)) or 'none'}); "
                        f"each record needs 'pair_id' and 'prediction'")
        return None
    pair_id, text = rec["pair_id"], rec["prediction"]
    if not isinstance(pair_id, str) or not pair_id.strip():
        problems.append(f"{where}: 'pair_id' must be a non-empty string, got {pair_id!r}")
        return None
    where = f"{where} (pair_id {pair_id!r})"
    if not isinstance(text, str):
        problems.append(f"{where}: 'prediction' must be a string, got {type(text).__name__}")
        return None
    if len(text) > max_chars:
        problems.append(f"{where}: prediction has {len(text):,} characters, more than the limit of {max_chars:,} "
                        f"(raise it with --max-chars if this is intended)")
        return None
    return pair_id, text


def _jsonl_records(path: Path, data: bytes, problems: list[str]) -> Iterator[tuple[int, object]]:
    for n, line in decode_lines(data, problems):
        if not line.strip():
            continue
        rec = parse_object(line, f"line {n}", problems, "a JSON object with pair_id and prediction")
        if rec is not None:
            yield n, rec


def _csv_records(path: Path, data: bytes, problems: list[str]) -> Iterator[tuple[int, object]]:
    bad_before = len(problems)
    lines = list(decode_lines(data, problems))
    if len(problems) > bad_before:
        return  # csv rows can span lines; do not guess around broken bytes
    text = "\n".join(line for _, line in lines)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = reader.fieldnames or []
    missing = [f for f in REQUIRED_FIELDS if f not in header]
    if missing:
        problems.append(f"line 1: CSV header lacks column(s) {', '.join(missing)} (found: {', '.join(header) or 'none'})")
        return
    for rec in reader:
        n = reader.line_num
        where = f"line {n}"
        if None in rec:  # more cells than header columns
            problems.append(f"{where}: {len(header) + len(rec[None])} cells for {len(header)} header columns")
            continue
        if rec["prediction"] is None:
            problems.append(f"{where}: too few cells for the header")
            continue
        yield n, rec


def read_predictions(path: str | os.PathLike, max_chars: int = MAX_PREDICTION_CHARS,
                     pair_ids: Optional[Collection[str]] = None) -> PredictionSet:
    """Read a JSONL or CSV predictions file; raise :class:`PredictionsError` listing all problems.

    Duplicated pair ids are an error naming both lines (which one is meant is not ours to guess).
    Given the dataset's ``pair_ids``, unknown ids are reported in the same pass, so one
    error message lists every fault of the file.
    """
    known = set(pair_ids) if pair_ids is not None else None
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"predictions file not found: {p}")
    data = p.read_bytes()
    problems: list[str] = []
    fmt = _detect_format(p, data[:64])
    records = _jsonl_records(p, data, problems) if fmt == "jsonl" else _csv_records(p, data, problems)
    out = PredictionSet(path=str(p))
    for n, rec in records:
        where = f"line {n}"
        good = _check_record(rec, where, max_chars, problems)
        if good is None:
            continue
        pair_id, text = good
        if known is not None and pair_id not in known:
            problems.append(f"{where} (pair_id {pair_id!r}): not a pair of the dataset")
            continue
        if pair_id in out.lines:
            problems.append(f"{where}: pair_id {pair_id!r} repeats line {out.lines[pair_id]}; keep one prediction per pair")
            continue
        out.predictions[pair_id] = text
        out.lines[pair_id] = n
    if problems:
        raise PredictionsError(str(p), problems)
    if not out.predictions:
        raise PredictionsError(str(p), [f"no predictions found (expected {fmt.upper()} records with pair_id and prediction)"])
    return out


def match_predictions(preds: PredictionSet, pair_ids: Sequence[str], strict: bool = False) -> MatchedPredictions:
    """Line predictions up with the dataset's ``pair_ids`` (dataset order).

    Unknown pair ids are always an error (a typo or the wrong split would otherwise
    silently score as zero). Missing pairs and blank predictions are scored as empty
    predictions and listed; with ``strict=True`` they are refused.

    >>> ps = PredictionSet("p.jsonl", {"p1": "x", "p2": " "}, {"p1": 1, "p2": 2})
    >>> m = match_predictions(ps, ["p1", "p2", "p3"])
    >>> m.predictions, m.missing, m.empty
    ({'p1': 'x', 'p2': ' ', 'p3': ''}, ['p3'], ['p2'])
    """
    known = set(pair_ids)
    problems = [f"line {preds.lines.get(pid, '?')} (pair_id {pid!r}): not a pair of the dataset"
                for pid in preds.predictions if pid not in known]
    missing = [pid for pid in pair_ids if pid not in preds.predictions]
    empty = [pid for pid in pair_ids if pid in preds.predictions and not preds.predictions[pid].strip()]
    if strict:
        problems += [f"pair_id {pid!r}: no prediction (--strict refuses missing pairs)" for pid in missing]
        problems += [f"line {preds.lines[pid]} (pair_id {pid!r}): empty prediction (--strict refuses it)" for pid in empty]
    if problems:
        raise PredictionsError(preds.path, problems)
    return MatchedPredictions(
        predictions={pid: preds.predictions.get(pid, "") for pid in pair_ids},
        missing=missing,
        empty=empty,
    )


def write_predictions_jsonl(path: str | os.PathLike, predictions: dict[str, str]) -> None:
    """Write ``{pair_id: text}`` as a JSONL predictions file (UTF-8, one record a line)."""
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for pair_id, text in predictions.items():
            f.write(json.dumps({"pair_id": pair_id, "prediction": text}, ensure_ascii=False) + "\n")
