"""Router calls say which target answered; a batch run is a parent span with its counts."""

from __future__ import annotations

import pytest
from opentelemetry import metrics, trace
from opentelemetry.trace import StatusCode

from holyclient import AsyncClient, AsyncRouter, Router, Target
from holyclient.batch import BatchRunner
from holyclient.testing import Fault, LocalServer

from .conftest import KEY, Captured

MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture
def global_providers(captured: Captured, monkeypatch: pytest.MonkeyPatch) -> Captured:
    """The captured providers as the application's global ones, for this test only."""
    monkeypatch.setattr(trace, "_TRACER_PROVIDER", captured.tracer_provider)
    monkeypatch.setattr(metrics._internal, "_METER_PROVIDER", captured.meter_provider)
    return captured


def test_router_spans_carry_the_target_that_was_tried(
    server: LocalServer, global_providers: Captured
) -> None:
    with LocalServer() as backup:
        backup_port = int(backup.base_url.split(":")[2].split("/")[0])
        server.enqueue(Fault.status(503))
        targets = [
            Target(
                server.base_url,
                api_key=KEY,
                name="primary",
                fallbacks=[Target(backup.base_url, api_key=KEY, name="backup")],
            )
        ]
        with Router(targets, max_retries=0) as router:
            router.chat.completions.create(model="gpt-4.1", messages=MESSAGES)
    failed, answered = global_providers.spans()
    assert failed.attributes["holyclient.router.target"] == "primary"
    assert failed.status.status_code is StatusCode.ERROR
    assert answered.attributes["holyclient.router.target"] == "backup"
    assert answered.attributes["server.port"] == backup_port


async def test_async_router_spans_carry_the_target_that_answered(
    server: LocalServer, global_providers: Captured
) -> None:
    async with AsyncRouter([Target(server.base_url, api_key=KEY, name="only")], max_retries=0) as router:
        stream = await router.chat.completions.create(model="gpt-4.1", messages=MESSAGES, stream=True)
        async for _chunk in stream:
            pass
    span = global_providers.span()
    assert span.attributes["holyclient.router.target"] == "only"
    assert span.attributes["holyclient.stream.outcome"] == "complete"


def _batch_lines(count: int) -> list[dict[str, object]]:
    return [
        {
            "custom_id": f"r{i}",
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {"model": "gpt-4.1", "messages": MESSAGES},
        }
        for i in range(count)
    ]


async def test_a_batch_run_is_a_parent_span_with_its_counts(server: LocalServer, captured: Captured) -> None:
    client = AsyncClient(
        base_url=server.base_url,
        api_key=KEY,
        tracer_provider=captured.tracer_provider,
        meter_provider=captured.meter_provider,
    )
    requests = _batch_lines(5)
    results: list[object] = []
    async with client:
        stats = await BatchRunner(client, concurrency=2).run(requests, results.append)
    (batch,) = [span for span in captured.spans() if span.name == "holyclient.batch"]
    assert batch.attributes["holyclient.batch.succeeded"] == stats.succeeded == 5
    assert batch.attributes["holyclient.batch.started"] == 5
    assert batch.attributes["holyclient.batch.failed"] == 0
    assert batch.attributes["holyclient.batch.attempts"] == 5


async def test_a_batch_run_through_a_router_is_a_parent_span_with_its_counts(
    server: LocalServer, global_providers: Captured
) -> None:
    results: list[object] = []
    async with AsyncRouter([Target(server.base_url, api_key=KEY, name="only")], max_retries=0) as router:
        stats = await BatchRunner(router, concurrency=2).run(_batch_lines(3), results.append)
    (batch,) = [span for span in global_providers.spans() if span.name == "holyclient.batch"]
    assert batch.attributes["holyclient.batch.succeeded"] == stats.succeeded == 3
    assert batch.attributes["holyclient.batch.started"] == 3
