"""The shared limiter's Lua script and fallback logic, on fakeredis (the cross-process proof uses a real
Redis: tests/test_ratelimit_redis.py)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

fakeredis = pytest.importorskip("fakeredis")
pytest.importorskip("lupa")

from flaky_redis import Flaky as _Flaky  # noqa: E402
from flaky_redis import FlakyAsync as _FlakyAsync  # noqa: E402
from holyclient.ratelimit import Admission, Feedback, RedisLimiter, read_feedback  # noqa: E402
from holyclient.ratelimit import _redis as redis_module  # noqa: E402

KEY = "sk-holy-limiter-script-key"
URL = "redis://127.0.0.1:1/0"


def _limiter(server: Any, **kwargs: Any) -> RedisLimiter:
    kwargs.setdefault("burst_seconds", 1000.0)  # the window alone, unless a test is about pacing
    return RedisLimiter(URL, api_key=KEY, client=fakeredis.FakeRedis(server=server), **kwargs)


def _try(limiter: RedisLimiter, model: str = "m", tokens: int = 0) -> tuple[int, float]:
    reply = limiter._eval_sync(model, limiter._args("acquire", tokens, limiter._next_id()))
    return int(reply[0]), float(reply[1])


def test_the_window_admits_the_limit_then_says_how_long_to_wait() -> None:
    limiter = _limiter(fakeredis.FakeServer(), rpm=3, window=60)
    assert [_try(limiter)[0] for _ in range(3)] == [1, 1, 1]
    admitted, wait = _try(limiter)
    assert admitted == 0 and 59 < wait < 62


def test_two_limiters_on_one_server_share_one_budget() -> None:
    server = fakeredis.FakeServer()
    first, second = _limiter(server, rpm=4, window=60), _limiter(server, rpm=4, window=60)
    assert [_try(first)[0], _try(second)[0], _try(first)[0], _try(second)[0]] == [1, 1, 1, 1]
    assert _try(second)[0] == 0 and _try(first)[0] == 0


def test_requests_and_tokens_are_checked_together_and_a_refusal_charges_neither() -> None:
    server = fakeredis.FakeServer()
    limiter = _limiter(server, rpm=10, tpm=100, window=60)
    assert _try(limiter, tokens=60)[0] == 1
    assert _try(limiter, tokens=60)[0] == 0  # tokens refuse it ...
    client = fakeredis.FakeRedis(server=server)
    requests_key, _, state_key, _ = limiter.keys("m")
    assert client.zcard(requests_key) == 1  # ... and the request it would have been is not counted
    assert float(client.hget(state_key, "tsum")) == 60
    assert _try(limiter, tokens=40)[0] == 1


def test_each_model_has_its_own_budget() -> None:
    limiter = _limiter(fakeredis.FakeServer(), rpm=1, window=60)
    assert _try(limiter, "a")[0] == 1 and _try(limiter, "b")[0] == 1 and _try(limiter, "a")[0] == 0


def test_the_bucket_spreads_requests_over_the_window() -> None:
    limiter = _limiter(fakeredis.FakeServer(), rpm=60, window=60, burst_seconds=1.0)  # one per second
    assert _try(limiter)[0] == 1
    admitted, wait = _try(limiter)
    assert admitted == 0 and 0.5 < wait <= 1.0


def test_a_429_retry_after_pauses_every_worker() -> None:
    server = fakeredis.FakeServer()
    seen, other = _limiter(server, rpm=100, window=60), _limiter(server, rpm=100, window=60)
    admission = seen.acquire_sync("m", 0)
    seen.observe_sync(admission, read_feedback(429, {"retry-after": "30"}))
    admitted, wait = _try(other)
    assert admitted == 0 and 29 < wait <= 30


def test_real_usage_above_the_charge_is_added_and_remaining_headers_lower_the_budget() -> None:
    server = fakeredis.FakeServer()
    limiter = _limiter(server, rpm=100, tpm=1000, window=60)
    admission = limiter.acquire_sync("m", 100)
    limiter.observe_sync(admission, Feedback(total_tokens=250))
    state = fakeredis.FakeRedis(server=server).hget(limiter.keys("m")[2], "tsum")
    assert float(state) == 250
    limiter.observe_sync(admission, Feedback(remaining_requests=0, remaining_tokens=500))
    assert _try(limiter)[0] == 0  # the server said no request is left this window


def test_key_names_carry_a_hash_of_the_api_key_never_the_key() -> None:
    server = fakeredis.FakeServer()
    limiter = _limiter(server, rpm=5, tpm=500, window=60)
    limiter.observe_sync(limiter.acquire_sync("gpt-4o-mini", 10), read_feedback(429, {"retry-after": "1"}))
    names = [name.decode() for name in fakeredis.FakeRedis(server=server).keys("*")]
    assert names and all(KEY not in name and "gpt-4o-mini" in name for name in names)
    assert KEY not in repr(limiter)


def test_redis_unreachable_falls_back_to_limit_over_workers_says_so_and_comes_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(redis_module, "PROBE_INTERVAL", 0.0)
    events: list[str] = []
    flaky = _Flaky(fakeredis.FakeServer())
    limiter = RedisLimiter(
        URL, rpm=400, window=60, api_key=KEY, workers=4, client=flaky, on_event=events.append
    )
    assert limiter.acquire_sync("m", 0).shared
    flaky.down = True
    admission = limiter.acquire_sync("m", 0)
    assert not admission.shared and limiter.fallback.rpm == 100
    assert (
        len(events) == 1
        and "unreachable" in events[0]
        and "100 requests per 60 s" in events[0]
        and "/ 4 workers" in events[0]
    )
    limiter.acquire_sync("m", 0)
    assert len(events) == 1  # said once, not per request
    flaky.down = False
    assert limiter.acquire_sync("m", 0).shared
    assert len(events) == 2 and "back to the shared limit" in events[1]


async def test_the_async_twin_admits_from_the_same_budget() -> None:
    server = fakeredis.FakeServer()
    sync = _limiter(server, rpm=2, window=60)
    limiter = RedisLimiter(
        URL, rpm=2, window=60, api_key=KEY, async_client=fakeredis.FakeAsyncRedis(server=server)
    )
    assert sync.acquire_sync("m", 0).shared
    first = await limiter.acquire("m", 0)
    assert isinstance(first, Admission) and first.shared
    with anyio.move_on_after(0.3) as scope:
        await limiter.acquire("m", 0)  # the window is full: it waits
    assert scope.cancelled_caught


def test_a_bad_url_is_refused_before_connecting() -> None:
    with pytest.raises(ValueError, match="redis://"):
        RedisLimiter("http://localhost:6379", rpm=1, api_key=KEY)


def test_the_window_follows_the_redis_server_s_clock_and_never_the_worker_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import time
    from types import SimpleNamespace

    from fakeredis.commands_mixins import server_mixin

    server_clock = [time.time()]  # what Redis answers to TIME, and nothing else
    monkeypatch.setattr(server_mixin, "time", SimpleNamespace(time=lambda: server_clock[0]))
    limiter = _limiter(fakeredis.FakeServer(), rpm=3, window=60)
    assert [_try(limiter)[0] for _ in range(3)] == [1, 1, 1]
    assert _try(limiter)[0] == 0
    worker_time, worker_monotonic = time.time, time.monotonic
    monkeypatch.setattr(time, "time", lambda: worker_time() + 120.0)  # the worker's clock: two windows ahead
    monkeypatch.setattr(time, "monotonic", lambda: worker_monotonic() + 120.0)
    admitted, wait = _try(limiter)
    assert admitted == 0 and 59 < wait < 62  # still the server's window
    server_clock[0] += 61.0  # the server's clock passes the window: the budget is back
    assert [_try(limiter)[0] for _ in range(4)] == [1, 1, 1, 0]


def _outage_then_back(monkeypatch: pytest.MonkeyPatch, flaky: Any, **client: Any) -> RedisLimiter:
    monkeypatch.setattr(redis_module, "PROBE_INTERVAL", 0.0)  # every acquire probes Redis first
    # A 10 s window and limits whose local pacing admits 5 at once: no test time is spent sleeping.
    return RedisLimiter(
        URL,
        rpm=100,
        tpm=10_000,
        window=10,
        api_key=KEY,
        burst_seconds=1000.0,
        on_event=lambda _: None,
        **client,
    )


def _assert_the_window_holds_the_outage(server: Any) -> None:
    """5 admitted on the fallback + 1 after the outage: another worker gets the 94 left of 100, no more."""
    other = _limiter(server, rpm=100, tpm=10_000, window=10)
    state = fakeredis.FakeRedis(server=server).hget(other.keys("m")[2], "tsum")
    assert float(state) == 6 * 50  # the outage's tokens are in the shared window too
    assert sum(_try(other)[0] for _ in range(95)) == 94


def test_admissions_of_the_fallback_are_charged_to_redis_when_it_comes_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = fakeredis.FakeServer()
    flaky = _Flaky(server)
    limiter = _outage_then_back(monkeypatch, flaky, client=flaky)
    flaky.down = True
    assert not any(limiter.acquire_sync("m", 50).shared for _ in range(5))
    flaky.down = False
    assert limiter.acquire_sync("m", 50).shared
    _assert_the_window_holds_the_outage(server)
    assert limiter._owed == {}  # charged once: the next probe does not charge them again


async def test_the_async_twin_charges_the_fallbacks_admissions_when_redis_comes_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = fakeredis.FakeServer()
    flaky = _FlakyAsync(server)
    limiter = _outage_then_back(monkeypatch, flaky, async_client=flaky)
    flaky.down = True
    assert not any([(await limiter.acquire("m", 50)).shared for _ in range(5)])
    flaky.down = False
    assert (await limiter.acquire("m", 50)).shared
    _assert_the_window_holds_the_outage(server)
