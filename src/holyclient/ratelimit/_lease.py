"""A shard lease in Redis: one worker per shard, so a second one exits instead of sending twice.

The lease is a key set with ``NX`` and a time to live, renewed by its holder well before it expires;
a worker killed with ``kill -9`` stops renewing and its lease lapses after :data:`LEASE_SECONDS`.
Renewal and release compare the holder's token first (a short Lua script), so a worker whose lease
lapsed never deletes or extends the lease of the worker that took over.

A worker that finds the lease held waits for it to lapse before giving up: a Kubernetes Job restarts
a crashed pod at once, while the dead pod's lease still has up to :data:`LEASE_SECONDS` to live, and
exiting then would burn one of the Job's retries. A live holder renews its lease within
:data:`RENEW_EVERY`, so the wait tells the two apart: a lease whose time to live goes back up (or that
passes to another token) has a live holder, and the waiting worker exits; one that runs out was a dead
worker's, and the waiting worker takes it. The wait is bounded by the time the lease had left.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from ._url import key_hash

LEASE_SECONDS = 15.0
RENEW_EVERY = 5.0

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class LeaseHeldError(RuntimeError):
    """Another worker holds the lease of this shard."""


class LeaseLostError(LeaseHeldError):
    """The lease was lost while the run went (it lapsed and another worker took it, or it was deleted)."""


class ShardLease:
    """The lease on one shard of one batch, named by the API key's hash and the shard's output file name.

    Args:
        client: a ``redis.asyncio.Redis``.
        api_key: whose batch (only its hash is in the key name).
        name: the shard (e.g. ``results.jsonl.shard-2-of-8``).
    """

    def __init__(self, client: Any, api_key: str, name: str, *, seconds: float = LEASE_SECONDS) -> None:
        self.client = client
        self.key = f"holyclient:{{{key_hash(api_key)}}}:lease:{name}"
        self.token = uuid.uuid4().hex
        self.millis = int(seconds * 1000)

    async def take(
        self,
        *,
        on_wait: Callable[[float], None] | None = None,
        sleep: Callable[[float], Awaitable[Any]] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> bool:
        """Take the lease; when another worker holds it, wait for it to lapse and take it then.

        Args:
            on_wait: told the seconds the wait may last, once, when it starts.
            sleep / clock: injectable for tests (default ``anyio.sleep`` and ``time.monotonic``).

        Returns:
            ``True`` when the lease was taken over from a worker that stopped renewing it.

        Raises:
            LeaseHeldError: the holder is alive: it renewed the lease while we waited (or the lease
                passed to another worker, or it lives longer than a lease of ours could).
        """
        if await self._set():
            return False
        if sleep is None:
            import anyio

            sleep = anyio.sleep
        holder, left = await self._holder()
        if holder is None:  # released between the two calls: the holder finished
            if await self._set():
                return False
            holder, left = await self._holder()
        if holder is None or left < 0 or left > self.millis:
            raise LeaseHeldError(self._held(left))
        if on_wait is not None:
            on_wait(left / 1000)
        ends = clock() + left / 1000  # when the lease lapses unless it is renewed
        slack = self.millis / 20  # Redis and this clock disagree by a few ms; a renewal adds seconds
        while True:
            await sleep(max(min(self.millis / 15000, ends - clock()), 0.001))
            if await self._set():
                return True
            now_holder, now_left = await self._holder()
            if now_holder is None:
                continue  # lapsed or released just now: try again at once
            if now_holder != holder or now_left > (ends - clock()) * 1000 + slack:
                raise LeaseHeldError(self._held(now_left, renewed=True))
            if clock() > ends + max(slack / 1000, 1.0):
                raise LeaseHeldError(self._held(now_left))  # it should have lapsed: not ours to judge

    async def _set(self) -> bool:
        return bool(await self.client.set(self.key, self.token, nx=True, px=self.millis))

    async def _holder(self) -> tuple[Any, int]:
        """The holder's token (``None``: no lease) and the milliseconds its lease has left."""
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.get(self.key)
            pipe.pttl(self.key)
            holder, left = await pipe.execute()
        return holder, int(left)

    def _held(self, left: int, *, renewed: bool = False) -> str:
        how = "it renewed its lease while this one waited" if renewed else "its lease in Redis is live"
        return (
            f"another worker is running this shard ({how}, {max(left, 0) / 1000:.0f} s left on it): "
            "this worker stops, the other one finishes the shard"
        )

    async def renew(self) -> bool:
        """Extend the lease; ``False`` when it was lost (expired and taken, or deleted)."""
        return bool(await self.client.eval(_RENEW, 1, self.key, self.token, self.millis))

    async def release(self) -> None:
        await self.client.eval(_RELEASE, 1, self.key, self.token)
