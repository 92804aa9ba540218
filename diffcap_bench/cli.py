"""``diffcap-bench`` command line: synth, build, publish (data) and score, compare, demo."""
from __future__ import annotations

from typing import Optional, Sequence

from benchcore.cli import run_cli

COMMAND_MODULES = ("diffcap_bench.cli_data", "diffcap_bench.cli_score")


def main(argv: Optional[Sequence[str]] = None) -> int:
    return run_cli("diffcap-bench", "DiffCap-Bench: build, score and compare image-difference captioning.",
                   COMMAND_MODULES, argv)


if __name__ == "__main__":
    raise SystemExit(main())
