"""Fixtures of the Space tests: the Space's modules on sys.path, code-made benchmark folders."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

SPACE_DIR = Path(__file__).resolve().parents[2] / "space"
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
if str(SPACE_DIR) not in sys.path:  # the Space's own modules (data, views, app) are top-level there
    sys.path.insert(0, str(SPACE_DIR))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # fixtures.py, app_server.py


@pytest.fixture(scope="session")
def diffcap_folder(tmp_path_factory) -> str:
    """A four-pair DiffCap-Bench folder made by tests/space/fixtures.py."""
    import fixtures

    return fixtures.make_diffcap_folder(tmp_path_factory.mktemp("diffcap"))


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch_space(config) -> tuple[object, str]:
    """Build the Space for ``config`` and serve it on 127.0.0.1 in this process; (demo, url)."""
    import app

    demo = app.build_app(config)
    port = free_port()
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True, css=app.CSS)
    return demo, f"http://127.0.0.1:{port}/"
