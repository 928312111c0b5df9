"""Charging streamed generations, sans-IO: what to ask the server for, and what a stream cost.

A stream of an endpoint that declares how its streams report usage (its
:class:`~holyclient.pricing._charging.Charging`'s ``stream``) is charged like any other call, whatever
way the stream ends:

* A chat completion or completion stream asks the server for usage (``stream_options:
  {"include_usage": true}``) unless the caller set ``stream_options`` themselves or reads the raw
  bytes. The extra final chunk that carries it (empty ``choices``) is then hidden from the caller, who
  did not ask for it. The Responses API always reports usage in its ``response.completed`` event.
* When the stream ends with the server's usage, that usage is charged. When it ends without (the caller
  left early, the stream was dropped unclosed, or the server ignores ``stream_options``) the tokens are
  counted locally: the prompt from the request, the completion from the text seen so far (only the
  events the endpoint declares as text: a Responses stream's base64 audio is not text); the record is
  marked approximate.
* A stream left before its end (closed early, or dropped unclosed) is settled at what was read, but the
  server bills what it generated until it noticed the caller had gone, which may be all of it: that
  settlement is a *lower bound*, and the rest of what the request held (or, without a budget, would
  have held) is counted as uncertain spend (:meth:`~holyclient.pricing._ledger.Ledger.left_early`).
* When the connection drops mid-stream, the outcome is unknown (the server may have gone on generating
  and billing): the attempt's hold is kept as uncertain spend.
* A stream whose first event is the server's error generated nothing: it is charged nothing.

:class:`StreamMeter` watches the parsed chunks (:meth:`~StreamMeter.observe`) and settles the attempt's
:class:`~holyclient.pricing._ledger.Ledger` once (:meth:`~StreamMeter.finish`); a stream
garbage-collected unclosed calls :meth:`~StreamMeter.abandon`, which only queues the settlement (see
:mod:`holyclient.pricing._tracker`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol

from .._constants import LOGGER_NAME
from ._billed import Progress, progress_of

if TYPE_CHECKING:
    from ._charging import Charging
    from ._ledger import Ledger

__all__ = ["StreamMeter", "ask_for_usage"]

logger = logging.getLogger(LOGGER_NAME)

#: Responses API events that end a response and carry its usage.
_RESPONSE_END = frozenset({"response.completed", "response.incomplete", "response.failed"})
#: Responses API events that carry the response, which says where it stands (a background response's
#: id, status and ``background`` flag: see :meth:`~holyclient.pricing._ledger.Ledger.defer`).
_RESPONSE_STATE = _RESPONSE_END | {"response.created", "response.queued", "response.in_progress"}

#: ``refused``: the stream opened with an error event and was given up unread (nothing generated).
Outcome = Literal["complete", "early", "unknown", "refused"]


class StreamWatch(Protocol):
    """What follows a stream besides its charge (the call's OpenTelemetry span)."""

    def chunk(self, item: Any) -> None: ...

    def ended(self, outcome: str, usage: Any, approximate: bool, error: BaseException | None) -> None: ...


def ask_for_usage(
    charging: Charging, body: Mapping[str, Any] | None, *, raw_bytes: bool = False
) -> tuple[Mapping[str, Any] | None, bool]:
    """The body to send for a streaming request, and whether to hide the usage-only chunk it adds.

    ``stream_options`` is added only for an endpoint whose streams report usage only when asked, and
    only when the caller did not set it (to anything, ``None`` included): an explicit choice is theirs,
    and they then see every chunk the server sends. A caller reading the raw bytes (``raw_bytes``:
    ``with_streaming_response``) gets nothing added either, since no chunk can be hidden from bytes: the
    stream is then charged by counting locally.
    """
    if body is None or raw_bytes or charging.stream != "ask" or "stream_options" in body:
        return body, False
    return {**body, "stream_options": {"include_usage": True}}, True


def part_texts(content: Any) -> list[str]:
    """The text of a content given as parts (``[{"type": "text", "text": ...}, {"type": "thinking",
    "thinking": [...]}]``, nested or not), in order: what the answer's tokens were spent on."""
    if isinstance(content, str):
        return [content]
    texts: list[str] = []
    if isinstance(content, list):
        for part in content:
            texts.extend(part_texts(part))
    elif isinstance(content, Mapping):
        for key in ("text", "thinking", "content"):
            if key in content:
                texts.extend(part_texts(content[key]))
    return texts


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


class StreamMeter:
    """One stream's charge: the usage the server reported, else the text seen, settled once on the
    attempt's ledger.

    Args:
        ledger: the attempt's ledger (the meter takes it over: nothing else settles it).
        hide_usage_chunk: hide the usage-only final chunk (the caller did not ask for it).
        watch: told of every chunk and of how the stream was settled (the call's span, when traced).
    """

    __slots__ = (
        "_done",
        "_hide",
        "_ledger",
        "_model",
        "_pieces",
        "_progress",
        "_text_events",
        "_usage",
        "_watch",
    )

    def __init__(self, ledger: Ledger, *, hide_usage_chunk: bool, watch: StreamWatch | None = None) -> None:
        self._ledger = ledger
        self._text_events = ledger.charging.text_events
        self._hide = hide_usage_chunk
        self._model: str | None = None
        self._usage: Any = None
        self._pieces: list[str] = []
        self._done = False
        self._watch = watch
        self._progress: Progress | None = None

    @property
    def usage(self) -> Any:
        """The usage the server reported so far (None until it does), also when the chunk that carried
        it was hidden from the caller."""
        return self._usage

    def observe(self, item: Any) -> bool:
        """Note what a parsed chunk or event says about usage; return whether the caller should see it.

        This runs on every chunk of every stream, so it reads attributes directly (items are models).
        """
        if self._watch is not None:
            self._watch.chunk(item)
        usage = getattr(item, "usage", None)
        choices = getattr(item, "choices", None)
        if usage is not None:
            self._usage = usage
            self._model = getattr(item, "model", None) or self._model
            if self._hide and not choices:
                return False
        elif self._hide:
            # Asked for usage, the server puts ``"usage": null`` on every chunk; the caller did not ask,
            # and openai's caller never sees that key: unset it so ``to_dict()`` / ``to_json()`` omit it.
            fields_set = getattr(item, "__pydantic_fields_set__", None)
            if fields_set is not None:
                fields_set.discard("usage")
        if choices:
            pieces = self._pieces
            for choice in choices:
                delta = getattr(choice, "delta", None)
                if delta is None:  # legacy completions carry ``text``
                    text = getattr(choice, "text", None)
                    if text:
                        pieces.append(text)
                    continue
                text = getattr(delta, "content", None)
                if text:
                    if isinstance(text, str):
                        pieces.append(text)
                    else:  # a list of parts (Mistral's Magistral: text and thinking parts)
                        pieces.extend(part_texts(text))
                text = getattr(delta, "refusal", None)
                if text:
                    pieces.append(text)
                calls = getattr(delta, "tool_calls", None)
                if calls:
                    for call in calls:
                        function = _get(call, "function")
                        if function is not None:
                            pieces.extend(
                                t for t in (_get(function, "name"), _get(function, "arguments")) if t
                            )
        elif usage is None:
            kind = getattr(item, "type", None)
            if isinstance(kind, str):
                if kind in self._text_events:
                    delta = getattr(item, "delta", None)
                    if isinstance(delta, str):
                        self._pieces.append(delta)
                elif kind in _RESPONSE_STATE:
                    response = getattr(item, "response", None)
                    self._progress = progress_of(response)
                    if kind in _RESPONSE_END:
                        self._usage = _get(response, "usage") or self._usage
                        self._model = _get(response, "model") or self._model
        return True

    def finish(self, outcome: Outcome, error: BaseException | None = None) -> None:
        """Settle the stream's charge, once; later calls do nothing. ``error``: what ended it, if anything."""
        if self._done:
            return
        self._done = True
        self._charge(outcome, error)

    def abandon(self) -> None:
        """Settle a stream dropped unclosed: queued, since the garbage collector may hold any lock."""
        if self._done:
            return
        self._done = True
        self._ledger.tracker.settle_later(lambda: self._charge("early"))

    def _charge(self, outcome: Outcome, error: BaseException | None = None) -> None:
        ledger = self._ledger
        usage, approximate = self._usage, False
        progress = self._progress
        if usage is not None:
            ledger.settle(self._model, usage, progress=progress)
        elif outcome == "refused":
            ledger.refused()  # nothing generated: nothing to charge
        elif progress is not None and ledger.defer(progress):
            pass  # a background response left before its end runs on: held until it is collected
        elif outcome == "unknown":
            ledger.uncertain()  # the wire failed mid-stream: the server may have gone on and billed
        elif outcome == "early":  # left before the end: the server billed what it generated meanwhile
            usage, approximate = self._local_usage(), True
            ledger.left_early(self._model, usage)
        else:
            usage, approximate = self._local_usage(), True
            ledger.settle(self._model, usage, approximate=True)
        if self._watch is not None:
            self._watch.ended(outcome, usage, approximate, error)

    def _local_usage(self) -> dict[str, int] | None:
        """Prompt tokens from the request, completion tokens from the text seen; None if uncountable."""
        body = self._ledger.body or {}
        model = body.get("model")
        if not isinstance(model, str) or not model:
            return None
        from ..tokens import count_tokens

        prompt = self._ledger.prompt_tokens()
        if prompt is None:
            logger.debug("Could not count the prompt of a stream that reported no usage")
            prompt = 0
        from ..tokens import without_waiting

        with without_waiting():
            completion = count_tokens("".join(self._pieces), model).tokens if self._pieces else 0
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
