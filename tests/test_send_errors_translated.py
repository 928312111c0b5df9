"""Anything raised while sending becomes an APIConnectionError with the key redacted, and is retried.

The faults come from a raw socket server through the default transports (httpx2 for ``Client``,
aiohttp under httpx2 for ``AsyncClient``): a 200 whose ``Content-Encoding: gzip`` body is not gzip
(httpx's ``DecodingError``) and a 307 to itself (``TooManyRedirects``). Neither is a ``TransportError``.
"""

from __future__ import annotations

import logging

import httpx
import httpx2
import pytest

from holyclient import APIConnectionError, APITimeoutError, AsyncClient, Client
from holyclient._exceptions import error_text
from holyclient._http._transport import translate_error
from raw_http import canned_server, http_answer
from redaction import assert_key_nowhere
from support import KEY

USER = [{"role": "user", "content": "hi"}]
NOT_GZIP = http_answer("200 OK", {"Content-Type": "application/json", "Content-Encoding": "gzip"}, b"{}")
LOOP = http_answer("307 Temporary Redirect", {"Location": "/v1/chat/completions"})
FAULTS = pytest.mark.parametrize(
    ("answer", "library_error"),
    [(NOT_GZIP, "DecodingError"), (LOOP, "TooManyRedirects")],
    ids=["gzip", "loop"],
)


@FAULTS
def test_a_sync_send_error_is_a_redacted_connection_error_and_retried(
    answer: bytes, library_error: str, caplog: pytest.LogCaptureFixture
) -> None:
    sleeps: list[float] = []
    caplog.set_level(logging.DEBUG)
    with (
        canned_server(answer) as url,
        Client(api_key=KEY, base_url=url, max_retries=1, sleep=sleeps.append) as c,
        pytest.raises(APIConnectionError) as caught,
    ):
        c.chat.completions.create(model="gpt-4.1", messages=USER)

    assert type(caught.value) is APIConnectionError
    assert str(caught.value) == "Connection error."  # openai's text; the library's words are a note
    assert library_error in error_text(caught.value)
    assert caught.value.attempts == 2 and len(sleeps) == 1
    assert "authorization" not in caught.value.request.headers
    assert_key_nowhere(caught.value, KEY, caplog.text)


@FAULTS
async def test_an_async_send_error_is_a_redacted_connection_error_and_retried(
    answer: bytes, library_error: str, caplog: pytest.LogCaptureFixture
) -> None:
    sleeps: list[float] = []

    async def record(seconds: float) -> None:
        sleeps.append(seconds)

    caplog.set_level(logging.DEBUG)
    with canned_server(answer) as url:
        async with AsyncClient(api_key=KEY, base_url=url, max_retries=1, sleep=record) as client:
            with pytest.raises(APIConnectionError) as caught:
                await client.chat.completions.create(model="gpt-4.1", messages=USER)

    assert type(caught.value) is APIConnectionError
    assert str(caught.value) == "Connection error."  # openai's text; the library's words are a note
    assert library_error in error_text(caught.value)
    assert caught.value.attempts == 2 and len(sleeps) == 1
    assert_key_nowhere(caught.value, KEY, caplog.text)


@FAULTS
def test_a_streamed_send_error_is_a_redacted_connection_error(answer: bytes, library_error: str) -> None:
    with (
        canned_server(answer) as url,
        Client(api_key=KEY, base_url=url, max_retries=0) as client,
        pytest.raises(APIConnectionError) as caught,
    ):
        list(client.chat.completions.create(model="gpt-4.1", messages=USER, stream=True))

    assert str(caught.value) == "Connection error."  # openai's text; the library's words are a note
    assert library_error in error_text(caught.value)
    assert_key_nowhere(caught.value, KEY)


class _Surprise(Exception):
    """An error no HTTP library defines: what a future release, a proxy or a hook might raise."""


@pytest.mark.parametrize(
    "raised",
    [
        _Surprise(f"header was Bearer {KEY}"),
        RuntimeError("Session is closed"),
        httpx2.DecodingError("bad gzip"),
        httpx.TooManyRedirects("loop"),
        httpx2.ConnectError("refused"),
    ],
    ids=lambda exc: type(exc).__name__,
)
def test_whatever_the_transport_raises_is_translated_and_redacted(raised: Exception) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise raised

    http = httpx2.Client(transport=httpx2.MockTransport(handler))
    client = Client(api_key=KEY, http_client=http, max_retries=0)
    with pytest.raises(APIConnectionError) as caught:
        client.models.list()

    assert type(caught.value) is APIConnectionError
    assert caught.value.__cause__ is None and caught.value.__context__ is None
    assert_key_nowhere(caught.value, KEY)


@pytest.mark.parametrize("raised", [TimeoutError("slow"), httpx2.PoolTimeout("full"), httpx.ReadTimeout("x")])
def test_every_timeout_is_a_timeout_error(raised: Exception) -> None:
    request = httpx2.Request("GET", "https://x.test/", headers={"Authorization": f"Bearer {KEY}"})
    error = translate_error(raised, request)
    assert isinstance(error, APITimeoutError)
    assert_key_nowhere(error, KEY)


def test_cancellation_and_our_own_errors_pass_through_untouched() -> None:
    import asyncio

    ours = APIConnectionError("already ours")
    cancelled = asyncio.CancelledError()
    assert translate_error(ours, None) is ours
    assert translate_error(cancelled, None) is cancelled
    assert translate_error(KeyboardInterrupt(), None).__class__ is KeyboardInterrupt


@FAULTS
async def test_a_batch_records_a_send_error_as_a_result_and_goes_on(
    answer: bytes, library_error: str
) -> None:
    import anyio

    from holyclient.batch import BatchRequest, BatchResult, BatchRunner

    async def no_wait(seconds: float) -> None:
        await anyio.lowlevel.checkpoint()

    requests = [
        BatchRequest(f"r{i}", {"model": "gpt-4.1", "messages": [{"role": "user", "content": f"p{i}"}]})
        for i in range(3)
    ]
    results: list[BatchResult] = []
    with canned_server(answer) as url:
        async with AsyncClient(api_key=KEY, base_url=url) as client:
            runner = BatchRunner(client, concurrency=2, max_retries=1, sleep=no_wait)
            await runner.run(requests, results.append)

    assert sorted(r.custom_id for r in results) == ["r0", "r1", "r2"]
    for result in results:
        line = result.output_line()
        assert line["error"] is not None and library_error in str(line["error"])
        assert KEY not in str(line)
