"""Router against two real local servers: failover on each safe condition, never on request errors or
after the first streamed byte, keys never crossing hosts, and the async router."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from holyclient import (
    APIConnectionError,
    APIStatusError,
    AsyncRouter,
    AuthenticationError,
    BadRequestError,
    Client,
    Router,
    Target,
)
from holyclient.testing import Fault, LocalServer

MESSAGES = [{"role": "user", "content": "hi"}]
KEY_A, KEY_B = "sk-primary-aaaa", "sk-backup-bbbb"


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[LocalServer, LocalServer]]:
    with LocalServer(api_key=KEY_A, latency=0.0) as a, LocalServer(api_key=KEY_B, latency=0.01) as b:
        yield a, b


@pytest.fixture
def pair(servers: tuple[LocalServer, LocalServer]) -> Iterator[tuple[LocalServer, LocalServer]]:
    for server in servers:
        server.reset()
    yield servers
    for server in servers:
        server.reset()


def _router(a: LocalServer, b: LocalServer, **kwargs: Any) -> Router:
    """Primary a (all traffic) with b as its fallback; no retries, so each fault is one failure."""
    backup = Target(b.base_url, api_key=KEY_B, name="b")
    primary = Target(a.base_url, api_key=KEY_A, name="a", fallbacks=[backup])
    kwargs.setdefault("max_retries", 0)
    return Router([primary], **kwargs)


def _statuses(server: LocalServer) -> list[int | None]:
    return [r.status for r in server.requests]


SAFE = {
    "500": Fault.status(500),
    "503": Fault.status(503),
    "429": Fault.status(429),
    "insufficient_quota": Fault.insufficient_quota(),
}


@pytest.mark.parametrize("fault", list(SAFE.values()), ids=list(SAFE))
def test_failover_on_each_safe_condition(pair: tuple[LocalServer, LocalServer], fault: Fault):
    a, b = pair
    a.enqueue(fault)
    with _router(a, b) as router:
        answer = router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        assert answer._target == "b"
        assert router.stats()["a"].failovers == 1
    assert len(a.requests) == 1 and _statuses(b) == [200]


def _router_paying_twice(a: LocalServer, b: LocalServer, **kwargs: Any) -> Router:
    """As :func:`_router`, with ``a`` opted in to fail over after the request may have reached it."""
    backup = Target(b.base_url, api_key=KEY_B, name="b")
    primary = Target(a.base_url, api_key=KEY_A, name="a", fallbacks=[backup], failover_if_sent=True)
    return Router([primary], max_retries=0, **kwargs)


SENT_THEN_LOST = {"timeout": (Fault.hang(5.0), 0.3), "drop": (Fault.drop(), None)}


def test_a_connection_dropped_after_sending_is_not_sent_elsewhere_by_default(
    pair: tuple[LocalServer, LocalServer],
):
    """(A timeout is: the target was silent -- see tests/test_router_silent_targets.py.)"""
    a, b = pair
    a.enqueue(Fault.drop())
    with _router(a, b) as router, pytest.raises(APIConnectionError) as info:
        router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    assert "failover_if_sent=True" in " ".join(info.value.__notes__)
    assert b.requests == []  # never paid twice
    assert router.stats()["a"].failovers == 0 and router.stats()["a"].errors == 1


@pytest.mark.parametrize(("fault", "timeout"), list(SENT_THEN_LOST.values()), ids=list(SENT_THEN_LOST))
def test_opted_in_failover_after_sending_counts_the_first_attempt_as_uncertain_spend(
    pair: tuple[LocalServer, LocalServer], fault: Fault, timeout: float | None
):
    a, b = pair
    a.enqueue(fault)
    with _router_paying_twice(a, b, timeout=timeout) as router:
        answer = router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, max_tokens=5)
        assert answer._target == "b"
        assert router.usage.snapshot().uncertain_requests == 1  # the attempt a may have billed, in the total
        assert router.stats()["a"].failovers == 1


def test_a_connection_refused_fails_over_without_opting_in(pair: tuple[LocalServer, LocalServer]):
    _, b = pair
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    backup = Target(b.base_url, api_key=KEY_B, name="b")
    with Router([Target(closed, api_key=KEY_A, name="down", fallbacks=[backup])], max_retries=0) as router:
        assert router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)._target == "b"
        assert (
            router.usage.snapshot().uncertain_requests == 0
        )  # nothing was sent: nothing may have been billed


def test_429_fails_over_only_once_the_retry_budget_is_spent(pair: tuple[LocalServer, LocalServer]):
    a, b = pair
    a.enqueue(Fault.status(429, retry_after=0.01))
    with _router(a, b, max_retries=1) as router:  # the one 429 is retried on a itself
        assert router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)._target == "a"
    a.reset()
    a.enqueue(Fault.status(429, retry_after=0.01), Fault.status(429, retry_after=0.01))
    with _router(a, b, max_retries=1) as router:
        assert router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)._target == "b"


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_request_errors_never_fail_over(pair: tuple[LocalServer, LocalServer], status: int):
    a, b = pair
    a.enqueue(Fault.status(status))
    with _router(a, b) as router, pytest.raises(APIStatusError) as info:
        router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    assert info.value.status_code == status
    assert "a refused the request" in " ".join(info.value.__notes__)
    assert b.requests == []
    assert router.stats()["a"].breaker == "closed"


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
async def test_the_async_router_never_fails_over_on_a_request_error(
    pair: tuple[LocalServer, LocalServer], status: int, stream: bool
):
    a, b = pair
    a.enqueue(Fault.status(status))
    backup = Target(b.base_url, api_key=KEY_B, name="b")
    primary = Target(a.base_url, api_key=KEY_A, name="a", fallbacks=[backup])
    async with AsyncRouter([primary], max_retries=0) as router:
        with pytest.raises(APIStatusError) as info:
            await router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=stream)
        assert info.value.status_code == status
        assert "a refused the request" in " ".join(info.value.__notes__)
        assert router.stats()["a"].failovers == 0 and router.stats()["a"].breaker == "closed"
    assert len(a.requests) == 1 and b.requests == []


def test_a_stream_fails_over_before_its_first_byte(pair: tuple[LocalServer, LocalServer]):
    a, b = pair
    a.enqueue(Fault.status(503))
    with _router(a, b) as router:
        stream = router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)
        assert stream._target == "b"
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert text == "Echo: hi"


def test_a_stream_never_fails_over_after_its_first_byte_with_recovery_off(
    pair: tuple[LocalServer, LocalServer],
):
    """(By default it is taken over: tests/test_router_stream_recovery.py.)"""
    a, b = pair
    a.enqueue(Fault.stream_cut(after_chunks=2))
    with _router(a, b, stream_recovery="off") as router:
        stream = router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)
        assert stream._target == "a"
        with pytest.raises(APIConnectionError):
            list(stream)
    assert b.requests == []


def test_a_stream_opening_with_an_error_event_fails_over(pair: tuple[LocalServer, LocalServer]):
    """A 200 whose first event is a server error: nothing reached the caller yet, so another target is tried."""
    a, b = pair
    a.enqueue(Fault.stream_error(after_chunks=0))
    with _router(a, b) as router:
        stream = router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)
        assert stream._target == "b"
        assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == "Echo: hi"


def test_a_stream_error_event_after_data_never_fails_over_with_recovery_off(
    pair: tuple[LocalServer, LocalServer],
):
    a, b = pair
    a.enqueue(Fault.stream_error(after_chunks=2))
    with _router(a, b, stream_recovery="off") as router:
        stream = router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)
        assert stream._target == "a"
        with pytest.raises(APIStatusError):
            list(stream)
    assert b.requests == []


def test_a_stream_opening_with_a_request_error_is_not_failed_over(pair: tuple[LocalServer, LocalServer]):
    a, b = pair
    a.enqueue(Fault.stream_error(after_chunks=0, status=400, error_type="invalid_request_error"))
    with _router(a, b) as router:
        stream = router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)
        with pytest.raises(BadRequestError):  # raised while reading, as from a plain Client
            list(stream)
    assert b.requests == []


async def test_an_async_stream_opening_with_a_request_error_event_is_not_failed_over(
    pair: tuple[LocalServer, LocalServer],
):
    """The async twin of the test above: a 400 event is the caller's mistake, raised while reading."""
    a, b = pair
    a.enqueue(Fault.stream_error(after_chunks=0, status=400, error_type="invalid_request_error"))
    backup = Target(b.base_url, api_key=KEY_B, name="b")
    primary = Target(a.base_url, api_key=KEY_A, name="a", fallbacks=[backup])
    async with AsyncRouter([primary], max_retries=0) as router:
        stream = await router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)
        assert stream._target == "a"
        with pytest.raises(BadRequestError):
            [c async for c in stream]
        assert router.stats()["a"].failovers == 0
    assert b.requests == []


def test_all_targets_failing_raises_the_last_error_naming_each_target(pair: tuple[LocalServer, LocalServer]):
    a, b = pair
    a.enqueue(Fault.status(503))
    b.enqueue(Fault.status(502))
    with _router(a, b) as router, pytest.raises(APIStatusError) as info:
        router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    assert info.value.status_code == 502
    assert "a (503), b (502)" in " ".join(info.value.__notes__)
    assert KEY_A not in str(info.value.__notes__) and KEY_B not in str(info.value.__notes__)


def test_keys_never_cross_hosts(pair: tuple[LocalServer, LocalServer]):
    """Each server accepts only its own key (401 otherwise): across splits and failovers, none refused one."""
    a, b = pair
    backup = Target(b.base_url, api_key=KEY_B, name="b", weight=1)
    primary = Target(a.base_url, api_key=KEY_A, name="a", weight=1, fallbacks=[backup])
    a.enqueue(*[Fault.status(503)] * 5)
    with Router([primary, backup], max_retries=0) as router:
        for _ in range(40):
            router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        router.embeddings.create(model="text-embedding-3-small", input="x")
        assert sum(s.requests for s in router.stats().values()) >= 41
    assert a.requests and b.requests
    assert 401 not in _statuses(a) + _statuses(b)
    assert KEY_A not in repr(router) and KEY_B not in repr(router)


def test_a_wrong_key_is_an_error_for_its_target_alone(pair: tuple[LocalServer, LocalServer]):
    a, b = pair
    backup = Target(b.base_url, api_key=KEY_B, name="b")
    primary = Target(a.base_url, api_key="sk-wrong-key-zzzz", name="a", fallbacks=[backup])
    with Router([primary], max_retries=0) as router, pytest.raises(AuthenticationError):
        router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    assert b.requests == []  # a 401 is not failed over: b never sees a's (wrong) key or the request


def test_pages_are_fetched_from_the_target_that_served_the_first(pair: tuple[LocalServer, LocalServer]):
    a, b = pair
    with _router(a, b) as router:
        page = router.models.list()
        assert page._target == "a"
        assert page._client is router._clients["a"]


def test_raw_responses_say_which_target_served(pair: tuple[LocalServer, LocalServer]):
    a, b = pair
    a.enqueue(Fault.status(500))
    with _router(a, b) as router:
        raw = router.with_raw_response.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        assert raw.status_code == 200 and raw._target == "b" and raw.parse()._target == "b"


def test_bad_request_error_is_raised_as_is(pair: tuple[LocalServer, LocalServer]):
    a, b = pair
    a.enqueue(Fault.status(400))
    with _router(a, b) as router, pytest.raises(BadRequestError):
        router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)


def test_async_router_fails_over_and_streams(pair: tuple[LocalServer, LocalServer]):
    a, b = pair

    async def main() -> None:
        backup = Target(b.base_url, api_key=KEY_B, name="b")
        primary = Target(a.base_url, api_key=KEY_A, name="a", fallbacks=[backup])
        async with AsyncRouter([primary], max_retries=0) as router:
            a.enqueue(Fault.status(500))
            answer = await router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
            assert answer._target == "b"
            a.enqueue(Fault.status(503))
            stream = await router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)
            assert stream._target == "b"
            assert [c async for c in stream]
            a.enqueue(Fault.stream_error(after_chunks=0))
            stream = await router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)
            assert stream._target == "b"
            assert [c async for c in stream]
            a.enqueue(Fault.status(404))
            with pytest.raises(APIStatusError):
                await router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
            assert router.stats()["a"].failovers == 3
            page = await router.models.list()
            assert page._target == "a" and page._client is router._clients["a"]

    asyncio.run(main())
    assert 401 not in _statuses(a) + _statuses(b)


def test_a_binary_download_fails_over_when_no_response_came(pair: tuple[LocalServer, LocalServer]):
    _, b = pair
    with socket.socket() as unused:  # a port nobody listens on: the connection is refused
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    backup = Target(b.base_url, api_key=KEY_B, name="b")
    down = Target(f"http://127.0.0.1:{port}/v1", api_key=KEY_A, name="down", fallbacks=[backup])
    with Router([down], max_retries=0) as router:
        with router.audio.speech.with_streaming_response.create(
            model="tts-1", voice="alloy", input="hi"
        ) as audio:
            assert audio.read()
        assert router.stats()["b"].successes == 1 and router.stats()["down"].failovers == 1
    assert _statuses(b) == [200]


def test_router_and_async_router_expose_the_same_methods_with_the_same_parameters():
    import inspect

    def methods(cls: type) -> dict[str, list[tuple[str, Any, Any]]]:
        return {
            name: [(p.name, p.kind, p.default) for p in inspect.signature(member).parameters.values()]
            for name, member in inspect.getmembers(cls)
            if not name.startswith("_")
            and "ǁ" not in name
            and inspect.isfunction(member)  # not mutmut's copies
        }

    assert methods(Router) == methods(AsyncRouter)
    assert methods(Router).keys() >= {"set_weight", "stats", "target_usage", "with_options", "close"}
    sig = inspect.signature
    assert list(sig(Router.__init__).parameters.items()) == list(sig(AsyncRouter.__init__).parameters.items())


def test_a_stream_that_fails_over_on_its_opening_error_is_charged_once(pair: tuple[LocalServer, LocalServer]):
    a, b = pair
    a.enqueue(Fault.stream_error(after_chunks=0))
    with _router(a, b) as router:
        stream = router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)
        assert stream._target == "b"
        list(stream)
        stats = router.stats()
        total = router.usage.snapshot()
    assert stats["a"].prompt_tokens == 0  # a's opening error event: nothing billed there
    assert total.models["gpt-4o-mini"].prompt_tokens == stats["b"].prompt_tokens > 0


def test_an_async_stream_that_fails_over_on_its_opening_error_is_charged_once(
    pair: tuple[LocalServer, LocalServer],
):
    a, b = pair
    a.enqueue(Fault.stream_error(after_chunks=0))

    async def main() -> None:
        backup = Target(b.base_url, api_key=KEY_B, name="b")
        async with AsyncRouter(
            [Target(a.base_url, api_key=KEY_A, name="a", fallbacks=[backup])], max_retries=0
        ) as router:
            stream = await router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)
            assert stream._target == "b" and [c async for c in stream]
            stats = router.stats()
            assert stats["a"].prompt_tokens == 0 and stats["b"].prompt_tokens > 0
            assert router.usage.snapshot().models["gpt-4o-mini"].prompt_tokens == stats["b"].prompt_tokens

    asyncio.run(main())


@pytest.mark.parametrize("model", ["gpt-4o-mini", "claude-sonnet-4.5"], ids=["exact", "stand-in"])
def test_a_failed_over_attempt_that_may_have_billed_is_uncertain_once_without_a_budget(
    pair: tuple[LocalServer, LocalServer], model: str
):
    """The target's own ledger charges the attempt as uncertain; the Router adds nothing (a model counted
    with a stand-in tokenizer used to be reserved by the target to learn, and charged again here)."""
    a, b = pair
    a.enqueue(Fault.drop())
    with _router_paying_twice(a, b) as router:
        answer = router.chat.completions.create(model=model, messages=MESSAGES)
        assert answer._target == "b"
        lost = router.target_usage("a").snapshot()
        total = router.usage.snapshot()
    assert lost.uncertain_requests == 1 and total.uncertain_requests == 1
    assert total.uncertain_usd == pytest.approx(lost.uncertain_usd) and lost.uncertain_usd > 0


@pytest.mark.parametrize("budget", [None, 5.0], ids=["unbudgeted", "budgeted"])
def test_a_client_and_a_router_charge_a_stream_opening_with_an_error_alike(
    pair: tuple[LocalServer, LocalServer], budget: float | None
):
    a, b = pair
    long = [{"role": "user", "content": "word " * 2000}]
    a.enqueue(Fault.stream_error(after_chunks=0))
    with Client(api_key=KEY_A, base_url=a.base_url, max_retries=0, budget_usd=budget) as client:
        with pytest.raises(APIStatusError):
            list(client.chat.completions.create(model="gpt-4o-mini", messages=long, stream=True))
        assert client.usage.snapshot().total_cost_usd == 0.0
    a.enqueue(Fault.stream_error(after_chunks=0))
    with _router(a, b, budget_usd=budget) as router:
        with router.chat.completions.create(model="gpt-4o-mini", messages=long, stream=True) as stream:
            list(stream)
        assert router.target_usage("a").snapshot().total_cost_usd == 0.0
