"""Time and peak memory of a DiffCap-Bench build of 1075 synthetic pairs vs plain pyarrow.

    python benchmarks/bench_diffcap_build.py [--n 1075] [--seed 0]

Draws N pairs with the synthetic generator, then runs, each in a fresh subprocess so peak RSS
(ru_maxrss) is its own: (1) ``DiffCapBuilder.build`` (validation, image decoding checks, card,
atomic move) and (2) a baseline writing the same rows with plain pyarrow (read the JSON lines
and image bytes, ``pq.write_table``), no validation. Prints both and their ratios.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def child_build(raw: str, out: str) -> dict:
    t = time.perf_counter()
    import datasets  # noqa: F401  (the builder needs its Features; timed apart, it is a fixed cost)

    import_s = time.perf_counter() - t
    from diffcap_bench.builder import DiffCapBuilder

    t = time.perf_counter()
    s = DiffCapBuilder(show_progress=False).build(raw, out)
    return {"seconds": time.perf_counter() - t, "import_s": import_s, "bytes": s.download_size, "rows": s.num_pairs}


def child_pyarrow(raw: str, out: str) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from diffcap_bench import CATEGORIES, SOURCES

    t = time.perf_counter()
    root = Path(raw)
    rows = []
    for line in (root / "annotations.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        rows.append({
            "pair_id": r["pair_id"],
            "image_a": {"bytes": (root / r["image_a"]).read_bytes(), "path": r["image_a"]},
            "image_b": {"bytes": (root / r["image_b"]).read_bytes(), "path": r["image_b"]},
            "source": SOURCES.index(r["source"]),
            "differences": [{**d, "category": CATEGORIES.index(d["category"])} for d in r["differences"]],
        })
    Path(out).mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), f"{out}/test.parquet")
    return {"seconds": time.perf_counter() - t, "bytes": Path(f"{out}/test.parquet").stat().st_size, "rows": len(rows)}


def run_child(mode: str, raw: Path, out: Path) -> dict:
    res = subprocess.run([sys.executable, __file__, "--child", mode, str(raw), str(out)],
                         capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1075)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--child", nargs=3, metavar=("MODE", "RAW", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        mode, raw, out = args.child
        result = (child_build if mode == "build" else child_pyarrow)(raw, out)
        result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
        print(json.dumps(result))
        return 0

    from diffcap_bench.synth import generate

    with tempfile.TemporaryDirectory(prefix="bench-diffcap-") as tmp:
        t = time.perf_counter()
        generate(Path(tmp) / "raw", n=args.n, seed=args.seed, show_progress=False)
        synth_s = time.perf_counter() - t
        raw_mb = sum(p.stat().st_size for p in (Path(tmp) / "raw").rglob("*") if p.is_file()) / 1e6
        ours = run_child("build", Path(tmp) / "raw", Path(tmp) / "built")
        base = run_child("pyarrow", Path(tmp) / "raw", Path(tmp) / "plain")
    print(f"synth: {args.n} pairs in {synth_s:.2f} s ({raw_mb:.1f} MB raw)")
    print(f"build (DiffCapBuilder): {ours['seconds']:.2f} s, peak RSS {ours['peak_rss_mb']:.0f} MB, {ours['bytes'] / 1e6:.1f} MB parquet "
          f"(+{ours['import_s']:.2f} s importing datasets)")
    print(f"plain pyarrow baseline: {base['seconds']:.2f} s, peak RSS {base['peak_rss_mb']:.0f} MB, {base['bytes'] / 1e6:.1f} MB parquet")
    print(f"ratio builder/baseline: time x{ours['seconds'] / base['seconds']:.2f}, "
          f"peak memory x{ours['peak_rss_mb'] / base['peak_rss_mb']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
