"""What the shared limiter's Lua script keeps in Redis, on fakeredis and on a real ``redis-server``
(issue 34: three hand-made mutants of ``ratelimit/_script.py`` that no test killed).

The budget's running sums expire with the admissions they sum; real usage above an admission's charge
drains the token bucket as well as the window; and that extra leaves the window when its request does,
not a window after the answer came. fakeredis runs on a clock the test moves (``TIME`` and key expiry
alike); a real server's clock cannot be moved, so there "later" is said through what the script reads
(an admission's stamp, the keys a lapsed time to live deletes).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

fakeredis = pytest.importorskip("fakeredis")
pytest.importorskip("lupa")

import redis  # noqa: E402

from holyclient.ratelimit import Admission, Feedback, RedisLimiter  # noqa: E402
from redis_server import RedisServer, redis_server_fixture  # noqa: E402, F401

KEY = "sk-holy-limiter-state-key"
URL = "redis://127.0.0.1:1/0"


class Backend:
    """One Redis, fake or real, and how a test says "later" on it."""

    def __init__(self, client: Any, clock: list[float] | None) -> None:
        self.client = client
        self.clock = clock  # fakeredis's clock, or None for a real server

    def limiter(self, **kwargs: Any) -> RedisLimiter:
        kwargs.setdefault("window", 60)
        return RedisLimiter(URL, api_key=KEY, client=self.client, **kwargs)

    def answered_later(self, admission: Admission, seconds: float) -> Admission:
        """``admission`` as its answer ``seconds`` later feeds it back."""
        if self.clock is not None:
            self.clock[0] += seconds
            return admission
        return dataclasses.replace(admission, stamp=admission.stamp - seconds)  # admitted that long ago

    def idle_past_every_time_to_live(self, limiter: RedisLimiter) -> None:
        """Nothing sent for longer than the budget's keys live: Redis deletes every key that has a TTL."""
        if self.clock is not None:
            self.clock[0] += 2 * limiter.window + 11  # the script's TTL is ceil(2 * window + 10) s
            return
        for key in limiter.keys("m"):
            if self.client.pttl(key) > 0:
                self.client.delete(key)


@pytest.fixture(params=["fakeredis", "redis-server"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Backend]:
    if request.param == "fakeredis":
        from fakeredis._socket import _base as socket_base
        from fakeredis.commands_mixins import server_mixin

        clock = [time.time()]
        fake_time = SimpleNamespace(time=lambda: clock[0])
        monkeypatch.setattr(server_mixin, "time", fake_time)  # TIME
        monkeypatch.setattr(socket_base, "time", fake_time)  # key expiry
        yield Backend(fakeredis.FakeRedis(server=fakeredis.FakeServer()), clock)
        return
    server: RedisServer = request.getfixturevalue("redis_server")
    client = redis.Redis.from_url(server.url)
    try:
        yield Backend(client, None)
    finally:
        client.close()


def _try(limiter: RedisLimiter, tokens: int = 0) -> tuple[int, float]:
    reply = limiter._eval_sync("m", limiter._args("acquire", tokens, limiter._next_id()))
    return int(reply[0]), float(reply[1])


def test_an_idle_budget_forgets_its_sums_with_its_admissions(backend: Backend) -> None:
    limiter = backend.limiter(rpm=2, tpm=100, burst_seconds=60.0)
    assert _try(limiter, 100)[0] == 1 and _try(limiter)[0] == 1
    assert _try(limiter)[0] == 0  # full
    backend.idle_past_every_time_to_live(limiter)
    assert _try(limiter, 100)[0] == 1  # a state outliving its admissions would refuse for good


def test_real_usage_above_the_charge_drains_the_shared_token_bucket(backend: Backend) -> None:
    limiter = backend.limiter(tpm=60, burst_seconds=10.0)  # a token a second, 10 at most
    admission = limiter.acquire_sync("m", 2)
    limiter.observe_sync(admission, Feedback(total_tokens=10))  # 8 more than charged: the bucket is empty
    admitted, wait = _try(limiter, 1)
    assert admitted == 0 and 0.5 < wait <= 1.0 + 1e-6


def test_real_usage_leaves_the_window_with_its_request_not_a_window_after_its_answer(
    backend: Backend,
) -> None:
    limiter = backend.limiter(tpm=100, burst_seconds=1000.0)  # the window alone decides
    admission = limiter.acquire_sync("m", 10)
    limiter.observe_sync(backend.answered_later(admission, 50.0), Feedback(total_tokens=60))
    admitted, wait = _try(limiter, 90)  # needs the request and its extra 50 gone
    assert admitted == 0 and 10.0 < wait < 11.0  # they leave together, 60.7 s after the admission
