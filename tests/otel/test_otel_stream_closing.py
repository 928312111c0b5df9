"""A stream closed before the caller read a chunk still ends its span, saying it was left early; a stream
refused at its opening says so (written against ``Stream.close`` / ``refuse`` mutants that survived
``benchmarks/mutation.sh send``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .conftest import Captured, resolve

MESSAGES = [{"role": "user", "content": "Tell me a long story about a cat and a dog."}]


async def test_a_stream_closed_before_its_first_read_ends_its_span_as_left_early(
    make: Callable[..., Any], captured: Captured, mode: str
) -> None:
    stream = await resolve(
        make(mode).chat.completions.create(model="gpt-4.1", messages=MESSAGES, stream=True)
    )
    await resolve(stream.close())
    attributes = dict(captured.span().attributes or {})
    assert attributes["holyclient.stream.outcome"] == "early"


async def test_a_refused_stream_ends_its_span_as_refused(
    make: Callable[..., Any], captured: Captured, mode: str
) -> None:
    stream = await resolve(
        make(mode).chat.completions.create(model="gpt-4.1", messages=MESSAGES, stream=True)
    )
    await resolve(stream.refuse())
    attributes = dict(captured.span().attributes or {})
    assert attributes["holyclient.stream.outcome"] == "refused"
