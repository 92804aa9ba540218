"""Regenerate the bundled sample: ``python -m diffcap_bench.synth.make_sample [--check]``.

The sample is ``synth`` + ``build`` of ``SAMPLE_PAIRS`` pairs with ``SAMPLE_SEED`` into a temp
folder; its ``README.md`` and ``data/`` are then copied into the package folder, where
``load_dataset("diffcap_bench")`` (from the repo root) and ``diffcap_bench.load()`` find them.
``--check`` rebuilds and compares with the committed files instead of writing.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

SAMPLE_PAIRS = 64
SAMPLE_SEED = 2605
SAMPLE_DIR = Path(__file__).resolve().parent.parent  # the diffcap_bench package folder
RECIPE = Path(__file__).resolve().parent / "sample_recipe.json"  # library versions used for the committed bytes
PROVENANCE = (f"This is the small sample bundled with the `vl-diffbench` package: {SAMPLE_PAIRS} synthetic pairs "
              f"drawn by `diffcap-bench synth --n {SAMPLE_PAIRS} --seed {SAMPLE_SEED}` and built with "
              f"`diffcap-bench build` (regenerate with `python -m diffcap_bench.synth.make_sample`). "
              f"The generator assigns the `source` labels (mostly `synthetic_2d`, the rest spread so every "
              f"source can be exercised); a source only changes the drawing style (letterbox bars, ad frame, "
              f"shadows).")


def sample_files(folder: Path) -> list[str]:
    """Relative paths of the files that make up a sample (README.md + data/*.parquet), sorted."""
    return ["README.md"] + sorted(p.relative_to(folder).as_posix() for p in (folder / "data").glob("*.parquet"))


def build_sample(out_dir: Path) -> Path:
    """synth + build the sample into ``out_dir`` (a fresh folder)."""
    from diffcap_bench.builder import DiffCapBuilder
    from diffcap_bench.synth import generate

    with tempfile.TemporaryDirectory(prefix="diffcap-sample-raw-") as raw:
        generate(Path(raw) / "raw", n=SAMPLE_PAIRS, seed=SAMPLE_SEED, show_progress=False)
        DiffCapBuilder(provenance=PROVENANCE, show_progress=False).build(Path(raw) / "raw", out_dir)
    return out_dir


def library_versions() -> dict[str, str]:
    """Versions whose encoders decide the bytes (PNG via Pillow/zlib, text via FreeType, Parquet via pyarrow)."""
    import PIL
    import pyarrow
    from PIL import features

    return {"pillow": PIL.__version__, "pyarrow": pyarrow.__version__,
            "zlib": features.version("zlib") or "", "freetype2": features.version("freetype2") or ""}


def write_sample() -> None:
    with tempfile.TemporaryDirectory(prefix="diffcap-sample-") as tmp:
        built = build_sample(Path(tmp) / "built")
        shutil.rmtree(SAMPLE_DIR / "data", ignore_errors=True)
        shutil.copytree(built / "data", SAMPLE_DIR / "data")
        shutil.copyfile(built / "README.md", SAMPLE_DIR / "README.md")
    recipe = {"pairs": SAMPLE_PAIRS, "seed": SAMPLE_SEED, "versions": library_versions()}
    RECIPE.write_text(json.dumps(recipe, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def differing_files(built: Path, committed: Path = SAMPLE_DIR) -> list[str]:
    """Files of the rebuilt sample whose bytes differ from the committed ones (or are missing)."""
    names = sorted(set(sample_files(built)) | set(sample_files(committed)))
    return [n for n in names if not ((built / n).is_file() and (committed / n).is_file()
                                     and (built / n).read_bytes() == (committed / n).read_bytes())]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare a rebuild with the committed sample")
    args = ap.parse_args(argv)
    if not args.check:
        write_sample()
        print(f"wrote the sample ({SAMPLE_PAIRS} pairs, seed {SAMPLE_SEED}) into {SAMPLE_DIR}")
        return 0
    with tempfile.TemporaryDirectory(prefix="diffcap-sample-") as tmp:
        diff = differing_files(build_sample(Path(tmp) / "built"))
    print("sample identical to the committed files" if not diff else f"differs: {', '.join(diff)}")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
