"""A stream's two deadlines, sans-IO: how long until its first event, how long between two events.

The read timeout bounds a wait for *bytes*: a relay that sends a keep-alive comment (``: PROCESSING``)
every few seconds resets it forever, and its default (600 s) is long. These two bound a wait for
*events* (``data:`` lines; comments do not count):

* ``first_event_timeout`` -- from the request being sent until its stream's first event. Nothing has
  reached the caller yet, so passing it is a timeout like any other: the attempt is retried, or a
  Router sends the call to its next target.
* ``stream_idle_timeout`` -- the longest a read waits for the next event once the stream has started
  (the caller's own time between reads does not count). The caller holds part of an answer: a client
  raises :class:`~holyclient.StreamIdleTimeoutError`; a Router takes the stream over on another target.

:class:`EventClock` is the clock both readers keep (one object per attempt, a few attribute writes per
chunk); the sync and async shells (``holyclient._send._stream_deadlines``) only look at it and interrupt the
read when :meth:`EventClock.due` says a limit passed. Nothing here reads a clock or sleeps.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._constants import (
    DEFAULT_FIRST_EVENT_TIMEOUT,
    DEFAULT_STREAM_IDLE_TIMEOUT,
    REASONING_FIELDS,
    REASONING_MODEL_PREFIXES,
    REASONING_STREAM_TIMEOUT,
)
from .._exceptions import APITimeoutError, FirstEventTimeoutError, StreamIdleTimeoutError
from ._redact import redacted_request
from ._request import omitted

__all__ = ["EventClock", "reasons_silently", "stream_limits"]


def reasons_silently(body: Mapping[str, Any] | None) -> bool:
    """Whether a request's model may think in silence before its events: a reasoning model by name, or
    a request that asks for reasoning or thinking."""
    if not body:
        return False
    for name in REASONING_FIELDS:
        if body.get(name) is not None:
            return True
    model = body.get("model")
    return isinstance(model, str) and model.lower().rsplit("/", 1)[-1].startswith(REASONING_MODEL_PREFIXES)


def _seconds(value: Any, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{name} must be a number of seconds above 0, or None for no limit; got {value!r}")
    return float(value)


def stream_limits(
    first_event_timeout: Any, stream_idle_timeout: Any, body: Mapping[str, Any] | None
) -> tuple[float | None, float | None]:
    """The two limits of one streamed request: as given (``None``: no limit), or not given (``NOT_GIVEN``)
    the defaults -- 60 s each, or 600 s each for a model that may think silently (:func:`reasons_silently`).

    Raises:
        ValueError: a limit that is not a number of seconds above 0 (or None).
    """
    silent = reasons_silently(body)
    if omitted(first_event_timeout):
        first: float | None = REASONING_STREAM_TIMEOUT if silent else DEFAULT_FIRST_EVENT_TIMEOUT
    else:
        first = _seconds(first_event_timeout, "first_event_timeout")
    if omitted(stream_idle_timeout):
        idle: float | None = REASONING_STREAM_TIMEOUT if silent else DEFAULT_STREAM_IDLE_TIMEOUT
    else:
        idle = _seconds(stream_idle_timeout, "stream_idle_timeout")
    return first, idle


class EventClock:
    """One stream attempt's clock: which wait is under way, since when, and whether a shell ended it.

    The readers write two attributes: ``since`` (when the current wait for an event began; None while
    the caller holds the stream between reads) and ``seen`` (the first event arrived). The shells read
    :meth:`due` and, when a limit passed, set ``fired`` and interrupt the read; the reader then raises
    :meth:`error` in place of what the interrupted read raised.
    """

    __slots__ = ("fired", "first_event", "idle", "request", "seen", "since", "stopped", "task")

    def __init__(
        self, first_event: float | None, idle: float | None, started: float, request: Any = None
    ) -> None:
        self.first_event = first_event
        self.idle = idle
        self.since: float | None = started
        self.seen = False
        self.fired = False
        self.stopped = False
        self.request = request
        #: The task reading the stream (async only): the one a passed limit cancels.
        self.task: Any = None

    @property
    def limit(self) -> float | None:
        """The limit of the wait under way (or the next one): the first event's, then the idle one."""
        return self.idle if self.seen else self.first_event

    @property
    def unlimited(self) -> bool:
        """Whether neither limit applies (no shell need watch this stream)."""
        return self.first_event is None and self.idle is None

    def due(self, now: float) -> float | None:
        """Seconds until the wait under way passes its limit (0 or less: passed); None when no wait is
        under way (the caller holds the stream) or it has no limit."""
        since, limit = self.since, self.limit
        if since is None or limit is None or self.stopped:
            return None
        return since + limit - now

    def recheck(self) -> float | None:
        """When a shell should look again at a stream no wait of which is under way: the shortest limit
        (None: never, the stream has ended or no limit is left)."""
        if self.stopped:
            return None
        limits = [limit for limit in (self.idle if self.seen else self.first_event, self.idle) if limit]
        return min(limits) if limits else None

    def error(self) -> APITimeoutError:
        """The error of the limit that passed (the first event's until one arrived)."""
        request = redacted_request(self.request) if self.request is not None else None
        if self.seen:
            assert self.idle is not None
            idle = self.idle
            return StreamIdleTimeoutError(
                f"The stream sent no event for stream_idle_timeout={idle:g}s: its answer is incomplete.",
                seconds=idle,
                request=request,
            )
        first = self.first_event
        assert first is not None
        return FirstEventTimeoutError(
            f"No stream event arrived within first_event_timeout={first:g}s.", seconds=first, request=request
        )
