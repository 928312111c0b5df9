"""Shared fixtures: a hermetic environment, mock transports and a recorded sleep, so no test waits or
leaves the machine, and no test depends on the developer's shell."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest

from hermetic import leaky_variables
from holyclient import AsyncClient, Client
from holyclient.testing import LocalServer
from support import KEY

#: Issue 40's bench of a primary and a backup server (``pair``): ``tests/failover_support.py``.
pytest_plugins = ["failover_support"]


@pytest.fixture
def local_server(request: pytest.FixtureRequest) -> Iterator[LocalServer]:
    """The one local server fixture: a started ``LocalServer`` on 127.0.0.1, stopped after the test.

    Configure it with ``LocalServer`` keyword arguments, for a test by indirect parametrization
    (``@pytest.mark.parametrize("local_server", [{"api_key": "k"}], indirect=True)``) or for a test or
    module by a marker (``pytestmark = pytest.mark.local_server(latency=0.01)``); the parameter wins.
    """
    marker = request.node.get_closest_marker("local_server")
    options = {**(marker.kwargs if marker else {}), **(getattr(request, "param", None) or {})}
    with LocalServer(**options) as server:
        yield server


@pytest.fixture(autouse=True)
def _hermetic_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts without HOLYSHEEP_*, OPENAI_*, HOLYCLIENT_DEBUG and proxy variables.

    Subprocesses started by a test inherit the cleaned ``os.environ`` too. A test that needs one of them
    sets it with ``monkeypatch.setenv`` (or uses :func:`api_key_env`).
    """
    for name in leaky_variables(os.environ):
        monkeypatch.delenv(name)
    monkeypatch.delenv("HOLYCLIENT_DEBUG", raising=False)


@pytest.fixture
def api_key_env(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """``HOLYSHEEP_API_KEY`` set for code that reads the key from the environment.

    The key is the test module's ``KEY`` when it defines one (several modules use their own key to
    prove that it never leaks), else :data:`support.KEY`.
    """
    key = getattr(request.module, "KEY", KEY)
    monkeypatch.setenv("HOLYSHEEP_API_KEY", key)
    return str(key)


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
