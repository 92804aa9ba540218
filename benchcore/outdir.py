"""Write an output folder atomically: build in a temp sibling, then move into place.

A failed build leaves OUT_DIR as it was (absent, or the previous complete build).
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def atomic_output_dir(out_dir: str | os.PathLike, overwrite: bool = True) -> Iterator[Path]:
    """Yield a temp folder; on success it replaces ``out_dir``, on error it is removed."""
    out = Path(out_dir).resolve()
    if out.exists() and not overwrite:
        raise FileExistsError(f"{out} exists; pass overwrite=True to replace it")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = None
    if out.exists():
        old = out.parent / f".{out.name}.old-{os.getpid()}"
        os.replace(out, old)
    os.replace(tmp, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
