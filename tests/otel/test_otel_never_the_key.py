"""The API key never appears in a span, span event, metric or log record, on any path (errors included)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest

from holyclient import APIError
from holyclient.testing import Fault, LocalServer

from .conftest import KEY, Captured, drain, resolve

MESSAGES = [{"role": "user", "content": "hi"}]


async def _every_path(client: Any, server: LocalServer) -> None:
    await resolve(client.chat.completions.create(model="gpt-4.1", messages=MESSAGES))
    await drain(
        await resolve(client.chat.completions.create(model="gpt-4.1", messages=MESSAGES, stream=True))
    )
    await resolve(client.embeddings.create(model="text-embedding-3-small", input="hi"))
    for fault in (
        Fault.status(401),
        Fault.status(400),
        Fault.status(429, retry_after=0),
        Fault.drop(),
        Fault.malformed(),
    ):
        server.enqueue(*[fault] * 3)
        with pytest.raises(APIError):
            await resolve(client.chat.completions.create(model="gpt-4.1", messages=MESSAGES))
    server.enqueue(Fault.stream_cut(after_chunks=1))
    with pytest.raises(APIError):
        await drain(
            await resolve(client.chat.completions.create(model="gpt-4.1", messages=MESSAGES, stream=True))
        )


@pytest.mark.parametrize("latest", [False, True], ids=["v1.36", "latest"])
async def test_the_key_is_in_no_span_event_metric_or_log_record(
    make: Callable[..., Any],
    captured: Captured,
    server: LocalServer,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    mode: str,
    latest: bool,
) -> None:
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    if latest:
        monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    caplog.set_level(logging.DEBUG)
    await _every_path(make(mode, max_retries=1), server)
    spans = captured.spans()
    assert len(spans) == 9
    exported = [span.to_json() for span in spans]
    # content was captured (prompts, completions), and still no key
    assert any("gen_ai.input.messages" in text or "gen_ai.user.message" in text for text in exported)
    data = captured.reader.get_metrics_data()
    assert data is not None
    exported.append(data.to_json())
    exported.extend(record.getMessage() + repr(record.__dict__) for record in caplog.records)
    assert all(KEY not in text for text in exported)
    assert all(KEY[-12:] not in text for text in exported)  # nor a tail of it
