"""Chunks of a streamed chat completion folded into one completion, the way the official SDK does.

The snapshot is a :class:`ParsedChatCompletion` updated in place: strings are concatenated
(``content``, ``refusal``, a tool call's ``arguments``), entries of indexed lists (``tool_calls``)
are merged by their ``index``, fields seen for the first time are set. Fields this SDK does not
model (a provider's ``reasoning_content``) are merged by the same rules, so nothing is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from .._parsing import (
    ParsedChatCompletion,
    ParsedChatCompletionMessage,
    ParsedChoice,
    ParsedFunction,
    ParsedFunctionToolCall,
)
from ..types._chat import ChatCompletionChunk, ChoiceLogprobs, ChunkChoice, FunctionCall

Snapshot = ParsedChatCompletion[Any]

# The class names ``print()`` shows, as openai's: the snapshot of a stream is a
# ``ParsedChatCompletion[object]``, the final completion a ``ParsedChatCompletion[~ResponseFormatT]``
# (openai parametrizes it by the type variable itself).
_SNAPSHOT: Any = ParsedChatCompletion[object]
_CHOICE: Any = ParsedChoice[object]
ResponseFormatT = TypeVar("ResponseFormatT")
_FINAL: Any = ParsedChatCompletion[ResponseFormatT]  # type: ignore[valid-type]
_FINAL_CHOICE: Any = ParsedChoice[ResponseFormatT]  # type: ignore[valid-type]
_FINAL_MESSAGE: Any = ParsedChatCompletionMessage[ResponseFormatT]  # type: ignore[valid-type]


def as_final(snapshot: Snapshot) -> Snapshot:
    """The snapshot's values (not copied) under the final completion's classes, fields set kept."""

    def construct(cls: Any, model: Any, **values: Any) -> Any:
        return cls.model_construct(_fields_set=set(model.model_fields_set), **{**dict(model), **values})

    choices = [
        construct(_FINAL_CHOICE, choice, message=construct(_FINAL_MESSAGE, choice.message))
        for choice in snapshot.choices
    ]
    final: Snapshot = construct(_FINAL, snapshot, choices=choices)
    return final


def accumulate_chunks(chunks: Iterable[ChatCompletionChunk]) -> ParsedChatCompletion[Any]:
    """The chat completion the chunks of one stream add up to.

    Args:
        chunks: the chunks of ``chat.completions.create(..., stream=True)``, in order.

    Returns:
        A ``ChatCompletion`` (a :class:`ParsedChatCompletion` with nothing parsed): the message
        content, refusal and tool calls joined, ``finish_reason``, ``logprobs`` and ``usage`` set.

    Raises:
        ValueError: when there are no chunks.
    """
    snapshot: Snapshot | None = None
    for chunk in chunks:
        if is_completion_chunk(chunk):
            snapshot = accumulate_chunk(snapshot, chunk)
    if snapshot is None:
        raise ValueError("No chat completion chunks to accumulate")
    return snapshot


def is_completion_chunk(chunk: ChatCompletionChunk) -> bool:
    """Some relays interleave other events (Azure's filter results have ``object: ""``): skip them."""
    return chunk.object == "chat.completion.chunk"


def accumulate_chunk(snapshot: Snapshot | None, chunk: ChatCompletionChunk) -> Snapshot:
    """Fold ``chunk`` into ``snapshot`` (in place) or, for the first chunk, start one."""
    if snapshot is None:
        return _first_snapshot(chunk)
    for choice in chunk.choices:
        if choice.index < len(snapshot.choices):
            choice_snapshot = snapshot.choices[choice.index]
            _mark_dumped(choice_snapshot.message)
            _merge_model(choice_snapshot.message, _delta_items(choice))
        else:
            snapshot.choices.append(_new_choice(choice))
            choice_snapshot = snapshot.choices[-1]
        if choice.finish_reason:
            choice_snapshot.finish_reason = choice.finish_reason
        if choice.logprobs is not None:
            _merge_logprobs(choice_snapshot, choice.logprobs)
    snapshot.usage = chunk.usage
    snapshot.system_fingerprint = chunk.system_fingerprint
    return snapshot


def _first_snapshot(chunk: ChatCompletionChunk) -> Snapshot:
    data = chunk.model_dump(exclude_unset=True, exclude={"choices"})
    data.pop("obfuscation", None)
    data.setdefault("system_fingerprint", None)
    data["object"] = "chat.completion"
    data["choices"] = [_choice_data(choice) for choice in chunk.choices]
    snapshot: Snapshot = _SNAPSHOT.model_validate(data)
    return snapshot


def _choice_data(choice: ChunkChoice) -> dict[str, Any]:
    data = choice.model_dump(exclude_unset=True, exclude={"delta"})
    message: dict[str, Any] = {}
    _merge_dict(message, choice.delta.model_dump(exclude_unset=True))
    data["message"] = message
    return data


def _new_choice(choice: ChunkChoice) -> ParsedChoice[Any]:
    new: ParsedChoice[Any] = _CHOICE.model_validate(_choice_data(choice))
    return new


_MESSAGE_FIELDS = frozenset(ParsedChatCompletionMessage.model_fields) - {"parsed"}


def _mark_dumped(message: ParsedChatCompletionMessage[Any]) -> None:
    """Count every field of the message (and of its tool calls so far) as set, as openai's snapshot does.

    openai rebuilds the message from a full dump (``parsed`` left out) on every chunk after the first,
    so ``to_dict()`` / ``to_json()`` of its final completion show ``"audio": null`` and the like; this
    keeps the two byte for byte the same without rebuilding anything.
    """
    message.__pydantic_fields_set__.update(_MESSAGE_FIELDS)
    for call in message.tool_calls or ():
        call.__pydantic_fields_set__.update(type(call).model_fields)
        if call.function is not None:
            call.function.__pydantic_fields_set__.update(type(call.function).model_fields)


def _delta_items(choice: ChunkChoice) -> dict[str, Any]:
    delta = choice.delta
    items = {name: getattr(delta, name) for name in delta.model_fields_set}
    if delta.model_extra:
        items.update(delta.model_extra)
    return items


def _merge_model(target: Any, delta: dict[str, Any]) -> None:
    """Merge a delta's fields (models, dicts or plain values) into a snapshot model."""
    for key, value in delta.items():
        if value is None:
            continue
        current = getattr(target, key, None)
        if key == "tool_calls":
            _merge_tool_calls(target, value)
        elif current is None:
            setattr(target, key, _snapshot_value(key, value))
        elif key in ("index", "type"):
            setattr(target, key, value)
        elif isinstance(current, str) and isinstance(value, str):
            setattr(target, key, current + value)
        elif hasattr(current, "model_fields_set"):
            _merge_model(current, _as_dict(value))
        elif isinstance(current, dict) and isinstance(value, dict):
            _merge_dict(current, value)
        elif isinstance(current, list) and isinstance(value, list):
            current.extend(value)


def _merge_tool_calls(message: Any, deltas: list[Any]) -> None:
    calls: list[ParsedFunctionToolCall] = message.tool_calls or []
    for delta in deltas:
        entry = _as_dict(delta)
        index = entry.get("index", 0)
        if index < len(calls):
            _merge_model(calls[index], entry)
        else:
            calls.insert(index, ParsedFunctionToolCall.model_validate(entry))
    message.tool_calls = calls


def _snapshot_value(key: str, value: Any) -> Any:
    if key == "function_call":
        return FunctionCall.model_validate(_as_dict(value))
    if key == "function":
        return ParsedFunction.model_validate(_as_dict(value))
    return _as_dict(value) if hasattr(value, "model_fields_set") else value


def _as_dict(value: Any) -> Any:
    return value.model_dump(exclude_unset=True) if hasattr(value, "model_fields_set") else value


def _merge_dict(target: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """The dict twin of :func:`_merge_model`, for fields kept as plain data."""
    for key, value in delta.items():
        current = target.get(key)
        if current is None:
            if isinstance(value, list) and any(isinstance(v, dict) and "index" in v for v in value):
                target[key] = _merge_indexed([], value)
            else:
                target[key] = value
        elif key in ("index", "type"):
            target[key] = value
        elif isinstance(current, str) and isinstance(value, str):
            target[key] = current + value
        elif isinstance(current, dict) and isinstance(value, dict):
            _merge_dict(current, value)
        elif isinstance(current, list) and isinstance(value, list):
            if any(isinstance(v, dict) and "index" in v for v in value):
                _merge_indexed(current, value)
            else:
                current.extend(value)
    return target


def _merge_indexed(target: list[Any], entries: list[Any]) -> list[Any]:
    for entry in entries:
        index = entry["index"]
        if index < len(target):
            _merge_dict(target[index], entry)
        else:
            target.insert(index, dict(entry))
    return target


def _merge_logprobs(choice: ParsedChoice[Any], logprobs: ChoiceLogprobs) -> None:
    if choice.logprobs is None:
        choice.logprobs = ChoiceLogprobs(
            content=list(logprobs.content) if logprobs.content is not None else None,
            refusal=list(logprobs.refusal) if logprobs.refusal is not None else None,
        )
        return
    if logprobs.content:
        choice.logprobs.content = (choice.logprobs.content or []) + list(logprobs.content)
    if logprobs.refusal:
        choice.logprobs.refusal = (choice.logprobs.refusal or []) + list(logprobs.refusal)
