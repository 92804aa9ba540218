"""Speed and memory of ``diffcap-bench score`` with a warm judge cache.

1075 synthetic pairs (the published benchmark's size; item lists fabricated in memory,
written as a dataset folder without images) get predictions from the ``noisy`` reference
model, written as a JSONL file. A first run fills the judge cache (the literal judge of
``diffcap_bench.models`` stands in for a real one); the timed run then goes through the
CLI's stages and prints the split:

* reading — the dataset, the predictions file, and the judgements from the sqlite cache;
* scoring maths — forward check, per-pair counts, aggregates and 1000 bootstrap resamples;
* writing — scores.json, judgements.jsonl, report.md and the PNG chart.

Targets: total well under 5 s, reading > scoring maths. Then the whole run is repeated in
a fresh process for 1075 and 10 750 pairs and the peak resident memory of each is printed
with their ratio (target: close to 1 — memory stays flat as pairs grow).

    python benchmarks/bench_diffcap_score.py [--pairs 1075] [--scale 10]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

COLOURS = ("red", "blue", "green", "yellow", "black", "white", "purple", "orange")
SHAPES = ("cup", "ball", "box", "car", "star", "chair", "lamp", "tree")
PLACES = ("top left corner", "bottom right corner", "centre", "top right corner", "bottom left corner")
TEMPLATES = (
    ("object", "The {c} {s} in the {p} was added."),
    ("attribute", "The {s} in the {p} is now {c}."),
    ("spatial_relation", "The {c} {s} moved to the left of the {s2}."),
    ("image_property", "The second image is brighter."),
    ("text_symbol", "The sign on the {s} now reads {n}."),
    ("expression", "The face in the {p} is now smiling."),
)


def synthetic_rows(n: int, seed: int = 0):
    """Yield dataset rows with 6-7 items each (about the benchmark's 6.25 per pair)."""
    from diffcap_bench.schema import CATEGORIES, SOURCES

    for i in range(n):
        rng = random.Random(f"{seed}:{i}")
        items = []
        for k in range(rng.choice((6, 6, 6, 7))):
            cat, tpl = rng.choice(TEMPLATES)
            text = tpl.format(c=rng.choice(COLOURS), s=rng.choice(SHAPES), s2=rng.choice(SHAPES),
                              p=rng.choice(PLACES), n=rng.randint(1, 99))
            items.append({"id": f"b{i:05d}-{k}", "text": text, "category": CATEGORIES.index(cat),
                          "ambiguous": rng.random() < 0.1})
        yield {"pair_id": f"b{i:05d}", "image_a": None, "image_b": None,
               "source": rng.randrange(len(SOURCES)), "differences": items}


def write_dataset(folder: str, n: int) -> None:
    from datasets import Dataset

    from diffcap_bench.schema import features

    os.makedirs(os.path.join(folder, "data"), exist_ok=True)
    ds = Dataset.from_generator(synthetic_rows, gen_kwargs={"n": n}, features=features())
    ds.to_parquet(os.path.join(folder, "data", "test-00000-of-00001.parquet"))


def timed_run(dataset: str, preds_path: str, cache: str, out: str) -> dict[str, float]:
    """One scoring run through the CLI's stages, timed stage by stage."""
    from benchcore.outdir import atomic_output_dir
    from capjudge.registry import resolve_judge
    from diffcap_bench.cli_score import load_pairs
    from diffcap_bench.judging import judge_pairs, judgement_record
    from diffcap_bench.models import exact_match_judge
    from diffcap_bench.predictions import match_predictions, read_predictions
    from diffcap_bench.report import JUDGEMENTS_FILE, JsonlWriter, scores_document, write_report
    from diffcap_bench.scoring import aggregate, pair_counts, per_pair_columns

    t = {}
    t0 = time.perf_counter()
    pairs = load_pairs(dataset)
    matched = match_predictions(read_predictions(preds_path), [p.pair_id for p in pairs])
    judge = resolve_judge(exact_match_judge, cache=cache)
    judged = list(judge_pairs(pairs, matched.predictions, judge, progress=False))
    t["reading"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    counts = [pair_counts(j.pair.items, j.result.claims, j.pair.pair_id, j.pair.source) for j in judged]
    scores = aggregate(counts)
    doc = scores_document(scores, per_pair_columns(counts), judge.signature, dataset=dataset, predictions=preds_path)
    t["scoring maths"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    with atomic_output_dir(out) as tmp:
        with JsonlWriter(tmp / JUDGEMENTS_FILE) as sink:
            for j, pc in zip(judged, counts):
                sink(judgement_record(j, pc))
        write_report(tmp, doc)
    t["writing"] = time.perf_counter() - t0
    if judge.stats["misses"]:
        raise SystemExit(f"cache was not warm: {judge.stats['misses']} misses")
    return t


def prepare(work: str, n: int) -> tuple[str, str, str]:
    """Dataset folder, predictions file and a warmed judge cache for ``n`` pairs."""
    from diffcap_bench.cli_score import load_pairs, make_judge, run_score
    from diffcap_bench.models import exact_match_judge, predict_pairs
    from diffcap_bench.predictions import MatchedPredictions, write_predictions_jsonl

    dataset, preds_path, cache = os.path.join(work, "ds"), os.path.join(work, "noisy.jsonl"), os.path.join(work, "c.sqlite")
    write_dataset(dataset, n)
    pairs = load_pairs(dataset)
    preds = predict_pairs("noisy", pairs, seed=0)
    write_predictions_jsonl(preds_path, preds)
    run_score(pairs, MatchedPredictions(preds, [], []), make_judge(exact_match_judge, cache), None,
              progress=False, n_resamples=10)  # warm the judge cache (and the datasets cache)
    return dataset, preds_path, cache


def _rss_mb(field: str = "VmRSS") -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _reset_peak_rss() -> None:
    """Start a new peak-RSS window (Linux: writing 5 to clear_refs resets VmHWM)."""
    import gc

    gc.collect()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass  # then the peak includes the preparation: the ratio is an upper bound


def streamed_run(dataset: str, preds_path: str, cache: str, out: str) -> float:
    """The CLI's own path (judgements streamed to disk); returns its peak RSS in MB."""
    from diffcap_bench.cli_score import load_pairs, make_judge, run_score
    from diffcap_bench.models import exact_match_judge
    from diffcap_bench.predictions import match_predictions, read_predictions

    _reset_peak_rss()
    pairs = load_pairs(dataset)
    matched = match_predictions(read_predictions(preds_path), [p.pair_id for p in pairs])
    run_score(pairs, matched, make_judge(exact_match_judge, cache), out, progress=False)
    return _rss_mb("VmHWM")


def child(n: int) -> None:
    """Run in a fresh process: prepare, one timed run, one streamed run; print JSON with memory figures."""
    import datasets  # noqa: F401  (imports count in the baseline, not in the run)
    import matplotlib  # noqa: F401

    import diffcap_bench.cli_score  # noqa: F401

    datasets.disable_progress_bars()
    with tempfile.TemporaryDirectory() as work:
        dataset, preds_path, cache = prepare(work, n)
        times = timed_run(dataset, preds_path, cache, os.path.join(work, "out"))
        _reset_peak_rss()
        baseline = _rss_mb()
        peak = streamed_run(dataset, preds_path, cache, os.path.join(work, "out2"))
    print(json.dumps({"n": n, "times": times, "baseline_mb": baseline, "peak_mb": peak}))


def run_child(n: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(n)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1075)
    parser.add_argument("--scale", type=int, default=10, help="memory check: pairs x scale vs pairs (default 10)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return

    small = run_child(args.pairs)
    t = small["times"]
    total = sum(t.values())
    print(f"scoring {args.pairs} pairs with a warm judge cache: total {total:.2f} s (target well under 5 s)")
    for stage, sec in t.items():
        print(f"  {stage:14s} {sec:6.3f} s  ({100 * sec / total:4.1f}%)")
    print(f"  reading / scoring maths = {t['reading'] / t['scoring maths']:.1f} (target > 1: dominated by reading)")

    big = run_child(args.pairs * args.scale)
    tb = sum(big["times"].values())
    print(f"memory (peak RSS of the scoring run): {small['peak_mb']:.0f} MB for {args.pairs} pairs, {big['peak_mb']:.0f} MB for "
          f"{args.pairs * args.scale} pairs; ratio {big['peak_mb'] / small['peak_mb']:.2f} (target close to 1)")
    print(f"  growth over the post-import baseline: {small['peak_mb'] - small['baseline_mb']:.0f} MB vs "
          f"{big['peak_mb'] - big['baseline_mb']:.0f} MB; time {total:.2f} s vs {tb:.2f} s "
          f"(ratio {tb / total:.1f} for {args.scale}x pairs)")


if __name__ == "__main__":
    main()
