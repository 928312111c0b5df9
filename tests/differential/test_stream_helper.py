"""The stream helper, differentially: ``chat.completions.stream()`` through openai and holyclient on the local server."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from differential.conftest import Differential
from differential.test_structured_outputs import as_data


class Answer(BaseModel):
    text: str
    words: list[str]


USER = [{"role": "user", "content": "tell me about get_weather"}]
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "strict": True,
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}


def _final(completion: Any) -> Any:
    """The final completion as data, ``None`` values dropped: openai's stream snapshot marks every
    message field as set (``audio: None``, ``annotations: None`` ...), ours only those received."""
    return _without_none(as_data(completion))


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


def _summary(stream: Any) -> dict[str, Any]:
    events = [event.type for event in stream]
    return {"events": events, "final": _final(stream.get_final_completion())}


def test_stream_helper_text_matches_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        with c.chat.completions.stream(model="gpt-4.1", messages=USER) as stream:
            return _summary(stream)

    _theirs, ours = differential.check(app)
    assert "content.done" in ours.result["events"]


def test_stream_helper_structured_output_matches_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        with c.chat.completions.stream(model="gpt-4.1", messages=USER, response_format=Answer) as stream:
            return _summary(stream)

    _theirs, ours = differential.check(app)
    assert ours.result["final"]["choices"][0]["message"]["parsed"][0] == "Answer"


def test_stream_helper_tool_call_matches_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        with c.beta.chat.completions.stream(model="gpt-4.1", messages=USER, tools=[WEATHER_TOOL]) as stream:
            return _summary(stream)

    _theirs, ours = differential.check(app)
    assert "tool_calls.function.arguments.done" in ours.result["events"]


async def test_async_stream_helper_matches_openai(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        async with c.chat.completions.stream(
            model="gpt-4.1", messages=USER, response_format=Answer
        ) as stream:
            events = [event.type async for event in stream]
            return {"events": events, "final": _final(await stream.get_final_completion())}

    await differential.acheck(app)
