"""How a worker waits for a shard lease another worker holds (``ShardLease.take``), step by step.

The lease lives in a fake Redis on a hand-moved clock, so each test pins one piece of the wait's
arithmetic exactly: the poll step (a fifteenth of the lease), the last sleep (only what the lease has
left), the tolerance for Redis's clock (a twentieth of the lease), the races between ``SET NX`` and
``GET``/``PTTL``. Each kills named mutants of ``ratelimit/_lease.py`` (issue 25, item 7).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from holyclient.ratelimit import LeaseHeldError
from holyclient.ratelimit._lease import ShardLease

KEY = "sk-holy-lease-wait-key"
NAME = "out.jsonl.shard-0-of-2"
OTHER = b"another-workers-token"


class _Pipe:
    """``GET`` and ``PTTL`` of the lease key in one round trip, as ``client.pipeline()`` does: in one
    transaction (MULTI/EXEC, redis-py's default) or, with ``transaction=False``, as two commands that
    another worker's command may come between (``LeaseRedis.between``)."""

    def __init__(self, redis: LeaseRedis, atomic: bool) -> None:
        self.redis = redis
        self.atomic = atomic

    async def __aenter__(self) -> _Pipe:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    def get(self, key: str) -> None:
        return None

    def pttl(self, key: str) -> None:
        return None

    async def execute(self) -> list[Any]:
        redis = self.redis
        if redis.races_on_look or self.atomic:
            answer = redis.look()
            redis.meanwhile()  # after the transaction: nothing comes between its two commands
            return answer
        holder = redis.look()[0]
        redis.meanwhile()
        return [holder, redis.look()[1]]


class LeaseRedis:
    """A Redis holding one lease on a clock the test moves (seconds).

    ``races_on_set`` / ``races_on_look`` are answers given once each, in order, before the state is
    read: another worker taking or releasing the lease between two of our calls. ``between`` are
    another worker's commands, run once each, in order, after our next GET (before our PTTL when the
    two are not one transaction).
    """

    def __init__(self, now: float = 100.0) -> None:
        self.now = now
        self.holder: bytes | None = None
        self.expires: float | None = None  # None with a holder: a key without a time to live
        self.races_on_set: list[Any] = []
        self.races_on_look: list[list[Any]] = []
        self.between: list[Callable[[LeaseRedis], None]] = []

    def hold(self, token: bytes, millis: int | None) -> None:
        self.holder = token
        self.expires = None if millis is None else self.now + millis / 1000

    def _lapse(self) -> None:
        if self.expires is not None and self.now >= self.expires:
            self.holder, self.expires = None, None

    async def set(self, key: str, token: str, *, nx: bool, px: int) -> Any:
        if self.races_on_set:
            return self.races_on_set.pop(0)
        self._lapse()
        if self.holder is not None:
            return None
        self.hold(token.encode(), px)
        return True

    def pipeline(self, transaction: bool = True) -> _Pipe:
        return _Pipe(self, bool(transaction))

    def meanwhile(self) -> None:
        if self.between:
            self.between.pop(0)(self)

    def look(self) -> list[Any]:
        if self.races_on_look:
            return self.races_on_look.pop(0)
        self._lapse()
        if self.holder is None:
            return [None, -2]
        left = -1 if self.expires is None else round((self.expires - self.now) * 1000)
        return [self.holder, left]


class Waiter:
    """The injected sleep and clock of ``take``: records each sleep, moves the clock by it (or as the
    step's hook says) and runs that step's hook (the other worker renewing, dying, ...)."""

    def __init__(
        self, redis: LeaseRedis, hooks: dict[int, Callable[[LeaseRedis], None]] | None = None
    ) -> None:
        self.redis = redis
        self.hooks = hooks or {}
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.redis.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.redis.now += seconds
        hook = self.hooks.get(len(self.sleeps))
        if hook is not None:
            hook(self.redis)


async def _take(
    redis: LeaseRedis, waiter: Waiter, *, seconds: float = 15.0, waits: list[float] | None = None
) -> Any:
    lease = ShardLease(redis, KEY, NAME, seconds=seconds)
    on_wait = waits.append if waits is not None else None
    return await lease.take(on_wait=on_wait, sleep=waiter.sleep, clock=waiter.clock)


def _released(redis: LeaseRedis) -> None:
    redis.holder, redis.expires = None, None


async def test_a_shard_lease_waits_in_steps_of_a_fifteenth_then_only_the_rest_of_the_lease() -> None:
    redis = LeaseRedis()
    redis.hold(OTHER, 2500)  # a dead worker's lease, 2.5 s left; ours would live 15 s: 1 s steps
    waiter = Waiter(redis)
    assert await _take(redis, waiter) is True
    assert waiter.sleeps == [1.0, 1.0, 0.5]  # not a whole step past the lapse, not a step short of it


async def test_redis_showing_up_to_a_twentieth_of_the_lease_more_than_expected_is_not_a_renewal() -> None:
    redis = LeaseRedis()
    redis.hold(OTHER, 2500)  # lapses at 102.5 by our clock

    def lagging(redis: LeaseRedis) -> None:  # Redis's clock lags: 2.25 s left where we expect 1.5 s
        redis.expires = 103.25

    waiter = Waiter(redis, {1: lagging, 2: _released})
    assert await _take(redis, waiter) is True  # 750 ms is the tolerance (15 s / 20): kept waiting


async def test_redis_showing_more_than_the_tolerance_above_the_expected_time_left_is_a_renewal() -> None:
    redis = LeaseRedis()
    redis.hold(OTHER, 2500)

    def renewed(redis: LeaseRedis) -> None:  # 2.251 s left where at most 1.5 s + 0.75 s could be
        redis.expires = 103.251

    waiter = Waiter(redis, {1: renewed, 2: _released})
    with pytest.raises(LeaseHeldError, match="it renewed its lease while this one waited, 2 s left"):
        await _take(redis, waiter)
    assert waiter.sleeps == [1.0]


def _persisted_at(now: float) -> Callable[[LeaseRedis], None]:
    """The holder's key loses its time to live (PTTL -1) and our clock reads ``now``."""

    def hook(redis: LeaseRedis) -> None:
        redis.expires = None
        redis.now = now

    return hook


async def test_a_lease_still_there_past_its_end_and_the_tolerance_is_refused_as_live() -> None:
    redis = LeaseRedis()
    redis.hold(OTHER, 3000)  # ends at 103.0; a 30 s lease of ours: tolerance 1.5 s
    waiter = Waiter(redis, {1: _persisted_at(104.5005)})
    with pytest.raises(LeaseHeldError) as caught:
        await _take(redis, waiter, seconds=30.0)
    assert str(caught.value) == (
        "another worker is running this shard (its lease in Redis is live, 0 s left on it): "
        "this worker stops, the other one finishes the shard"
    )
    assert len(waiter.sleeps) == 1  # judged at the first look past the tolerance, not later


async def test_a_lease_seen_exactly_at_its_end_plus_the_tolerance_is_still_waited_for() -> None:
    redis = LeaseRedis()
    redis.hold(OTHER, 3000)
    waiter = Waiter(redis, {1: _persisted_at(104.5), 2: _released})
    assert await _take(redis, waiter, seconds=30.0) is True


async def test_a_lease_that_lapses_between_our_set_and_our_look_is_tried_again_not_given_up() -> None:
    redis = LeaseRedis()
    redis.hold(OTHER, 2500)

    def raced(redis: LeaseRedis) -> None:  # our SET NX still saw it; by our GET it had lapsed
        redis.races_on_set.append(None)
        redis.races_on_look.append([None, -2])

    waiter = Waiter(redis, {1: raced, 2: _released})
    assert await _take(redis, waiter) is True
    assert len(waiter.sleeps) == 2


async def test_a_lease_released_and_taken_by_a_third_worker_between_our_calls_is_waited_for() -> None:
    redis = LeaseRedis()
    redis.races_on_set += [None, None]  # held at our first SET NX, taken again at our second
    redis.races_on_look.append([None, -2])  # released in between
    redis.hold(OTHER, 4000)  # the third worker's lease, as our second look finds it
    waits: list[float] = []
    waiter = Waiter(redis, {1: _released})
    assert await _take(redis, waiter, waits=waits) is True
    assert waits == [4.0]


@pytest.mark.parametrize("left", [0, 15_000])
async def test_a_lease_with_no_time_or_a_whole_lease_left_is_waited_for(left: int) -> None:
    redis = LeaseRedis()
    redis.races_on_set.append(None)
    redis.races_on_look.append([OTHER, left])  # lapsing this very millisecond / just taken
    waits: list[float] = []
    assert await _take(redis, Waiter(redis), waits=waits) is True
    assert waits == [left / 1000]


async def test_a_lease_released_while_we_read_its_holder_and_time_left_is_taken_not_called_live() -> None:
    """GET and PTTL in one transaction: a release cannot come between them and read as a holder with
    no time to live (which would refuse the shard as "live" the moment its worker finished it)."""
    redis = LeaseRedis()
    redis.hold(OTHER, 10_000)
    redis.between.append(_released)  # the holder finishes its shard just as we look
    waiter = Waiter(redis)
    assert await _take(redis, waiter) is True
    assert waiter.sleeps == [1.0]  # taken at the first poll
