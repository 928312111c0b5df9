"""What the local server answers for legacy ``/v1/completions`` and ``/v1/moderations``. No I/O.

Deterministic, like the chat handler (:mod:`._handlers`):

* a completion answers ``"Echo: <prompt>"`` (``max_tokens``, 16 by default, cuts it at 4 characters a
  token), streamed as the API streams it;
* a moderation category is flagged when its name (``"violence"``, ``"self-harm"``) is in the text.
"""

from __future__ import annotations

import re
from typing import Any

from ._handlers import InvalidRequest, cut_text, require_model, text_tokens
from ._json_body import sse

JSON = dict[str, Any]
_PIECES = re.compile(r"\s*\S+|\s+")
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


def _prompt_text(prompt: Any) -> str:
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list) and prompt:
        first = prompt[0]
        return first if isinstance(first, str) else " ".join(map(str, prompt))
    return ""


def completion_object(body: JSON, completion_id: str, created: int) -> JSON:
    model = require_model(body)
    if "prompt" not in body:
        raise InvalidRequest("'prompt' is required", "prompt")
    prompt = _prompt_text(body.get("prompt"))
    limit = body.get("max_tokens", 16)
    text, cut = cut_text(f"Echo: {prompt}", 16 if limit is None else limit)
    prompt_tokens = text_tokens(prompt) or 1
    completion_tokens = text_tokens(text)
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
