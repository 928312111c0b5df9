"""Hand-built streamed chat completions (lists of chunk dicts) shared by the stream-helper tests."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel


class Step(BaseModel):
    explanation: str
    output: str


class MathResponse(BaseModel):
    steps: list[Step]
    final_answer: str


class GetWeather(BaseModel):
    """Weather in a city."""

    city: str
    days: int


STRICT_DICT_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "lookup",
        "strict": True,
        "parameters": {
            "type": "object",
            "properties": {"q": {"type": "string"}},
            "required": ["q"],
            "additionalProperties": False,
        },
    },
}


def chunk(*choices: dict[str, Any], **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-s",
        "object": "chat.completion.chunk",
        "created": 7,
        "model": "gpt-4o",
        "system_fingerprint": "fp_1",
        "choices": list(choices),
    }
    body.update(extra)
    return body


def delta(index: int = 0, finish: str | None = None, logprobs: Any = None, **fields: Any) -> dict[str, Any]:
    choice: dict[str, Any] = {"index": index, "delta": fields, "finish_reason": finish}
    if logprobs is not None:
        choice["logprobs"] = logprobs
    return choice


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


USAGE = {"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13}

PLAIN = [
    chunk(delta(role="assistant", content="", refusal=None)),
    *[chunk(delta(content=p)) for p in ["Hel", "lo, ", "world", "!"]],
    chunk(delta(finish="stop")),
    chunk(usage=USAGE),
]

MATH_JSON = json.dumps(
    {"steps": [{"explanation": "subtract 31", "output": "8x = -29"}], "final_answer": "x = -29/8"}
)
STRUCTURED = [
    chunk(delta(role="assistant", content="", refusal=None)),
    *[chunk(delta(content=p)) for p in pieces(MATH_JSON, 7)],
    chunk(delta(finish="stop")),
]

REFUSAL = [
    chunk(delta(role="assistant", refusal="")),
    *[chunk(delta(refusal=p)) for p in ["I'm sorry, ", "I can't ", "help with that."]],
    chunk(delta(finish="stop")),
]

_WEATHER_ARGS = json.dumps({"city": "Paris", "days": 3})
_LOOKUP_ARGS = json.dumps({"q": "tides"})
TOOLS = [
    chunk(delta(role="assistant", content=None)),
    chunk(
        delta(
            tool_calls=[
                {
                    "index": 0,
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "GetWeather", "arguments": ""},
                }
            ]
        )
    ),
    *[
        chunk(delta(tool_calls=[{"index": 0, "function": {"arguments": p}}]))
        for p in pieces(_WEATHER_ARGS, 5)
    ],
    chunk(
        delta(
            tool_calls=[
                {
                    "index": 1,
                    "id": "call_b",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": ""},
                }
            ]
        )
    ),
    *[chunk(delta(tool_calls=[{"index": 1, "function": {"arguments": p}}])) for p in pieces(_LOOKUP_ARGS, 4)],
    chunk(delta(finish="tool_calls")),
    chunk(usage=USAGE),
]


def _lp(token: str) -> dict[str, Any]:
    return {"token": token, "logprob": -0.5, "bytes": list(token.encode()), "top_logprobs": []}


LOGPROBS = [
    chunk(delta(role="assistant", content="", logprobs={"content": [], "refusal": None})),
    chunk(delta(content="Hi", logprobs={"content": [_lp("Hi")], "refusal": None})),
    chunk(delta(content=" there", logprobs={"content": [_lp(" there")], "refusal": None})),
    chunk(delta(finish="stop")),
]

TWO_CHOICES = [
    chunk(delta(0, role="assistant", content=""), delta(1, role="assistant", content="")),
    chunk(delta(0, content="one")),
    chunk(delta(1, content="two")),
    chunk(delta(0, content=" more")),
    chunk(delta(0, finish="stop"), delta(1, finish="stop")),
]

CUT = [
    chunk(delta(role="assistant", content="")),
    chunk(delta(content='{"steps": [{"expl')),
    chunk(delta(finish="length")),
]

FILTERED = [
    chunk(delta(role="assistant", content="")),
    chunk(delta(content='{"steps": ')),
    chunk(delta(finish="content_filter")),
]

#: Relays may interleave non-chunk events (Azure's content-filter results have ``object: ""``).
WITH_FOREIGN_EVENT = [
    chunk(delta(role="assistant", content="")),
    {"id": "", "object": "", "created": 0, "model": "", "choices": [], "prompt_filter_results": []},
    chunk(delta(content="ok")),
    chunk(delta(finish="stop")),
]


def sse_event(data: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(data).encode() + b"\n\n"
