"""Kill tests for the router's Client plumbing (``router/_caller.py``, ``_sender.py``, ``_shell.py``,
``_router.py``): each is named for the behaviour a surviving mutant broke without any test noticing."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from holyclient import APIConnectionError, AsyncRouter, Router, Target
from holyclient._constants import DEFAULT_MAX_RETRIES
from holyclient._core import RequestOptions
from holyclient._send import Exchange, Prepared, sender_of
from holyclient.testing import Fault, LocalServer
from router_support import Host

MESSAGES = [{"role": "user", "content": "hi"}]
KEY_A, KEY_B = "sk-primary-aaaa", "sk-backup-bbbb"


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[LocalServer, LocalServer]]:
    with LocalServer(api_key=KEY_A) as a, LocalServer(api_key=KEY_B) as b:
        yield a, b


@pytest.fixture
def pair(servers: tuple[LocalServer, LocalServer]) -> tuple[LocalServer, LocalServer]:
    for server in servers:
        server.reset()
    return servers


def _paying_twice(a: LocalServer, b: LocalServer, *, budget: float | None = None) -> Router:
    backup = Target(b.base_url, api_key=KEY_B, name="b")
    primary = Target(
        a.base_url, api_key=KEY_A, name="a", fallbacks=[backup], failover_if_sent=True, budget_usd=budget
    )
    return Router([primary], max_retries=0)


@pytest.mark.parametrize("budget", [None, 5.0], ids=["unbudgeted", "budgeted"])
def test_a_failed_over_attempt_that_may_have_billed_counts_once_with_its_worst_case(
    pair: tuple[LocalServer, LocalServer], budget: float | None
) -> None:
    a, b = pair
    a.enqueue(Fault.drop())
    with _paying_twice(a, b, budget=budget) as router:
        assert router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)._target == "b"
        lost = router.target_usage("a").snapshot()
    assert lost.uncertain_requests == 1  # once: a budgeted target's own reservation is not charged again
    assert lost.uncertain_usd > 0  # the worst case of the whole request, not of an empty body


def test_next_pages_come_from_the_target_that_served_the_first_with_the_same_query(
    pair: tuple[LocalServer, LocalServer],
) -> None:
    a, b = pair
    with Router(
        [Target(a.base_url, api_key=KEY_A, name="a", weight=0), Target(b.base_url, api_key=KEY_B, name="b")]
    ) as router:
        for i in range(3):
            router.files.create(file=f'{{"n": {i}}}\n'.encode(), purpose="batch")
        first = router.files.list(limit=1)
        assert first._target == "b" and first.has_next_page()
        second = first.get_next_page()
    assert len(second.data) == 1 and second.data[0].id != first.data[0].id
    listed = [r for r in b.requests if r.path.startswith("/v1/files") and r.method == "GET"]
    assert len(listed) == 2 and "limit=1" in listed[1].query  # the page's own query, sent again
    assert not [r for r in a.requests if r.path.startswith("/v1/files")]


class _Counting:
    """A limiter that counts what it admits (the router's single attempts must wait for it)."""

    rpm = tpm = None

    def __init__(self) -> None:
        self.acquired = 0

    def acquire_sync(self, *_: Any) -> object:
        self.acquired += 1
        return object()

    def observe_sync(self, *_: Any) -> None:
        return None

    async def acquire(self, *_: Any) -> object:
        self.acquired += 1
        return object()

    async def observe(self, *_: Any) -> None:
        return None


def test_a_router_s_single_attempts_wait_for_the_target_s_limiter(
    pair: tuple[LocalServer, LocalServer], tmp_path: Any
) -> None:
    a, _ = pair
    limiter = _Counting()
    with Router([Target(a.base_url, api_key=KEY_A, name="a", limiter=limiter)]) as router:
        speech = router.audio.speech.with_streaming_response.create(model="tts-1", voice="alloy", input="hi")
        with speech as streamed:  # one attempt on the wire, through the router's sender
            streamed.stream_to_file(tmp_path / "hi.mp3")
    assert (tmp_path / "hi.mp3").read_bytes().startswith(b"ID3")
    assert limiter.acquired == 1


async def test_an_async_router_s_single_attempt_runs_the_caller_s_send_steps(
    pair: tuple[LocalServer, LocalServer],
) -> None:
    a, _ = pair
    seen: list[str] = []

    async def step(prepared: Prepared, send: Any) -> Exchange:
        seen.append(prepared.options.path)
        return await send(prepared)

    async with AsyncRouter([Target(a.base_url, api_key=KEY_A, name="a")]) as router:
        exchange = await sender_of(router).asend(RequestOptions("GET", "/models"), steps=(step,))
    assert seen == ["/models"] and exchange.response.status_code == 200
    assert exchange.response._target == "a"


def test_a_copy_closes_nothing_of_the_router_it_was_made_from(pair: tuple[LocalServer, LocalServer]) -> None:
    a, _ = pair
    with Router([Target(a.base_url, api_key=KEY_A, name="a")]) as router:
        router.models.list()
        router.with_options(timeout=5).close()
        assert router.models.list().data  # the original's clients are still open


def test_options_of_one_target_are_refused_by_name() -> None:
    router = Router([Target("http://127.0.0.1:9/v1", api_key=KEY_A, name="a")])
    with pytest.raises(TypeError, match=r"^api_key, base_url belong to each Target"):
        router.with_options(api_key="x", base_url="http://127.0.0.1:8/v1")


def test_a_router_s_repr_names_its_class_and_hosts_never_a_key() -> None:
    targets = [Target("http://127.0.0.1:9/v1", api_key=KEY_A, name="a")]
    assert repr(Router(targets)).startswith("Router(targets=[")
    assert repr(AsyncRouter(targets)).startswith("AsyncRouter(targets=[")
    assert KEY_A not in repr(Router(targets))


def test_the_mirror_runs_in_a_named_daemon_thread(
    pair: tuple[LocalServer, LocalServer], tmp_path: Any
) -> None:
    a, _ = pair
    release = threading.Event()
    seen: list[threading.Thread] = []

    def hold(_: Any) -> None:
        seen.extend(t for t in threading.enumerate() if t.name == "holyclient-mirror")
        release.wait(5)
        return None

    shadow_server = LocalServer(api_key=KEY_B, hook=hold)
    with shadow_server:
        router = Router(
            [Target(a.base_url, api_key=KEY_A, name="a")],
            shadow=Target(shadow_server.base_url, api_key=KEY_B, name="shadow"),
            mirror=1.0,
            mirror_to=tmp_path / "pairs.jsonl",
        )
        router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        for _ in range(100):
            if seen:
                break
            threading.Event().wait(0.05)
        release.set()
        router.close()
    assert seen and all(t.daemon for t in seen)  # a hanging shadow never keeps the program alive


async def test_an_async_router_s_single_attempt_waits_for_the_target_s_limiter(
    pair: tuple[LocalServer, LocalServer],
) -> None:
    a, _ = pair
    limiter = _Counting()
    async with AsyncRouter([Target(a.base_url, api_key=KEY_A, name="a", limiter=limiter)]) as router:
        exchange = await sender_of(router).asend(RequestOptions("GET", "/models"))
    assert exchange.response.status_code == 200 and limiter.acquired == 1


def test_a_router_s_single_attempt_says_which_target_answered(pair: tuple[LocalServer, LocalServer]) -> None:
    a, _ = pair
    with Router([Target(a.base_url, api_key=KEY_A, name="a")]) as router:
        exchange = sender_of(router).send(RequestOptions("GET", "/models"))
        assert exchange.response.status_code == 200
        assert exchange.response._target == "a"
        exchange.response.close()


async def test_an_async_router_fetches_next_pages_from_the_serving_target_with_the_same_query(
    pair: tuple[LocalServer, LocalServer],
) -> None:
    a, b = pair
    targets = [
        Target(a.base_url, api_key=KEY_A, name="a", weight=0),
        Target(b.base_url, api_key=KEY_B, name="b"),
    ]
    async with AsyncRouter(targets) as router:
        for i in range(3):
            await router.files.create(file=f'{{"n": {i}}}\n'.encode(), purpose="batch")
        first = await router.files.list(limit=1)
        assert first._target == "b" and first.has_next_page()
        second = await first.get_next_page()
    assert len(second.data) == 1 and second.data[0].id != first.data[0].id
    listed = [r for r in b.requests if r.path.startswith("/v1/files") and r.method == "GET"]
    assert len(listed) == 2 and "limit=1" in listed[1].query


def test_the_router_s_client_options_reach_every_target(pair: tuple[LocalServer, LocalServer]) -> None:
    a, b = pair
    a.enqueue(Fault.status(429, retry_after=30))  # longer than max_retry_after: fail over at once
    backup = Target(b.base_url, api_key=KEY_B, name="b")
    with Router(
        [Target(a.base_url, api_key=KEY_A, name="a", fallbacks=[backup])],
        default_headers={"X-Team": "search"},
        max_retry_after=1.0,
        max_retries=3,
        timeout=12.0,
    ) as router:
        assert router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)._target == "b"
        assert (router.max_retries, router.timeout, str(router.base_url)) == (3, 12.0, a.base_url + "/")
    assert [r.status for r in a.requests] == [429]  # not retried: the wait it asked for is too long
    assert all(r.headers.get("x-team") == "search" for r in [*a.requests, *b.requests])


def test_a_seeded_router_splits_and_mirrors_the_same_way_every_time(tmp_path: Any) -> None:
    def picks(run: int) -> tuple[list[str], list[str]]:
        pairs = tmp_path / f"pairs-{run}.jsonl"
        with LocalServer() as a, LocalServer() as b, LocalServer() as shadow:
            router = Router(
                [Target(a.base_url, api_key=KEY_A, name="a"), Target(b.base_url, api_key=KEY_B, name="b")],
                rng=random.Random(7),
                shadow=Target(shadow.base_url, api_key=KEY_B, name="shadow"),
                mirror=0.5,
                mirror_to=pairs,
                mirror_concurrency=16,  # a slot for every copy: none is dropped however slow the shadow
            )
            served = [router.embeddings.create(model="m", input=f"x{i}")._target for i in range(16)]
            router.close()
        mirrored = sorted(json.loads(line)["body"]["input"] for line in pairs.read_text().splitlines())
        return served, mirrored

    first, again = picks(1), picks(2)
    assert first == again and {"a", "b"} <= set(first[0]) and 0 < len(first[1]) < 16


@pytest.mark.parametrize(
    "mirror_args",
    [{"shadow": "yes"}, {"mirror_to": "pairs.jsonl"}],
    ids=["shadow-without-file", "file-without-shadow"],
)
def test_a_mirror_needs_both_a_shadow_and_a_file(mirror_args: dict[str, str], tmp_path: Any) -> None:
    from holyclient import ConfigurationError

    args: dict[str, Any] = {"mirror": 0.5}
    if "shadow" in mirror_args:
        args["shadow"] = Target("http://127.0.0.1:9/v1", api_key=KEY_B, name="shadow")
    if "mirror_to" in mirror_args:
        args["mirror_to"] = tmp_path / "pairs.jsonl"
    with pytest.raises(ConfigurationError, match=r"^mirror= needs a shadow=Target\(\.\.\.\)"):
        Router([Target("http://127.0.0.1:9/v1", api_key=KEY_A, name="a")], **args)


def _mocked(url: str, host: Host, **kwargs: Any) -> Target:
    """A target answered by ``host`` in process (no retries: each failure reaches the router)."""
    http = httpx2.Client(transport=httpx2.MockTransport(host))
    return Target(url, http_client=http, max_retries=0, api_key=KEY_A, **kwargs)


def test_a_router_s_breaker_opens_after_five_failures_and_probes_after_a_quarter_of_thirty_seconds_by_default() -> (
    None
):
    """Issue 40: the cool-down adapts between a quarter of ``breaker_cooldown`` (30 s) and all of it; the
    first opening waits the shortest."""
    now = [0.0]
    host = Host()
    host.fail = httpx2.ConnectError("refused")
    router = Router([_mocked("https://a.test/v1", host)], clock=lambda: now[0])
    states = []
    for _ in range(5):
        with pytest.raises(APIConnectionError):
            router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        states.append(router.stats()["a.test"].breaker)
    assert states == ["closed"] * 4 + ["open"]
    now[0] = 7.49
    assert router.stats()["a.test"].breaker == "open"
    now[0] = 7.5
    assert router.stats()["a.test"].breaker == "half-open"


def test_a_router_without_max_retries_says_the_client_default() -> None:
    router = Router([Target("http://127.0.0.1:9/v1", api_key=KEY_A, name="a")])
    assert router.max_retries == DEFAULT_MAX_RETRIES == 2


def test_a_router_that_mirrors_nothing_splits_as_if_it_had_no_mirror(
    pair: tuple[LocalServer, LocalServer], tmp_path: Any
) -> None:
    a, b = pair
    shadow = Target("http://127.0.0.1:9/v1", api_key=KEY_B, name="shadow")

    def served(**mirror_args: Any) -> list[str]:
        targets = [Target(a.base_url, api_key=KEY_A, name="a"), Target(b.base_url, api_key=KEY_B, name="b")]
        with Router(targets, rng=random.Random(3), **mirror_args) as router:
            return [router.embeddings.create(model="m", input="x")._target for _ in range(12)]

    alone = served()
    assert {"a", "b"} <= set(alone)
    assert served(mirror=0.0, shadow=shadow, mirror_to=tmp_path / "pairs.jsonl") == alone
    assert served(mirror=0.0, mirror_to=tmp_path / "pairs.jsonl") == alone
    assert not (tmp_path / "pairs.jsonl").exists()


@pytest.mark.parametrize(("rate", "lines"), [(0.0, 0), (1.0, 2)])
def test_a_router_records_the_sample_its_record_rate_draws(
    pair: tuple[LocalServer, LocalServer], tmp_path: Any, rate: float, lines: int
) -> None:
    a, _ = pair
    sample = tmp_path / "sample.jsonl"
    with Router([Target(a.base_url, api_key=KEY_A, name="a")], record_to=sample, record_rate=rate) as router:
        for _ in range(2):
            router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    assert (len(sample.read_text().splitlines()) if sample.exists() else 0) == lines


@pytest.mark.parametrize(
    "body",
    [
        {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": 5}]},  # TypeError when counted
        {"model": "gpt-4o-mini"},  # ValueError: neither messages, prompt nor input
    ],
    ids=["content-not-text", "nothing-to-count"],
)
def test_a_body_the_counter_cannot_read_still_fails_over_after_it_may_have_been_sent(
    body: dict[str, Any],
) -> None:
    first, backup = Host(), Host()
    first.fail = httpx2.ReadTimeout("no answer")  # after sending: it may have been billed
    router = Router(
        [
            _mocked(
                "https://a.test/v1",
                first,
                fallbacks=[_mocked("https://b.test/v1", backup)],
                failover_if_sent=True,
            )
        ]
    )
    exchange = sender_of(router).send(RequestOptions("POST", "/chat/completions", body=body))
    assert exchange.response._target == "b.test" and exchange.response.status_code == 200
    assert (first.seen, backup.seen) == (1, 1)


def test_a_router_s_unlimited_single_attempt_skips_the_target_s_limiter(
    pair: tuple[LocalServer, LocalServer],
) -> None:
    a, _ = pair
    limiter = _Counting()
    with Router([Target(a.base_url, api_key=KEY_A, name="a", limiter=limiter)]) as router:
        exchange = sender_of(router).send(RequestOptions("GET", "/models"), limited=False)
        exchange.response.close()
    assert exchange.response.status_code == 200 and limiter.acquired == 0


async def test_an_async_router_s_unlimited_single_attempt_skips_the_target_s_limiter(
    pair: tuple[LocalServer, LocalServer],
) -> None:
    a, _ = pair
    limiter = _Counting()
    async with AsyncRouter([Target(a.base_url, api_key=KEY_A, name="a", limiter=limiter)]) as router:
        exchange = await sender_of(router).asend(RequestOptions("GET", "/models"), limited=False)
    assert exchange.response.status_code == 200 and limiter.acquired == 0
