"""The DiffCap-Bench & SymbalBench Space: four views composed in tabs.

Run offline on the bundled samples::

    python space/app.py                       # http://127.0.0.1:7860
    python space/app.py --diffcap built/diffcap --symbal built/symbal --leaderboard runs/

(or set DIFFCAP_DATA, SYMBAL_DATA, LEADERBOARD_DIR). Nothing is loaded at import time: the
views read their data on first use, cached per folder.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional, Sequence

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the Space's own modules: data, views
if (HERE.parent / "diffcap_bench" / "__init__.py").is_file():  # run from a checkout: use its packages
    sys.path.insert(1, str(HERE.parent))

import gradio as gr  # noqa: E402

import data  # noqa: E402
from views import diffcap_browser, diffcap_score, leaderboard, symbal_browser  # noqa: E402
from views.common import CSS  # noqa: E402

TITLE = "DiffCap-Bench & SymbalBench"
CONCURRENCY = 4  # requests of one event handled at once
VIEWS = (  # (tab label, tab id, view module)
    ("DiffCap-Bench browser", "diffcap-browser", diffcap_browser),
    ("Score a caption", "diffcap-score", diffcap_score),
    ("SymbalBench browser", "symbal-browser", symbal_browser),
    ("Leaderboard", "leaderboard", leaderboard),
)


def build_app(config: Optional[data.SpaceConfig] = None) -> gr.Blocks:
    """The whole Space for ``config`` (bundled samples when ``None``)."""
    config = config or data.SpaceConfig()
    # Views are built outside the parent Blocks, then rendered into their tabs (see views/__init__).
    built = [(label, tab_id, module.build(config)) for label, tab_id, module in VIEWS]
    with gr.Blocks(title=TITLE, analytics_enabled=False) as demo:
        gr.Markdown(f"# {TITLE}\nBrowse both benchmarks, score a difference caption live, compare results.")
        with gr.Tabs():
            for label, tab_id, view in built:
                with gr.Tab(label, id=tab_id, elem_id=f"tab-{tab_id}"):
                    view.render()
    # Handlers only read cached, immutable data, so visitors need not wait in one line; a slow
    # remote judge then holds one worker, not the whole Space.
    demo.queue(default_concurrency_limit=CONCURRENCY)
    return demo


def main(argv: Optional[Sequence[str]] = None) -> None:
    args = data.app_argument_parser().parse_args(argv)
    demo = build_app(data.config_from(argv))
    demo.launch(server_name=args.host, server_port=args.port, css=CSS)


if __name__ == "__main__":
    main()
