"""A failed request is a result, never an exception: by construction, at every step of its life.

Also: the caller's own exceptions come out as themselves, and a doomed run (every attempt refused the
same hopeless way) stops early without writing the results of the streak.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
import httpx2
import pytest

from holyclient import AsyncClient
from holyclient._send._pipeline import Pipeline
from holyclient.batch import BatchRequest, BatchResult, BatchRunner, BatchStoppedError
from holyclient.batch import _process as runner_module
from holyclient.pricing import Ledger
from support import KEY, completion


class Injected(RuntimeError):
    pass


def _requests(n: int, content: Any = None) -> list[BatchRequest]:
    return [
        BatchRequest(
            f"r{i}",
            {
                "model": "gpt-4.1",
                "max_tokens": 5,
                "messages": [{"role": "user", "content": content or f"p{i}"}],
            },
        )
        for i in range(n)
    ]


def _client(handler: Callable[[httpx2.Request], Any], **options: Any) -> AsyncClient:
    http = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    return AsyncClient(api_key=KEY, http_client=http, **options)


def _first_fails_then_ok() -> Callable[[httpx2.Request], httpx2.Response]:
    """Each request's first attempt is a 500 (so the retry path runs too), its second succeeds."""
    seen: set[str] = set()

    def handler(request: httpx2.Request) -> httpx2.Response:
        prompt = json.loads(request.content)["messages"][0]["content"]
        if prompt not in seen:
            seen.add(prompt)
            return httpx2.Response(500, json={"error": {"message": "boom", "type": "server_error"}})
        return httpx2.Response(200, json=completion("ok"))

    return handler


async def _no_wait(seconds: float) -> None:
    await anyio.lowlevel.checkpoint()


def _raiser(*args: Any, **kwargs: Any) -> Any:
    raise Injected("injected failure")


async def _araiser(*args: Any, **kwargs: Any) -> Any:
    await anyio.lowlevel.checkpoint()
    raise Injected("injected failure")


#: Every step of a request's life, sync and async: (where, attribute, replacement).
INJECTION_POINTS: list[tuple[str, str, Callable[..., Any]]] = [
    ("pipeline", "reserve", _raiser),  # the send pipeline's steps, as every request passes them
    ("pipeline", "_awire", _araiser),
    ("client", "_status_error", _raiser),  # where every status error is made (``_send.status_error``)
    ("ledger", "settle", _raiser),
    ("runner", "_sleep", _araiser),
    ("slots", "acquire", _araiser),  # a retry's slot (the run itself takes the first attempt's)
    ("requests_limit", "acquire", _araiser),
    ("tokens_limit", "acquire", _araiser),
    ("tokens_limit", "correct", _raiser),
    ("estimator", "estimate", _raiser),
    ("estimator", "observe", _raiser),
    ("adaptive", "on_attempt", _raiser),
    ("module", "read_answer", _raiser),
    ("module", "usage_of", _raiser),
]


@pytest.mark.parametrize(
    ("where", "name", "replacement"), INJECTION_POINTS, ids=lambda v: getattr(v, "__name__", v)
)
async def test_a_failure_at_any_step_of_a_request_is_a_result_and_the_batch_goes_on(
    where: str, name: str, replacement: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    client = _client(_first_fails_then_ok(), budget_usd=10.0)
    runner = BatchRunner(client, concurrency=3, rpm=10_000, tpm=10_000_000, max_retries=2, sleep=_no_wait)
    target = {
        "pipeline": Pipeline,
        "client": type(client),
        "ledger": Ledger,
        "runner": runner,
        "slots": runner._slots,
        "requests_limit": runner.requests_limit,
        "tokens_limit": runner.tokens_limit,
        "estimator": runner.estimator,
        "adaptive": runner.adaptive,
        "module": runner_module,
    }[where]
    if where == "slots":
        original = runner._slots.acquire

        async def replacement(*, priority: bool = False) -> None:
            if priority:
                await _araiser()
            await original(priority=priority)

    monkeypatch.setattr(target, name, replacement)
    results: list[BatchResult] = []
    await runner.run(_requests(10), results.append)
    assert sorted(r.custom_id for r in results) == sorted(f"r{i}" for i in range(10))
    assert runner._slots.in_use == 0  # no slot leaked by a request that failed half-way
    if name != "settle":
        assert client.usage.snapshot().reserved_usd == 0  # and no budget reservation kept
    assert client.usage.snapshot().uncertain_requests == 0  # a 500 or a bug of ours is not "maybe billed"
    failed = [r for r in results if not r.ok]
    if name not in ("settle", "correct", "observe"):  # those fail after the response: the result stands
        assert failed
    for result in failed:
        line = result.output_line()
        assert line["error"] is not None or line["response"]["status_code"] >= 400
        assert KEY not in json.dumps(line)


async def test_with_a_budget_a_line_whose_tokens_cannot_be_counted_is_a_failed_result() -> None:
    client = _client(lambda request: httpx2.Response(200, json=completion("ok")), budget_usd=10.0)
    requests = _requests(5)
    requests[2] = BatchRequest("bad", {"model": "gpt-4.1", "messages": [{"role": "user", "content": 123}]})
    results: list[BatchResult] = []
    await BatchRunner(client, concurrency=2).run(requests, results.append)
    assert len(results) == 5
    bad = next(r for r in results if r.custom_id == "bad")
    assert not bad.ok and bad.error is not None
    assert all(r.ok for r in results if r.custom_id != "bad")


async def test_an_exception_in_the_callers_loop_comes_out_unwrapped() -> None:
    runner = BatchRunner(_client(lambda request: httpx2.Response(200, json=completion("ok"))), concurrency=2)
    with pytest.raises(ValueError, match="mine"):
        async with runner.results(_requests(10)) as results:
            async for _result in results:
                raise ValueError("mine")


async def test_an_exception_in_on_result_comes_out_unwrapped() -> None:
    runner = BatchRunner(_client(lambda request: httpx2.Response(200, json=completion("ok"))), concurrency=2)

    def on_result(result: BatchResult) -> None:
        raise KeyError("mine")

    with pytest.raises(KeyError, match="mine"):
        await runner.run(_requests(3), on_result)


def _refused(request: httpx2.Request) -> httpx2.Response:
    return httpx2.Response(
        401, json={"error": {"message": "Incorrect API key", "type": "invalid_request_error"}}
    )


async def test_a_run_of_refused_keys_stops_early_and_delivers_none_of_the_streak() -> None:
    sent = 0

    def handler(request: httpx2.Request) -> httpx2.Response:
        nonlocal sent
        sent += 1
        return _refused(request)

    runner = BatchRunner(_client(handler), concurrency=2, stop_after=5, sleep=_no_wait)
    results: list[BatchResult] = []
    with pytest.raises(BatchStoppedError, match="HTTP 401"):
        await runner.run(_requests(100), results.append)
    assert sent <= 5 + 2
    assert results == []  # nothing written: a rerun with the right key sends them all


async def test_an_unreachable_server_stops_the_run_before_the_retries_run_out() -> None:
    attempts = 0

    def handler(request: httpx2.Request) -> httpx2.Response:
        nonlocal attempts
        attempts += 1
        raise httpx2.ConnectError("Name or service not known", request=request)

    runner = BatchRunner(_client(handler), concurrency=2, stop_after=5, sleep=_no_wait)
    with pytest.raises(BatchStoppedError, match="could not connect"):
        await runner.run(_requests(20), lambda result: None)
    assert attempts <= 5 + 2


async def test_hopeless_failures_mixed_with_successes_are_ordinary_results() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        prompt = json.loads(request.content)["messages"][0]["content"]
        return _refused(request) if int(prompt[1:]) % 3 else httpx2.Response(200, json=completion("ok"))

    runner = BatchRunner(_client(handler), concurrency=1, stop_after=3, sleep=_no_wait)
    results: list[BatchResult] = []
    await runner.run(_requests(12), results.append)
    assert len(results) == 12  # held results of a streak that broke are delivered
    assert sum(r.ok for r in results) == 4


async def test_without_stop_after_the_library_sends_everything() -> None:
    runner = BatchRunner(_client(_refused), concurrency=2, sleep=_no_wait)
    results: list[BatchResult] = []
    await runner.run(_requests(10), results.append)
    assert len(results) == 10 and not any(r.ok for r in results)


async def test_an_unexpected_error_that_quotes_the_key_does_not_write_it_to_the_result() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise RuntimeError(f"odd failure with headers {dict(request.headers)}")

    results: list[BatchResult] = []
    await BatchRunner(_client(handler), concurrency=1, max_retries=0).run(_requests(1), results.append)
    assert results[0].error is not None and "odd failure" in results[0].error["message"]
    assert KEY not in json.dumps(results[0].output_line())


def test_after_the_stop_a_success_still_in_flight_is_delivered_but_the_streak_is_not() -> None:
    from holyclient.batch._guard import StopBreaker

    breaker = StopBreaker(2, clock=lambda: 0.0)
    refused = httpx2.Response(401, request=httpx2.Request("POST", "http://x"))
    failure = AsyncClient(api_key=KEY)._status_error(refused, b"{}", refused.request)
    streak = [BatchResult(f"f{i}", 401) for i in range(2)]
    breaker.on_attempt(failure)
    assert breaker.hold(streak[0]) and not breaker.tripped
    breaker.on_attempt(failure)
    assert breaker.tripped and breaker.hold(streak[1])
    assert breaker.flush() == []  # the streak is dropped: a rerun sends those requests
    assert not breaker.hold(BatchResult("ok", 200))  # a paid-for success is written, not sent twice
