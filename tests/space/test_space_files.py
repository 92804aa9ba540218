"""The Space folder as Hugging Face expects it, and an app that loads nothing until asked."""
from __future__ import annotations

import os
import subprocess
import sys

import yaml

from space_server import SPACE_DIR


def _front_matter() -> dict:
    text = (SPACE_DIR / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


def test_readme_front_matter_declares_a_gradio_space():
    import gradio

    meta = _front_matter()
    for key in ("title", "emoji", "sdk", "sdk_version", "app_file", "short_description", "datasets", "tags"):
        assert meta.get(key), key
    assert meta["sdk"] == "gradio"
    assert str(meta["sdk_version"]).split(".")[0] == gradio.__version__.split(".")[0]
    assert (SPACE_DIR / meta["app_file"]).is_file()
    assert len(meta["short_description"]) <= 60  # the Hub's limit


def test_readme_says_how_to_run_offline():
    assert "python space/app.py" in (SPACE_DIR / "README.md").read_text(encoding="utf-8")


def test_requirements_name_gradio_and_the_project():
    lines = [l.strip() for l in (SPACE_DIR / "requirements.txt").read_text().splitlines()
             if l.strip() and not l.startswith("#")]
    assert any(l.startswith("gradio>=6") for l in lines) and "vl-diffbench" in lines


def test_building_the_app_loads_no_dataset():
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import app, data; app.build_app(); "
            "print(data.diffcap_dataset.cache_info().currsize, data.symbal_bench.cache_info().currsize)")
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False"}
    out = subprocess.run([sys.executable, "-c", code, str(SPACE_DIR)], capture_output=True, text=True,
                         env=env, timeout=120, cwd=str(SPACE_DIR.parent))
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-2:] == ["0", "0"]
