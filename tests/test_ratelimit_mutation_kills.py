"""Shared-limiter behaviours the mutation run found unchecked (issue 25, item 7), on fakeredis and on a
silent local socket; each test kills named mutants of ``ratelimit/``."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

fakeredis = pytest.importorskip("fakeredis")
pytest.importorskip("lupa")

from flaky_redis import Flaky as _Flaky  # noqa: E402
from flaky_redis import FlakyAsync as _FlakyAsync  # noqa: E402
from holyclient.ratelimit import (  # noqa: E402
    Admission,
    Feedback,
    RedisLimiter,
    TokenEstimator,
    count_prompt_tokens,
    read_feedback,
)
from holyclient.ratelimit import _redis as redis_module  # noqa: E402
from holyclient.tokens import count_request  # noqa: E402

KEY = "sk-holy-limiter-mutation-key"
URL = "redis://127.0.0.1:1/0"


def _limiter(server: Any, **kwargs: Any) -> RedisLimiter:
    kwargs.setdefault("burst_seconds", 1000.0)
    return RedisLimiter(URL, api_key=KEY, client=fakeredis.FakeRedis(server=server), **kwargs)


def _admitted(limiter: RedisLimiter, tokens: int = 0) -> bool:
    reply = limiter._eval_sync("m", limiter._args("acquire", tokens, limiter._next_id()))
    return bool(int(reply[0]))


def test_the_outage_fallback_divides_both_limits_by_the_workers() -> None:
    limiter = RedisLimiter(URL, rpm=120, tpm=9000, window=60, api_key=KEY, workers=3)
    assert limiter.fallback.rpm == 40 and limiter.fallback.tpm == 3000
    assert limiter.fallback.tokens is not None and limiter.fallback.tokens.limit == 3000
    assert limiter.fallback.requests is not None and limiter.fallback.requests.limit == 40


def test_a_remaining_requests_header_alone_leaves_the_token_budget_alone() -> None:
    limiter = _limiter(fakeredis.FakeServer(), rpm=100, tpm=1000, window=60)
    admission = limiter.acquire_sync("m", 10)
    limiter.observe_sync(admission, Feedback(remaining_requests=50))  # no tokens header
    assert _admitted(limiter, tokens=900)  # not "1 token left"


def test_a_remaining_tokens_header_alone_leaves_the_request_budget_alone() -> None:
    limiter = _limiter(fakeredis.FakeServer(), rpm=3, tpm=100_000, window=60)
    admission = limiter.acquire_sync("m", 10)
    limiter.observe_sync(admission, Feedback(remaining_tokens=50_000))  # no requests header
    assert _admitted(limiter) and _admitted(limiter)  # 3 - 1: not "1 request left"


def test_a_retry_after_of_one_second_pauses_every_worker() -> None:
    feedback = read_feedback(429, {"retry-after": "1"})
    assert feedback.pause == 1.0
    server = fakeredis.FakeServer()
    seen, other = _limiter(server, rpm=100, window=60), _limiter(server, rpm=100, window=60)
    seen.observe_sync(seen.acquire_sync("m", 0), feedback)
    reply = other._eval_sync("m", other._args("acquire", 0, other._next_id()))
    assert int(reply[0]) == 0 and 0.5 < float(reply[1]) <= 1.0


@pytest.fixture
def silent_redis() -> Iterator[str]:
    """A port that accepts connections (the kernel's backlog) and never answers: a hung Redis."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield f"redis://127.0.0.1:{sock.getsockname()[1]}/0"


def test_a_silent_redis_times_out_and_the_worker_falls_back_instead_of_hanging(silent_redis: str) -> None:
    events: list[str] = []
    limiter = RedisLimiter(silent_redis, rpm=60, window=60, api_key=KEY, on_event=events.append)
    result: list[Any] = []
    worker = threading.Thread(target=lambda: result.append(limiter.acquire_sync("m", 0)), daemon=True)
    started = time.monotonic()
    worker.start()
    worker.join(timeout=redis_module.REDIS_TIMEOUT * 5)
    assert result and not result[0].shared, "acquire hung on a Redis that never answers"
    assert time.monotonic() - started < redis_module.REDIS_TIMEOUT * 5
    assert events and "unreachable" in events[0]


async def test_the_async_twin_falls_back_from_a_silent_redis_too(silent_redis: str) -> None:
    limiter = RedisLimiter(silent_redis, rpm=60, window=60, api_key=KEY, on_event=lambda _: None)
    try:
        with anyio.fail_after(redis_module.REDIS_TIMEOUT * 5):
            admission = await limiter.acquire("m", 0)
        assert not admission.shared
    finally:
        with anyio.move_on_after(1):
            await limiter.aclose()


async def test_renewing_a_shard_lease_extends_only_the_holders_own_lease() -> None:
    from holyclient.ratelimit._lease import ShardLease

    client = fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer())
    mine = ShardLease(client, KEY, "out.jsonl.shard-0-of-2", seconds=10.0)
    theirs = ShardLease(client, KEY, "out.jsonl.shard-0-of-2", seconds=10.0)
    assert await mine.take() is False
    await client.pexpire(mine.key, 200)  # about to lapse
    assert await mine.renew() is True
    assert 9000 < await client.pttl(mine.key) <= 10_000
    assert await theirs.renew() is False  # not the holder: the lease is left as it is
    assert await client.get(mine.key) == mine.token.encode()
    await mine.release()
    assert await mine.renew() is False  # lost (released or expired): nothing to extend
    assert await client.exists(mine.key) == 0


@pytest.fixture
def server_clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """What fakeredis answers to ``TIME``: tests move the server's clock by hand."""
    from types import SimpleNamespace

    from fakeredis.commands_mixins import server_mixin

    clock = [time.time()]
    monkeypatch.setattr(server_mixin, "time", SimpleNamespace(time=lambda: clock[0]))
    return clock


def _try(limiter: RedisLimiter, tokens: int = 0) -> tuple[int, float]:
    reply = limiter._eval_sync("m", limiter._args("acquire", tokens, limiter._next_id()))
    return int(reply[0]), float(reply[1])


def test_the_token_bucket_drains_so_a_burst_of_tokens_waits_for_the_refill(server_clock: list[float]) -> None:
    limiter = _limiter(fakeredis.FakeServer(), tpm=600, window=60, burst_seconds=1.0)  # 10 tokens a second
    assert _try(limiter, tokens=10)[0] == 1
    admitted, wait = _try(limiter, tokens=10)
    assert admitted == 0 and 0.9 < wait < 1.01
    server_clock[0] += 0.5  # half refilled: 5 tokens, 0.5 s more to wait
    admitted, wait = _try(limiter, tokens=10)
    assert admitted == 0 and 0.4 < wait < 0.51  # Lua keeps 14 digits of a stamp
    server_clock[0] += 1.0  # refilled (Lua keeps 14 digits of the stamp: not exactly 0.5 s)
    assert _try(limiter, tokens=10)[0] == 1


def test_expired_admissions_give_back_all_their_tokens(server_clock: list[float]) -> None:
    limiter = _limiter(fakeredis.FakeServer(), tpm=100, window=60)
    assert _try(limiter, tokens=60)[0] == 1
    assert _try(limiter, tokens=60)[0] == 0
    server_clock[0] += 61.0  # the 60 tokens leave the window: all of them, not one unit
    assert _try(limiter, tokens=90)[0] == 1


def test_a_shorter_retry_after_never_shortens_a_longer_pause(server_clock: list[float]) -> None:
    server = fakeredis.FakeServer()
    seen, other = _limiter(server, rpm=100, window=60), _limiter(server, rpm=100, window=60)
    admission = seen.acquire_sync("m", 0)
    seen.observe_sync(admission, read_feedback(429, {"retry-after": "30"}))
    seen.observe_sync(admission, read_feedback(429, {"retry-after": "1"}))  # a later, shorter one
    admitted, wait = _try(other)
    assert admitted == 0 and 29 < wait < 30.1


def test_the_window_counts_a_little_longer_than_the_servers_never_shorter(server_clock: list[float]) -> None:
    limiter = _limiter(fakeredis.FakeServer(), rpm=1, window=60)
    assert _try(limiter)[0] == 1
    server_clock[0] += 60.5  # past the server's window, within the margin kept for clock drift
    assert _try(limiter)[0] == 0
    server_clock[0] += 1.0
    assert _try(limiter)[0] == 1


def test_the_shared_pause_outlives_its_first_tenth_of_a_second() -> None:
    server = fakeredis.FakeServer()
    seen, other = _limiter(server, rpm=100, window=60), _limiter(server, rpm=100, window=60)
    seen.observe_sync(seen.acquire_sync("m", 0), read_feedback(429, {"retry-after": "5"}))
    pause_key = seen.keys("m")[3]
    assert 5000 < fakeredis.FakeRedis(server=server).pttl(pause_key) <= 6000  # kept in ms, a second spare
    time.sleep(0.1)
    admitted, wait = _try(other)
    assert admitted == 0 and 4 < wait < 5.01


def test_the_fallbacks_admissions_are_charged_when_they_happened_and_leave_the_window_then(
    server_clock: list[float],
) -> None:
    limiter = _limiter(fakeredis.FakeServer(), rpm=1, window=60)
    limiter._eval_sync("m", limiter._args("charge", 1, limiter._next_id(), 0, 50.0))  # admitted 50 s ago
    assert _try(limiter)[0] == 0  # still in the window
    server_clock[0] += 11.0  # 61 s after it was admitted: gone, though charged only 11 s ago
    assert _try(limiter)[0] == 1


def test_what_the_fallback_admitted_is_fed_back_to_the_fallback_even_once_redis_is_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(redis_module, "PROBE_INTERVAL", 0.0)
    server = fakeredis.FakeServer()
    flaky = _Flaky(server)
    limiter = RedisLimiter(URL, rpm=100, window=60, api_key=KEY, client=flaky, on_event=lambda _: None)
    flaky.down = True
    admission = limiter.acquire_sync("m", 0)
    assert not admission.shared
    flaky.down = False
    limiter.observe_sync(admission, Feedback(pause=30.0))
    assert limiter.fallback.pause_left() > 25  # its own limiter took the pause ...
    assert fakeredis.FakeRedis(server=server).get(limiter.keys("m")[3]) is None  # ... not the shared one


def test_feedback_while_redis_is_down_goes_to_the_fallback_and_says_redis_is_unreachable() -> None:
    events: list[str] = []
    flaky = _Flaky(fakeredis.FakeServer())
    limiter = RedisLimiter(URL, rpm=100, window=60, api_key=KEY, client=flaky, on_event=events.append)
    admission = limiter.acquire_sync("m", 0)
    assert admission.shared
    flaky.down = True
    limiter.observe_sync(admission, Feedback(pause=30.0))  # never raises: the worker keeps going
    assert limiter.fallback.pause_left() > 25
    assert len(events) == 1 and "unreachable (ConnectionError)" in events[0]


def _response(status: int, content: bytes, **headers: str) -> Any:
    import httpx2

    return httpx2.Response(status, content=content, headers=headers)


@pytest.mark.parametrize(
    ("status", "content", "stream", "total"),
    [
        (200, b'{"usage": {"total_tokens": 42}}', False, 42),
        (200, b'{"usage": {"total_tokens": 42}}', True, None),  # a stream is not read here
        (200, b'{"usage": {"total_tokens": 0}}', False, None),
        (200, b'{"usage": null}', False, None),
        (200, b"not json", False, None),
        (200, b"[1, 2]", False, None),
        (500, b'{"usage": {"total_tokens": 42}}', False, None),
    ],
)
def test_a_responses_real_usage_is_fed_back_only_from_a_complete_json_answer(
    status: int, content: bytes, stream: bool, total: int | None
) -> None:
    from holyclient.ratelimit._protocol import response_feedback

    assert response_feedback(_response(status, content), stream=stream).total_tokens == total


def test_a_429_response_feeds_back_its_pause_and_remaining_headers() -> None:
    from holyclient.ratelimit._protocol import response_feedback

    response = _response(429, b"{}", **{"retry-after": "2", "x-ratelimit-remaining-tokens": "7"})
    feedback = response_feedback(response, stream=False)
    assert feedback.pause == 2.0 and feedback.remaining_tokens == 7 and feedback.total_tokens is None


def test_an_admission_costs_tokens_only_under_a_token_limit_and_by_its_endpoints_declaration() -> None:
    from holyclient.pricing import charging_for
    from holyclient.ratelimit._protocol import admission_cost

    chat = charging_for("POST", "/chat/completions")
    body = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "hello " * 50}],
        "max_tokens": 10,
    }
    with_tpm = RedisLimiter(URL, rpm=10, tpm=1000, api_key=KEY)
    without_tpm = RedisLimiter(URL, rpm=10, api_key=KEY)
    model, tokens = admission_cost(with_tpm, body, chat)
    assert model == "gpt-4o-mini" and tokens > 50 + 10
    assert admission_cost(without_tpm, body, chat) == ("gpt-4o-mini", 0)
    embedding = {"model": "text-embedding-3-small", "input": "x"}
    assert admission_cost(with_tpm, embedding, charging_for("POST", "/embeddings"))[1] == 1
    assert admission_cost(with_tpm, embedding, charging_for("GET", "/models"))[1] == 0  # nothing to count
    assert admission_cost(with_tpm, body)[1] == 0  # no declaration given: nothing is assumed
    assert admission_cost(with_tpm, None, chat)[0] == "unknown"


@pytest.mark.parametrize(
    ("body", "chars"),
    [
        ({"messages": [{"role": "user", "content": "abcd"}, {"role": "user", "content": "ef"}]}, 6),
        ({"messages": [{"content": [{"type": "text", "text": "abc"}, {"type": "image_url"}, "x"]}]}, 3),
        ({"messages": [{"content": None}, "not a message"]}, 0),
        ({"input": "abcde"}, 5),
        ({"prompt": "abc"}, 3),
        ({"input": "ab", "prompt": "abcdef"}, 2),  # input first
        ({"input": ["ab", {"content": "cde"}, {"content": [{"text": "f"}]}, 7]}, 6),
        ({"input": None}, 0),
    ],
)
def test_prompt_characters_are_counted_from_every_request_shape(body: dict[str, Any], chars: int) -> None:
    from holyclient.ratelimit._estimate import prompt_chars

    assert prompt_chars(body) == chars


def test_the_estimate_never_goes_below_characters_over_four_and_learns_from_real_usage() -> None:
    from holyclient.ratelimit._estimate import TokenEstimator

    body = {"input": "x" * 400}
    estimator = TokenEstimator(counter=lambda _, endpoint: 0)  # the counter cannot count: characters / 4
    assert estimator.prompt(body) == 100
    assert estimator.estimate(body)[0] == 100 + 16
    estimator = TokenEstimator(counter=lambda _, endpoint: 200)
    estimator.observe(200, 400)  # billed twice what was counted
    assert estimator.ratio == 2.0 and estimator.estimate(body) == (400 + 16, 200)
    estimator.observe(200, 4000)
    assert estimator.ratio == 4.0  # capped


def test_the_local_limiter_charges_real_usage_above_the_estimate_to_one_token() -> None:
    from holyclient.ratelimit import LocalLimiter

    limiter = LocalLimiter(None, 6000, window=60)
    assert limiter.tokens is not None
    admission = limiter.acquire_sync("m", 10)
    limiter.observe_sync(admission, Feedback(total_tokens=11))
    assert limiter.tokens._in_window == 11
    limiter.observe_sync(admission, Feedback(total_tokens=5))  # below the estimate: never refunded
    assert limiter.tokens._in_window == 11
    limiter.observe_sync(Admission("m", 10), Feedback(total_tokens=50))  # admitted elsewhere: no handle
    assert limiter.tokens._in_window == 11


def test_the_local_limiter_takes_usage_without_a_token_limit_and_remaining_headers() -> None:
    from holyclient.ratelimit import LocalLimiter

    requests_only = LocalLimiter(60, None, window=60)
    admission = requests_only.acquire_sync("m", 10)
    requests_only.observe_sync(admission, Feedback(total_tokens=500))  # nothing to correct: no error
    assert requests_only.requests is not None and requests_only.requests._in_window == 1
    requests_only.observe_sync(admission, Feedback(remaining_requests=50))
    assert requests_only.requests._in_window == 10  # 60 - 50: the server's view of what is left


class FakeTime:
    """A clock that only the recorded sleeps move (async for the limiters, sync for ``time.sleep``)."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep_sync(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    async def sleep(self, seconds: float) -> None:
        self.sleep_sync(seconds)


def test_usage_corrected_after_its_request_left_the_window_is_not_counted_in_it() -> None:
    from holyclient.ratelimit import RateLimiter

    clock = FakeTime()
    window = RateLimiter(100, 10, burst_seconds=10, clock=clock)
    old = window.take(10)
    clock.now = 20.0
    window.take(1)  # the old request has left the window
    window.correct(old, 50)
    assert window.delay_for(60) < 1.0  # 1 + 60 in the window: only the bucket's short wait


def test_real_usage_above_the_estimate_drains_the_bucket_too() -> None:
    from holyclient.ratelimit import RateLimiter

    clock = FakeTime()
    bucket = RateLimiter(60, 60, burst_seconds=10, clock=clock)  # 1 token a second, 10 at most
    handle = bucket.take(2)
    bucket.correct(handle, 10)  # the bucket is empty now
    assert bucket.delay_for(1) == pytest.approx(1.0)


def test_a_window_wait_under_one_second_is_still_waited() -> None:
    from holyclient.ratelimit import RateLimiter

    clock = FakeTime()
    bucket = RateLimiter(60, 60, burst_seconds=1, clock=clock)  # one unit a second
    anyio.run(bucket.acquire, 1, clock.sleep)
    clock.now = 0.5
    anyio.run(bucket.acquire, 1, clock.sleep)
    assert clock.sleeps == [pytest.approx(0.5)]


def test_the_local_limiter_waits_out_a_short_pause_with_its_own_sleep() -> None:
    from holyclient.ratelimit import LocalLimiter

    clock = FakeTime()
    limiter = LocalLimiter(600, 600_000, window=60, clock=clock, sleep=clock.sleep)
    limiter.apply(Admission("m", 0), Feedback(pause=0.5))
    admission = anyio.run(limiter.acquire, "m", 10)
    assert clock.sleeps == [0.5]
    assert admission.stamp == 0.5 and admission.handle is not None  # stamped on the limiter's clock


def test_the_local_limiters_sync_twin_waits_out_a_short_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    from holyclient.ratelimit import LocalLimiter

    clock = FakeTime()
    monkeypatch.setattr(time, "sleep", clock.sleep_sync)
    limiter = LocalLimiter(60, None, window=60, clock=clock)  # one request a second, no token limit
    limiter.apply(Admission("m", 0), Feedback(pause=0.5))
    first = limiter.acquire_sync("m", 10)
    assert clock.sleeps == [0.5] and first.stamp == 0.5 and first.handle is None  # nothing to correct
    limiter.acquire_sync("m", 10)  # the bucket's next request is a second later
    assert clock.sleeps == [0.5, pytest.approx(1.0)]


def test_the_async_local_limiter_charges_real_usage_and_paces_tokens_with_its_sleep() -> None:
    from holyclient.ratelimit import LocalLimiter

    clock = FakeTime()
    limiter = LocalLimiter(None, 60, window=60, clock=clock, sleep=clock.sleep)  # a token a second
    admission = anyio.run(limiter.acquire, "m", 1)
    anyio.run(limiter.observe, admission, Feedback(total_tokens=5))  # 4 more than charged
    anyio.run(limiter.acquire, "m", 1)
    assert clock.sleeps == [pytest.approx(5.0)]  # the bucket had to refill the real usage first


def test_a_remaining_tokens_header_alone_still_lowers_the_local_token_budget() -> None:
    from holyclient.ratelimit import LocalLimiter

    clock = FakeTime()
    limiter = LocalLimiter(600, 600, window=60, clock=clock, sleep=clock.sleep)
    limiter.apply(Admission("m", 0), Feedback(remaining_tokens=10))  # no remaining-requests header
    assert limiter.tokens is not None and limiter.tokens.delay_for(20) > 30  # 10 left: wait for the window


def test_n_of_zero_reserves_one_completion_not_none() -> None:
    from holyclient.ratelimit._estimate import completion_allowance

    assert completion_allowance({"max_tokens": 7, "n": 0}) == 7


def test_a_body_the_counter_cannot_count_falls_back_to_characters_over_four() -> None:
    from holyclient.ratelimit._estimate import TokenEstimator, count_prompt_tokens

    body = {"messages": [{"role": "user", "content": "x" * 40}]}  # no model: the counter gives up
    assert count_prompt_tokens(body) == 0
    assert TokenEstimator().prompt(body) == 10


def test_the_estimate_learns_from_every_answer_so_far_not_only_the_last() -> None:
    from holyclient.ratelimit._estimate import TokenEstimator

    estimator = TokenEstimator(counter=lambda _, endpoint: 10)
    estimator.observe(10, 20)
    estimator.observe(10, 40)
    assert estimator.ratio == 3.0  # 60 billed for 20 counted


@pytest.mark.parametrize("value", ["-5", "inf", "nan", "many"])
def test_a_remaining_header_that_is_not_a_count_is_ignored(value: str) -> None:
    assert read_feedback(200, {"x-ratelimit-remaining-requests": value}).remaining_requests is None


def test_only_a_429_pauses_and_only_for_a_positive_retry_after() -> None:
    assert read_feedback(503, {"retry-after": "2"}).pause is None
    assert read_feedback(429, {"retry-after": "0"}).pause is None
    assert read_feedback(429, {}).pause is None


def test_remaining_headers_are_read_from_a_plain_mapping_of_lower_case_names() -> None:
    headers = {"x-ratelimit-remaining-requests": "3", "x-ratelimit-remaining-tokens": "400"}
    feedback = read_feedback(200, headers)
    assert (feedback.remaining_requests, feedback.remaining_tokens) == (3, 400)


class _Counting(_Flaky):
    """A :class:`_Flaky` client that counts the round trips tried."""

    def __init__(self, server: Any) -> None:
        super().__init__(server)
        self.calls = 0

    def eval(self, *args: Any) -> Any:
        self.calls += 1
        return super().eval(*args)


def test_going_down_says_which_limits_the_fallback_keeps_and_waits_before_probing_again() -> None:
    events: list[str] = []
    down = _Counting(fakeredis.FakeServer())
    down.down = True
    limiter = RedisLimiter(URL, rpm=60, tpm=6000, api_key=KEY, workers=2, client=down, on_event=events.append)
    first = limiter.acquire_sync("m", 5)
    limiter.acquire_sync("m", 5)
    assert down.calls == 1  # the second admission did not probe Redis again within PROBE_INTERVAL
    assert limiter.shared is False and first.shared is False
    assert events == [
        "shared limiter at redis://127.0.0.1:1/0 unreachable (ConnectionError); falling back to a local "
        "limit of 30 requests and 3000 tokens per 60 s (the shared limit / 2 workers) until it is back"
    ]


def test_going_down_without_limits_says_the_fallback_has_none() -> None:
    events: list[str] = []
    down = _Flaky(fakeredis.FakeServer())
    down.down = True
    limiter = RedisLimiter(URL, window=30, api_key=KEY, client=down, on_event=events.append)
    limiter.acquire_sync("m", 0)
    assert len(events) == 1 and "falling back to a local limit of no rate limit (the shared" in events[0]


def test_a_worker_that_finds_the_probe_taken_while_redis_is_down_admits_through_the_fallback() -> None:
    down = _Flaky(fakeredis.FakeServer())
    down.down = True
    limiter = RedisLimiter(URL, rpm=60, tpm=6000, api_key=KEY, client=down, on_event=lambda _: None)
    limiter.acquire_sync("m", 5)  # Redis is known to be down
    with limiter._thread_lock:  # another thread is probing Redis right now
        admission = limiter.acquire_sync("gpt", 7)
    assert (admission.model, admission.tokens, admission.shared) == ("gpt", 7, False)
    assert limiter.fallback.tokens is not None and limiter.fallback.tokens._in_window == 12


def test_real_usage_of_a_fallback_admission_is_charged_to_the_fallback_sync() -> None:
    down = _Flaky(fakeredis.FakeServer())
    down.down = True
    limiter = RedisLimiter(URL, rpm=60, tpm=6000, api_key=KEY, client=down, on_event=lambda _: None)
    admission = limiter.acquire_sync("m", 5)
    limiter.observe_sync(admission, Feedback(total_tokens=50))
    assert limiter.fallback.tokens is not None and limiter.fallback.tokens._in_window == 50


def test_feedback_with_usage_reported_once_redis_went_down_reaches_the_fallback_sync() -> None:
    flaky = _Flaky(fakeredis.FakeServer())
    limiter = RedisLimiter(URL, rpm=60, tpm=6000, api_key=KEY, client=flaky, on_event=lambda _: None)
    admission = limiter.acquire_sync("m", 5)
    assert admission.shared is True and admission.id and admission.handle is None
    flaky.down = True
    limiter.observe_sync(admission, Feedback(pause=30.0, total_tokens=50))  # never raises
    assert limiter.fallback.pause_left() > 25  # no local handle to correct: the pause is what it can take


def test_a_refused_sync_admission_polls_again_after_the_wait_redis_named(
    server_clock: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        server_clock[0] += seconds

    monkeypatch.setattr(time, "sleep", sleep)
    limiter = _limiter(fakeredis.FakeServer(), rpm=60, window=60, burst_seconds=1.0)  # one request a second
    limiter.acquire_sync("m", 0)
    second = limiter.acquire_sync("m", 0)
    assert second.shared and len(sleeps) >= 1 and all(0 < s <= redis_module.MAX_POLL for s in sleeps)


async def test_a_lease_held_longer_than_ours_could_be_is_refused_naming_the_time_left() -> None:
    from holyclient.ratelimit._lease import LeaseHeldError, ShardLease

    client = fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer())
    holder = ShardLease(client, KEY, "out.jsonl.shard-0-of-2", seconds=600.0)
    assert await holder.take() is False
    with pytest.raises(LeaseHeldError) as caught:
        await ShardLease(client, KEY, "out.jsonl.shard-0-of-2", seconds=10.0).take()
    assert str(caught.value) == (
        "another worker is running this shard (its lease in Redis is live, 600 s left on it): "
        "this worker stops, the other one finishes the shard"
    )


async def test_a_lease_renewed_while_we_waited_is_refused_saying_so() -> None:
    from holyclient.ratelimit._lease import LeaseHeldError, ShardLease

    client = fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer())
    holder = ShardLease(client, KEY, "out.jsonl.shard-0-of-2", seconds=10.0)
    assert await holder.take() is False
    await client.pexpire(holder.key, 1500)  # about to lapse: the next worker waits for it

    async def renewing_sleep(seconds: float) -> None:
        await holder.renew()  # the holder is alive after all

    with pytest.raises(LeaseHeldError) as caught:
        await ShardLease(client, KEY, "out.jsonl.shard-0-of-2", seconds=10.0).take(sleep=renewing_sleep)
    assert str(caught.value) == (
        "another worker is running this shard (it renewed its lease while this one waited, 10 s left on it): "
        "this worker stops, the other one finishes the shard"
    )


def test_the_local_window_counts_a_little_longer_than_the_servers_never_shorter() -> None:
    from holyclient.ratelimit import RateLimiter

    clock = FakeTime()
    window = RateLimiter(1, 100, clock=clock)
    window.take(1)
    clock.now = 100.5  # past the server's 100 s, inside our margin
    assert window.delay_for(1) > 0


def test_units_leaving_the_window_are_subtracted_from_it_not_set_as_its_count() -> None:
    from holyclient.ratelimit import RateLimiter

    clock = FakeTime()
    window = RateLimiter(10, 100, burst_seconds=100, clock=clock)  # the bucket never limits here
    window.take(5)
    clock.now = 50.0
    window.take(3)
    clock.now = 150.0
    window.take(2)  # the first 5 have left: 3 + 2 in the window
    assert window.delay_for(5) == 0


def test_a_window_wait_lasts_until_just_enough_units_have_left() -> None:
    from holyclient.ratelimit import RateLimiter

    clock = FakeTime()
    window = RateLimiter(2, 100, burst_seconds=100, clock=clock)
    window.take(1)
    clock.now = 10.0
    window.take(1)
    clock.now = 20.0
    horizon = 20.0 - 100 * 1.01 - 0.1
    assert window.delay_for(1) == pytest.approx(0.0 - horizon)  # the first unit leaving is enough
    assert window.delay_for(2) == pytest.approx(10.0 - horizon)  # both must leave


class _ReleasedMeanwhile:
    """An async Redis whose first ``SET NX`` finds the lease held by a worker that releases it at once."""

    def __init__(self) -> None:
        self.real = fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer())
        self.sets = 0

    async def set(self, *args: Any, **kwargs: Any) -> Any:
        self.sets += 1
        return None if self.sets == 1 else await self.real.set(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


async def test_a_lease_released_between_the_two_calls_is_taken_at_once() -> None:
    from holyclient.ratelimit._lease import ShardLease

    client = _ReleasedMeanwhile()
    lease = ShardLease(client, KEY, "out.jsonl.shard-0-of-2", seconds=10.0)
    assert await lease.take(sleep=None) is False  # taken fresh, not over from a dead worker
    assert client.sets == 2 and await client.real.get(lease.key) == lease.token.encode()


async def test_a_lease_without_a_time_to_live_is_never_waited_for() -> None:
    from holyclient.ratelimit._lease import LeaseHeldError, ShardLease

    client = fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer())
    lease = ShardLease(client, KEY, "out.jsonl.shard-0-of-2", seconds=10.0)
    await client.set(lease.key, "someone")  # no expiry: it never lapses
    waits: list[float] = []
    with pytest.raises(LeaseHeldError):
        await lease.take(on_wait=waits.append)
    assert waits == []


async def test_waiting_for_a_dead_workers_lease_announces_the_seconds_it_has_left() -> None:
    from holyclient.ratelimit._lease import ShardLease

    client = fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer())
    dead = ShardLease(client, KEY, "out.jsonl.shard-0-of-2", seconds=600.0)
    assert await dead.take() is False
    waits: list[float] = []

    async def lapse(seconds: float) -> None:
        await client.delete(dead.key)  # the dead worker's lease runs out

    taker = ShardLease(client, KEY, "out.jsonl.shard-0-of-2", seconds=600.0)
    assert await taker.take(on_wait=waits.append, sleep=lapse) is True
    assert len(waits) == 1 and 599.5 < waits[0] <= 600.0


async def test_waiting_for_a_lease_about_to_lapse_sleeps_no_longer_than_it_has_left() -> None:
    from holyclient.ratelimit._lease import ShardLease

    client = fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer())
    dead = ShardLease(client, KEY, "out.jsonl.shard-0-of-2", seconds=10.0)
    assert await dead.take() is False
    await client.pexpire(dead.key, 300)
    sleeps: list[float] = []

    async def lapse(seconds: float) -> None:
        sleeps.append(seconds)
        await client.delete(dead.key)

    assert await ShardLease(client, KEY, "out.jsonl.shard-0-of-2", seconds=10.0).take(sleep=lapse) is True
    assert len(sleeps) == 1 and 0 < sleeps[0] <= 0.3  # not a whole polling step (10 s / 15)


class _DownAsync:
    """An async Redis client that cannot be reached."""

    async def eval(self, *args: Any) -> Any:
        import redis

        raise redis.exceptions.ConnectionError("Connection refused")


async def test_real_usage_of_a_fallback_admission_is_charged_to_the_fallback_async() -> None:
    limiter = RedisLimiter(
        URL, rpm=60, tpm=6000, api_key=KEY, async_client=_DownAsync(), on_event=lambda _: None
    )
    admission = await limiter.acquire("m", 5)
    assert admission.shared is False
    await limiter.observe(admission, Feedback(total_tokens=50))
    assert limiter.fallback.tokens is not None and limiter.fallback.tokens._in_window == 50


async def test_a_shared_admissions_429_pause_reaches_every_worker_async() -> None:
    server = fakeredis.FakeServer()
    seen = RedisLimiter(URL, rpm=100, api_key=KEY, async_client=fakeredis.FakeAsyncRedis(server=server))
    other = _limiter(server, rpm=100, window=60)
    admission = await seen.acquire("m", 0)
    assert admission.shared is True
    await seen.observe(admission, Feedback(pause=30.0))
    assert seen.fallback.pause_left() == 0  # shared through Redis, not kept in this process
    reply = other._eval_sync("m", other._args("acquire", 0, other._next_id()))
    assert int(reply[0]) == 0 and 25 < float(reply[1]) <= 30


async def test_feedback_once_redis_went_down_reaches_the_fallback_and_says_why_async() -> None:
    events: list[str] = []
    flaky = _FlakyAsync(fakeredis.FakeServer())
    limiter = RedisLimiter(URL, rpm=60, tpm=6000, api_key=KEY, async_client=flaky, on_event=events.append)
    admission = await limiter.acquire("m", 5)
    assert admission.shared is True
    flaky.down = True
    await limiter.observe(admission, Feedback(pause=30.0, total_tokens=50))  # never raises
    assert limiter.fallback.pause_left() > 25
    assert len(events) == 1 and "unreachable (ConnectionError)" in events[0]


async def test_admissions_leave_the_shared_window_one_by_one_not_as_one_sync_and_async(
    server_clock: list[float],
) -> None:
    server = fakeredis.FakeServer()
    threads = _limiter(server, rpm=2, window=60)
    tasks = RedisLimiter(
        URL,
        rpm=2,
        window=60,
        api_key=KEY,
        burst_seconds=1000.0,
        async_client=fakeredis.FakeAsyncRedis(server=server),
    )
    for acquired in (threads.acquire_sync("m", 0), await tasks.acquire("n", 0)):
        assert acquired.shared
    threads.acquire_sync("m", 0)
    await tasks.acquire("n", 0)
    server_clock[0] += 61.0  # both admissions of each model leave: two units, not one
    assert _try(threads)[0] == 1 and _try(threads)[0] == 1
    probe = _limiter(server, rpm=2, window=60)
    for _ in range(2):
        reply = probe._eval_sync("n", probe._args("acquire", 0, probe._next_id()))
        assert int(reply[0]) == 1


async def test_async_admissions_are_named_apart_and_stamped_so_real_usage_corrects_the_shared_budget() -> (
    None
):
    server = fakeredis.FakeServer()
    limiter = RedisLimiter(
        URL, tpm=100, api_key=KEY, burst_seconds=1000.0, async_client=fakeredis.FakeAsyncRedis(server=server)
    )
    first, second = await limiter.acquire("m", 10), await limiter.acquire("m", 10)
    assert first.id and second.id and first.id != second.id
    assert abs(first.stamp - time.time()) < 60  # the Redis server's clock
    await limiter.observe(first, Feedback(total_tokens=50))  # 40 more than charged
    other = _limiter(server, tpm=100)
    assert _try(other, tokens=40)[0] == 1  # 10 + 10 + 40 + 40
    assert _try(other, tokens=1)[0] == 0


def test_feedback_that_changes_nothing_costs_no_round_trip_to_redis() -> None:
    counting = _Counting(fakeredis.FakeServer())
    limiter = RedisLimiter(URL, rpm=60, tpm=6000, api_key=KEY, client=counting, burst_seconds=1000.0)
    free, charged = limiter.acquire_sync("m", 0), limiter.acquire_sync("m", 10)
    before = counting.calls
    limiter.observe_sync(free, Feedback())  # no usage, no headers
    limiter.observe_sync(charged, Feedback(total_tokens=10))  # exactly the estimate
    limiter.observe_sync(charged, Feedback(total_tokens=4))  # below it: never refunded
    assert counting.calls == before


def test_real_usage_one_token_above_the_estimate_is_charged_to_the_shared_budget() -> None:
    server = fakeredis.FakeServer()
    limiter = _limiter(server, tpm=100, window=60)
    limiter.observe_sync(limiter.acquire_sync("m", 10), Feedback(total_tokens=11))
    assert _try(limiter, tokens=89)[0] == 1
    assert _try(limiter, tokens=1)[0] == 0


def test_a_remaining_header_alone_lowers_its_own_shared_budget() -> None:
    requests = _limiter(fakeredis.FakeServer(), rpm=100, window=60)
    requests.observe_sync(requests.acquire_sync("m", 0), Feedback(remaining_requests=1))
    assert _try(requests)[0] == 1 and _try(requests)[0] == 0
    tokens = _limiter(fakeredis.FakeServer(), tpm=1000, window=60)
    tokens.observe_sync(tokens.acquire_sync("m", 0), Feedback(remaining_tokens=100))
    assert _try(tokens, tokens=100)[0] == 1 and _try(tokens, tokens=1)[0] == 0


async def test_the_outages_admissions_are_charged_once_when_redis_is_back_async(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(redis_module, "PROBE_INTERVAL", 0.0)
    server = fakeredis.FakeServer()
    flaky = _FlakyAsync(server)
    events: list[str] = []
    limiter = RedisLimiter(
        URL, rpm=4, window=60, api_key=KEY, burst_seconds=1000.0, async_client=flaky, on_event=events.append
    )
    flaky.down = True
    assert not (await limiter.acquire("m", 0)).shared
    assert len(events) == 1 and "unreachable (ConnectionError)" in events[0]
    flaky.down = False
    assert (await limiter.acquire("m", 0)).shared  # charges the outage's one admission first
    assert (await limiter.acquire("m", 0)).shared  # ... and not again
    other = _limiter(server, rpm=4, window=60)
    assert _try(other)[0] == 1 and _try(other)[0] == 0


async def test_what_the_fallback_admitted_is_fed_back_to_the_fallback_even_once_redis_is_back_async(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(redis_module, "PROBE_INTERVAL", 0.0)
    server = fakeredis.FakeServer()
    flaky = _FlakyAsync(server)
    limiter = RedisLimiter(URL, rpm=100, window=60, api_key=KEY, async_client=flaky, on_event=lambda _: None)
    flaky.down = True
    admission = await limiter.acquire("m", 0)
    flaky.down = False
    await limiter.observe(admission, Feedback(pause=30.0))
    assert limiter.fallback.pause_left() > 25
    assert fakeredis.FakeRedis(server=server).get(limiter.keys("m")[3]) is None


async def test_a_refused_async_admission_polls_again_through_the_limiters_own_sleep(
    server_clock: list[float],
) -> None:
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        server_clock[0] += seconds

    server = fakeredis.FakeServer()
    limiter = RedisLimiter(
        URL, rpm=60, window=60, api_key=KEY, sleep=sleep, async_client=fakeredis.FakeAsyncRedis(server=server)
    )  # one request a second
    assert (await limiter.acquire("m", 0)).shared
    assert (await limiter.acquire("m", 0)).shared
    assert sleeps and all(0 < s <= redis_module.MAX_POLL for s in sleeps)


@pytest.mark.parametrize(("limit", "window"), [(0, 60), (-1, 60), (10, 0), (10, -1)])
def test_a_local_window_refuses_a_limit_or_window_that_is_not_positive(limit: float, window: float) -> None:
    from holyclient.ratelimit import RateLimiter

    with pytest.raises(ValueError, match=r"^rate limit and window must be positive$"):
        RateLimiter(limit, window)


def test_a_local_window_is_a_minute_by_default() -> None:
    from holyclient.ratelimit import RateLimiter

    assert RateLimiter(60).window == 60.0 and RateLimiter(60).rate == 1.0


# The TPM estimate reads a body as the endpoint it is sent to reads it (issue 34's endpoint declarations),
# never as the body's keys suggest; found by the ratelimit mutation run after those declarations landed.
#: A moderation of text parts: its keys look like a Responses input (a list of objects).
MODERATION = {"model": "omni-moderation-latest", "input": [{"type": "text", "text": "a " * 50}]}


def test_a_body_is_counted_as_its_endpoint_reads_it_not_as_its_keys_suggest() -> None:
    told = count_request(MODERATION, endpoint="/v1/moderations").tokens
    assert told != count_request(MODERATION).tokens  # the guess from the keys counts another shape
    assert count_prompt_tokens(MODERATION, "/v1/moderations") == told
    assert TokenEstimator().estimate(MODERATION, "/v1/moderations") == (told, told)  # nothing generated


def test_a_request_to_an_endpoint_without_a_prompt_is_allowed_no_completion_tokens() -> None:
    body = {"model": "dall-e-3", "prompt": "a cat"}  # an image's prompt: not counted as tokens
    estimate, raw = TokenEstimator().estimate(body, "/v1/images/generations")
    assert estimate == raw == 2  # "a cat" at 4 characters a token, and no completion allowance
