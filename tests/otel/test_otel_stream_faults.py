"""A stream's skipped malformed events and its deadlines show on the call's span (issue 40, items 2 and 6)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from holyclient import StreamIdleTimeoutError
from holyclient.testing import Fault, LocalServer

from .conftest import Captured, drain, resolve

MESSAGES = [{"role": "user", "content": "one two three four five six"}]


async def test_a_skipped_malformed_event_is_an_event_on_the_span_and_the_stream_completes(
    make: Callable[..., Any], captured: Captured, server: LocalServer, mode: str
) -> None:
    server.enqueue(Fault.malformed_event(after_chunks=3))
    stream = await resolve(
        make(mode).chat.completions.create(model="gpt-4.1", messages=MESSAGES, stream=True)
    )
    await drain(stream)
    span = captured.span()
    events = [e for e in span.events if e.name == "holyclient.stream.malformed_event"]
    assert len(events) == 1 and dict(events[0].attributes or {})["holyclient.stream.malformed_events"] == 1
    assert dict(span.attributes or {})["holyclient.stream.outcome"] == "complete"


async def test_a_stream_that_went_silent_ends_its_span_with_the_timeout_and_an_unknown_outcome(
    make: Callable[..., Any], captured: Captured, mode: str
) -> None:
    with LocalServer(max_hang=5.0) as silent:  # the shared server cuts a silence short
        silent.enqueue(Fault.stall(after_chunks=3, seconds=5.0))
        client = make(mode, base_url=silent.base_url, stream_idle_timeout=0.2)
        stream = await resolve(
            client.chat.completions.create(model="gpt-4.1", messages=MESSAGES, stream=True)
        )
        with pytest.raises(StreamIdleTimeoutError):
            await drain(stream)
    attributes = dict(captured.span().attributes or {})
    assert attributes["holyclient.stream.outcome"] == "unknown"  # the server may have gone on (and billed)
    assert attributes["error.type"] == "StreamIdleTimeoutError"
