"""The shared limiter's Redis connections: how they give up, one per event loop, closed once.

A silent or refusing Redis must make a worker fall back at once (a short socket timeout, no retry),
and a script that runs ``asyncio.run`` per job must not leave one open connection per run behind.
The connections are real ``redis`` clients where only their options are read, and fakeredis-backed
stand-ins (counting ``aclose``) where the limiter talks to them. Each test kills named mutants of
``ratelimit/_redis.py`` (issue 25, item 7).
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from typing import Any

import pytest

fakeredis = pytest.importorskip("fakeredis")
pytest.importorskip("lupa")

import redis  # noqa: E402
import redis.asyncio  # noqa: E402

from holyclient.ratelimit import RedisLimiter  # noqa: E402
from holyclient.ratelimit import _redis as redis_module  # noqa: E402

KEY = "sk-holy-limiter-connections-key"
URL = "redis://127.0.0.1:1/0"


def _refused() -> Any:
    raise redis.exceptions.ConnectionError("Connection refused")


async def _refused_async() -> Any:
    raise redis.exceptions.ConnectionError("Connection refused")


def test_the_sync_redis_client_times_out_after_two_seconds_and_never_retries() -> None:
    client = RedisLimiter(URL, rpm=10, api_key=KEY)._sync_client()
    options = client.connection_pool.connection_kwargs
    assert options["socket_timeout"] == options["socket_connect_timeout"] == redis_module.REDIS_TIMEOUT
    tries: list[BaseException] = []
    with pytest.raises(redis.exceptions.ConnectionError):
        client.get_retry().call_with_retry(_refused, tries.append)
    assert len(tries) == 1  # unreachable means fall back now, not after a few more tries


async def test_the_async_redis_client_times_out_after_two_seconds_and_never_retries() -> None:
    limiter = RedisLimiter(URL, rpm=10, api_key=KEY)
    client = await limiter.connection()
    try:
        options = client.connection_pool.connection_kwargs
        assert options["socket_timeout"] == options["socket_connect_timeout"] == redis_module.REDIS_TIMEOUT
        tries: list[BaseException] = []

        async def failed(error: BaseException) -> None:
            tries.append(error)

        with pytest.raises(redis.exceptions.ConnectionError):
            await client.get_retry().call_with_retry(_refused_async, failed)
        assert len(tries) == 1
    finally:
        await limiter.aclose()


class _Connection:
    """What ``redis.asyncio.Redis.from_url`` returns here: fakeredis underneath, closes counted."""

    def __init__(self, server: Any) -> None:
        self.real = fakeredis.FakeAsyncRedis(server=server)
        self.closes = 0

    async def eval(self, *args: Any) -> Any:
        return await self.real.eval(*args)

    async def aclose(self) -> None:
        self.closes += 1


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[_Connection]]:
    """Every connection the limiter opens, in order (none reaches a network)."""
    server = fakeredis.FakeServer()
    made: list[_Connection] = []

    def from_url(url: str, **options: Any) -> _Connection:
        made.append(_Connection(server))
        return made[-1]

    monkeypatch.setattr(redis.asyncio.Redis, "from_url", from_url)
    yield made


async def _settle_loop() -> None:
    """Let the loop run what it scheduled (a garbage-collected async generator's ``aclose``)."""
    gc.collect()
    for _ in range(3):
        await asyncio.sleep(0)


def test_one_connection_per_event_loop_kept_while_it_runs_and_closed_when_it_ends(
    opened: list[_Connection],
) -> None:
    limiter = RedisLimiter(URL, rpm=100, api_key=KEY)

    async def job(run: int) -> None:
        await limiter.acquire("m", 0)
        await _settle_loop()
        await limiter.acquire("m", 0)
        assert len(opened) == run and opened[-1].closes == 0  # the same one, still open

    asyncio.run(job(1))
    asyncio.run(job(2))
    assert [connection.closes for connection in opened] == [1, 1]
    assert limiter._async_clients == {} and limiter._closers == {}  # nothing kept for a dead loop


def test_aclose_closes_this_loops_connection_at_once_and_the_loop_does_not_close_it_again(
    opened: list[_Connection],
) -> None:
    limiter = RedisLimiter(URL, rpm=100, api_key=KEY)

    async def job() -> None:
        await limiter.acquire("m", 0)
        await limiter.aclose()
        assert opened[0].closes == 1

    asyncio.run(job())
    assert [connection.closes for connection in opened] == [1]


def test_aclose_also_closes_a_connection_another_open_loop_made_and_forgets_it(
    opened: list[_Connection],
) -> None:
    limiter = RedisLimiter(URL, rpm=100, api_key=KEY)
    other = asyncio.new_event_loop()
    try:
        other.run_until_complete(limiter.acquire("m", 0))  # that loop stays open
        asyncio.run(limiter.acquire("m", 0))  # a loop of its own, its own connection, closed with it
        assert [connection.closes for connection in opened] == [0, 1]
        asyncio.run(limiter.aclose())
        assert [connection.closes for connection in opened] == [1, 1]
        assert limiter._closers == {}  # the other loop's closer is forgotten with its connection
        other.run_until_complete(limiter.acquire("m", 0))  # a new connection, not the closed one
        other.run_until_complete(_settle_loop())  # the old closer, replaced, is finalized
        other.run_until_complete(limiter.acquire("m", 0))
        assert len(opened) == 3  # the new one was neither closed under the loop nor opened again
        assert [connection.closes for connection in opened] == [1, 1, 0]
    finally:
        other.run_until_complete(other.shutdown_asyncgens())
        other.close()


def test_an_async_client_passed_in_is_used_on_every_loop_and_never_closed_by_the_limiter(
    opened: list[_Connection],
) -> None:
    mine = _Connection(fakeredis.FakeServer())
    limiter = RedisLimiter(URL, rpm=100, api_key=KEY, async_client=mine)

    async def job() -> None:
        assert (await limiter.acquire("m", 0)).shared
        await limiter.aclose()

    asyncio.run(job())
    asyncio.run(job())  # still usable after aclose, on another loop
    assert opened == [] and mine.closes == 0  # the caller owns it


class _Slow:
    """A shared async connection whose first ``eval`` (the first thread's) waits until ``go`` is set."""

    def __init__(self, server: Any) -> None:
        import threading

        self.real = fakeredis.FakeAsyncRedis(server=server)
        self.first = threading.Event()
        self.go = threading.Event()

    async def eval(self, *args: Any) -> Any:
        if not self.first.is_set():
            self.first.set()
            while not self.go.is_set():
                await asyncio.sleep(0.005)
        return await self.real.eval(*args)


def test_two_threads_each_on_its_own_event_loop_share_one_limiter_and_neither_hangs() -> None:
    """Each event loop waits on a lock of its own: a lock shared by two loops wakes the second loop's
    waiter from the first loop's thread (``Future.set_result`` is not thread-safe), so it never woke."""
    import threading

    slow = _Slow(fakeredis.FakeServer())
    limiter = RedisLimiter(URL, rpm=1000, api_key=KEY, burst_seconds=60.0, async_client=slow)
    shared: dict[str, bool] = {}

    def worker(name: str) -> None:
        async def job() -> None:
            shared[name] = (await limiter.acquire("m", 0)).shared

        asyncio.run(job())

    first = threading.Thread(target=worker, args=("first",), daemon=True)
    first.start()
    assert slow.first.wait(10)  # the first loop holds its probe, waiting on Redis
    second = threading.Thread(target=worker, args=("second",), daemon=True)
    second.start()
    second.join(0.3)  # the second loop is waiting (or done) meanwhile
    slow.go.set()
    first.join(10)
    second.join(10)
    assert not second.is_alive(), "the second event loop never woke up"
    assert shared == {"first": True, "second": True}
