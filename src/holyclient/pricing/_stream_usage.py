"""Charging streamed generations, sans-IO: what to ask the server for, and what a stream cost.

A streamed chat completion, completion or response is charged like any other call, whatever way the
stream ends:

* The request asks the server for usage in the stream (``stream_options: {"include_usage": true}``)
  unless the caller set ``stream_options`` themselves or reads the raw bytes. The extra final chunk that carries it (empty
  ``choices``) is then hidden from the caller, who did not ask for it. The Responses API always reports
  usage in its ``response.completed`` event: nothing to ask.
* When the stream ends with the server's usage, that usage is charged. When it ends without (the caller
  left early, the stream was dropped unclosed, or the server ignores ``stream_options``) the tokens are
  counted locally: the prompt from the request, the completion from the text seen so far; the record is
  marked approximate.
* When the connection drops mid-stream, the outcome is unknown (the server may have gone on generating
  and billing): with a budget, the reservation is kept as spent and counted as uncertain.

:class:`StreamMeter` watches the parsed chunks (:meth:`~StreamMeter.observe`) and settles the usage
tracker once (:meth:`~StreamMeter.finish`); a stream garbage-collected unclosed calls
:meth:`~StreamMeter.abandon`, which only queues the settlement (see :mod:`holyclient.pricing._tracker`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol

from .._constants import LOGGER_NAME

if TYPE_CHECKING:
    from ._tracker import Reservation, UsageTracker

__all__ = ["CHARGED_PATHS", "StreamMeter", "ask_for_usage"]

logger = logging.getLogger(LOGGER_NAME)

#: Endpoints whose calls generate tokens, and so are reserved against the budget and charged.
CHARGED_PATHS = frozenset({"/chat/completions", "/completions", "/responses"})

#: Endpoints that report usage in a stream only when asked with ``stream_options.include_usage``.
_ASK_PATHS = frozenset({"/chat/completions", "/completions"})

#: Responses API events that end a response and carry its usage.
_RESPONSE_END = frozenset({"response.completed", "response.incomplete", "response.failed"})

#: ``refused``: the stream opened with an error event and was given up unread (nothing generated).
Outcome = Literal["complete", "early", "unknown", "refused"]


class StreamWatch(Protocol):
    """What follows a stream besides its charge (the call's OpenTelemetry span)."""

    def chunk(self, item: Any) -> None: ...

    def ended(self, outcome: str, usage: Any, approximate: bool, error: BaseException | None) -> None: ...


def ask_for_usage(
    path: str, body: Mapping[str, Any] | None, *, raw_bytes: bool = False
) -> tuple[Mapping[str, Any] | None, bool]:
    """The body to send for a streaming request, and whether to hide the usage-only chunk it adds.

    ``stream_options`` is added only when the caller did not set it (to anything, ``None`` included):
    an explicit choice is theirs, and they then see every chunk the server sends. A caller reading the
    raw bytes (``raw_bytes``: ``with_streaming_response``) gets nothing added either, since no chunk can
    be hidden from bytes: the stream is then charged by counting locally.
    """
    if body is None or raw_bytes or path not in _ASK_PATHS or "stream_options" in body:
        return body, False
    return {**body, "stream_options": {"include_usage": True}}, True


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


class StreamMeter:
    """One stream's charge: the usage the server reported, else the text seen, settled once.

    Args:
        tracker: the client's usage tracker.
        reservation: the budget reservation of the request (None without a budget).
        body: the request body as sent.
        hide_usage_chunk: hide the usage-only final chunk (the caller did not ask for it).
        watch: told of every chunk and of how the stream was settled (the call's span, when traced).
    """

    __slots__ = (
        "_body",
        "_done",
        "_hide",
        "_model",
        "_pieces",
        "_reservation",
        "_tracker",
        "_usage",
        "_watch",
    )

    def __init__(
        self,
        tracker: UsageTracker,
        reservation: Reservation | None,
        body: Mapping[str, Any] | None,
        *,
        hide_usage_chunk: bool,
        watch: StreamWatch | None = None,
    ) -> None:
        self._tracker = tracker
        self._reservation = reservation
        self._body = body or {}
        self._hide = hide_usage_chunk
        self._model: str | None = None
        self._usage: Any = None
        self._pieces: list[str] = []
        self._done = False
        self._watch = watch

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
                    pieces.append(text)
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
                if kind.endswith(".delta"):
                    delta = getattr(item, "delta", None)
                    if isinstance(delta, str):
                        self._pieces.append(delta)
                elif kind in _RESPONSE_END:
                    response = getattr(item, "response", None)
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
        self._tracker.settle_later(lambda: self._charge("early"))

    def _charge(self, outcome: Outcome, error: BaseException | None = None) -> None:
        tracker, reservation = self._tracker, self._reservation
        usage, approximate = self._usage, False
        if usage is not None:
            self._settle(usage, approximate=False)
        elif outcome == "refused":
            if reservation is not None:
                tracker.settle(reservation, None)  # the hold is released: nothing to charge
        elif outcome == "unknown" and reservation is not None:
            tracker.settle_uncertain(reservation)
        else:
            usage, approximate = self._local_usage(), True
            self._settle(usage, approximate=True)
        if self._watch is not None:
            self._watch.ended(outcome, usage, approximate, error)

    def _settle(self, usage: dict[str, int] | Any, *, approximate: bool) -> None:
        if self._reservation is not None:
            self._tracker.settle(self._reservation, usage, approximate=approximate)
            return
        model = self._model or self._body.get("model")
        if isinstance(model, str) and model and usage is not None:
            self._tracker.record(model, usage, approximate=approximate)

    def _local_usage(self) -> dict[str, int] | None:
        """Prompt tokens from the request, completion tokens from the text seen; None if uncountable."""
        model = self._body.get("model")
        if not isinstance(model, str) or not model:
            return None
        from ..tokens import count_request, count_tokens

        prompt = self._reservation.prompt_tokens if self._reservation is not None else None
        if prompt is None:
            try:
                prompt = count_request(self._body).tokens
            except (TypeError, ValueError) as exc:  # a body we cannot count: charge what we can
                logger.debug("Could not count the prompt of a stream that reported no usage: %s", exc)
                prompt = 0
        completion = count_tokens("".join(self._pieces), model).tokens if self._pieces else 0
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
