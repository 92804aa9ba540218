"""Full-scale SymbalBench build: 4349 natural + 2233 medical synthetic records, the 420 grid.

Prints wall time, peak memory (RSS of the build process), bytes on disk, and the ratio of the
build time to writing the same final tables with plain ``pyarrow.parquet.write_table`` in the
same run; then runs ``verify`` on the build. Targets: < 60 s, < 2 GiB, within 3x of plain pyarrow.

    python benchmarks/bench_symbal_build.py [--natural 4349] [--medical 2233] [--keep DIR]
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path


def _build(coco: str, mimic: str, out: str, queue) -> None:
    """Runs in a child process so its peak RSS is the build's alone."""
    os.environ.setdefault("TQDM_DISABLE", "1")
    from symbalbench.base.coco import load_coco
    from symbalbench.base.mimic import load_mimic
    from symbalbench.builder import SymbalBenchBuilder

    t0 = time.perf_counter()
    natural, medical = load_coco(coco), load_mimic(mimic)
    t1 = time.perf_counter()
    report = SymbalBenchBuilder(seed=0, progress=False).build(out, natural, medical)
    t2 = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
    queue.put({"load": t1 - t0, "build": t2 - t1, "peak": peak, "n": report.n_scenarios,
               "rows": report.n_rows, "refused": len(report.refused),
               "reasons": [f"{r.scenario_id}: {r.reason}" for r in report.refused]})


def _plain_pyarrow(out: Path, scratch: Path) -> float:
    """Time writing the build's final tables again with plain pyarrow (same rows, same files)."""
    import pyarrow.parquet as pq

    tables = {p.name: pq.read_table(p) for p in sorted((out / "data").glob("*.parquet"))}
    scratch.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    for name, table in tables.items():
        pq.write_table(table, scratch / name)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--natural", type=int, default=4349)
    ap.add_argument("--medical", type=int, default=2233)
    ap.add_argument("--keep", help="keep the build in this folder")
    args = ap.parse_args()
    from symbalbench.fixtures import make_coco, make_mimic
    from symbalbench.verify import verify

    tmp = Path(tempfile.mkdtemp(prefix="bench-symbal-"))
    try:
        t0 = time.perf_counter()
        coco = make_coco(tmp / "coco", args.natural, seed=0, image_size=(32, 24))
        mimic = make_mimic(tmp / "mimic", args.medical, seed=0, image_size=32)
        print(f"fixtures: {args.natural} COCO images + {args.medical} MIMIC studies in {time.perf_counter() - t0:.1f} s")
        out = Path(args.keep) if args.keep else tmp / "build"
        queue = mp.get_context("spawn").Queue()
        proc = mp.get_context("spawn").Process(target=_build, args=(str(coco), str(mimic), str(out), queue))
        proc.start()
        proc.join()
        if proc.exitcode != 0:
            print(f"build process failed with exit code {proc.exitcode}")
            return 1
        res = queue.get()
        rows = sum(res["rows"].values())
        disk = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        plain = _plain_pyarrow(out, tmp / "plain")
        total = res["load"] + res["build"]
        print(f"datasets: {res['n']} built, {res['refused']} refused; rows: {rows:,} "
              f"({', '.join(f'{d} {n:,}' for d, n in res['rows'].items())})")
        for reason in res["reasons"]:
            print(f"  refused {reason}")
        print(f"wall time: load bases {res['load']:.1f} s + build {res['build']:.1f} s = {total:.1f} s (target < 60 s)")
        print(f"peak memory (build process RSS): {res['peak'] / 2**30:.2f} GiB (target < 2 GiB)")
        print(f"bytes on disk: {disk:,} ({disk / 2**20:.1f} MiB)")
        print(f"plain pyarrow write of the same tables: {plain:.1f} s; build / plain = {res['build'] / plain:.2f}x "
              f"(target <= 3x)")
        t0 = time.perf_counter()
        report = verify(out)
        print(f"verify: {'OK' if report.ok else 'FAILED'} ({len(report.rows)} datasets, "
              f"{len(report.problems)} problems) in {time.perf_counter() - t0:.1f} s")
        return 0 if report.ok else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
