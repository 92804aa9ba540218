"""The shape both CLIs share: subcommands registered by modules, input errors -> exit 2."""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import Optional, Sequence

from benchcore.errors import InputError


def run_cli(prog: str, description: str, modules: Sequence[str], argv: Optional[Sequence[str]] = None) -> int:
    """Build a parser from ``register(subparsers)`` of each module and run the chosen command.

    A command is a function ``func(args) -> int`` set with ``set_defaults(func=...)``.
    """
    parser = argparse.ArgumentParser(prog=prog, description=description)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in modules:
        importlib.import_module(name).register(sub)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (InputError, FileNotFoundError, FileExistsError) as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
