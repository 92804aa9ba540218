"""``symbalbench demo``: the baselines on the bundled sample, scored with the embedded judge.

Runs ``reference_diff`` (reference_based) and the ``frequency`` and ``random`` floors
(reference_free), scores each with Accuracy@1/@5, and prints one table with the
per-strength Accuracy@5. The ``tagger`` baseline needs a user-supplied image tagger,
so it is not part of the demo (see ``symbalbench run-baseline tagger --tagger mod:fn``).
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, TextIO

from benchcore.tables import markdown_table

DEMO_BASELINES: tuple[str, ...] = ("reference_diff", "frequency", "random")
DEMO_KS: tuple[int, ...] = (1, 5)


def score_baselines(bench: Any, judge: Any, baselines: Sequence[str] | Mapping[str, Any] = DEMO_BASELINES,
                    ks: Sequence[int] = DEMO_KS, progress: bool = False, n_resamples: int = 1000) -> dict[str, dict]:
    """Run each baseline over every scenario of ``bench`` and score it; label -> {scores, guesses, variant}.

    ``baselines``: names of shipped baselines, or a mapping label -> detector object.
    """
    from symbalbench.baselines import make_baseline, run_detector
    from symbalbench.cli_eval import benchmark_truths
    from symbalbench.judging import evaluate_predictions

    truths = benchmark_truths(bench)
    detectors = dict(baselines) if isinstance(baselines, Mapping) else {n: make_baseline(n) for n in baselines}
    out = {}
    for name, detector in detectors.items():
        guesses = run_detector(detector, bench, progress=progress)
        ev = evaluate_predictions(truths, guesses, judge, ks=ks, progress=False, n_resamples=n_resamples)
        out[name] = {"scores": ev.scores, "guesses": guesses, "variant": detector.variant, "evaluation": ev,
                     "truths": truths}
    return out


def demo_table(results: dict[str, dict]) -> str:
    """One row per baseline: Accuracy@K overall (with CI) and Accuracy@5 per strength."""
    first = next(iter(results.values()))["scores"]
    ks = first["ks"]
    strengths = list(first["breakdowns"].get("strength", {}))
    k_last = ks[-1]
    header = ["baseline", "variant"] + [f"Acc@{k}" for k in ks] + [f"Acc@{k_last} {s}" for s in strengths]
    rows = []
    for name, r in results.items():
        s = r["scores"]
        row: list = [name, r["variant"]] + [s["overall"][f"accuracy@{k}"] for k in ks]
        row += [s["breakdowns"]["strength"][st][f"accuracy@{k_last}"] for st in strengths]
        rows.append(row)
    return markdown_table(header, rows)


# The larger synthetic build: the default grid's shape, fewer features per size and draws.
SYNTHETIC_GRID: dict[str, Any] = {
    "natural": {"features_per_size": 3, "draws": 1, "min_support": 20},
    "medical": {"pairs_per_device": 2, "min_support": 15},
}
SYNTHETIC_IMAGES = 740  # synthetic COCO images (the fixture builds fine at 1000 too, see metrics/symbal_accuracy/README.md)
SYNTHETIC_STUDIES = 600  # synthetic MIMIC-CXR studies


def build_synthetic(out_dir: str | Path, n_images: int = SYNTHETIC_IMAGES, n_studies: int = SYNTHETIC_STUDIES,
                    seed: int = 0, progress: bool = False) -> Path:
    """Build a larger synthetic SymbalBench (seeded fixtures + the builder) into ``out_dir``."""
    import tempfile

    from symbalbench.base.coco import load_coco
    from symbalbench.base.mimic import load_mimic
    from symbalbench.builder import SymbalBenchBuilder
    from symbalbench.fixtures import make_coco, make_mimic
    from symbalbench.grid import make_grid

    with tempfile.TemporaryDirectory(prefix="symbal-synthetic-") as tmp:
        coco = make_coco(Path(tmp) / "coco", n_images, seed=seed)
        mimic = make_mimic(Path(tmp) / "mimic", n_studies, seed=seed)
        builder = SymbalBenchBuilder(make_grid(SYNTHETIC_GRID), seed=seed, images="embed", progress=progress)
        builder.build(out_dir, load_coco(coco), load_mimic(mimic))
    return Path(out_dir)


def strength_table(results: dict[str, dict]) -> str:
    """Accuracy@1 / @5 per domain and strength, one row per baseline (the strength study)."""
    first = next(iter(results.values()))["scores"]
    cells = list(first["breakdowns"].get("domain+strength", {}))
    header = ["baseline"] + [f"{c.replace(',', ' ')} @1/@5" for c in cells]
    rows = []
    for name, r in results.items():
        groups = r["scores"]["breakdowns"]["domain+strength"]
        rows.append([name] + [f"{groups[c]['accuracy@1']:.2f} / {groups[c]['accuracy@5']:.2f}" for c in cells])
    return markdown_table(header, rows)


def study_detectors() -> dict[str, Any]:
    """The strength study's detectors: the demo's three plus reference_diff reading one reference per row."""
    from symbalbench.baselines import make_baseline

    out = {name: make_baseline(name) for name in DEMO_BASELINES}
    out["reference_diff (1 ref/row)"] = make_baseline("reference_diff", max_references=1)
    return out


def run_demo(dataset: str = "sample", judge: Any = "embedded", out_dir: Optional[str] = None,
             progress: bool = True, stream: TextIO = sys.stdout, synthetic: bool = False) -> dict[str, dict]:
    """Load the benchmark, score the baselines, print the table (and write reports under ``out_dir``).

    With ``synthetic``, first build the larger synthetic benchmark in a temporary folder
    and also print the per-domain, per-strength table (about 20 s).
    """
    import tempfile

    from symbalbench.cli_eval import load_benchmark, make_judge

    if synthetic:
        with tempfile.TemporaryDirectory(prefix="symbal-demo-") as tmp:
            print(f"building a synthetic SymbalBench ({SYNTHETIC_IMAGES} images, {SYNTHETIC_STUDIES} studies) ...",
                  file=stream)
            folder = build_synthetic(Path(tmp) / "build", progress=progress)
            bench = load_benchmark(str(folder))
            j = make_judge(judge, None)
            results = score_baselines(bench, j, study_detectors(), progress=progress)
            print(f"{len(bench.scenario_ids)} scenarios, judge {j.signature}", file=stream)
            print(demo_table(results), file=stream)
            print("", file=stream)
            print(strength_table(results), file=stream)
            return results
    bench = load_benchmark(dataset)
    j = make_judge(judge, None)
    n = len(bench.scenario_ids)
    print(f"SymbalBench demo: {n} scenarios from {'the bundled sample' if dataset in (None, '', 'sample') else dataset}, "
          f"judge {j.signature}", file=stream)
    results = score_baselines(bench, j, progress=progress)
    print(demo_table(results), file=stream)
    if out_dir:
        _write_outputs(results, out_dir, dataset)
        print(f"wrote predictions and reports under {out_dir}/", file=stream)
    return results


def _write_outputs(results: dict[str, dict], out_dir: str, dataset: str) -> None:
    from benchcore.outdir import atomic_output_dir
    from symbalbench.predictions import write_predictions
    from symbalbench.report import verdict_rows, write_report

    with atomic_output_dir(out_dir) as tmp:
        for name, r in results.items():
            ev = r["evaluation"]
            write_predictions(Path(tmp) / f"{name}.jsonl", r["guesses"])
            folder = Path(tmp) / name
            folder.mkdir()
            rows = verdict_rows(r["truths"], r["guesses"], ev.outcomes, ev.verdicts, max(r["scores"]["ks"]), ev.errors)
            write_report(folder, r["scores"], rows, {"method": name, "dataset": dataset,
                                                     "judge_signature": ev.judge_signature})
