"""Page-change latency of the Space's two browsers, through gradio_client, vs a no-op endpoint.

    python benchmarks/bench_space.py [--n 50]

Serves ``space/app.py`` on 127.0.0.1 with the bundled samples, adds a no-op echo endpoint as the
baseline (same queue, same HTTP round trip, no work), warms each endpoint once (the first call
loads the dataset: a start-up cost, not a page change), then times N requests of each:

* DiffCap-Bench browser: ``/diffcap_pair`` over successive pairs (decode both images, encode
  them for the page, build the coloured table) and ``/diffcap_next`` (filter + step);
* SymbalBench browser: ``/symbal_page`` over successive pages and scenarios (slice, thumbnails,
  highlighted captions) and ``/symbal_scenario`` (2×2 table + first page).

Prints the median and p90 per endpoint, the ratio to the no-op, and the median minus the no-op
median (the server-side work) against the 300 ms target. Output files are not downloaded.
Beside them, "handler ms" is the median of the same calls made in-process straight to the
handler (no HTTP, no image encoding), measured first so thumbnails and pages are not yet cached.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
SPACE_DIR = Path(__file__).resolve().parents[1] / "space"
sys.path.insert(0, str(SPACE_DIR))
TARGET_MS = 300.0


def serve():
    """The Space plus a hidden no-op endpoint, on a free port; returns (demo, url)."""
    import socket

    import gradio as gr

    import app
    import data

    demo = app.build_app(data.SpaceConfig())
    with demo:  # the baseline: same server, queue and client, no work
        echo_in, echo_out = gr.Textbox(visible=False), gr.Textbox(visible=False)
        echo_in.submit(lambda x: x, echo_in, echo_out, api_name="noop")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True, css=app.CSS)
    return demo, f"http://127.0.0.1:{port}/"


def timed(client, calls: list[tuple], api_name: str) -> list[float]:
    """Milliseconds of each call (args tuple) to ``api_name``."""
    out = []
    for args in calls:
        t = time.perf_counter()
        client.predict(*args, api_name=api_name)
        out.append((time.perf_counter() - t) * 1000)
    return out


def handler(demo, api_name: str):
    """The Python function behind a named endpoint."""
    for block_fn in demo.fns.values():
        if block_fn.api_name == api_name.lstrip("/"):
            return block_fn.fn
    raise KeyError(api_name)


def timed_in_process(demo, calls: list[tuple], api_name: str) -> list[float]:
    fn = handler(demo, api_name)
    out = []
    for args in calls:
        t = time.perf_counter()
        fn(*args)
        out.append((time.perf_counter() - t) * 1000)
    return out


def workloads(n: int) -> dict[str, list[tuple]]:
    """N argument tuples per endpoint, walking through pairs, pages and scenarios."""
    import data

    pairs = data.pair_ids(None)
    scenarios = data.filter_scenarios(None)
    pages = []
    for sid in scenarios:
        n_pages = data.scenario_page(None, sid).n_pages
        pages += [(sid, "reference_based", [], p) for p in range(1, n_pages + 1)]
    return {
        "/noop": [("x",)] * n,
        "/diffcap_pair": [(pairs[i % len(pairs)],) for i in range(1, n + 1)],
        "/diffcap_next": [([], [], "any", pairs[i % len(pairs)]) for i in range(n)],
        "/symbal_page": [pages[i % len(pages)] for i in range(1, n + 1)],
        "/symbal_scenario": [(scenarios[i % len(scenarios)], "reference_free", []) for i in range(1, n + 1)],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50, help="requests per endpoint (default 50)")
    args = parser.parse_args()

    from gradio_client import Client

    demo, url = serve()
    try:
        client = Client(url, verbose=False, download_files=False)
        loads = workloads(args.n)
        for name, calls in loads.items():  # warm-up: dataset loading is start-up, not a page change
            client.predict(*calls[0], api_name=name)
        in_process = {name: timed_in_process(demo, calls, name) for name, calls in loads.items()}
        results = {name: timed(client, calls, name) for name, calls in loads.items()}
    finally:
        demo.close()

    base = statistics.median(results["/noop"])
    print(f"Space page changes on the bundled samples, {args.n} requests each through gradio_client")
    print(f"{'endpoint':18} {'median ms':>10} {'p90 ms':>8} {'x no-op':>8} {'server ms':>10} {'handler ms':>11}"
          f"  target {TARGET_MS:.0f} ms")
    for name, ms in results.items():
        med = statistics.median(ms)
        p90 = sorted(ms)[int(0.9 * (len(ms) - 1))]
        server = med - base
        verdict = "" if name == "/noop" else ("ok" if server < TARGET_MS else "SLOW")
        own = statistics.median(in_process[name])
        print(f"{name:18} {med:10.1f} {p90:8.1f} {med / base:8.2f} {server:10.1f} {own:11.2f}  {verdict}")


if __name__ == "__main__":
    main()
