"""Fixtures of the Space tests: the Space's modules on sys.path, code-made benchmark folders."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

SPACE_DIR = Path(__file__).resolve().parents[2] / "space"
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
# The Space's own modules (data, views, app) are top-level in space/, as on a Hugging Face Space;
# the helpers of these tests (space_fixtures, space_server) sit next to this file.
for folder in (str(SPACE_DIR), str(Path(__file__).resolve().parent)):
    if folder not in sys.path:
        sys.path.insert(0, folder)


@pytest.fixture(scope="session")
def diffcap_folder(tmp_path_factory) -> str:
    """A four-pair DiffCap-Bench folder made by tests/space/space_fixtures.py."""
    import space_fixtures

    return space_fixtures.make_diffcap_folder(tmp_path_factory.mktemp("diffcap"))

