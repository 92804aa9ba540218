"""DiffCap-Bench: image difference captioning benchmark (schema, builder, sample, scoring).

>>> import diffcap_bench
>>> diffcap_bench.CATEGORIES[:3]
('object', 'attribute', 'action_pose')
>>> "synthetic_2d" in diffcap_bench.SOURCES
True
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from diffcap_bench.schema import CATEGORIES, SOURCES, category_name, row_items, source_name

__version__ = "1.0.0"  # dataset version of the bundled sample / builder (see builder.RELEASE_NOTES)

PACKAGE_DIR = Path(__file__).resolve().parent  # holds the bundled sample: README.md + data/

__all__ = ["CATEGORIES", "SOURCES", "FEATURES", "load", "row_items", "category_name", "source_name",
           "PACKAGE_DIR", "__version__"]


def __getattr__(name: str) -> Any:  # FEATURES is lazy so ``import diffcap_bench`` stays light
    if name == "FEATURES":
        from diffcap_bench.schema import features

        return features()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load(split: str = "test", path: Optional[str] = None):
    """Load DiffCap-Bench as a ``datasets.Dataset``.

    With ``path=None`` the bundled sample shipped inside the package is loaded (offline,
    from any working directory); otherwise ``path`` is a folder written by
    ``diffcap-bench build`` (README.md + data/*.parquet) or a Hub dataset id.
    """
    from datasets import load_dataset

    target = str(PACKAGE_DIR) if path is None else str(path)
    return load_dataset(target, split=split)
