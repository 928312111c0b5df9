"""Provider fields survive the round trip, differentially: DeepSeek's ``reasoning_content``, Claude's
``cache_control``, unknown ``extra_body`` and response fields, through ``create``, ``parse``, the stream
helper and message objects passed back, sync and async.

The local server plays DeepSeek's thinking mode for ``deepseek-reasoner`` (see
``holyclient.testing._providers``): it answers with ``reasoning_content`` and refuses a tool loop whose
assistant message comes back without it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

import holyclient
from differential.conftest import Differential, assert_outcome, assert_same_requests

REASONER = "deepseek-reasoner"
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
CACHED_PARTS = [
    {"type": "text", "text": "a long shared prefix", "cache_control": {"type": "ephemeral"}},
    {"type": "text", "text": "the question"},
]
EXTRA = {"thinking": {"type": "enabled", "budget_tokens": 64}, "top_k": 5, "safe_prompt": False}


class Answer(BaseModel):
    text: str


def _tool_loop(c: Any, passed_back: Any) -> Any:
    messages: list[Any] = [{"role": "user", "content": "call get_weather for Paris"}]
    first = c.chat.completions.create(model=REASONER, messages=messages, tools=[WEATHER])
    message = first.choices[0].message
    messages.append(passed_back(message))
    messages.append({"role": "tool", "tool_call_id": message.tool_calls[0].id, "content": "sunny"})
    second = c.chat.completions.create(model=REASONER, messages=messages, tools=[WEATHER])
    return {"first": first, "second": second, "reasoning": message.reasoning_content}


def test_reasoning_content_is_kept_on_the_answer_as_openai_keeps_it(differential: Differential) -> None:
    _theirs, ours = differential.check(
        lambda c: c.chat.completions.create(model=REASONER, messages=[{"role": "user", "content": "why"}])
    )
    assert ours.result["choices"][0]["message"]["reasoning_content"] == "Thinking about: why"


def test_a_tool_loop_passing_the_message_object_back_keeps_reasoning_content(
    differential: Differential,
) -> None:
    _theirs, ours = differential.check(lambda c: _tool_loop(c, lambda message: message))
    assert ours.requests[1]["body"]["messages"][1]["reasoning_content"].startswith("Thinking about:")
    assert ours.result["second"]["choices"][0]["message"]["content"].startswith("Echo:")


def test_a_tool_loop_passing_the_message_back_as_a_dict_keeps_reasoning_content(
    differential: Differential,
) -> None:
    _theirs, ours = differential.check(lambda c: _tool_loop(c, lambda message: message.to_dict()))
    assert "reasoning_content" in ours.requests[1]["body"]["messages"][1]


async def test_async_tool_loop_keeps_reasoning_content(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        messages: list[Any] = [{"role": "user", "content": "call get_weather for Paris"}]
        first = await c.chat.completions.create(model=REASONER, messages=messages, tools=[WEATHER])
        message = first.choices[0].message
        messages += [message, {"role": "tool", "tool_call_id": message.tool_calls[0].id, "content": "sunny"}]
        return [first, await c.chat.completions.create(model=REASONER, messages=messages, tools=[WEATHER])]

    _theirs, ours = await differential.acheck(app)
    assert ours.result[1]["choices"][0]["message"]["content"].startswith("Echo:")


def test_cache_control_parts_and_extra_body_fields_are_sent_as_given(differential: Differential) -> None:
    def app(c: Any) -> Any:
        return c.chat.completions.create(
            model="claude-sonnet-4",
            messages=[
                {"role": "system", "content": CACHED_PARTS},
                {"role": "user", "content": CACHED_PARTS},
            ],
            extra_body=EXTRA,
        )

    _theirs, ours = differential.check(app)
    body = ours.requests[0]["body"]
    assert body["messages"][1]["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["thinking"] == EXTRA["thinking"] and body["top_k"] == 5


def test_parse_keeps_reasoning_content_and_sends_extra_body(differential: Differential) -> None:
    def app(c: Any) -> Any:
        parsed = c.chat.completions.parse(
            model=REASONER,
            messages=[{"role": "user", "content": CACHED_PARTS}],
            response_format=Answer,
            extra_body=EXTRA,
        )
        message = parsed.choices[0].message
        return {"parsed": message.parsed.model_dump(), "reasoning": message.reasoning_content}

    _theirs, ours = differential.check(app)
    assert ours.result["reasoning"].startswith("Thinking about:")
    assert ours.requests[0]["body"]["top_k"] == 5


def test_stream_helper_accumulates_reasoning_content_as_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        with c.chat.completions.stream(
            model=REASONER, messages=[{"role": "user", "content": "think"}], extra_body=EXTRA
        ) as stream:
            kinds = [event.type for event in stream]
            message = stream.get_final_completion().choices[0].message
        return {"kinds": kinds, "reasoning": message.reasoning_content, "content": message.content}

    _theirs, ours = differential.check(app)
    assert ours.result["reasoning"] == "Thinking about: think"


async def test_async_stream_helper_accumulates_reasoning_content(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        async with c.chat.completions.stream(
            model=REASONER, messages=[{"role": "user", "content": "think"}], extra_body=EXTRA
        ) as stream:
            final = await stream.get_final_completion()
        return final.choices[0].message.reasoning_content

    _theirs, ours = await differential.acheck(app)
    assert ours.result == "Thinking about: think"


def test_streamed_chunks_keep_reasoning_content_deltas(differential: Differential) -> None:
    def app(c: Any) -> Any:
        chunks = c.chat.completions.create(
            model=REASONER, messages=[{"role": "user", "content": "hm"}], stream=True
        )
        return [
            getattr(chunk.choices[0].delta, "reasoning_content", None) for chunk in chunks if chunk.choices
        ]

    _theirs, ours = differential.check(app)
    assert "".join(x for x in ours.result if x) == "Thinking about: hm"


def test_accumulate_chunks_keeps_reasoning_content(differential: Differential) -> None:
    with differential.holyclient_client() as client:
        chunks = client.chat.completions.create(
            model=REASONER, messages=[{"role": "user", "content": "hm"}], stream=True
        )
        message = holyclient.accumulate_chunks(chunks).choices[0].message
    assert message.reasoning_content == "Thinking about: hm"  # type: ignore[attr-defined]
    assert message.content == "Echo: hm"


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


def test_a_tool_loop_through_the_stream_helper_passes_the_final_message_back_as_openai(
    differential: Differential,
) -> None:
    """Compared without null values: openai's stream snapshot marks every message field as set
    (``audio: None``, ``annotations: None`` ...) and sends those nulls back; ours only what was received
    (README, "Switching from openai")."""

    def app(c: Any) -> Any:
        messages: list[Any] = [{"role": "user", "content": "call get_weather for Paris"}]
        with c.chat.completions.stream(model=REASONER, messages=messages, tools=[WEATHER]) as stream:
            message = stream.get_final_completion().choices[0].message
        messages += [message, {"role": "tool", "tool_call_id": message.tool_calls[0].id, "content": "sunny"}]
        return c.chat.completions.create(model=REASONER, messages=messages, tools=[WEATHER])

    with differential.openai_client() as client:
        theirs = differential.run(app, client)
    with differential.holyclient_client() as client:
        ours = differential.run(app, client)
    assert_outcome(theirs, "openai", None)
    assert_outcome(ours, "holyclient", None)
    assert_same_requests(_without_none(ours.requests), _without_none(theirs.requests))
    assert ours.result == theirs.result
    assert ours.requests[1]["body"]["messages"][1]["reasoning_content"].startswith("Thinking about:")


RESPONSES_TOOL = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}


def test_a_responses_tool_loop_passes_output_items_back_and_dumps_them_whole(
    differential: Differential,
) -> None:
    def app(c: Any) -> Any:
        inputs: list[Any] = [{"role": "user", "content": "call get_weather for Rome"}]
        first = c.responses.create(model="gpt-4.1", input=inputs, tools=[RESPONSES_TOOL], extra_body=EXTRA)
        call = first.output[0]
        inputs += [
            *first.output,
            {"type": "function_call_output", "call_id": call.call_id, "output": "sunny"},
        ]
        second = c.responses.create(model="gpt-4.1", input=inputs, tools=[RESPONSES_TOOL])
        return {
            "first": first.to_dict(),
            "second": second.model_dump(mode="json", exclude_unset=True),
            "text": second.output_text,
        }

    _theirs, ours = differential.check(app)
    assert ours.result["second"]["output"][0]["content"][0]["text"] == "Echo: call get_weather for Rome"
    assert ours.requests[1]["body"]["input"][1]["type"] == "function_call"
