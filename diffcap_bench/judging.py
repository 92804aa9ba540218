"""Wire dataset pairs and predictions to a judge, then to the pure scoring maths.

``judge_pairs`` turns pairs + predictions into :class:`~capjudge.protocol.DifferenceCase`
batches, asks the judge chunk by chunk (tqdm progress bar over pairs) and yields each
pair with its result. ``score_pairs`` consumes that stream: a good judgement becomes
:class:`~diffcap_bench.scoring.PairCounts`, a judge error is recorded and listed — never
scored — and every pair is handed to an optional ``sink`` (the ``judgements.jsonl``
writer) as soon as it is judged, so memory holds only the small counts.

An empty prediction has no claims by definition, so it is not sent to the judge.

>>> from capjudge import Item
>>> pairs = [Pair("p1", "web", (Item("d1", "a cat was added", "object"),))]
>>> judge = lambda items, text: {"claims": [{"text": text, "label": "correct", "item": "d1"}]}
>>> counts, errors = score_pairs(pairs, {"p1": "a cat appears"}, judge, progress=False)
>>> counts[0].n_correct, errors
(1, {})
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping, Optional, Sequence

from capjudge.protocol import BudgetExceeded, DifferenceCase, DifferenceResult, Item, Judge, JudgeError
from capjudge.registry import JudgeSpec, resolve_judge
from diffcap_bench.scoring import PairCounts, item_labels, pair_counts, pair_metrics

DEFAULT_CHUNK_SIZE = 32


@dataclass(frozen=True)
class Pair:
    """What scoring needs of one dataset pair (no images)."""

    pair_id: str
    source: str
    items: tuple[Item, ...]


@dataclass(frozen=True)
class JudgedPair:
    pair: Pair
    prediction: str
    result: DifferenceResult


def pairs_from_rows(rows: Iterable[Mapping[str, Any]]) -> Iterator[Pair]:
    """Dataset rows (``pair_id``, ``source``, ``differences``) -> :class:`Pair` objects.

    Categories and sources may be ClassLabel ints or names; the data layer's
    ``diffcap_bench.schema`` converts them.
    """
    from diffcap_bench.schema import row_items, source_name

    for row in rows:
        source = row.get("source", "")
        yield Pair(str(row["pair_id"]), source_name(source) if source != "" else "", tuple(row_items(row)))


def pairs_from_dataset(dataset: Any) -> Iterator[Pair]:
    """Pairs of a ``datasets.Dataset`` without decoding its images (only three columns are read)."""
    wanted = [c for c in ("pair_id", "source", "differences") if c in dataset.column_names]
    return pairs_from_rows(dataset.select_columns(wanted))


def _chunks(seq: Iterable, size: int) -> Iterator[list]:
    chunk: list = []
    for x in seq:
        chunk.append(x)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _judge_chunk(judge: Judge, cases: Sequence[DifferenceCase]) -> list[DifferenceResult]:
    """Judge non-empty predictions; an empty one gets no claims without asking the judge."""
    to_ask = [c for c in cases if c.prediction.strip()]
    answers = list(judge.judge_differences(to_ask)) if to_ask else []
    if len(answers) != len(to_ask):
        raise RuntimeError(f"judge returned {len(answers)} results for {len(to_ask)} cases")  # a bug, not bad luck
    it = iter(answers)
    return [next(it) if c.prediction.strip() else DifferenceResult(claims=()) for c in cases]


def judge_pairs(
    pairs: Iterable[Pair],
    predictions: Mapping[str, str],
    judge: Judge,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    progress: bool = True,
    total: Optional[int] = None,
) -> Iterator[JudgedPair]:
    """Yield every pair with its judge result, in order, asking the judge ``chunk_size`` at a time.

    A judge that raises for a whole chunk (e.g. a server that is down) turns into an
    error result for each pair of that chunk; once the token budget is spent, every
    remaining pair is an error without asking again. Nothing is scored as success.
    """
    from tqdm.auto import tqdm

    bar = tqdm(total=total, unit="pair", desc="judging", disable=not progress)
    budget_error: Optional[str] = None
    try:
        for chunk in _chunks(pairs, chunk_size):
            cases = [DifferenceCase(p.items, predictions.get(p.pair_id, ""), p.pair_id) for p in chunk]
            if budget_error is None:
                try:
                    results = _judge_chunk(judge, cases)
                except BudgetExceeded as e:
                    budget_error = f"judge budget exceeded: {e}"
                    results = [DifferenceResult(error=budget_error)] * len(cases)
                except JudgeError as e:
                    results = [DifferenceResult(error=f"judge failed on this batch: {e}")] * len(cases)
            else:
                results = [DifferenceResult(error=budget_error)] * len(cases)
            for pair, case, result in zip(chunk, cases, results):
                yield JudgedPair(pair, case.prediction, result)
            bar.update(len(chunk))
    finally:
        bar.close()


def judgement_record(jp: JudgedPair, counts: Optional[PairCounts]) -> dict:
    """One line of ``judgements.jsonl``: the claims with labels, the item labels and the pair's numbers."""
    labels = item_labels(jp.pair.items, jp.result.claims) if counts is not None else {}
    items = [{**it.to_dict(), "label": "ambiguous" if it.ambiguous else labels.get(it.id)} for it in jp.pair.items]
    record = {
        "pair_id": jp.pair.pair_id,
        "source": jp.pair.source,
        "prediction": jp.prediction,
        "error": jp.result.error,
        "claims": [c.to_dict() for c in jp.result.claims],
        "items": items,
    }
    if counts is not None:
        record["counts"] = counts.to_dict()
        record["metrics"] = pair_metrics(counts).to_dict()
    return record


def score_pairs(
    pairs: Iterable[Pair],
    predictions: Mapping[str, str],
    judge: JudgeSpec,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    progress: bool = True,
    total: Optional[int] = None,
    sink: Optional[Callable[[dict], None]] = None,
) -> tuple[list[PairCounts], dict[str, str]]:
    """Judge and count every pair; return (counts of well-judged pairs, {pair_id: judge error}).

    ``judge`` is anything :func:`capjudge.resolve_judge` accepts. ``sink`` receives
    :func:`judgement_record` of each pair as it is judged.
    """
    j = resolve_judge(judge)
    counts: list[PairCounts] = []
    errors: dict[str, str] = {}
    for jp in judge_pairs(pairs, predictions, j, chunk_size=chunk_size, progress=progress, total=total):
        pc = None
        if jp.result.ok:
            pc = pair_counts(jp.pair.items, jp.result.claims, jp.pair.pair_id, jp.pair.source)
            counts.append(pc)
        else:
            errors[jp.pair.pair_id] = str(jp.result.error)
        if sink is not None:
            sink(judgement_record(jp, pc))
    return counts, errors
