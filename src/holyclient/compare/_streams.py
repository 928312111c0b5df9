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
    """``(completion, None)`` for a stream's ``data`` payloads, or ``(None, error_body)`` for an error event.

    The chunks are folded by the client's own :func:`~holyclient.accumulate_chunks` (the official SDK's
    rules), so ``compare`` judges a streamed answer exactly as a caller of ``create(stream=True)`` gets it.
    """
    from pydantic import ValidationError

    from .._chat_stream import accumulate_chunks
    from ..types.chat import ChatCompletionChunk

    chunks: list[ChatCompletionChunk] = []
    for data in events:
        if data.strip() == b"[DONE]":
            break
        try:
            chunk = json.loads(data)
        except ValueError:
            return None, _invalid("a stream event is not JSON")
        if not isinstance(chunk, dict):
            continue
        if "error" in chunk:
            return None, chunk
        defaults = {"id": "", "created": 0, "model": "", "object": "chat.completion.chunk", "choices": []}
        try:
            chunks.append(ChatCompletionChunk.model_validate({**defaults, **chunk}))
        except ValidationError:
            return None, _invalid("a stream event is not a chat completion chunk")
    if any(chunk.object == "chat.completion.chunk" for chunk in chunks):
        completion = accumulate_chunks(chunks).model_dump(mode="json")
    else:  # no chunk at all: an empty answer
        message = {"role": "assistant", "content": ""}
        completion = {"id": "", "object": "chat.completion", "created": 0, "model": "", "usage": None}
        completion["choices"] = [{"index": 0, "message": message, "finish_reason": None}]
    return completion, None


def prepare() -> None:
    """Assemble one tiny stream now. The first :func:`assemble` imports the stream helpers and builds
    the chunk model's validators (about 0.2 s); done in the middle of a run, that blocks the event loop
    and every request then in flight, on both sides, would count it as latency."""
    assemble([b'{"choices":[{"index":0,"delta":{"role":"assistant","content":"x"},"finish_reason":"stop"}]}'])


def _invalid(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_response"}}
