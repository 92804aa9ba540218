"""``capjudge agreement``: measure a judge against the hand-labelled agreement set.

    capjudge agreement                                  # embedded judge, held-out half
    capjudge agreement --judge "openai:qwen2.5-7b?base_url=http://127.0.0.1:8000/v1" --json out.json
    capjudge agreement --split tune --disagreements     # what to look at while tuning
    capjudge agreement --split test --update-report     # regenerate capjudge/agreement/REPORT.md
"""
from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("agreement", help="accuracy and Cohen's kappa of a judge against human labels",
                              description="Measure a judge against the agreement set (item, claim, pair and "
                                          "equivalence level: accuracy, Cohen's kappa, confusion matrices).")
    p.add_argument("--judge", default="embedded", help="judge spec string (default: embedded)")
    p.add_argument("--cache", default=None, help="sqlite judge cache path (optional)")
    p.add_argument("--split", default="test", choices=("test", "tune", "all"),
                   help="which half: 'test' is held out and reported; tune on 'tune' only (default: test)")
    p.add_argument("--json", dest="json_out", default=None, help="write every figure (and disagreements) as JSON here")
    p.add_argument("--markdown", default=None, help="write the markdown report here")
    p.add_argument("--update-report", action="store_true",
                   help="rewrite capjudge/agreement/REPORT.md (needs --split test)")
    p.add_argument("--disagreements", action="store_true", help="print the cases where judge and humans differ")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from benchcore.errors import InputError
    from capjudge.agreement_tool import REPORT_PATH, measure, render_markdown, summary_lines
    from capjudge.registry import resolve_judge

    if args.update_report and args.split != "test":
        raise InputError("--update-report reports the held-out half only; use --split test")
    report = measure(resolve_judge(args.judge, cache=args.cache), args.split)
    for line in summary_lines(report):
        print(line)
    if args.disagreements:
        _print_disagreements(report)
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1, ensure_ascii=False)
    md = render_markdown(report)
    for path in [args.markdown, REPORT_PATH if args.update_report else None]:
        if path:
            with open(path, "w", encoding="utf-8") as f:
                f.write(md)
            print(f"wrote {path}")
    return 0


def _print_disagreements(report: dict) -> None:
    for d in report["difference"]["disagreements"]:
        print(f"\n[{d['id']}] items human={d['items']} judge={d['judge_items']}" + (f" ERROR {d['error']}" if d["error"] else ""))
        for h_text, h, j_text, j in d["claims"]:
            mark = "  " if h == j else "!!"
            print(f"  {mark} human={h:13s} judge={j:13s} | {h_text or '-'} || {j_text or '-'}")
    for d in report["equivalence"]["disagreements"]:
        print(f"[{d['id']}] {d['predicted']!r} vs {d['reference']!r}: human={d['human']} judge={d['judge']}")
