"""A routed stream that breaks part-way, sans-IO: what its caller already has, and how the call goes on.

The router's stream step keeps the attempt loop as it is (each attempt is a target's own stream, with its
retries, span and ledger) and adds a policy for the moment a stream breaks after it was handed over --
cut, stalled, an error event, a body that ended without saying so, a chunk that cannot be read:

* **nothing of the answer reached the caller yet** (no chunk, or only the role): the next target's
  stream takes over as one stream, as a stream failing at its opening does;
* ``stream_recovery="continue"`` (the default): where the next target's model takes an **assistant
  prefill** (``Target(prefill=True)``, or the capabilities table: :func:`accepts_prefill`), the request is
  sent there again with the text already delivered as a last assistant message marked ``"prefix":
  true``; its stream continues the caller's, its role chunk left out, as **one stream**. Where the
  model does not, or when the delivered answer is not plain text of one choice (a tool call, a
  refusal, reasoning, ``n`` > 1), the answer **restarts** on the next target and the caller gets a
  :class:`~holyclient.StreamRestartError` carrying the new stream -- text of two attempts is never
  spliced into one answer. A prefill the next target refuses (a 4xx) never replaces the real error: the
  target is remembered as refusing prefills and the answer restarts on it;
* ``"restart"``: always the clean restart;
* ``"hold"``: the stream is read to its end before its first chunk is handed over (for callers that
  stream only to avoid timeouts: agents, batch jobs), so any break is recovered unseen;
* ``"off"``: no recovery: the error is raised, as a client raises it (a stream that ended early raises
  :class:`~holyclient.IncompleteStreamError`).

What is recovered from: a dropped or cut connection, a timeout (a stall), an error event that is the
target's fault (5xx, 408, 429), a stream that ended without a ``finish_reason`` or ``[DONE]``. An error
event that is the request's (a 4xx) is raised as it is. When no target is left, the error that broke
the stream is raised, with a note of what was tried.

A continuation or a restart is another request than the one that broke: it carries its own
``Idempotency-Key`` (a server that deduplicates must not answer it from the broken attempt); a stream
that takes over before any of the answer was delivered is the same request, with the same key.

Money: every attempt settles its own ledger through its own stream's meter -- the broken one as a
stream cut part-way (its outcome unknown: uncertain spend), the continuation by the usage it reports
(its prompt holds the delivered text) -- so each attempt is counted once, on the target that served it.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from .._exceptions import (
    APIConnectionError,
    APIResponseValidationError,
    APIStatusError,
    IncompleteStreamError,
    StreamRestartError,
)
from ._select import FAILOVER_STATUSES, context_overflow

if TYPE_CHECKING:
    from .._core import RequestOptions
    from ._core import Routing
    from ._target import Target

RecoveryMode = Literal["continue", "restart", "hold", "off"]
RECOVERY_MODES: tuple[RecoveryMode, ...] = ("continue", "restart", "hold", "off")

#: How the next attempt takes over: as one stream (nothing of the answer was delivered yet), continuing
#: the delivered text through a prefill, or restarting the answer.
Takeover = Literal["seamless", "continue", "restart"]

#: (target name, model) pairs that answered a prefill with a 4xx: not sent one again (bounded).
_REFUSED_PREFILL: set[tuple[str, str]] = set()
_REFUSED_LOCK = threading.Lock()
_REFUSED_KEPT = 1024


def recoverable(exc: BaseException) -> bool:
    """Whether a stream that broke with ``exc`` may be taken over by another target."""
    if isinstance(exc, APIConnectionError):  # cut, dropped, stalled, ended early
        return True
    if isinstance(exc, APIStatusError):  # an error event part-way: the target's fault, or the request's
        status = exc.status_code or 0
        return status >= 500 or status in FAILOVER_STATUSES
    return isinstance(exc, APIResponseValidationError)  # a chunk that could not be read


def accepts_prefill(target: Target, model: str | None) -> bool:
    """Whether ``target``'s ``model`` continues an assistant prefill: the target's declaration, else the
    capabilities table's ``assistant_prefill`` row for the model's family (no row: no); a target that
    refused one in this process is not asked again."""
    if target.prefill is not None:
        return target.prefill
    if model is None:
        return False
    with _REFUSED_LOCK:
        if (target.name, model) in _REFUSED_PREFILL:
            return False
    from .._parsing import table_features

    row = table_features(model).get("assistant_prefill")
    return row is not None and row.get("support") == "supported"


def refused_prefill(target: Target, model: str | None) -> None:
    """Remember that ``target`` refused a prefill for ``model`` (for the rest of the process)."""
    if model is None or target.prefill is True:
        return
    with _REFUSED_LOCK:
        if len(_REFUSED_PREFILL) >= _REFUSED_KEPT:
            _REFUSED_PREFILL.clear()
        _REFUSED_PREFILL.add((target.name, model))


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)


def role_only(item: Any) -> bool:
    """Whether a chunk carries nothing but the assistant's role (a continuation's first chunk, left out)."""
    choices = getattr(item, "choices", None)
    if not choices or getattr(item, "usage", None) is not None:
        return False
    for choice in choices:
        if _get(choice, "finish_reason") is not None:
            return False
        delta = _get(choice, "delta")
        if delta is None:
            return False
        for name in ("content", "tool_calls", "refusal", "reasoning_content", "function_call", "audio"):
            if _get(delta, name):
                return False
    return True


class Delivered:
    """What a routed stream handed its caller so far: the answer's text, and whether anything a prefill
    cannot carry was handed over too (a tool call, a refusal, reasoning, a second choice, an event of
    another API)."""

    __slots__ = ("chunks", "other", "parts")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.other = False
        self.chunks = 0

    def see(self, item: Any) -> None:
        self.chunks += 1
        choices = getattr(item, "choices", None)
        if choices is None:  # not a chat chunk: a Responses event's text cannot be continued here
            if getattr(item, "type", None) not in (None, "response.created", "response.in_progress"):
                self.other = True
            return
        for choice in choices:
            if _get(choice, "index"):
                self.other = True
            delta = _get(choice, "delta")
            if delta is None:  # a legacy completion's text: its prompt is not messages
                if _get(choice, "text"):
                    self.other = True
                continue
            content = _get(delta, "content")
            if content:
                self.parts.append(content)
            for name in ("tool_calls", "refusal", "reasoning_content", "function_call", "audio"):
                if _get(delta, name):
                    self.other = True

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def nothing(self) -> bool:
        """Nothing of the answer was handed over (no chunk, or only the role)."""
        return not self.parts and not self.other


def continuation(options: RequestOptions, text: str) -> RequestOptions:
    """``options`` (prepared for the next target) asking its model to continue ``text``: the delivered
    answer as a last assistant message marked ``"prefix": true``, and an output cap lowered by what was
    already said."""
    body = dict(options.body or {})
    messages = list(body.get("messages") or ())
    body["messages"] = [*messages, {"role": "assistant", "content": text, "prefix": True}]
    model = body.get("model")
    for cap in ("max_tokens", "max_completion_tokens"):
        limit = body.get(cap)
        if isinstance(limit, int) and not isinstance(limit, bool) and isinstance(model, str):
            from ..tokens import count_tokens

            body[cap] = max(1, limit - count_tokens(text, model).tokens)
    return options.with_body(body)


def _fresh_key(options: RequestOptions) -> RequestOptions:
    """``options`` with a new ``Idempotency-Key``: a continuation (another body) or a restart (after an
    answer that broke) must not be answered from the broken attempt by a server that deduplicates."""
    from .._send import with_idempotency_key

    extra = {k: v for k, v in (options.extra_headers or {}).items() if k.lower() != "idempotency-key"}
    return with_idempotency_key(options.replaced(extra_headers=extra or None))


class Recovery:
    """One routed stream's recovery (see the module docstring): the sync and async streams ask it what
    to do, open what it says, and tell it how the opening went.

    Args:
        routing: the request's way through its targets (shared with the streams it restarts).
        mode: the router's ``stream_recovery``.
    """

    def __init__(self, routing: Routing, mode: str) -> None:
        self.routing = routing
        self.mode = mode
        self.delivered = Delivered()
        self.recovered: list[BaseException] = []
        #: The next chunks that carry only the role are left out (the caller has its role chunk).
        self.skip_role = False
        self._failure: BaseException | None = None
        self._kind: Takeover = "seamless"
        self._given = ""  # what the broken stream had delivered, when the answer restarts
        self._no_prefill: set[str] = set()  # targets that refused this call's prefill
        #: Events skipped (not valid JSON) by the target streams read so far.
        self.malformed = 0
        #: The target stream counted last (its count is in ``malformed``).
        self.last_read: Any = None

    def read(self, stream: Any) -> None:
        """A target's stream was read (to its end, or until it broke): its skipped events are counted
        on its target."""
        self.last_read = stream
        count = getattr(stream, "malformed_events", 0)
        if count:
            self.malformed += count
            self.routing.malformed(count)

    @property
    def holds(self) -> bool:
        return self.mode == "hold"

    def ended_early(self, stream: Any) -> IncompleteStreamError:
        """The error of a target's stream whose body ended without saying so."""
        request = getattr(getattr(stream, "response", None), "request", None)
        return IncompleteStreamError(
            "The stream ended without a finish_reason or [DONE]: its answer is incomplete.",
            request=request,
            text=self.delivered.text,
        )

    def broke(self, failure: BaseException) -> None:
        """The current target's stream broke with ``failure``: record it; raise it when the call cannot
        go on (``"off"``, or a failure that is the request's)."""
        self.routing.broke(failure)
        if self.mode == "off" or not recoverable(failure):
            raise failure
        self._failure = failure
        if self.holds:  # nothing was handed over: the held chunks are dropped, the next stream starts over
            self.delivered = Delivered()

    def next(self) -> tuple[Target, RequestOptions]:
        """The next target and what to send it: the request again (the caller has nothing of the answer,
        or the answer restarts), or its continuation.

        Raises:
            BaseException: the failure that broke the stream, noted with what was tried, when no target
                is left.
        """
        failure = self._failure
        assert failure is not None
        try:
            target, prepared = self.routing.next()
        except Exception as exhausted:
            for note in getattr(exhausted, "__notes__", ()):
                if note.startswith("holyclient.Router tried:"):
                    failure.add_note(note)
            raise failure from None
        delivered = self.delivered
        if delivered.nothing:
            self._kind = "seamless"
        elif (
            self.mode == "continue"
            and not delivered.other
            and (prepared.body or {}).get("n", 1) in (1, None)
            and target.name not in self._no_prefill
            and accepts_prefill(target, target.model_of(prepared))
        ):
            self._kind = "continue"
            prepared = continuation(prepared, delivered.text)
        else:
            self._kind = "restart"
        if self._kind != "seamless":  # another request than the one that broke: its own idempotency key
            prepared = _fresh_key(prepared)
        return target, prepared

    def opening_failed(self, exc: BaseException) -> None:
        """The next target's stream did not open: go on to another target (return), or raise the
        failure that broke the stream, never the fallback's error in its place."""
        failure = self._failure
        assert failure is not None
        routing = self.routing
        target = routing.target
        if (
            self._kind == "continue"
            and target is not None
            and isinstance(exc, APIStatusError)
            and exc.status_code in (400, 422)
            and context_overflow(exc) is None
        ):  # the prefill refused: the answer restarts on the same target, which is healthy
            model = target.model_of(routing.prepared)
            self._no_prefill.add(target.name)
            refused_prefill(target, model)
            routing.refused(exc, "prefill refused")
            return
        try:
            routing.failed(exc)
        except BaseException as final:
            failure.add_note(
                f"holyclient.Router: recovering the stream on {target.name if target else '?'} failed too: "
                f"{type(final).__name__}: {final}"
            )
            raise failure from None

    def opened(self, stream: Any) -> Takeover:
        """The next target's stream opened: how it takes over (``"restart"``: raise :meth:`restart`)."""
        failure = self._failure
        assert failure is not None
        self.routing.succeeded(stream)
        self.recovered.append(failure)
        kind = self._kind
        if kind == "restart":
            self._given = self.delivered.text
            self.delivered = Delivered()
            self.skip_role = False
        else:
            self.skip_role = self.delivered.chunks > 0  # the caller has the role (and any text) already
        return kind

    def restart(self, stream: Any) -> StreamRestartError:
        """The signal of an answer restarted on the current target: ``stream`` reads it from its start."""
        failure = self._failure
        assert failure is not None and self.routing.target is not None
        name = self.routing.target.name
        error = StreamRestartError(
            f"The stream broke part-way ({type(failure).__name__}: {failure}) and the answer restarted on "
            f"{name}: read StreamRestartError.stream from its beginning.",
            stream=stream,
            cause=failure,
            text=self._given,
            target=name,
        )
        error.__cause__ = failure
        return error
