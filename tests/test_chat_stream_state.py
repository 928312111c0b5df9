"""The stream state machine turns chunks into the same events and final completion as the official SDK."""

from __future__ import annotations

from typing import Any

import openai
import pytest
from openai.lib.streaming.chat import ChatCompletionStreamState as OpenAIState
from openai.types.chat import ChatCompletionChunk as OpenAIChunk
from pydantic import BaseModel

import chat_stream_scripts as s
import holyclient
from holyclient import ChatCompletionStreamState, accumulate_chunks, pydantic_function_tool
from holyclient.types.chat import ChatCompletionChunk

FIELDS = (
    "delta",
    "snapshot",
    "content",
    "refusal",
    "name",
    "index",
    "arguments",
    "arguments_delta",
    "parsed",
    "parsed_arguments",
)


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        data = value.model_dump(mode="json", exclude_none=True)
        sdk_type = type(value).__module__.startswith(("openai.", "holyclient."))
        return data if sdk_type else (type(value).__name__, data)  # user classes must be the same class
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _event(event: Any) -> dict[str, Any]:
    """An event as comparable data; a chunk event is identified by its chunk's choices."""
    out: dict[str, Any] = {"type": event.type}
    for name in FIELDS:
        if hasattr(event, name) and not (name == "snapshot" and event.type == "chunk"):
            out[name] = _plain(getattr(event, name))
    return out


def _final(completion: Any) -> dict[str, Any]:
    data: dict[str, Any] = completion.model_dump(mode="json", exclude_none=True, warnings=False)
    for choice in data["choices"]:
        message = choice["message"]
        parsed = getattr(completion.choices[choice["index"]].message, "parsed", None)
        message["parsed"] = _plain(parsed)
        for i, call in enumerate(message.get("tool_calls") or []):
            tool_call = completion.choices[choice["index"]].message.tool_calls[i]
            call["function"]["parsed_arguments"] = _plain(tool_call.function.parsed_arguments)
    return data


def _run(state: Any, chunk_type: Any, script: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], Any]:
    events = []
    for data in script:
        if data["object"] != "chat.completion.chunk":
            continue  # the stream wrappers skip these (tested over HTTP)
        chunk = chunk_type.model_validate(data)
        events.extend(_event(e) for e in state.handle_chunk(chunk))
    return events, state


def _both(script: list[dict[str, Any]], **options: Any) -> tuple[Any, Any, Any, Any]:
    ours, our_state = _run(ChatCompletionStreamState(**options), ChatCompletionChunk, script)
    theirs_options = dict(options)
    if "input_tools" in options:
        theirs_options["input_tools"] = [_their_tool(t) for t in options["input_tools"]]
    theirs, their_state = _run(OpenAIState(**theirs_options), OpenAIChunk, script)
    return ours, theirs, our_state, their_state


def _their_tool(tool: dict[str, Any]) -> Any:
    model = getattr(tool["function"], "model", None)
    return openai.pydantic_function_tool(model) if model is not None else tool


CASES = {
    "plain": (s.PLAIN, {}),
    "structured": (s.STRUCTURED, {"response_format": s.MathResponse}),
    "json_schema_dict": (s.STRUCTURED, {"response_format": {"type": "json_object"}}),
    "refusal": (s.REFUSAL, {"response_format": s.MathResponse}),
    "tools": (
        s.TOOLS,
        {"input_tools": [pydantic_function_tool(s.GetWeather), s.STRICT_DICT_TOOL]},
    ),
    "tools_not_declared": (s.TOOLS, {}),
    "logprobs": (s.LOGPROBS, {}),
    "two_choices": (s.TWO_CHOICES, {}),
}


@pytest.mark.parametrize("case", CASES)
def test_events_and_final_completion_match_openai(case: str) -> None:
    script, options = CASES[case]
    ours, theirs, our_state, their_state = _both(script, **options)
    assert [e["type"] for e in ours] == [e["type"] for e in theirs]
    assert ours == theirs
    assert _final(our_state.get_final_completion()) == _final(their_state.get_final_completion())


def test_structured_content_is_parsed_partially_then_into_the_class() -> None:
    state = ChatCompletionStreamState(response_format=s.MathResponse)
    events = [
        e for data in s.STRUCTURED for e in state.handle_chunk(ChatCompletionChunk.model_validate(data))
    ]
    deltas = [e for e in events if e.type == "content.delta"]
    assert isinstance(deltas[-1].parsed, dict)  # plain data while the JSON is incomplete
    (done,) = [e for e in events if e.type == "content.done"]
    assert isinstance(done.parsed, s.MathResponse)
    assert state.get_final_completion().choices[0].message.parsed == done.parsed


def test_pydantic_tool_arguments_done_event_carries_the_model() -> None:
    state = ChatCompletionStreamState(input_tools=[pydantic_function_tool(s.GetWeather), s.STRICT_DICT_TOOL])
    events = [e for data in s.TOOLS for e in state.handle_chunk(ChatCompletionChunk.model_validate(data))]
    done = [e for e in events if e.type == "tool_calls.function.arguments.done"]
    assert [e.name for e in done] == ["GetWeather", "lookup"]
    assert done[0].parsed_arguments == s.GetWeather(city="Paris", days=3)
    assert done[1].parsed_arguments == {"q": "tides"}


@pytest.mark.parametrize(
    ("script", "error"),
    [(s.CUT, holyclient.LengthFinishReasonError), (s.FILTERED, holyclient.ContentFilterFinishReasonError)],
)
def test_a_cut_structured_answer_raises_as_openai_does(script: list[dict[str, Any]], error: type) -> None:
    their_error = {
        holyclient.LengthFinishReasonError: openai.LengthFinishReasonError,
        holyclient.ContentFilterFinishReasonError: openai.ContentFilterFinishReasonError,
    }[error]
    with pytest.raises(their_error):
        _run(OpenAIState(response_format=s.MathResponse), OpenAIChunk, script)
    with pytest.raises(error) as info:
        _run(ChatCompletionStreamState(response_format=s.MathResponse), ChatCompletionChunk, script)
    assert info.value.completion.choices[0].message.content.startswith('{"steps": ')


def test_without_parseable_input_a_cut_answer_streams_but_the_final_completion_raises() -> None:
    events, state = _run(ChatCompletionStreamState(), ChatCompletionChunk, s.CUT)
    assert events[-1]["type"] == "content.done"
    with pytest.raises(holyclient.LengthFinishReasonError):
        state.get_final_completion()


def test_accumulate_chunks_matches_openai_snapshot() -> None:
    for script in (s.PLAIN, s.TOOLS, s.LOGPROBS, s.TWO_CHOICES):
        completion = accumulate_chunks(ChatCompletionChunk.model_validate(c) for c in script)
        assert isinstance(completion, holyclient.ChatCompletion)
        _, their_state = _run(OpenAIState(), OpenAIChunk, script)
        expected = their_state.current_completion_snapshot.model_dump(mode="json", exclude_none=True)
        assert completion.model_dump(mode="json", exclude_none=True) == expected


def test_accumulate_chunks_joins_the_message_and_keeps_usage() -> None:
    completion = accumulate_chunks(ChatCompletionChunk.model_validate(c) for c in s.PLAIN)
    assert completion.choices[0].message.content == "Hello, world!"
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage is not None and completion.usage.total_tokens == 13
    with pytest.raises(ValueError, match="No chat completion chunks"):
        accumulate_chunks([])


def test_unknown_delta_fields_are_joined_too() -> None:
    script = [
        s.chunk(s.delta(role="assistant", content="", reasoning_content="Let ")),
        s.chunk(s.delta(reasoning_content="me think")),
        s.chunk(s.delta(content="42", finish="stop")),
    ]
    completion = accumulate_chunks(ChatCompletionChunk.model_validate(c) for c in script)
    assert completion.choices[0].message.reasoning_content == "Let me think"  # type: ignore[attr-defined]
