"""A circuit breaker's cool-down is not extended by requests that were already under way when it opened
(issue 34). Requests in flight to a target that goes down fail one after another, some long after the
breaker opened on the first of them; they say nothing new about the target, so the target gets its
probe ``cooldown`` seconds after it opened, not after the last of them failed."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from holyclient import APIConnectionError
from holyclient._core._request import RequestOptions
from holyclient.router import CircuitBreaker, Target
from holyclient.router._core import RouterCore, Routing

COOLDOWN = 30.0


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _core(clock: Clock) -> RouterCore:
    return RouterCore(
        [Target("https://a.test/v1", api_key="k", failover_if_sent=True)],
        shadow=None,
        sticky_key=None,
        breaker_threshold=2,
        breaker_cooldown=COOLDOWN,
        clock=clock,
        rng=random.Random(1),
        mirror=None,
    )


def _sent(core: RouterCore) -> Routing:
    routing = core.start(RequestOptions("post", "/chat/completions", body={"model": "m"}))
    routing.next()
    return routing


def _fails(routing: Routing) -> None:
    refused = APIConnectionError("refused")
    refused.maybe_processed = False
    routing.failed(refused)


def _answered_503(routing: Routing) -> None:
    routing.answered(503)  # a single attempt's answer (a Router's sender: no failover)


@pytest.mark.parametrize("fails", [_fails, _answered_503], ids=["failed-call", "answered-attempt"])
def test_a_request_sent_before_the_breaker_opened_does_not_extend_its_cooldown(
    fails: Callable[[Routing], None],
) -> None:
    clock = Clock()
    core = _core(clock)
    breaker = core.breakers["a.test"]
    first, second, late = _sent(core), _sent(core), _sent(core)  # three requests under way at once
    clock.now = 1.0
    fails(first)
    fails(second)
    assert breaker.state == "open" and breaker.opened == 1  # opened at 1.0
    clock.now = 20.0
    fails(late)  # sent at 0.0, before the breaker opened: old news
    clock.now = 1.0 + COOLDOWN
    assert breaker.state == "half-open"  # before the fix: open until 50.0
    assert breaker.opened == 1


def test_a_late_failure_while_the_breaker_waits_for_its_probe_does_not_reopen_it() -> None:
    clock = Clock()
    core = _core(clock)
    breaker = core.breakers["a.test"]
    first, second, late = _sent(core), _sent(core), _sent(core)
    _fails(first)
    _fails(second)
    clock.now = COOLDOWN + 5.0  # half-open, no probe sent yet
    _fails(late)
    assert breaker.state == "half-open" and breaker.opened == 1
    probe = _sent(core)  # the probe decides
    _fails(probe)
    assert breaker.state == "open" and breaker.opened == 2


def test_a_failing_probe_reopens_the_breaker_and_an_undated_failure_counts_as_before() -> None:
    clock = [0.0]
    breaker = CircuitBreaker(threshold=2, cooldown=COOLDOWN, clock=lambda: clock[0])
    before = breaker.opened
    breaker.failure(before)
    breaker.failure(before)
    assert breaker.state == "open"
    clock[0] = COOLDOWN
    assert breaker.allow() == "probe"
    breaker.failure(breaker.opened)  # the probe was let through after the opening: it counts
    assert breaker.state == "open" and breaker.opened == 2
    clock[0] = COOLDOWN + 10.0
    breaker.failure()  # not said when its request was let through: counted, the cool-down restarts
    clock[0] = 2 * COOLDOWN + 10.0 - 0.5
    assert breaker.state == "open"
    clock[0] = 2 * COOLDOWN + 10.0
    assert breaker.state == "half-open"
