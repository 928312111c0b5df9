"""Client options openai apps rely on: a rotating key, organization/project, default query, copies."""

from __future__ import annotations

import logging

import pytest

from holyclient import AsyncClient, AuthenticationError, Client, ConfigurationError
from holyclient.testing import Fault, LocalServer

SECRET = "sk-rotating-secret-0123456789"


def test_a_callable_key_never_shows_in_reprs_logs_or_errors(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="holyclient")
    with LocalServer() as server:
        server.enqueue(Fault.status(500), Fault.status(401))
        client = Client(api_key=lambda: SECRET, base_url=server.base_url, max_retries=1, sleep=lambda s: None)
        with pytest.raises(AuthenticationError) as info:
            client.models.retrieve("gpt-4.1")
        client.close()
    text = " ".join([repr(client), str(info.value), repr(info.value.request.headers), caplog.text])
    assert SECRET not in text
    assert server.stats["by_status"] == {"500": 1, "401": 1}  # the retry asked the provider again


def test_a_provider_returning_no_key_is_a_configuration_error() -> None:
    client = Client(api_key=lambda: "", base_url="http://127.0.0.1:9")
    with pytest.raises(ConfigurationError, match="non-empty string"):
        client.models.list()


async def test_an_async_provider_is_awaited_before_each_request() -> None:
    keys: list[str] = []

    async def provider() -> str:
        keys.append("sk-a")
        return "sk-a"

    with LocalServer(api_key="sk-a") as server:
        async with AsyncClient(api_key=provider, base_url=server.base_url) as client:
            await client.models.retrieve("gpt-4.1")
            await client.models.retrieve("gpt-4.1")
    assert keys == ["sk-a", "sk-a"]


def test_copies_merge_default_query_and_headers_and_change_organization() -> None:
    with LocalServer() as server:
        with Client(
            api_key="k", base_url=server.base_url, organization="org-a", default_query={"a": "1"}
        ) as client:
            copy = client.copy(organization="org-b", project="p", default_query={"b": "2"})
            copy.models.retrieve("gpt-4.1")
            client.models.retrieve("gpt-4.1")
        first, second = server.requests
    assert (first.headers["openai-organization"], first.headers["openai-project"]) == ("org-b", "p")
    assert first.query == "a=1&b=2"
    assert second.headers["openai-organization"] == "org-a" and "openai-project" not in second.headers
    assert second.query == "a=1"
