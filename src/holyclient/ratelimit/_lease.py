"""A shard lease in Redis: one worker per shard, so a second one exits instead of sending twice.

The lease is a key set with ``NX`` and a time to live, renewed by its holder well before it expires;
a worker killed with ``kill -9`` stops renewing and its lease lapses after :data:`LEASE_SECONDS`.
Renewal and release compare the holder's token first (a short Lua script), so a worker whose lease
lapsed never deletes or extends the lease of the worker that took over.
"""

from __future__ import annotations

import uuid
from typing import Any

from ._redis import key_hash

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

    async def take(self) -> None:
        """Take the lease, or raise :class:`LeaseHeldError` when another worker holds it."""
        if not await self.client.set(self.key, self.token, nx=True, px=self.millis):
            left = await self.client.pttl(self.key)
            raise LeaseHeldError(
                f"another worker is running this shard (its lease in Redis expires in {max(left, 0) / 1000:.0f} s "
                "unless renewed; if that worker died, run again after that)"
            )

    async def renew(self) -> bool:
        """Extend the lease; ``False`` when it was lost (expired and taken, or deleted)."""
        return bool(await self.client.eval(_RENEW, 1, self.key, self.token, self.millis))

    async def release(self) -> None:
        await self.client.eval(_RELEASE, 1, self.key, self.token)
