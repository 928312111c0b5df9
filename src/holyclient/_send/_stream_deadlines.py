"""The shells that keep a stream to its deadlines (:class:`~holyclient._core._event_clock.EventClock`).

A read cannot be bounded from inside it, so something else watches the clock and interrupts the read
when a limit passed; the reader then raises the clock's error in place of what the interrupted read
raised. Nothing is added to a healthy chunk's read but two attribute writes (the clock's ``since``).

* sync: one daemon thread for the process (:class:`_Watchdog`) looks at each watched clock when its
  limit would pass, and shuts the stream's socket down (through httpcore's documented
  ``network_stream`` response extension): the blocked read returns at once. A transport without a
  socket (``httpx2.MockTransport``, respx) is interrupted at its next chunk instead.
* async: a timer on the event loop (``call_later``) cancels the task waiting in the read, as
  ``asyncio.timeout`` does, and the reader turns the cancellation into the clock's error.

Both wrap whatever iterates the body's chunks (:func:`first_event_within` / :func:`afirst_event_within`
for the first event, ``_items`` / ``_aitems`` in :mod:`._streaming` for the rest), so a different
transport underneath changes nothing here.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import os
import socket
import threading
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import suppress
from typing import Any

from .._core import EventClock
from ._chunk_reads import cancelled_by
from ._streaming import afirst_event, first_event

__all__ = ["afirst_event_within", "awatch", "first_event_within", "watch"]


def _next_look(clock: EventClock, now: float) -> float | None:
    """When to look at ``clock`` again (monotonic seconds), or None: never (ended, or no limit). At the
    latest after the shortest limit: a wait may end and a shorter one begin (the first event came, and
    the idle limit is shorter) without the watcher being told."""
    due, shortest = clock.due(now), clock.recheck()
    waits = [max(wait, 0.0) for wait in (due, shortest) if wait is not None]
    return now + min(waits) if waits else None


def _passed(clock: EventClock, now: float) -> bool:
    due = clock.due(now)
    return due is not None and due <= 0


class _Watchdog:
    """One thread for the process: a heap of (when to look, clock, how to interrupt its read)."""

    def __init__(self) -> None:
        self._forget()
        if hasattr(os, "register_at_fork"):  # a forked child has no thread: it starts its own
            os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        self._ready = threading.Condition()
        self._heap: list[tuple[float, int, EventClock, Callable[[], None]]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None

    def watch(self, clock: EventClock, interrupt: Callable[[], None]) -> None:
        when = _next_look(clock, time.monotonic())
        if when is None:
            return
        with self._ready:
            heapq.heappush(self._heap, (when, next(self._order), clock, interrupt))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="holyclient-deadlines", daemon=True)
                self._thread.start()
            self._ready.notify()

    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._heap or self._heap[0][0] > time.monotonic():
                    self._ready.wait(self._heap[0][0] - time.monotonic() if self._heap else None)
                _, order, clock, interrupt = heapq.heappop(self._heap)
            now = time.monotonic()
            if _passed(clock, now):
                clock.fired = True
                with suppress(Exception):  # the stream may be closing under us: nothing left to stop
                    interrupt()
                continue
            when = _next_look(clock, now)
            if when is not None:
                with self._ready:
                    heapq.heappush(self._heap, (when, order, clock, interrupt))


_WATCHDOG = _Watchdog()


def _shut_down(response: Any) -> Callable[[], None]:
    """How to end a sync response's blocked read: shut its socket down (the read returns at once). The
    response is held weakly: a stream that ended is not kept alive by the watchdog's next look."""
    held: Callable[[], Any]
    try:
        held = weakref.ref(response)
    except TypeError:  # a response type that cannot be referred to weakly: held until the next look
        held = lambda: response  # noqa: E731

    def interrupt() -> None:
        response = held()
        if response is None:
            return
        stream = getattr(response, "extensions", {}).get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if isinstance(sock, socket.socket):
            sock.shutdown(socket.SHUT_RDWR)

    return interrupt


def watch(clock: EventClock, response: Any) -> None:
    """Keep a sync stream's reads to ``clock``'s limits."""
    if not clock.unlimited:
        _WATCHDOG.watch(clock, _shut_down(response))


def first_event_within(chunks: Iterator[bytes], clock: EventClock, response: Any) -> bytes:
    """:func:`~._streaming.first_event` within ``clock``'s first-event limit, watching the rest of the
    stream from here on.

    Raises:
        FirstEventTimeoutError: no event came in time (the read was interrupted, or only comments came).
    """
    watch(clock, response)
    try:
        head = first_event(chunks, clock)
    except Exception:
        if not clock.fired:
            raise
    else:
        if not clock.fired:
            clock.seen, clock.since = True, None  # the caller holds the stream until its next read
            return head
    raise clock.error()


def awatch(clock: EventClock) -> None:
    """Keep an async stream's reads to ``clock``'s limits: a timer on the running loop cancels the task
    waiting in a read whose limit passed (no loop of asyncio's: the read timeout alone applies)."""
    if clock.unlimited:
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return

    def look() -> None:
        now = time.monotonic()
        if _passed(clock, now) and clock.task is not None:
            clock.fired = True
            clock.task.cancel()
            return
        when = _next_look(clock, now)
        if when is not None:
            loop.call_later(when - now, look)

    clock.task = asyncio.current_task()
    look()


async def afirst_event_within(chunks: AsyncIterator[bytes], clock: EventClock) -> bytes:
    """Async twin of :func:`first_event_within`."""
    awatch(clock)
    try:
        head = await afirst_event(chunks, clock)
    except asyncio.CancelledError:
        if not cancelled_by(clock):
            raise
    else:
        if not clock.fired:
            clock.seen, clock.since = True, None
            return head
    raise clock.error()
