"""Pure response builders for the endpoints beyond chat/embeddings/models. No I/O.

Content is a deterministic function of the request, like :mod:`._handlers`:

* responses and legacy completions answer ``"Echo: <input text>"`` (``max_output_tokens`` /
  ``max_tokens`` cut it at 4 characters a token), streamed as the API streams them;
* a moderation category is flagged when its name (``"violence"``, ``"self-harm"``) is in the text;
* images are a 1x1 PNG (``b64_json``) or an ``https://images.invalid/...`` URL;
* speech is ``ID3`` followed by the input text repeated to ``len(input) * 64`` bytes;
* a transcription is the uploaded file's bytes decoded as UTF-8.
"""

from __future__ import annotations

import base64
import math
import re
from typing import Any

from . import _responses as rs
from ._handlers import InvalidRequest, content_text
from ._json_body import dumps as _dumps

JSON = dict[str, Any]
_PIECES = re.compile(r"\s*\S+|\s+")
PNG_1X1 = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
    )
).decode("ascii")
MODERATION_CATEGORIES = (
    "harassment",
    "harassment/threatening",
    "hate",
    "hate/threatening",
    "illicit",
    "illicit/violent",
    "self-harm",
    "self-harm/instructions",
    "self-harm/intent",
    "sexual",
    "sexual/minors",
    "violence",
    "violence/graphic",
)


def _tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def _require_model(body: JSON) -> str:
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise InvalidRequest("you must provide a model parameter", "model")
    return model


def _cut(text: str, limit: Any) -> tuple[str, bool]:
    if isinstance(limit, int) and not isinstance(limit, bool) and len(text) > limit * 4:
        return text[: limit * 4], True
    return text, False


def sse(event: str | None, payload: JSON) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {_dumps(payload)}\n\n".encode()


# -- responses ---------------------------------------------------------------------------------
def _input_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        for item in reversed(value):
            if (
                isinstance(item, dict)
                and item.get("type", "message") == "message"
                and item.get("role") == "user"
            ):
                return content_text(item.get("content")) or "".join(
                    str(p.get("text", "")) for p in item.get("content") or [] if isinstance(p, dict)
                )
    return ""


def response_object(body: JSON, response_id: str, created: int) -> JSON:
    """The complete ``Response`` of a ``POST /v1/responses`` (see :mod:`._responses` for its output)."""
    model = _require_model(body)
    prompt = _input_text(body.get("input"))
    if not prompt and body.get("input") is None:
        raise InvalidRequest("'input' is required", "input")
    function = rs.chosen_function(body, prompt)
    cut = False
    if function is not None:
        item = rs.function_call_item(function, response_id, prompt)
    else:
        text, cut = _cut(rs.answer_text(body, prompt), body.get("max_output_tokens"))
        item = {
            "id": "msg_" + response_id[5:],
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}],
        }
    input_tokens = _tokens(prompt) + 3
    output_tokens = rs.item_tokens(item)
    text_config = body.get("text")
    text_config = text_config if isinstance(text_config, dict) else {}
    return {
        "id": response_id,
        "object": "response",
        "created_at": created,
        "status": "incomplete" if cut else "completed",
        "incomplete_details": {"reason": "max_output_tokens"} if cut else None,
        "error": None,
        "model": model,
        "instructions": body.get("instructions"),
        "output": [item],
        "parallel_tool_calls": True,
        "tool_choice": body.get("tool_choice") or "auto",
        "tools": body.get("tools") or [],
        "temperature": 1.0,
        "top_p": 1.0,
        "text": {"format": {"type": "text"}, **text_config},
        "metadata": body.get("metadata") or {},
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens,
        },
    }


def input_token_count(body: JSON) -> JSON:
    """``POST /v1/responses/input_tokens``: the input tokens as ``response_object`` counts them."""
    _require_model(body)
    return {"object": "response.input_tokens", "input_tokens": _tokens(_input_text(body.get("input"))) + 3}


def response_events(response: JSON) -> list[bytes]:
    """The SSE events of a streamed response, ``response.created`` to ``response.completed``."""
    pending = {
        **response,
        "status": "in_progress",
        "output": [],
        "usage": None,
        "incomplete_details": None,
    }
    events: list[tuple[str, JSON]] = [
        ("response.created", {"response": pending}),
        ("response.in_progress", {"response": pending}),
    ]
    for index, item in enumerate(response["output"]):
        events += rs.item_events(item, index)
    events.append(("response." + str(response["status"]), {"response": response}))
    return [sse(kind, {"type": kind, "sequence_number": i, **data}) for i, (kind, data) in enumerate(events)]


# -- legacy completions ------------------------------------------------------------------------
def _prompt_text(prompt: Any) -> str:
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list) and prompt:
        first = prompt[0]
        return first if isinstance(first, str) else " ".join(map(str, prompt))
    return ""


def completion_object(body: JSON, completion_id: str, created: int) -> JSON:
    model = _require_model(body)
    if "prompt" not in body:
        raise InvalidRequest("'prompt' is required", "prompt")
    prompt = _prompt_text(body.get("prompt"))
    limit = body.get("max_tokens", 16)
    text, cut = _cut(f"Echo: {prompt}", 16 if limit is None else limit)
    prompt_tokens = _tokens(prompt) or 1
    completion_tokens = _tokens(text)
    return {
        "id": completion_id,
        "object": "text_completion",
        "created": created,
        "model": model,
        "choices": [
            {"index": 0, "text": text, "logprobs": None, "finish_reason": "length" if cut else "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
        "system_fingerprint": "fp_holyclient",
    }


def completion_events(completion: JSON, include_usage: bool) -> list[bytes]:
    """Chunks of a streamed completion (each a ``text_completion`` object), then ``[DONE]``."""
    envelope = {key: completion[key] for key in ("id", "object", "created", "model", "system_fingerprint")}
    choice = completion["choices"][0]
    out = [
        sse(None, {**envelope, "choices": [{"index": 0, "text": p, "logprobs": None, "finish_reason": None}]})
        for p in _PIECES.findall(choice["text"])
    ]
    out.append(sse(None, {**envelope, "choices": [{**choice, "text": ""}]}))
    if include_usage:
        out.append(sse(None, {**envelope, "choices": [], "usage": completion["usage"]}))
    out.append(b"data: [DONE]\n\n")
    return out


# -- moderations, images -----------------------------------------------------------------------
def moderation(body: JSON, moderation_id: str) -> JSON:
    raw = body.get("input")
    if isinstance(raw, str):
        texts = [raw]
    elif isinstance(raw, list) and raw:
        texts = [x if isinstance(x, str) else str((x or {}).get("text", "")) for x in raw]
    else:
        raise InvalidRequest("'input' must be a string or a non-empty array", "input")
    results = []
    for text in texts:
        lowered = text.lower()
        flags = {name: name in lowered for name in MODERATION_CATEGORIES}
        results.append(
            {
                "flagged": any(flags.values()),
                "categories": flags,
                "category_scores": {name: 0.99 if hit else 0.0001 for name, hit in flags.items()},
                "category_applied_input_types": {name: ["text"] for name in MODERATION_CATEGORIES},
            }
        )
    return {"id": moderation_id, "model": body.get("model") or "omni-moderation-latest", "results": results}


def images(body: JSON, created: int) -> JSON:
    prompt = body.get("prompt")
    if not isinstance(prompt, str) or not prompt:
        raise InvalidRequest("'prompt' is required", "prompt")
    n = body.get("n") or 1
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 10:
        raise InvalidRequest("'n' must be an integer between 1 and 10", "n")
    as_url = body.get("response_format") == "url"
    data = [
        {"url": f"https://images.invalid/{created}/{i}.png"} if as_url else {"b64_json": PNG_1X1}
        for i in range(n)
    ]
    return {"created": created, "data": data}


def image_edit(fields: dict[str, str], files: dict[str, tuple[str, str, bytes]], now: int) -> JSON:
    """An edit or a variation: one 1x1 PNG per ``n``, whatever the uploads."""
    if not any(name == "image" or name.startswith("image[") for name in files):
        raise InvalidRequest("'image' is required", "image")
    n = fields.get("n") or "1"
    if not n.isdigit():
        raise InvalidRequest("'n' must be an integer between 1 and 10", "n")
    body: JSON = {"prompt": fields.get("prompt") or "variation", "n": int(n)}
    if fields.get("response_format"):
        body["response_format"] = fields["response_format"]
    return images(body, now)


# -- audio -------------------------------------------------------------------------------------
def speech(body: JSON) -> bytes:
    _require_model(body)
    text = body.get("input")
    if not isinstance(text, str) or not text:
        raise InvalidRequest("'input' is required", "input")
    if not body.get("voice"):
        raise InvalidRequest("'voice' is required", "voice")
    unit = text.encode()
    size = len(unit) * 64
    return b"ID3" + (unit * (size // len(unit) + 1))[:size]


def transcription(fields: dict[str, str], upload: tuple[str, str, bytes] | None) -> tuple[str, bytes]:
    """``(content_type, body)`` of a transcription or translation, in the requested ``response_format``."""
    if upload is None:
        raise InvalidRequest("'file' is required", "file")
    if not fields.get("model"):
        raise InvalidRequest("you must provide a model parameter", "model")
    text = upload[2].decode("utf-8", "replace")
    fmt = fields.get("response_format") or "json"
    if fmt == "text":
        return "text/plain; charset=utf-8", text.encode()
    if fmt in ("srt", "vtt"):
        head = "WEBVTT\n\n" if fmt == "vtt" else "1\n"
        return "text/plain; charset=utf-8", f"{head}00:00:00.000 --> 00:00:01.000\n{text}\n".encode()
    payload: JSON = {"text": text}
    if fmt == "verbose_json":
        duration = round(len(text) / 15, 2)
        payload = {
            "task": "transcribe",
            "language": fields.get("language") or "english",
            "duration": duration,
            "text": text,
            "segments": [{"id": 0, "start": 0.0, "end": duration, "text": text}],
        }
    else:
        payload["usage"] = {"type": "duration", "seconds": max(1, len(text) // 15)}
    return "application/json", _dumps(payload).encode()
