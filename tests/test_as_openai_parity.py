"""``as_openai()`` behaves as openai does: a Router's model map reaches the body sent, a stream whose
``delta.content`` is a list of parts is read as openai reads it, anything raised is an ``openai``
exception, and a per-request ``OpenAI-Project`` / ``OpenAI-Organization`` is sent. Sync and async."""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator
from typing import Any

import httpx2
import openai
import pytest

import holyclient
from holyclient import _exceptions
from holyclient.testing import Fault, LocalServer

KEY = "sk-as-openai-parity-7c1e44"
USER = [{"role": "user", "content": "hello"}]


@pytest.fixture(scope="module")
def shared_server() -> Iterator[LocalServer]:
    with LocalServer(api_key=KEY) as server:
        yield server


@pytest.fixture
def server(shared_server: LocalServer) -> Iterator[LocalServer]:
    shared_server.reset()
    yield shared_server


async def run(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


async def drain(stream: Any) -> list[Any]:
    if hasattr(stream, "__aiter__"):
        return [item async for item in stream]
    return list(stream)


async def _no_wait(seconds: float) -> None:
    return None


@pytest.fixture
async def client_of() -> Any:
    """``client_of(kind, **options)``: a holyclient client, closed after the test."""
    made: list[Any] = []

    def build(kind: str, **options: Any) -> Any:
        if kind == "sync":
            client: Any = holyclient.Client(sleep=lambda seconds: None, instrument=False, **options)
        else:
            client = holyclient.AsyncClient(sleep=_no_wait, instrument=False, **options)
        made.append(client)
        return client

    yield build
    for client in made:
        await run(client.close())


KINDS = pytest.mark.parametrize("kind", ["sync", "async"])


# --- a Router's model map ------------------------------------------------------------------------------


@KINDS
async def test_a_router_s_openai_client_sends_the_mapped_model_it_holds_and_charges(kind: str) -> None:
    with LocalServer(api_key=KEY) as target_server:
        target = holyclient.Target(target_server.base_url, api_key=KEY, model_map={"gpt-4.1": "gpt-4.1-mini"})
        routers = {"sync": holyclient.Router, "async": holyclient.AsyncRouter}
        router = routers[kind]([target], budget_usd=5.0)
        sdk = router.as_openai()
        try:
            completion = await run(sdk.chat.completions.create(model="gpt-4.1", messages=USER))
            chunks = await drain(
                await run(sdk.chat.completions.create(model="gpt-4.1", messages=USER, stream=True))
            )
        finally:
            await run(router.close())
    assert completion.model == "gpt-4.1-mini" and chunks
    assert [r.body["model"] for r in target_server.requests] == ["gpt-4.1-mini", "gpt-4.1-mini"]
    snap = router.usage.snapshot()
    assert set(snap.models) == {"gpt-4.1-mini"} and snap.models["gpt-4.1-mini"].requests == 2
    assert snap.reserved_usd == 0  # each hold (of the mapped model) settled by its charge


# --- a stream whose delta content is a list of parts ------------------------------------------------------

_PARTS = [
    {"type": "thinking", "thinking": [{"type": "text", "text": "Weighing it up."}]},
    {"type": "text", "text": "Bonjour"},
]


def _magistral(request: httpx2.Request) -> httpx2.Response:
    """Mistral's Magistral streaming: each delta's ``content`` is a list of parts; usage when asked."""
    body = json.loads(request.content)
    base = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": body["model"]}
    events = [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": _PARTS[:1]}}]},
        {**base, "choices": [{"index": 0, "delta": {"content": _PARTS[1:]}, "finish_reason": "stop"}]},
    ]
    if (body.get("stream_options") or {}).get("include_usage"):
        usage = {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}
        events.append({**base, "choices": [], "usage": usage})
    sse = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events) + b"data: [DONE]\n\n"
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse)


@KINDS
async def test_a_stream_of_content_parts_is_read_as_openai_reads_it_and_charged(
    kind: str, client_of: Any
) -> None:
    transport = httpx2.MockTransport(_magistral)
    http = httpx2.Client(transport=transport) if kind == "sync" else httpx2.AsyncClient(transport=transport)
    plain_kind = openai.OpenAI if kind == "sync" else openai.AsyncOpenAI
    plain = plain_kind(api_key="sk-plain", base_url="https://relay.test/v1", http_client=http)
    client = client_of(kind, api_key=KEY, base_url="https://relay.test/v1", http_client=http)
    expected = await drain(
        await run(plain.chat.completions.create(model="magistral-medium-latest", messages=USER, stream=True))
    )
    got = await drain(
        await run(
            client.as_openai().chat.completions.create(
                model="magistral-medium-latest", messages=USER, stream=True
            )
        )
    )
    assert [c.model_dump(warnings=False) for c in got] == [c.model_dump(warnings=False) for c in expected]
    assert got[1].choices[0].delta.content == [_PARTS[1]]
    usage = client.usage.snapshot().models["magistral-medium-latest"]
    assert (usage.requests, usage.completion_tokens, usage.approximate_requests) == (1, 7, 0)


def test_the_text_of_content_parts_is_what_a_stream_without_usage_is_counted_from() -> None:
    from holyclient.pricing._stream_usage import part_texts

    assert part_texts(_PARTS) == ["Weighing it up.", "Bonjour"]
    assert part_texts("plain") == ["plain"]
    assert part_texts([{"type": "image_url", "image_url": {"url": "x"}}, 3, None]) == []


# --- every error is openai's -------------------------------------------------------------------------


def _every_holyclient_error() -> list[BaseException]:
    """An instance of every error class holyclient defines (each constructor's own arguments)."""
    request = httpx2.Request("POST", "http://127.0.0.1/v1/chat/completions")
    response = httpx2.Response(418, json={"error": {"message": "teapot"}}, request=request)
    made: list[BaseException] = []
    pending: list[type[BaseException]] = [_exceptions.HolyClientError]
    seen: set[type[BaseException]] = set()
    while pending:
        cls = pending.pop()
        if cls in seen:
            continue
        seen.add(cls)
        pending.extend(cls.__subclasses__())
        parameters = inspect.signature(cls.__init__).parameters
        arguments: dict[str, Any] = {}
        for name in ("requested_usd", "remaining_usd"):
            if name in parameters:
                arguments[name] = 1.0
        if "response" in parameters:
            arguments["response"] = response
        if "body" in parameters and parameters["body"].default is inspect.Parameter.empty:
            arguments["body"] = {"message": "teapot"}
        first = [p for p in parameters.values() if p.name != "self" and p.kind is p.POSITIONAL_OR_KEYWORD]
        positional = ["boom"] if first and first[0].default is inspect.Parameter.empty else []
        try:
            made.append(cls(*positional, **arguments))
        except TypeError:  # a constructor the loop cannot call (a finish-reason error's completion)
            made.append(cls.__new__(cls))
            Exception.__init__(made[-1], "boom")
    return made


ERRORS = _every_holyclient_error()


@KINDS
@pytest.mark.parametrize("error", ERRORS, ids=[type(e).__name__ for e in ERRORS])
async def test_any_holyclient_error_on_the_way_reaches_the_caller_as_an_openai_error(
    kind: str, error: BaseException, server: LocalServer, client_of: Any
) -> None:
    def provide() -> str:
        raise error  # the key provider runs inside every attempt: an error from the middle of the call

    async def aprovide() -> str:
        return provide()

    client = client_of(kind, api_key=provide if kind == "sync" else aprovide, base_url=server.base_url)
    with pytest.raises(openai.OpenAIError) as caught:
        await run(client.as_openai().chat.completions.create(model="gpt-4.1", messages=USER))
    assert not isinstance(caught.value, _exceptions.HolyClientError)
    assert server.requests == []


@KINDS
async def test_a_garbled_answer_is_openai_s_response_validation_error(
    kind: str, server: LocalServer, client_of: Any
) -> None:
    server.enqueue(Fault.malformed())
    client = client_of(kind, api_key=KEY, base_url=server.base_url, max_retries=0)
    with pytest.raises(openai.APIResponseValidationError) as caught:
        await run(client.as_openai().chat.completions.create(model="gpt-4.1", messages=USER))
    assert caught.value.status_code == 200 and KEY not in repr(caught.value.__dict__)


def _garbled_stream(request: httpx2.Request) -> httpx2.Response:
    good = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1"}
    good["choices"] = [{"index": 0, "delta": {"content": "Hi"}}]
    sse = b"data: " + json.dumps(good).encode() + b"\n\ndata: {not json\n\n"
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse)


@KINDS
async def test_an_unreadable_event_part_way_is_an_openai_error(kind: str, client_of: Any) -> None:
    transport = httpx2.MockTransport(_garbled_stream)
    http = httpx2.Client(transport=transport) if kind == "sync" else httpx2.AsyncClient(transport=transport)
    client = client_of(kind, api_key=KEY, base_url="https://relay.test/v1", http_client=http)
    stream = await run(
        client.as_openai().chat.completions.create(model="gpt-4.1", messages=USER, stream=True)
    )
    with pytest.raises(openai.APIError):
        await drain(stream)


# --- per-request identity ------------------------------------------------------------------------------


@KINDS
async def test_a_per_request_project_and_organization_are_sent(
    kind: str, server: LocalServer, client_of: Any
) -> None:
    client = client_of(kind, api_key=KEY, base_url=server.base_url, organization="org-1", project="proj-1")
    sdk = client.as_openai()
    await run(sdk.chat.completions.create(model="gpt-4.1", messages=USER))
    await run(
        sdk.chat.completions.create(
            model="gpt-4.1", messages=USER, extra_headers={"OpenAI-Project": "proj-2"}
        )
    )
    await run(sdk.with_options(organization="org-3").chat.completions.create(model="gpt-4.1", messages=USER))
    sent = [(r.headers.get("openai-organization"), r.headers.get("openai-project")) for r in server.requests]
    assert sent == [("org-1", "proj-1"), ("org-1", "proj-2"), ("org-3", "proj-1")]
