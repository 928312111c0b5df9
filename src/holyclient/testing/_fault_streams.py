"""How the local server acts out the faults of a stream that misbehaves after it started (or before its
first event): a slow first event, a stall, one malformed event, a stream that ends early.

``stream_cut``, ``stream_error`` and ``malformed`` are acted out in :mod:`._app_core`; these four are
here, beside it, so that the request path stays as it was for the others. Two are instant (the event
list is changed: :func:`faulted_events`), two take time (:func:`play_timed`, run as the request's task).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

from ._faults import MAX_HANG_SECONDS, Fault

if TYPE_CHECKING:
    from ._config import ServerConfig
    from ._exchange import Exchange


class Server(Protocol):
    """What acting a fault out needs of the server (:class:`~._app_core.AppCore` is one)."""

    in_flight: int
    config: ServerConfig

    def _latency(self) -> float: ...

    def _act(self, ex: Exchange, fault: Fault | None) -> None: ...

    def _json_answer(self, ex: Exchange) -> tuple[bytes, list[tuple[str, str]]]: ...

    def _count(self, ex: Exchange, status: int) -> None: ...

    def _events(self, ex: Exchange) -> list[bytes]: ...

    def _stream_head(self, ex: Exchange) -> list[tuple[str, str]]: ...


#: Faults that take time: the request is answered from a task (:func:`play_timed`).
TIMED = frozenset({"slow_first_event", "stall"})
#: Faults that change the event list of a stream (:func:`faulted_events`).
EVENT_FAULTS = frozenset({"malformed_event", "ends_early"})

#: What a garbled event looks like: the start of a chunk, cut inside its JSON.
MALFORMED_EVENT = b'data: {"id": "chatcmpl-garbled", "object": "chat.completion.chunk", "choices": [{\n\n'
#: The keep-alive comment relays send while a model has not answered yet.
KEEPALIVE = b": PROCESSING\n\n"


def ending_index(events: list[bytes]) -> int:
    """The index of the first event that says the answer ended: a ``finish_reason`` that is not null, a
    Responses ``response.completed`` (or ``incomplete`` / ``failed``), or ``[DONE]``."""
    for i, event in enumerate(events):
        if event.startswith(b"data: [DONE]") or (
            b'"type":"response.' in event
            and (
                b"response.completed" in event
                or b"response.incomplete" in event
                or b"response.failed" in event
            )
        ):
            return i
        at = event.find(b'"finish_reason":')
        if at >= 0 and not event[at + 16 :].lstrip().startswith(b"null"):
            return i
    return len(events)


def faulted_events(events: list[bytes], fault: Fault) -> list[bytes]:
    """The events of a stream under an instant stream fault (see :data:`EVENT_FAULTS`)."""
    if fault.kind == "malformed_event":
        at = min(max(fault.after_chunks, 0), len(events) - 1)
        return [*events[:at], MALFORMED_EVENT, *events[at:]]
    if fault.kind == "ends_early":  # cleanly, before any event that says the answer ended
        return events[: min(max(fault.after_chunks, 0), ending_index(events))]
    return events


async def _silence(ex: Exchange, seconds: float, comments_every: float) -> None:
    """Wait ``seconds``, sending a keep-alive comment every ``comments_every`` seconds if asked."""
    if comments_every <= 0:
        await asyncio.sleep(seconds)
        return
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while (left := end - loop.time()) > 0:
        await asyncio.sleep(min(comments_every, left))
        if loop.time() < end:
            ex.conn.send_data(KEEPALIVE)


async def play_timed(app: Server, ex: Exchange, fault: Fault) -> None:
    """Act out a fault that takes time (:data:`TIMED`), after the server's latency."""
    app.in_flight += 1
    try:
        await asyncio.sleep(app._latency())
        seconds = min(fault.seconds, app.config.max_hang, MAX_HANG_SECONDS)
        if not ex.stream:
            if fault.kind == "slow_first_event":
                await asyncio.sleep(seconds)
                app._act(ex, None)
            else:  # a stall: half the body, then silence, then the connection closes
                body, headers = app._json_answer(ex)
                app._count(ex, 200)
                ex.conn.send_partial(200, headers, body, len(body) // 2, close=False)
                await asyncio.sleep(seconds)
                ex.conn.close()
            return
        events = app._events(ex)
        chunked = ex.req.version == "HTTP/1.1"
        ex.conn.start_stream(200, app._stream_head(ex), chunked=chunked)
        if fault.kind == "slow_first_event":
            await _silence(ex, seconds, fault.comments_every)
            for event in events:
                ex.conn.send_data(event)
            ex.conn.end_stream(keep_alive=ex.req.keep_alive)
            return
        before = min(max(fault.after_chunks, 0), ending_index(events))
        for event in events[:before]:
            ex.conn.send_data(event)
        await _silence(ex, seconds, fault.comments_every)
        ex.conn.close()  # never ended: the stream was cut after its silence
    finally:
        app.in_flight -= 1
