"""What a call says in the GenAI semantic conventions, sans-IO: names and attribute dicts, no OpenTelemetry.

The conventions followed are OpenTelemetry's GenAI semantic conventions **v1.36.0** by default (the
provider as ``gen_ai.system``; prompts and completions, when captured, as span events) and, with
``OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental``, the latest experimental ones as shipped in
semantic conventions **v1.44.0** (``gen_ai.provider.name``; ``gen_ai.input.messages`` /
``gen_ai.output.messages`` as span attributes). The two are never emitted together, as the conventions'
transition plan asks.

Operation names are the conventions' well-known values where one fits (``chat`` for chat completions
and the Responses API, ``text_completion``, ``embeddings``, ``generate_content`` for images and
speech); transcription, translation and moderation have none, so they get their own lower-case names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ..pricing import billed_figures

__all__ = ["OPERATIONS", "content_messages", "output_messages", "request_attributes", "response_attributes"]

PROVIDER = "openai"

#: API path -> (gen_ai.operation.name, gen_ai.output.type or None). Paths not here get no span.
OPERATIONS: dict[str, tuple[str, str | None]] = {
    "/chat/completions": ("chat", None),
    "/responses": ("chat", None),
    "/completions": ("text_completion", None),
    "/embeddings": ("embeddings", None),
    "/images/generations": ("generate_content", "image"),
    "/images/edits": ("generate_content", "image"),
    "/images/variations": ("generate_content", "image"),
    "/audio/speech": ("generate_content", "speech"),
    "/audio/transcriptions": ("transcription", "text"),
    "/audio/translations": ("translation", "text"),
    "/moderations": ("moderation", None),
}

#: API path -> ``openai.api.type`` (latest conventions).
OPENAI_API_TYPES = {"/chat/completions": "chat_completions", "/responses": "responses"}

#: Request body field -> attribute, for the plain numeric parameters the conventions list.
_NUMBERS = (
    ("max_tokens", "gen_ai.request.max_tokens"),
    ("max_completion_tokens", "gen_ai.request.max_tokens"),
    ("max_output_tokens", "gen_ai.request.max_tokens"),
    ("temperature", "gen_ai.request.temperature"),
    ("top_p", "gen_ai.request.top_p"),
    ("frequency_penalty", "gen_ai.request.frequency_penalty"),
    ("presence_penalty", "gen_ai.request.presence_penalty"),
    ("seed", "gen_ai.request.seed"),
)


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


_FORM_MODEL = re.compile(rb'name="model"\r\n(?:[^\r\n]*\r\n)*?\r\n([^\r\n]{1,200})\r\n')


def form_body(content: bytes | None) -> dict[str, Any]:
    """The model field of a multipart upload (transcriptions, image edits), as a body to read it from."""
    found = _FORM_MODEL.search(content) if content else None
    return {"model": found.group(1).decode("utf-8", "replace")} if found else {}


def request_attributes(
    body: Mapping[str, Any], output_type: str | None, *, latest: bool, api: str | None = None
) -> dict[str, Any]:
    """The request parameters of ``body`` as span attributes (model excepted: it names the span)."""
    attributes: dict[str, Any] = {}
    for field, name in _NUMBERS:
        value = body.get(field)
        if isinstance(value, int | float) and not isinstance(value, bool):
            attributes[name] = value
    stop = body.get("stop")
    if isinstance(stop, str):
        attributes["gen_ai.request.stop_sequences"] = [stop]
    elif isinstance(stop, list) and all(isinstance(s, str) for s in stop):
        attributes["gen_ai.request.stop_sequences"] = stop
    count = body.get("n")
    if isinstance(count, int) and count != 1:
        attributes["gen_ai.request.choice.count"] = count
    encoding = body.get("encoding_format")
    if isinstance(encoding, str):
        attributes["gen_ai.request.encoding_formats"] = [encoding]
    tier = body.get("service_tier")
    if isinstance(tier, str):
        attributes["openai.request.service_tier" if latest else "gen_ai.openai.request.service_tier"] = tier
    kind = _get(body.get("response_format"), "type")
    if latest:
        if api is not None:
            attributes["openai.api.type"] = api
        if kind in ("json_object", "json_schema"):
            output_type = "json"
        if output_type is not None:
            attributes["gen_ai.output.type"] = output_type
    elif isinstance(kind, str):
        attributes["gen_ai.openai.request.response_format"] = kind
    return attributes


def token_counts(usage: Any) -> tuple[int | None, int | None]:
    """``(input, output)`` tokens of a usage object or dict, for the token metric, as the usage reader
    reads them (:mod:`holyclient.pricing._billed`: a prompt with its cache reads and writes, an output
    with reasoning reported beside it); None for a usage that reports no tokens (a duration)."""
    if _get(usage, "prompt_tokens") is None and _get(usage, "input_tokens") is None:
        return None, None
    figures = billed_figures(usage)
    return figures[0], figures[3]


def usage_attributes(usage: Any) -> dict[str, Any]:
    """``gen_ai.usage.*`` from a usage object or dict of any shape (chat, completions, embeddings,
    Responses; DeepSeek's and Claude's cache fields, Gemini's reasoning beside the completion), read by
    holyclient's one usage reader. As the conventions ask, ``gen_ai.usage.input_tokens`` includes the
    cache's reads (``gen_ai.usage.cache_read.input_tokens``) and writes
    (``gen_ai.usage.cache_creation.input_tokens``); the writes kept at the long retention and what the
    relay reported charging are holyclient's own attributes, and so is a usage that did not add up."""
    if _get(usage, "prompt_tokens") is None and _get(usage, "input_tokens") is None:
        return {}
    prompt, cached, _, completion, reasoning, _, write, write_long, reported, problems = billed_figures(usage)
    attributes: dict[str, Any] = {
        "gen_ai.usage.input_tokens": prompt,
        "gen_ai.usage.output_tokens": completion,
        "gen_ai.usage.cache_read.input_tokens": cached,
        "gen_ai.usage.cache_creation.input_tokens": write + write_long,
    }
    if reasoning:
        attributes["gen_ai.usage.reasoning.output_tokens"] = reasoning
    if write_long:
        attributes["holyclient.usage.cache_creation.long_retention.input_tokens"] = write_long
    if reported is not None:
        attributes["holyclient.cost.reported_usd"] = reported
    if problems:
        attributes["holyclient.usage.problems"] = list(problems)
    return attributes


#: Answer field -> attribute, in v1.36.0 and in the latest conventions (where OpenAI's have their own namespace).
_RESPONSE_FIELDS = (
    ("id", "gen_ai.response.id", "gen_ai.response.id"),
    ("model", "gen_ai.response.model", "gen_ai.response.model"),
    ("system_fingerprint", "gen_ai.openai.response.system_fingerprint", "openai.response.system_fingerprint"),
    ("service_tier", "gen_ai.openai.response.service_tier", "openai.response.service_tier"),
)


def response_attributes(result: Any, *, latest: bool = False) -> dict[str, Any]:
    """``gen_ai.response.*`` (id, model, finish reasons) and the OpenAI extras of a parsed answer."""
    attributes: dict[str, Any] = {}
    for field, old, new in _RESPONSE_FIELDS:
        name = new if latest else old
        value = _get(result, field)
        if isinstance(value, str):
            attributes[name] = value
    choices = _get(result, "choices")
    if isinstance(choices, list):
        reasons = [r for r in (_get(choice, "finish_reason") for choice in choices) if isinstance(r, str)]
        if reasons:
            attributes["gen_ai.response.finish_reasons"] = reasons
    status = _get(result, "status")
    if isinstance(status, str) and _get(result, "object") == "response":
        attributes["gen_ai.response.finish_reasons"] = [status]
    data = _get(result, "data")
    if isinstance(data, list) and data:
        vector = _get(data[0], "embedding")
        if isinstance(vector, list):
            attributes["gen_ai.embeddings.dimension.count"] = len(vector)
    return attributes


def _parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "content": content}]
    if isinstance(content, list):
        parts = []
        for part in content:
            text = _get(part, "text")
            if isinstance(text, str):
                parts.append({"type": "text", "content": text})
        return parts
    return []


def content_messages(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The input messages of a request as the conventions' ``gen_ai.input.messages`` (role and parts)."""
    messages = body.get("messages")
    if messages is None:
        messages = body.get("input")
    if isinstance(messages, str):
        return [{"role": "user", "parts": _parts(messages)}]
    if isinstance(body.get("prompt"), str):
        return [{"role": "user", "parts": _parts(body["prompt"])}]
    result = []
    for message in messages if isinstance(messages, list) else ():
        role = _get(message, "role")
        if isinstance(role, str):
            result.append({"role": role, "parts": _parts(_get(message, "content"))})
    return result


def output_messages(result: Any, streamed_text: str | None = None) -> list[dict[str, Any]]:
    """The answer as the conventions' ``gen_ai.output.messages`` (one per choice)."""
    if streamed_text is not None:
        return [{"role": "assistant", "parts": _parts(streamed_text)}]
    messages = []
    choices = _get(result, "choices")
    for choice in choices if isinstance(choices, list) else ():
        message = _get(choice, "message")
        content = _get(message, "content") if message is not None else _get(choice, "text")
        messages.append(
            {"role": "assistant", "parts": _parts(content), "finish_reason": _get(choice, "finish_reason")}
        )
    text = _get(result, "output_text")
    if not messages and isinstance(text, str):
        messages.append({"role": "assistant", "parts": _parts(text)})
    return messages


def dumps(messages: list[dict[str, Any]]) -> str:
    """Messages as the JSON string a span attribute holds."""
    return json.dumps(messages, ensure_ascii=False, separators=(",", ":"))
