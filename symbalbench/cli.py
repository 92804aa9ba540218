"""``symbalbench`` command line: build, verify (data) and evaluate, run-baseline, demo."""
from __future__ import annotations

from typing import Optional, Sequence

from benchcore.cli import run_cli

COMMAND_MODULES = ("symbalbench.cli_build", "symbalbench.cli_eval")


def main(argv: Optional[Sequence[str]] = None) -> int:
    return run_cli("symbalbench", "SymbalBench: build the misalignment datasets and score detectors.",
                   COMMAND_MODULES, argv)


if __name__ == "__main__":
    raise SystemExit(main())
