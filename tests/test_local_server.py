"""The local OpenAI-compatible server (holyclient.testing), exercised with plain httpx and raw sockets."""

from __future__ import annotations

import asyncio
import base64
import json
import math
import os
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from holyclient._cli import main
from holyclient.testing import Fault, FaultMix, LocalServer, RateLimits
from holyclient.testing._faults import parse_kinds
from holyclient.testing._limits import format_reset

pytest_plugins = ["holyclient.testing.pytest_plugin"]

KEY = "sk-test-secret-key-123"
AUTH = {"Authorization": f"Bearer {KEY}"}
HELLO = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hello there world"}]}


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with LocalServer() as srv:
        yield srv


@pytest.fixture
def srv(server: LocalServer) -> LocalServer:
    server.reset()
    return server


@pytest.fixture
def client(srv: LocalServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=srv.base_url, headers=AUTH, timeout=5) as c:
        yield c


def sse_events(text: str) -> list[Any]:
    events: list[Any] = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        assert block.startswith("data: "), block
        data = block[len("data: ") :]
        events.append(data if data == "[DONE]" else json.loads(data))
    return events


def chat(client: httpx.Client, **body: Any) -> httpx.Response:
    return client.post("/chat/completions", json={**HELLO, **body})


# -- chat completions --------------------------------------------------------------------------
def test_chat_echoes_last_user_message_with_usage_and_request_id(client: httpx.Client) -> None:
    body = {**HELLO, "messages": [{"role": "system", "content": "be brief"}, *HELLO["messages"]]}
    response = client.post("/chat/completions", json=body)
    assert response.status_code == 200
    assert response.headers["x-request-id"].startswith("req_")
    data = response.json()
    assert data["object"] == "chat.completion" and data["model"] == "gpt-4o-mini"
    assert data["id"].startswith("chatcmpl-")
    assert data["choices"][0]["message"] == {
        "role": "assistant",
        "content": "Echo: hello there world",
        "refusal": None,
    }
    assert data["choices"][0]["finish_reason"] == "stop"
    usage = data["usage"]
    assert usage["prompt_tokens"] == (math.ceil(8 / 4) + 3) + (math.ceil(17 / 4) + 3)
    assert usage["completion_tokens"] == math.ceil(len("Echo: hello there world") / 4)
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_chat_reads_text_parts_and_answers_n_choices(client: httpx.Client) -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "part one "}, {"type": "text", "text": "two"}]}
    ]
    data = chat(client, messages=messages, n=3).json()
    assert [c["index"] for c in data["choices"]] == [0, 1, 2]
    assert {c["message"]["content"] for c in data["choices"]} == {"Echo: part one two"}
    assert data["usage"]["completion_tokens"] == 3 * math.ceil(len("Echo: part one two") / 4)


def test_chat_honours_stop_max_tokens_and_json_response_format(client: httpx.Client) -> None:
    stopped = chat(client, stop=["there"]).json()["choices"][0]
    assert stopped["message"]["content"] == "Echo: hello " and stopped["finish_reason"] == "stop"
    cut = chat(client, max_tokens=2).json()["choices"][0]
    assert cut["message"]["content"] == "Echo: he" and cut["finish_reason"] == "length"
    as_json = chat(client, response_format={"type": "json_object"}).json()["choices"][0]["message"]["content"]
    assert json.loads(as_json) == {"echo": "hello there world"}


WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"enum": ["c", "f"]},
                "days": {"type": "integer"},
            },
        },
    },
}


def test_chat_makes_tool_calls_when_forced_or_mentioned(client: httpx.Client) -> None:
    forced = chat(client, tools=[WEATHER], tool_choice="required").json()["choices"][0]
    assert forced["finish_reason"] == "tool_calls" and forced["message"]["content"] is None
    call = forced["message"]["tool_calls"][0]
    assert call["type"] == "function" and call["id"].startswith("call_")
    assert call["function"]["name"] == "get_weather"
    assert json.loads(call["function"]["arguments"]) == {"city": "hello there world", "unit": "c", "days": 1}
    named = chat(
        client, tools=[WEATHER], tool_choice={"type": "function", "function": {"name": "get_weather"}}
    )
    assert named.json()["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "get_weather"
    mentioned = [{"role": "user", "content": "call get_weather please"}]
    assert (
        chat(client, tools=[WEATHER], messages=mentioned).json()["choices"][0]["finish_reason"]
        == "tool_calls"
    )
    assert (
        chat(client, tools=[WEATHER]).json()["choices"][0]["message"]["content"] == "Echo: hello there world"
    )
    after_tool = [
        *mentioned,
        {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call["id"], "content": "sunny"},
    ]
    assert chat(client, tools=[WEATHER], messages=after_tool).json()["choices"][0]["finish_reason"] == "stop"


# -- streaming ---------------------------------------------------------------------------------
def test_stream_sends_chunked_sse_events_ending_with_done(client: httpx.Client) -> None:
    response = chat(client, stream=True)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["transfer-encoding"] == "chunked"
    assert "x-request-id" in response.headers
    events = sse_events(response.text)
    assert events[-1] == "[DONE]"
    chunks = events[:-1]
    assert all(c["object"] == "chat.completion.chunk" and "usage" not in c for c in chunks)
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    assert text == "Echo: hello there world"
    assert len(chunks) >= 5  # role, several content pieces, finish
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"


def test_stream_include_usage_adds_a_final_usage_chunk(client: httpx.Client) -> None:
    events = sse_events(chat(client, stream=True, stream_options={"include_usage": True}).text)
    usage_chunk = events[-2]
    assert usage_chunk["choices"] == []
    assert usage_chunk["usage"]["completion_tokens"] == math.ceil(len("Echo: hello there world") / 4)
    assert all(e["usage"] is None for e in events[:-2])


def test_stream_with_n_choices_and_tool_call_arguments(client: httpx.Client) -> None:
    events = sse_events(chat(client, stream=True, n=2).text)[:-1]
    for index in (0, 1):
        text = "".join(
            c["choices"][0]["delta"].get("content") or "" for c in events if c["choices"][0]["index"] == index
        )
        assert text == "Echo: hello there world"
    events = sse_events(chat(client, stream=True, tools=[WEATHER], tool_choice="required").text)[:-1]
    first = events[0]["choices"][0]["delta"]["tool_calls"][0]
    assert first["function"]["name"] == "get_weather"
    arguments = "".join(
        e["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] for e in events[:-1]
    )
    assert json.loads(arguments)["unit"] == "c"
    assert events[-1]["choices"][0]["finish_reason"] == "tool_calls"


# -- embeddings and models ---------------------------------------------------------------------
def test_embeddings_are_deterministic_unit_vectors(client: httpx.Client) -> None:
    body = {"model": "text-embedding-3-small", "input": ["alpha", "beta"]}
    first = client.post("/embeddings", json=body).json()
    second = client.post("/embeddings", json=body).json()
    assert first["data"] == second["data"]
    vectors = [d["embedding"] for d in first["data"]]
    assert [len(v) for v in vectors] == [1536, 1536] and vectors[0] != vectors[1]
    assert abs(math.sqrt(sum(x * x for x in vectors[0])) - 1) < 1e-6
    assert first["usage"] == {"prompt_tokens": 2 + 1, "total_tokens": 3}  # ceil(5/4) + ceil(4/4)
    single = client.post("/embeddings", json={"model": "text-embedding-3-small", "input": "alpha"}).json()
    assert single["data"][0]["embedding"] == vectors[0]
    large = client.post("/embeddings", json={"model": "text-embedding-3-large", "input": "x"}).json()
    assert len(large["data"][0]["embedding"]) == 3072


def test_embeddings_dimensions_base64_and_token_input(client: httpx.Client) -> None:
    body = {"model": "text-embedding-3-small", "input": "alpha", "dimensions": 8}
    floats = client.post("/embeddings", json=body).json()["data"][0]["embedding"]
    encoded = client.post("/embeddings", json={**body, "encoding_format": "base64"}).json()["data"][0][
        "embedding"
    ]
    decoded = struct.unpack("<8f", base64.b64decode(encoded))
    assert len(floats) == 8 and all(abs(a - b) < 1e-6 for a, b in zip(floats, decoded, strict=True))
    tokens = client.post(
        "/embeddings", json={"model": "m", "input": [[1, 2, 3], [4]], "dimensions": 4}
    ).json()
    assert len(tokens["data"]) == 2 and tokens["usage"]["prompt_tokens"] == 4
    bad = client.post("/embeddings", json={**body, "encoding_format": "hex"})
    assert bad.status_code == 400 and bad.json()["error"]["param"] == "encoding_format"
    assert client.post("/embeddings", json={"model": "m", "input": []}).status_code == 400
    assert client.post("/embeddings", json={"model": "m", "input": ""}).status_code == 400


def test_models_list_and_retrieve(client: httpx.Client) -> None:
    listing = client.get("/models").json()
    ids = [m["id"] for m in listing["data"]]
    assert listing["object"] == "list" and "gpt-4o-mini" in ids and "text-embedding-3-small" in ids
    assert client.get("/models/gpt-4o-mini").json() == {**listing["data"][ids.index("gpt-4o-mini")]}
    missing = client.get("/models/no-such-model")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "model_not_found"


# -- errors ------------------------------------------------------------------------------------
def assert_error_shape(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status
    assert "x-request-id" in response.headers
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    return dict(error)


@pytest.mark.parametrize("auth", [None, "", "Bearer", "Basic abc"])
def test_missing_or_empty_key_is_401(srv: LocalServer, auth: str | None) -> None:
    headers = {} if auth is None else {"Authorization": auth}
    response = httpx.post(srv.base_url + "/chat/completions", json=HELLO, headers=headers)
    assert assert_error_shape(response, 401)["type"] == "invalid_request_error"


def test_bearer_with_only_spaces_is_401(srv: LocalServer) -> None:
    reply = raw_exchange(
        srv, b"GET /v1/models HTTP/1.1\r\nAuthorization: Bearer    \r\nConnection: close\r\n\r\n"
    )
    assert reply.startswith(b"HTTP/1.1 401")


def test_key_checks_are_configurable() -> None:
    with LocalServer(require_key=False) as open_server:
        assert httpx.post(open_server.base_url + "/chat/completions", json=HELLO).status_code == 200
    with LocalServer(api_key="right") as strict:
        wrong = httpx.post(
            strict.base_url + "/chat/completions", json=HELLO, headers={"Authorization": "Bearer x"}
        )
        assert assert_error_shape(wrong, 401)["code"] == "invalid_api_key"
        right = httpx.post(
            strict.base_url + "/chat/completions", json=HELLO, headers={"Authorization": "Bearer right"}
        )
        assert right.status_code == 200


def test_a_wrong_method_on_chat_completions_is_told_both_methods_the_path_allows(
    client: httpx.Client,
) -> None:
    refused = client.delete("/chat/completions")
    assert refused.headers["allow"] == "POST, GET"  # POST creates, GET lists the stored completions
    assert assert_error_shape(refused, 405)["message"].endswith("use POST, GET.")


def test_unknown_path_wrong_method_and_bad_bodies(client: httpx.Client) -> None:
    assert assert_error_shape(client.get("/nope"), 404)["code"] == "unknown_url"
    assert_error_shape(client.put("/chat/completions"), 405)
    assert client.get("/chat/completions").json()["object"] == "list"  # the stored completions
    assert_error_shape(client.post("/chat/completions", content=b"{not json"), 400)
    assert_error_shape(client.post("/chat/completions", content=b"[1, 2]"), 400)
    assert (
        assert_error_shape(client.post("/chat/completions", json={"messages": HELLO["messages"]}), 400)[
            "param"
        ]
        == "model"
    )
    assert (
        assert_error_shape(client.post("/chat/completions", json={"model": "m"}), 400)["param"] == "messages"
    )
    assert assert_error_shape(chat(client, n=0), 400)["param"] == "n"


# -- faults ------------------------------------------------------------------------------------
def test_status_fault_carries_retry_headers_then_next_request_succeeds(
    srv: LocalServer, client: httpx.Client
) -> None:
    srv.enqueue(Fault.status(429, retry_after=1, retry_after_ms=250, should_retry=True))
    limited = chat(client)
    error = assert_error_shape(limited, 429)
    assert error["code"] == "rate_limit_exceeded"
    assert limited.headers["retry-after"] == "1" and limited.headers["retry-after-ms"] == "250"
    assert limited.headers["x-should-retry"] == "true"
    assert chat(client).status_code == 200
    assert srv.stats["by_fault"] == {"429": 1}
    assert srv.stats["by_status"] == {"429": 1, "200": 1}


def test_insufficient_quota_and_http_date_retry_after(srv: LocalServer, client: httpx.Client) -> None:
    srv.enqueue(Fault.insufficient_quota(), Fault.status(503, retry_after="Wed, 21 Oct 2015 07:28:00 GMT"))
    quota = chat(client)
    assert assert_error_shape(quota, 429)["code"] == "insufficient_quota"
    assert "retry-after" not in quota.headers
    assert chat(client).headers["retry-after"] == "Wed, 21 Oct 2015 07:28:00 GMT"


@pytest.mark.parametrize("status", [500, 502, 503, 504, 418])
def test_any_status_fault(srv: LocalServer, client: httpx.Client, status: int) -> None:
    srv.enqueue(Fault.status(status, should_retry=False))
    response = chat(client)
    assert_error_shape(response, status)
    assert response.headers["x-should-retry"] == "false"


def test_queued_faults_apply_in_order_to_next_requests(srv: LocalServer, client: httpx.Client) -> None:
    srv.enqueue(Fault.status(500), Fault.status(502))
    assert [chat(client).status_code for _ in range(3)] == [500, 502, 200]


def test_dropped_connection_sends_nothing(srv: LocalServer, client: httpx.Client) -> None:
    srv.enqueue(Fault.drop())
    with pytest.raises(httpx.RemoteProtocolError):
        chat(client)
    assert chat(client).status_code == 200  # the client reconnects
    assert srv.stats["by_fault"] == {"drop": 1}


def test_malformed_body_is_a_200_that_is_not_json(client: httpx.Client) -> None:
    with LocalServer(latency=0.05, faults=Fault.malformed()) as slow:
        started = time.perf_counter()
        response = httpx.post(slow.base_url + "/chat/completions", json=HELLO, headers=AUTH)
        assert time.perf_counter() - started >= 0.05  # after the full latency
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"
    with pytest.raises(json.JSONDecodeError):
        json.loads(response.content)


def test_stream_cut_closes_mid_stream(srv: LocalServer, client: httpx.Client) -> None:
    srv.enqueue(Fault.stream_cut(after_chunks=2))
    received: list[str] = []
    with (
        pytest.raises(httpx.RemoteProtocolError),
        client.stream("POST", "/chat/completions", json={**HELLO, "stream": True}) as response,
    ):
        assert response.status_code == 200
        for line in response.iter_lines():
            received.append(line)
    assert len([line for line in received if line.startswith("data: {")]) == 2
    assert "data: [DONE]" not in received


def test_stream_cut_on_a_json_request_truncates_the_body(srv: LocalServer, client: httpx.Client) -> None:
    srv.enqueue(Fault.stream_cut())
    with pytest.raises(httpx.RemoteProtocolError):
        chat(client)


def test_error_event_mid_stream(srv: LocalServer, client: httpx.Client) -> None:
    srv.enqueue(Fault.stream_error(after_chunks=1, message="boom", error_code="overloaded"))
    events = sse_events(chat(client, stream=True).text)
    assert events[0]["object"] == "chat.completion.chunk"
    assert events[1] == {
        "error": {"message": "boom", "type": "server_error", "param": None, "code": "overloaded"}
    }
    assert len(events) == 2
    srv.enqueue(Fault.stream_error())
    assert_error_shape(chat(client), 500)  # a JSON request gets the error as a status


def test_hang_outlasts_the_client_timeout_and_ends_when_the_client_leaves(srv: LocalServer) -> None:
    srv.enqueue(Fault.hang(30))
    with httpx.Client(base_url=srv.base_url, headers=AUTH, timeout=0.2) as impatient:
        started = time.perf_counter()
        with pytest.raises(httpx.ReadTimeout):
            chat(impatient)
        assert time.perf_counter() - started < 15  # far below the 30 s hang, far above any load delay
    deadline = time.monotonic() + 2
    while srv.stats["in_flight"] and time.monotonic() < deadline:
        time.sleep(0.01)
    assert srv.stats["in_flight"] == 0


def test_latency_jitter_and_slow_fault() -> None:
    with (
        LocalServer(latency=0.05, jitter=0.05, faults=[Fault.slow(0.1)]) as slow,
        httpx.Client(base_url=slow.base_url, headers=AUTH) as c,
    ):
        started = time.perf_counter()
        chat(c)
        assert time.perf_counter() - started >= 0.15  # latency + the slow fault's 0.1 s; load only adds
        for _ in range(3):
            started = time.perf_counter()
            assert chat(c).status_code == 200
            assert time.perf_counter() - started >= 0.05
    # The upper bound of the jitter is the server's own arithmetic, not a wall-clock race on a busy host.
    drawn = [slow._app._latency() for _ in range(200)]
    assert all(0.05 <= latency < 0.10 for latency in drawn)
    assert max(drawn) - min(drawn) > 0.03  # jittered, not a constant


def test_chunk_delay_paces_stream_events() -> None:
    with LocalServer(chunk_delay=0.02) as paced, httpx.Client(base_url=paced.base_url, headers=AUTH) as c:
        started = time.perf_counter()
        events = sse_events(chat(c, stream=True).text)
        assert time.perf_counter() - started >= 0.02 * (len(events) - 1)
        assert events[-1] == "[DONE]"


def test_hook_chooses_faults_per_request() -> None:
    def hook(request: Any) -> Fault | None:
        return Fault.status(503) if "fail" in json.dumps(request.body) else None

    with LocalServer(hook=hook) as hooked, httpx.Client(base_url=hooked.base_url, headers=AUTH) as c:
        assert chat(c).status_code == 200
        assert chat(c, messages=[{"role": "user", "content": "please fail"}]).status_code == 503


def test_a_failing_hook_is_answered_500_and_the_server_keeps_serving(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def hook(request: Any) -> Fault | None:
        raise RuntimeError("hook bug")

    with LocalServer(hook=hook) as hooked, httpx.Client(base_url=hooked.base_url, headers=AUTH) as c:
        assert chat(c).json()["error"]["type"] == "server_error"
        assert c.get("/models").status_code == 500
    assert "handler failed" in caplog.text


def fault_sequence(mix: FaultMix, count: int) -> list[str | None]:
    return [f.name if f else None for f in (mix.next() for _ in range(count))]


def test_fault_mix_is_seeded_and_respects_rate_and_weights() -> None:
    kinds = {"429": 1, "drop": 1}
    first = fault_sequence(FaultMix(rate=0.3, kinds=kinds, seed=7), 2000)
    assert first == fault_sequence(FaultMix(rate=0.3, kinds=kinds, seed=7), 2000)
    assert first != fault_sequence(FaultMix(rate=0.3, kinds=kinds, seed=8), 2000)
    assert 0.25 < sum(f is not None for f in first) / 2000 < 0.35
    assert {f for f in first if f} == {"429", "drop"}
    assert fault_sequence(FaultMix(rate=0.0, seed=1), 100) == [None] * 100
    with pytest.raises(ValueError):
        FaultMix(rate=1.5)


def test_fault_mix_on_a_server_injects_faults_at_the_rate() -> None:
    with (
        LocalServer(faults=FaultMix(rate=0.5, kinds={"500": 1, "502": 1}, seed=3)) as mixed,
        httpx.Client(base_url=mixed.base_url, headers=AUTH) as c,
    ):
        statuses = [chat(c).status_code for _ in range(200)]
        stats = mixed.stats
    assert set(statuses) == {200, 500, 502}
    assert stats["by_status"]["500"] + stats["by_status"]["502"] == sum(stats["by_fault"].values())
    assert 60 < sum(stats["by_fault"].values()) < 140


def test_parse_kinds_accepts_weights_and_rejects_unknown_names() -> None:
    assert parse_kinds("429=3, 500=1,drop") == {"429": 3.0, "500": 1.0, "drop": 1.0}
    for bad in ("teapot=1", "429=x", "429=-1", ""):
        with pytest.raises(ValueError):
            parse_kinds(bad)


# -- rate limits -------------------------------------------------------------------------------
def server_clock(server: LocalServer, start: float) -> list[float]:
    """Give ``server``'s rate limiter a clock the test moves (``now[0] += seconds``) instead of its loop's."""
    limiter = server._app._limiter
    assert limiter is not None
    check = limiter.check
    now = [start]
    limiter.check = lambda _loop_time, cost, model: check(now[0], cost, model)  # type: ignore[method-assign]
    return now


def test_rpm_limit_answers_429_with_retry_after_and_ratelimit_headers() -> None:
    with (
        LocalServer(rate_limits=RateLimits(rpm=2, window=0.5)) as limited,
        httpx.Client(base_url=limited.base_url, headers=AUTH) as c,
    ):
        now = server_clock(
            limited, 100.0
        )  # the window is the server's clock: injected, so load cannot move it
        first = chat(c)
        assert first.headers["x-ratelimit-limit-requests"] == "2"
        assert first.headers["x-ratelimit-remaining-requests"] == "1"
        assert chat(c).status_code == 200
        refused = chat(c)
        error = assert_error_shape(refused, 429)
        assert error["type"] == "requests" and error["code"] == "rate_limit_exceeded"
        assert refused.headers["retry-after"] == "1"
        assert 0 < int(refused.headers["retry-after-ms"]) <= 500
        assert refused.headers["x-ratelimit-remaining-requests"] == "0"
        assert c.get("/models").status_code == 200  # models are not limited
        now[0] += int(refused.headers["retry-after-ms"]) / 1000 + 0.02
        assert chat(c).status_code == 200
        assert limited.stats["rate_limited"] == 1


def test_tpm_limit_counts_message_chars_plus_max_tokens() -> None:
    # cost = ceil(17 chars / 4) + 10 = 15 tokens per request
    with (
        LocalServer(rate_limits=RateLimits(tpm=40, window=60)) as limited,
        httpx.Client(base_url=limited.base_url, headers=AUTH) as c,
    ):
        assert chat(c, max_tokens=10).headers["x-ratelimit-remaining-tokens"] == "25"
        assert chat(c, max_completion_tokens=10).headers["x-ratelimit-remaining-tokens"] == "10"
        refused = chat(c, max_tokens=10)
        assert assert_error_shape(refused, 429)["type"] == "tokens"
        assert 59 <= int(refused.headers["retry-after"]) <= 60
        assert chat(c, max_tokens=5).status_code == 200  # 5 + 5 = 10 tokens still fit
        too_large = chat(c, max_tokens=100)
        assert too_large.status_code == 429 and too_large.headers["x-should-retry"] == "false"


def test_format_reset_matches_openai_style() -> None:
    assert [format_reset(s) for s in (0.02, 1.5, 59.9991, 360)] == ["20ms", "1.5s", "59.999s", "6m0s"]


# -- HTTP/1.1 wire behaviour -------------------------------------------------------------------
def raw_exchange(srv: LocalServer, payload: bytes, *, until_close: bool = True) -> bytes:
    with socket.create_connection(("127.0.0.1", srv.port), timeout=5) as sock:
        sock.sendall(payload)
        chunks = []
        while True:
            data = sock.recv(65536)
            if not data:
                break
            chunks.append(data)
            if not until_close:
                break
        return b"".join(chunks)


def post_bytes(body: bytes, *, extra: str = "", connection: str = "close") -> bytes:
    return (
        f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: {connection}\r\n{extra}\r\n"
    ).encode() + body


def test_keep_alive_reuses_one_connection(srv: LocalServer, client: httpx.Client) -> None:
    for _ in range(20):
        assert chat(client).status_code == 200
        assert chat(client, stream=True).status_code == 200
    assert srv.stats["connections"] == 1


def test_pipelined_requests_are_answered_in_order(srv: LocalServer) -> None:
    body = json.dumps(HELLO).encode()
    reply = raw_exchange(srv, post_bytes(body, connection="keep-alive") * 2 + post_bytes(body))
    assert reply.count(b"HTTP/1.1 200 OK") == 3
    ids = [int(part.split(b"\r\n", 1)[0][-8:], 16) for part in reply.split(b"x-request-id: req_")[1:]]
    assert ids == sorted(ids)


def test_chunked_request_body_is_accepted(srv: LocalServer) -> None:
    body = json.dumps(HELLO).encode()
    head = (
        f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
        "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    ).encode()
    chunked = b"".join(
        b"%x;ext=1\r\n%b\r\n" % (len(body[i : i + 7]), body[i : i + 7]) for i in range(0, len(body), 7)
    )
    reply = raw_exchange(srv, head + chunked + b"0\r\nTrailer: x\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 200 OK") and b"Echo: hello there world" in reply


def test_body_split_across_packets_and_expect_continue(srv: LocalServer) -> None:
    body = json.dumps(HELLO).encode()
    request = post_bytes(body, extra="Expect: 100-continue\r\n")
    with socket.create_connection(("127.0.0.1", srv.port), timeout=5) as sock:
        head_end = request.index(b"\r\n\r\n") + 4
        sock.sendall(request[:head_end])
        assert sock.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"
        for i in range(head_end, len(request), 5):
            sock.sendall(request[i : i + 5])
        reply = b""
        while data := sock.recv(65536):
            reply += data
    assert reply.startswith(b"HTTP/1.1 200 OK") and reply.endswith(b"}")


@pytest.mark.parametrize(
    ("payload", "status"),
    [
        (b"GARBAGE\r\n\r\n", b"400"),
        (b"GET /v1/models HTTP/2.0\r\n\r\n", b"505"),
        (b"POST /v1/embeddings HTTP/1.1\r\nContent-Length: abc\r\n\r\n", b"400"),
        (b"POST /v1/embeddings HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", b"400"),
        (b"POST /v1/embeddings HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", b"400"),
        (b"POST /v1/embeddings HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0x2\r\n{}\r\n0\r\n\r\n", b"400"),
        (b"POST /v1/embeddings HTTP/1.1\r\nContent-Length: \xb2\r\n\r\n", b"400"),
        (b"POST /v1/embeddings HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", b"501"),
        (b"GET /v1/models HTTP/1.1\r\nBad Header\r\n\r\n", b"400"),
    ],
)
def test_malformed_requests_get_an_error_and_a_closed_connection(
    srv: LocalServer, payload: bytes, status: bytes
) -> None:
    reply = raw_exchange(srv, payload)
    assert reply.startswith(b"HTTP/1.1 " + status) and b"Connection: close" in reply
    assert b"x-request-id: req_" in reply


def test_http10_stream_is_close_delimited(srv: LocalServer) -> None:
    body = json.dumps({**HELLO, "stream": True}).encode()
    request = (
        f"POST /v1/chat/completions HTTP/1.0\r\nAuthorization: Bearer {KEY}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    reply = raw_exchange(srv, request)
    head, _, rest = reply.partition(b"\r\n\r\n")
    assert b"Transfer-Encoding" not in head and rest.endswith(b"data: [DONE]\n\n")


async def test_256_concurrent_keep_alive_connections(srv: LocalServer) -> None:
    body = json.dumps(HELLO).encode()
    request = post_bytes(body, connection="keep-alive")

    async def one() -> int:
        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
        ok = 0
        for _ in range(3):
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
            await reader.readexactly(length)
            ok += head.startswith(b"HTTP/1.1 200")
        writer.close()
        await writer.wait_closed()
        return ok

    results = await asyncio.gather(*(one() for _ in range(256)))
    assert sum(results) == 768
    assert srv.stats["connections"] == 256


async def test_async_client_against_async_context_manager() -> None:
    async with LocalServer(latency=0.01) as srv, httpx.AsyncClient(base_url=srv.base_url, headers=AUTH) as c:
        replies = await asyncio.gather(*(c.post("/chat/completions", json=HELLO) for _ in range(20)))
        assert {r.status_code for r in replies} == {200}


# -- observability -----------------------------------------------------------------------------
def test_request_log_keeps_bodies_but_never_the_key(srv: LocalServer, client: httpx.Client) -> None:
    chat(client, user="u1")
    client.get("/models")
    log = srv.requests
    assert [(r.method, r.path, r.status) for r in log] == [
        ("POST", "/v1/chat/completions", 200),
        ("GET", "/v1/models", 200),
    ]
    assert log[0].body["user"] == "u1"
    assert "authorization" not in log[0].headers
    assert KEY not in repr(log) and KEY not in json.dumps([r.to_json() for r in log])
    assert KEY not in repr(srv)


def test_log_can_be_capped_or_disabled() -> None:
    with LocalServer(log_limit=3) as capped, httpx.Client(base_url=capped.base_url, headers=AUTH) as c:
        for _ in range(5):
            c.get("/models")
        assert len(capped.requests) == 3 and capped.stats["requests"] == 5
    with LocalServer(log_requests=False) as quiet, httpx.Client(base_url=quiet.base_url, headers=AUTH) as c:
        c.get("/models")
        assert quiet.requests == [] and quiet.stats["requests"] == 1


def test_admin_endpoints_expose_stats_reset_and_fault_queue(srv: LocalServer, client: httpx.Client) -> None:
    admin = srv.base_url.removesuffix("/v1") + "/_holyclient"
    chat(client)
    stats_response = httpx.get(admin + "/stats")
    assert stats_response.headers["x-request-id"].startswith("req_")
    stats = stats_response.json()
    assert stats["requests"] == 1 and stats["by_status"] == {"200": 1} and stats["by_endpoint"] == {"chat": 1}
    assert httpx.get(admin + "/requests").json()["data"][0]["body"] == HELLO
    assert httpx.post(admin + "/faults", json={"enqueue": ["503", "drop"]}).json() == {"queued": 2}
    assert chat(client).status_code == 503
    assert httpx.post(admin + "/faults", json={"enqueue": ["teapot"]}).status_code == 400
    assert httpx.post(admin + "/reset").status_code == 200
    assert srv.stats["requests"] == 0 and srv.stats["queued_faults"] == 0 and srv.requests == []


def test_pytest_plugin_fixture_yields_a_running_server(holyclient_server: LocalServer) -> None:
    assert holyclient_server.base_url.startswith("http://127.0.0.1:")
    holyclient_server.enqueue(Fault.status(429, retry_after=0))
    assert httpx.get(holyclient_server.base_url + "/models", headers=AUTH).status_code == 429


@pytest.mark.parametrize("holyclient_server", [{"require_key": False}], indirect=True)
def test_pytest_plugin_fixture_takes_options(holyclient_server: LocalServer) -> None:
    assert httpx.get(holyclient_server.base_url + "/models").status_code == 200


def test_stopped_server_refuses_and_restarting_is_an_error() -> None:
    server = LocalServer().start()
    url = server.base_url
    with pytest.raises(RuntimeError):
        server.start()
    server.enqueue(Fault.hang(30))
    with pytest.raises(httpx.ReadTimeout):
        httpx.get(url + "/models", headers=AUTH, timeout=0.1)
    started = time.perf_counter()
    server.stop()
    server.stop()
    assert time.perf_counter() - started < 15  # far below the 30 s hang, far above any load delay
    with pytest.raises(httpx.ConnectError):
        httpx.get(url + "/models", headers=AUTH)
    with pytest.raises(RuntimeError):
        _ = server.base_url


# -- CLI -----------------------------------------------------------------------------------------
def test_serve_rejects_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--fault-rate", "2"]) == 2
    assert "--fault-rate: must be within 0..1" in capsys.readouterr().err
    assert main(["serve", "--faults", "teapot=1"]) == 2
    assert "teapot" in capsys.readouterr().err
    assert main(["serve", "--rpm", "0"]) == 2
    assert main(["serve", "--rpm", "5", "--rate-window", "0"]) == 2
    assert main(["serve", "--port", "70000"]) == 2
    assert main(["serve", "--latency", "-1"]) == 2
    assert "--latency: must be >= 0" in capsys.readouterr().err


def test_serve_reports_a_port_in_use(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        assert main(["serve", "--port", str(taken.getsockname()[1])]) == 2
    assert "cannot listen" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_subprocess_prints_url_serves_and_exits_zero_on_signal(sig: signal.Signals) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "holyclient",
            "serve",
            "--port",
            "0",
            "--rpm",
            "100",
            "--rate-window",
            "5",
            "--seed",
            "1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        reply = httpx.post(url + "/chat/completions", json=HELLO, headers=AUTH)
        assert reply.json()["choices"][0]["message"]["content"] == "Echo: hello there world"
        assert reply.headers["x-ratelimit-limit-requests"] == "100"
        assert httpx.get(url.removesuffix("/v1") + "/_holyclient/stats").json()["requests"] == 1
        proc.send_signal(sig)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close() if proc.stdout else None
        proc.stderr.close() if proc.stderr else None


# -- compatibility and leanness --------------------------------------------------------------------
def test_the_official_openai_sdk_parses_every_endpoint(srv: LocalServer) -> None:
    openai = pytest.importorskip("openai")
    with openai.OpenAI(base_url=srv.base_url, api_key=KEY, max_retries=0) as sdk:
        reply = sdk.chat.completions.create(model="gpt-4o-mini", messages=HELLO["messages"], n=2)
        assert [c.message.content for c in reply.choices] == ["Echo: hello there world"] * 2
        with sdk.chat.completions.create(
            model="gpt-4o-mini",
            messages=HELLO["messages"],
            stream=True,
            stream_options={"include_usage": True},
        ) as stream:
            chunks = list(stream)
        assert (
            "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
            == "Echo: hello there world"
        )
        assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0
        vectors = sdk.embeddings.create(model="text-embedding-3-small", input=["a", "b"], dimensions=3)
        assert [len(d.embedding) for d in vectors.data] == [3, 3]
        assert sdk.models.retrieve("gpt-4o").id == "gpt-4o"
        srv.enqueue(Fault.stream_error(after_chunks=1, message="boom"))
        with pytest.raises(openai.APIError, match="boom"):
            list(sdk.chat.completions.create(model="gpt-4o-mini", messages=HELLO["messages"], stream=True))


@pytest.mark.slow
def test_server_modules_import_neither_httpx_nor_pydantic_nor_the_client() -> None:
    code = (
        "import sys, holyclient; before = set(sys.modules); "
        "import holyclient.testing, holyclient._cli.serve; "
        "print(sorted(m for m in set(sys.modules) - before "
        "if m.split('.')[0] in ('httpx', 'httpx2', 'pydantic', 'tenacity', 'anyio') or m.startswith('holyclient._client._client')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# -- messages the real API refuses ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("message", "param", "code", "text"),
    [
        (
            {"role": "human", "content": "hi"},
            "messages[0].role",
            "invalid_value",
            "Invalid value: 'human'. Supported values are: 'system', 'developer', 'user', 'assistant', "
            "'tool', 'function'.",
        ),
        (
            {"role": "user", "text": "hi"},
            "messages[0].content",
            "missing_required_parameter",
            "Missing required parameter: 'messages[0].content'.",
        ),
        (
            {"role": "assistant"},
            "messages[0].content",
            "missing_required_parameter",
            "Missing required parameter: 'messages[0].content'.",
        ),
    ],
)
def test_chat_answers_400_for_a_message_the_real_api_refuses(
    srv: LocalServer, message: dict[str, Any], param: str, code: str, text: str
) -> None:
    reply = httpx.post(
        srv.base_url + "/chat/completions", json={"model": "gpt-4o-mini", "messages": [message]}, headers=AUTH
    )
    assert reply.status_code == 400
    assert reply.json()["error"] == {
        "message": text,
        "type": "invalid_request_error",
        "param": param,
        "code": code,
    }


def test_chat_accepts_an_assistant_message_that_carries_only_tool_calls(srv: LocalServer) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    messages = [
        {"role": "developer", "content": "be brief"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "done"},
    ]
    reply = httpx.post(
        srv.base_url + "/chat/completions", json={"model": "gpt-4o-mini", "messages": messages}, headers=AUTH
    )
    assert reply.status_code == 200
