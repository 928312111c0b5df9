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


def sdk_of(client: Any) -> Any:
    """The package a client comes from (``openai`` or ``holyclient``), for an app that uses its names."""
    return openai if isinstance(client, (openai.OpenAI, openai.AsyncOpenAI)) else holyclient


def test_each_sdks_own_sentinels_leave_parameters_out_alike(differential: Differential) -> None:
    def script(c: Any) -> None:
        sdk = sdk_of(c)
        print(repr(sdk.NOT_GIVEN), repr(sdk.not_given), bool(sdk.omit), bool(sdk.not_given))
        print(
            isinstance(sdk.NOT_GIVEN, sdk.NotGiven),
            isinstance(sdk.omit, sdk.Omit),
            sdk.not_given is sdk.NOT_GIVEN,
        )
        for left_out in (sdk.omit, sdk.not_given, sdk.NOT_GIVEN, sdk.Omit(), sdk.NotGiven()):
            answer = c.chat.completions.create(
                model="gpt-4.1", messages=USER, temperature=left_out, tools=left_out, max_tokens=left_out
            )
            print(answer.choices[0].message.content)

    differential.check_script(script)


def test_omit_in_extra_headers_removes_a_default_header_alike(differential: Differential) -> None:
    def script(c: Any) -> None:
        sdk = sdk_of(c)
        c.models.list(extra_headers={"X-Team": sdk.omit})
        c.models.list()

    _theirs, ours = differential.check(script, headers=("x-team",), default_headers={"X-Team": "search"})
    assert [r["x-team"] for r in ours.requests] == [None, "search"]


def test_the_client_option_defaults_are_openais(differential: Differential) -> None:
    def script(c: Any) -> None:
        sdk = sdk_of(c)
        print(sdk.DEFAULT_TIMEOUT, sdk.DEFAULT_MAX_RETRIES, sdk.Timeout(5), sdk.Timeout(10, connect=2))
        print(sdk.Timeout is type(sdk.DEFAULT_TIMEOUT))

    differential.check_script(script)


async def test_async_omit_in_extra_headers_removes_a_default_header_alike(differential: Differential) -> None:
    async def script(c: Any) -> None:
        await c.models.list(extra_headers={"X-Team": sdk_of(c).omit})
        await c.models.list()

    _theirs, ours = await differential.acheck(
        script, headers=("x-team",), default_headers={"X-Team": "search"}
    )
    assert [r["x-team"] for r in ours.requests] == [None, "search"]
