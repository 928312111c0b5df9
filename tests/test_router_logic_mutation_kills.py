"""Router behaviours the second mutation round found unchecked (issue 25, item 7, scope ``router_logic``).

``router_logic`` is router/ without the Client plumbing (``_router``, ``_shell``, ``_sender``): the
breaker, the target choice and failover order, one request's way through its targets (``RouterCore``),
the counters, the mirror and the chained usage. Each test kills named mutants of ``benchmarks/mutation.sh
router_logic``; the sans-IO parts are driven directly, the rest through ``Router`` on
``httpx2.MockTransport`` hosts.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import httpx2
import pytest

from holyclient import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    BadRequestError,
    BudgetExceededError,
    ConfigurationError,
    InternalServerError,
    PriceTable,
    Router,
    Target,
    UsageSnapshot,
    UsageTracker,
)
from holyclient._core._request import RequestOptions
from holyclient.router import CircuitBreaker, TargetStats
from holyclient.router._core import RouterCore
from holyclient.router._mirror import Mirror, side
from holyclient.router._select import choose, failover_order, sticky_value
from holyclient.router._stats import LATENCY_WINDOW, Counters
from holyclient.router._target import all_targets
from holyclient.router._usage import ChainedTracker
from router_support import MESSAGES, Host


def _target(url: str, host: Host, **kwargs: Any) -> Target:
    http = httpx2.Client(transport=httpx2.MockTransport(host))
    return Target(url, http_client=http, max_retries=0, api_key="sk-holy-mutation", **kwargs)


def _ask(router: Router, **body: Any) -> Any:
    return router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, **body)


def _core(*targets: Target, clock: Any = lambda: 0.0) -> RouterCore:
    return RouterCore(
        targets,
        shadow=None,
        sticky_key=None,
        breaker_threshold=2,
        breaker_cooldown=30.0,
        clock=clock,
        rng=random.Random(1),
        mirror=None,
    )


def _no_usage(name: str) -> UsageSnapshot:
    return UsageTracker().snapshot()


def _attempt_lasting(seconds: float) -> tuple[RouterCore, Any]:
    """A one-target core and a routing whose attempt has been under way for ``seconds`` by its timer."""
    now = [100.0]
    core = _core(Target("https://a.test/v1", api_key="k"))
    core.timer = lambda: now[0]
    routing = core.start(RequestOptions("post", "/chat/completions", body={"model": "m"}))
    routing.next()
    now[0] += seconds
    return core, routing


def test_a_router_names_each_target_with_its_weight_and_never_its_key():
    core = _core(
        Target("https://a.test/v1", api_key="sk-holy-secret-a", weight=3),
        Target("https://b.test/v1", key_env="B_KEY", weight=0.5),
    )
    assert repr(core) == "a.test (weight 3), b.test (weight 0.5)"
    assert repr(core.by_name["a.test"]) == "Target('a.test', weight=3)"
    assert repr(core.by_name["b.test"]) == "Target('b.test', weight=0.5, key_env='B_KEY')"


@pytest.mark.parametrize(("status", "ok"), [(200, True), (399, True), (400, False), (404, False)])
def test_single_attempts_count_a_4xx_answer_as_an_error_with_its_latency(status: int, ok: bool):
    core, routing = _attempt_lasting(0.25)
    routing.answered(status)
    stats = core.stats(_no_usage)["a.test"]
    assert (stats.requests, stats.successes, stats.errors) == (1, int(ok), int(not ok))
    assert stats.latency_p50_s == pytest.approx(0.25)
    assert stats.breaker == "closed"  # a 4xx is the caller's: the target answered


def test_a_routing_asked_again_after_an_answer_says_what_it_tried():
    core = _core(Target("https://a.test/v1", api_key="k"))
    routing = core.start(RequestOptions("post", "/chat/completions", body={"model": "m"}))
    routing.next()
    routing.answered(503)
    with pytest.raises(APIConnectionError) as caught:
        routing.next()
    assert caught.value.__notes__ == ["holyclient.Router tried: a.test (503)"]


def test_set_weight_errors_name_the_target_and_the_value():
    router = Router([_target("https://a.test/v1", Host()), _target("https://b.test/v1", Host(), weight=0)])
    with pytest.raises(KeyError, match=r"no router target named 'c.test' \(targets: a.test, b.test\)"):
        router.set_weight("c.test", 1)
    with pytest.raises(ValueError, match=r"^weight must be 0 or more, got -1$"):
        router.set_weight("a.test", -1)
    with pytest.raises(
        ValueError, match=r"^draining the last target with a weight above 0 would leave nothing"
    ):
        router.set_weight("a.test", 0)


def test_target_stats_as_a_dict_hold_every_counter_by_name():
    router = Router([_target("https://a.test/v1", Host())])
    _ask(router)
    stats = router.stats()["a.test"].as_dict()
    assert stats["requests"] == stats["successes"] == 1 and stats["errors"] == stats["failovers"] == 0
    assert stats["breaker"] == "closed" and stats["weight"] == 1.0
    assert (stats["prompt_tokens"], stats["completion_tokens"]) == (3, 1) and stats["cost_usd"] > 0
    assert list(stats) == [f.name for f in dataclasses.fields(TargetStats)]


def test_sticky_keys_split_three_targets_in_proportion_to_their_weights():
    """Weighted rendezvous: ``-weight / ln(u)`` gives each target its share; ``weight * -ln(u)`` would
    only do so for two targets (6:3:1 would come out about 64:30:6)."""
    pool = [Target(f"https://{n}.test/v1", api_key="k", weight=w) for n, w in (("a", 6), ("b", 3), ("c", 1))]
    keys = 20_000
    served = Counter(choose(pool, f"user-{i}", random.Random(0)).name for i in range(keys))
    for target in pool:
        share = target.weight / 10
        sigma = math.sqrt(keys * share * (1 - share))
        assert abs(served[target.name] - keys * share) < 4 * sigma, served


def test_a_request_error_leaves_the_breaker_closed_and_names_its_target():
    host = Host(400)
    router = Router([_target("https://a.test/v1", host)], breaker_threshold=1, clock=lambda: 0.0)
    for _ in range(3):
        with pytest.raises(BadRequestError) as caught:
            _ask(router)
        assert caught.value._target == "a.test"  # type: ignore[attr-defined]
        assert (
            caught.value.__notes__[-1]
            == "holyclient.Router: a.test refused the request; not retried elsewhere."
        )
    assert router.stats()["a.test"].breaker == "closed" and host.seen == 3


def test_a_target_out_of_budget_is_skipped_without_opening_its_breaker():
    broke, rich = Host(), Host()
    router = Router(
        [
            _target("https://broke.test/v1", broke, budget_usd=1e-9, weight=100),
            _target("https://rich.test/v1", rich),
        ],
        breaker_threshold=1,
        clock=lambda: 0.0,
    )
    for _ in range(3):
        assert _ask(router, max_tokens=100)._target == "rich.test"
    stats = router.stats()["broke.test"]
    assert (stats.breaker, stats.breaker_opened, broke.seen) == ("closed", 0, 0)


def test_a_connection_dropped_after_sending_is_not_sent_elsewhere_and_says_why():
    first, second = Host(), Host()
    first.fail = httpx2.RemoteProtocolError("peer closed connection")
    router = Router(
        [_target("https://a.test/v1", first, weight=100), _target("https://b.test/v1", second, weight=0)]
    )
    with pytest.raises(APIConnectionError) as caught:
        _ask(router)
    assert caught.value.__notes__[-1] == (
        "holyclient.Router: a.test may have received the request; not sent elsewhere, so it "
        "cannot be paid twice (Target(failover_if_sent=True) allows it)."
    )
    assert second.seen == 0


def test_a_failed_attempt_keeps_its_latency_and_its_error_type_in_what_was_tried():
    core, routing = _attempt_lasting(0.25)
    refused = APIConnectionError("refused")
    refused.maybe_processed = False  # never connected: safe to try elsewhere
    routing.failed(refused)
    stats = core.stats(_no_usage)["a.test"]
    assert (stats.errors, stats.latency_p50_s) == (1, pytest.approx(0.25))
    with pytest.raises(APIConnectionError) as caught:
        routing.next()
    assert caught.value is refused and refused.__notes__ == [
        "holyclient.Router tried: a.test (APIConnectionError)"
    ]


class Draw(random.Random):
    """A random source whose every draw is ``value`` (the edges of the mirror's sampling)."""

    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


def _chat_options(**changes: Any) -> RequestOptions:
    return RequestOptions("POST", "/chat/completions", body={"model": "m", "messages": MESSAGES}, **changes)


def test_a_mirror_rate_is_a_fraction_from_0_to_1_and_0_copies_nothing(tmp_path: Path):
    shadow, path = _target("https://shadow.test/v1", Host()), tmp_path / "m.jsonl"
    for rate in (0.0, 0.5, 1.0):
        assert Mirror(shadow, rate, path, 1).rate == rate
    for rate in (-0.01, 1.01, 2.0):
        with pytest.raises(ValueError, match=rf"^mirror must be a fraction between 0 and 1, got {rate}$"):
            Mirror(shadow, rate, path, 1)
    with pytest.raises(ValueError, match=r"^mirror_concurrency must be at least 1, got 0$"):
        Mirror(shadow, 0.5, path, 0)
    assert not Mirror(shadow, 0.0, path, 1, rng=Draw(0.0)).wants(_chat_options())  # even on a 0.0 draw
    assert Mirror(shadow, 1.0, path, 1, rng=Draw(0.999)).wants(_chat_options())
    assert not Mirror(shadow, 1.0, path, 1, rng=Draw(0.0)).wants(_chat_options(stream=True))


def test_mirror_copies_are_numbered_one_by_one_under_one_prefix(tmp_path: Path):
    mirror = Mirror(_target("https://shadow.test/v1", Host()), 1.0, tmp_path / "m.jsonl", 5)
    ids = [mirror.acquire() for _ in range(3)]
    assert all(i is not None for i in ids)
    prefix = str(ids[0]).removesuffix("-1")
    assert re.fullmatch(r"mirror-[0-9a-f]{8}", prefix) and ids == [
        f"{prefix}-1",
        f"{prefix}-2",
        f"{prefix}-3",
    ]


def test_each_side_of_a_mirrored_pair_says_who_answered_how_and_how_fast():
    request = httpx2.Request("POST", "https://a.test/v1/chat/completions")
    refused = BadRequestError("bad", response=httpx2.Response(400, request=request), body=None)
    assert side("a.test", 0.5, error=refused) == {
        "target": "a.test",
        "status": 400,
        "error": "BadRequestError: bad",
        "latency_s": 0.5,
        "body": None,
    }
    assert side("b.test", 0.25, error=APIConnectionError("refused")) == {
        "target": "b.test",
        "status": None,  # no answer, no status
        "error": "APIConnectionError: refused",
        "latency_s": 0.25,
        "body": None,
    }
    spent = BudgetExceededError("spent", requested_usd=1.0, remaining_usd=0.0)  # not an API error: no status
    assert side("s.test", 0.0, error=spent)["status"] is None
    assert side("a.test", 0.5, {"id": "c"}) == {
        "target": "a.test",
        "status": 200,
        "error": None,
        "latency_s": 0.5,
        "body": {"id": "c"},
    }


def test_a_target_that_served_a_model_without_a_price_reports_no_cost():
    router = Router([_target("https://a.test/v1", Host())])
    router.chat.completions.create(model="house-model-7", messages=MESSAGES)
    stats = router.stats()["a.test"]
    assert stats.prompt_tokens == 3 and stats.cost_usd is None  # unknown, not 0


def test_only_the_shadow_target_reports_mirrored_and_dropped_copies(tmp_path: Path):
    main, shadow = Target("https://a.test/v1", api_key="k"), Target("https://s.test/v1", api_key="k")
    mirror = Mirror(shadow, 1.0, tmp_path / "m.jsonl", 1)
    core = RouterCore(
        [main],
        shadow=shadow,
        sticky_key=None,
        breaker_threshold=2,
        breaker_cooldown=30.0,
        clock=lambda: 0.0,
        rng=random.Random(1),
        mirror=mirror,
    )
    custom_id = mirror.acquire()
    assert custom_id is not None and mirror.acquire() is None
    assert mirror.write(custom_id, _chat_options(), side("a.test", 0.1), side("s.test", 0.1))
    mirror.refuse(BudgetExceededError("spent", requested_usd=1.0, remaining_usd=0.0))
    stats = core.stats(_no_usage)
    shadow_counts = (stats["s.test"].mirrored, stats["s.test"].mirror_dropped, stats["s.test"].mirror_refused)
    assert shadow_counts == (1, 1, 1)
    main_counts = (stats["a.test"].mirrored, stats["a.test"].mirror_dropped, stats["a.test"].mirror_refused)
    assert main_counts == (0, 0, 0)


def test_a_targets_usage_counted_locally_is_marked_approximate_in_the_routers_total_too():
    total = UsageTracker()
    target = ChainedTracker(total)
    body = {"model": "gpt-4o-mini", "messages": MESSAGES}
    usage = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
    target.settle(target.reserve(body), usage, approximate=True)  # a stream that sent no usage
    exact = target.reserve(body)
    target.settle(exact, usage)
    target.settle(exact, usage)  # settling twice records nothing the second time, here or in the total
    target.record("gpt-4o-mini", usage, approximate=True)  # usage without a reservation
    target.record("gpt-4o-mini", usage)
    for tracker in (target, total):
        model = tracker.snapshot().models["gpt-4o-mini"]
        assert (model.requests, model.approximate_requests) == (4, 2)


KEY = "sk-holy-mutation"


def _opens_with_an_error_echoing_the_key(request: httpx2.Request) -> httpx2.Response:
    """A relay that answers 200 and sends, as the stream's first event, an error quoting the key it got."""
    event = {
        "error": {"message": f"key {request.headers['authorization']} is over quota", "type": "server_error"}
    }
    return httpx2.Response(
        200, headers={"content-type": "text/event-stream"}, content=f"data: {json.dumps(event)}\n\n".encode()
    )


def test_a_stream_opening_with_an_error_that_echoes_the_key_fails_without_the_key():
    http = httpx2.Client(transport=httpx2.MockTransport(_opens_with_an_error_echoing_the_key))
    router = Router([Target("https://a.test/v1", http_client=http, max_retries=0, api_key=KEY)])
    with pytest.raises(APIStatusError) as caught:
        router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)
    error = caught.value
    assert "over quota" in str(error) and KEY not in str(error) and KEY not in repr(error.body)
    assert error.request is not None and error.request.url == "https://a.test/v1/chat/completions"
    assert KEY not in str(error.request.headers) and KEY not in str(error.response.request.headers)


def test_requests_without_a_sticky_value_are_not_pinned_to_one_target():
    """No body (a GET), a missing field or an empty one: the request is split by weight like any other."""
    assert sticky_value("user", None) is None
    assert sticky_value("user", {"model": "m"}) is None
    assert sticky_value("user", {"user": ""}) is None
    assert sticky_value("user", {"user": 42}) == "42"
    assert sticky_value(lambda body: body.get("session"), {"session": None}) is None
    assert sticky_value(None, {"user": "u-1"}) is None


def test_a_breaker_needs_a_threshold_of_at_least_1_and_a_cooldown_not_negative():
    assert (CircuitBreaker().threshold, CircuitBreaker().cooldown) == (5, 30.0)
    assert CircuitBreaker(threshold=1, cooldown=0.0).state == "closed"
    for threshold, cooldown in ((0, 1.0), (1, -0.5)):
        with pytest.raises(
            ValueError, match=r"^breaker threshold must be at least 1 and cooldown not negative$"
        ):
            CircuitBreaker(threshold, cooldown)


def test_a_breaker_is_due_its_probe_exactly_when_the_cooldown_has_passed():
    now = [10.0]
    breaker = CircuitBreaker(threshold=1, cooldown=5.0, clock=lambda: now[0])
    breaker.failure()
    now[0] = 14.999
    assert (breaker.state, breaker.available(), breaker.allow()) == ("open", False, None)
    now[0] = 15.0
    assert (breaker.state, breaker.available()) == ("half-open", True)


def test_a_target_is_named_by_its_host_and_port_and_never_by_its_credentials():
    target = Target("https://user:sk-in-url@relay.test:8443/v1/", api_key="k")
    assert (target.name, target.base_url) == ("relay.test:8443", "https://user:sk-in-url@relay.test:8443/v1")
    assert Target("relay-without-scheme", api_key="k").name == "relay-without-scheme"
    assert Target("https://relay.test/X/", api_key="k").base_url == "https://relay.test/X"  # only slashes go
    assert Target("https://a.test/v1", api_key="k", name="canary").name == "canary"


def test_target_configuration_errors_name_the_target():
    with pytest.raises(ConfigurationError, match=r"^Target a\.test: give api_key or key_env, not both$"):
        Target("https://a.test/v1", api_key="k", key_env="A_KEY")
    for weight in (-1.0, math.nan):
        with pytest.raises(ConfigurationError, match=r"^Target a\.test: weight must be 0 or more, got "):
            Target("https://a.test/v1", api_key="k", weight=weight)
    with pytest.raises(ConfigurationError) as caught:
        Target("https://a.test/v1").resolve_key()
    assert str(caught.value) == (
        "Target a.test has no key: pass api_key=... or key_env='VARIABLE' "
        "(a target never borrows another target's key)"
    )


def test_an_unset_key_variable_is_named_with_its_target(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("HOLYCLIENT_TEST_UNSET_KEY", raising=False)
    with pytest.raises(
        ConfigurationError, match=r"^Target a\.test: the environment variable HOLYCLIENT_TEST_UNSET"
    ):
        Target("https://a.test/v1", key_env="HOLYCLIENT_TEST_UNSET_KEY").resolve_key()


def test_a_request_without_a_body_goes_to_a_mapped_target_unchanged():
    target = Target("https://a.test/v1", api_key="k", model_map={"gpt-4o": "gpt-4o-2024-08-06"})
    listing = RequestOptions("get", "/models")
    assert target.prepare(listing) is listing
    assert target.prepare(RequestOptions("post", "/embeddings", body={"model": "gpt-4o"})).body == {
        "model": "gpt-4o-2024-08-06"
    }


def test_a_router_collects_every_target_once_fallbacks_and_shadow_included():
    backup = Target("https://backup.test/v1", api_key="k")
    a = Target("https://a.test/v1", api_key="k", fallbacks=[backup])
    b = Target("https://b.test/v1", api_key="k", fallbacks=[backup, a])
    shadow = Target("https://shadow.test/v1", api_key="k")
    assert [t.name for t in all_targets([a, b], shadow)] == ["a.test", "b.test", "shadow.test", "backup.test"]
    with pytest.raises(ConfigurationError, match=r"^Router needs at least one Target$"):
        all_targets([], None)
    with pytest.raises(ConfigurationError, match=r"^Router targets must be Target objects, got str$"):
        all_targets([a, "https://c.test/v1"], None)  # type: ignore[list-item]
    with pytest.raises(ConfigurationError, match=r"^Two router targets are named 'a\.test': pass name="):
        all_targets([a, Target("https://a.test/v2", api_key="k")], None)
    with pytest.raises(ConfigurationError, match=r"^Router needs at least one target with a weight above 0$"):
        _core(Target("https://a.test/v1", api_key="k", weight=0))


def _breakers(*targets: Target) -> dict[str, CircuitBreaker]:
    return {t.name: CircuitBreaker(threshold=1, clock=lambda: 0.0) for t in targets}


def test_requests_skip_an_open_target_and_split_its_share_by_weight():
    a, b, c = (Target(f"https://{n}.test/v1", api_key="k") for n in "abc")
    breakers = _breakers(a, b, c)
    breakers["a.test"].failure()  # out of rotation
    rng = random.Random(5)
    firsts = Counter(failover_order([a, b, c], breakers, None, rng)[0].name for _ in range(2000))
    assert firsts["a.test"] == 0 and 850 < firsts["b.test"] < 1150 and 850 < firsts["c.test"] < 1150


def test_after_the_chosen_target_failover_goes_to_the_heaviest_weights_first():
    a, b, c = (
        Target(f"https://{n}.test/v1", api_key="k", weight=w) for n, w in (("a", 10), ("b", 1), ("c", 5))
    )
    rng = random.Random(2)
    for _ in range(20):
        order = failover_order([a, b, c], _breakers(a, b, c), None, rng)
        assert order[1:] == [t for t in (a, c, b) if t is not order[0]]


def test_a_drained_target_gets_no_failover_traffic_unless_it_is_a_fallback():
    failing, drained = Host(500), Host()
    router = Router(
        [_target("https://a.test/v1", failing), _target("https://drained.test/v1", drained, weight=0)]
    )
    with pytest.raises(InternalServerError):
        _ask(router)
    assert (failing.seen, drained.seen) == (1, 0)
    backup = _target("https://backup.test/v1", Host(), weight=0)
    router = Router([_target("https://a.test/v1", failing, fallbacks=[backup])])
    assert _ask(router)._target == "backup.test"


def test_failover_skips_an_open_fallback_and_goes_on_to_the_next():
    b, c = (
        Target("https://b.test/v1", api_key="k", weight=0),
        Target("https://c.test/v1", api_key="k", weight=0),
    )
    core = _core(Target("https://a.test/v1", api_key="k", fallbacks=[b, c]), b, c)
    core.breakers["b.test"].failure()
    core.breakers["b.test"].failure()  # threshold 2: open
    routing = core.start(RequestOptions("post", "/chat/completions", body={"model": "m"}))
    assert routing.next()[0].name == "a.test"
    refused = APIConnectionError("refused")
    refused.maybe_processed = False
    routing.failed(refused)
    assert routing.next()[0].name == "c.test"  # b is skipped, not the end of the road


def test_when_every_breaker_is_open_the_error_says_so_and_names_each_target():
    core = _core(Target("https://a.test/v1", api_key="k"))
    core.breakers["a.test"].failure()
    core.breakers["a.test"].failure()
    with pytest.raises(APIConnectionError) as caught:
        core.start(RequestOptions("post", "/chat/completions", body={"model": "m"})).next()
    assert str(caught.value) == "No router target is available: every circuit breaker is open."
    assert caught.value.__notes__ == ["holyclient.Router tried: a.test (circuit open)"]


def test_a_targets_usage_is_priced_by_the_routers_price_table():
    prices = PriceTable.builtin()
    prices.merge({"models": {"house-model-7": {"input": 1.0, "output": 2.0}}})  # USD per million tokens
    total = UsageTracker(prices=prices)
    target = ChainedTracker(total)
    target.record("house-model-7", {"prompt_tokens": 1_000_000, "completion_tokens": 1_000_000})
    assert target.snapshot().total_cost_usd == pytest.approx(3.0) == total.snapshot().total_cost_usd


def test_counters_add_up_and_keep_the_latest_latencies_only():
    counters = Counters()
    for i in range(LATENCY_WINDOW + 1):
        counters.sent()
        counters.done(float(i), ok=i % 2 == 0)
    counters.add("failovers")
    counters.add("failovers")
    assert (counters.requests, counters.successes, counters.errors) == (1001, 501, 500)
    assert counters.failovers == 2
    latencies = counters.latencies()
    assert len(latencies) == LATENCY_WINDOW and latencies[0] == 1.0  # the oldest one dropped


def test_a_mirror_without_a_given_random_source_samples_and_writes_its_pairs(tmp_path: Path):
    path = tmp_path / "pairs.jsonl"
    mirror = Mirror(Target("https://s.test/v1", api_key="k"), 1.0, path, 1)
    assert mirror.wants(_chat_options())
    mirror.write(
        "mirror-1", _chat_options(), side("a.test", 0.1, {"id": "a"}), side("s.test", 0.2, {"id": "s"})
    )
    pair = json.loads(path.read_text())
    assert (pair["custom_id"], pair["old"]["body"], pair["new"]["body"]) == (
        "mirror-1",
        {"id": "a"},
        {"id": "s"},
    )


def test_a_closed_breaker_lets_requests_pass():
    assert CircuitBreaker().allow() == "pass"


def test_fallbacks_that_name_each_other_are_collected_once():
    a = Target("https://a.test/v1", api_key="k")
    b = Target("https://b.test/v1", api_key="k", fallbacks=[a])
    a.fallbacks = (b,)
    assert all_targets([a], None) == [a, b]


def test_a_core_without_a_router_fails_over_after_sending_when_the_target_allows_it():
    """Charging the uncertain attempt is the router's; a bare core's default does nothing."""
    b = Target("https://b.test/v1", api_key="k", weight=0)
    core = _core(Target("https://a.test/v1", api_key="k", failover_if_sent=True, fallbacks=[b]), b)
    routing = core.start(RequestOptions("post", "/chat/completions", body={"model": "m"}))
    assert routing.next()[0].name == "a.test"
    routing.failed(APITimeoutError(request=None))  # may have reached a: allowed to go on
    assert routing.next()[0] is b
