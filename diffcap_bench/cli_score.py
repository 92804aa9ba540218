"""``diffcap-bench score | compare | demo``: score a predictions file, compare two runs, see the metric work.

``score`` and ``demo`` share :func:`run_score`: judge every pair (through the judge
cache, so an interrupted run resumes), stream ``judgements.jsonl``, aggregate, and write
``scores.json``, ``report.md`` and ``recall_per_category.png`` into an output folder that
appears only when complete.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, Optional, Sequence

DEFAULT_DATASET = "sample"


def default_cache_path() -> str:
    """The judge cache shared by both benchmarks (``capjudge.cache.default_cache_path``)."""
    from capjudge.cache import default_cache_path as shared

    return shared()


def load_pairs(dataset: str = DEFAULT_DATASET, split: str = "test") -> list:
    """The dataset's pairs (ids, sources, difference items; no images). ``sample`` = the bundled sample."""
    import diffcap_bench
    from diffcap_bench.judging import pairs_from_dataset

    ds = diffcap_bench.load(split=split, path=None if dataset == DEFAULT_DATASET else dataset)
    return list(pairs_from_dataset(ds))


def make_judge(spec: Any, cache: Optional[str]):
    """Resolve the judge; ``cache`` None or "" means no cache. A bad spec is an InputError (exit 2)."""
    from benchcore.errors import InputError
    from capjudge.registry import resolve_judge

    if cache:
        Path(cache).parent.mkdir(parents=True, exist_ok=True)
    try:
        return resolve_judge(spec, cache=cache or None)
    except (ValueError, TypeError) as e:
        raise InputError(f"--judge {spec!r}: {e}") from None


def run_score(
    pairs: Sequence,
    matched,
    judge,
    out_dir: Optional[str] = None,
    *,
    dataset: str = "",
    predictions: str = "",
    model: str = "",
    n_resamples: int = 1000,
    seed: int = 12345,
    chunk_size: int = 32,
    progress: bool = True,
) -> dict:
    """Judge and score ``pairs`` against ``matched`` predictions; write outputs to ``out_dir`` if given.

    Returns the ``scores.json`` document. ``matched`` is a
    :class:`~diffcap_bench.predictions.MatchedPredictions`; ``judge`` anything
    :func:`capjudge.resolve_judge` accepts.
    """
    import contextlib

    from benchcore.outdir import atomic_output_dir
    from diffcap_bench.judging import score_pairs
    from diffcap_bench.report import JUDGEMENTS_FILE, JsonlWriter, scores_document, write_report
    from capjudge.registry import resolve_judge
    from diffcap_bench.scoring import aggregate, per_pair_columns

    judge = resolve_judge(judge)  # a spec string or callable is fine too; a Judge passes through
    with contextlib.ExitStack() as stack:
        sink = None
        tmp = None
        if out_dir is not None:
            tmp = stack.enter_context(atomic_output_dir(out_dir))
            sink = stack.enter_context(JsonlWriter(tmp / JUDGEMENTS_FILE))
        counts, errors = score_pairs(pairs, matched.predictions, judge, chunk_size=chunk_size,
                                     progress=progress, total=len(pairs), sink=sink)
        scores = aggregate(counts, n_resamples=n_resamples, seed=seed, errors=errors)
        doc = scores_document(scores, per_pair_columns(counts), judge.signature, dataset=dataset,
                              predictions=predictions, missing=matched.missing, empty=matched.empty, model=model)
        if tmp is not None:
            sink.close()
            write_report(tmp, doc)
    return doc


# ---------------------------------------------------------------- score

def _score(args: argparse.Namespace) -> int:
    from diffcap_bench.predictions import match_predictions, read_predictions
    from diffcap_bench.report import headline_table, category_table

    judge = make_judge(args.judge, None if args.no_cache else args.cache)  # fail fast on a bad spec
    pairs = load_pairs(args.dataset, args.split)
    pair_ids = [p.pair_id for p in pairs]
    # refuse a bad file before judging anything, with every fault in one message
    preds = read_predictions(args.predictions, max_chars=args.max_chars, pair_ids=pair_ids)
    matched = match_predictions(preds, pair_ids, strict=args.strict)
    for what, ids in (("missing", matched.missing), ("empty", matched.empty)):
        if ids:
            print(f"note: {len(ids)} pair(s) with {what} predictions are scored as saying nothing "
                  f"(listed in scores.json; --strict refuses them): {', '.join(ids[:10])}"
                  + (" ..." if len(ids) > 10 else ""), file=sys.stderr)
    out = args.out or f"{Path(args.predictions).stem}_scores"
    doc = run_score(pairs, matched, judge, out, dataset=args.dataset, predictions=str(args.predictions),
                    n_resamples=args.resamples, seed=args.seed, chunk_size=args.chunk_size,
                    progress=not args.quiet)
    print(headline_table(doc))
    print()
    print(category_table(doc))
    if doc["n_judge_errors"]:
        print(f"warning: {doc['n_judge_errors']} pair(s) could not be judged and are left out "
              f"(see judge_errors in scores.json); rerun to retry them", file=sys.stderr)
    print(f"\nwrote {out}/ (scores.json, judgements.jsonl, report.md, recall_per_category.png)")
    return 0


# ---------------------------------------------------------------- compare

def _compare(args: argparse.Namespace) -> int:
    import json

    from diffcap_bench.compare import compare_scores, render_comparison
    from diffcap_bench.report import read_scores_json

    result = compare_scores(read_scores_json(args.scores_a), read_scores_json(args.scores_b),
                            n_resamples=args.resamples, seed=args.seed)
    print(render_comparison(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


# ---------------------------------------------------------------- demo

def demo_table(docs: dict[str, dict]) -> str:
    """One row per model: the headline numbers with F1* first."""
    from benchcore.tables import markdown_table

    cols = ("f1_star", "recall", "precision_star", "hallucination_rate", "hallucinated_pair_rate")
    rows = [[name, *(doc["macro"][c] for c in cols)] for name, doc in docs.items()]
    return markdown_table(["model", *cols], rows)


def run_demo(dataset: str = DEFAULT_DATASET, judge: Any = "embedded", out: Optional[str] = None,
             seed: int = 0, cache: Optional[str] = None, progress: bool = True, n_resamples: int = 1000) -> dict[str, dict]:
    """Score the reference models (perfect, noisy, hallucinating) on ``dataset``; return their scores.json docs."""
    from diffcap_bench.models import REFERENCE_MODELS, predict_pairs
    from diffcap_bench.predictions import MatchedPredictions, write_predictions_jsonl

    pairs = load_pairs(dataset)
    j = make_judge(judge, cache)
    docs = {}
    for model in REFERENCE_MODELS:
        preds = predict_pairs(model, pairs, seed=seed)
        matched = MatchedPredictions(preds, missing=[], empty=[pid for pid, t in preds.items() if not t.strip()])
        model_out = os.path.join(out, model) if out else None
        docs[model] = run_score(pairs, matched, j, model_out, dataset=dataset, predictions=f"{model}.jsonl",
                                model=model, n_resamples=n_resamples, progress=progress)
        if model_out:
            write_predictions_jsonl(os.path.join(model_out, "predictions.jsonl"), preds)
    return docs


def _demo(args: argparse.Namespace) -> int:
    try:
        docs = run_demo(args.dataset, args.judge, args.out, args.seed,
                        cache=None if args.no_cache else args.cache, progress=not args.quiet)
    except ImportError as e:  # e.g. the embedded judge is not installed in this build
        print(f"diffcap-bench demo: the judge {args.judge!r} is not available: {e}", file=sys.stderr)
        return 1
    print(f"Reference models on the {args.dataset} dataset, judge {args.judge}:\n")
    print(demo_table(docs))
    print("\nF1* should rank perfect > noisy > hallucinating; hallucination_rate is worst for hallucinating.")
    if args.out:
        print(f"wrote {args.out}/<model>/ (predictions.jsonl, scores.json, judgements.jsonl, report.md, chart); "
              f"try: diffcap-bench compare {args.out}/perfect {args.out}/noisy")
    return 0


# ---------------------------------------------------------------- parsers

def _common(p: argparse.ArgumentParser, dataset: bool = True, bootstrap: bool = True) -> None:
    if dataset:
        p.add_argument("--dataset", default=DEFAULT_DATASET,
                       help="'sample' (the bundled sample, default) or a folder from 'diffcap-bench build'")
        p.add_argument("--split", default="test", help="dataset split (default: test)")
        p.add_argument("--judge", default="embedded",
                       help="judge spec: 'embedded' (default, offline) or 'openai:MODEL?base_url=URL&api_key_env=VAR'")
        p.add_argument("--cache", default=default_cache_path(), help="sqlite judge cache (default: %(default)s)")
        p.add_argument("--no-cache", action="store_true", help="do not read or write the judge cache")
        p.add_argument("--quiet", action="store_true", help="no progress bar")
    if not bootstrap:
        return
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples of pairs (default 1000)")
    p.add_argument("--seed", type=int, default=12345, help="bootstrap seed (default 12345)")


def register(subparsers: Any) -> None:
    from diffcap_bench.predictions import MAX_PREDICTION_CHARS

    p = subparsers.add_parser("score", help="score a predictions file (JSONL or CSV: pair_id, prediction)",
                              description="Judge every pair's prediction and write scores.json, judgements.jsonl, "
                                          "report.md and a recall-per-category chart.")
    p.add_argument("predictions", help="predictions file: .jsonl with pair_id/prediction per line, or .csv with those columns")
    p.add_argument("--out", help="output folder (default: <predictions stem>_scores)")
    p.add_argument("--strict", action="store_true", help="refuse missing pairs and empty predictions instead of scoring them as empty")
    p.add_argument("--max-chars", type=int, default=MAX_PREDICTION_CHARS, help="longest accepted prediction (default %(default)s)")
    p.add_argument("--chunk-size", type=int, default=32, help="pairs sent to the judge per batch")
    _common(p)
    p.set_defaults(func=_score)

    p = subparsers.add_parser("compare", help="paired bootstrap: does model A beat model B?",
                              description="Paired bootstrap over shared pairs for F1*, recall and hallucination rate.")
    p.add_argument("scores_a", help="scores.json of model A (or its output folder)")
    p.add_argument("scores_b", help="scores.json of model B (or its output folder)")
    p.add_argument("--json", help="also write the comparison as JSON to this file")
    _common(p, dataset=False)
    p.set_defaults(func=_compare)

    p = subparsers.add_parser("demo", help="score three reference models on the bundled sample",
                              description="Score a perfect, a noisy and a hallucinating reference model and print the table.")
    p.add_argument("--out", help="also write each model's predictions and outputs to OUT/<model>/")
    p.add_argument("--seed", type=int, default=0, help="seed of the reference models' noise (default 0)")
    _common(p, bootstrap=False)
    p.set_defaults(func=_demo)
