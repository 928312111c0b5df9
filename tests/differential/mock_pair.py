"""Run the same app code through ``openai`` and ``holyclient`` over one ``httpx2.MockTransport``.

The third way of the differential harness (see ``differential/conftest.py``): no server at all, a fake
transport handler (``support.Canned``, ``support.Recorder`` or ``differential.fake_api.FakeAPI``) in front
of both SDKs.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx2
import openai

import holyclient
from support import KEY

BASE = "https://api.holysheep.ai/v1"


def sdk_client(sdk: str, http: httpx2.Client, base_url: str = BASE) -> openai.OpenAI | holyclient.Client:
    """``"openai"`` or ``"holyclient"``'s sync client on ``http``, without retries."""
    if sdk == "openai":
        return openai.OpenAI(api_key=KEY, base_url=base_url, http_client=http, max_retries=0)
    return holyclient.Client(api_key=KEY, base_url=base_url, http_client=http, max_retries=0)


def sync_clients(
    handler: Callable[[httpx2.Request], httpx2.Response],
) -> tuple[openai.OpenAI, holyclient.Client]:
    def http() -> httpx2.Client:
        return httpx2.Client(transport=httpx2.MockTransport(handler))

    theirs, ours = sdk_client("openai", http()), sdk_client("holyclient", http())
    assert isinstance(theirs, openai.OpenAI) and isinstance(ours, holyclient.Client)
    return theirs, ours


def async_clients(
    handler: Callable[[httpx2.Request], httpx2.Response],
) -> tuple[openai.AsyncOpenAI, holyclient.AsyncClient]:
    def http() -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(handler))

    theirs = openai.AsyncOpenAI(api_key=KEY, base_url=BASE, http_client=http(), max_retries=0)
    ours = holyclient.AsyncClient(api_key=KEY, base_url=BASE, http_client=http(), max_retries=0)
    return theirs, ours
