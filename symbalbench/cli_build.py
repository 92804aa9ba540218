"""``symbalbench build | verify | make-fixtures | build-sample``: the data side of the CLI."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Optional


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build", help="build the misalignment datasets from COCO / MIMIC-CXR-JPG / a manifest")
    p.add_argument("--coco", metavar="DIR", help="COCO folder (annotations/ + <split>/ images)")
    p.add_argument("--coco-split", help="COCO split to read (default: val2017 or the only one)")
    p.add_argument("--coco-count", type=int, help="use this many COCO images, drawn with --seed (seed release: 4349)")
    p.add_argument("--coco-ids", metavar="FILE", help="use exactly these COCO image ids (one per line)")
    p.add_argument("--mimic", metavar="DIR", help="MIMIC-CXR-JPG folder (CSV files + files/)")
    p.add_argument("--mimic-reports", metavar="DIR", help="folder holding files/pXX/.../sNNN.txt (default: --mimic)")
    p.add_argument("--mimic-devices", metavar="CSV", help="device labels (study_id + one column per device); "
                   "default: mined from report text")
    p.add_argument("--mimic-count", type=int, help="use this many studies, drawn with --seed (seed release: 2233)")
    p.add_argument("--manifest", metavar="FILE", help="generic JSONL/Parquet manifest of base records")
    p.add_argument("--manifest-domain", choices=("natural", "medical"), default="natural")
    p.add_argument("--manifest-root", metavar="DIR", help="folder the manifest's image paths are relative to "
                   "(default: the manifest's folder)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (replaced atomically)")
    p.add_argument("--grid", metavar="FILE", help="custom grid YAML/JSON (default: the 420 grid)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--images", choices=("reference", "embed"), default="reference",
                   help="store image paths into the base folders (default) or embed the bytes")
    p.add_argument("--no-check-images", action="store_true", help="do not check that image files exist")
    p.set_defaults(func=cmd_build)

    from benchcore.hub import register_publish

    register_publish(sub, refuse=restricted_reason)

    p = sub.add_parser("verify", help="recompute every scenario's 2x2 table, V, spans and row ranges")
    p.add_argument("out", metavar="DIR")
    p.add_argument("--per-scenario", action="store_true", help="one table line per scenario")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("make-fixtures", help="write synthetic COCO / MIMIC-CXR-JPG-format bases")
    p.add_argument("--out", required=True, metavar="DIR", help="writes DIR/coco and DIR/mimic")
    p.add_argument("--coco-images", type=int, default=200)
    p.add_argument("--mimic-studies", type=int, default=160)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=cmd_make_fixtures)

    p = sub.add_parser("build-sample", help="rebuild the bundled sample (24 datasets) from the fixtures")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--install", action="store_true", help="also copy it into the symbalbench package folder")
    p.set_defaults(func=cmd_build_sample)


def _ids(path):
    """Image ids from a text file (one per line, blank lines and # comments ignored)."""
    if not path:
        return None
    from benchcore.errors import InputError

    ids = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        line = line.split("#")[0].strip()
        if line:
            if not line.isdigit():
                raise InputError(f"{path}: line {n}: {line!r} is not an image id")
            ids.append(int(line))
    return ids


def _bases(args):
    from benchcore.errors import InputError
    from symbalbench.base.coco import load_coco
    from symbalbench.base.manifest import load_manifest
    from symbalbench.base.mimic import load_mimic

    check = not args.no_check_images
    bases = {}
    if args.coco:
        bases["natural"] = load_coco(args.coco, split=args.coco_split, image_ids=_ids(args.coco_ids),
                                     count=args.coco_count, seed=args.seed, check_images=check)
    if args.mimic:
        bases["medical"] = load_mimic(args.mimic, reports_root=args.mimic_reports, device_csv=args.mimic_devices,
                                      count=args.mimic_count, seed=args.seed, check_images=check)
    if args.manifest:
        if args.manifest_domain in bases:
            raise InputError(f"--manifest gives a {args.manifest_domain} base but one was already given")
        bases[args.manifest_domain] = load_manifest(args.manifest, domain=args.manifest_domain,
                                                   root=args.manifest_root, check_images=check)
    if not bases:
        raise InputError("give --coco, --mimic and/or --manifest")
    return bases


def cmd_build(args) -> int:
    from symbalbench.builder import SymbalBenchBuilder
    from symbalbench.grid import load_grid

    grid = load_grid(args.grid)
    bases = _bases(args)
    for d, b in bases.items():
        print(f"{d} base: {len(b):,} records from {b.source}", file=sys.stderr)
    report = SymbalBenchBuilder(grid, seed=args.seed, images=args.images).build(args.out, **bases)
    print(report.summary())
    for r in report.refused:
        print(f"  refused {r.scenario_id}: {r.reason}")
    return 0


def cmd_verify(args) -> int:
    from symbalbench.verify import verify

    report = verify(args.out)
    print(report.table(per_scenario=args.per_scenario))
    for sid, problem in report.problems:
        print(f"FAIL {sid}: {problem}")
    print(f"{'OK' if report.ok else 'FAILED'}: {len(report.rows)} datasets checked, {len(report.problems)} problems")
    return 0 if report.ok else 1


def cmd_make_fixtures(args) -> int:

    from symbalbench.fixtures import make_coco, make_mimic

    out = Path(args.out)
    print(make_coco(out / "coco", args.coco_images, seed=args.seed))
    print(make_mimic(out / "mimic", args.mimic_studies, seed=args.seed))
    return 0


def cmd_build_sample(args) -> int:

    import symbalbench
    from symbalbench.builder import build_sample, install_sample

    report = build_sample(args.out)
    print(report.summary())
    if args.install:
        pkg = Path(symbalbench.__file__).parent
        for f in install_sample(args.out, pkg):
            print(f"installed {pkg / f}")
    return 0


def restricted_reason(out: Path) -> Optional[str]:
    """Why a built folder must not go to the Hub as is: MIMIC-CXR's licence forbids redistribution."""
    info = out / "build_info.json"
    if not info.is_file():
        return None  # not a SymbalBench build; publish() names what is missing
    medical = json.loads(info.read_text(encoding="utf-8")).get("bases", {}).get("medical", {})
    if medical.get("records", 0):
        return (f"it holds {medical['records']} records built from a MIMIC-CXR-format base, whose "
                f"credentialed licence forbids redistribution; rebuild with --coco only, or pass "
                f"--allow-restricted if the base is synthetic or your data agreement allows the upload")
    return None
