"""``chat.completions.stream()`` yields the events and final completion openai's does, on the same SSE bytes."""

from __future__ import annotations

from typing import Any

import httpx2
import openai
import pytest
from pydantic import BaseModel

import chat_stream_scripts as s
import holyclient
from differential.mock_pair import async_clients, sync_clients
from support import Canned

MESSAGES = [{"role": "user", "content": "hi"}]


def _event(event: Any) -> tuple[str, Any]:
    """An event's type and its main payload (user classes keep their names)."""
    for name in ("delta", "content", "refusal", "arguments"):
        if hasattr(event, name) and event.type != "chunk":
            value = getattr(event, name)
            parsed = getattr(event, "parsed", getattr(event, "parsed_arguments", None))
            if isinstance(parsed, BaseModel):
                parsed = (type(parsed).__name__, parsed.model_dump())
            return event.type, (value if isinstance(value, str) else len(value), parsed)
    return event.type, None


def _final(completion: Any) -> Any:
    data = completion.model_dump(mode="json", exclude_none=True, warnings=False)
    for i, choice in enumerate(completion.choices):
        parsed = choice.message.parsed
        data["choices"][i]["message"]["parsed"] = type(parsed).__name__
    return data


CASES = {
    "plain": (s.PLAIN, {}),
    "structured": (s.STRUCTURED, {"response_format": s.MathResponse}),
    "refusal": (s.REFUSAL, {"response_format": s.MathResponse}),
    "tools": (s.TOOLS, {"tools": "both"}),
    "foreign_event": (s.WITH_FOREIGN_EVENT, {}),
    "two_choices": (s.TWO_CHOICES, {}),
}


def _kwargs(sdk: Any, options: dict[str, Any]) -> dict[str, Any]:
    # The canned streams end with a usage chunk, which a server sends only when asked: ask on both sides
    # (holyclient would ask by itself and hide the chunk; see the README's "Switching from openai").
    kwargs = {"stream_options": {"include_usage": True}, **options}
    if kwargs.get("tools") == "both":
        kwargs["tools"] = [sdk.pydantic_function_tool(s.GetWeather), s.STRICT_DICT_TOOL]
    return kwargs


@pytest.mark.parametrize("case", CASES)
def test_stream_events_and_final_completion_match_openai(case: str) -> None:
    script, options = CASES[case]
    handler = Canned(script)
    results = []
    for sdk, client in zip((openai, holyclient), sync_clients(handler), strict=True):
        with client.chat.completions.stream(
            model="gpt-4o", messages=MESSAGES, **_kwargs(sdk, options)
        ) as stream:
            events = [_event(e) for e in stream]
            results.append((events, _final(stream.get_final_completion())))
    assert results[1][0] == results[0][0]
    assert results[1][1] == results[0][1]
    assert handler.requests[1] == handler.requests[0]
    assert handler.requests[1]["stream"] is True


@pytest.mark.parametrize("case", ["structured", "tools"])
async def test_async_stream_events_and_final_completion_match_openai(case: str) -> None:
    script, options = CASES[case]
    handler = Canned(script)
    results = []
    for sdk, client in zip((openai, holyclient), async_clients(handler), strict=True):
        async with client.chat.completions.stream(
            model="gpt-4o", messages=MESSAGES, **_kwargs(sdk, options)
        ) as stream:
            events = [_event(e) async for e in stream]
            results.append((events, _final(await stream.get_final_completion())))
    assert results[1] == results[0]
    assert handler.requests[1] == handler.requests[0]


def test_get_final_completion_reads_the_rest_and_decodes_like_parse() -> None:
    _, client = sync_clients(Canned(s.STRUCTURED))
    with client.beta.chat.completions.stream(
        model="gpt-4o", messages=MESSAGES, response_format=s.MathResponse
    ) as stream:
        first = next(iter(stream))
        assert first.type == "chunk"
        final = stream.get_final_completion()
    assert isinstance(final.choices[0].message.parsed, s.MathResponse)
    assert final.choices[0].message.content == s.MATH_JSON


async def test_async_until_done_consumes_the_stream() -> None:
    _, client = async_clients(Canned(s.PLAIN))
    async with client.chat.completions.stream(model="gpt-4o", messages=MESSAGES) as stream:
        await stream.until_done()
        assert stream.current_completion_snapshot.choices[0].message.content == "Hello, world!"


def test_leaving_the_block_early_closes_the_response() -> None:
    closed: list[bool] = []

    class Body(httpx2.SyncByteStream):
        def __iter__(self) -> Any:
            yield from (s.sse_event(c) for c in s.PLAIN)

        def close(self) -> None:
            closed.append(True)

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=Body())

    _, client = sync_clients(handler)
    with client.chat.completions.stream(model="gpt-4o", messages=MESSAGES) as stream:
        next(iter(stream))
    assert closed


def test_a_manager_never_entered_sends_nothing() -> None:
    handler = Canned(s.PLAIN)
    _, client = async_clients(handler)
    client.chat.completions.stream(model="gpt-4o", messages=MESSAGES)  # no coroutine left un-awaited
    _, sync_client = sync_clients(handler)
    sync_client.chat.completions.stream(model="gpt-4o", messages=MESSAGES)
    assert handler.requests == []


def test_a_cut_structured_stream_raises_length_error() -> None:
    _, client = sync_clients(Canned(s.CUT))
    with (
        pytest.raises(holyclient.LengthFinishReasonError),
        client.chat.completions.stream(
            model="gpt-4o", messages=MESSAGES, response_format=s.MathResponse
        ) as stream,
    ):
        stream.until_done()


@pytest.mark.parametrize("method", ["parse", "stream"])
def test_unknown_or_stream_keywords_are_refused_at_the_call(method: str) -> None:
    handler = Canned(s.PLAIN)
    _, client = sync_clients(handler)
    call = getattr(client.chat.completions, method)
    with pytest.raises(TypeError, match="max_tokens"):
        call(model="gpt-4o", messages=MESSAGES, max_token=3)
    with pytest.raises(TypeError, match="stream"):
        call(model="gpt-4o", messages=MESSAGES, stream=True)
    assert handler.requests == []


def test_parse_and_stream_are_charged_to_the_client_usage() -> None:
    _, client = sync_clients(Canned(s.PLAIN))  # the last chunk carries usage
    with client.chat.completions.stream(model="gpt-4o", messages=MESSAGES) as stream:
        stream.until_done()
    _, parse_client = sync_clients(
        Canned(s.chunk(usage=s.USAGE) | {"object": "chat.completion", "choices": []})
    )
    parse_client.chat.completions.parse(model="gpt-4o", messages=MESSAGES)
    for tracker in (client.usage, parse_client.usage):
        usage = tracker.snapshot().models["gpt-4o"]
        assert (usage.requests, usage.prompt_tokens, usage.completion_tokens) == (1, 9, 4)
