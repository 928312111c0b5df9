"""A key is only sent to the host it belongs to: a redirect to another host arrives without it.

Real sockets on two loopback addresses (127.0.0.1 redirects, 127.0.0.2 is "another host") record each
request head as sent, for the sync client and for the async client on both of its transports (the
aiohttp adapter, and httpx2's own when the environment asks for a proxy).
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from holyclient import AsyncClient, Client
from raw_http import canned_server, http_answer

KEY = "sk-holy-never-cross-hosts-0123456789"
MODELS = json.dumps({"object": "list", "data": []}).encode()


@contextmanager
def redirect_to_another_host(status: str) -> Iterator[tuple[str, list[bytes], list[bytes]]]:
    """(base URL of the first host, heads it got, heads the other host got)."""
    first, other = [], []
    answer = http_answer("200 OK", {"Content-Type": "application/json"}, MODELS)
    with canned_server(answer, other, host="127.0.0.2") as other_url:
        moved = http_answer(status, {"Location": other_url + "/models"})
        with canned_server(moved, first) as url:
            yield url, first, other


def assert_key_stayed_home(first: list[bytes], other: list[bytes]) -> None:
    assert len(first) == 1 and KEY.encode() in first[0]  # the key's own host got it
    assert len(other) == 1, "the redirect was not followed: nothing proven"
    assert b"127.0.0.2" in other[0]
    assert KEY.encode() not in other[0] and b"authorization" not in other[0].lower()


@pytest.mark.parametrize("status", ["302 Found", "307 Temporary Redirect", "308 Permanent Redirect"])
def test_the_sync_client_sends_no_key_to_the_host_a_redirect_points_at(status: str) -> None:
    with (
        redirect_to_another_host(status) as (url, first, other),
        Client(api_key=KEY, base_url=url, max_retries=0) as client,
    ):
        client.models.list()
    assert_key_stayed_home(first, other)


@pytest.mark.parametrize("transport", ["aiohttp", "httpx2"])
@pytest.mark.parametrize("status", ["302 Found", "307 Temporary Redirect"])
async def test_the_async_client_sends_no_key_to_the_host_a_redirect_points_at(
    status: str, transport: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if transport == "httpx2":  # a proxy setting (here only no_proxy) makes the client keep httpx2's transport
        monkeypatch.setattr(urllib.request, "getproxies", lambda: {"no": "127.0.0.1,127.0.0.2"})
    with redirect_to_another_host(status) as (url, first, other):
        async with AsyncClient(api_key=KEY, base_url=url, max_retries=0) as client:
            used = type(client._http._transport).__name__
            await client.models.list()
    assert ("Aiohttp" in used) == (transport == "aiohttp"), used
    assert_key_stayed_home(first, other)
