"""The key appears nowhere in any error, on every error path, sync and async, nor in the log.

Checked everywhere an error exposes text: ``str``/``repr``, its ``request``, ``response.request`` (and
the requests of redirects in ``response.history``), the whole ``__cause__``/``__context__`` chain, and
everything logged at DEBUG while the request ran.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

import httpx2
import pytest

from holyclient import (
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    APITimeoutError,
    AsyncClient,
    AuthenticationError,
    BadRequestError,
    Client,
    InternalServerError,
    RateLimitError,
)
from raw_http import deaf_server
from redaction import assert_key_nowhere
from support import KEY, chunk, sse

USER = [{"role": "user", "content": "hi"}]
SSE = {"content-type": "text/event-stream"}
Handler = Callable[[httpx2.Request], httpx2.Response]


def _raise(error: type[Exception]) -> Handler:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise error(f"failed sending {request.headers['authorization']}", request=request)  # type: ignore[call-arg]

    return handler


def _answer(status: int, **kwargs: object) -> Handler:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(status, request=request, **kwargs)  # type: ignore[arg-type]

    return handler


def _echo(status: int, shape: Callable[[str], object], headers: dict[str, str] | None = None) -> Handler:
    """A server that quotes the key it was sent back in its answer (``shape(bare key)``)."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        echoed = shape(request.headers["authorization"].removeprefix("Bearer "))
        if isinstance(echoed, bytes):
            return httpx2.Response(status, request=request, headers=headers, content=echoed)
        if isinstance(echoed, str):
            return httpx2.Response(status, request=request, headers=headers, text=echoed)
        return httpx2.Response(status, request=request, headers=headers, json=echoed)

    return handler


def _redirect_then(status: int) -> Handler:
    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.path.endswith("/moved"):
            return httpx2.Response(status, json={"error": {"message": "after a redirect"}})
        return httpx2.Response(307, headers={"location": str(request.url) + "/moved"})

    return handler


# (handler, stream, expected error class)
PATHS: dict[str, tuple[Handler, bool, type[APIError]]] = {
    "status": (_answer(400, json={"error": {"message": "bad"}}), False, BadRequestError),
    "status-retried": (_answer(503, json={"error": {"message": "busy"}}), False, InternalServerError),
    "status-after-redirect": (_redirect_then(500), False, InternalServerError),
    "stream-status": (_answer(429, json={"error": {"message": "slow"}}), True, RateLimitError),
    "timeout": (_raise(httpx2.ReadTimeout), False, APITimeoutError),
    "connection": (_raise(httpx2.ConnectError), False, APIConnectionError),
    "decode": (_raise(httpx2.DecodingError), False, APIConnectionError),
    "invalid-json": (_answer(200, content=b"{not json"), False, APIResponseValidationError),
    "wrong-shape": (
        _answer(200, json={"unexpected": True, "choices": "no"}),
        False,
        APIResponseValidationError,
    ),
    "mid-stream-event": (
        _answer(
            200, headers=SSE, content=sse(chunk("a"), {"error": {"type": "server_error", "message": "x"}})
        ),
        True,
        InternalServerError,
    ),
    "mid-stream-decode": (
        _answer(200, headers={**SSE, "content-encoding": "gzip"}, content=b"not gzip at all"),
        True,
        APIConnectionError,
    ),
    "status-echoing-the-key": (
        _echo(401, lambda key: {"error": {"message": f"Incorrect API key provided: {key}", "param": key}}),
        False,
        AuthenticationError,
    ),
    "text-status-echoing-the-key": (_echo(400, lambda key: f"bad key {key}"), False, BadRequestError),
    "wrong-shape-echoing-the-key": (
        _echo(200, lambda key: {"choices": [1], "object": {"key": key}, "id": 3}),
        False,
        APIResponseValidationError,
    ),
    "stream-event-echoing-the-key": (
        _echo(200, lambda key: sse({"error": {"type": "invalid_api_key", "message": key}}), SSE),
        True,
        AuthenticationError,
    ),
    "stream-wrong-shape": (
        _answer(200, headers=SSE, content=sse({"choices": 3})),
        True,
        APIResponseValidationError,
    ),
}
CASES = pytest.mark.parametrize(("handler", "stream", "cls"), PATHS.values(), ids=PATHS.keys())


@pytest.fixture
def debug_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG)
    return caplog


@CASES
def test_no_sync_error_carries_the_key(handler, stream, cls, debug_log) -> None:
    http = httpx2.Client(transport=httpx2.MockTransport(handler), follow_redirects=True)
    client = Client(api_key=KEY, http_client=http, max_retries=1, sleep=lambda _: None)
    with pytest.raises(cls) as caught:
        result = client.chat.completions.create(model="gpt-4.1", messages=USER, stream=stream)
        if stream:
            list(result)  # type: ignore[arg-type]
    http.close()
    assert_key_nowhere(caught.value, KEY, debug_log.text)


@CASES
async def test_no_async_error_carries_the_key(handler, stream, cls, debug_log) -> None:
    async def no_wait(_: float) -> None:
        return None

    http = httpx2.AsyncClient(transport=httpx2.MockTransport(handler), follow_redirects=True)
    client = AsyncClient(api_key=KEY, http_client=http, max_retries=1, sleep=no_wait)
    with pytest.raises(cls) as caught:
        result = await client.chat.completions.create(model="gpt-4.1", messages=USER, stream=stream)
        if stream:
            [item async for item in result]  # type: ignore[union-attr]
    await http.aclose()
    assert_key_nowhere(caught.value, KEY, debug_log.text)


def test_a_real_sync_timeout_carries_no_key(debug_log) -> None:
    big = "x" * (4 << 20)  # the server never reads: the write (or the read after it) times out
    with (
        deaf_server() as url,
        Client(api_key=KEY, base_url=url, timeout=0.3, max_retries=0) as client,
        pytest.raises(APITimeoutError) as caught,
    ):
        client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": big}])
    assert_key_nowhere(caught.value, KEY, debug_log.text)


async def test_a_real_async_timeout_carries_no_key(debug_log) -> None:
    with deaf_server() as url:
        async with AsyncClient(api_key=KEY, base_url=url, timeout=0.3, max_retries=0) as client:
            with pytest.raises(APITimeoutError) as caught:
                await client.models.list()
    assert_key_nowhere(caught.value, KEY, debug_log.text)


def test_the_checker_finds_a_key_hidden_in_the_chain() -> None:
    request = httpx2.Request("GET", "https://x.test/", headers={"Authorization": f"Bearer {KEY}"})
    inner = httpx2.ConnectError("down", request=request)
    outer = APIConnectionError("wrapped")
    outer.__context__ = inner
    with pytest.raises(AssertionError):
        assert_key_nowhere(outer, KEY)
    with pytest.raises(AssertionError):
        assert_key_nowhere(APIConnectionError("x"), KEY, json.dumps({"auth": KEY}))


def test_the_key_safety_rule_is_written_once() -> None:
    """Every place that catches what the HTTP library raised goes through ``sent``/``asent``, a stream's
    ``_Ending``, the as-is sender of ``as_openai()``'s requests (which must put the request's own
    ``Authorization`` back in the same ``try``) or the async client's direct wire (which sends and reads
    in its own ``try``, one coroutine less per request than a closure awaited by ``asent``): the translation that drops the library's exception, whose
    request holds the key, is not copied by hand anywhere else (five hand-written copies once drifted
    apart)."""
    import ast
    from pathlib import Path

    import holyclient

    package = Path(holyclient.__file__).parent
    callers = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == (
                "clean_failure"
            ):
                callers.add(str(path.relative_to(package)))
    assert callers == {
        "_send/_steps.py",
        "_send/_stream_ending.py",
        "_send/_sent_as_is.py",
        "_send/_direct.py",
    }
