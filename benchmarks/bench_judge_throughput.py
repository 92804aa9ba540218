"""Throughput of the openai judge against the scripted server, and of a warm cache.

The scripted server answers every request after a fixed delay (default 200 ms), like
a remote LLM. The same judgements run serially (concurrency 1) and with concurrency
16; the ratio of the times is printed (target <= 1/10). Then the run is repeated
through a warm judge cache: the number of requests sent is printed (target 0).

    python benchmarks/bench_judge_throughput.py [--n 200] [--delay 0.2] [--concurrency 16]
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

from capjudge.cache import CachedJudge
from capjudge.openai import OpenAIJudge
from capjudge.testing.cases import difference_cases
from capjudge.testing.server import ScriptedServer


def timed_run(server: ScriptedServer, cases: list, concurrency: int, cache: str | None = None) -> tuple[float, int]:
    """Seconds to judge ``cases`` and the number of requests the server received."""
    judge = OpenAIJudge("bench-model", base_url=server.base_url, concurrency=concurrency, progress=False)
    runner = CachedJudge(judge, cache) if cache else judge
    server.reset_counts()
    start = time.perf_counter()
    results = runner.judge_differences(cases)
    elapsed = time.perf_counter() - start
    failed = [r.error for r in results if not r.ok]
    if failed:
        raise SystemExit(f"{len(failed)} judgements failed, e.g. {failed[0]}")
    return elapsed, server.request_count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="judgements per run (default 200)")
    parser.add_argument("--delay", type=float, default=0.2, help="server answer delay in seconds (default 0.2)")
    parser.add_argument("--concurrency", type=int, default=16, help="concurrent requests (default 16)")
    args = parser.parse_args()

    cases = difference_cases(args.n, prefix="bench")
    with ScriptedServer(delay=args.delay) as server, tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "judge.sqlite")
        serial, serial_requests = timed_run(server, cases, concurrency=1)
        print(f"serial (concurrency 1): {args.n} judgements in {serial:.2f} s ({serial_requests} requests)")
        parallel, _ = timed_run(server, cases, concurrency=args.concurrency, cache=cache)  # cold: fills the cache
        print(f"concurrency {args.concurrency}: {args.n} judgements in {parallel:.2f} s "
              f"(max {server.max_in_flight} in flight)")
        print(f"ratio concurrent/serial: {parallel / serial:.3f} (target <= 0.100)")
        warm, warm_requests = timed_run(server, cases, concurrency=args.concurrency, cache=cache)
        print(f"warm cache: {args.n} judgements in {warm:.3f} s, requests sent: {warm_requests} (target 0)")


if __name__ == "__main__":
    main()
