"""The batch send path feeding its limiter (issue 25, item 7): every attempt is admitted and what its
answer said -- real usage, a 429's pause and remaining headers -- goes back to the (shared) limiter."""

from __future__ import annotations

import contextlib
import json
import logging
import socket
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import pytest

from batch_support import RecordingLimiter
from holyclient import AsyncClient
from holyclient._constants import PATHS
from holyclient.batch import BatchRequest, BatchResult, BatchRunner
from holyclient.ratelimit import TokenEstimator
from support import KEY, completion


async def _no_wait(seconds: float) -> None:
    await anyio.lowlevel.checkpoint()


async def test_the_batch_runner_feeds_each_attempts_answer_back_to_its_limiter() -> None:
    refused: set[str] = set()

    def handler(request: httpx2.Request) -> httpx2.Response:
        prompt = json.loads(request.content)["messages"][-1]["content"]
        if prompt == "p1" and prompt not in refused:
            refused.add(prompt)
            return httpx2.Response(
                429,
                json={"error": {"message": "slow down", "type": "rate_limit_error"}},
                headers={"retry-after": "1", "x-ratelimit-remaining-requests": "0"},
            )
        return httpx2.Response(200, json=completion("ok"))

    limiter = RecordingLimiter()
    client = AsyncClient(api_key=KEY, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))
    runner = BatchRunner(client, concurrency=1, limiter=limiter, max_retries=2, sleep=_no_wait)
    requests = [
        BatchRequest(f"r{i}", {"model": "gpt-4.1", "messages": [{"role": "user", "content": f"p{i}"}]})
        for i in range(3)
    ]
    results: list[BatchResult] = []
    await runner.run(requests, results.append)
    assert all(r.ok for r in results) and len(results) == 3
    assert len(limiter.admitted) == 4 and all(
        model == "gpt-4.1" and tokens > 0 for model, tokens in limiter.admitted
    )
    assert len(limiter.observed) == 4  # every attempt, the refused one too
    feedbacks = [feedback for _, feedback in limiter.observed]
    assert sum(f.pause == 1.0 and f.remaining_requests == 0 for f in feedbacks) == 1  # the 429's pause
    assert sorted(f.total_tokens or 0 for f in feedbacks) == [0, 6, 6, 6]  # real usage of each success


def _refusing_client(api_key: Any = KEY) -> AsyncClient:
    """A client whose every request would be a test failure: the requests below fail before sending."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        raise AssertionError(f"nothing should be sent, got {request.url}")

    return AsyncClient(
        api_key=api_key, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    )


async def _run_one(client: AsyncClient, request: BatchRequest) -> BatchResult:
    results: list[BatchResult] = []
    await BatchRunner(client, concurrency=1, sleep=_no_wait).run([request], results.append)
    (result,) = results
    return result


_UNSUPPORTED = f"(supported: {', '.join(PATHS)})"


@pytest.mark.parametrize("key", [KEY, "sk-8char"], ids=["key", "eight-characters"])
async def test_a_key_a_request_echoes_into_its_own_error_is_scrubbed_from_the_result(key: str) -> None:
    result = await _run_one(_refusing_client(key), BatchRequest("r0", {"model": "gpt-4.1"}, f"/v1/{key}"))
    assert result.error == {
        "code": "request_failed",
        "message": f"ValueError: unsupported url '/v1/***' {_UNSUPPORTED}",
    }


async def test_a_key_not_yet_provided_scrubs_nothing_from_an_error_message() -> None:
    async def provider() -> str:
        return KEY

    result = await _run_one(
        _refusing_client(provider), BatchRequest("r0", {"model": "gpt-4.1"}, "/v1/nowhere")
    )
    assert result.error is not None  # not mangled by "replacing" an empty key between every character
    assert result.error["message"] == f"ValueError: unsupported url '/v1/nowhere' {_UNSUPPORTED}"


async def test_the_runners_token_estimate_learns_from_the_prompt_tokens_the_server_billed() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        billed = {"prompt_tokens": 400, "completion_tokens": 1, "total_tokens": 401}  # far above the count
        return httpx2.Response(200, json=completion("ok", usage=billed))

    limiter = RecordingLimiter()
    client = AsyncClient(api_key=KEY, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))
    runner = BatchRunner(client, concurrency=1, limiter=limiter, sleep=_no_wait)
    body = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "the same short prompt"}]}
    await runner.run([BatchRequest(f"r{i}", body) for i in range(2)], lambda result: None)
    (_, first), (_, second) = limiter.admitted
    assert second > first  # the second admission charges what the first one was really billed (x4 at most)
    assert [feedback.total_tokens for _, feedback in limiter.observed] == [401, 401]


def test_an_undecodable_gzip_answer_is_a_decoding_failure_named_as_such() -> None:
    from raw_http import canned_server, http_answer

    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}

    async def go(url: str) -> BatchResult:
        async with AsyncClient(api_key=KEY, base_url=url, max_retries=0) as client:
            results: list[BatchResult] = []
            request = BatchRequest("r0", {"model": "text-embedding-3-small", "input": "x"}, "/v1/embeddings")
            await BatchRunner(client, max_retries=0, sleep=_no_wait).run([request], results.append)
            return results[0]

    with canned_server(http_answer("200 OK", headers, b"not gzip at all")) as url:
        result = anyio.run(go, url)
    assert result.error is not None and "Failed to decode gzip content" in result.error["message"]


async def test_an_answer_billing_no_tokens_is_fed_back_as_zero_not_as_one() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        nothing = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        return httpx2.Response(200, json=completion("ok", usage=nothing))

    limiter = RecordingLimiter()
    estimator = TokenEstimator(counter=lambda body, endpoint: 2)  # each prompt counted as 2 tokens
    client = AsyncClient(api_key=KEY, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))
    runner = BatchRunner(client, concurrency=1, limiter=limiter, token_estimator=estimator, sleep=_no_wait)
    body = {"model": "gpt-4.1", "messages": [{"role": "user", "content": ""}]}
    await runner.run([BatchRequest(f"r{i}", body) for i in range(2)], lambda result: None)
    assert [feedback.total_tokens for _, feedback in limiter.observed] == [0, 0]
    assert estimator.ratio == 0.25  # billed 0 of 4 counted: the lowest correction, not 2 of 4


GUARD = 20.0  # seconds: a timeout the direct path lost hangs until this guard, instead of the test run


@contextlib.contextmanager
def _full_backlog() -> Iterator[str]:
    """A listener whose accept queue is full: the kernel drops new SYNs, so connecting never completes."""
    with socket.socket() as listener, socket.socket() as queued:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        queued.connect(listener.getsockname())  # fills the queue; never accepted
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"


async def _direct(url: str, request: BatchRequest, timeout: httpx2.Timeout) -> BatchResult:
    """One request through a client that owns its (aiohttp) transport: the runner's direct path."""
    async with AsyncClient(api_key=KEY, base_url=url, max_retries=0) as client:
        results: list[BatchResult] = []
        with anyio.fail_after(GUARD):
            await BatchRunner(client, max_retries=0, timeout=timeout, sleep=_no_wait).run(
                [request], results.append
            )
        return results[0]


async def test_the_direct_path_bounds_connecting_by_the_connect_timeout() -> None:
    request = BatchRequest("r0", {"model": "text-embedding-3-small", "input": "x"}, "/v1/embeddings")
    with _full_backlog() as url:
        result = await _direct(url, request, httpx2.Timeout(GUARD * 2, connect=0.3))
    assert result.error is not None and result.error["code"] == "timeout"


async def test_the_direct_path_bounds_a_write_the_server_never_reads_by_the_write_timeout() -> None:
    from raw_http import deaf_server

    big = {"model": "text-embedding-3-small", "input": "x" * (4 << 20)}  # sent in slices: the write blocks
    with deaf_server() as url:
        result = await _direct(
            url, BatchRequest("r0", big, "/v1/embeddings"), httpx2.Timeout(GUARD * 2, write=0.3)
        )
    assert result.error is not None and result.error["code"] == "timeout"


async def test_a_usage_the_tracker_cannot_record_leaves_the_result_standing_and_is_logged(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json=completion("ok"))

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("tracker broke")

    client = AsyncClient(api_key=KEY, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))
    monkeypatch.setattr(client.usage, "settle", broken)
    monkeypatch.setattr(client.usage, "record", broken)
    monkeypatch.setattr(client.usage, "charge", broken)
    caplog.set_level(logging.DEBUG, logger="holyclient")
    body = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}]}
    result = await _run_one(client, BatchRequest("r7", body))
    assert result.ok and result.body is not None and result.body["choices"][0]["message"]["content"] == "ok"
    (record,) = [r for r in caplog.records if "usage not recorded" in r.getMessage()]
    assert record.getMessage() == "Batch request r7: usage not recorded"
    assert (
        record.levelno == logging.DEBUG and record.exc_info is not None and record.exc_info[0] is RuntimeError
    )


async def test_an_error_answer_keeps_its_request_id_and_the_requests_model() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        refusal = {"error": {"message": "bad request", "type": "invalid_request_error"}}
        return httpx2.Response(400, json=refusal, headers={"x-request-id": "req-400"})

    client = AsyncClient(api_key=KEY, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))
    body = {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}]}
    result = await _run_one(client, BatchRequest("r0", body))
    assert (result.status_code, result.request_id, result.model) == (400, "req-400", "gpt-4.1-mini")
    assert result.body == {"error": {"message": "bad request", "type": "invalid_request_error"}}


async def test_an_unreadable_2xx_is_an_invalid_response_kept_as_uncertain_spend() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        unreadable = {"choices": "not a list"}  # the work may be done and billed
        return httpx2.Response(200, json=unreadable, headers={"x-request-id": "req-200"})

    http = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    client = AsyncClient(api_key=KEY, http_client=http, budget_usd=1.0)
    body = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}]}
    result = await _run_one(client, BatchRequest("r0", body))
    assert result.error is not None and result.error["code"] == "invalid_response"
    assert isinstance(result.error["message"], str) and result.error["message"]
    assert (result.status_code, result.request_id, result.model) == (200, "req-200", "gpt-4.1")
    usage = client.usage.snapshot()
    assert usage.reserved_usd == 0 and usage.uncertain_requests == 1 and usage.uncertain_usd > 0


async def test_a_retried_error_that_echoes_the_key_is_logged_without_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    answers = [
        httpx2.Response(
            500, json={"error": {"message": f"upstream rejected key {KEY}", "type": "server_error"}}
        ),
        httpx2.Response(200, json=completion("ok")),
    ]

    def handler(request: httpx2.Request) -> httpx2.Response:
        return answers.pop(0)

    client = AsyncClient(api_key=KEY, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))
    caplog.set_level(logging.DEBUG, logger="holyclient")
    body = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}]}
    result = await _run_one(client, BatchRequest("r0", body))
    assert result.ok and result.attempts == 2
    (retrying,) = [r.getMessage() for r in caplog.records if "retrying" in r.getMessage()]
    assert "upstream rejected key" in retrying and KEY not in retrying


async def test_a_result_names_the_model_that_answered_not_the_alias_requested() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json=completion("ok", model="gpt-4.1-2025-04-14"))

    client = AsyncClient(api_key=KEY, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))
    body = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}]}
    result = await _run_one(client, BatchRequest("r0", body))
    assert result.ok and result.model == "gpt-4.1-2025-04-14"


_EMBEDDING = {"object": "list", "data": [{"index": 0, "embedding": [0.5]}], "usage": {"prompt_tokens": 2}}


def _direct_heads(body: dict[str, Any]) -> tuple[BatchResult, list[bytes]]:
    """One embeddings request on the direct path to a canned 200; the request heads the server read."""
    from raw_http import canned_server, http_answer

    heads: list[bytes] = []
    answer = http_answer("200 OK", {"Content-Type": "application/json"}, json.dumps(_EMBEDDING).encode())

    async def go(url: str) -> BatchResult:
        async with AsyncClient(api_key=KEY, base_url=url, max_retries=0) as client:
            return await _run_one(client, BatchRequest("r0", body, "/v1/embeddings"))

    with canned_server(answer, heads) as url:
        return anyio.run(go, url), heads


def test_the_direct_path_sends_compact_utf8_json_as_httpx2_does() -> None:
    body = {"model": "text-embedding-3-small", "input": "héllo wörld ✓"}
    result, heads = _direct_heads(body)
    assert result.ok
    compact = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    (head,) = heads
    assert head.startswith(b"POST /v1/embeddings HTTP/1.1\r\n")
    assert f"content-length: {len(compact)}\r\n".encode() in head.lower()


def test_a_body_with_nan_fails_on_the_direct_path_without_being_sent() -> None:
    result, heads = _direct_heads(
        {"model": "text-embedding-3-small", "input": "x", "dimensions": float("nan")}
    )
    assert heads == []
    assert result.error is not None and result.error["code"] == "request_failed"
    assert "JSON compliant" in result.error["message"]


def test_a_callers_own_http_client_sees_every_batch_request_through_its_hooks() -> None:
    from holyclient import DefaultAioHttpClient
    from raw_http import canned_server, http_answer

    seen: list[str] = []

    async def hook(request: httpx2.Request) -> None:
        seen.append(str(request.url))

    answer = http_answer("200 OK", {"Content-Type": "application/json"}, json.dumps(_EMBEDDING).encode())

    async def go(url: str) -> BatchResult:
        http = DefaultAioHttpClient(event_hooks={"request": [hook]})
        async with AsyncClient(api_key=KEY, base_url=url, http_client=http, max_retries=0) as client:
            return await _run_one(client, BatchRequest("r0", {"model": "m", "input": "x"}, "/v1/embeddings"))

    with canned_server(answer) as url:
        result = anyio.run(go, url)
    assert result.ok and len(seen) == 1 and seen[0].endswith("/v1/embeddings")


@pytest.mark.parametrize(
    "answered", [{}, {"model": ""}, {"model": 7}], ids=["missing", "empty", "not-a-name"]
)
async def test_a_result_without_an_answering_model_names_the_requested_one(answered: dict[str, Any]) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        body = completion("ok")
        del body["model"]
        return httpx2.Response(200, json={**body, **answered})

    client = AsyncClient(api_key=KEY, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))
    body = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}]}
    result = await _run_one(client, BatchRequest("r0", body))
    assert result.ok and result.model == "gpt-4.1"
