"""openai's "not given" sentinels (``openai.omit``, ``openai.NOT_GIVEN``, fresh instances of their classes)
mean "not given" to holyclient too: pydantic-ai and the Agents SDK pass them for every argument they leave
out, to whatever client object they were given. Proven differentially: the same call with the sentinels
sends the same request through openai and holyclient, and gets the same result."""

from __future__ import annotations

from typing import Any

import openai
import pytest

import holyclient
from differential.conftest import Differential

USER = [{"role": "user", "content": "ping pong"}]

SENTINELS = {
    "omit": openai.omit,
    "NOT_GIVEN": openai.NOT_GIVEN,
    "Omit()": openai.Omit(),
    "NotGiven()": openai.NotGiven(),
}


@pytest.mark.parametrize("name", SENTINELS)
def test_a_chat_call_full_of_openai_sentinels_sends_what_openai_sends(
    differential: Differential, name: str
) -> None:
    left_out = SENTINELS[name]

    def app(c: Any) -> Any:
        return c.chat.completions.create(
            model="gpt-4.1",
            messages=USER,
            temperature=left_out,
            tools=left_out,
            tool_choice=left_out,
            stream_options=left_out,
            response_format=left_out,
            max_tokens=left_out,
            stream=left_out,
            extra_headers=None,
            timeout=openai.NOT_GIVEN,  # openai itself takes only NOT_GIVEN here (``omit`` reaches its socket)
        )

    differential.check(app)


async def test_an_async_stream_with_openai_sentinels_matches_openai(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        stream = await c.chat.completions.create(
            model="gpt-4.1",
            messages=USER,
            stream=True,
            temperature=openai.omit,
            parallel_tool_calls=openai.NOT_GIVEN,
            timeout=openai.NOT_GIVEN,
        )
        return [chunk async for chunk in stream]

    await differential.acheck(app)


def test_embeddings_with_an_omitted_encoding_format_come_back_as_floats_like_openai(
    differential: Differential,
) -> None:
    differential.check(
        lambda c: c.embeddings.create(model="text-embedding-3-small", input="hi", encoding_format=openai.omit)
    )


def test_responses_and_parse_take_openai_sentinels_like_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        return {
            "response": c.responses.create(
                model="gpt-4.1", input="hi", instructions=openai.omit, tools=openai.NOT_GIVEN
            ),
            "parsed": c.chat.completions.parse(model="gpt-4.1", messages=USER, tools=openai.omit),
        }

    differential.check(app)


def test_a_sentinel_inside_a_nested_object_is_left_out_as_openai_leaves_it(
    differential: Differential,
) -> None:
    tool = {
        "type": "function",
        "function": {"name": "f", "description": openai.omit, "parameters": {"type": "object"}},
    }
    differential.check(lambda c: c.chat.completions.create(model="gpt-4.1", messages=USER, tools=[tool]))


def test_with_options_given_openai_sentinels_keeps_every_setting() -> None:
    client = holyclient.Client(api_key="sk-test-key-1234", base_url="http://127.0.0.1:9/v1", timeout=7)
    copy = client.with_options(
        timeout=openai.NOT_GIVEN, max_retries=openai.omit, base_url=openai.NOT_GIVEN, api_key=openai.omit
    )
    assert (copy.timeout, copy.max_retries, copy.base_url, copy.api_key) == (
        client.timeout,
        client.max_retries,
        client.base_url,
        client.api_key,
    )
