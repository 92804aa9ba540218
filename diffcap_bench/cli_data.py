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

    p = sub.add_parser("publish", help="upload a built folder to the Hub and tag the version")
    p.add_argument("out_dir", metavar="OUT_DIR")
    p.add_argument("--repo-id", required=True, help="ORG/NAME of the dataset repo")
    p.add_argument("--revision", required=True, help="version tag, e.g. v1.0.0")
    p.add_argument("--private", action="store_true")
    p.add_argument("--dry-run", action="store_true", help="print what would be uploaded; contact nothing")
    p.set_defaults(func=cmd_publish)


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


def cmd_publish(args: argparse.Namespace) -> int:
    import re

    from benchcore.errors import InputError
    from benchcore.hub import format_upload, publish

    if not re.fullmatch(r"v\d+\.\d+\.\d+", args.revision):
        raise InputError(f"--revision {args.revision!r} must look like vX.Y.Z (e.g. v1.0.0)")
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", args.repo_id):
        raise InputError(f"--repo-id {args.repo_id!r} must look like ORG/NAME")
    files = publish(args.out_dir, args.repo_id, args.revision, dry_run=args.dry_run, private=args.private)
    if args.dry_run:
        print(format_upload(files, args.repo_id, args.revision))
    else:
        print(f"uploaded {len(files)} files to datasets/{args.repo_id} and tagged {args.revision}")
    return 0
