"""Streams of the ``tool`` way, read as a ``json_schema`` stream reads. Sans-IO.

When ``stream()`` with a format had to ask by a forced tool call (:mod:`._portable_chat`), the answer
streams as the call's argument deltas. These translators turn them into what a ``json_schema`` stream
sends -- chat ``content`` deltas, Responses ``output_text`` events -- before the stream helper's state
machine sees them, so ``content.delta`` / ``content.done`` (with ``parsed``) and
``response.output_text.delta`` / ``.done`` arrive as usual and the final result decodes as ``parse()``'s.
Chunks and events of the caller's own tools pass unchanged.
"""

from __future__ import annotations

import json
from typing import Any

from ..types._chat import ChatCompletionChunk
from ..types._responses import ResponseStreamEvent


class ChatToolAsContent:
    """Moves the output tool's argument deltas of each chunk into ``delta.content`` (in place)."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._ours: dict[int, int] = {}  # choice index -> index of the output tool's call
        self._others: set[int] = set()  # choices that called one of the caller's tools

    def __call__(self, chunk: ChatCompletionChunk) -> ChatCompletionChunk:
        for choice in chunk.choices:
            delta = choice.delta
            if delta.tool_calls:
                kept, text, ours = [], "", False
                for call in delta.tool_calls:
                    function = call.function
                    if function is not None and function.name == self._name:
                        self._ours[choice.index] = call.index
                    if self._ours.get(choice.index) == call.index:
                        ours = True
                        text += (function.arguments if function is not None else None) or ""
                    else:
                        kept.append(call)
                        self._others.add(choice.index)
                delta.tool_calls = kept or None
                if ours:
                    delta.content = (delta.content or "") + text
            if choice.finish_reason == "tool_calls" and choice.index not in self._others:
                choice.finish_reason = "stop"
        return chunk


def _event(data: dict[str, Any]) -> ResponseStreamEvent:
    return ResponseStreamEvent.model_validate_json(json.dumps(data))


class ResponseToolAsText:
    """Turns the events of the output tool's function call into those of an output message."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._items: dict[int, str] = {}  # output index -> the message id standing for the call

    def __call__(self, event: ResponseStreamEvent) -> list[ResponseStreamEvent]:
        data = event.to_dict()
        kind = data.get("type")
        index = data.get("output_index")
        index = index if isinstance(index, int) else -1
        if kind in ("response.completed", "response.incomplete") and isinstance(data.get("response"), dict):
            response = data["response"]
            response["output"] = [self._as_message(item) for item in response.get("output") or []]
            return [_event(data)]
        if kind == "response.output_item.added" and self._is_ours(data.get("item")):
            item_id = "msg_" + str(data["item"].get("call_id") or data["item"].get("id") or self._name)
            self._items[index] = item_id
            message = {
                "id": item_id,
                "type": "message",
                "role": "assistant",
                "status": "in_progress",
                "content": [],
            }
            part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            ids = {"item_id": item_id, "output_index": index, "content_index": 0}
            return [
                _event({**data, "item": message}),
                _event(
                    {
                        **ids,
                        "type": "response.content_part.added",
                        "sequence_number": data.get("sequence_number", 0),
                        "part": part,
                    }
                ),
            ]
        if index not in self._items:
            return [event]
        ids = {"item_id": self._items[index], "output_index": index, "content_index": 0}
        number = data.get("sequence_number", 0)
        if kind == "response.function_call_arguments.delta":
            return [
                _event(
                    {
                        **ids,
                        "type": "response.output_text.delta",
                        "sequence_number": number,
                        "delta": data.get("delta", ""),
                        "logprobs": [],
                    }
                )
            ]
        if kind == "response.function_call_arguments.done":
            text = data.get("arguments", "")
            part = {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
            return [
                _event(
                    {
                        **ids,
                        "type": "response.output_text.done",
                        "sequence_number": number,
                        "text": text,
                        "logprobs": [],
                    }
                ),
                _event(
                    {**ids, "type": "response.content_part.done", "sequence_number": number, "part": part}
                ),
            ]
        if kind == "response.output_item.done":
            return [_event({**data, "item": self._as_message(data.get("item"))})]
        return [event]

    def _is_ours(self, item: Any) -> bool:
        return (
            isinstance(item, dict) and item.get("type") == "function_call" and item.get("name") == self._name
        )

    def _as_message(self, item: Any) -> Any:
        if not self._is_ours(item):
            return item
        text = item.get("arguments", "")
        return {
            "id": "msg_" + str(item.get("call_id") or item.get("id") or self._name),
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}],
        }
