"""Router behaviours the mutation run found unchecked (issue 25, item 7): each test kills named mutants.

The breaker's verdicts on the raw path (single attempts, :class:`~holyclient.router._sender.RoutedSender`),
a probe given back without a verdict, the failure count after a success, the sticky split's weighting and
the per-target budget chained to the router's total. Targets are ``httpx2.MockTransport`` hosts.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from pathlib import Path
from typing import Any

import httpx2
import pytest

from holyclient import APIConnectionError, Router, Target
from holyclient._core._request import RequestOptions
from holyclient.router import CircuitBreaker
from holyclient.router._mirror import Mirror
from router_support import MESSAGES, Host


class Interrupted(BaseException):
    """Like a ``KeyboardInterrupt`` or a cancellation mid-request, without disturbing pytest."""


def _target(url: str, host: Host, **kwargs: Any) -> Target:
    http = httpx2.Client(transport=httpx2.MockTransport(host))
    return Target(url, http_client=http, max_retries=0, api_key="sk-holy-mutation", **kwargs)


def _raw(router: Router) -> int:
    """One raw attempt through the router's sender (the batch runner's and binary downloads' path)."""
    options = RequestOptions("post", "/chat/completions", body={"model": "gpt-4o-mini", "messages": MESSAGES})
    return router._sender.send(options).response.status_code


def test_raw_attempts_answered_200_keep_a_healthy_target_in_rotation():
    host = Host()
    router = Router([_target("https://a.test/v1", host)], breaker_threshold=5, clock=lambda: 0.0)
    assert [_raw(router) for _ in range(8)] == [200] * 8
    assert router.stats()["a.test"].breaker == "closed" and host.seen == 8


@pytest.mark.parametrize("status", [500, 503, 429, 408])
def test_raw_attempts_answered_unwell_statuses_open_the_breaker(status: int):
    host = Host(status)
    router = Router([_target("https://a.test/v1", host)], breaker_threshold=3, clock=lambda: 0.0)
    assert [_raw(router) for _ in range(3)] == [status] * 3  # the caller handles the status: no raise
    assert router.stats()["a.test"].breaker == "open"
    with pytest.raises(APIConnectionError, match="every circuit breaker is open"):
        _raw(router)
    assert host.seen == 3


def test_raw_attempts_answered_400_count_as_the_target_answering():
    host = Host(400)
    router = Router([_target("https://a.test/v1", host)], breaker_threshold=2, clock=lambda: 0.0)
    assert [_raw(router) for _ in range(4)] == [400] * 4
    assert router.stats()["a.test"].breaker == "closed"


def test_a_probe_given_back_without_a_verdict_can_be_claimed_again():
    now = [0.0]
    breaker = CircuitBreaker(threshold=1, cooldown=5.0, clock=lambda: now[0])
    breaker.failure()
    now[0] = 5.0
    assert breaker.allow() == "probe"
    assert breaker.allow() is None and not breaker.available()
    breaker.release()
    assert breaker.state == "half-open" and breaker.available()
    assert breaker.allow() == "probe"


def test_a_probe_request_that_ends_without_a_verdict_leaves_the_target_probeable():
    now = [0.0]
    host = Host()
    router = Router(
        [_target("https://a.test/v1", host)], breaker_threshold=1, breaker_cooldown=5.0, clock=lambda: now[0]
    )
    host.fail = httpx2.ConnectError("refused")
    with pytest.raises(APIConnectionError):
        _ask(router)
    assert router.stats()["a.test"].breaker == "open"
    now[0] = 100.0
    host.fail = Interrupted()  # neither the target's fault nor an answer: no verdict
    with pytest.raises(Interrupted):
        _ask(router)
    host.fail = None
    assert _ask(router)._target == "a.test"  # the probe was given back: the next request probes again
    assert router.stats()["a.test"].breaker == "closed"


def test_failures_before_a_success_do_not_count_towards_opening():
    breaker = CircuitBreaker(threshold=2, cooldown=5.0, clock=lambda: 0.0)
    breaker.failure()
    breaker.success()
    breaker.failure()
    assert breaker.state == "closed" and breaker.opened == 0
    breaker.failure()
    assert breaker.state == "open" and breaker.opened == 1


def test_sticky_keys_are_split_by_weight_so_the_canary_gets_its_small_share():
    old, new = Host(), Host()
    router = Router(
        [_target("https://old.test/v1", old, weight=95), _target("https://new.test/v1", new, weight=5)],
        sticky_key="user",
        rng=random.Random(7),
    )
    served = Counter(_ask(router, user=f"user-{i}")._target for i in range(2000))
    sigma = math.sqrt(2000 * 0.05 * 0.95)  # 9.7: the hash spreads keys like independent draws
    assert abs(served["new.test"] - 100) < 5 * sigma


def test_a_routed_success_under_a_budget_settles_the_routers_total_with_the_real_usage():
    a = Host()
    router = Router([_target("https://a.test/v1", a, budget_usd=1.0)], budget_usd=1.0)
    for _ in range(3):
        _ask(router, max_tokens=1000)
    total = router.usage.snapshot()
    target = router.stats()["a.test"]
    assert total.models["gpt-4o-mini"].requests == 3
    assert total.models["gpt-4o-mini"].prompt_tokens == 9 == target.prompt_tokens
    assert total.total_cost_usd == pytest.approx(target.cost_usd)
    assert total.reserved_usd == 0  # nothing left held for the max_tokens estimate
    assert total.remaining_usd == pytest.approx(1.0 - target.cost_usd)


def _ask(router: Router, **body: Any) -> Any:
    return router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, **body)


def test_a_raw_attempt_answered_200_resets_the_failure_count():
    host = Host(500)
    router = Router([_target("https://a.test/v1", host)], breaker_threshold=3, clock=lambda: 0.0)
    for status in (500, 500, 200, 500, 500):
        host.status = status
        assert _raw(router) == status
    assert router.stats()["a.test"].breaker == "closed"  # never three failures in a row


def test_mirror_slots_are_given_back_so_copies_keep_flowing_and_only_excess_is_dropped(tmp_path: Path):
    mirror = Mirror(_target("https://shadow.test/v1", Host()), 1.0, tmp_path / "m.jsonl", concurrency=2)
    first, second = mirror.acquire(), mirror.acquire()
    assert first and second and first != second and mirror.in_flight == 2
    assert mirror.acquire() is None and mirror.acquire() is None  # both slots taken
    assert mirror.dropped == 2
    mirror.release()
    assert mirror.in_flight == 1
    assert mirror.acquire() is not None  # the slot given back is used again
    mirror.release()
    mirror.release()
    assert mirror.in_flight == 0 and mirror.sent == 3 and mirror.dropped == 2
