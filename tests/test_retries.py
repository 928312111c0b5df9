from __future__ import annotations

import email.utils
import logging
import time

import httpx2
import pytest

from holyclient import (
    APIConnectionError,
    APIResponseValidationError,
    APITimeoutError,
    BadRequestError,
    InternalServerError,
    RateLimitError,
)
from holyclient._core._retry import RetryPolicy, retry_after_seconds
from support import Recorder, completion

MESSAGES = [{"role": "user", "content": "x"}]


def ok() -> httpx2.Response:
    return httpx2.Response(200, json=completion())


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504])
def test_transient_statuses_are_retried_then_succeed(make_client, sleeps, status):
    rec = Recorder(httpx2.Response(status, json={"error": {"message": "busy"}}), ok())
    client = make_client(rec)
    assert client.chat.completions.create(model="m", messages=MESSAGES).id == "chatcmpl-1"
    assert len(rec.requests) == 2
    assert len(sleeps) == 1


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_never_retried(make_client, sleeps, status):
    rec = Recorder(httpx2.Response(status, json={"error": {"message": "no"}}), ok())
    client = make_client(rec)
    with pytest.raises(Exception) as info:
        client.chat.completions.create(model="m", messages=MESSAGES)
    assert info.value.status_code == status  # type: ignore[attr-defined]
    assert len(rec.requests) == 1 and sleeps == []


def test_backoff_is_exponential_with_jitter_and_capped(make_client, sleeps):
    rec = Recorder(httpx2.Response(500, json={}))
    client = make_client(rec, max_retries=6)
    with pytest.raises(InternalServerError) as info:
        client.chat.completions.create(model="m", messages=MESSAGES)
    assert info.value.attempts == 7 and len(rec.requests) == 7
    expected = [0.5, 1, 2, 4, 8, 8]
    for slept, nominal in zip(sleeps, expected, strict=True):
        assert nominal * 0.75 <= slept <= nominal


def test_retry_after_seconds_ms_and_http_date_are_honoured(make_client, sleeps):
    date = email.utils.formatdate(time.time() + 30, usegmt=True)
    rec = Recorder(
        httpx2.Response(429, headers={"retry-after": "3"}, json={}),
        httpx2.Response(429, headers={"retry-after-ms": "250"}, json={}),
        httpx2.Response(503, headers={"retry-after": date}, json={}),
        ok(),
    )
    client = make_client(rec, max_retries=3)
    client.chat.completions.create(model="m", messages=MESSAGES)
    assert sleeps[0] == 3.0 and sleeps[1] == 0.25
    assert 27 <= sleeps[2] <= 30


def test_retry_after_longer_than_the_cap_raises_at_once_with_the_wait(make_client, sleeps):
    rec = Recorder(
        httpx2.Response(429, headers={"retry-after": "3600"}, json={"error": {"message": "later"}})
    )
    client = make_client(rec)
    with pytest.raises(RateLimitError) as info:
        client.chat.completions.create(model="m", messages=MESSAGES)
    assert info.value.retry_after == 3600 and info.value.attempts == 1
    assert sleeps == []
    client2 = make_client(rec, max_retry_after=7200)
    with pytest.raises(RateLimitError):
        client2.chat.completions.create(model="m", messages=MESSAGES, max_retries=1)
    assert sleeps == [3600]


def test_insufficient_quota_is_not_retried(make_client, sleeps):
    body = {
        "error": {
            "message": "You exceeded your current quota",
            "type": "insufficient_quota",
            "code": "insufficient_quota",
        }
    }
    rec = Recorder(httpx2.Response(429, json=body), ok())
    client = make_client(rec)
    with pytest.raises(RateLimitError) as info:
        client.chat.completions.create(model="m", messages=MESSAGES)
    assert info.value.code == "insufficient_quota"
    assert len(rec.requests) == 1 and sleeps == []


def test_x_should_retry_header_overrides_the_status_rule(make_client, sleeps):
    rec = Recorder(httpx2.Response(400, headers={"x-should-retry": "true"}, json={}), ok())
    assert make_client(rec).chat.completions.create(model="m", messages=MESSAGES)
    rec = Recorder(httpx2.Response(503, headers={"x-should-retry": "false"}, json={}), ok())
    with pytest.raises(InternalServerError):
        make_client(rec).chat.completions.create(model="m", messages=MESSAGES)
    assert len(rec.requests) == 1


def test_connection_errors_and_timeouts_are_retried(make_client, sleeps):
    calls = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        calls.append(1)
        if len(calls) == 1:
            raise httpx2.ConnectError("refused", request=request)
        if len(calls) == 2:
            raise httpx2.ReadTimeout("slow", request=request)
        return ok()

    assert make_client(handler).chat.completions.create(model="m", messages=MESSAGES)
    assert len(calls) == 3


def test_connection_error_after_all_retries_carries_attempts(make_client):
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ReadTimeout("slow", request=request)

    with pytest.raises(APITimeoutError) as info:
        make_client(handler).chat.completions.create(model="m", messages=MESSAGES)
    assert isinstance(info.value, APIConnectionError)
    assert info.value.attempts == 3


def test_a_200_with_invalid_json_is_retried_but_a_wrong_shape_is_not(make_client, sleeps):
    rec = Recorder(httpx2.Response(200, content=b'{"id": "chatcmpl-1", "choi'), ok())
    assert make_client(rec).chat.completions.create(model="m", messages=MESSAGES)
    assert len(rec.requests) == 2
    rec = Recorder(httpx2.Response(200, json={"unexpected": True}), ok())
    with pytest.raises(APIResponseValidationError):
        make_client(rec).chat.completions.create(model="m", messages=MESSAGES)
    assert len(rec.requests) == 1


def test_max_retries_per_client_and_per_call(make_client):
    rec = Recorder(httpx2.Response(500, json={}))
    client = make_client(rec, max_retries=0)
    with pytest.raises(InternalServerError):
        client.chat.completions.create(model="m", messages=MESSAGES)
    assert len(rec.requests) == 1
    with pytest.raises(InternalServerError):
        client.chat.completions.create(model="m", messages=MESSAGES, max_retries=4)
    assert len(rec.requests) == 6


def test_each_retry_is_logged_at_debug_without_the_key(make_client, caplog):
    rec = Recorder(httpx2.Response(502, json={}), ok())
    with caplog.at_level(logging.DEBUG, logger="holyclient"):
        make_client(rec).chat.completions.create(model="m", messages=MESSAGES)
    records = [r for r in caplog.records if r.name == "holyclient"]
    assert len(records) == 1 and records[0].levelno == logging.DEBUG
    assert "Retrying" in records[0].getMessage()
    assert "sk-holy" not in caplog.text


async def test_async_client_follows_the_same_policy(make_async_client, sleeps):
    rec = Recorder(
        httpx2.Response(429, headers={"retry-after": "2"}, json={}), httpx2.Response(500, json={}), ok()
    )
    async with make_async_client(rec) as client:
        await client.chat.completions.create(model="m", messages=MESSAGES)
    assert sleeps[0] == 2.0 and 0.75 <= sleeps[1] <= 1.0
    rec = Recorder(httpx2.Response(400, json={}))
    async with make_async_client(rec) as client:
        with pytest.raises(BadRequestError):
            await client.chat.completions.create(model="m", messages=MESSAGES)


def test_retry_after_parsing_forms():
    assert retry_after_seconds({"retry-after": "1.5"}) == 1.5
    assert retry_after_seconds({"retry-after-ms": "10", "retry-after": "5"}) == 0.01
    assert retry_after_seconds({"retry-after": "garbage"}) is None
    assert retry_after_seconds({}) is None
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, now=1445412470.0) == 10.0


def test_policy_never_retries_unrelated_exceptions():
    assert not RetryPolicy().should_retry(ValueError("x"))
