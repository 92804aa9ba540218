"""Serve the Space inside a test process (used by the API and browser tests)."""
from __future__ import annotations

import socket
from pathlib import Path

SPACE_DIR = Path(__file__).resolve().parents[2] / "space"


def free_port() -> int:
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
