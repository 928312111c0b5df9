"""Router without a network: the weighted split, sticky keys, the breaker, draining and keys per host.

Targets here are backed by ``httpx2.MockTransport`` so that 10,000 requests take a second; the
behaviour against real servers is in ``test_router_local_servers.py``.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from typing import Any

import httpx2
import pytest

from holyclient import APIConnectionError, ConfigurationError, Router, Target
from holyclient.router import CircuitBreaker
from router_support import chat_answer

MESSAGES = [{"role": "user", "content": "hi"}]


class Host:
    """A fake endpoint: answers, or fails with a connection error while ``down``; logs what it got."""

    def __init__(self) -> None:
        self.down = False
        self.seen: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.seen.append(request)
        if self.down:
            raise httpx2.ConnectError("refused", request=request)
        return chat_answer(request)


def _target(url: str, host: Host, **kwargs: Any) -> Target:
    http = httpx2.Client(transport=httpx2.MockTransport(host))
    kwargs.setdefault("api_key", f"key-for-{url.split('//')[1].split('/')[0]}")
    return Target(url, http_client=http, max_retries=0, **kwargs)


def _ask(router: Router, **body: Any) -> Any:
    return router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, **body)


def test_weighted_split_is_within_statistical_bounds_over_10000_requests():
    old, new = Host(), Host()
    router = Router(
        [_target("https://old.test/v1", old, weight=95), _target("https://new.test/v1", new, weight=5)],
        rng=random.Random(7),
    )
    served = Counter(_ask(router)._target for _ in range(10_000))
    # 5% of 10,000 = 500, standard deviation sqrt(10000 * 0.05 * 0.95) = 21.8: 5 sigma either side
    sigma = math.sqrt(10_000 * 0.05 * 0.95)
    assert abs(served["new.test"] - 500) < 5 * sigma
    assert served["old.test"] + served["new.test"] == 10_000
    assert router.stats()["new.test"].requests == served["new.test"]


def test_weight_zero_drains_a_target_and_set_weight_shifts_traffic_at_once():
    a, b = Host(), Host()
    router = Router([_target("https://a.test/v1", a, weight=1), _target("https://b.test/v1", b, weight=0)])
    assert {_ask(router)._target for _ in range(200)} == {"a.test"}
    router.set_weight("b.test", 1)
    router.set_weight("a.test", 0)
    assert {_ask(router)._target for _ in range(200)} == {"b.test"}
    with pytest.raises(ValueError, match="last target"):
        router.set_weight("b.test", 0)


def test_sticky_keys_never_move_while_their_target_is_healthy():
    now = [0.0]
    hosts = {name: Host() for name in "abc"}
    router = Router(
        [
            _target(f"https://{n}.test/v1", h, weight=w)
            for (n, h), w in zip(hosts.items(), (5, 3, 2), strict=True)
        ],
        sticky_key="user",
        breaker_threshold=1,
        clock=lambda: now[0],
    )
    first = {f"user-{i}": _ask(router, user=f"user-{i}")._target for i in range(300)}
    assert len(set(first.values())) == 3  # the keys spread over every target
    for _ in range(3):
        assert {u: _ask(router, user=u)._target for u in first} == first
    # c goes down: its breaker opens, only c's keys move; a's and b's stay put
    hosts["c"].down = True
    moved = {u: _ask(router, user=u)._target for u in first}
    assert router.stats()["c.test"].breaker == "open"
    assert all(moved[u] == t for u, t in first.items() if t != "c.test")
    assert all(moved[u] != "c.test" for u in first)
    # c recovers after the cool-down: its keys return to it
    hosts["c"].down = False
    now[0] = 31.0
    assert {u: _ask(router, user=u)._target for u in first} == first
    router.set_weight("c.test", 0)  # draining c moves its keys only
    drained = {u: _ask(router, user=u)._target for u in first}
    assert all(drained[u] == t for u, t in first.items() if t != "c.test")


def test_sticky_key_can_be_a_callable_and_the_key_is_hashed_not_sent():
    a, b = Host(), Host()
    router = Router(
        [_target("https://a.test/v1", a), _target("https://b.test/v1", b)],
        # a key derived from the body, so that finding it in a request means the router sent it
        sticky_key=lambda body: f"derived-{body['metadata']['conversation']}-sticky",
    )
    served = {_ask(router, metadata={"conversation": "conv-1"})._target for _ in range(50)}
    assert len(served) == 1  # one key, one target
    by_conversation = {
        conv: {_ask(router, metadata={"conversation": conv})._target for _ in range(3)}
        for conv in (f"conv-{i}" for i in range(40))
    }
    assert all(len(targets) == 1 for targets in by_conversation.values())
    # hashed: 40 keys spread over both equal-weight targets (P(all on one) = 2 * 2**-40)
    assert {next(iter(targets)) for targets in by_conversation.values()} == {"a.test", "b.test"}
    for request in [*a.seen, *b.seen]:
        sent = str(request.url) + repr(request.headers.multi_items()) + request.content.decode()
        assert "derived-" not in sent and "-sticky" not in sent
        body = json.loads(request.content)
        assert set(body) == {"model", "messages", "metadata"} and set(body["metadata"]) == {"conversation"}


def test_breaker_opens_after_consecutive_failures_and_recovers_after_a_probe():
    now = [0.0]
    breaker = CircuitBreaker(threshold=3, cooldown=10.0, clock=lambda: now[0])
    for _ in range(2):
        breaker.failure()
    assert breaker.state == "closed"
    breaker.success()  # a success resets the count: failures must be consecutive
    for _ in range(3):
        breaker.failure()
    assert breaker.state == "open" and not breaker.allow()
    now[0] = 10.0
    assert breaker.state == "half-open"
    assert breaker.allow()  # the probe
    assert not breaker.allow()  # only one probe at a time
    breaker.failure()  # the probe failed: open for another cool-down
    assert breaker.state == "open"
    now[0] = 20.0
    assert breaker.allow()
    breaker.success()
    assert breaker.state == "closed" and breaker.opened == 2


def test_router_takes_a_failing_target_out_of_rotation_and_probes_it_after_the_cooldown():
    now = [0.0]
    a, b = Host(), Host()
    router = Router(
        [_target("https://a.test/v1", a, weight=1), _target("https://b.test/v1", b, weight=1)],
        breaker_threshold=2,
        breaker_cooldown=30.0,
        clock=lambda: now[0],
        rng=random.Random(1),
    )
    a.down = True
    for _ in range(20):
        assert _ask(router)._target == "b.test"  # every request is served, a's failures failed over
    assert router.stats()["a.test"].breaker == "open"
    assert len(a.seen) == 2  # out of rotation after two failures: no more requests reach it
    a.down = False
    now[0] = 31.0
    served = Counter(_ask(router)._target for _ in range(200))
    assert served["a.test"] > 50  # the probe succeeded, a is back in the split
    assert router.stats()["a.test"].breaker == "closed"


def test_every_breaker_open_fails_fast_naming_the_targets():
    a = Host()
    a.down = True
    router = Router([_target("https://a.test/v1", a)], breaker_threshold=1, clock=lambda: 0.0)
    with pytest.raises(APIConnectionError):
        _ask(router)
    with pytest.raises(APIConnectionError, match="every circuit breaker is open") as info:
        _ask(router)
    assert "a.test (circuit open)" in " ".join(info.value.__notes__)
    assert len(a.seen) == 1


def test_each_key_goes_only_to_its_own_host():
    a, b = Host(), Host()
    router = Router(
        [
            _target(
                "https://a.test/v1",
                a,
                api_key="sk-aaaaaaaa",
                fallbacks=[_target("https://b.test/v1", b, api_key="sk-bbbbbbbb")],
            ),
        ]
    )
    a.down = True
    for _ in range(5):
        assert _ask(router)._target == "b.test"
    assert {r.headers["authorization"] for r in a.seen} == {"Bearer sk-aaaaaaaa"}
    assert {r.headers["authorization"] for r in b.seen} == {"Bearer sk-bbbbbbbb"}
    assert "sk-" not in repr(router) and "sk-" not in repr(router.targets)


def test_key_env_is_read_for_its_target_only(monkeypatch: pytest.MonkeyPatch):
    a = Host()
    monkeypatch.setenv("A_TEST_KEY", "sk-from-env-a")
    router = Router([_target("https://a.test/v1", a, api_key=None, key_env="A_TEST_KEY")])
    _ask(router)
    assert a.seen[0].headers["authorization"] == "Bearer sk-from-env-a"
    monkeypatch.delenv("A_TEST_KEY")
    with pytest.raises(ConfigurationError, match="A_TEST_KEY is not set"):
        Router([Target("https://a.test/v1", key_env="A_TEST_KEY")])
    with pytest.raises(ConfigurationError, match="has no key"):
        Router([Target("https://a.test/v1")])


def test_model_map_renames_the_model_for_its_target_only():
    a, b = Host(), Host()
    router = Router(
        [
            _target("https://a.test/v1", a, weight=1),
            _target("https://b.test/v1", b, weight=0, model_map={"gpt-4o-mini": "relay/gpt-4o-mini"}),
        ]
    )
    _ask(router)
    router.set_weight("b.test", 1)
    router.set_weight("a.test", 0)
    _ask(router)
    assert json.loads(a.seen[0].content)["model"] == "gpt-4o-mini"
    assert json.loads(b.seen[0].content)["model"] == "relay/gpt-4o-mini"


def test_two_targets_with_one_name_are_refused():
    with pytest.raises(ConfigurationError, match="name="):
        Router([Target("https://a.test/v1", api_key="k"), Target("https://a.test/v2", api_key="k")])


def test_usage_is_counted_per_target_and_in_total_and_the_total_budget_holds():
    a, b = Host(), Host()
    router = Router(
        [_target("https://a.test/v1", a, weight=1), _target("https://b.test/v1", b, weight=1)],
        rng=random.Random(3),
    )
    for _ in range(20):
        _ask(router)
    stats = router.stats()
    assert stats["a.test"].prompt_tokens + stats["b.test"].prompt_tokens == 60
    total = router.usage.snapshot()
    assert total.models["gpt-4o-mini"].requests == 20
    assert total.total_cost_usd == pytest.approx(
        (stats["a.test"].cost_usd or 0) + (stats["b.test"].cost_usd or 0)
    )
    from holyclient import BudgetExceededError

    tight = Router([_target("https://a.test/v1", a)], budget_usd=1e-9)
    with pytest.raises(BudgetExceededError):
        _ask(tight, max_tokens=5)


def test_a_target_whose_own_budget_is_spent_passes_its_requests_on():
    a, b = Host(), Host()
    backup = _target("https://b.test/v1", b)
    router = Router([_target("https://a.test/v1", a, budget_usd=1e-9, fallbacks=[backup])])
    assert _ask(router, max_tokens=5)._target == "b.test"
    assert a.seen == [] and router.stats()["a.test"].breaker == "closed"


def test_with_options_applies_to_every_target_and_refuses_per_target_options():
    a, b = Host(), Host()
    router = Router([_target("https://a.test/v1", a), _target("https://b.test/v1", b)])
    quick = router.with_options(timeout=5.0, default_headers={"X-Team": "search"})
    for _ in range(10):
        _ask(quick)
    assert {r.headers["x-team"] for r in a.seen + b.seen} == {"search"}
    assert router.stats()["a.test"].requests + router.stats()["b.test"].requests == 10  # shared counters
    with pytest.raises(TypeError, match="belong to each Target"):
        router.with_options(api_key="sk-elsewhere")


@pytest.mark.parametrize(
    ("status", "code", "safe"),
    [
        (500, None, True),
        (502, None, True),
        (503, None, True),
        (408, None, True),
        (429, "rate_limit_exceeded", True),
        (429, "insufficient_quota", True),
        (400, None, False),
        (401, None, False),
        (403, None, False),
        (404, None, False),
        (409, None, False),
        (422, None, False),
    ],
)
def test_which_status_errors_are_safe_to_fail_over(status: int, code: str | None, safe: bool):
    from holyclient._core._parse import make_status_error
    from holyclient.router._select import failover_safe

    body = json.dumps({"error": {"message": "m", "type": "t", "code": code}}).encode()
    error = make_status_error(httpx2.Response(status, content=body), body)
    assert failover_safe(error) is safe


def test_errors_before_sending_and_silence_are_safe_to_fail_over_a_drop_after_sending_only_when_opted_in():
    from holyclient import APITimeoutError, BudgetExceededError
    from holyclient.router._select import failover_safe

    never_sent = APITimeoutError()
    never_sent.maybe_processed = False  # a connect timeout: the target cannot have seen the request
    assert failover_safe(never_sent)
    assert failover_safe(APITimeoutError())  # sent, and nothing came back in time: a silent target (issue 40)
    assert not failover_safe(APIConnectionError())  # dropped after sending: it may still be billed there
    assert failover_safe(APIConnectionError(), if_sent=True) and failover_safe(
        APITimeoutError(), if_sent=True
    )
    assert not failover_safe(ValueError("bad argument"))
    assert not failover_safe(BudgetExceededError("total", requested_usd=1.0, remaining_usd=0.0))


def test_stats_latency_p50_of_two_requests_is_their_mean_the_standard_median():
    router = Router([_target("https://old.test/v1", Host())])
    ticks = iter([0.0, 1.0, 10.0, 13.0])  # two requests: 1 s and 3 s
    router._core.timer = lambda: next(ticks)
    _ask(router)
    _ask(router)
    stats = router.stats()["old.test"]
    assert stats.latency_p50_s == 2.0  # not the maximum, 3.0
    assert stats.latency_p95_s == pytest.approx(2.9)
