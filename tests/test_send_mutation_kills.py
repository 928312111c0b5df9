"""What the send path promises, pinned where the feature tests left a behaviour unchecked.

Each test here was written against a mutant that survived ``benchmarks/mutation.sh send_core`` or
``send_rest`` (see CONTRIBUTING, "Mutation testing"): the header and URL lists the batch fast path
sends from, a client's copies and reprs, the async retrying caller's streams and pages, and the named
functions a feature uses. Each was checked by applying its mutant and seeing the test fail.
"""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from holyclient import APIConnectionError, APIStatusError, AsyncClient, Client, ConfigurationError
from holyclient._core import RequestOptions
from holyclient._send import NO_KEY, Exchange, Prepared, http_client_of, in_mode_of, sender_of
from holyclient._send._attempts import mark_never_sent
from holyclient._send._response import RawResponse
from holyclient.pricing import Ledger, charging_for
from support import BASE, KEY, chunk, completion, sse

MESSAGES = [{"role": "user", "content": "hi"}]
CHAT = {"model": "gpt-4.1", "messages": MESSAGES, "max_tokens": 50}


def _stream_answer(*events: dict[str, Any] | str) -> httpx2.Response:
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse(*events))


# --- the lists the batch fast path sends from -----------------------------------------------------


def test_the_header_list_follows_each_key_and_carries_a_calls_extra_headers_only_for_that_call() -> None:
    client = AsyncClient(api_key=KEY, default_headers={"X-Team": "a"})
    pipeline = sender_of(client)
    first = dict(pipeline.wire_headers("sk-first-000000", None))
    assert (first["Authorization"], first["X-Team"]) == ("Bearer sk-first-000000", "a")
    assert dict(pipeline.wire_headers("sk-second-00000", None))["Authorization"] == "Bearer sk-second-00000"
    extra = dict(pipeline.wire_headers("sk-second-00000", {"X-Extra": "1"}))
    assert (extra["X-Extra"], extra["Authorization"]) == ("1", "Bearer sk-second-00000")
    assert "X-Extra" not in dict(pipeline.wire_headers("sk-second-00000", None))


def test_a_url_with_a_call_query_merges_it_over_the_default_query() -> None:
    client = AsyncClient(api_key=KEY, default_query={"a": "1", "b": "0"})
    pipeline = sender_of(client)
    assert (
        pipeline.url(RequestOptions("POST", "/embeddings", query={"b": "2"})) == f"{BASE}/embeddings?a=1&b=2"
    )
    assert pipeline.url(RequestOptions("POST", "/embeddings")) == f"{BASE}/embeddings?a=1&b=0"


# --- a client's copies, reprs and key provider ----------------------------------------------------


def test_a_copy_takes_every_option_it_is_given() -> None:
    client = Client(api_key=KEY)
    copy = client.with_options(
        api_key="sk-other-0123456789", base_url="http://localhost:9/v1", allow_insecure_http=True
    )
    assert (copy.api_key, str(copy.base_url)) == ("sk-other-0123456789", "http://localhost:9/v1/")
    assert client.with_options(max_retry_after=0.5)._policy.max_retry_after == 0.5
    with pytest.raises(ConfigurationError):
        client.with_options(base_url="http://example.test/v1")  # a key must not go out in clear text
    # a copy that was allowed insecure HTTP keeps it for its own copies
    assert copy.with_options(base_url="http://example.test/v1").base_url == httpx2.URL(
        "http://example.test/v1/"
    )


def test_a_client_without_a_key_is_copied_without_a_transport_check() -> None:
    keyless = Client(api_key=NO_KEY, base_url="http://example.test/v1")
    assert keyless.with_options(base_url="http://other.test/v1").base_url == httpx2.URL(
        "http://other.test/v1/"
    )
    assert repr(NO_KEY) == "NO_KEY"


def test_a_clients_repr_names_its_class_base_url_and_retries() -> None:
    assert repr(Client(api_key=KEY)) == f"Client(base_url={BASE!r}, max_retries=2)"


def test_a_key_provider_returning_no_string_is_named_by_what_it_returned(make_client: Any) -> None:
    client = make_client(lambda _: httpx2.Response(200, json=completion()), api_key=lambda: 5)
    with pytest.raises(ConfigurationError, match=r"must return a non-empty string, not int$"):
        client.chat.completions.create(**CHAT)


# --- the mode a feature's clients answer in -------------------------------------------------------


def test_in_mode_of_gives_a_client_answering_as_the_other_one_does(make_client: Any) -> None:
    client = make_client(lambda _: httpx2.Response(200, json=completion()))
    assert in_mode_of(client, client) is client
    raw = in_mode_of(client, client.with_raw_response)
    answer = raw.chat.completions.create(**CHAT)
    assert isinstance(answer, RawResponse) and answer.parse().choices[0].message.content == "hi"
    plain = in_mode_of(client.with_raw_response, client)
    assert plain.chat.completions.create(**CHAT).choices[0].message.content == "hi"


# --- the async retrying caller's streams and pages ------------------------------------------------


async def test_an_async_stream_refused_at_opening_carries_its_request_and_releases_its_hold(
    make_async_client: Any,
) -> None:
    client = make_async_client(
        lambda _: httpx2.Response(400, json={"error": {"message": "bad"}}), budget_usd=1.0
    )
    with pytest.raises(APIStatusError) as refused:
        await client.chat.completions.create(**CHAT, stream=True)
    assert refused.value.request is not None and str(refused.value.request.url) == f"{BASE}/chat/completions"
    snapshot = client.usage.snapshot()
    assert (snapshot.reserved_usd, snapshot.uncertain_usd, snapshot.total_cost_usd) == (0.0, 0.0, 0.0)


async def test_an_async_stream_cut_before_its_first_event_says_which_request_failed(
    make_async_client: Any,
) -> None:
    async def cut() -> Any:
        raise httpx2.ReadError("reset")
        yield b""  # pragma: no cover

    client = make_async_client(lambda _: httpx2.Response(200, content=cut()), max_retries=0)
    with pytest.raises(APIConnectionError) as failed:
        await client.chat.completions.create(**CHAT, stream=True)
    assert failed.value.request is not None and str(failed.value.request.url) == f"{BASE}/chat/completions"


async def test_an_async_streams_error_event_carries_its_request(make_async_client: Any) -> None:
    error = {"error": {"message": "overloaded", "type": "server_error"}}
    client = make_async_client(lambda _: _stream_answer(chunk("Hi"), error))
    stream = await client.chat.completions.create(**CHAT, stream=True)
    with pytest.raises(APIStatusError) as failed:
        [item async for item in stream]
    assert failed.value.request is not None and str(failed.value.request.url) == f"{BASE}/chat/completions"


async def test_an_async_stream_opening_is_retried_with_the_clients_sleep(
    make_async_client: Any, sleeps: list[float]
) -> None:
    answers = iter(
        [httpx2.Response(503, json={"error": {"message": "busy"}}), _stream_answer(chunk("Hi"), "[DONE]")]
    )
    client = make_async_client(lambda _: next(answers))
    stream = await client.chat.completions.create(**CHAT, stream=True)
    assert [c.choices[0].delta.content async for c in stream] == ["Hi"]
    assert len(sleeps) == 1


async def test_async_pages_fetch_the_next_page_through_the_same_client_and_query(
    make_async_client: Any,
) -> None:
    def page(request: httpx2.Request) -> httpx2.Response:
        after = request.url.params.get("after")
        data = [
            {
                "id": "file-2" if after else "file-1",
                "object": "file",
                "bytes": 1,
                "created_at": 1,
                "filename": "a",
                "purpose": "batch",
            }
        ]
        return httpx2.Response(200, json={"object": "list", "data": data, "has_more": after is None})

    seen: list[httpx2.Request] = []
    client = make_async_client(lambda request: (seen.append(request), page(request))[1])
    ids = [f.id async for f in client.files.list(limit=1)]
    assert ids == ["file-1", "file-2"]
    assert [dict(r.url.params) for r in seen] == [{"limit": "1"}, {"limit": "1", "after": "file-1"}]


# --- the sync retrying caller's streams -----------------------------------------------------------


def test_a_stream_refused_at_opening_carries_its_request_and_releases_its_hold(make_client: Any) -> None:
    client = make_client(lambda _: httpx2.Response(400, json={"error": {"message": "bad"}}), budget_usd=1.0)
    with pytest.raises(APIStatusError) as refused:
        client.chat.completions.create(**CHAT, stream=True)
    assert refused.value.request is not None and str(refused.value.request.url) == f"{BASE}/chat/completions"
    snapshot = client.usage.snapshot()
    assert (snapshot.reserved_usd, snapshot.uncertain_usd, snapshot.total_cost_usd) == (0.0, 0.0, 0.0)


def test_a_stream_cut_before_its_first_event_says_which_request_failed(make_client: Any) -> None:
    def cut() -> Any:
        raise httpx2.ReadError("reset")
        yield b""  # pragma: no cover

    client = make_client(lambda _: httpx2.Response(200, content=cut()), max_retries=0)
    with pytest.raises(APIConnectionError) as failed:
        client.chat.completions.create(**CHAT, stream=True)
    assert failed.value.request is not None and str(failed.value.request.url) == f"{BASE}/chat/completions"


def test_a_streams_error_event_carries_its_request(make_client: Any) -> None:
    error = {"error": {"message": "overloaded", "type": "server_error"}}
    client = make_client(lambda _: _stream_answer(chunk("Hi"), error))
    stream = client.chat.completions.create(**CHAT, stream=True)
    with pytest.raises(APIStatusError) as failed:
        list(stream)
    assert failed.value.request is not None and str(failed.value.request.url) == f"{BASE}/chat/completions"


# --- an attempt's data ----------------------------------------------------------------------------


def test_an_attempts_own_header_list_carries_its_extra_headers() -> None:
    client = AsyncClient(api_key=KEY)
    options = RequestOptions("POST", "/embeddings", body={}, extra_headers={"Idempotency-Key": "k-1"})
    prepared = Prepared(sender_of(client), options, KEY)
    assert dict(prepared.wire_headers())["Idempotency-Key"] == "k-1"


def test_a_steps_own_answer_becomes_an_httpx_response_of_its_request() -> None:
    class Answer:
        status_code = 429
        content = b'{"error": {"message": "slow down"}}'

        def __init__(self) -> None:
            self.headers = {"retry-after": "1", "content-type": "application/json"}

    client = AsyncClient(api_key=KEY)
    prepared = Prepared(sender_of(client), RequestOptions("POST", "/embeddings", body={}), KEY)
    request, response = Exchange(prepared, Answer()).httpx()
    assert request is prepared.request() and response.request is request
    assert (response.status_code, response.content, response.headers["retry-after"]) == (
        429,
        Answer.content,
        "1",
    )


def test_an_exchange_settles_its_usage_under_the_model_that_answered() -> None:
    client = AsyncClient(api_key=KEY)
    prepared = Prepared(sender_of(client), RequestOptions("POST", "/embeddings", body={}), KEY)
    exchange = Exchange(prepared, None)
    exchange.ledger = Ledger(client.usage, charging_for("POST", "/chat/completions"), CHAT)
    exchange.settle("gpt-4.1-2025-04-14", {"prompt_tokens": 3, "completion_tokens": 1})
    assert list(client.usage.snapshot().models) == ["gpt-4.1-2025-04-14"]


def test_an_httpx_error_before_sending_marks_the_request_never_sent() -> None:
    import httpx

    assert mark_never_sent(APIConnectionError(), httpx.ConnectError("refused")).maybe_processed is False
    assert mark_never_sent(APIConnectionError(), httpx.ReadError("reset")).maybe_processed is True


# --- loading a call's first-use costs before its span ---------------------------------------------


def test_ready_loads_the_transport_and_the_tokenizer_a_counted_call_needs_once_per_path_and_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import holyclient.tokens
    from holyclient._send import _first_use

    loaded: list[tuple[Any, ...]] = []
    monkeypatch.setattr(_first_use, "ready_transport", lambda http: loaded.append(("transport", http)))
    monkeypatch.setattr(
        holyclient.tokens, "count_tokens", lambda text, model: loaded.append(("tokenizer", text, model))
    )
    chat = RequestOptions("POST", "/chat/completions", body={**CHAT, "model": "gpt-4.1-2025-04-14"})
    client = Client(api_key=KEY, budget_usd=1.0)
    budgeted = sender_of(client)
    budgeted.ready(chat)
    budgeted.ready(chat)  # done once per path and model
    assert loaded == [("transport", http_client_of(client)), ("tokenizer", "", "gpt-4.1")]
    loaded.clear()
    unbudgeted = sender_of(Client(api_key=KEY))
    unbudgeted.ready(chat)  # an exact count that nothing holds: not counted, no tokenizer
    stand_in = RequestOptions("POST", "/chat/completions", body={**CHAT, "model": "claude-sonnet-4-5"})
    unbudgeted.ready(stand_in)  # a stand-in count learns from its bill: counted
    unbudgeted.ready(RequestOptions("GET", "/models"))
    unbudgeted.ready(RequestOptions("POST", "/chat/completions", body={**CHAT, "model": "no-such-model"}))
    unbudgeted.ready(
        RequestOptions("POST", "/chat/completions", body={**CHAT, "model": ["not", "a", "name"]})
    )
    loaded = [entry[:1] if entry[0] == "transport" else entry for entry in loaded]
    assert loaded == [
        ("transport",),
        ("transport",),
        ("tokenizer", "", "claude-sonnet-4.5"),
        ("transport",),
        ("transport",),
        ("transport",),  # a model that is no name: loaded once under no model, never raises
    ]


def test_ready_never_raises_logs_why_and_tries_again_on_the_next_call(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from holyclient._send import _first_use

    def broken(http: Any) -> None:
        raise OSError("no TLS context")

    monkeypatch.setattr(_first_use, "ready_transport", broken)
    pipeline = sender_of(Client(api_key=KEY))
    chat = RequestOptions("POST", "/chat/completions", body=CHAT)
    with caplog.at_level("DEBUG", logger="holyclient"):
        pipeline.ready(chat)
        pipeline.ready(chat)
    failures = [
        r
        for r in caplog.records
        if r.getMessage() == "Loading a call's first-use costs failed; its attempt will say why"
    ]
    assert len(failures) == 2 and all(r.exc_info and r.exc_info[0] is OSError for r in failures)
