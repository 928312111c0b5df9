"""The async client sends on aiohttp directly (issue 43): what httpx2 did on the way -- cookies, decoding,
raw responses, status errors carrying httpx2's response -- still happens, and httpx2 is not called for a
plain request."""

from __future__ import annotations

import gzip
import json
import sys
from typing import Any

import httpx2
import pytest

from holyclient import AsyncClient, BadRequestError
from holyclient.testing import Fault, LocalServer
from raw_http import canned_server, http_answer

KEY = "sk-holy-direct-wire-0123456789"
USER = [{"role": "user", "content": "hello"}]
_MODELS = json.dumps({"object": "list", "data": []}).encode()


async def test_a_plain_async_request_calls_nothing_of_httpx2() -> None:
    calls: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_globals.get("__name__", "").startswith("httpx2"):
            calls.append(frame.f_code.co_name)

    with LocalServer() as server:
        async with AsyncClient(api_key=KEY, base_url=server.base_url) as client:
            await client.chat.completions.create(model="gpt-4.1", messages=USER)  # first use: imports
            sys.setprofile(profile)
            try:
                completion = await client.chat.completions.create(model="gpt-4.1", messages=USER)
            finally:
                sys.setprofile(None)
    assert completion.choices[0].message.content == "Echo: hello"
    assert completion._request_id is not None
    assert calls == []


async def test_a_cookie_the_server_sets_is_sent_with_the_next_request() -> None:
    heads: list[bytes] = []
    answer = http_answer(
        "200 OK", {"Content-Type": "application/json", "Set-Cookie": "lb=7; Path=/"}, _MODELS
    )
    with canned_server(answer, heads) as url:
        async with AsyncClient(api_key=KEY, base_url=url + "/v1", max_retries=0) as client:
            await client.models.list()
            await client.models.list()
    assert b"cookie:" not in heads[0].lower()
    assert b"cookie: lb=7" in heads[1].lower()  # a relay's sticky session holds, as through httpx2


async def test_a_gzipped_error_answer_is_a_status_error_with_httpx2s_response_decoded() -> None:
    body = json.dumps({"error": {"message": "bad model", "type": "invalid_request_error"}}).encode()
    answer = http_answer(
        "400 Bad Request",
        {"Content-Type": "application/json", "Content-Encoding": "gzip"},
        gzip.compress(body),
    )
    with canned_server(answer) as url:
        async with AsyncClient(api_key=KEY, base_url=url + "/v1", max_retries=0) as client:
            with pytest.raises(BadRequestError) as caught:
                await client.chat.completions.create(model="gpt-4.1", messages=USER)
    response = caught.value.response
    assert isinstance(response, httpx2.Response) and response.json() == json.loads(body)
    assert response.headers["content-encoding"] == "gzip"
    assert KEY not in str(response.request.headers)


async def test_a_raw_response_is_httpx2s_response_to_the_request_sent() -> None:
    with LocalServer() as server:
        async with AsyncClient(api_key=KEY, base_url=server.base_url) as client:
            raw = await client.with_raw_response.chat.completions.create(model="gpt-4.1", messages=USER)
    assert isinstance(raw.http_response, httpx2.Response) and raw.status_code == 200
    assert raw.http_request.method == "POST" and raw.parse().choices[0].message.content == "Echo: hello"


async def test_a_successful_call_reaches_aiohttp_through_five_holyclient_frames_and_no_retry_machinery(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """resource method, caller, pipeline, direct wire, aiohttp wire step: nothing else between
    the caller and aiohttp (the retry loop ran four more coroutines deep); the retry machinery is
    entered only by a failed first attempt."""
    from holyclient._core._retry import RetryPolicy

    depths: set[tuple[str, ...]] = set()  # each entry (and resumption) of aiohttp's request
    retried: list[BaseException] = []
    aretry = getattr(RetryPolicy, "aretry", None)

    async def spy(self: RetryPolicy, first: Exception, *args: Any) -> Any:
        retried.append(first)
        assert aretry is not None
        return await aretry(self, first, *args)

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_name == "_request" and "aiohttp" in frame.f_code.co_filename:
            names, outer = [], frame.f_back
            while outer is not None:
                if outer.f_globals.get("__name__", "").startswith("holyclient"):
                    names.append(outer.f_code.co_name)
                outer = outer.f_back
            depths.add(tuple(names))

    monkeypatch.setattr(RetryPolicy, "aretry", spy, raising=False)
    with LocalServer() as server:
        async with AsyncClient(api_key=KEY, base_url=server.base_url, max_retries=1) as client:
            await client.chat.completions.create(model="gpt-4.1", messages=USER)  # first use: imports
            sys.setprofile(profile)
            try:
                await client.chat.completions.create(model="gpt-4.1", messages=USER)
            finally:
                sys.setprofile(None)
            assert retried == []
            server.enqueue(Fault.status(503))
            completion = await client.chat.completions.create(model="gpt-4.1", messages=USER)
    assert depths == {("send", "send", "asend", "request", "create")}
    assert completion.choices[0].message.content == "Echo: hello" and len(retried) == 1
