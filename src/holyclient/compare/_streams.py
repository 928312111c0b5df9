"""Streams in a comparison: a streamed answer folded back into one chat completion body. No I/O.

``compare`` replays ``"stream": true`` requests as streams (to measure time to first token) but
compares and prices whole answers, so the chunks are assembled the way a client would.
"""

from __future__ import annotations

import json
from typing import Any


def chunk_has_output(chunk: Any) -> bool:
    """Whether a chunk carries answer text or a tool call (the "first token" of a stream)."""
    for choice in chunk.get("choices") or () if isinstance(chunk, dict) else ():
        delta = choice.get("delta") or {}
        if delta.get("content") or delta.get("tool_calls"):
            return True
    return False


def assemble(events: list[bytes]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``(completion, None)`` for a stream's ``data`` payloads, or ``(None, error_body)`` for an error event."""
    content: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    completion: dict[str, Any] = {"object": "chat.completion", "choices": [], "usage": None}
    finish = None
    for data in events:
        if data.strip() == b"[DONE]":
            break
        try:
            chunk = json.loads(data)
        except ValueError:
            return None, {"error": {"message": "a stream event is not JSON", "type": "invalid_response"}}
        if not isinstance(chunk, dict):
            continue
        if "error" in chunk:
            return None, chunk
        for key in ("id", "model", "created"):
            completion.setdefault(key, chunk.get(key))
        if chunk.get("usage"):
            completion["usage"] = chunk["usage"]
        for choice in chunk.get("choices") or ():
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                content.append(delta["content"])
            for call in delta.get("tool_calls") or ():
                slot = calls.setdefault(
                    call.get("index", 0),
                    {"id": None, "type": "function", "function": {"name": "", "arguments": ""}},
                )
                slot["id"] = call.get("id") or slot["id"]
                function = call.get("function") or {}
                slot["function"]["name"] += function.get("name") or ""
                slot["function"]["arguments"] += function.get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    message: dict[str, Any] = {
        "role": "assistant",
        "content": "".join(content) if content or not calls else None,
    }
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    completion["choices"] = [{"index": 0, "message": message, "finish_reason": finish}]
    if completion.get("created") is None:
        completion["created"] = 0
    if completion.get("model") is None:
        completion["model"] = ""
    if completion.get("id") is None:
        completion["id"] = ""
    return completion, None
