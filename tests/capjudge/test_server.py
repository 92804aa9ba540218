"""The scripted OpenAI-compatible test server behaves as scripted, over real HTTP."""
import json
import threading

import httpx
import pytest

from capjudge.prompts import encode_data
from capjudge.testing.server import (
    BAD_LABELS,
    DROP,
    MALFORMED,
    ScriptedServer,
    content,
    extract_tag,
    rate_limited,
    server_error,
    slow,
)

ITEMS = [{"id": "d1", "text": "a cat was added", "category": "object", "ambiguous": False},
         {"id": "d2", "text": "the sky is darker", "category": "image_property", "ambiguous": True}]


def _body(prediction: str) -> dict:
    user = f"<items>\n{encode_data(ITEMS)}\n</items>\n<prediction>\n{encode_data(prediction)}\n</prediction>\n"
    return {"model": "m", "messages": [{"role": "system", "content": "judge"}, {"role": "user", "content": user}]}


def _post(server: ScriptedServer, prediction: str = "A cat was added. Not a cat was added. A dog left.") -> httpx.Response:
    return httpx.post(server.base_url + "/chat/completions", json=_body(prediction), timeout=5)


def _answer(response: httpx.Response) -> dict:
    return json.loads(response.json()["choices"][0]["message"]["content"])


def test_correct_answer_follows_the_oracle_and_reports_usage():
    with ScriptedServer() as server:
        r = _post(server)
    assert r.status_code == 200
    assert _answer(r)["claims"] == [
        {"text": "A cat was added", "label": "correct", "item": "d1"},
        {"text": "Not a cat was added", "label": "wrong", "item": "d1"},
        {"text": "A dog left", "label": "hallucination", "item": None},
    ]
    assert r.json()["usage"]["prompt_tokens"] > 0
    assert server.request_count == 1 and server.answered == 1


def test_script_is_consumed_in_order_then_default():
    with ScriptedServer() as server:
        server.script(rate_limited("3"), server_error(503), MALFORMED, BAD_LABELS, content("hello"))
        rs = [_post(server) for _ in range(6)]
    assert [r.status_code for r in rs] == [429, 503, 200, 200, 200, 200]
    assert rs[0].headers["retry-after"] == "3"
    with pytest.raises(json.JSONDecodeError):
        _answer(rs[2])
    assert {c["label"] for c in _answer(rs[3])["claims"]} == {"excellent"}
    assert rs[4].json()["choices"][0]["message"]["content"] == "hello"
    assert _answer(rs[5])["claims"][0]["label"] == "correct"


def test_drop_closes_the_connection_without_an_answer():
    with ScriptedServer() as server:
        server.script(DROP)
        with pytest.raises(httpx.TransportError):
            _post(server)
        assert _post(server).status_code == 200


def test_rules_match_the_prediction_text():
    with ScriptedServer() as server:
        server.rule("BOOM", server_error())
        assert _post(server, "BOOM goes the cat").status_code == 500
        assert _post(server, "A cat was added").status_code == 200


def test_max_in_flight_counts_concurrent_requests():
    with ScriptedServer(default=slow(0.3)) as server:
        threads = [threading.Thread(target=_post, args=(server,)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert server.request_count == 4
    assert server.max_in_flight == 4


def test_stop_cuts_open_keep_alive_connections():
    server = ScriptedServer().start()
    with httpx.Client(timeout=2) as client:
        url = server.base_url + "/chat/completions"
        assert client.post(url, json=_body("A cat was added")).status_code == 200
        server.stop()
        with pytest.raises(httpx.TransportError):
            client.post(url, json=_body("A cat was added"))


def test_extract_tag_reads_between_delimiters():
    assert extract_tag("x <p>\n\"a\"\n</p> y", "p") == '"a"'
    assert extract_tag("nothing", "p") is None
