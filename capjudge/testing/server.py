"""A scripted OpenAI-compatible Chat Completions server for tests and benchmarks.

It stands in for an LLM: it reads the judge's prompt (the JSON data between the
``<items>``/``<prediction>`` or ``<predicted>``/``<reference>`` tags of the
``capjudge/prompts`` templates), answers with a simple deterministic oracle, and can
be told to misbehave per request: be slow, answer 429 with ``Retry-After``, 500, drop
the connection, send malformed JSON or out-of-schema labels. It records every request
body and header, the request count and the largest number of requests in flight.

    with ScriptedServer(delay=0.2) as server:
        server.script(rate_limited("0.1"), server_error())   # the next two requests fail
        server.rule("FAIL", DROP)                             # any prediction containing FAIL
        judge = OpenAIJudge("test-model", base_url=server.base_url)

The oracle (:func:`oracle_answer`): a prediction is split at ``.``, ``;`` and new
lines; a sentence equal to an item's text (ignoring case and final punctuation) is
``correct`` (key item) or ``ambiguous``; a sentence ``not <item text>`` is ``wrong``;
any other sentence is a ``hallucination``. Two names are equivalent when equal
ignoring case and a final ``s``. Pass ``answer=`` to replace it.
"""
from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Optional

__all__ = [
    "Reply", "ScriptedServer", "OK", "DROP", "MALFORMED", "BAD_LABELS", "EMPTY", "slow", "rate_limited",
    "server_error", "content", "extract_tag", "oracle_answer", "request_data",
]


@dataclass(frozen=True)
class Reply:
    """How the server answers one request.

    ``kind``: ``ok`` (the oracle's answer), ``status`` (an HTTP error with ``status``),
    ``drop`` (close the connection without answering), ``malformed`` (content that is
    not JSON), ``bad_labels`` (the oracle's answer with an out-of-schema label),
    ``content`` (this exact message content), ``empty`` (a completion without content).
    ``delay`` seconds pass before the reply (for ``drop`` too).
    """

    kind: str = "ok"
    delay: Optional[float] = None
    status: int = 200
    retry_after: Optional[str] = None
    content: Optional[str] = None
    message: Optional[str] = None  # error message of a ``status`` reply


OK = Reply()
DROP = Reply(kind="drop")
MALFORMED = Reply(kind="malformed")
BAD_LABELS = Reply(kind="bad_labels")
EMPTY = Reply(kind="empty")


def slow(seconds: float) -> Reply:
    """A correct answer after ``seconds``."""
    return Reply(delay=seconds)


def rate_limited(retry_after: Optional[str] = "0.05") -> Reply:
    """HTTP 429 with a ``Retry-After`` header (seconds, or an HTTP date; None: no header)."""
    return Reply(kind="status", status=429, retry_after=retry_after)


def server_error(status: int = 500, message: Optional[str] = None) -> Reply:
    """An HTTP error reply (any status; e.g. 400 with a message about response_format)."""
    return Reply(kind="status", status=status, message=message)


def content(text: str) -> Reply:
    """A completion whose message content is exactly ``text``."""
    return Reply(kind="content", content=text)


def extract_tag(text: str, tag: str) -> Optional[str]:
    """The raw text between ``<tag>`` and ``</tag>`` (first occurrence), or None."""
    m = re.search(rf"<{tag}>\n?(.*?)\n?</{tag}>", text, re.DOTALL)
    return m.group(1) if m else None


def request_data(body: dict) -> dict:
    """Decode the delimited data of a judge request (from its first user message).

    Returns ``{"task": "difference", "items": [...], "prediction": str}`` or
    ``{"task": "equivalence", "kind", "predicted", "reference"}`` or ``{"task": None}``.
    """
    users = [m.get("content", "") for m in body.get("messages", []) if m.get("role") == "user"]
    first = users[0] if users else ""
    if extract_tag(first, "prediction") is not None:
        return {"task": "difference", "items": json.loads(extract_tag(first, "items") or "[]"),
                "prediction": json.loads(extract_tag(first, "prediction"))}
    if extract_tag(first, "predicted") is not None:
        return {"task": "equivalence", "kind": json.loads(extract_tag(first, "kind") or '""'),
                "predicted": json.loads(extract_tag(first, "predicted")),
                "reference": json.loads(extract_tag(first, "reference") or '""')}
    return {"task": None}


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().strip(".!,;").strip().casefold()


def oracle_answer(data: dict) -> dict:
    """The scripted judge's correct answer for decoded request data (see module doc)."""
    if data["task"] == "equivalence":
        a, b = _norm(data["predicted"]), _norm(data["reference"])
        return {"equivalent": a.rstrip("s") == b.rstrip("s")}
    if data["task"] != "difference":
        return {"claims": []}
    by_text = {_norm(it["text"]): it for it in data["items"]}
    claims = []
    for sentence in re.split(r"[.;\n]", data["prediction"]):
        if not sentence.strip():
            continue
        key = _norm(sentence)
        if key in by_text:
            it = by_text[key]
            claims.append({"text": sentence.strip(), "label": "ambiguous" if it["ambiguous"] else "correct",
                           "item": it["id"]})
        elif key.startswith("not ") and key[4:] in by_text and not by_text[key[4:]]["ambiguous"]:
            claims.append({"text": sentence.strip(), "label": "wrong", "item": by_text[key[4:]]["id"]})
        else:
            claims.append({"text": sentence.strip(), "label": "hallucination", "item": None})
    return {"claims": claims}


class ScriptedServer:
    """The test server; start it with ``with`` (or :meth:`start`/:meth:`stop`)."""

    def __init__(self, *, default: Reply = OK, delay: float = 0.0,
                 answer: Optional[Callable[[dict], dict]] = None,
                 usage: Optional[tuple[int, int]] = None, model: str = "test-model"):
        self.default = default
        self.delay = delay
        self.answer = answer or oracle_answer
        self.usage = usage  # fixed (prompt_tokens, completion_tokens); None: count words
        self.model = model
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.arrivals: list[float] = []  # time.monotonic() of each request, in arrival order
        self.in_flight = 0
        self.max_in_flight = 0
        self.answered = 0
        self._queue: deque = deque()
        self._rules: list[tuple[str, Reply]] = []
        self._lock = threading.Lock()
        self._connections: set = set()
        self._httpd: Optional[ThreadingHTTPServer] = None
        self._thread: Optional[threading.Thread] = None

    # -- scripting --------------------------------------------------------------------------
    def script(self, *replies: Reply) -> "ScriptedServer":
        """Queue replies for the next requests, in arrival order (then the default)."""
        with self._lock:
            self._queue.extend(replies)
        return self

    def rule(self, substring: str, reply: Reply) -> "ScriptedServer":
        """Always answer ``reply`` when the prediction (or predicted name) contains ``substring``."""
        with self._lock:
            self._rules.append((substring, reply))
        return self

    @property
    def request_count(self) -> int:
        return len(self.requests)

    def reset_counts(self) -> None:
        with self._lock:
            self.requests.clear()
            self.headers.clear()
            self.arrivals.clear()
            self.max_in_flight = 0
            self.answered = 0

    # -- lifecycle --------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the server is not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "ScriptedServer":
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="scripted-openai-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and cut every open connection (a server that dies)."""
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            conns = list(self._connections)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._httpd = None

    def __enter__(self) -> "ScriptedServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- answering --------------------------------------------------------------------------
    def _choose(self, data: dict) -> Reply:
        text = data.get("prediction") or data.get("predicted") or ""
        with self._lock:
            for substring, reply in self._rules:
                if substring in text:
                    return reply
            return self._queue.popleft() if self._queue else self.default

    def _completion(self, body: dict, message_content: Optional[str]) -> dict:
        if self.usage is not None:
            prompt_tokens, completion_tokens = self.usage
        else:
            prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
            completion_tokens = len((message_content or "").split())
        return {
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 0,
            "model": body.get("model", self.model),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": message_content}}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        }

    def _reply_content(self, reply: Reply, data: dict) -> Optional[str]:
        if reply.kind == "content":
            return reply.content
        if reply.kind == "empty":
            return None
        if reply.kind == "malformed":
            return '{"claims": [{"text": "a cat", "label": "corr'
        answer = self.answer(data)
        if reply.kind == "bad_labels":
            if "claims" in answer:
                answer = {"claims": [dict(c, label="excellent") for c in answer["claims"]]
                          or [{"text": "x", "label": "excellent", "item": None}]}
            else:
                answer = {"equivalent": "maybe"}
        return json.dumps(answer)


def _make_handler(server: ScriptedServer) -> type:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real servers do

        def setup(self) -> None:
            super().setup()
            with server._lock:
                server._connections.add(self.connection)

        def finish(self) -> None:
            with server._lock:
                server._connections.discard(self.connection)
            try:
                super().finish()
            except OSError:
                pass

        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def _send_json(self, status: int, obj: Any, extra_headers: Optional[dict] = None) -> None:
            payload = json.dumps(obj).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for k, v in (extra_headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send_json(200, {"object": "list", "data": [{"id": server.model, "object": "model"}]})
            else:
                self._send_json(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            with server._lock:
                server.requests.append(body)
                server.arrivals.append(time.monotonic())
                server.headers.append(dict(self.headers))
                server.in_flight += 1
                server.max_in_flight = max(server.max_in_flight, server.in_flight)
            try:
                self._answer(body)
            finally:
                with server._lock:
                    server.in_flight -= 1

        def _answer(self, body: dict) -> None:
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send_json(404, {"error": {"message": f"no route {self.path}"}})
                return
            data = request_data(body)
            reply = server._choose(data)
            time.sleep(server.delay if reply.delay is None else reply.delay)
            if reply.kind == "drop":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if reply.kind == "status":
                headers = {"Retry-After": reply.retry_after} if reply.retry_after is not None else {}
                message = reply.message or f"scripted HTTP {reply.status}"
                self._send_json(reply.status, {"error": {"message": message}}, headers)
                return
            message_content = server._reply_content(reply, data)
            with server._lock:
                server.answered += 1
            self._send_json(200, server._completion(body, message_content))

    return Handler
