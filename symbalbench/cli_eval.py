"""``symbalbench evaluate | run-baseline | demo``: score a predictions file, make one, see it all work.

``evaluate`` reads and validates a predictions JSONL (``scenario_id``, ``guesses``),
asks the judge each distinct equivalence question once (through the sqlite judge cache,
so an interrupted run resumes), scores, and writes ``scores.json``, ``verdicts.jsonl``,
``report.md`` and ``accuracy.png`` into an output folder that appears only when complete.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Optional

DEFAULT_DATASET = "sample"


def default_cache_path() -> str:
    """The judge cache shared by both benchmarks: one file per user (``capjudge.cache.default_cache_path``)."""
    from capjudge.cache import default_cache_path as shared

    return shared()


def make_judge(spec: Any, cache: Optional[str]):
    """Resolve the judge spec; ``cache`` None or "" means no cache."""
    from capjudge import resolve_judge

    if cache:
        Path(cache).parent.mkdir(parents=True, exist_ok=True)
    return resolve_judge(spec, cache=cache or None)


def load_benchmark(dataset: str = DEFAULT_DATASET):
    """A loaded SymbalBench: ``sample`` (the bundled one) or a built folder."""
    import symbalbench

    if dataset in (None, "", DEFAULT_DATASET):
        return symbalbench.load()
    if not Path(dataset).exists():
        raise FileNotFoundError(f"dataset folder {dataset} not found (give a built folder or 'sample')")
    return symbalbench.load(dataset)


def benchmark_truths(bench) -> list:
    """The answer of every scenario, in the benchmark's order (from the scenarios table)."""
    from symbalbench.scoring import Truth

    cols = ["scenario_id", "text_error", "visual_feature", "domain", "strength", "sampling", "size"]
    table = bench.scenarios.select_columns(cols).to_dict()
    return [Truth.from_row({c: table[c][i] for c in cols}) for i in range(len(table["scenario_id"]))]


def run_evaluation(predictions_path: str, dataset: str = DEFAULT_DATASET, judge: Any = "embedded",
                   cache: Optional[str] = None, out_dir: Optional[str] = None, ks: Any = None, strict: bool = False,
                   progress: bool = True, method: Optional[str] = None, n_resamples: int = 1000) -> dict:
    """Validate, judge, score and (when ``out_dir`` is given) write the report; returns scores.json's dict."""
    from benchcore.outdir import atomic_output_dir
    from symbalbench.judging import evaluate_predictions
    from symbalbench.predictions import read_predictions
    from symbalbench.report import scores_document, verdict_rows, write_report
    from symbalbench.scoring import parse_ks

    ks = parse_ks(ks)
    bench = load_benchmark(dataset)
    truths = benchmark_truths(bench)
    preds = read_predictions(predictions_path, scenario_ids=[t.scenario_id for t in truths], k=max(ks), strict=strict)
    j = make_judge(judge, cache)
    ev = evaluate_predictions(truths, preds.guesses, j, ks=ks, progress=progress, n_resamples=n_resamples)
    meta = {"method": method or Path(predictions_path).stem, "predictions": str(predictions_path),
            "dataset": str(dataset), "judge_signature": ev.judge_signature,
            "judging": {"distinct_pairs": ev.stats.n_pairs, "errors": ev.stats.n_errors,
                        **({"cache": dict(j.stats)} if hasattr(j, "stats") and isinstance(j.stats, dict) else {})}}
    if out_dir:
        rows = verdict_rows(truths, preds.guesses, ev.outcomes, ev.verdicts, max(ks), ev.errors)
        with atomic_output_dir(out_dir) as tmp:
            write_report(tmp, ev.scores, rows, meta, notes=preds.notes)
    return scores_document(ev.scores, {**meta, "notes": preds.notes})


def _print_summary(doc: dict, out_dir: Optional[str]) -> None:
    ks = doc["ks"]
    overall = doc["overall"]
    parts = [f"Accuracy@{k} = {overall[f'accuracy@{k}']:.3f} [{overall[f'accuracy@{k}_ci'][0]:.3f}, "
             f"{overall[f'accuracy@{k}_ci'][1]:.3f}]" for k in ks if overall[f"accuracy@{k}"] is not None]
    print(f"{doc['n_scenarios']} scenarios ({doc['n_missing']} missing, {doc['n_judge_errors']} judge errors): "
          + "; ".join(parts))
    for note in doc.get("notes", [])[:5]:
        print(f"note: {note}", file=sys.stderr)
    if len(doc.get("notes", [])) > 5:
        print(f"note: ... and {len(doc['notes']) - 5} more (see report.md)", file=sys.stderr)
    if out_dir:
        print(f"wrote {out_dir}/ (scores.json, verdicts.jsonl, report.md, accuracy.png)")


def cmd_evaluate(args: argparse.Namespace) -> int:
    out_dir = args.out or str(Path(args.predictions).with_suffix("")) + "_eval"
    doc = run_evaluation(args.predictions, dataset=args.dataset, judge=args.judge,
                         cache=None if args.no_cache else args.cache, out_dir=out_dir, ks=args.k,
                         strict=args.strict, progress=not args.quiet, method=args.method)
    _print_summary(doc, out_dir)
    return 0


def load_tagger(spec: str):
    """``module:function`` -> the callable (a user's image tagger for the ``tagger`` baseline)."""
    import importlib

    from benchcore.errors import InputError

    mod, _, name = spec.partition(":")
    if not mod or not name:
        raise InputError(f"--tagger must look like module:function, got {spec!r}")
    try:
        return getattr(importlib.import_module(mod), name)
    except (ImportError, AttributeError) as e:
        raise InputError(f"--tagger {spec}: cannot import ({e})") from None


def cmd_run_baseline(args: argparse.Namespace) -> int:
    from benchcore.errors import InputError
    from symbalbench.baselines import make_baseline, run_detector
    from symbalbench.predictions import write_predictions

    options: dict[str, Any] = {"top": args.top}
    if args.name == "random":
        options["seed"] = args.seed
    if args.name == "tagger":
        if not args.tagger:
            raise InputError("the tagger baseline needs --tagger module:function (image -> list of names)")
        options["tagger"] = load_tagger(args.tagger)
    try:
        detector = make_baseline(args.name, **options)
    except ValueError as e:
        raise InputError(str(e)) from None
    bench = load_benchmark(args.dataset)
    ids = [s.strip() for s in args.scenarios.split(",")] if args.scenarios else None
    guesses = run_detector(detector, bench, scenario_ids=ids, variant=args.variant, progress=not args.quiet)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_predictions(args.out, guesses)
    print(f"wrote {args.out}: guesses for {len(guesses)} of {len(ids or bench.scenario_ids)} scenarios")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from symbalbench.demo import run_demo

    run_demo(dataset=args.dataset, judge=args.judge, out_dir=args.out, progress=not args.quiet, stream=sys.stdout,
             synthetic=args.synthetic)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--dataset", default=DEFAULT_DATASET, help="a built SymbalBench folder, or 'sample' (default)")
        p.add_argument("--quiet", action="store_true", help="no progress bars")

    p = subparsers.add_parser("evaluate", help="score a predictions JSONL (scenario_id, guesses) with Accuracy@K")
    p.add_argument("predictions", help="JSONL: one {scenario_id, guesses: [{text_error, visual_feature}, ...]} per line")
    common(p)
    p.add_argument("--judge", default="embedded", help="judge spec: embedded (default) or openai:MODEL?base_url=...")
    p.add_argument("--out", help="output folder (default: PREDICTIONS without .jsonl + '_eval')")
    p.add_argument("--k", default="1,5", help="comma-separated K values (default 1,5)")
    p.add_argument("--strict", action="store_true", help="a guess list shorter than the largest K is an error")
    p.add_argument("--method", help="method name shown in the report (default: the file name)")
    p.add_argument("--cache", default=default_cache_path(), help="sqlite judge cache (default: %(default)s)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the judge cache")
    p.set_defaults(func=cmd_evaluate)

    p = subparsers.add_parser("run-baseline", help="run a baseline detector and write its predictions JSONL")
    p.add_argument("name", help="reference_diff, tagger, frequency or random")
    common(p)
    p.add_argument("--out", required=True, help="predictions JSONL to write")
    p.add_argument("--variant", choices=["reference_free", "reference_based"],
                   help="dataset view (default: the baseline's own: reference_based for reference_diff)")
    p.add_argument("--top", type=int, default=5, help="guesses per scenario (default 5)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random baseline")
    p.add_argument("--tagger", help="for the tagger baseline: module:function taking a PIL image, returning names")
    p.add_argument("--scenarios", help="comma-separated scenario ids (default: all)")
    p.set_defaults(func=cmd_run_baseline)

    p = subparsers.add_parser("demo", help="run the baselines on the bundled sample and print their Accuracy@K")
    common(p)
    p.add_argument("--judge", default="embedded", help="judge spec (default: embedded)")
    p.add_argument("--out", help="also write each baseline's predictions and report under this folder")
    p.add_argument("--synthetic", action="store_true",
                   help="instead, build a larger synthetic benchmark and print accuracy per domain and strength (~20 s)")
    p.set_defaults(func=cmd_demo)
