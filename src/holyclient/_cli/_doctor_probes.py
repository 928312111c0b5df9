"""``holyclient doctor``'s probes: the tiny requests it sends, each with the judge of its answer. No I/O.

Each :class:`Probe` is a ``max_tokens``-capped request and a judge from ``_doctor_judges``; rows that
need several probes (rate-limit headers, latency) are derived from all observations at the end. The
runner in ``doctor.py`` is the only part that sends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._doctor_judges import (
    Judge,
    Observation,
    Row,
    judge_chat,
    judge_embeddings,
    judge_error,
    judge_json,
    judge_key,
    judge_logprobs,
    judge_models,
    judge_n,
    judge_responses,
    judge_stream,
    judge_stream_usage,
    judge_tools,
)

#: The key sent by the bad-key probe: obviously not a real key, so no server can mistake it for one.
BAD_KEY = "sk-holyclient-doctor-not-a-key"
UNKNOWN_MODEL = "holyclient-doctor-no-such-model"
MAX_TOKENS = 16


@dataclass(frozen=True)
class Probe:
    feature: str
    required: bool
    method: str
    path: str
    body: Mapping[str, Any] | None
    judge: Judge
    stream: bool = False
    bad_key: bool = False

    def row(self, seen: Observation) -> Row:
        verdict, evidence = self.judge(seen)
        return Row(self.feature, verdict, evidence, self.required)


def _chat(model: str, text: str, **params: Any) -> dict[str, Any]:
    return {
        "model": model,
        "messages": [{"role": "user", "content": text}],
        "max_tokens": MAX_TOKENS,
        **params,
    }


_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
_SCHEMA = {
    "name": "echo",
    "strict": True,
    "schema": {
        "type": "object",
        "properties": {"echo": {"type": "string"}},
        "required": ["echo"],
        "additionalProperties": False,
    },
}


def probes(model: str, embedding_model: str, wanted: Sequence[str]) -> list[Probe]:
    """The probes, in the order the table lists them."""
    chat = "/chat/completions"
    return [
        Probe("key accepted", True, "POST", chat, _chat(model, "Say OK", max_tokens=1), judge_key),
        Probe("GET /models", True, "GET", "/models", None, judge_models(wanted)),
        Probe("chat", True, "POST", chat, _chat(model, "Say OK"), judge_chat),
        Probe(
            "streaming",
            True,
            "POST",
            chat,
            _chat(model, "Say OK", stream=True, stream_options={"include_usage": True}),
            judge_stream,
            stream=True,
        ),
        Probe(
            "stream usage chunk",
            False,
            "POST",
            chat,
            _chat(model, "Say OK", stream=True, stream_options={"include_usage": True}),
            judge_stream_usage,
            stream=True,
        ),
        Probe(
            "tools / tool_choice",
            False,
            "POST",
            chat,
            _chat(
                model,
                "What is the weather in Paris?",
                max_tokens=64,
                tools=[_TOOL],
                tool_choice={"type": "function", "function": {"name": "get_weather"}},
            ),
            judge_tools,
        ),
        Probe(
            "json_object",
            False,
            "POST",
            chat,
            _chat(model, "Reply with a JSON object.", max_tokens=32, response_format={"type": "json_object"}),
            judge_json,
        ),
        Probe(
            "json_schema",
            False,
            "POST",
            chat,
            _chat(
                model,
                "Echo 'OK' as JSON.",
                max_tokens=32,
                response_format={"type": "json_schema", "json_schema": _SCHEMA},
            ),
            judge_json,
        ),
        Probe("n > 1", False, "POST", chat, _chat(model, "Say OK", n=2, max_tokens=4), judge_n),
        Probe(
            "logprobs",
            False,
            "POST",
            chat,
            _chat(model, "Say OK", logprobs=True, max_tokens=4),
            judge_logprobs,
        ),
        Probe(
            "embeddings",
            False,
            "POST",
            "/embeddings",
            {"model": embedding_model, "input": "OK"},
            judge_embeddings,
        ),
        Probe(
            "/responses",
            False,
            "POST",
            "/responses",
            {"model": model, "input": "Say OK", "max_output_tokens": MAX_TOKENS},
            judge_responses,
        ),
        Probe(
            "401 bad key",
            True,
            "POST",
            chat,
            _chat(model, "Say OK", max_tokens=1),
            judge_error(401, "AuthenticationError"),
            bad_key=True,
        ),
        Probe(
            "400 bad request",
            True,
            "POST",
            chat,
            {"model": model, "messages": [], "max_tokens": 1},
            judge_error(400, "BadRequestError"),
        ),
        Probe(
            "404 unknown model",
            False,
            "POST",
            chat,
            _chat(UNKNOWN_MODEL, "Say OK", max_tokens=1),
            judge_error(404, "NotFoundError"),
        ),
    ]
