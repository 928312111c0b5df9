"""pytest fixture ``holyclient_server``: a running :class:`~holyclient.testing.LocalServer` per test.

Enable it in your ``conftest.py`` (it is deliberately not auto-registered)::

    pytest_plugins = ["holyclient.testing.pytest_plugin"]

then::

    from holyclient import Client
    from holyclient.testing import Fault

    def test_retries_a_429(holyclient_server):
        holyclient_server.enqueue(Fault.status(429, retry_after=0))
        client = Client(base_url=holyclient_server.base_url, api_key="test")
        reply = client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])
        assert reply.choices[0].message.content == "Echo: hi"
        assert holyclient_server.stats["by_status"] == {"429": 1, "200": 1}

To configure the server, parametrize the fixture indirectly with ``LocalServer`` keyword arguments::

    @pytest.mark.parametrize("holyclient_server", [{"latency": 0.05}], indirect=True)
    def test_slow_server(holyclient_server): ...

The server is stopped (every connection closed) when the test ends. It works from sync and async
tests alike, since it runs on its own thread.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ._server import LocalServer


@pytest.fixture
def holyclient_server(request: pytest.FixtureRequest) -> Iterator[LocalServer]:
    """A started ``LocalServer`` on 127.0.0.1 (free port); ``request.param`` may hold its kwargs."""
    options = getattr(request, "param", None) or {}
    with LocalServer(**options) as server:
        yield server
