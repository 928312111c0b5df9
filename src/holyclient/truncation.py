"""Token-aware truncation of a text and of a conversation, exact in the model's own tokens."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ._core._messages import message_mapping
from ._exceptions import HolyClientError
from .tokens import _tokenizer, count_messages, encoding_for_model

if TYPE_CHECKING:
    from .tokens._chat import MessageLike

__all__ = ["DEFAULT_MARKER", "ContextOverflowError", "fit_messages", "truncate_text"]

#: Put where text was removed; counted inside the token budget.
DEFAULT_MARKER = "\n[...]\n"

#: A message is shortened rather than dropped only if this many tokens of it would survive.
_MIN_USEFUL_TOKENS = 16


class ContextOverflowError(HolyClientError, ValueError):
    """Even the messages that must be kept (system messages and the latest turn) do not fit."""

    def __init__(self, message: str, *, required_tokens: int, available_tokens: int) -> None:
        super().__init__(message)
        self.required_tokens = required_tokens
        self.available_tokens = available_tokens


def truncate_text(
    text: str,
    max_tokens: int,
    model: str = "gpt-4o",
    *,
    keep: Literal["head", "tail", "both"] = "head",
    marker: str = DEFAULT_MARKER,
) -> str:
    """Shorten ``text`` to at most ``max_tokens`` tokens of ``model``, marking the cut.

    The result, counted again as a whole, is within the budget, the marker included, and holds as
    much of the text as fits. Cuts fall between characters, never inside a multi-byte one. A text
    that already fits is returned unchanged; when the budget cannot even hold the marker, the text
    is cut without one.

    Args:
        text: the text.
        max_tokens: the budget, marker included.
        model: whose tokenizer counts.
        keep: ``"head"`` keeps the start, ``"tail"`` the end, ``"both"`` the start and the end.
        marker: put where text was removed.

    Raises:
        ValueError: a negative budget or an unknown ``keep``.
    """
    if max_tokens < 0:
        raise ValueError(f"max_tokens must be >= 0, got {max_tokens}")
    if keep not in ("head", "tail", "both"):
        raise ValueError(f"keep must be 'head', 'tail' or 'both', got {keep!r}")
    enc = encoding_for_model(model)
    tokens = _tokenizer.encode(enc, text)
    if len(tokens) <= max_tokens:
        return text
    if marker and _tokenizer.exact_count(enc, marker) > max_tokens:
        marker = ""
    room = max_tokens - (_tokenizer.exact_count(enc, marker) if marker else 0)
    pieces = [enc.decode_single_token_bytes(t) for t in tokens]
    best: str | None = None
    while True:
        result = _assemble(pieces, room, keep, marker)
        over = _tokenizer.exact_count(enc, result) - max_tokens
        if over > 0:
            if best is not None or room == 0:
                return best or ""
            room = max(room - over, 0)  # re-tokenizing the joins merged differently: give back the excess
            continue
        best = result
        if over == 0 or room >= len(pieces):
            return best
        # Short of the budget (a character cut at an edge, or joins that merged): take the slack back,
        # keeping the last result that fitted if that overshoots. Each step grows ``room``, so this ends.
        room -= over


def _assemble(pieces: Sequence[bytes], room: int, keep: str, marker: str) -> str:
    if keep == "head":
        return _head(pieces, room) + marker
    if keep == "tail":
        return marker + _tail(pieces, room)
    head = (room + 1) // 2
    return _head(pieces, head) + marker + _tail(pieces, room - head)


def _head(pieces: Sequence[bytes], n: int) -> str:
    # A token can end inside a UTF-8 sequence: the incomplete character is dropped, never split.
    return b"".join(pieces[:n]).decode("utf-8", errors="ignore") if n > 0 else ""


def _tail(pieces: Sequence[bytes], n: int) -> str:
    return b"".join(pieces[len(pieces) - n :]).decode("utf-8", errors="ignore") if n > 0 else ""


def fit_messages(
    messages: Sequence[MessageLike],
    model: str,
    *,
    reserve_output: int = 1024,
    max_context: int | None = None,
    tools: Sequence[Mapping[str, Any]] | None = None,
    marker: str = DEFAULT_MARKER,
) -> list[dict[str, Any]]:
    """Return a copy of ``messages`` that fits the model's context window with room for the answer.

    System (and developer) messages and the latest turn (the last user message and everything after
    it) are always kept. Older messages go first, oldest first; the last one to go is shortened
    instead when enough of it would still fit (its start is cut, its end kept). An assistant message
    with ``tool_calls`` and the ``tool`` messages answering it are kept or dropped together. The
    input is never modified. Messages may be dicts, TypedDicts or message models (such as
    ``response.choices[0].message``); the result holds dicts, models dumped as openai-python sends them.

    Args:
        messages: the conversation.
        model: decides the tokenizer and, without ``max_context``, the context window (price table).
        reserve_output: tokens kept free for the reply.
        max_context: the context window to fit, instead of the model's.
        tools: tool definitions sent with the request (they take room too).
        marker: put where a shortened message was cut.

    Raises:
        ContextOverflowError: the system messages and the latest turn alone do not fit.
        UnknownModelError: no ``max_context`` and the model is not in the price table.
    """
    if max_context is None:
        from .pricing import lookup_model

        max_context = lookup_model(model).context_window
    available = max_context - reserve_output
    items = [copy.deepcopy(dict(message_mapping(m))) for m in messages]
    if not items:
        return []
    costs = [count_messages([m], model).tokens - 3 for m in items]
    overhead = count_messages(items, model, tools=tools).tokens - sum(costs)  # priming + tools
    total = overhead + sum(costs)
    if total <= available:
        return items

    units = _droppable_units(items)
    dropped: set[int] = set()
    shortened: dict[int, dict[str, Any]] = {}
    for unit in units:
        unit_cost = sum(costs[i] for i in unit)
        rest = total - unit_cost
        if rest <= available:
            spare = available - rest
            short = _shorten(items[unit[0]], spare, model, marker) if len(unit) == 1 else None
            if short is not None:
                shortened[unit[0]] = short
            else:
                dropped.update(unit)
            total = rest + (count_messages([short], model).tokens - 3 if short is not None else 0)
            break
        dropped.update(unit)
        total = rest
    if total > available:
        raise ContextOverflowError(
            f"The system messages and the latest turn need {total} tokens, but only {available} are "
            f"available ({max_context} context - {reserve_output} reserved for the reply). Shorten them, "
            "lower reserve_output or use a model with a larger context window.",
            required_tokens=total,
            available_tokens=available,
        )
    return [shortened.get(i, m) for i, m in enumerate(items) if i not in dropped]


def _shorten(message: Mapping[str, Any], room: int, model: str, marker: str) -> dict[str, Any] | None:
    """The message with its text content cut to fit ``room`` tokens in all, or None if not worth it."""
    content = message.get("content")
    if not isinstance(content, str) or message.get("tool_calls"):
        return None
    bare = dict(message, content="")
    budget = room - (count_messages([bare], model).tokens - 3)
    if budget - _tokenizer.exact_count(encoding_for_model(model), marker) < _MIN_USEFUL_TOKENS:
        return None
    return dict(message, content=truncate_text(content, budget, model, keep="tail", marker=marker))


def _droppable_units(items: Sequence[Mapping[str, Any]]) -> list[list[int]]:
    """Indices of the messages that may go, grouped (tool calls with their results), oldest first."""
    last_user = max((i for i, m in enumerate(items) if m.get("role") == "user"), default=len(items) - 1)
    units: list[list[int]] = []
    owner: dict[str, list[int]] = {}  # tool_call_id -> the unit of the assistant message that made it
    for i in range(last_user):
        message = items[i]
        role = message.get("role")
        if role in ("system", "developer"):
            continue
        if role == "tool" and message.get("tool_call_id") in owner:
            owner[message["tool_call_id"]].append(i)
            continue
        unit = [i]
        units.append(unit)
        for call in message.get("tool_calls") or ():
            if isinstance(call, Mapping) and isinstance(call.get("id"), str):
                owner[call["id"]] = unit
    return units
