"""The ``openai`` judge: any OpenAI-compatible Chat Completions server over HTTP.

Works with vLLM, TGI, llama.cpp server, Ollama and OpenAI itself. What it does, per
SPEC §3:

* prompts come from versioned template files (:mod:`capjudge.prompts`); predictions
  enter them as delimited, escaped data;
* temperature 0 and a fixed seed; JSON-schema-constrained output where the server
  supports it (``json_mode="schema"``, the default), else plain JSON mode
  (``"object"``) or none (``"off"``); a server that rejects ``response_format`` with
  HTTP 400 is asked again with the next weaker mode;
* at most ``concurrency`` requests in flight (default 8), spread round-robin over one
  or several base URLs (replicas, e.g. several vLLM servers);
* retries with exponential backoff and jitter on 429, 5xx, timeouts and dropped
  connections, never sooner than a ``Retry-After`` header asks;
* every answer validated; an invalid one is re-asked (with the validation error fed
  back) at most ``max_reasks`` times, then recorded as an error for that case —
  never a success;
* counters in :attr:`OpenAIJudge.stats` and an optional token budget
  (``max_tokens_total``, see :mod:`capjudge.budget`).

The sync API works inside a running event loop too (e.g. a Gradio handler): the
requests then run on their own loop in a worker thread.

>>> j = OpenAIJudge.from_options(model="qwen2.5-7b", base_url="http://a/v1,http://b/v1", concurrency="4")
>>> j.base_urls, j.concurrency
(['http://a/v1', 'http://b/v1'], 4)
>>> j.signature.split("|")[:2]
['judge:openai', 'model:qwen2.5-7b']
"""
from __future__ import annotations

import asyncio
import email.utils
import itertools
import json
import os
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence, Union

from benchcore.errors import InputError
from capjudge.budget import TokenBudget
from capjudge.prompts import PromptTemplate, encode_data, load_prompt
from capjudge.protocol import (
    CLAIM_LABELS,
    DifferenceCase,
    DifferenceResult,
    EquivalenceCase,
    EquivalenceResult,
    InvalidJudgement,
    validate_judgement,
)
from capjudge.version import __version__

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
DIFFERENCE_PROMPT = "difference_v1"
EQUIVALENCE_PROMPT = "equivalence_v1"
JSON_MODES = ("schema", "object", "off")
STAT_KEYS = ("requests", "retries", "reasks", "prompt_tokens", "completion_tokens", "errors")

# Option types for from_options: spec strings deliver every value as a string.
_INT_OPTIONS = {"concurrency", "max_retries", "max_reasks", "seed", "max_tokens_total", "max_tokens"}
_FLOAT_OPTIONS = {"timeout", "backoff_base", "backoff_max", "retry_after_max"}
_BOOL_OPTIONS = {"progress"}
_STR_OPTIONS = {"api_key_env", "json_mode", "base_url"}


class JudgeOptionError(InputError):
    """A judge option (from a spec string or keyword) is unknown or malformed."""


class _RequestFailed(Exception):
    """One request could not get an HTTP answer after all retries (or got a final 4xx)."""


@dataclass
class _Job:
    """One question: the first messages, the response format, and how to read the answer."""

    messages: list
    response_format: dict
    parse: Callable[[Any], Any]          # parsed JSON -> result; raises InvalidJudgement
    fail: Callable[[str], Any]           # error message -> error result
    reask: PromptTemplate


def _parse_bool(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise JudgeOptionError(f"judge option {name}={value!r} is not a boolean (use true/false)")


def _split_urls(value: Union[str, Sequence[str]]) -> list[str]:
    urls = value.split(",") if isinstance(value, str) else list(value)
    urls = [u.strip().rstrip("/") for u in urls if u and u.strip()]
    if not urls:
        raise JudgeOptionError("judge option base_url is empty")
    for u in urls:
        if not u.startswith(("http://", "https://")):
            raise JudgeOptionError(f"judge option base_url: {u!r} is not an http(s) URL")
    return urls


def parse_options(options: dict) -> dict:
    """Convert string options (from a spec string) to typed keyword arguments.

    >>> parse_options({"concurrency": "4", "timeout": "2.5", "progress": "false"})
    {'concurrency': 4, 'timeout': 2.5, 'progress': False}
    """
    out = {}
    for name, value in options.items():
        if value is None:
            out[name] = None
        elif name in _INT_OPTIONS:
            try:
                out[name] = None if str(value).lower() in ("", "none") else int(value)
            except ValueError:
                raise JudgeOptionError(f"judge option {name}={value!r} is not an integer") from None
        elif name in _FLOAT_OPTIONS:
            try:
                out[name] = float(value)
            except ValueError:
                raise JudgeOptionError(f"judge option {name}={value!r} is not a number") from None
        elif name in _BOOL_OPTIONS:
            out[name] = _parse_bool(name, value)
        elif name in _STR_OPTIONS or name == "budget":
            out[name] = value
        else:
            known = sorted(_INT_OPTIONS | _FLOAT_OPTIONS | _BOOL_OPTIONS | _STR_OPTIONS)
            raise JudgeOptionError(f"unknown openai judge option {name!r}; known: {', '.join(known)}")
    return out


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date).

    >>> parse_retry_after("2"), parse_retry_after("0.5"), parse_retry_after(None), parse_retry_after("soon")
    (2.0, 0.5, None, None)
    """
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def parse_answer_json(content: Any) -> Any:
    """The JSON object in a model's answer; tolerates a Markdown code fence around it.

    >>> parse_answer_json('```json\\n{"equivalent": true}\\n```')
    {'equivalent': True}
    """
    if not isinstance(content, str) or not content.strip():
        raise InvalidJudgement("the answer has no text content")
    text = content.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InvalidJudgement(f"the answer is not valid JSON ({e.msg} at char {e.pos})") from None


def parse_equivalence(obj: Any) -> bool:
    """Strict check of an equivalence answer: exactly ``{"equivalent": true|false}``.

    >>> parse_equivalence({"equivalent": False})
    False
    """
    if not isinstance(obj, dict) or set(obj) != {"equivalent"}:
        raise InvalidJudgement('the answer must be exactly {"equivalent": true} or {"equivalent": false}')
    if not isinstance(obj["equivalent"], bool):
        raise InvalidJudgement(f"'equivalent' must be true or false, got {obj['equivalent']!r}")
    return obj["equivalent"]


def difference_schema(case: DifferenceCase) -> dict:
    """JSON schema of a judgement for one case (item ids limited to the case's ids)."""
    ids: list = [it.id for it in case.items] + [None]
    claim = {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "label": {"type": "string", "enum": list(CLAIM_LABELS)},
            "item": {"type": ["string", "null"], "enum": ids},
        },
        "required": ["text", "label", "item"],
        "additionalProperties": False,
    }
    return {"type": "object", "properties": {"claims": {"type": "array", "items": claim}},
            "required": ["claims"], "additionalProperties": False}


EQUIVALENCE_SCHEMA = {"type": "object", "properties": {"equivalent": {"type": "boolean"}},
                      "required": ["equivalent"], "additionalProperties": False}


def run_coroutine_sync(make_coro: Callable[[], Any]) -> Any:
    """Run a coroutine to completion from sync code, even inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make_coro())
    # A loop runs in this thread (Gradio, Jupyter): asyncio.run would refuse, so the
    # requests get their own loop in a worker thread while this call blocks.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="capjudge-openai") as pool:
        return pool.submit(lambda: asyncio.run(make_coro())).result()


class OpenAIJudge:
    """Judge through an OpenAI-compatible Chat Completions API (see the module docstring)."""

    supports_on_result = True  # judge_* accept on_result=, so a cache can store answers as they arrive

    def __init__(
        self,
        model: str,
        base_url: Union[str, Sequence[str]] = DEFAULT_BASE_URL,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        api_key: Optional[str] = None,
        concurrency: int = 8,
        timeout: float = 60.0,
        max_retries: int = 5,
        max_reasks: int = 2,
        seed: int = 0,
        max_tokens_total: Optional[int] = None,
        budget: Optional[TokenBudget] = None,
        json_mode: str = "schema",
        max_tokens: Optional[int] = 1024,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        retry_after_max: float = 120.0,
        progress: bool = True,
    ):
        if not model:
            raise JudgeOptionError("the openai judge needs a model name: 'openai:MODEL?base_url=...'")
        if json_mode not in JSON_MODES:
            raise JudgeOptionError(f"judge option json_mode={json_mode!r}; use one of {', '.join(JSON_MODES)}")
        if int(concurrency) < 1:
            raise JudgeOptionError(f"judge option concurrency must be >= 1, got {concurrency}")
        self.model = model
        self.base_urls = _split_urls(base_url)
        self.api_key_env = api_key_env
        # An explicit key (e.g. one a Space visitor typed) wins over the environment; it is not a
        # spec-string option, so it never lands in a signature, a log or a shell history.
        self._api_key = api_key
        self.concurrency = int(concurrency)
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.max_reasks = int(max_reasks)
        self.seed = int(seed)
        self.budget = budget if budget is not None else TokenBudget(max_tokens_total)
        self.json_mode = json_mode
        self.max_tokens = max_tokens
        self.backoff_base = float(backoff_base)
        self.backoff_max = float(backoff_max)
        self.retry_after_max = float(retry_after_max)
        self.progress = progress
        self.difference_prompt = load_prompt(DIFFERENCE_PROMPT)
        self.equivalence_prompt = load_prompt(EQUIVALENCE_PROMPT)
        self.stats = {k: 0 for k in STAT_KEYS}
        self._lock = threading.Lock()
        self._rng = random.Random(self.seed)  # jitter only; answers never depend on it
        self._next_replica = itertools.count()
        self._paused_until: dict[str, float] = {}  # replica URL -> monotonic time its Retry-After ends

    @classmethod
    def from_options(cls, model: str, **options: Any) -> "OpenAIJudge":
        """Build from spec-string options (strings are converted; unknown names are refused)."""
        return cls(model=model, **parse_options(options))

    # -- identity -------------------------------------------------------------------------
    @property
    def cache_identity(self) -> str:
        """What a cached answer depends on: backend, exact model, prompt versions and hashes."""
        return (f"judge:openai|model:{self.model}"
                f"|prompt:{self.difference_prompt.tag},{self.equivalence_prompt.tag}")

    @property
    def signature(self) -> str:
        """``judge:openai|model:M|prompt:difference_v1@sha8,equivalence_v1@sha8|capjudge:V``."""
        return f"{self.cache_identity}|capjudge:{__version__}"

    @property
    def budget_exhausted(self) -> bool:
        return self.budget.exhausted

    def __repr__(self) -> str:
        return f"OpenAIJudge(model={self.model!r}, base_urls={self.base_urls!r}, concurrency={self.concurrency})"

    # -- public batch API -----------------------------------------------------------------
    def judge_differences(self, cases: Sequence[DifferenceCase], *,
                          on_result: Optional[Callable[[int, DifferenceResult], None]] = None) -> list[DifferenceResult]:
        """Judge each prediction against its items; ``on_result(i, result)`` fires as each finishes."""
        jobs = [self._difference_job(c) for c in cases]
        return run_coroutine_sync(lambda: self._run(jobs, on_result, "difference"))

    def judge_equivalences(self, cases: Sequence[EquivalenceCase], *,
                           on_result: Optional[Callable[[int, EquivalenceResult], None]] = None) -> list[EquivalenceResult]:
        """Decide each (predicted, reference, kind) pair; ``on_result(i, result)`` fires as each finishes."""
        jobs = [self._equivalence_job(c) for c in cases]
        return run_coroutine_sync(lambda: self._run(jobs, on_result, "equivalence"))

    # -- building questions -----------------------------------------------------------------
    def _difference_job(self, case: DifferenceCase) -> _Job:
        p = self.difference_prompt
        items = [it.to_dict() for it in case.items]
        user = p.render("user", items=encode_data(items), prediction=encode_data(case.prediction))
        where = case.case_id or "case"
        return _Job(
            messages=[{"role": "system", "content": p.render("system")}, {"role": "user", "content": user}],
            response_format=self._response_format("difference_judgement", difference_schema(case)),
            parse=lambda obj: DifferenceResult(claims=validate_judgement(obj, case.items)),
            fail=lambda msg: DifferenceResult(error=f"openai judge, {where}: {msg}"),
            reask=p,
        )

    def _equivalence_job(self, case: EquivalenceCase) -> _Job:
        p = self.equivalence_prompt
        user = p.render("user", kind=encode_data(case.kind), predicted=encode_data(case.predicted),
                        reference=encode_data(case.reference))
        pair = f"{case.predicted!r} vs {case.reference!r}"
        return _Job(
            messages=[{"role": "system", "content": p.render("system")}, {"role": "user", "content": user}],
            response_format=self._response_format("equivalence_answer", EQUIVALENCE_SCHEMA),
            parse=lambda obj: EquivalenceResult(equivalent=parse_equivalence(obj)),
            fail=lambda msg: EquivalenceResult(error=f"openai judge, {pair}: {msg}"),
            reask=p,
        )

    def _response_format(self, name: str, schema: dict) -> dict:
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}

    # -- running ----------------------------------------------------------------------------
    async def _run(self, jobs: list[_Job], on_result: Optional[Callable], what: str) -> list:
        import httpx
        from tqdm.auto import tqdm

        results: list = [None] * len(jobs)
        semaphore = asyncio.Semaphore(self.concurrency)
        limits = httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency)
        with tqdm(total=len(jobs), desc=f"judging {what} ({self.model})", unit="case",
                  disable=not self.progress or not jobs, leave=False) as bar:
            async with httpx.AsyncClient(timeout=self.timeout, limits=limits, headers=self._headers()) as client:

                async def one(i: int, job: _Job) -> None:
                    async with semaphore:
                        result = await self._answer(client, job)
                    results[i] = result
                    if result.error is not None:
                        self._count("errors")
                    if on_result is not None:
                        on_result(i, result)
                    bar.update(1)

                await asyncio.gather(*(one(i, j) for i, j in enumerate(jobs)))
        return results

    def _headers(self) -> dict:
        key = self._api_key if self._api_key is not None else os.environ.get(self.api_key_env or "", "")
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _count(self, key: str, n: int = 1) -> None:
        with self._lock:
            self.stats[key] += n

    async def _answer(self, client: Any, job: _Job) -> Any:
        """Ask, validate, re-ask with the error fed back; at most 1 + max_reasks answers."""
        messages = list(job.messages)
        problem = ""
        for attempt in range(self.max_reasks + 1):
            if self.budget.exhausted:
                return job.fail(self.budget.message())
            try:
                content = await self._complete(client, messages, job.response_format)
            except _RequestFailed as e:
                return job.fail(str(e))
            try:
                return job.parse(parse_answer_json(content))
            except InvalidJudgement as e:
                problem = str(e)
            if attempt < self.max_reasks:
                self._count("reasks")
                messages = messages + [
                    {"role": "assistant", "content": content if isinstance(content, str) else ""},
                    {"role": "user", "content": job.reask.render("reask", error=problem)},
                ]
        return job.fail(f"invalid answer after {self.max_reasks + 1} attempts: {problem}")

    def _body(self, messages: list, response_format: dict) -> dict:
        body: dict = {"model": self.model, "messages": messages, "temperature": 0, "seed": self.seed}
        if self.max_tokens:
            body["max_tokens"] = self.max_tokens
        if self.json_mode == "schema":
            body["response_format"] = response_format
        elif self.json_mode == "object":
            body["response_format"] = {"type": "json_object"}
        return body

    def _backoff(self, attempt: int) -> float:
        """Exponential backoff with 'equal jitter': half fixed, half random."""
        ceiling = min(self.backoff_max, self.backoff_base * (2 ** attempt))
        with self._lock:
            return ceiling / 2 + self._rng.random() * ceiling / 2

    def _downgrade_json_mode(self, response: Any) -> bool:
        """On a 400 about response_format, fall back to a weaker JSON mode; True if changed."""
        text = response.text.lower()
        about_format = any(word in text for word in ("response_format", "json_schema", "json_object"))
        if self.json_mode == "off" or not about_format:
            return False
        self.json_mode = JSON_MODES[JSON_MODES.index(self.json_mode) + 1]
        return True

    async def _complete(self, client: Any, messages: list, response_format: dict) -> Any:
        """POST one chat completion with retries; return the message content (any type)."""
        import httpx

        reason = "no attempt made"
        for attempt in range(self.max_retries + 1):
            if attempt:
                self._count("retries")
            url = self.base_urls[next(self._next_replica) % len(self.base_urls)] + "/chat/completions"
            wait = self._backoff(attempt)
            # A Retry-After from a replica holds back every request to it, not only the one refused.
            paused = self._paused_until.get(url, 0.0) - time.monotonic()
            if paused > 0:
                await asyncio.sleep(paused)
            self._count("requests")
            try:
                response = await client.post(url, json=self._body(messages, response_format))
            except (httpx.TimeoutException, httpx.TransportError) as e:
                reason = f"{type(e).__name__} from {url}"
            else:
                status = response.status_code
                if status == 200:
                    try:
                        return self._read_completion(response.json())
                    except (ValueError, KeyError, IndexError, TypeError):
                        reason = f"unreadable completion body from {url}"
                elif status == 400 and self._downgrade_json_mode(response):
                    reason = f"HTTP 400 from {url}; retrying with json_mode={self.json_mode}"
                    wait = 0.0
                elif status == 429 or status >= 500 or status in (408, 409):
                    reason = f"HTTP {status} from {url}"
                    retry_after = parse_retry_after(response.headers.get("retry-after"))
                    if retry_after is not None:
                        wait = max(wait, min(retry_after, self.retry_after_max))
                        self._paused_until[url] = max(self._paused_until.get(url, 0.0), time.monotonic() + wait)
                else:
                    raise _RequestFailed(f"HTTP {status} from {url}: {response.text[:300]}")
            if attempt < self.max_retries:
                await asyncio.sleep(wait)
        raise _RequestFailed(f"gave up after {self.max_retries + 1} attempts: {reason}")

    def _read_completion(self, data: dict) -> Any:
        usage = data.get("usage") or {}
        prompt_tokens = int(usage.get("prompt_tokens") or 0)
        completion_tokens = int(usage.get("completion_tokens") or 0)
        self._count("prompt_tokens", prompt_tokens)
        self._count("completion_tokens", completion_tokens)
        self.budget.charge(prompt_tokens, completion_tokens)
        return data["choices"][0]["message"].get("content")
