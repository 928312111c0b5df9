"""Shared fixtures: mock transports and a recorded sleep, so no test waits or leaves the machine."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest

from holyclient import AsyncClient, Client
from support import KEY


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def make_client(sleeps: list[float]) -> Iterator[Callable[..., Client]]:
    clients: list[Client] = []

    def make(handler: Callable[[httpx2.Request], httpx2.Response], **kwargs: Any) -> Client:
        http = httpx2.Client(transport=httpx2.MockTransport(handler))
        kwargs.setdefault("api_key", KEY)
        client = Client(http_client=http, sleep=sleeps.append, **kwargs)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client._http.close()


@pytest.fixture
def make_async_client(sleeps: list[float]) -> Callable[..., AsyncClient]:
    async def record(seconds: float) -> None:
        sleeps.append(seconds)

    def make(handler: Callable[[httpx2.Request], httpx2.Response], **kwargs: Any) -> AsyncClient:
        http = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
        kwargs.setdefault("api_key", KEY)
        return AsyncClient(http_client=http, sleep=record, **kwargs)

    return make
