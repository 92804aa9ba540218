"""Choose a judge by object, callable or spec string.

Spec strings:

* ``"embedded"`` — the offline default;
* ``"openai:MODEL?base_url=URL[,URL2...]&api_key_env=VAR&concurrency=8"`` — any
  OpenAI-compatible Chat Completions server (vLLM, TGI, llama.cpp, Ollama, OpenAI).
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Optional, Union
from urllib.parse import parse_qsl

from capjudge.callables import CallableJudge
from capjudge.protocol import Judge

JudgeSpec = Union[str, Judge, Callable, None]


def parse_spec(spec: str) -> tuple[str, str, dict[str, str]]:
    """Split ``"backend:model?k=v&k2=v2"`` into (backend, model, options).

    >>> parse_spec("openai:qwen2.5-7b?base_url=http://127.0.0.1:8000/v1&concurrency=4")
    ('openai', 'qwen2.5-7b', {'base_url': 'http://127.0.0.1:8000/v1', 'concurrency': '4'})
    """
    head, _, query = spec.partition("?")
    backend, _, model = head.partition(":")
    return backend.strip().lower(), model.strip(), dict(parse_qsl(query, keep_blank_values=True))


def _callable_kind(fn: Callable) -> str:
    """Tell an equivalence callable (3 parameters) from a difference callable (2)."""
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return "difference"
    return "equivalent" if len(params) >= 3 else "difference"


def resolve_judge(spec: JudgeSpec = "embedded", *, cache: Optional[str] = None, **options: Any) -> Judge:
    """Return a :class:`~capjudge.protocol.Judge` for ``spec``.

    ``cache`` is a path to a sqlite judge cache; when given, the judge is wrapped so
    answers are stored and an interrupted run resumes without paying twice.
    Extra keyword ``options`` go to the backend (they override spec-string options).

    >>> resolve_judge(lambda p, r, kind: p == r).judge_equivalences([])
    []
    """
    judge = _resolve_bare(spec, **options)
    if cache:
        from capjudge.cache import CachedJudge

        judge = CachedJudge(judge, cache)
    return judge


def _resolve_bare(spec: JudgeSpec, **options: Any) -> Judge:
    if spec is None:
        spec = "embedded"
    if isinstance(spec, str):
        backend, model, opts = parse_spec(spec)
        opts.update(options)
        if backend == "embedded":
            from capjudge.embedded import EmbeddedJudge

            return EmbeddedJudge(**opts)
        if backend == "openai":
            from capjudge.openai import OpenAIJudge

            return OpenAIJudge.from_options(model=model, **opts)
        raise ValueError(f"unknown judge backend {backend!r} in spec {spec!r}; use 'embedded' or 'openai:MODEL?base_url=...'")
    if isinstance(spec, Judge):
        return spec
    if callable(spec):
        kind = _callable_kind(spec)
        return CallableJudge(**{kind: spec})
    raise TypeError(f"cannot make a judge from {type(spec).__name__}; give a spec string, a Judge or a callable")
