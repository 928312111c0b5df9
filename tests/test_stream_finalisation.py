"""A stream dropped without being read to the end or closed gives back its budget reservation when collected."""

from __future__ import annotations

import gc
import threading
from typing import Any

import httpx2
import pytest

from holyclient.tokens import count_request
from support import chunk, sse

MESSAGES = [{"role": "user", "content": "Say hello"}]
BODY = {"model": "gpt-4.1", "messages": MESSAGES, "max_tokens": 50}


def handler(_: httpx2.Request) -> httpx2.Response:
    return httpx2.Response(200, content=sse(chunk("Hello"), chunk(" world"), "[DONE]"))


def _open(client: Any) -> Any:
    return client.chat.completions.create(model="gpt-4.1", messages=MESSAGES, max_tokens=50, stream=True)


def _assert_released_and_prompt_charged(client: Any) -> None:
    snapshot = client.usage.snapshot()
    assert snapshot.reserved_usd == 0.0
    model = snapshot.models["gpt-4.1"]
    assert model.prompt_tokens == count_request(BODY).tokens
    assert model.approximate_requests == 1


def test_a_stream_never_iterated_nor_closed_releases_its_reservation_when_collected(make_client):
    client = make_client(handler, budget_usd=1.0)
    stream = _open(client)
    assert stream.response.status_code == 200
    assert client.usage.snapshot().reserved_usd > 0
    del stream
    gc.collect()
    _assert_released_and_prompt_charged(client)


def test_a_stream_dropped_part_way_releases_its_reservation_when_collected(make_client):
    client = make_client(handler, budget_usd=1.0)
    stream = _open(client)
    next(iter(stream))
    del stream
    gc.collect()
    assert client.usage.snapshot().reserved_usd == 0.0


async def test_an_async_stream_never_iterated_releases_its_reservation_when_collected(make_async_client):
    client = make_async_client(handler, budget_usd=1.0)
    stream = await _open(client)
    assert stream.response.status_code == 200
    del stream
    gc.collect()
    _assert_released_and_prompt_charged(client)
    await client.close()


@pytest.mark.parametrize("read_first", [False, True])
def test_collection_while_the_tracker_is_locked_does_not_deadlock(make_client, read_first):
    """The collector may run a finaliser on a thread that holds the tracker's lock: it must only queue."""
    client = make_client(handler, budget_usd=1.0)
    stream = _open(client)
    if read_first:
        next(iter(stream))
    holder: list[Any] = [stream]
    del stream

    def collect_under_the_lock() -> None:
        with client.usage._lock:
            holder.clear()
            gc.collect()

    worker = threading.Thread(target=collect_under_the_lock, daemon=True)
    worker.start()
    worker.join(timeout=30)  # a guard against hanging the suite, not a speed assertion
    assert not worker.is_alive(), "the finaliser blocked on the tracker's lock"
    assert client.usage.snapshot().reserved_usd == 0.0
