"""One AsyncClient, several event loops: one aiohttp session per loop, never closed under another loop."""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Iterator

import pytest

from holyclient import AsyncClient
from holyclient._http._aiohttp import AiohttpTransport
from holyclient.testing import LocalServer

KEY = "sk-aiohttp-loops-key"
USER = [{"role": "user", "content": "hello"}]


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with LocalServer() as running:
        yield running


def _transport(client: AsyncClient) -> AiohttpTransport:
    transport = client._http._transport
    assert isinstance(transport, AiohttpTransport)
    return transport


def test_two_loops_in_two_threads_share_one_client_without_closing_each_others_session(
    server: LocalServer,
) -> None:
    client = AsyncClient(api_key=KEY, base_url=server.base_url, max_retries=0)
    both_running = threading.Barrier(2, timeout=10)
    results: dict[str, list[object]] = {}

    async def work(name: str) -> None:
        async def ask() -> object:
            try:
                completion = await client.chat.completions.create(model="gpt-4.1", messages=USER)
                return completion.choices[0].message.content
            except Exception as exc:  # recorded: the assertion below names it
                return exc

        results[name] = [await ask()]
        await asyncio.to_thread(both_running.wait)  # both loops have a live session now
        results[name] += await asyncio.gather(*(ask() for _ in range(15)))
        await asyncio.to_thread(both_running.wait)
        results[name] += await asyncio.gather(*(ask() for _ in range(14)))

    threads = [threading.Thread(target=asyncio.run, args=(work(name),)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert sorted(results) == ["a", "b"]
    for name, answers in results.items():
        assert answers == ["Echo: hello"] * 30, (name, [a for a in answers if a != "Echo: hello"][:3])


def test_loops_one_after_another_each_close_their_session_when_they_end(server: LocalServer) -> None:
    client = AsyncClient(api_key=KEY, base_url=server.base_url)
    sessions = []

    async def ask() -> str | None:
        completion = await client.chat.completions.create(model="gpt-4.1", messages=USER)
        sessions.append(_transport(client)._sessions.current())
        return completion.choices[0].message.content

    assert asyncio.run(ask()) == "Echo: hello"
    assert asyncio.run(ask()) == "Echo: hello"
    assert sessions[0] is not sessions[1]
    assert all(session is not None and session.closed for session in sessions)  # closed as each loop ended
    asyncio.run(client.close())
    gc.collect()  # nothing left to warn about: filterwarnings=error would fail on an unclosed socket
    assert len(_transport(client)._sessions) == 0


# a loop closed without shutdown_asyncgens() leaves its keep-alive socket to the garbage collector
@pytest.mark.filterwarnings("ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_loop_closed_without_shutdown_gives_up_its_session_on_next_use(server: LocalServer) -> None:
    client = AsyncClient(api_key=KEY, base_url=server.base_url)

    async def ask() -> object:
        completion = await client.chat.completions.create(model="gpt-4.1", messages=USER)
        return completion.choices[0].message.content

    loop = asyncio.new_event_loop()
    assert loop.run_until_complete(ask()) == "Echo: hello"
    first = loop.run_until_complete(_current(client))
    loop.close()  # no shutdown_asyncgens(): the keeper never ran

    assert asyncio.run(ask()) == "Echo: hello"
    assert first is not None and first.closed
    asyncio.run(client.close())
    gc.collect()


async def _current(client: AsyncClient) -> object:
    return _transport(client)._sessions.current()
