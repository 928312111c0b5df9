from __future__ import annotations

import json

import httpx2
import pytest

from holyclient import AsyncClient, ChatCompletion, Client, ConfigurationError
from support import BASE, KEY, Recorder, completion


def test_chat_completion_returns_typed_model_and_sends_bearer_key(make_client):
    rec = Recorder(httpx2.Response(200, json=completion("hello")))
    client = make_client(rec)
    result = client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "hi"}])
    assert isinstance(result, ChatCompletion)
    assert result.choices[0].message.content == "hello"
    assert result.usage is not None and result.usage.total_tokens == 6
    request = rec.requests[0]
    assert str(request.url) == f"{BASE}/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"


def test_every_openai_parameter_passes_through_untouched(make_client):
    rec = Recorder(httpx2.Response(200, json=completion()))
    client = make_client(rec)
    params = {
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
        "tool_choice": {"type": "function", "function": {"name": "f"}},
        "response_format": {"type": "json_object"},
        "stream_options": None,
        "seed": 7,
        "logprobs": True,
        "top_logprobs": 2,
        "n": 2,
        "stop": ["\n"],
        "user": "u1",
        "temperature": 0,
    }
    client.chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "x"}],
        extra_body={"some_future_param": {"x": [1, 2]}},
        **params,
    )
    body = rec.bodies()[0]
    for name, value in params.items():
        assert body[name] == value
    assert body["some_future_param"] == {"x": [1, 2]}


def test_extra_body_and_extra_headers_are_merged(make_client):
    rec = Recorder(httpx2.Response(200, json=completion()))
    client = make_client(rec, default_headers={"X-Team": "a"})
    client.chat.completions.create(
        model="m", messages=[], extra_body={"provider": {"order": ["x"]}}, extra_headers={"X-Trace": "t"}
    )
    assert rec.bodies()[0]["provider"] == {"order": ["x"]}
    assert rec.requests[0].headers["x-trace"] == "t"
    assert rec.requests[0].headers["x-team"] == "a"


def test_unknown_response_fields_are_kept(make_client):
    body = completion(provider_latency_ms=12)
    body["choices"][0]["message"]["reasoning_content"] = "thinking"
    client = make_client(Recorder(httpx2.Response(200, json=body)))
    result = client.chat.completions.create(model="m", messages=[])
    assert result.provider_latency_ms == 12  # type: ignore[attr-defined]
    assert result.choices[0].message.reasoning_content == "thinking"  # type: ignore[attr-defined]
    assert result.to_dict()["provider_latency_ms"] == 12


def test_embeddings_and_models(make_client):
    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.path.endswith("/embeddings"):
            assert json.loads(request.content) == {
                "model": "e",
                "input": ["a", "b"],
                "dimensions": 3,
                "encoding_format": "base64",  # as openai asks when the caller sets none
            }
            data = [{"object": "embedding", "index": i, "embedding": [0.1, 0.2, 0.3]} for i in range(2)]
            return httpx2.Response(200, json={"object": "list", "data": data, "model": "e"})
        if request.url.path.endswith("/models"):
            assert request.method == "GET"
            return httpx2.Response(200, json={"object": "list", "data": [{"id": "gpt-4.1", "owned_by": "x"}]})
        return httpx2.Response(200, json={"id": "gpt-4.1", "object": "model"})

    client = make_client(handler)
    emb = client.embeddings.create(model="e", input=["a", "b"], dimensions=3)
    assert [e.index for e in emb.data] == [0, 1]
    assert [m.id for m in client.models.list()] == ["gpt-4.1"]
    assert client.models.retrieve("gpt-4.1").id == "gpt-4.1"


def test_config_order_argument_then_environment_then_default(monkeypatch):
    monkeypatch.setenv("HOLYSHEEP_API_KEY", "sk-env")
    monkeypatch.setenv("HOLYSHEEP_BASE_URL", "http://127.0.0.1:9/v1/")
    with Client() as client:
        assert client.api_key == "sk-env"
        assert str(client.base_url) == "http://127.0.0.1:9/v1/"
    with Client(api_key="sk-arg", base_url="https://example.test/v1") as client:
        assert client.api_key == "sk-arg"
        assert str(client.base_url) == "https://example.test/v1/"
    monkeypatch.delenv("HOLYSHEEP_BASE_URL")
    with Client() as client:
        assert str(client.base_url) == "https://api.holysheep.ai/v1/"


def test_openai_api_key_is_never_read(monkeypatch):
    monkeypatch.delenv("HOLYSHEEP_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret")
    with pytest.raises(ConfigurationError) as info:
        Client()
    message = str(info.value)
    assert "api_key" in message and "HOLYSHEEP_API_KEY" in message
    assert "sk-openai-secret" not in message


def test_plain_http_to_a_remote_host_is_refused_unless_opted_in():
    with pytest.raises(ConfigurationError, match="plain http"):
        Client(api_key=KEY, base_url="http://relay.example.com/v1")
    Client(api_key=KEY, base_url="http://relay.example.com/v1", allow_insecure_http=True).close()
    Client(api_key=KEY, base_url="http://localhost:8000/v1").close()
    Client(api_key=KEY, base_url="http://[::1]:8000/v1").close()
    with Client(api_key=KEY) as client, pytest.raises(ConfigurationError):
        client.with_options(base_url="http://relay.example.com/v1")


def test_with_options_returns_a_configured_copy_sharing_the_pool(make_client):
    rec = Recorder(httpx2.Response(200, json=completion()))
    client = make_client(rec)
    copy = client.with_options(max_retries=5, timeout=3.0, default_headers={"X-A": "1"})
    assert copy.max_retries == 5 and client.max_retries == 2
    assert copy._http is client._http
    assert copy.usage is client.usage
    copy.chat.completions.create(model="m", messages=[])
    assert rec.requests[0].headers["x-a"] == "1"
    assert rec.requests[0].extensions["timeout"]["read"] == 3.0
    copy.close()
    client.chat.completions.create(model="m", messages=[])  # the pool still works after closing a copy


def test_per_call_timeout_reaches_the_transport(make_client):
    rec = Recorder(httpx2.Response(200, json=completion()))
    client = make_client(rec)
    client.chat.completions.create(model="m", messages=[], timeout=1.5)
    assert rec.requests[0].extensions["timeout"]["read"] == 1.5


def test_user_supplied_http_client_is_not_closed():
    http = httpx2.Client(transport=httpx2.MockTransport(lambda r: httpx2.Response(200, json=completion())))
    with Client(api_key=KEY, http_client=http) as client:
        client.chat.completions.create(model="m", messages=[])
    assert not http.is_closed
    http.close()


async def test_async_client_is_an_async_context_manager_that_closes_only_its_own_pool(make_async_client):
    rec = Recorder(httpx2.Response(200, json=completion("async")))
    async with make_async_client(rec) as client:
        result = await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        assert result.choices[0].message.content == "async"
    assert len(rec.requests) == 1
    assert not client._http.is_closed  # the caller's http_client stays theirs to close
    async with AsyncClient(api_key=KEY) as owned:
        assert not owned._http.is_closed
    assert owned._http.is_closed


def test_async_client_accepts_environment_key(monkeypatch):
    monkeypatch.setenv("HOLYSHEEP_API_KEY", "sk-env")
    client = AsyncClient()
    assert client.api_key == "sk-env"
