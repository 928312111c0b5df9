"""Redis clients that go down on demand (fakeredis underneath), for the shared limiter's outage tests."""

from __future__ import annotations

from typing import Any

import fakeredis


class Flaky:
    """A sync Redis client that is down while ``down`` is true."""

    def __init__(self, server: Any) -> None:
        self.real = fakeredis.FakeRedis(server=server)
        self.down = False

    def eval(self, *args: Any) -> Any:
        if self.down:
            import redis

            raise redis.exceptions.ConnectionError("Connection refused")
        return self.real.eval(*args)


class FlakyAsync(Flaky):
    """The async twin of :class:`Flaky`."""

    def __init__(self, server: Any) -> None:
        self.real = fakeredis.FakeAsyncRedis(server=server)
        self.down = False

    async def eval(self, *args: Any) -> Any:  # type: ignore[override]
        if self.down:
            import redis

            raise redis.exceptions.ConnectionError("Connection refused")
        return await self.real.eval(*args)
