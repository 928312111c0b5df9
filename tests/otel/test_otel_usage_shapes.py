"""A call's span carries its usage as the one usage reader reads it (issue 41, items 7 and 8): the
cache's reads (``gen_ai.usage.cache_read.input_tokens``) and writes
(``gen_ai.usage.cache_creation.input_tokens``) inside ``gen_ai.usage.input_tokens`` as the GenAI
conventions ask, Gemini's thinking tokens in the output, and a relay's reported cost beside ours."""

from __future__ import annotations

from typing import Any

import pytest

from holyclient import AsyncClient, Client
from holyclient.testing import LocalServer

from .conftest import Captured, resolve

LONG = "The tide comes in twice a day and goes out twice a day. " * 80


def _marked(text: str) -> dict[str, Any]:
    part = {"type": "text", "text": text, "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    return {"role": "system", "content": [part]}


@pytest.fixture(scope="module")
def relay() -> Any:
    with LocalServer(profile="holysheep", report_cost=1.0) as server:
        yield server


def _client(mode: str, relay: LocalServer, captured: Captured) -> Client | AsyncClient:
    options: dict[str, Any] = {
        "base_url": relay.base_url,
        "api_key": "k",
        "tracer_provider": captured.tracer_provider,
        "meter_provider": captured.meter_provider,
    }
    return Client(**options) if mode == "sync" else AsyncClient(**options)


async def test_a_claude_calls_span_shows_its_cache_reads_and_writes_inside_its_input_tokens(
    relay: LocalServer, captured: Captured, mode: str
) -> None:
    client = _client(mode, relay, captured)
    answers = []
    for question in (f"{mode} one", f"{mode} two"):
        messages = [_marked(f"{LONG} ({mode})"), {"role": "user", "content": question}]
        answers.append(
            await resolve(client.chat.completions.create(model="claude-sonnet-4.5", messages=messages))
        )
    await resolve(client.close())
    wrote, read = (dict(span.attributes or {}) for span in captured.spans())
    written = answers[0].usage.model_dump()["cache_creation_input_tokens"]
    assert written > 1000
    for attributes, answer in zip((wrote, read), answers, strict=True):
        usage = answer.usage.model_dump()
        assert attributes["gen_ai.usage.input_tokens"] == answer.usage.prompt_tokens
        assert attributes["gen_ai.usage.cache_read.input_tokens"] == usage["cache_read_input_tokens"]
        assert attributes["gen_ai.usage.cache_creation.input_tokens"] == usage["cache_creation_input_tokens"]
        assert (
            attributes.get("holyclient.usage.cache_creation.long_retention.input_tokens", 0)
            == (usage["cache_creation_input_tokens"])
        )
        assert attributes["holyclient.cost.reported_usd"] == pytest.approx(attributes["holyclient.cost_usd"])
        assert "holyclient.usage.problems" not in attributes
    assert read["gen_ai.usage.cache_read.input_tokens"] > 1000


async def test_a_gemini_calls_span_counts_its_thinking_tokens_as_output(
    relay: LocalServer, captured: Captured, mode: str
) -> None:
    client = _client(mode, relay, captured)
    answer = await resolve(
        client.chat.completions.create(
            model="gemini-2.5-flash", messages=[{"role": "user", "content": "think"}]
        )
    )
    await resolve(client.close())
    attributes = dict(captured.span().attributes or {})
    reasoning = answer.usage.completion_tokens_details.reasoning_tokens
    assert reasoning > 0
    assert attributes["gen_ai.usage.output_tokens"] == answer.usage.completion_tokens + reasoning
    assert attributes["gen_ai.usage.reasoning.output_tokens"] == reasoning
    tokens = {p.attributes["gen_ai.token.type"]: p for p in captured.points("gen_ai.client.token.usage")}
    assert tokens["output"].sum == answer.usage.completion_tokens + reasoning
