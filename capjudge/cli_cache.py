"""``capjudge cache export|import|stats``: share a judge cache so a judgement is paid once.

    capjudge cache export judge.sqlite team-cache.jsonl [--judge model:qwen2.5-7b]
    capjudge cache import judge.sqlite team-cache.jsonl
    capjudge cache stats judge.sqlite [--json]
"""
from __future__ import annotations

import argparse
import json
import os


def _existing(path: str) -> str:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no judge cache at {path}")
    return path


def cmd_export(args: argparse.Namespace) -> int:
    from capjudge.cache import JudgeCache

    n = JudgeCache(_existing(args.path)).export_jsonl(args.out, judge_contains=args.judge)
    print(f"exported {n} answers from {args.path} to {args.out}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from capjudge.cache import JudgeCache

    if not os.path.isfile(args.src):
        raise FileNotFoundError(f"no cache export at {args.src}")
    added, present = JudgeCache(args.path).import_jsonl(args.src)
    print(f"imported {added} new answers into {args.path} ({present} already present)")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    from benchcore.tables import markdown_table
    from capjudge.cache import JudgeCache

    stats = JudgeCache(_existing(args.path)).stats()
    if args.json:
        print(json.dumps(stats, indent=2, sort_keys=True))
        return 0
    print(f"{stats['path']}: {stats['answers']} answers, {stats['bytes']} bytes")
    if stats["by_judge"]:
        # identities contain '|', which would split a markdown cell
        rows = [[g["judge"].replace("|", "\\|"), g["kind"], g["answers"]] for g in stats["by_judge"]]
        print(markdown_table(["judge", "kind", "answers"], rows))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    cache = subparsers.add_parser("cache", help="export, import or inspect a judge cache (sqlite)")
    sub = cache.add_subparsers(dest="cache_command", required=True, metavar="ACTION")

    p = sub.add_parser("export", help="write a cache's answers to a JSON Lines file to share")
    p.add_argument("path", help="the sqlite judge cache")
    p.add_argument("out", help="the JSON Lines file to write")
    p.add_argument("--judge", default=None, help="only answers of judges whose identity contains this text")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import", help="add the answers of an exported JSON Lines file to a cache")
    p.add_argument("path", help="the sqlite judge cache (created if missing)")
    p.add_argument("src", metavar="in", help="the JSON Lines file to read")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("stats", help="count a cache's answers per judge and kind")
    p.add_argument("path", help="the sqlite judge cache")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=cmd_stats)
