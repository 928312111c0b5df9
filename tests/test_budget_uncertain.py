"""Unknown outcomes: a request that may have been billed keeps its reservation as spent, and its retries
carry a stable Idempotency-Key and an attempt count so a server can deduplicate them."""

from __future__ import annotations

from collections.abc import Callable

import httpx2
import pytest

from holyclient import (
    APIConnectionError,
    APIResponseValidationError,
    APITimeoutError,
    BadRequestError,
    BudgetExceededError,
)
from holyclient._send._attempts import ATTEMPT_HEADER, IDEMPOTENCY_HEADER
from holyclient.pricing._tracker import UsageTracker
from support import Recorder, completion

MESSAGES = [{"role": "user", "content": "hi"}]
BODY = {"model": "gpt-4.1", "messages": MESSAGES, "max_tokens": 100}
WORST = UsageTracker().reserve(BODY).worst_case_usd


def failing(error: Exception) -> Callable[[httpx2.Request], httpx2.Response]:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise error

    return handler


def _create(client, **params):
    return client.chat.completions.create(model="gpt-4.1", messages=MESSAGES, max_tokens=100, **params)


@pytest.mark.parametrize(
    ("error", "raised"),
    [
        (httpx2.ReadTimeout("read timed out"), APITimeoutError),
        (httpx2.RemoteProtocolError("server closed the connection"), APIConnectionError),
        (httpx2.ReadError("connection reset"), APIConnectionError),
    ],
)
def test_a_request_that_may_have_been_billed_keeps_its_reservation_as_uncertain(make_client, error, raised):
    client = make_client(failing(error), budget_usd=1.0, max_retries=1)
    with pytest.raises(raised):
        _create(client)
    snapshot = client.usage.snapshot()  # two attempts, each of which the server may have billed
    assert snapshot.reserved_usd == 0.0
    assert snapshot.uncertain_usd == pytest.approx(2 * WORST)
    assert snapshot.total_cost_usd == pytest.approx(2 * WORST)
    assert snapshot.remaining_usd == pytest.approx(1.0 - 2 * WORST)
    assert snapshot.models["gpt-4.1"].uncertain_requests == 2
    assert snapshot.as_dict()["uncertain_usd"] == pytest.approx(2 * WORST)


@pytest.mark.parametrize("error", [httpx2.ConnectError("refused"), httpx2.ConnectTimeout("no answer")])
def test_a_request_that_never_left_releases_its_reservation(make_client, error):
    client = make_client(failing(error), budget_usd=1.0, max_retries=1)
    with pytest.raises(APIConnectionError):
        _create(client)
    snapshot = client.usage.snapshot()
    assert snapshot.reserved_usd == 0.0 and snapshot.uncertain_usd == 0.0 and snapshot.total_cost_usd == 0.0


async def test_an_async_request_that_timed_out_after_sending_is_uncertain(make_async_client):
    client = make_async_client(failing(httpx2.ReadTimeout("read timed out")), budget_usd=1.0, max_retries=0)
    with pytest.raises(APITimeoutError):
        await _create(client)
    assert client.usage.snapshot().uncertain_usd == pytest.approx(WORST)
    await client.close()


def test_retries_of_a_post_carry_one_idempotency_key_and_count_their_attempts(make_client):
    def flaky(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ReadTimeout("read timed out")

    recorder = Recorder(
        flaky, flaky, httpx2.Response(200, json=completion()), httpx2.Response(200, json=completion())
    )
    client = make_client(recorder, max_retries=2)
    _create(client)
    _create(client)
    keys = [r.headers[IDEMPOTENCY_HEADER] for r in recorder.requests]
    assert len(set(keys[:3])) == 1 and keys[3] != keys[0]  # stable within a call, new for the next call
    assert [r.headers[ATTEMPT_HEADER] for r in recorder.requests] == ["0", "1", "2", "0"]


async def test_async_retries_carry_one_idempotency_key(make_async_client):
    def flaky(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.RemoteProtocolError("server closed the connection")

    recorder = Recorder(flaky, httpx2.Response(200, json=completion()))
    client = make_async_client(recorder, max_retries=1)
    await _create(client)
    first, second = recorder.requests
    assert first.headers[IDEMPOTENCY_HEADER] == second.headers[IDEMPOTENCY_HEADER]
    assert (first.headers[ATTEMPT_HEADER], second.headers[ATTEMPT_HEADER]) == ("0", "1")
    await client.close()


def test_a_stream_retried_before_its_first_byte_keeps_its_key(make_client):
    def flaky(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ReadTimeout("read timed out")

    recorder = Recorder(flaky, httpx2.Response(200, content=b"data: [DONE]\n\n"))
    client = make_client(recorder, max_retries=1)
    list(_create(client, stream=True))
    assert len({r.headers[IDEMPOTENCY_HEADER] for r in recorder.requests}) == 1


def test_a_get_has_no_idempotency_key_but_counts_attempts(make_client):
    recorder = Recorder(httpx2.Response(200, json={"object": "list", "data": []}))
    client = make_client(recorder)
    client.models.list()
    assert IDEMPOTENCY_HEADER not in recorder.requests[0].headers
    assert recorder.requests[0].headers[ATTEMPT_HEADER] == "0"


def test_the_callers_own_headers_win(make_client):
    recorder = Recorder(httpx2.Response(200, json=completion()))
    client = make_client(recorder)
    _create(client, extra_headers={"idempotency-key": "mine", "X-Stainless-Retry-Count": "7"})
    headers = recorder.requests[0].headers
    assert headers.get_list(IDEMPOTENCY_HEADER) == ["mine"]
    assert headers.get_list(ATTEMPT_HEADER) == ["7"]


@pytest.mark.parametrize("body", [b"{not json", b'{"unexpected": "shape"}'])
def test_a_success_answer_that_cannot_be_read_keeps_its_reservation_as_uncertain(make_client, body):
    client = make_client(lambda _: httpx2.Response(200, content=body), budget_usd=1.0, max_retries=0)
    with pytest.raises(APIResponseValidationError):
        _create(client)
    assert client.usage.snapshot().uncertain_usd == pytest.approx(WORST)


def test_a_refusal_by_the_server_releases_the_reservation(make_client):
    client = make_client(lambda _: httpx2.Response(400, json={"error": {"message": "bad"}}), budget_usd=1.0)
    with pytest.raises(BadRequestError):
        _create(client)
    snapshot = client.usage.snapshot()
    assert snapshot.reserved_usd == 0.0 and snapshot.total_cost_usd == 0.0


def test_a_retry_after_an_unknown_outcome_is_reserved_anew(make_client):
    def timeout(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ReadTimeout("read timed out")

    client = make_client(
        Recorder(timeout, httpx2.Response(200, json=completion())), budget_usd=1.0, max_retries=1
    )
    reply = _create(client)
    snapshot = client.usage.snapshot()
    assert reply.usage is not None
    assert snapshot.uncertain_usd == pytest.approx(WORST)  # the first attempt may have been billed too
    assert snapshot.total_cost_usd == pytest.approx(WORST + (5 * 2.00 + 1 * 8.00) / 1e6)
    assert snapshot.reserved_usd == 0.0
    assert snapshot.models["gpt-4.1"].requests == 2


def test_a_retry_the_budget_cannot_cover_after_an_unknown_outcome_is_refused(make_client):
    def timeout(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ReadTimeout("read timed out")

    recorder = Recorder(timeout, httpx2.Response(200, json=completion()))
    client = make_client(recorder, budget_usd=WORST * 1.5, max_retries=2)
    with pytest.raises(BudgetExceededError):
        _create(client)
    assert len(recorder.requests) == 1
    assert client.usage.snapshot().uncertain_usd == pytest.approx(WORST)
