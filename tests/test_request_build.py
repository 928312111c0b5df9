"""The identity step builds each attempt's request from what it worked out once (issue 33's cuts).

A request on holyclient's own HTTP client is built without httpx2's ``build_request`` (its per-header
merge cost a tenth of a loopback request): these tests prove the request it builds is the one
``build_request`` would have built -- the same headers in the same order, URL, body, cookies and
timeout -- and that what is worked out once (the parsed URL, the timeout extension, the HTTP client's
default headers, a model's price entry) follows every setting it depends on.
"""

from __future__ import annotations

from typing import Any

import httpx
import httpx2
import pytest

from holyclient import Client
from holyclient._core import NOT_GIVEN, RequestOptions, build_headers
from holyclient._http import default_timeout, request_timeout
from holyclient._send._steps import Prepared
from holyclient.pricing import PriceTable, UsageTracker

KEY = "sk-request-build-0123456789"
CHAT = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}


def _built(client: Client, options: RequestOptions) -> Any:
    pipeline = client._pipeline
    return pipeline.build(Prepared(pipeline, options, client.api_key))


def _by_build_request(client: Client, options: RequestOptions) -> Any:
    """The request httpx2's ``build_request`` makes for ``options`` (what the identity step did before)."""
    headers = build_headers(
        client.api_key, client._pipeline.identity(), options.extra_headers, stream=options.stream
    )
    query = {**client.default_query, **(options.query or {})}
    timeout = client.timeout if options.timeout is NOT_GIVEN else options.timeout
    return client._http.build_request(
        options.method,
        str(client.base_url).rstrip("/") + options.path,
        json=options.body,
        params=query or None,
        headers=headers,
        timeout=request_timeout(default_timeout(timeout)),
    )


@pytest.mark.parametrize(
    "extra",
    [
        None,
        {"Idempotency-Key": "k-1", "x-stainless-retry-count": "0"},
        {"Accept-Encoding": "identity"},  # replaces one of httpx2's own defaults
        {"connection": "close", "X-Mine": "2"},  # another case, and a new header
        {"accept": "text/plain"},  # beside our own "Accept": both are sent, as build_request does
    ],
)
@pytest.mark.parametrize("stream", [False, True])
def test_our_own_client_builds_the_request_httpx2s_build_request_would(
    extra: dict[str, str] | None, stream: bool
) -> None:
    client = Client(
        api_key=KEY,
        base_url="http://127.0.0.1:9/v1",
        organization="org-1",
        default_headers={"X-Default": "1"},
        default_query={"api-version": "2"},
        timeout=12.5,
    )
    client._http.cookies.set("session", "abc", domain="127.0.0.1")  # a relay's sticky-session cookie
    options = RequestOptions(
        "POST",
        "/chat/completions",
        body=CHAT,
        query={"q": "1"} if extra else None,
        extra_headers=extra,
        stream=stream,
    )
    ours, theirs = _built(client, options), _by_build_request(client, options)
    assert ours.headers.raw == theirs.headers.raw
    assert (ours.method, str(ours.url), ours.content) == (theirs.method, str(theirs.url), theirs.content)
    assert ours.extensions == theirs.extensions
    assert ours.headers["cookie"] == "session=abc"


def test_a_base_url_changed_on_the_client_is_used_by_its_next_request() -> None:
    client = Client(api_key=KEY, base_url="http://127.0.0.1:9/v1")
    options = RequestOptions("POST", "/chat/completions", body=CHAT)
    assert str(_built(client, options).url) == "http://127.0.0.1:9/v1/chat/completions"
    client.base_url = "http://127.0.0.1:10/v2"
    assert str(_built(client, options).url) == "http://127.0.0.1:10/v2/chat/completions"


def test_a_timeout_reassigned_on_the_client_is_used_by_its_next_request() -> None:
    client = Client(api_key=KEY, base_url="http://127.0.0.1:9/v1")
    options = RequestOptions("POST", "/chat/completions", body=CHAT)
    assert _built(client, options).extensions["timeout"]["read"] == 600
    client.timeout = 30  # a plain number, as given to the constructor: at most 5 s to connect
    assert client.timeout == 30
    assert _built(client, options).extensions["timeout"] == {
        "connect": 5,
        "read": 30,
        "write": 30,
        "pool": 30,
    }
    per_call = RequestOptions("POST", "/chat/completions", body=CHAT, timeout=7)
    assert _built(client, per_call).extensions["timeout"] == {"connect": 5, "read": 7, "write": 7, "pool": 7}


@pytest.mark.parametrize("library", [httpx, httpx2])
def test_a_callers_http_client_gets_a_url_of_its_own_library_and_its_own_headers(library: Any) -> None:
    http = library.Client(headers={"X-From-Caller": "yes"})
    client = Client(api_key=KEY, base_url="http://127.0.0.1:9/v1", http_client=http)
    request = _built(client, RequestOptions("POST", "/chat/completions", body=CHAT))
    assert isinstance(request, library.Request) and isinstance(request.url, library.URL)
    assert request.headers["x-from-caller"] == "yes" and request.headers["authorization"] == f"Bearer {KEY}"


def test_options_replaced_changes_only_what_is_given_and_refuses_a_field_it_does_not_have() -> None:
    options = RequestOptions("POST", "/chat/completions", body=CHAT, timeout=3, max_retries=1, stream=True)
    new = options.replaced(extra_headers={"A": "1"})
    assert new == RequestOptions(
        "POST",
        "/chat/completions",
        body=CHAT,
        extra_headers={"A": "1"},
        timeout=3,
        max_retries=1,
        stream=True,
    )
    assert options.extra_headers is None  # the original is left as it was
    with pytest.raises(TypeError, match="no field 'extra_header'"):
        options.replaced(extra_header={"A": "1"})


def test_a_price_merged_after_a_lookup_is_the_one_the_next_lookup_finds() -> None:
    table = PriceTable.builtin()
    assert table.get("my-new-model") is None  # remembered as unknown
    table.merge({"models": {"my-new-model": {"input": 1.0, "output": 2.0, "cached_input": 0.5}}})
    found = table.get("my-new-model-2025-01-01")
    assert found is not None and found.name == "my-new-model" and found.price.output == 2.0
    table.merge({"models": {"my-new-model": {"input": 1.0, "output": 4.0, "cached_input": 0.5}}})
    found = table.get("my-new-model-2025-01-01")
    assert found is not None and found.price.output == 4.0


def test_an_answers_cost_is_what_cost_from_usage_says_for_every_usage_shape() -> None:
    from holyclient.pricing import cost_from_usage

    usages: list[dict[str, Any]] = [
        {"prompt_tokens": 1200, "completion_tokens": 300, "total_tokens": 1500},
        {
            "prompt_tokens": 5000,
            "completion_tokens": 900,
            "total_tokens": 6400,
            "prompt_tokens_details": {"cached_tokens": 4000, "audio_tokens": 10},
            "completion_tokens_details": {"reasoning_tokens": 500, "audio_tokens": 20},
        },
        {"input_tokens": 70, "output_tokens": 30, "input_tokens_details": {"cached_tokens": 20}},
        {"prompt_tokens": 100, "completion_tokens": 0, "prompt_cache_hit_tokens": 60},
    ]
    for usage in usages:
        tracker = UsageTracker()
        tracker.record("gpt-4o", usage)
        assert tracker.total_cost_usd == cost_from_usage("gpt-4o", usage).cost_usd, usage
