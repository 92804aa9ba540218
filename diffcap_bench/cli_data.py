"""``diffcap-bench synth | build | publish``: the data side of the command line.

    diffcap-bench synth --n 64 --seed 2605 raw/
    diffcap-bench build raw/ out/
    diffcap-bench publish out/ --repo-id ORG/diffcap-bench --revision v1.0.0 --dry-run
"""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("synth", help="draw synthetic pairs into a raw folder (annotations.jsonl + images/)")
    p.add_argument("out_raw_dir", metavar="OUT_RAW_DIR")
    p.add_argument("--n", type=int, default=100, help="number of pairs (default 100)")
    p.add_argument("--seed", type=int, default=0, help="same seed, same bytes (default 0)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_synth)

    p = sub.add_parser("build", help="validate a raw folder and write a Hub-ready dataset folder")
    p.add_argument("raw_dir", metavar="RAW_DIR")
    p.add_argument("out_dir", metavar="OUT_DIR")
    p.add_argument("--layout", default="jsonl", choices=("jsonl", "csv"),
                   help="raw layout: annotations.jsonl (default) or annotations.csv with one row per item")
    p.add_argument("--shard-rows", type=int, default=500, help="pairs per Parquet shard (default 500)")
    p.add_argument("--license", default="cc-by-4.0", help="license written into the card (default cc-by-4.0)")
    p.add_argument("--provenance", default=None, help="a sentence for the card on where the pairs come from")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_build)

    from benchcore.hub import register_publish

    register_publish(sub)


def cmd_synth(args: argparse.Namespace) -> int:
    from diffcap_bench.synth import generate

    generate(args.out_raw_dir, n=args.n, seed=args.seed, show_progress=not args.quiet)
    print(f"wrote {args.n} synthetic pairs to {args.out_raw_dir} (seed {args.seed})")
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    from diffcap_bench.builder import DiffCapBuilder, DiffCapConfig
    from diffcap_bench.raw import LAYOUTS

    opts = {"adapter": LAYOUTS[args.layout], "shard_rows": args.shard_rows, "license": args.license, "show_progress": not args.quiet}
    if args.provenance:
        opts["provenance"] = args.provenance
    s = DiffCapBuilder(DiffCapConfig(**opts)).build(args.raw_dir, args.out_dir)
    print(f"built {s.out_dir}: {s.num_pairs} pairs, {s.num_items} items ({s.num_ambiguous} ambiguous), "
          f"{len(s.shards)} shard(s), {s.download_size:,} bytes")
    return 0
