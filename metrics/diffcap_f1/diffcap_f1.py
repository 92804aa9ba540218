# Copyright 2026 The vl-diffbench authors. Licensed under the Apache License, Version 2.0.
"""DiffCap-Bench F1*: recall, precision* and F1* of image-difference captions (SPEC §1).

A thin `evaluate` adapter over ``diffcap_bench.scoring`` (the maths) and
``diffcap_bench.judging`` (asking the judge). It imports the installed packages, never
files next to it, because `evaluate` copies this script into its modules cache.
"""
import datasets
import evaluate

from diffcap_bench.judging import Pair, score_pairs
from diffcap_bench.schema import CATEGORIES
from diffcap_bench.scoring import aggregate, flat_scores
from capjudge.protocol import Item
from capjudge.registry import resolve_judge


_DESCRIPTION = """
DiffCap-Bench scores a free-text description of the differences between two images
against the pair's annotated difference list. A judge splits the prediction into atomic
claims and labels each one `correct` / `wrong` (about a key item), `ambiguous` (matches an
ambiguous item), `detail` (true but not listed) or `hallucination` (not there). Key items
are then correct, wrong or missed (the forward check). Per pair:

    recall             = C / K
    precision_star     = c_correct / (c_correct + c_wrong + c_hall)   (0 when nothing counts)
    f1_star            = 2 P R / (P + R)
    hallucination_rate = (c_wrong + c_hall) / n_claims

`detail` and `ambiguous` claims are neutral (the star). The headline numbers are means over
pairs (pairs without key items are left out of recall and F1*); `micro_*` pool the counts;
`recall_<category>` pools the key items of each of the ten categories; `*_ci_low/high` are
95% bootstrap intervals over pairs. Pairs whose judgement failed are counted in
`n_judge_errors` and left out of every number.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): one free-text difference description per image pair.
    references (`list` of `list` of `dict`): the difference list of each pair; each item is
        `{"id": str, "text": str, "category": str (one of the ten names), "ambiguous": bool}`.
    judge (`str`, judge object or callable, defaults to `"embedded"`): the offline embedded
        judge, an LLM judge spec such as `"openai:MODEL?base_url=http://127.0.0.1:8000/v1"`,
        any `capjudge.Judge`, or a callable `difference(items, prediction) -> {"claims": [...]}`.
    cache (`str`, optional): path of a sqlite judge cache; a rerun reuses stored judgements.
    n_resamples (`int`, defaults to 1000): bootstrap resamples of pairs for the intervals.
    seed (`int`, defaults to 12345): bootstrap seed.
    progress (`bool`, defaults to `False`): show a progress bar over pairs.
Returns:
    `recall`, `precision_star`, `f1_star`, `hallucination_rate`, `hallucinated_pair_rate`
    (macro means over pairs), `micro_recall`, `micro_precision_star`, `micro_f1_star`,
    `micro_hallucination_rate`, `recall_<category>` for the ten categories (None without key
    items), `<metric>_ci_low` / `<metric>_ci_high`, `n_pairs`, `n_pairs_scored`,
    `n_pairs_no_key_items`, `n_judge_errors`, `judge_signature`.
Examples:
    >>> import evaluate
    >>> diffcap_f1 = evaluate.load("metrics/diffcap_f1")
    >>> def judge(items, prediction):  # a toy judge: each sentence names an item id or nothing
    ...     claims = []
    ...     for sentence in prediction.split(". "):
    ...         hit = [it["id"] for it in items if it["text"] == sentence.strip(".")]
    ...         claims.append({"text": sentence, "label": "correct" if hit else "hallucination",
    ...                        "item": hit[0] if hit else None})
    ...     return {"claims": claims}
    >>> refs = [[{"id": "d1", "text": "a cat appears", "category": "object", "ambiguous": False},
    ...          {"id": "d2", "text": "the sky is darker", "category": "image_property", "ambiguous": False}]]
    >>> results = diffcap_f1.compute(predictions=["a cat appears. a dog appears"], references=refs, judge=judge)
    >>> results["recall"], results["precision_star"], results["f1_star"], results["hallucination_rate"]
    (0.5, 0.5, 0.5, 0.5)
    >>> results["recall_object"], results["recall_image_property"], results["n_judge_errors"]
    (1.0, 0.0, 0)
"""

_CITATION = """
@misc{diffcap_bench,
  title  = {DiffCap-Bench: a benchmark for describing the differences between two images},
  note   = {Reference scorer in the vl-diffbench package},
  year   = {2026}
}
"""

_ITEM = {
    "id": datasets.Value("string"),
    "text": datasets.Value("string"),
    "category": datasets.Value("string"),
    "ambiguous": datasets.Value("bool"),
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class DiffcapF1(evaluate.Metric):
    """DiffCap-Bench recall / precision* / F1* / hallucination rate with a pluggable judge."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({
                "predictions": datasets.Value("string"),
                "references": datasets.List(_ITEM),
            }),
            reference_urls=["https://github.com/huggingface/evaluate"],
        )

    def _compute(self, predictions, references, judge="embedded", cache=None, n_resamples=1000, seed=12345,
                 progress=False):
        unknown = sorted({str(it["category"]) for ref in references for it in ref} - set(CATEGORIES))
        if unknown:
            raise ValueError(f"unknown categories {unknown}; use the ten names: {', '.join(CATEGORIES)}")
        pairs = [Pair(f"pair-{i}", "", tuple(Item.from_mapping(it) for it in ref)) for i, ref in enumerate(references)]
        texts = {p.pair_id: text for p, text in zip(pairs, predictions)}
        j = resolve_judge(judge, cache=cache)
        counts, errors = score_pairs(pairs, texts, j, progress=progress, total=len(pairs))
        scores = aggregate(counts, CATEGORIES, n_resamples=n_resamples, seed=seed, errors=errors)
        return {**flat_scores(scores), "judge_signature": j.signature}
