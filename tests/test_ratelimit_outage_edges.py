"""The shared limiter around a Redis outage, on fakeredis and an injected clock (issue 34).

What the local fallback admits while a probe is still charging Redis with the outage's admissions is
charged in its turn (the module docstring of ``ratelimit/_redis.py`` promises it; nothing tested it),
sync and async; and the probe and the owed window sit exactly where they are documented: Redis is tried
again once ``PROBE_INTERVAL`` has passed, and an admission exactly one window old is no longer owed.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import anyio
import pytest

fakeredis = pytest.importorskip("fakeredis")
pytest.importorskip("lupa")

from flaky_redis import Flaky, FlakyAsync  # noqa: E402
from holyclient.ratelimit import Admission, RedisLimiter  # noqa: E402
from holyclient.ratelimit._redis import PROBE_INTERVAL  # noqa: E402

KEY = "sk-holy-limiter-outage-key"
URL = "redis://127.0.0.1:1/0"
WINDOW = 60.0


class Clock:
    """The limiter's monotonic clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _op(args: tuple[Any, ...]) -> Any:
    return args[6]  # eval(SCRIPT, 4, four keys, op, ...)


class GatedAsync(FlakyAsync):
    """Stops in the first ``charge`` (the probe paying the outage's admissions) until ``go`` is set."""

    def __init__(self, server: Any) -> None:
        super().__init__(server)
        self.charging = asyncio.Event()
        self.go = asyncio.Event()

    async def eval(self, *args: Any) -> Any:  # type: ignore[override]
        if not self.down and _op(args) == "charge" and not self.go.is_set():
            self.charging.set()
            await self.go.wait()
        return await super().eval(*args)


class GatedSync(Flaky):
    """The sync twin of :class:`GatedAsync`, for a probe running in another thread."""

    def __init__(self, server: Any) -> None:
        super().__init__(server)
        self.charging = threading.Event()
        self.go = threading.Event()

    def eval(self, *args: Any) -> Any:
        if not self.down and _op(args) == "charge" and not self.go.is_set():
            self.charging.set()
            assert self.go.wait(30)
        return super().eval(*args)


def _held(server: Any) -> int:
    """How many requests the shared window holds now, counted by filling it up to 20 from another worker."""
    redis = fakeredis.FakeRedis(server=server)
    other = RedisLimiter(URL, rpm=20, window=WINDOW, api_key=KEY, burst_seconds=1000.0, client=redis)
    room = 0
    while int(other._eval_sync("m", other._args("acquire", 0, other._next_id()))[0]):
        room += 1
    return 20 - room


def _limiter(clock: Clock, **kwargs: Any) -> RedisLimiter:
    return RedisLimiter(
        URL,
        rpm=600,  # its fallback paces 10 a second: never a wait here (the fallback sleeps in real time)
        window=WINDOW,
        api_key=KEY,
        burst_seconds=1000.0,
        clock=clock,
        on_event=lambda _: None,
        **kwargs,
    )


async def test_what_the_fallback_admits_while_a_probe_charges_the_outage_is_charged_next_async() -> None:
    clock, server = Clock(), fakeredis.FakeServer()
    redis = GatedAsync(server)
    limiter = _limiter(clock, async_client=redis)
    redis.down = True
    assert not (await limiter.acquire("m", 0)).shared  # the outage: one admission owed
    redis.down = False
    clock.now += PROBE_INTERVAL
    probed: list[Admission] = []

    async def probe() -> None:
        probed.append(await limiter.acquire("m", 0))

    async with anyio.create_task_group() as tg:
        tg.start_soon(probe)
        await redis.charging.wait()  # the probe is sending the outage's charge to Redis
        during = await limiter.acquire("m", 0)  # Redis still counts as down: the fallback admits it
        assert not during.shared
        redis.go.set()
    assert probed[0].shared
    assert (await limiter.acquire("m", 0)).shared  # charges the admission made during the probe first
    assert _held(server) == 4  # the outage's, the probe's, the one during it, the last one


def test_what_the_fallback_admits_while_a_probe_charges_the_outage_is_charged_next_sync() -> None:
    clock, server = Clock(), fakeredis.FakeServer()
    redis = GatedSync(server)
    limiter = _limiter(clock, client=redis)
    redis.down = True
    assert not limiter.acquire_sync("m", 0).shared
    redis.down = False
    clock.now += PROBE_INTERVAL
    probed: list[Admission] = []
    thread = threading.Thread(target=lambda: probed.append(limiter.acquire_sync("m", 0)))
    thread.start()
    try:
        assert redis.charging.wait(30)
        during = limiter.acquire_sync("m", 0)  # the probe holds the thread lock: the fallback admits it
        assert not during.shared
    finally:
        redis.go.set()
        thread.join(30)
    assert probed[0].shared
    assert limiter.acquire_sync("m", 0).shared
    assert _held(server) == 4


@pytest.mark.parametrize(("after", "shared"), [(PROBE_INTERVAL - 0.001, False), (PROBE_INTERVAL, True)])
def test_redis_is_tried_again_once_the_probe_interval_has_passed_not_before(
    after: float, shared: bool
) -> None:
    clock = Clock()
    redis = Flaky(fakeredis.FakeServer())
    limiter = _limiter(clock, client=redis)
    redis.down = True
    limiter.acquire_sync("m", 0)  # goes down now: the next probe is due PROBE_INTERVAL later
    redis.down = False
    clock.now += after
    assert limiter.acquire_sync("m", 0).shared is shared


@pytest.mark.parametrize(("age", "owed"), [(WINDOW - 0.001, 1), (WINDOW, 0)])
def test_an_outage_admission_is_owed_to_the_shared_window_until_exactly_one_window_old(
    age: float, owed: int
) -> None:
    clock, server = Clock(), fakeredis.FakeServer()
    redis = Flaky(server)
    limiter = _limiter(clock, client=redis)
    redis.down = True
    limiter.acquire_sync("m", 0)  # admitted by the fallback at 1000.0
    redis.down = False
    clock.now += age
    assert limiter.acquire_sync("m", 0).shared
    assert _held(server) == 1 + owed


async def test_the_fallback_counts_its_window_on_the_limiters_clock() -> None:
    clock = Clock()
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        assert len(sleeps) < 5, (
            f"still waiting after {sleeps}: the fallback does not read the limiter's clock"
        )
        sleeps.append(seconds)
        clock.now += seconds

    redis = FlakyAsync(fakeredis.FakeServer())
    redis.down = True
    limiter = RedisLimiter(
        URL,
        rpm=1,
        window=WINDOW,
        api_key=KEY,
        async_client=redis,
        clock=clock,
        sleep=sleep,
        on_event=lambda _: None,
    )
    assert not (await limiter.acquire("m", 0)).shared
    assert not (await limiter.acquire("m", 0)).shared  # one request a window: waits it out on `clock`
    assert len(sleeps) == 1 and WINDOW < sleeps[0] < WINDOW + 1


async def test_a_threads_probe_and_an_event_loops_probe_at_once_both_finish() -> None:
    """The sync and async twins probe Redis under locks of their own: both charge the outage's admission
    and the second to settle it finds it settled already (once taken for "cannot happen")."""
    clock, server = Clock(), fakeredis.FakeServer()
    sync_redis, async_redis = GatedSync(server), GatedAsync(server)
    limiter = _limiter(clock, client=sync_redis, async_client=async_redis)
    sync_redis.down = async_redis.down = True
    assert not limiter.acquire_sync("m", 0).shared  # the outage: one admission owed
    sync_redis.down = async_redis.down = False
    clock.now += PROBE_INTERVAL
    probed: list[Admission] = []
    thread = threading.Thread(target=lambda: probed.append(limiter.acquire_sync("m", 0)))
    thread.start()
    try:
        assert await anyio.to_thread.run_sync(sync_redis.charging.wait, 30)
        async with anyio.create_task_group() as tg:

            async def probe() -> None:
                probed.append(await limiter.acquire("m", 0))

            tg.start_soon(probe)
            await async_redis.charging.wait()  # both probes are charging the same admission
            sync_redis.go.set()
            await anyio.to_thread.run_sync(thread.join, 30)  # the thread's probe settles it first
            async_redis.go.set()
    finally:
        sync_redis.go.set()
        thread.join(30)
    assert len(probed) == 2 and all(admission.shared for admission in probed)
