"""One batch request's attempts (issue 25, item 7): how long a retry waits, how often a request is tried,
what the runner's tallies count, what its limiter is told, and what a request that failed keeps.

Every test goes through the public ``BatchRunner`` with a recorded sleep and, where time matters, a clock
that only the fake server moves: each assertion is exact, whatever the machine's load.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, cast

import anyio
import httpx2
import pytest

from batch_support import RecordingLimiter
from holyclient import AsyncClient
from holyclient.batch import BatchRequest, BatchResult, BatchRunner
from holyclient.ratelimit import TokenEstimator
from support import KEY, completion

Handler = Callable[[httpx2.Request], httpx2.Response]
Sleep = Callable[[float], Awaitable[None]]

_SERVER_ERROR = {"error": {"message": "boom", "type": "server_error"}}
_SLOW_DOWN = {"error": {"message": "slow down", "type": "rate_limit_error"}}
_NO_CREDIT = {"error": {"message": "no credit", "type": "insufficient_quota", "code": "insufficient_quota"}}


def _client(handler: Handler, **options: Any) -> AsyncClient:
    return AsyncClient(
        api_key=KEY, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)), **options
    )


def _chat(custom_id: str, prompt: str = "hi") -> BatchRequest:
    return BatchRequest(custom_id, {"model": "gpt-4.1", "messages": [{"role": "user", "content": prompt}]})


def _prompt(request: httpx2.Request) -> str:
    return str(json.loads(request.content)["messages"][-1]["content"])


def _scripted(*answers: httpx2.Response) -> tuple[Handler, list[httpx2.Request]]:
    """A handler answering ``answers`` in order (the last one again once they run out), and what it saw."""
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return answers[min(len(seen), len(answers)) - 1]

    return handler, seen


def _fails(times: int, status: int = 500) -> tuple[Handler, list[httpx2.Request]]:
    return _scripted(
        *[httpx2.Response(status, json=_SERVER_ERROR)] * times, httpx2.Response(200, json=completion("ok"))
    )


@pytest.fixture
def recorded_sleep(sleeps: list[float]) -> Sleep:
    """The runner's sleep: each wait recorded in ``sleeps``, none taken."""

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    return sleep


async def _run(runner: BatchRunner, *requests: BatchRequest) -> list[BatchResult]:
    results: list[BatchResult] = []
    await runner.run(list(requests), results.append)
    return sorted(results, key=lambda result: result.custom_id)


# --- how long a retry waits ---------------------------------------------------------------------------


async def test_a_retry_after_a_429_waits_the_servers_retry_after(
    sleeps: list[float], recorded_sleep: Sleep, caplog: pytest.LogCaptureFixture
) -> None:
    handler, _ = _scripted(
        httpx2.Response(429, json=_SLOW_DOWN, headers={"retry-after": "3"}),
        httpx2.Response(200, json=completion("ok")),
    )
    caplog.set_level(logging.DEBUG, logger="holyclient")
    (result,) = await _run(BatchRunner(_client(handler), sleep=recorded_sleep), _chat("r7"))
    assert result.ok and result.attempts == 2
    assert sleeps == [3.0]  # the server's word, not the isolated-failure share of the backoff
    (retrying,) = [r.getMessage() for r in caplog.records if "retrying" in r.getMessage()]
    assert retrying == "Batch request r7: Error code: 429 - slow down; retrying in 3.00s"


async def test_an_isolated_failure_is_retried_six_times_after_a_short_flat_wait_then_after_the_full_backoff(
    sleeps: list[float], recorded_sleep: Sleep
) -> None:
    handler, seen = _fails(7)
    # 64 slots: one request failing 7 times in a row is a small share of the recent attempts
    runner = BatchRunner(_client(handler), concurrency=64, max_retries=7, sleep=recorded_sleep)
    (result,) = await _run(runner, _chat("r0"))
    assert result.ok and result.attempts == 8 and len(seen) == 8
    quick, full = sleeps[:6], sleeps[6:]
    # a fifth of the first backoff (0.5 s minus up to 25% jitter), not growing
    assert len(quick) == 6 and all(0.075 <= s <= 0.1 for s in quick), sleeps
    assert len(full) == 1 and 6.0 <= full[0] <= 8.0, sleeps  # the 7th retry: 0.5 s * 2**6, capped at 8 s


async def test_a_dropped_connection_is_retried_after_the_short_isolated_failure_wait(
    sleeps: list[float], recorded_sleep: Sleep
) -> None:
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        if len(seen) == 1:
            raise httpx2.ConnectError("refused", request=request)
        return httpx2.Response(200, json=completion("ok"))

    (result,) = await _run(BatchRunner(_client(handler), max_retries=1, sleep=recorded_sleep), _chat("r0"))
    assert result.ok and result.attempts == 2 and len(seen) == 2
    assert len(sleeps) == 1 and 0.075 <= sleeps[0] <= 0.1, (
        sleeps
    )  # no Retry-After: a connection error has none


async def test_failures_across_most_attempts_wait_the_full_backoff(
    sleeps: list[float], recorded_sleep: Sleep
) -> None:
    handler, _ = _fails(6)
    # one slot: each failure weighs an eighth of the recent attempts; after six, more than half failed
    runner = BatchRunner(_client(handler), concurrency=1, max_retries=6, sleep=recorded_sleep)
    (result,) = await _run(runner, _chat("r0"))
    assert result.ok and result.attempts == 7
    assert 0.075 <= sleeps[0] <= 0.1, sleeps  # the first failure was still an isolated one
    assert 6.0 <= sleeps[-1] <= 8.0, sleeps  # the sixth retry: the policy's whole backoff (8 s cap)


async def test_without_adaptive_concurrency_every_retry_waits_the_full_growing_backoff(
    sleeps: list[float], recorded_sleep: Sleep
) -> None:
    handler, _ = _fails(3)
    runner = BatchRunner(_client(handler), adaptive=False, max_retries=3, sleep=recorded_sleep)
    (result,) = await _run(runner, _chat("r0"))
    assert result.ok and result.attempts == 4
    assert all(0.75 * b <= s <= b for s, b in zip(sleeps, (0.5, 1.0, 2.0), strict=True)), sleeps


# --- how often a request is tried ---------------------------------------------------------------------


@pytest.mark.parametrize("max_retries", [0, 1, 2])
async def test_a_failing_request_is_tried_max_retries_plus_one_times_then_given_up(
    max_retries: int, recorded_sleep: Sleep
) -> None:
    handler, seen = _fails(5)
    runner = BatchRunner(_client(handler), max_retries=max_retries, sleep=recorded_sleep)
    (result,) = await _run(runner, _chat("r0"))
    assert (result.status_code, result.attempts, len(seen)) == (500, max_retries + 1, max_retries + 1)
    assert (runner.stats.attempts, runner.stats.retries) == (max_retries + 1, max_retries)


async def test_an_answer_that_retrying_cannot_change_is_not_retried(recorded_sleep: Sleep) -> None:
    handler, seen = _fails(5, status=400)
    runner = BatchRunner(_client(handler), max_retries=3, sleep=recorded_sleep)
    (result,) = await _run(runner, _chat("r0"))
    assert (result.status_code, result.attempts, len(seen)) == (400, 1, 1)


# --- the runner's tallies -----------------------------------------------------------------------------


async def test_the_stats_count_attempts_rate_limits_and_the_time_of_successful_attempts(
    recorded_sleep: Sleep,
) -> None:
    now = [1000.0]
    scripts = {  # per prompt, in order: 429s as a rate limit (retried), out of credit (not), a 500
        "p0": [httpx2.Response(429, json=_SLOW_DOWN, headers={"retry-after": "1"})],
        "p1": [httpx2.Response(429, json=_NO_CREDIT)],
        "p2": [httpx2.Response(500, json=_SERVER_ERROR)],
        "p3": [httpx2.Response(429, json=_SLOW_DOWN, headers={"retry-after": "1"})],
    }

    def handler(request: httpx2.Request) -> httpx2.Response:
        now[0] += 0.25  # each answer takes a quarter of a second of the runner's clock
        script = scripts[_prompt(request)]
        return script.pop(0) if script else httpx2.Response(200, json=completion("ok"))

    runner = BatchRunner(_client(handler), concurrency=1, clock=lambda: now[0], sleep=recorded_sleep)
    results = await _run(runner, *(_chat(f"r{i}", f"p{i}") for i in range(4)))
    assert [r.ok for r in results] == [True, False, True, True]
    stats = runner.stats
    assert (stats.attempts, stats.retries, stats.rate_limited) == (7, 3, 2)
    assert (stats.successful_attempts, stats.success_seconds, stats.mean_latency) == (3, 0.75, 0.25)
    assert stats.concurrency == 1


async def test_sustained_429s_lower_the_runners_concurrency_and_successes_bring_it_back(
    recorded_sleep: Sleep,
) -> None:
    now = [1000.0]
    refused: set[str] = set()

    def handler(request: httpx2.Request) -> httpx2.Response:
        now[0] += 0.1  # each answer takes a tenth of a second of the runner's clock
        prompt = _prompt(request)
        if int(prompt[1:]) < 8 and prompt not in refused:  # the first eight requests are refused once
            refused.add(prompt)
            return httpx2.Response(429, json=_SLOW_DOWN, headers={"retry-after": "1"})
        return httpx2.Response(200, json=completion("ok"))

    runner = BatchRunner(_client(handler), concurrency=8, clock=lambda: now[0], sleep=recorded_sleep)
    seen_concurrency: list[int] = []
    requests = [_chat(f"r{i}", f"p{i}") for i in range(80)]
    await runner.run(requests, lambda result: seen_concurrency.append(runner.stats.concurrency))
    assert runner.stats.succeeded == 80 and runner.stats.rate_limited == 8
    assert min(seen_concurrency) < 8  # halved while most recent attempts were refused
    assert runner.stats.concurrency == 8  # grown back, about one slot per round trip of successes


# --- what the limiter is told -------------------------------------------------------------------------

_EMBEDDING = {"object": "list", "data": [{"index": 0, "embedding": [0.5]}], "usage": {"prompt_tokens": 2}}


def _embeddings(handler_body: dict[str, Any]) -> Handler:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json=handler_body)

    return handler


async def test_a_request_without_a_model_is_admitted_as_unknown_and_observed_on_its_own_admission() -> None:
    limiter = RecordingLimiter()
    estimator = TokenEstimator(counter=lambda body, endpoint: 2)  # the input counted as 2 tokens
    runner = BatchRunner(_client(_embeddings(_EMBEDDING)), limiter=limiter, token_estimator=estimator)
    (result,) = await _run(runner, BatchRequest("r0", {"input": "x"}, "/v1/embeddings"))
    assert result.ok
    # an embedding reserves its input only: no completion allowance
    assert limiter.admitted == [("unknown", 2)]
    ((admission, feedback),) = limiter.observed
    assert admission is limiter.admissions[0] and feedback.total_tokens == 2


async def test_a_chat_request_is_admitted_at_its_counted_prompt_plus_its_max_tokens() -> None:
    limiter = RecordingLimiter()
    handler, _ = _scripted(httpx2.Response(200, json=completion("ok")))
    runner = BatchRunner(
        _client(handler), limiter=limiter, token_estimator=TokenEstimator(counter=lambda body, endpoint: 2)
    )
    body = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5}
    (result,) = await _run(runner, BatchRequest("r0", body))
    assert result.ok and limiter.admitted == [("gpt-4.1", 2 + 5)]


async def test_a_limiter_of_requests_only_is_asked_for_no_tokens_and_told_no_usage() -> None:
    limiter = RecordingLimiter(tpm=None)
    estimator = TokenEstimator(counter=lambda body, endpoint: 2)
    billed = {"prompt_tokens": 8, "completion_tokens": 1, "total_tokens": 9}
    handler, _ = _scripted(httpx2.Response(200, json=completion("ok", usage=billed)))
    runner = BatchRunner(_client(handler), limiter=limiter, token_estimator=estimator)
    (result,) = await _run(runner, _chat("r0"))
    assert result.ok and limiter.admitted == [("gpt-4.1", 0)]
    ((_, feedback),) = limiter.observed
    assert feedback.total_tokens is None
    assert estimator.ratio == 1.0  # nothing was counted, so nothing is learnt from what was billed


# --- what a failed request keeps ----------------------------------------------------------------------


async def test_a_request_that_fails_before_sending_keeps_its_id_and_model_and_is_logged_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    handler, seen = _fails(0)
    caplog.set_level(logging.DEBUG, logger="holyclient")
    request = BatchRequest("r3", {"model": "gpt-4.1", "input": "x"}, "/v1/nowhere")
    (result,) = await _run(BatchRunner(_client(handler)), request)
    assert (result.custom_id, result.model, seen) == ("r3", "gpt-4.1", [])
    assert result.error is not None and result.error["code"] == "request_failed"
    (record,) = [r for r in caplog.records if r.getMessage().endswith("failed")]
    assert record.getMessage() == "Batch request r3 failed" and record.levelno == logging.DEBUG
    assert record.exc_info is not None and record.exc_info[0] is ValueError


@pytest.mark.parametrize("body", [{"input": "x"}, cast(Any, 5)], ids=["without-a-model", "not-an-object"])
async def test_a_request_that_names_no_model_fails_without_one(body: Any) -> None:
    handler, seen = _fails(0)
    (result,) = await _run(BatchRunner(_client(handler)), BatchRequest("r0", body, "/v1/nowhere"))
    assert result.error is not None and result.error["code"] == "request_failed"
    assert result.model is None and seen == []


async def test_a_connection_failure_keeps_the_requests_model() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("refused", request=request)

    (result,) = await _run(BatchRunner(_client(handler), max_retries=0), _chat("r0"))
    assert result.error is not None and result.error["code"] == "connection_error"
    assert (result.custom_id, result.status_code, result.model, result.attempts) == ("r0", None, "gpt-4.1", 1)


async def test_a_request_the_budget_refuses_says_why_keeps_its_model_and_counts_no_attempt() -> None:
    handler, seen = _fails(0)
    client = _client(handler, budget_usd=0.000001)
    (result,) = await _run(BatchRunner(client, max_retries=2), _chat("r0"))
    assert seen == [] and (result.custom_id, result.model, result.attempts) == ("r0", "gpt-4.1", 0)
    assert result.error is not None and result.error["code"] == "budget_exceeded"
    assert "budget" in result.error["message"].lower() and "None" not in result.error["message"]


async def test_a_secret_header_an_error_answer_echoes_stays_out_of_the_result_and_the_log(
    caplog: pytest.LogCaptureFixture, recorded_sleep: Sleep
) -> None:
    secret = "proxy-secret-0123456789"
    echo = {"error": {"message": f"upstream refused {secret}", "type": "server_error"}}
    handler, seen = _scripted(httpx2.Response(500, json=echo))
    client = _client(handler, default_headers={"x-api-key": secret})
    caplog.set_level(logging.DEBUG, logger="holyclient")
    (result,) = await _run(BatchRunner(client, max_retries=1, sleep=recorded_sleep), _chat("r0"))
    assert seen[0].headers["x-api-key"] == secret  # it was sent, so a server could echo it
    assert result.status_code == 500 and result.body is not None
    assert "upstream refused" in json.dumps(result.body) and secret not in json.dumps(result.body)
    (retrying,) = [r.getMessage() for r in caplog.records if "retrying" in r.getMessage()]
    assert "upstream refused" in retrying and secret not in retrying


async def test_the_halves_of_a_refused_pack_wait_for_a_slot_like_any_request() -> None:
    in_flight, most = [0], [0]

    async def handler(request: httpx2.Request) -> httpx2.Response:
        in_flight[0] += 1
        most[0] = max(most[0], in_flight[0])
        await anyio.sleep(0.005)  # long enough for another request to start, were a slot free
        in_flight[0] -= 1
        inputs = json.loads(request.content)["input"]
        if "bad" in inputs:  # the server blames an input: the runner halves the pack to find it
            return httpx2.Response(400, json={"error": {"message": "bad input", "param": "input"}})
        data = [{"object": "embedding", "index": i, "embedding": [0.5]} for i in range(len(inputs))]
        return httpx2.Response(200, json={"object": "list", "data": data, "usage": {"prompt_tokens": 1}})

    client = AsyncClient(api_key=KEY, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))
    runner = BatchRunner(client, concurrency=1, pack_inputs=4, max_retries=0)
    texts = ["a", "bad", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]
    requests = [
        BatchRequest(f"r{i:02}", {"model": "m", "input": text}, "/v1/embeddings")
        for i, text in enumerate(texts)
    ]
    results = await _run(runner, *requests)
    assert [r.ok for r in results] == [text != "bad" for text in texts]
    assert most[0] == 1  # one slot: never two requests at once, halves included


async def test_each_router_target_keeps_its_own_timeout_on_the_direct_path() -> None:
    from holyclient import AsyncRouter, Target
    from holyclient.testing import Fault, LocalServer, RecordedRequest

    calls: list[RecordedRequest] = []

    def drop_the_second(recorded: RecordedRequest) -> Fault | None:
        calls.append(recorded)
        return Fault.drop() if len(calls) == 2 else None

    # the primary answers at once under a short timeout, then drops a connection: that request fails over
    # to a target that answers in 0.6 s, within its own 5 s timeout but not within the primary's 0.3 s
    with LocalServer(hook=drop_the_second) as fast, LocalServer(latency=0.6) as slow:
        patient = Target(slow.base_url, api_key=KEY, name="patient", timeout=5.0)
        primary = Target(
            fast.base_url,
            api_key=KEY,
            name="primary",
            fallbacks=[patient],
            failover_if_sent=True,
            timeout=0.3,
        )
        async with AsyncRouter([primary], max_retries=0) as router:
            results = await _run(BatchRunner(router, concurrency=1, max_retries=0), _chat("r0"), _chat("r1"))
    assert [r.error for r in results] == [None, None]
    assert (len(fast.requests), len(slow.requests)) == (2, 1)
