"""``client.as_openai()``: a genuine openai client whose every request runs through the holyclient client
(its key, budget, retries, usage), against the local server. The frameworks themselves are proven in
``tests/frameworks``; this file proves the transport's own rules, sync and async."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import inspect
import json
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import httpx2
import openai
import pytest

import holyclient
from holyclient.openai_compat import PLACEHOLDER_KEY, AsyncHolyTransport, HolyTransport
from holyclient.ratelimit import LocalLimiter
from holyclient.testing import Fault, LocalServer
from raw_http import canned_server, http_answer

KEY = "sk-as-openai-SECRET-5d2f8a"
USER = [{"role": "user", "content": "hello"}]


@pytest.fixture(scope="module")
def shared_server() -> Iterator[LocalServer]:
    with LocalServer(api_key=KEY) as server:  # answers holyclient's key, and 401 to any other
        yield server


@pytest.fixture
def server(shared_server: LocalServer) -> Iterator[LocalServer]:
    shared_server.reset()
    yield shared_server


async def _no_wait(seconds: float) -> None:
    return None


@pytest.fixture(params=["sync", "async"])
async def make(request: pytest.FixtureRequest, server: LocalServer) -> Any:
    """``make(**options)``: a holyclient client of the test's kind on the local server (closed after)."""
    made: list[Any] = []

    def build(**options: Any) -> holyclient.Client | holyclient.AsyncClient:
        options = {"api_key": KEY, "base_url": server.base_url, "instrument": False, **options}
        client: Any
        if request.param == "sync":
            client = holyclient.Client(sleep=lambda seconds: None, **options)
        else:
            client = holyclient.AsyncClient(sleep=_no_wait, **options)
        made.append(client)
        return client

    yield build
    for client in made:
        await run(client.close())


async def run(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


async def drain(stream: Any) -> list[Any]:
    if hasattr(stream, "__aiter__"):
        return [item async for item in stream]
    return list(stream)


def snapshot(client: Any) -> Any:
    return client.usage.snapshot().models["gpt-4.1"]


async def test_as_openai_is_a_genuine_openai_client_holding_no_key(make: Any) -> None:
    client = make(organization="org-1", project="proj-1")
    sdk = client.as_openai()
    kind = openai.AsyncOpenAI if isinstance(client, holyclient.AsyncClient) else openai.OpenAI
    assert type(sdk) is kind
    assert sdk.api_key == PLACEHOLDER_KEY and KEY not in repr(vars(sdk))
    assert sdk.max_retries == 0
    assert str(sdk.base_url) == str(client.base_url)


async def test_a_call_goes_through_the_client_and_is_counted_and_priced(
    make: Any, server: LocalServer
) -> None:
    client = make(organization="org-1", project="proj-1", default_headers={"X-App": "demo"})
    completion = await run(client.as_openai().chat.completions.create(model="gpt-4.1", messages=USER))
    assert isinstance(completion, openai.types.chat.ChatCompletion)
    assert completion.choices[0].message.content == "Echo: hello"
    (seen,) = server.requests  # the server only answers holyclient's key: it was sent
    assert seen.status == 200
    assert (seen.headers["openai-organization"], seen.headers["openai-project"]) == ("org-1", "proj-1")
    assert seen.headers["x-app"] == "demo" and seen.headers["user-agent"].startswith("holyclient/")
    usage = snapshot(client)
    assert usage.requests == 1 and usage.completion_tokens == completion.usage.completion_tokens
    assert client.usage.snapshot().total_cost_usd > 0


async def test_the_key_provider_the_recorder_and_the_limiter_apply(
    make: Any, server: LocalServer, tmp_path: Any
) -> None:
    calls: list[str] = []

    class Counting(LocalLimiter):
        def acquire_sync(self, model: str, tokens: int) -> Any:
            calls.append("limiter")
            return super().acquire_sync(model, tokens)

        async def acquire(self, model: str, tokens: int) -> Any:
            calls.append("limiter")
            return await super().acquire(model, tokens)

    def provide() -> str:
        calls.append("key")
        return KEY

    async def aprovide() -> str:
        return provide()

    limiter = Counting(rpm=1000)
    probe = make()
    provider = aprovide if isinstance(probe, holyclient.AsyncClient) else provide
    client = make(api_key=provider, record_to=tmp_path / "sample.jsonl", limiter=limiter)
    sdk = client.as_openai()
    for _ in range(2):
        await run(sdk.chat.completions.create(model="gpt-4.1", messages=USER))
    assert calls == ["key", "limiter"] * 2  # before every request, as for holyclient's own calls
    assert [r.status for r in server.requests] == [200, 200]  # the server accepts only that key
    recorded = (tmp_path / "sample.jsonl").read_text().splitlines()
    assert len(recorded) == 2 and KEY not in recorded[0] and '"/v1/chat/completions"' in recorded[0]


async def test_a_stream_is_charged_and_hides_the_usage_chunk_nobody_asked_for(
    make: Any, server: LocalServer
) -> None:
    client = make()
    sdk = client.as_openai()
    chunks = await drain(await run(sdk.chat.completions.create(model="gpt-4.1", messages=USER, stream=True)))
    assert chunks and all(chunk.choices for chunk in chunks)
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "Echo: hello"
    assert server.requests[0].body["stream_options"] == {"include_usage": True}  # asked by holyclient
    usage = snapshot(client)
    assert (usage.requests, usage.approximate_requests) == (1, 0)  # the server's usage, not a local count
    assert usage.completion_tokens > 0


async def test_a_caller_that_asks_for_usage_gets_its_chunk(make: Any) -> None:
    client = make()
    stream = await run(
        client.as_openai().chat.completions.create(
            model="gpt-4.1", messages=USER, stream=True, stream_options={"include_usage": True}
        )
    )
    chunks = await drain(stream)
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens > 0
    assert snapshot(client).completion_tokens == chunks[-1].usage.completion_tokens


async def test_a_stream_left_early_and_closed_is_still_charged(make: Any) -> None:
    client = make()
    stream = await run(
        client.as_openai().chat.completions.create(model="gpt-4.1", messages=USER, stream=True)
    )
    if hasattr(stream, "__aiter__"):
        await stream.__anext__()
        await stream.close()
    else:
        next(iter(stream))
        stream.close()
    usage = snapshot(client)
    assert usage.requests == 1 and client.usage.snapshot().total_cost_usd > 0


def test_a_stream_dropped_unclosed_is_settled_when_collected(server: LocalServer) -> None:
    with holyclient.Client(api_key=KEY, base_url=server.base_url, budget_usd=5.0, instrument=False) as client:
        stream = client.as_openai().chat.completions.create(model="gpt-4.1", messages=USER, stream=True)
        next(iter(stream))
        assert client.usage.snapshot().reserved_usd > 0  # held while the stream is open
        del stream
        gc.collect()
        snap = client.usage.snapshot()  # settles what the collector queued
        assert snap.reserved_usd == 0 and snap.models["gpt-4.1"].requests == 1


async def test_one_429_then_success_is_exactly_two_requests(make: Any, server: LocalServer) -> None:
    server.enqueue(Fault.status(429, retry_after=0))
    client = make()
    completion = await run(client.as_openai().chat.completions.create(model="gpt-4.1", messages=USER))
    assert completion.choices[0].message.content == "Echo: hello"
    assert [r.status for r in server.requests] == [429, 200]
    assert [r.headers["x-stainless-retry-count"] for r in server.requests] == ["0", "1"]


async def test_retries_turned_back_on_in_openai_do_not_multiply_holyclient_s(
    make: Any, server: LocalServer
) -> None:
    server.enqueue(*[Fault.status(429, retry_after=0)] * 10)
    client = make(max_retries=1)
    sdk = client.as_openai().with_options(max_retries=3)  # a framework that sets openai's retries
    with pytest.raises(openai.RateLimitError):
        await run(sdk.chat.completions.create(model="gpt-4.1", messages=USER))
    assert len(server.requests) == 2  # holyclient's first attempt and one retry; openai's 3 never ran


async def test_connection_errors_are_retried_once_by_holyclient_and_not_by_openai(
    make: Any, server: LocalServer
) -> None:
    server.enqueue(*[Fault.drop()] * 10)
    client = make(max_retries=1)
    sdk = client.as_openai().with_options(max_retries=3)
    with pytest.raises(openai.APIConnectionError):
        await run(sdk.chat.completions.create(model="gpt-4.1", messages=USER))
    assert len(server.requests) == 2


async def test_an_openai_client_built_on_the_http_client_keeps_its_retries_and_holyclient_adds_none(
    make: Any, server: LocalServer
) -> None:
    server.enqueue(Fault.status(429, retry_after=0), Fault.status(500))
    client = make()  # max_retries=2: would retry too if it did not leave it to openai
    kind = openai.AsyncOpenAI if isinstance(client, holyclient.AsyncClient) else openai.OpenAI
    sdk = kind(api_key="unused", base_url=client.base_url, http_client=client.as_http_client(), max_retries=2)
    sdk = sdk.with_options(timeout=5)
    completion = await run(sdk.chat.completions.create(model="gpt-4.1", messages=USER))
    assert completion.choices[0].message.content == "Echo: hello"
    assert [r.status for r in server.requests] == [429, 500, 200]  # openai's three attempts, once each
    assert [r.headers["x-stainless-retry-count"] for r in server.requests] == ["0", "1", "2"]
    assert snapshot(client).requests == 1


async def test_a_spent_budget_sends_nothing_and_raises_openai_s_error_naming_the_budget(
    make: Any, server: LocalServer
) -> None:
    client = make(budget_usd=0.0)
    sdk = client.as_openai().with_options(max_retries=3)
    with pytest.raises(openai.APIStatusError) as caught:
        await run(sdk.chat.completions.create(model="gpt-4.1", messages=USER))
    error = caught.value
    assert (error.status_code, error.code, error.type) == (402, "budget_exceeded", "budget_exceeded")
    assert "budget_usd" in str(error) and "refused before sending" in str(error)
    assert server.requests == []


async def test_a_budget_refusal_is_not_retried_by_an_openai_client_with_retries(
    make: Any, server: LocalServer
) -> None:
    client = make(budget_usd=0.0)
    kind = openai.AsyncOpenAI if isinstance(client, holyclient.AsyncClient) else openai.OpenAI
    sdk = kind(api_key="unused", base_url=client.base_url, http_client=client.as_http_client(), max_retries=5)
    with pytest.raises(openai.APIStatusError) as caught:
        await run(sdk.chat.completions.create(model="gpt-4.1", messages=USER))
    assert caught.value.status_code == 402 and server.requests == []


async def test_a_request_for_another_host_is_refused_and_never_carries_the_key(
    make: Any, server: LocalServer
) -> None:
    with LocalServer() as other:
        client = make()
        sdk = client.as_openai()
        with pytest.raises(openai.APIConnectionError, match="holyclient sends only to"):
            await run(
                sdk.post(other.base_url + "/chat/completions", cast_to=object, body={"model": "gpt-4.1"})
            )
        http = client.as_http_client()
        with pytest.raises(httpx2.UnsupportedProtocol, match="refused"):
            await run(http.post(other.base_url + "/chat/completions", json={}))
        with pytest.raises(httpx2.UnsupportedProtocol):  # same host, outside the base URL's path
            await run(http.get(str(client.base_url).removesuffix("/v1/") + "/admin"))
        assert other.requests == [] and server.requests == []


async def test_an_error_answer_reaches_openai_as_its_own_error_class(make: Any, server: LocalServer) -> None:
    server.enqueue(Fault.status(400, message="bad things"))
    client = make()
    with pytest.raises(openai.BadRequestError, match="bad things") as caught:
        await run(client.as_openai().chat.completions.create(model="gpt-4.1", messages=USER))
    assert caught.value.response.headers["x-should-retry"] == "false"
    assert len(server.requests) == 1


async def test_an_error_event_part_way_reaches_openai_as_its_error(make: Any, server: LocalServer) -> None:
    server.enqueue(Fault.stream_error(after_chunks=1))
    client = make()
    stream = await run(
        client.as_openai().chat.completions.create(model="gpt-4.1", messages=USER, stream=True)
    )
    with pytest.raises(openai.APIError):
        await drain(stream)


async def test_embeddings_models_and_responses_work_and_count(make: Any, server: LocalServer) -> None:
    client = make()
    sdk = client.as_openai()
    vectors = await run(sdk.embeddings.create(model="text-embedding-3-small", input="hi"))
    assert len(vectors.data[0].embedding) > 10  # openai decoded the base64 it asked for
    models = await run(sdk.models.list())
    assert models.data
    response = await run(sdk.responses.create(model="gpt-4.1", input="hi"))
    assert response.output_text == "Echo: hi"
    events = await drain(await run(sdk.responses.create(model="gpt-4.1", input="hi", stream=True)))
    assert events[-1].type == "response.completed"
    snap = client.usage.snapshot().models
    assert snap["gpt-4.1"].requests == 2 and snap["text-embedding-3-small"].requests == 1


def test_the_holyclient_span_is_a_child_of_the_framework_s_current_span(server: LocalServer) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    client = holyclient.Client(
        api_key=KEY, base_url=server.base_url, tracer_provider=provider, sleep=lambda seconds: None
    )
    server.enqueue(Fault.status(429, retry_after=0))
    with client, provider.get_tracer("framework").start_as_current_span("agent step") as step:
        client.as_openai().chat.completions.create(model="gpt-4.1", messages=USER)
    calls = [s for s in exporter.get_finished_spans() if s.name != "agent step"]
    assert [s.name for s in calls] == ["chat gpt-4.1"]  # one span for the call, its retry inside
    assert calls[0].parent is not None and calls[0].parent.span_id == step.get_span_context().span_id
    provider.shutdown()


def test_a_router_s_openai_client_routes_and_keys_stay_with_their_targets() -> None:
    with (
        contextlib.ExitStack() as stack,
        LocalServer(api_key="sk-target-a-111111") as a,
        LocalServer(api_key="sk-target-b-222222") as b,
    ):
        router = holyclient.Router(
            [
                holyclient.Target(a.base_url, api_key="sk-target-a-111111", name="a"),
                holyclient.Target(b.base_url, api_key="sk-target-b-222222", name="b"),
            ],
            rng=__import__("random").Random(3),
        )
        sdk = router.as_openai()
        stack.enter_context(router)
        for _ in range(6):
            assert sdk.chat.completions.create(model="gpt-4.1", messages=USER).choices
        chunks = list(sdk.chat.completions.create(model="gpt-4.1", messages=USER, stream=True))
        assert all(chunk.choices for chunk in chunks)
        assert {r.status for r in [*a.requests, *b.requests]} == {200}  # each key went to its own host
        assert a.requests and b.requests
        assert router.usage.snapshot().models["gpt-4.1"].requests == 7


def test_the_legacy_httpx_transport_works_under_an_openai_client(server: LocalServer) -> None:
    client = holyclient.Client(api_key=KEY, base_url=server.base_url, instrument=False)
    http = client.as_http_client(legacy=True)
    assert isinstance(http, httpx.Client) and not isinstance(http, httpx2.Client)
    with client:
        _legacy_calls(client, http)


def _legacy_calls(client: holyclient.Client, http: httpx.Client) -> None:
    sdk = openai.OpenAI(api_key="unused", base_url=client.base_url, http_client=http)
    assert sdk.chat.completions.create(model="gpt-4.1", messages=USER).choices[0].message.content
    chunks = list(sdk.chat.completions.create(model="gpt-4.1", messages=USER, stream=True))
    assert all(chunk.choices for chunk in chunks)
    assert snapshot(client).requests == 2


async def test_the_async_legacy_transport_streams(server: LocalServer) -> None:
    client = holyclient.AsyncClient(api_key=KEY, base_url=server.base_url, instrument=False)
    http = client.as_http_client(legacy=True)
    assert isinstance(http, httpx.AsyncClient)
    async with client:
        response = await http.post(
            str(client.base_url) + "chat/completions",
            json={"model": "gpt-4.1", "messages": USER, "stream": True},
        )
        body = await response.aread()
    assert body.endswith(b"data: [DONE]\n\n") and b'"choices":[]' not in body.replace(b" ", b"")
    assert snapshot(client).requests == 1


def test_a_transport_refuses_a_client_of_the_other_kind() -> None:
    with pytest.raises(TypeError, match="AsyncClient"):
        AsyncHolyTransport(holyclient.Client(api_key=KEY, base_url="http://127.0.0.1:9/v1"))
    with pytest.raises(TypeError, match="a Client"):
        HolyTransport(holyclient.AsyncClient(api_key=KEY, base_url="http://127.0.0.1:9/v1"))


def test_without_openai_as_openai_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    client = holyclient.Client(api_key=KEY, base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ImportError, match=r"pip install 'holyclient\[openai\]'"):
        client.as_openai()


async def test_a_file_upload_and_a_binary_answer_pass_through_untouched(
    make: Any, server: LocalServer
) -> None:
    client = make()
    sdk = client.as_openai()
    uploaded = await run(sdk.files.create(file=("input.jsonl", b'{"a": 1}\n'), purpose="batch"))
    assert uploaded.filename == "input.jsonl" and uploaded.bytes == 9
    content = await run(sdk.files.content(uploaded.id))
    assert content.content == b'{"a": 1}\n'
    speech = await run(sdk.audio.speech.create(model="tts-1", voice="alloy", input="hi"))
    assert speech.content  # binary, as the server sent it
    assert [r.status for r in server.requests] == [200, 200, 200]


async def test_openai_s_request_never_keeps_the_key_the_transport_set_on_it(
    make: Any, server: LocalServer
) -> None:
    client = make()
    sdk = client.as_openai()
    raw = await run(sdk.chat.completions.with_raw_response.create(model="gpt-4.1", messages=USER))
    assert raw.http_request.headers["authorization"] == f"Bearer {PLACEHOLDER_KEY}"
    assert raw.http_response.request is raw.http_request  # the answer as read, handed over as it came
    server.enqueue(Fault.status(400, message="bad"))
    with pytest.raises(openai.BadRequestError) as caught:
        await run(sdk.chat.completions.create(model="gpt-4.1", messages=USER))
    assert KEY not in str(caught.value.response.request.headers.raw)
    own = openai.OpenAI if isinstance(client, holyclient.Client) else openai.AsyncOpenAI
    user_sdk = own(api_key="sk-user-own-1", base_url=client.base_url, http_client=client.as_http_client())
    raw = await run(user_sdk.chat.completions.with_raw_response.create(model="gpt-4.1", messages=USER))
    assert raw.http_request.headers["authorization"] == "Bearer sk-user-own-1"  # its own, put back
    assert [r.status for r in server.requests] == [200, 400, 200]  # each sent with holyclient's key


async def test_a_redirect_is_followed_by_holyclient_s_client_without_the_key(make: Any) -> None:
    done = json.dumps(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4.1",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "moved"}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
        }
    ).encode()
    heads: list[bytes] = []
    with canned_server(
        http_answer("200 OK", {"content-type": "application/json"}, done), heads, "127.0.0.2"
    ) as new:
        moved = http_answer("307 Temporary Redirect", {"location": new + "/chat/completions"})
        with canned_server(moved) as old:
            client = make(base_url=old, max_retries=0)
            completion = await run(client.as_openai().chat.completions.create(model="gpt-4.1", messages=USER))
    assert completion.choices[0].message.content == "moved"
    assert len(heads) == 1 and KEY.encode() not in heads[0]  # another origin: httpx2 dropped the key
    assert snapshot(client).requests == 1


async def test_a_caller_s_own_http_client_still_merges_its_defaults_into_what_is_sent(make: Any) -> None:
    seen: list[httpx2.Request] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        body = json.loads(request.content)
        return httpx2.Response(
            200,
            json={
                "id": "c",
                "object": "chat.completion",
                "created": 1,
                "model": body["model"],
                "choices": [],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            },
        )

    probe = make()
    kind = httpx2.Client if isinstance(probe, holyclient.Client) else httpx2.AsyncClient
    http = kind(transport=httpx2.MockTransport(answer), headers={"X-Corp": "one"}, params={"tenant": "t1"})
    client = make(http_client=http)
    await run(client.as_openai().chat.completions.create(model="gpt-4.1", messages=USER))
    (request,) = seen
    assert request.headers["x-corp"] == "one" and request.url.params["tenant"] == "t1"
    assert request.headers["authorization"] == f"Bearer {KEY}"


async def test_a_call_step_may_change_the_body_and_call_twice_and_each_call_is_counted(
    make: Any, server: LocalServer
) -> None:
    class SmallModelFirst:  # a CallStep: asks the small model, then sends the call as it came
        @staticmethod
        def _small(call: Any) -> Any:
            return dataclasses.replace(
                call, options=call.options.with_body({**call.options.body, "model": "gpt-4.1-mini"})
            )

        def send(self, call: Any, send: Any) -> Any:
            send(self._small(call))
            return send(call)

        async def asend(self, call: Any, send: Any) -> Any:
            await send(self._small(call))
            return await send(call)

    client = make()
    sync = isinstance(client, holyclient.Client)
    transport = (HolyTransport if sync else AsyncHolyTransport)(client, steps=(SmallModelFirst(),))
    http = (httpx2.Client if sync else httpx2.AsyncClient)(transport=transport)
    sdk = (openai.OpenAI if sync else openai.AsyncOpenAI)(
        api_key="unused", base_url=client.base_url, http_client=http
    )
    completion = await run(sdk.chat.completions.create(model="gpt-4.1", messages=USER))
    assert completion.model == "gpt-4.1"
    assert [r.body["model"] for r in server.requests] == ["gpt-4.1-mini", "gpt-4.1"]
    assert {name: m.requests for name, m in client.usage.snapshot().models.items()} == {
        "gpt-4.1-mini": 1,
        "gpt-4.1": 1,
    }
