"""The call-level extension point: a client class's ``_caller_factory`` runs each whole call.

A feature that decides how a call runs (a Router fails over between targets) plugs in a caller; it
overrides no private method of the client. These tests plug in one that records what it runs and
hands each call to the client's own retry loop.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import anyio
import pytest

from holyclient import AsyncClient, Client
from holyclient._send import AsyncRetryingCaller, RetryingCaller
from holyclient.testing import LocalServer

KEY = "sk-call-extension-point"
MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with LocalServer() as server:
        yield server


class Recording(RetryingCaller):
    """The client's own caller, noting each call it runs and the client it runs for."""

    __slots__ = ()
    seen: ClassVar[list[tuple[str, str, Any]]] = []

    def request(self, options: Any, cast_to: Any) -> Any:
        self.seen.append(("request", options.path, self.client))
        return super().request(options, cast_to)

    def stream(self, options: Any, cast_to: Any) -> Any:
        self.seen.append(("stream", options.path, self.client))
        return super().stream(options, cast_to)

    def page(self, options: Any, page_cls: Any) -> Any:
        self.seen.append(("page", options.path, self.client))
        return super().page(options, page_cls)


class AsyncRecording(AsyncRetryingCaller):
    """Async twin of :class:`Recording`."""

    __slots__ = ()
    seen: ClassVar[list[tuple[str, str, Any]]] = []

    async def request(self, options: Any, cast_to: Any) -> Any:
        self.seen.append(("request", options.path, self.client))
        return await super().request(options, cast_to)

    async def stream(self, options: Any, cast_to: Any) -> Any:
        self.seen.append(("stream", options.path, self.client))
        return await super().stream(options, cast_to)

    async def page(self, options: Any, page_cls: Any) -> Any:
        self.seen.append(("page", options.path, self.client))
        return await super().page(options, page_cls)


class RecordingClient(Client):
    _caller_factory = Recording


class AsyncRecordingClient(AsyncClient):
    _caller_factory = AsyncRecording


def test_a_client_class_s_caller_runs_every_call_and_a_copy_gets_its_own(server: LocalServer) -> None:
    Recording.seen.clear()
    with RecordingClient(api_key=KEY, base_url=server.base_url) as client:
        reply = client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        with client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True) as stream:
            chunks = list(stream)
        page = client.models.list()
        copy = client.with_options(max_retries=0)
        copy.models.list()
    assert reply.choices[0].message.content and chunks and page.data
    assert [(kind, path) for kind, path, _ in Recording.seen] == [
        ("request", "/chat/completions"),
        ("stream", "/chat/completions"),
        ("page", "/models"),
        ("request", "/models"),  # the first page is a request, bound to the client
        ("page", "/models"),
        ("request", "/models"),
    ]
    assert [served for *_, served in Recording.seen] == [client, client, client, client, copy, copy]


def test_an_async_client_class_s_caller_runs_every_call(server: LocalServer) -> None:
    AsyncRecording.seen.clear()

    async def main() -> None:
        async with AsyncRecordingClient(api_key=KEY, base_url=server.base_url) as client:
            await client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
            stream = await client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)
            async with stream:
                assert [chunk async for chunk in stream]
            page = await client.models.list()
            assert page.data
            assert [m async for m in client.models.list()]

    anyio.run(main)
    assert [(kind, path) for kind, path, _ in AsyncRecording.seen] == [
        ("request", "/chat/completions"),
        ("stream", "/chat/completions"),
        ("page", "/models"),
        ("request", "/models"),
        ("page", "/models"),
        ("request", "/models"),
    ]
