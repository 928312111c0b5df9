"""The batch runner's flow control, driven by a fake clock: rate windows, pacing, AIMD, token estimates."""

from __future__ import annotations

import math
import random

import anyio
import pytest

from holyclient.batch import AdaptiveConcurrency, RateLimiter, TokenEstimator
from holyclient.batch._concurrency import Slots
from holyclient.ratelimit._estimate import completion_allowance


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def _max_in_any_window(stamps: list[tuple[float, float]], window: float) -> float:
    return max(sum(u for t, u in stamps if start <= t < start + window) for start, _ in stamps)


def test_window_limit_is_never_exceeded_in_any_window() -> None:
    clock = FakeClock()
    limiter = RateLimiter(10, window=1.0, burst_seconds=1.0, clock=clock)

    async def main() -> list[tuple[float, float]]:
        stamps = []
        for _ in range(45):
            await limiter.acquire(1, clock.sleep)
            stamps.append((clock.now, 1.0))
        return stamps

    stamps = anyio.run(main)
    assert _max_in_any_window(stamps, 1.0) <= 10
    # paced at the limit, not much slower: 45 requests at 10/s take about 3.5 s after the first burst,
    # plus the safety margin (1% + 100 ms per window: a lot on a 1 s window, little on a minute)
    assert 3.4 <= stamps[-1][0] - stamps[0][0] <= 4.6


def test_bucket_spreads_requests_instead_of_sending_the_whole_window_at_once() -> None:
    clock = FakeClock()
    limiter = RateLimiter(600, window=60.0, burst_seconds=1.0, clock=clock)  # 10/s, burst 10
    for _ in range(10):
        assert limiter.delay_for(1) == 0
        limiter.take(1)
    assert limiter.delay_for(1) == pytest.approx(0.1)


def test_window_wait_is_until_the_oldest_units_leave_the_window() -> None:
    clock = FakeClock()
    limiter = RateLimiter(100, window=10.0, burst_seconds=10.0, clock=clock)
    limiter.take(60)
    clock.now += 2
    limiter.take(40)
    clock.now += 1
    wait = limiter.delay_for(30)  # needs the first 60 gone: they leave at 10 s (+ the safety margin)
    assert 7.0 < wait < 7.4
    clock.now += wait
    assert limiter.delay_for(30) == 0


def test_correct_charges_real_usage_above_the_estimate_but_never_refunds() -> None:
    clock = FakeClock()
    limiter = RateLimiter(100, window=10.0, burst_seconds=10.0, clock=clock)
    handle = limiter.take(50)
    limiter.correct(handle, 80)
    assert limiter.delay_for(30) > 0  # 80 + 30 > 100
    limiter.correct(handle, 10)  # the server counted the estimate: no refund
    assert limiter.delay_for(21) > 0
    assert limiter.delay_for(20) == 0


def test_random_429s_do_not_lower_concurrency() -> None:
    clock = FakeClock()
    adaptive = AdaptiveConcurrency(64, clock=clock)
    rng = random.Random(1)
    for _ in range(5000):
        clock.now += 0.003
        adaptive.on_attempt(rate_limited=rng.random() < 0.07, seconds=0.2)
    assert adaptive.slots == 64
    assert adaptive.decreases == 0


def test_sustained_429s_halve_concurrency_and_it_recovers_when_they_stop() -> None:
    clock = FakeClock()
    adaptive = AdaptiveConcurrency(64, clock=clock)
    for _ in range(40):
        adaptive.on_attempt(rate_limited=False, seconds=0.2)
    for _ in range(300):
        clock.now += 0.01
        adaptive.on_attempt(rate_limited=True, seconds=0.01)
    assert adaptive.slots <= 8
    low = adaptive.slots
    # at most one decrease per round trip (0.2 s): 300 x 10 ms = 3 s allows ~15, not 300
    assert adaptive.decreases <= 16
    for _ in range(3000):
        clock.now += 0.01
        adaptive.on_attempt(rate_limited=False, seconds=0.2)
    assert adaptive.slots == 64 > low


def test_slots_can_shrink_and_grow_while_held() -> None:
    async def main() -> None:
        slots = Slots(2)
        await slots.acquire()
        await slots.acquire()
        slots.resize(1)
        acquired = anyio.Event()

        async def waiter() -> None:
            await slots.acquire()
            acquired.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(waiter)
            await anyio.sleep(0.01)
            slots.release()  # 1 in use, size 1: the waiter must still wait
            await anyio.sleep(0.01)
            assert not acquired.is_set()
            slots.resize(3)
            await anyio.sleep(0.01)
            assert acquired.is_set()
        assert slots.in_use == 2

    anyio.run(main)


def test_cancelled_waiter_does_not_leak_a_slot() -> None:
    async def main() -> None:
        slots = Slots(1)
        await slots.acquire()
        with anyio.move_on_after(0.02):
            await slots.acquire()
        slots.release()
        assert slots.in_use == 0
        await slots.acquire()
        assert slots.in_use == 1

    anyio.run(main)


def test_token_estimate_counts_prompt_and_max_tokens_and_learns_from_usage() -> None:
    estimator = TokenEstimator(counter=lambda body, endpoint: 10)
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "x" * 100}], "max_tokens": 50}
    reserve, raw = estimator.estimate(body)
    assert raw == 10
    assert reserve == 25 + 50  # characters / 4 beats the counter's 10: the floor OpenAI documents
    estimator.observe(raw, 40)  # the server billed four times what we counted
    assert estimator.estimate(body)[0] == 40 + 50
    estimator.observe(1000, 10)  # now we over-count: estimates shrink, but never below the floor
    assert estimator.ratio == 0.25
    assert estimator.estimate(body)[0] == 25 + 50


def test_completion_allowance_defaults_and_multiplies_by_n() -> None:
    assert completion_allowance({"max_tokens": 7, "n": 3}) == 21
    assert completion_allowance({"max_completion_tokens": 9}) == 9
    assert completion_allowance({}) == 16


def test_default_counter_uses_the_token_counter() -> None:
    estimator = TokenEstimator()
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hello " * 40}]}
    assert estimator.prompt(body) >= 40  # 40 words, plus the chat framing tokens
    assert estimator.estimate(body)[0] >= math.ceil(len("hello " * 40) / 4) + 16


def test_isolated_failures_shorten_the_backoff_and_widespread_ones_restore_it() -> None:
    clock = FakeClock()
    adaptive = AdaptiveConcurrency(64, clock=clock)
    rng = random.Random(2)
    for _ in range(2000):
        adaptive.on_attempt(rate_limited=False, failed=rng.random() < 0.2, seconds=0.2)
    assert adaptive.backoff_scale == pytest.approx(0.2, abs=0.05)
    for _ in range(300):
        adaptive.on_attempt(rate_limited=False, failed=True, seconds=0.01)
    assert adaptive.backoff_scale == 1.0


def test_retries_waiting_for_a_slot_go_before_new_requests() -> None:
    async def main() -> list[str]:
        slots = Slots(1)
        await slots.acquire()
        order: list[str] = []

        async def take(name: str, priority: bool) -> None:
            await slots.acquire(priority=priority)
            order.append(name)
            slots.release()

        async with anyio.create_task_group() as tg:
            tg.start_soon(take, "new-1", False)
            tg.start_soon(take, "new-2", False)
            await anyio.sleep(0.01)
            tg.start_soon(take, "retry", True)
            await anyio.sleep(0.01)
            slots.release()
        return order

    assert anyio.run(main) == ["retry", "new-1", "new-2"]


def test_correct_adds_the_excess_to_the_window_not_only_to_the_bucket() -> None:
    clock = FakeClock()
    limiter = RateLimiter(100, window=10.0, burst_seconds=10.0, clock=clock)
    handle = limiter.take(50)
    limiter.correct(handle, 80)  # the server counted 80, not the 50 estimated
    clock.now += 5.0  # the bucket has refilled; only the window still remembers the 80
    wait = limiter.delay_for(30)  # 80 + 30 > 100 in the window: wait for the 80 to leave it
    assert 5.0 < wait < 5.4
    assert limiter.delay_for(20) == 0
