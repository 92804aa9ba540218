"""The sqlite judge cache: zero requests when warm, resumable runs, sharing, several processes."""
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import capjudge.cache
import capjudge.openai
from benchcore.cli import run_cli
from capjudge.cache import CacheFileError, CachedJudge, JudgeCache, cache_identity, default_cache_path
from capjudge.callables import CallableJudge
from capjudge.openai import OpenAIJudge
from capjudge.prompts import parse_template
from capjudge.protocol import DifferenceCase, EquivalenceCase, EquivalenceResult
from capjudge.registry import resolve_judge
from capjudge.testing.cases import difference_cases, equivalence_cases, fast_options
from capjudge.testing.server import OK, DROP, ScriptedServer, server_error


@pytest.fixture
def server():
    with ScriptedServer() as s:
        yield s


@pytest.fixture
def cache_path(tmp_path):
    return str(tmp_path / "judge.sqlite")


def cached(server, path, model="test-model", **kw):
    return CachedJudge(OpenAIJudge(model, base_url=server.base_url, **fast_options(**kw)), path)


def dump(results):
    return [r.to_dict() if hasattr(r, "to_dict") else (r.equivalent, r.error) for r in results]


def test_warm_cache_sends_zero_requests(server, cache_path):
    cases, pairs = difference_cases(12), equivalence_cases(8)
    first = cached(server, cache_path)
    cold = dump(first.judge_differences(cases)) + dump(first.judge_equivalences(pairs))
    assert server.request_count == 20 and first.stats["stored"] == 20
    server.reset_counts()
    second = cached(server, cache_path)
    warm = dump(second.judge_differences(cases)) + dump(second.judge_equivalences(pairs))
    assert server.request_count == 0
    assert warm == cold
    assert second.stats == {"hits": 20, "misses": 0, "asked": 0, "stored": 0}


def test_only_successful_answers_are_stored(server, cache_path):
    server.rule("tree fell 2.", server_error(500))
    judge = cached(server, cache_path, max_retries=0)
    results = judge.judge_differences(difference_cases(5))
    assert [r.ok for r in results] == [True, True, False, True, True]
    assert len(judge.cache) == 4
    server.reset_counts()
    assert not cached(server, cache_path, max_retries=0).judge_differences(difference_cases(5))[2].ok
    assert server.request_count == 1  # only the failed case is asked again


def test_run_with_a_server_that_dies_resumes_where_it_stopped(cache_path):
    cases = difference_cases(20)
    with ScriptedServer(default=DROP) as dying:  # answers 7 requests, then drops every connection
        dying.script(*[OK] * 7)
        results = cached(dying, cache_path, concurrency=1, max_retries=1).judge_differences(cases)
    assert sum(r.ok for r in results) == 7
    assert all("gave up" in r.error for r in results if not r.ok)
    with ScriptedServer() as healthy:
        again = cached(healthy, cache_path).judge_differences(cases)
        assert healthy.request_count == 13
    assert all(r.ok for r in again)


CHILD = textwrap.dedent("""
    import sys
    from capjudge.cache import CachedJudge
    from capjudge.openai import OpenAIJudge
    from capjudge.testing.cases import difference_cases
    judge = CachedJudge(OpenAIJudge("test-model", base_url=sys.argv[1], concurrency=2, progress=False), sys.argv[2])
    judge.judge_differences(difference_cases(40))
""")


def test_killed_run_restarted_reasks_only_what_was_not_answered(cache_path):
    with ScriptedServer(delay=0.05) as server:
        child = subprocess.Popen([sys.executable, "-c", CHILD, server.base_url, cache_path])
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and child.poll() is None:
                if os.path.exists(cache_path) and len(JudgeCache(cache_path)) >= 10:
                    break
                time.sleep(0.02)
            assert child.poll() is None, "the child finished before it could be killed"
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait()
        answered = len(JudgeCache(cache_path))
        assert 10 <= answered < 40
        server.reset_counts()
        results = cached(server, cache_path).judge_differences(difference_cases(40))
        assert server.request_count == 40 - answered
    assert all(r.ok for r in results)


def test_key_ignores_package_version_and_case_id(server, cache_path, monkeypatch):
    cached(server, cache_path).judge_differences(difference_cases(3))
    server.reset_counts()
    monkeypatch.setattr(capjudge.openai, "__version__", "9.9.9")
    judge = cached(server, cache_path)
    assert judge.signature.endswith("|capjudge:9.9.9")
    renamed = [DifferenceCase(c.items, c.prediction, case_id="other-" + c.case_id) for c in difference_cases(3)]
    judge.judge_differences(renamed)
    assert server.request_count == 0


def test_key_includes_model_and_prompt_hash(server, cache_path):
    cached(server, cache_path).judge_differences(difference_cases(2))
    server.reset_counts()
    cached(server, cache_path, model="another-model").judge_differences(difference_cases(2))
    assert server.request_count == 2
    judge = cached(server, cache_path)
    judge.inner.difference_prompt = parse_template("difference_v1", "=== system ===\nedited\n=== user ===\n$items $prediction\n")
    judge.identity = cache_identity(judge.inner)
    judge.judge_differences(difference_cases(2))
    assert server.request_count == 4


def test_inputs_are_normalised_and_duplicates_asked_once(server, cache_path):
    case = difference_cases(1)[0]
    spaced = DifferenceCase(tuple(reversed(case.items)), "  " + case.prediction.replace(" ", "  \n") + "\n")
    judge = cached(server, cache_path)
    results = judge.judge_differences([case, case, spaced])
    assert server.request_count == 1
    assert results[0] == results[1] == results[2]
    judge.judge_equivalences([EquivalenceCase("Dog", "dog", "visual_feature")])
    judge.judge_equivalences([EquivalenceCase(" dog ", "DOG", "visual_feature")])
    assert server.request_count == 2


def test_export_import_shares_answers_between_caches(server, tmp_path):
    a, b = str(tmp_path / "a.sqlite"), str(tmp_path / "b.sqlite")
    cached(server, a).judge_differences(difference_cases(5))
    cached(server, a).judge_equivalences(equivalence_cases(3))
    out1, out2 = tmp_path / "share1.jsonl", tmp_path / "share2.jsonl"
    assert JudgeCache(a).export_jsonl(out1) == 8
    JudgeCache(a).export_jsonl(out2)
    assert out1.read_bytes() == out2.read_bytes()  # deterministic: rows sorted by key
    assert JudgeCache(b).import_jsonl(out1) == (8, 0)
    assert JudgeCache(b).import_jsonl(out1) == (0, 8)
    server.reset_counts()
    cached(server, b).judge_differences(difference_cases(5))
    cached(server, b).judge_equivalences(equivalence_cases(3))
    assert server.request_count == 0


def test_import_rejects_bad_lines_naming_file_and_line(tmp_path, server):
    cached(server, str(tmp_path / "a.sqlite")).judge_equivalences(equivalence_cases(2))
    good = tmp_path / "good.jsonl"
    JudgeCache(str(tmp_path / "a.sqlite")).export_jsonl(good)
    lines = good.read_text().splitlines()
    tampered = json.loads(lines[1])
    tampered["input"]["predicted"] = "something else"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines[0] + "\n" + json.dumps(tampered) + "\n")
    target = JudgeCache(str(tmp_path / "b.sqlite"))
    with pytest.raises(CacheFileError, match=r"bad\.jsonl, line 2: key does not match"):
        target.import_jsonl(bad)
    bad.write_text("{not json\n")
    with pytest.raises(CacheFileError, match=r"bad\.jsonl, line 1: not a cache row"):
        target.import_jsonl(bad)
    assert len(target) == 0  # a bad file adds nothing


def test_cache_cli_export_import_stats(server, tmp_path, capsys):
    a, b, share = str(tmp_path / "a.sqlite"), str(tmp_path / "b.sqlite"), str(tmp_path / "share.jsonl")
    cached(server, a).judge_differences(difference_cases(3))
    cli = lambda *argv: run_cli("capjudge", "test", ["capjudge.cli_cache"], list(argv))  # noqa: E731
    assert cli("cache", "export", a, share) == 0
    assert cli("cache", "import", b, share) == 0
    assert "imported 3 new answers" in capsys.readouterr().out
    assert cli("cache", "stats", b) == 0
    out = capsys.readouterr().out
    assert "3 answers" in out and "| difference | 3 |" in out
    assert "judge:openai\\|model:test-model\\|prompt:" in out  # pipes escaped: one cell
    assert cli("cache", "stats", b, "--json") == 0
    assert json.loads(capsys.readouterr().out)["answers"] == 3
    assert cli("cache", "stats", str(tmp_path / "missing.sqlite")) == 2
    assert "no judge cache at" in capsys.readouterr().err


def _ends_with_zero(predicted: str, reference: str, kind: str) -> bool:
    return predicted.endswith("0")


def _writer(path: str, worker: int, n: int) -> None:
    """One process: a cached callable judge answering overlapping cases (each answer its own write)."""
    judge = CachedJudge(CallableJudge(equivalent=_ends_with_zero), path)
    offset = worker * n // 2  # half of each worker's cases are also another worker's
    for i in range(offset, offset + n):
        judge.judge_equivalences([EquivalenceCase(f"name {i}", "ref", "visual_feature")])


def test_several_processes_write_one_cache(cache_path):
    ctx = multiprocessing.get_context("fork")
    workers = [ctx.Process(target=_writer, args=(cache_path, w, 120)) for w in range(4)]
    for p in workers:
        p.start()
    for p in workers:
        p.join(60)
    assert [p.exitcode for p in workers] == [0, 0, 0, 0]
    distinct = 3 * 120 // 2 + 120  # offsets 0, 60, 120, 180; each 120 long
    assert len(JudgeCache(cache_path)) == distinct
    judge = CachedJudge(CallableJudge(equivalent=_ends_with_zero), cache_path)
    results = judge.judge_equivalences([EquivalenceCase(f"name {i}", "ref", "visual_feature") for i in range(distinct)])
    assert [r.equivalent for r in results] == [str(i).endswith("0") for i in range(distinct)]
    assert judge.stats["misses"] == 0


class _InterruptedJudge:
    """A batch judge (no on_result) that is interrupted on its third batch."""

    signature = "judge:interrupted|model:none|capjudge:0.1.0"

    def __init__(self):
        self.batches = []

    def judge_equivalences(self, cases):
        self.batches.append(len(cases))
        if len(self.batches) == 3:
            raise KeyboardInterrupt
        return [EquivalenceResult(equivalent=True) for _ in cases]


def test_batch_judge_answers_are_stored_chunk_by_chunk(cache_path, monkeypatch):
    monkeypatch.setattr(capjudge.cache, "CHUNK", 4)
    pairs = equivalence_cases(10)
    with pytest.raises(KeyboardInterrupt):
        CachedJudge(_InterruptedJudge(), cache_path).judge_equivalences(pairs)
    assert len(JudgeCache(cache_path)) == 8  # two full chunks were kept
    inner = _InterruptedJudge()
    CachedJudge(inner, cache_path).judge_equivalences(pairs)
    assert inner.batches == [2]


def test_resolve_judge_with_cache_option(server, cache_path):
    spec = f"openai:test-model?base_url={server.base_url}&progress=false"
    resolve_judge(spec, cache=cache_path).judge_differences(difference_cases(2))
    judge = resolve_judge(spec, cache=cache_path)
    assert isinstance(judge, CachedJudge) and judge.signature.startswith("judge:openai|model:test-model|")
    judge.judge_differences(difference_cases(2))
    assert server.request_count == 2 and judge.stats["hits"] == 2


def test_default_cache_path_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("CAPJUDGE_CACHE_DIR", str(tmp_path))
    assert default_cache_path() == str(tmp_path / "judge.sqlite")
    monkeypatch.delenv("CAPJUDGE_CACHE_DIR")
    assert default_cache_path().endswith(os.path.join(".cache", "capjudge", "judge.sqlite"))
