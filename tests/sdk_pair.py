"""Run the same app code through ``openai`` and ``holyclient`` over one ``httpx2.MockTransport``."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx2
import openai

import holyclient
from support import KEY, sse

BASE = "https://api.holysheep.ai/v1"


class Canned:
    """A handler answering every request with one body (JSON, or SSE for a list of chunks)."""

    def __init__(self, body: dict[str, Any] | list[dict[str, Any]]) -> None:
        self.body = body
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(json.loads(request.content or b"null"))
        if isinstance(self.body, list):
            content = sse(*self.body, "[DONE]")
            return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=content)
        return httpx2.Response(200, json=self.body)


def sync_clients(
    handler: Callable[[httpx2.Request], httpx2.Response],
) -> tuple[openai.OpenAI, holyclient.Client]:
    def http() -> httpx2.Client:
        return httpx2.Client(transport=httpx2.MockTransport(handler))

    theirs = openai.OpenAI(api_key=KEY, base_url=BASE, http_client=http(), max_retries=0)
    ours = holyclient.Client(api_key=KEY, base_url=BASE, http_client=http(), max_retries=0)
    return theirs, ours


def async_clients(
    handler: Callable[[httpx2.Request], httpx2.Response],
) -> tuple[openai.AsyncOpenAI, holyclient.AsyncClient]:
    def http() -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(handler))

    theirs = openai.AsyncOpenAI(api_key=KEY, base_url=BASE, http_client=http(), max_retries=0)
    ours = holyclient.AsyncClient(api_key=KEY, base_url=BASE, http_client=http(), max_retries=0)
    return theirs, ours
