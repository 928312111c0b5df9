"""Test support shared across feature test modules: canned API bodies and a recording transport handler."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx2

KEY = "sk-holy-TESTKEY-0123456789abcdef"
BASE = "https://api.holysheep.ai/v1"


def completion(content: str = "hi", model: str = "gpt-4.1", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
    }
    body.update(extra)
    return body


def sse(*events: dict[str, Any] | str) -> bytes:
    out = b""
    for event in events:
        data = event if isinstance(event, str) else json.dumps(event)
        out += b"data: " + data.encode() + b"\n\n"
    return out


def chunk(content: str, model: str = "gpt-4.1", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": None}],
    }
    body.update(extra)
    return body


class Recorder:
    """A transport handler that answers from a script and records every request."""

    def __init__(self, *responses: httpx2.Response | Callable[[httpx2.Request], httpx2.Response]) -> None:
        self.responses = list(responses)
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        item = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        return item(request) if callable(item) else item

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]


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


class Body(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """A streamed response body sent in the chunks given (sync or async), recording whether it was closed:
    for tests of what a reader yields across chunk boundaries and whether it closes what it leaves."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks
        self.closed = False

    def __iter__(self) -> Iterator[bytes]:
        yield from self.chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk

    def close(self) -> None:
        self.closed = True

    async def aclose(self) -> None:
        self.closed = True
