"""What a ``RedisLimiter`` is made of: its defaults, the settings it refuses, the Redis keys and
admission names it uses, what it owes the shared budget after an outage and how it says Redis is back.

Each test kills named mutants of ``ratelimit/_redis.py`` that the mutation run left (issue 25, item 7).
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

import pytest

fakeredis = pytest.importorskip("fakeredis")
pytest.importorskip("lupa")

from flaky_redis import Flaky, FlakyAsync  # noqa: E402
from holyclient.ratelimit import RedisLimiter  # noqa: E402
from holyclient.ratelimit import _redis as redis_module  # noqa: E402

KEY = "sk-holy-limiter-settings-key"
URL = "redis://127.0.0.1:1/0"


def test_a_limiter_counts_per_minute_for_one_worker_with_a_second_of_burst_by_default() -> None:
    limiter = RedisLimiter(URL, rpm=120, tpm=6000, api_key=KEY)
    assert (limiter.window, limiter.workers, limiter.burst_seconds) == (60.0, 1, 1.0)
    assert limiter.fallback.window == 60.0
    assert limiter.fallback.rpm == 120 and limiter.fallback.tpm == 6000  # the whole limit: one worker
    assert limiter.shared is True and limiter.url == URL


@pytest.mark.parametrize(
    "settings",
    [{"window": 0}, {"window": -1}, {"workers": 0}, {"rpm": 0}, {"tpm": 0}, {"rpm": -5}],
)
def test_a_limiter_refuses_a_window_or_limit_that_is_not_positive_and_no_workers(
    settings: dict[str, Any],
) -> None:
    with pytest.raises(ValueError, match=r"^rpm, tpm and window must be positive and workers at least 1$"):
        RedisLimiter(URL, api_key=KEY, **{"rpm": 10, **settings})


def test_the_smallest_settings_that_make_sense_are_accepted() -> None:
    limiter = RedisLimiter(URL, rpm=0.5, tpm=1, window=0.5, workers=1, api_key=KEY)
    assert (limiter.rpm, limiter.tpm, limiter.window, limiter.workers) == (0.5, 1, 0.5, 1)


def test_redis_keys_carry_sixteen_hex_digits_of_the_keys_hash_and_the_model_in_one_hash_slot() -> None:
    digest = hashlib.sha256(KEY.encode()).hexdigest()[:16]
    limiter = RedisLimiter(URL, rpm=10, api_key=KEY)
    assert limiter.keys("gpt-4o") == [
        f"holyclient:{{{digest}:gpt-4o}}:{name}" for name in ("req", "tok", "state", "pause")
    ]
    assert redis_module.key_hash(KEY) == digest


def test_two_limiters_name_their_admissions_apart() -> None:
    first, second = RedisLimiter(URL, rpm=10, api_key=KEY), RedisLimiter(URL, rpm=10, api_key=KEY)
    names = {first._next_id(), first._next_id(), second._next_id()}
    assert len(names) == 3  # another process's admission never overwrites one of ours in Redis


def test_the_fallback_keeps_the_limiters_window_and_only_the_limits_it_has() -> None:
    tokens_only = RedisLimiter(URL, tpm=900, window=30, workers=3, api_key=KEY)
    assert tokens_only.fallback.window == 30 and tokens_only.fallback.tpm == 300
    assert tokens_only.fallback.rpm is None and tokens_only.fallback.requests is None


def test_without_an_api_key_the_limiter_shares_the_budget_of_holysheep_api_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    assert RedisLimiter(URL, rpm=10).keys("m") == RedisLimiter(URL, rpm=10, api_key=KEY).keys("m")


async def test_the_fallback_waits_through_the_limiters_own_sleep() -> None:
    import anyio

    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        await anyio.sleep(seconds)

    down = FlakyAsync(fakeredis.FakeServer())
    down.down = True
    limiter = RedisLimiter(
        URL, rpm=1, window=0.1, api_key=KEY, async_client=down, sleep=sleep, on_event=lambda _: None
    )
    for _ in range(2):  # one request per 0.1 s: the second waits
        assert not (await limiter.acquire("m", 0)).shared
    assert sleeps and 0 < sum(sleeps) < 1


def test_a_limiter_without_a_request_limit_admits_any_number_of_requests() -> None:
    server = fakeredis.FakeServer()
    limiter = RedisLimiter(
        URL, tpm=1000, api_key=KEY, burst_seconds=1000.0, client=fakeredis.FakeRedis(server=server)
    )
    for _ in range(3):
        assert limiter.acquire_sync("m", 10).shared


def test_a_limiter_without_a_token_limit_admits_requests_of_any_size() -> None:
    server = fakeredis.FakeServer()
    limiter = RedisLimiter(
        URL, rpm=10, api_key=KEY, burst_seconds=1000.0, client=fakeredis.FakeRedis(server=server)
    )
    assert limiter.acquire_sync("m", 50_000).shared
    assert limiter.acquire_sync("m", 50_000).shared


def test_the_outages_admissions_are_owed_in_one_charge_stamped_with_the_newest_ones_age() -> None:
    limiter = RedisLimiter(URL, rpm=10, tpm=1000, window=60, burst_seconds=2.0, api_key=KEY)
    now = time.monotonic()
    limiter._owed["m"] = [(now - 70, 1), (now - 40, 5), (now - 30, 7), (now - 20, 9)]  # the first has left
    limiter._owed["old"] = [(now - 90, 3)]
    (model, args, count), (old_model, old_args, old_count) = limiter._owed_calls()
    assert (model, count, old_model, old_args, old_count) == ("m", 4, "old", [], 1)
    assert args[:6] == ["charge", 10, 1000, 60.0, 2.0, 3]  # three requests still in the window
    assert args[6].startswith(limiter._instance) and args[7] == 21  # their tokens
    assert args[8] == pytest.approx(20, abs=1)  # seconds since the newest of them


def test_redis_coming_back_is_said_once_and_the_limiter_stays_on_the_shared_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(redis_module, "PROBE_INTERVAL", 0.0)
    events: list[str] = []
    flaky = Flaky(fakeredis.FakeServer())
    limiter = RedisLimiter(
        URL, rpm=100, api_key=KEY, burst_seconds=1000.0, client=flaky, on_event=events.append
    )
    flaky.down = True
    assert not limiter.acquire_sync("m", 0).shared
    flaky.down = False
    for _ in range(3):
        assert limiter.acquire_sync("m", 0).shared
    assert limiter.shared is True
    assert events[1:] == [f"shared limiter at {URL} reachable again: back to the shared limit"]


def test_a_bad_url_is_refused_naming_it_without_its_password() -> None:
    with pytest.raises(ValueError) as caught:
        RedisLimiter("http://user:s3cret@cache:6379/0", rpm=10, api_key=KEY)
    assert str(caught.value) == (
        "limiter URL 'http://user:***@cache:6379/0': expected redis://HOST:PORT/DB (or rediss://, unix://)"
    )


PORT_PROBLEM = (
    "not a URL: the port must be a number from 0 to 65535 (a password with '#', '/', '?' "
    "or '@' in it must be percent-encoded: %23 %2F %3F %40)"
)


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("redis://cache:6379/0", None),
        ("redis://cache:6379", None),
        ("rediss://user:pw@cache/15", None),
        ("unix:///run/redis.sock", None),
        ("unix:///run/redis/db-x.sock?db=0", None),
        ("redis://cache:port/0", PORT_PROBLEM),
        ("http://cache:6379/0", "expected redis://HOST:PORT/DB (or rediss://, unix://)"),
        ("redis:///0", "no host in the URL"),
        ("redis://cache:6379/X", "database must be a number, got 'X'"),
        ("redis://cache:6379/\u00b2", "database must be a number, got '\u00b2'"),
    ],
)
def test_a_limiter_url_is_checked_for_scheme_port_host_and_database(url: str, problem: str | None) -> None:
    assert redis_module.check_url(url) == problem


def test_a_local_limiter_counts_per_minute_by_default_and_starts_unpaused() -> None:
    from holyclient.ratelimit import LocalLimiter

    limiter = LocalLimiter(10, 600, clock=lambda: 0.0)
    assert repr(limiter) == "LocalLimiter(rpm=10, tpm=600, window=60.0)"
    assert limiter.requests is not None and limiter.tokens is not None
    assert (limiter.requests.limit, limiter.requests.window) == (10.0, 60.0)
    assert (limiter.tokens.limit, limiter.tokens.window) == (600.0, 60.0)
    assert limiter.pause_left() == 0.0
    assert limiter.requests.take(1) == [0.0, 1.0] and limiter.tokens.take(5) == [0.0, 5.0]  # on its clock
    half = LocalLimiter(10, 600, window=30)
    assert half.requests is not None and half.tokens is not None
    assert half.requests.window == half.tokens.window == 30.0
