"""``client.get/post/put/patch/delete/request`` (openai's escape hatch), sync and async, on a MockTransport.

What reaches the wire is what openai's ``_base_client`` sends for the same call: the verb, the path
under ``base_url``, ``params`` as the query, ``headers`` and ``idempotency_key`` as headers,
``body`` + ``extra_json`` as JSON (never on a GET), ``content`` as the raw body, ``files`` as multipart;
``timeout`` and ``max_retries`` apply to that call; ``cast_to`` and ``stream``/``stream_cls`` decide the
result. Each test runs on ``Client`` and ``AsyncClient``.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

import holyclient
from differential.mock_pair import sdk_client
from holyclient import Stream
from holyclient._core import NOT_GIVEN, HttpxBinaryResponseContent, RequestOptions
from holyclient._send._custom_requests import custom_options
from holyclient.types import ChatCompletion, ChatCompletionChunk, Model

BASE = "https://api.example.test/v1"
MODEL = {"id": "gpt-4o-mini", "object": "model", "created": 1, "owned_by": "openai"}
Handler = Callable[[httpx2.Request], httpx2.Response]


@pytest.fixture(params=["sync", "async"])
def make(request: pytest.FixtureRequest, make_client: Any, make_async_client: Any) -> Callable[..., Any]:
    """A Client or an AsyncClient on ``handler`` (the test runs once with each)."""
    factory = make_client if request.param == "sync" else make_async_client

    def build(handler: Handler, **kwargs: Any) -> Any:
        kwargs.setdefault("base_url", BASE)
        return factory(handler, **kwargs)

    return build


async def call(client: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    result = getattr(client, name)(*args, **kwargs)
    return await result if inspect.isawaitable(result) else result


def recording(sent: list[httpx2.Request], response: httpx2.Response | None = None) -> Handler:
    def handler(request: httpx2.Request) -> httpx2.Response:
        request.read()
        sent.append(request)
        return response if response is not None else httpx2.Response(200, json=MODEL)

    return handler


def _json(request: httpx2.Request) -> Any:
    return json.loads(request.content) if request.content else None


# --- what each method sends --------------------------------------------------------------------------


@pytest.mark.parametrize("verb", ["get", "post", "put", "patch", "delete"])
async def test_each_method_sends_its_verb_path_query_headers_and_idempotency_key(
    verb: str, make: Any
) -> None:
    sent: list[httpx2.Request] = []
    client = make(recording(sent))
    options = {"params": {"expand": "all"}, "headers": {"X-Custom": "yes"}, "idempotency_key": "idem-7"}

    result = await call(client, verb, "custom/things/1", cast_to=object, options=options)

    (request,) = sent
    assert result == MODEL
    assert request.method == verb.upper()
    assert request.url.path == "/v1/custom/things/1"  # a path without "/" is still under base_url
    assert dict(request.url.params) == {"expand": "all"}
    assert request.headers["X-Custom"] == "yes"
    assert request.headers.get_list("Idempotency-Key") == ["idem-7"]


@pytest.mark.parametrize("verb", ["post", "put", "patch", "delete"])
async def test_a_body_is_sent_as_json_with_extra_json_merged_over_it(verb: str, make: Any) -> None:
    sent: list[httpx2.Request] = []
    client = make(recording(sent))

    await call(
        client, verb, "/things", cast_to=object, body={"a": 1, "b": 1}, options={"extra_json": {"b": 2}}
    )
    await call(client, verb, "/things", cast_to=object, options={"extra_json": {"only": True}})

    assert [_json(request) for request in sent] == [{"a": 1, "b": 2}, {"only": True}]
    assert sent[0].headers["Content-Type"] == "application/json"


@pytest.mark.parametrize("verb", ["post", "put", "patch", "delete"])
async def test_raw_content_is_sent_as_the_body_unchanged(verb: str, make: Any) -> None:
    sent: list[httpx2.Request] = []
    client = make(recording(sent))

    await call(client, verb, "/things", cast_to=object, content=b"\x00raw bytes")

    assert sent[0].content == b"\x00raw bytes"


async def test_a_get_sends_no_body_and_no_generated_idempotency_key_even_with_extra_json(make: Any) -> None:
    """openai's ``_build_request`` sends no JSON on a GET; a GET is safe to retry, so it gets no key."""
    sent: list[httpx2.Request] = []
    client = make(recording(sent))

    await call(client, "get", "/things", cast_to=object, options={"extra_json": {"a": 1}})
    await call(client, "request", object, {"method": "get", "url": "/things", "content": b"ignored"})
    await call(client, "request", object, {"method": "get", "url": "/things", "json_data": {"a": 1}})

    assert [request.content for request in sent] == [b"", b"", b""]
    assert [str(request.url) for request in sent] == [BASE + "/things"] * 3
    assert all("Idempotency-Key" not in request.headers for request in sent)
    assert all(request.method == "GET" for request in sent)


async def test_a_post_without_an_idempotency_key_gets_a_generated_one(make: Any) -> None:
    sent: list[httpx2.Request] = []
    client = make(recording(sent))

    await call(client, "post", "/things", cast_to=object, body={})

    assert sent[0].headers["Idempotency-Key"].startswith("holyclient-retry-")


@pytest.mark.parametrize("verb", ["post", "put", "patch"])
async def test_files_are_sent_as_multipart_with_the_body_as_form_fields(verb: str, make: Any) -> None:
    sent: list[httpx2.Request] = []
    client = make(recording(sent))

    await call(
        client,
        verb,
        "/uploads",
        cast_to=object,
        body={"purpose": "batch"},
        files={"file": ("notes.txt", b"file bytes")},
        options={"extra_json": {"extra": "field"}},
    )

    (request,) = sent
    assert request.headers["Content-Type"].startswith("multipart/form-data; boundary=")
    body = request.content
    assert b'name="purpose"\r\n\r\nbatch\r\n' in body
    assert b'name="extra"\r\n\r\nfield\r\n' in body
    assert b'name="file"; filename="notes.txt"' in body and b"file bytes" in body


async def test_a_content_type_header_given_with_files_replaces_the_multipart_one(make: Any) -> None:
    sent: list[httpx2.Request] = []
    client = make(recording(sent))

    await call(
        client,
        "post",
        "/uploads",
        cast_to=object,
        files={"file": b"x"},
        options={"headers": {"Content-Type": "multipart/form-data; boundary=mine"}},
    )

    assert sent[0].headers.get_list("Content-Type") == ["multipart/form-data; boundary=mine"]


async def test_a_bad_upload_is_refused_naming_its_field(make: Any) -> None:
    client = make(recording([]))

    with pytest.raises(TypeError, match=r"^`mask` must be bytes, a pathlib.Path"):
        await call(client, "post", "/images/edits", cast_to=object, files={"mask": 42})


# --- timeout and max_retries -------------------------------------------------------------------------


async def test_a_timeout_option_reaches_the_request_and_the_clients_applies_without_it(make: Any) -> None:
    sent: list[httpx2.Request] = []
    client = make(recording(sent), timeout=7.0)

    await call(client, "get", "/things", cast_to=object, options={"timeout": 2.5})
    await call(client, "get", "/things", cast_to=object)

    assert sent[0].extensions["timeout"]["read"] == 2.5
    assert sent[1].extensions["timeout"]["read"] == 7.0


async def test_max_retries_option_bounds_the_attempts_of_that_call(make: Any, sleeps: list[float]) -> None:
    sent: list[httpx2.Request] = []
    client = make(recording(sent, httpx2.Response(500, json={"error": {"message": "boom"}})), max_retries=3)

    with pytest.raises(holyclient.InternalServerError):
        await call(client, "post", "/things", cast_to=object, body={}, options={"max_retries": 1})
    retried = len(sent)
    with pytest.raises(holyclient.InternalServerError):
        await call(client, "get", "/things", cast_to=object)

    assert (retried, len(sent) - retried) == (2, 4)


# --- cast_to -----------------------------------------------------------------------------------------


async def test_cast_to_decides_the_result(make: Any) -> None:
    client = make(recording([]))

    model = await call(client, "get", "/models/gpt-4o-mini", cast_to=Model)
    text = await call(client, "get", "/models/gpt-4o-mini", cast_to=str)
    raw = await call(client, "get", "/models/gpt-4o-mini", cast_to=bytes)
    decoded = await call(client, "post", "/models", cast_to=object, body={})
    binary = await call(client, "put", "/models", cast_to=HttpxBinaryResponseContent, body={})
    via_request = await call(
        client, "request", Model, {"method": "patch", "url": "/models/x", "json_data": {}}
    )

    assert isinstance(model, Model) and model.id == "gpt-4o-mini"
    assert json.loads(text) == MODEL and isinstance(text, str)
    assert json.loads(raw) == MODEL and isinstance(raw, bytes)
    assert decoded == MODEL
    assert isinstance(binary, HttpxBinaryResponseContent) and json.loads(binary.content) == MODEL
    assert isinstance(via_request, Model) and via_request.owned_by == "openai"


# --- streams -----------------------------------------------------------------------------------------

CHUNK = {
    "id": "c1",
    "object": "chat.completion.chunk",
    "created": 1,
    "model": "gpt-4o-mini",
    "choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": None}],
}


def sse(sent: list[httpx2.Request]) -> Handler:
    body = f"data: {json.dumps(CHUNK)}\n\ndata: [DONE]\n\n".encode()

    def handler(request: httpx2.Request) -> httpx2.Response:
        request.read()
        sent.append(request)
        return httpx2.Response(200, content=body, headers={"Content-Type": "text/event-stream"})

    return handler


async def items(stream: Any) -> list[Any]:
    if hasattr(stream, "__aiter__"):
        return [item async for item in stream]
    return list(stream)


async def test_a_stream_yields_the_item_type_of_stream_cls_else_cast_to(make: Any) -> None:
    sent: list[httpx2.Request] = []
    client = make(sse(sent))
    body = {"model": "gpt-4o-mini", "messages": [], "stream": True}
    chunk_stream = Stream[ChatCompletionChunk]

    typed = await call(
        client,
        "post",
        "/chat/completions",
        cast_to=ChatCompletion,
        body=body,
        stream=True,
        stream_cls=chunk_stream,
    )
    loose = await call(
        client, "post", "/chat/completions", cast_to=ChatCompletionChunk, body=body, stream=True
    )
    got = await call(client, "get", "/events", cast_to=ChatCompletion, stream=True, stream_cls=chunk_stream)
    via_request = await call(
        client,
        "request",
        ChatCompletion,
        {"method": "post", "url": "/chat/completions", "json_data": body},
        stream=True,
        stream_cls=chunk_stream,
    )

    for stream in (typed, loose, got, via_request):
        (chunk,) = await items(stream)
        assert isinstance(chunk, ChatCompletionChunk) and chunk.choices[0].delta.content == "Hi"
    assert [request.method for request in sent] == ["POST", "POST", "GET", "POST"]
    assert all(request.headers["Accept"] == "text/event-stream" for request in sent)
    assert _json(sent[3])["messages"] == [] and _json(sent[3])["stream"] is True


# --- client.request's options ------------------------------------------------------------------------


async def test_request_takes_openais_option_keys(make: Any) -> None:
    sent: list[httpx2.Request] = []
    client = make(recording(sent))
    options = {
        "method": "post",
        "url": "things",
        "json_data": {"a": 1},
        "params": {"q": "1"},
        "headers": {"X-Custom": "yes"},
        "idempotency_key": "idem-1",
        "extra_json": {"b": 2},
        "timeout": 3.0,
        "max_retries": 0,
    }

    await call(client, "request", object, options)
    await call(client, "request", object, {"method": "put", "url": "/raw", "content": b"bytes"})
    await call(
        client, "request", object, {"method": "post", "url": "/up", "files": {"file": ("a.txt", b"x")}}
    )
    await call(client, "request", object, RequestOptions("DELETE", "/own", query={"z": "9"}))

    assert [(r.method, r.url.path) for r in sent] == [
        ("POST", "/v1/things"),
        ("PUT", "/v1/raw"),
        ("POST", "/v1/up"),
        ("DELETE", "/v1/own"),
    ]
    first = sent[0]
    assert _json(first) == {"a": 1, "b": 2}
    assert dict(first.url.params) == {"q": "1"}
    assert first.headers["X-Custom"] == "yes" and first.headers["Idempotency-Key"] == "idem-1"
    assert first.extensions["timeout"]["read"] == 3.0
    assert sent[1].content == b"bytes"
    assert b'filename="a.txt"' in sent[2].content
    assert dict(sent[3].url.params) == {"z": "9"}


async def test_request_refuses_options_without_method_or_url_or_with_unknown_keys(make: Any) -> None:
    client = make(recording([]))
    need = "request options need `method` and `url`"

    for options, message in [
        ({"url": "/x"}, need),
        ({"method": "get"}, need),
        ({}, need),
        ({"method": "get", "url": "/x", "jsn": 1, "body": 2}, need + "; unknown: body, jsn"),
        ({"url": "/x", "bogus": 1}, need + "; unknown: bogus"),
    ]:
        with pytest.raises(TypeError) as info:
            await call(client, "request", object, options)
        assert str(info.value) == message


# --- refusals ----------------------------------------------------------------------------------------


async def test_a_full_url_is_refused_so_the_key_never_leaves_base_url(make: Any) -> None:
    sent: list[httpx2.Request] = []
    client = make(recording(sent))

    with pytest.raises(ValueError) as info:
        await call(client, "get", "https://elsewhere.example/v1/models", cast_to=object)

    assert str(info.value) == (
        "client.get/post/... take a path relative to base_url, got a URL (https://...); "
        "use a separate client with that base_url"
    )
    assert sent == []


async def test_unknown_options_are_refused_listing_them_and_the_known_ones(make: Any) -> None:
    client = make(recording([]))

    with pytest.raises(TypeError) as info:
        await call(client, "get", "/x", cast_to=object, options={"header": {}, "query": {}})

    assert str(info.value) == (
        "unknown request option(s): header, query; "
        "known: extra_json, headers, idempotency_key, max_retries, params, timeout"
    )


@pytest.mark.parametrize(
    "extra", [{"body": {"a": 1}}, {"files": {"file": b"x"}}, {"body": {}, "files": {"file": b"x"}}]
)
async def test_content_with_a_body_or_files_is_refused(extra: dict[str, Any], make: Any) -> None:
    client = make(recording([]))

    with pytest.raises(TypeError) as info:
        await call(client, "post", "/x", cast_to=object, content=b"raw", **extra)

    assert str(info.value) == "Passing `content` together with `body` or `files` is not supported"


# --- custom_options, the pure function ---------------------------------------------------------------


def test_custom_options_normalises_the_verb_and_keeps_the_stream_flag() -> None:
    built = custom_options("post", "/x", body={"a": 1}, stream=True)
    plain = custom_options("get", "x")

    assert (built.method, built.path, built.body, built.stream) == ("POST", "/x", {"a": 1}, True)
    assert (plain.method, plain.path, plain.stream, plain.timeout, plain.max_retries) == (
        "GET",
        "/x",
        False,
        NOT_GIVEN,
        None,
    )
    assert custom_options("get", "/x", options={"timeout": None}).timeout is None


# --- a binary body left on the wire (``with_streaming_response`` of speech) ---------------------------


async def speech(client: Any) -> tuple[int, bytes]:
    """The status and audio of ``speech.with_streaming_response.create`` (``with`` / ``async with``)."""
    opened = client.audio.speech.with_streaming_response.create(model="tts-1", voice="alloy", input="hi")
    if isinstance(client, holyclient.AsyncClient):
        async with opened as response:
            return response.status_code, await response.read()
    with opened as response:
        return response.status_code, response.read()


async def test_a_binary_body_is_handed_back_unread_and_retried_after_a_server_error(
    make: Any, sleeps: list[float]
) -> None:
    answers = [
        httpx2.Response(500, json={"error": {"message": "busy"}}),
        httpx2.Response(200, content=b"RIFF"),
    ]
    sent: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(request)
        return answers.pop(0)

    assert await speech(make(handler, max_retries=1)) == (200, b"RIFF")
    assert len(sent) == 2 and len(sleeps) == 1


@pytest.mark.parametrize("status", [400, 401])
async def test_a_refused_binary_request_raises_the_status_error_with_its_body_and_request(
    status: int, make: Any
) -> None:
    sent: list[httpx2.Request] = []
    client = make(recording(sent, httpx2.Response(status, json={"error": {"message": "no voice"}})))

    with pytest.raises(holyclient.APIStatusError) as info:
        await speech(client)

    error = info.value
    assert error.status_code == status and error.body == {"message": "no voice"}
    assert "no voice" in str(error)
    assert (error.request.method, error.request.url) == ("POST", sent[0].url)
    assert error.response.status_code == status
    assert all(model.uncertain == 0 for model in client.usage.snapshot().models.values())


@pytest.mark.parametrize("sdk", ["openai", "holyclient"])
def test_an_idempotency_key_header_given_wins_over_the_idempotency_key_option(sdk: str) -> None:
    """openai's ``_build_headers`` never replaces an ``Idempotency-Key`` header the caller gave."""
    sent: list[httpx2.Request] = []
    http = httpx2.Client(transport=httpx2.MockTransport(recording(sent)))
    client = sdk_client(sdk, http, BASE)
    options = {"headers": {"idempotency-key": "mine"}, "idempotency_key": "other"}

    with http:
        client.post("/things", cast_to=object, body={}, options=options)

    assert sent[0].headers.get_list("Idempotency-Key") == ["mine"]
