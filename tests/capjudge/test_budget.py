"""A token budget stops a run cleanly: answered cases kept (and cached), the rest recorded as errors."""
import pytest

from capjudge.budget import TokenBudget
from capjudge.cache import CachedJudge
from capjudge.openai import OpenAIJudge
from capjudge.testing.cases import difference_cases, equivalence_cases, fast_options
from capjudge.testing.server import ScriptedServer

PER_REQUEST = 120  # the server below reports 100 prompt + 20 completion tokens per answer


@pytest.fixture
def server():
    with ScriptedServer(usage=(100, 20)) as s:
        yield s


def make_judge(server, **kw):
    return OpenAIJudge("test-model", base_url=server.base_url, **fast_options(**kw))


def test_budget_stops_the_run_and_keeps_what_was_judged(server):
    judge = make_judge(server, concurrency=1, max_tokens_total=5 * PER_REQUEST)
    results = judge.judge_differences(difference_cases(12))
    assert [r.ok for r in results] == [True] * 5 + [False] * 7
    assert all(r.error.endswith("budget exceeded: 600 of max_tokens_total=600 tokens used") for r in results[5:])
    assert all(r.claims == () for r in results[5:])
    assert judge.budget_exhausted and server.request_count == 5
    assert judge.stats["errors"] == 7 and judge.stats["prompt_tokens"] + judge.stats["completion_tokens"] == 600
    # a spent judge asks nothing more
    assert not judge.judge_equivalences(equivalence_cases(1))[0].ok and server.request_count == 5


def test_no_budget_means_no_limit(server):
    judge = make_judge(server)
    assert all(r.ok for r in judge.judge_differences(difference_cases(10)))
    assert not judge.budget_exhausted and judge.budget.remaining is None


def test_in_flight_requests_finish_so_overshoot_is_bounded_by_concurrency():
    with ScriptedServer(usage=(100, 20), delay=0.05) as server:
        judge = make_judge(server, concurrency=4, max_tokens_total=3 * PER_REQUEST)
        results = judge.judge_differences(difference_cases(20))
    answered = sum(r.ok for r in results)
    assert 3 <= answered <= 3 + 4 - 1
    assert answered == server.request_count


def test_budget_run_with_cache_resumes_without_paying_twice(server, tmp_path):
    path = tmp_path / "judge.sqlite"
    cases = difference_cases(10)
    first = CachedJudge(make_judge(server, concurrency=1, max_tokens_total=4 * PER_REQUEST), path)
    assert sum(r.ok for r in first.judge_differences(cases)) == 4
    assert first.budget_exhausted and first.stats["stored"] == 4
    server.reset_counts()
    second = CachedJudge(make_judge(server), path)
    assert all(r.ok for r in second.judge_differences(cases))
    assert server.request_count == 6 and second.stats["hits"] == 4


def test_one_budget_shared_by_two_judges(server):
    budget = TokenBudget(3 * PER_REQUEST)
    a, b = make_judge(server, budget=budget, concurrency=1), make_judge(server, budget=budget, concurrency=1)
    assert all(r.ok for r in a.judge_equivalences(equivalence_cases(2)))
    results = b.judge_equivalences(equivalence_cases(3))
    assert [r.ok for r in results] == [True, False, False]
    assert a.budget_exhausted and b.budget_exhausted


def test_negative_budget_is_refused():
    with pytest.raises(ValueError, match="max_tokens_total must be >= 0"):
        TokenBudget(-1)
