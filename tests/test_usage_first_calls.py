"""A client's usage tracker exists before the first call, so concurrent first calls share one tracker."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator

import httpx2
import pytest

from holyclient import Client
from support import KEY, completion

THREADS = 8
TRIALS = 25


@pytest.fixture
def fast_thread_switches() -> Iterator[None]:
    """Switch threads as often as possible, so a check-then-create race shows up within a few trials."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


def _first_calls_at_once(client: Client) -> None:
    barrier = threading.Barrier(THREADS)

    def call() -> None:
        barrier.wait()
        client.chat.completions.create(
            model="gpt-4.1", messages=[{"role": "user", "content": "hi"}], max_tokens=5
        )

    threads = [threading.Thread(target=call) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


@pytest.mark.usefixtures("fast_thread_switches")
def test_threads_making_the_first_calls_on_a_budgeted_client_record_every_request():
    http = httpx2.Client(transport=httpx2.MockTransport(lambda _: httpx2.Response(200, json=completion())))
    try:
        for _ in range(TRIALS):
            client = Client(api_key=KEY, http_client=http, budget_usd=1.0)
            _first_calls_at_once(client)
            snapshot = client.usage.snapshot()
            assert snapshot.models["gpt-4.1"].requests == THREADS
            assert snapshot.reserved_usd == 0.0
    finally:
        http.close()


def test_a_copy_made_before_any_call_shares_the_budget():
    http = httpx2.Client(transport=httpx2.MockTransport(lambda _: httpx2.Response(200, json=completion())))
    client = Client(api_key=KEY, http_client=http, budget_usd=1.0)
    copy = client.with_options(max_retries=0)
    copy.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "hi"}], max_tokens=5)
    assert client.usage is copy.usage
    assert client.usage.snapshot().models["gpt-4.1"].requests == 1
    http.close()
