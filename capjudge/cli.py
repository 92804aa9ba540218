"""``capjudge`` command line: measure a judge against the agreement set; share a judge cache."""
from __future__ import annotations

from typing import Optional, Sequence

from benchcore.cli import run_cli

COMMAND_MODULES = ("capjudge.cli_agreement", "capjudge.cli_cache")


def main(argv: Optional[Sequence[str]] = None) -> int:
    return run_cli("capjudge", "capjudge: judge agreement and judge-cache tools.", COMMAND_MODULES, argv)


if __name__ == "__main__":
    raise SystemExit(main())
