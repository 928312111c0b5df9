"""One aiohttp session per running event loop, closed with its loop.

An ``AsyncClient`` may be used from several event loops: one after another (``asyncio.run`` per job), or
at once from loops in several threads. An aiohttp session belongs to the loop that made it, so each loop
gets its own, and a session is never closed from under a loop that is still using it.

A session is closed on its own loop when that loop shuts down: a started async generator (the
*keeper*) is registered with the loop, and ``asyncio.run`` (like any runner calling
``loop.shutdown_asyncgens()``) closes it while the loop still runs, which closes the session and its
sockets cleanly. A loop closed without that step leaves nothing to await on: its session is only
marked closed, and its sockets go with the garbage collector.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import aiohttp


class _Entry:
    __slots__ = ("keeper", "session")

    def __init__(self, session: aiohttp.ClientSession) -> None:
        self.session: aiohttp.ClientSession | None = session
        self.keeper: AsyncGenerator[None, None] | None = None


async def _keep(entry: _Entry) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:  # the loop is shutting down (or the client is closing): close while the loop still runs
        session, entry.session = entry.session, None
        if session is not None:
            await session.close()


def _abandon(entry: _Entry) -> None:
    """Forget a session whose loop is closed: nothing can be awaited there any more."""
    session, entry.session = entry.session, None
    if session is not None:
        connector = session.connector
        session.detach()
        if connector is not None:
            connector._close()  # on a closed loop this only marks it closed
    keeper, entry.keeper = entry.keeper, None
    if keeper is not None:  # finish it here, so that its finaliser never calls into the closed loop
        step = keeper.aclose().__await__()
        with contextlib.suppress(StopIteration):
            next(step)


class LoopSessions:
    """The sessions of one transport, keyed by event loop; safe to use from several threads."""

    def __init__(self, make: Callable[[], aiohttp.ClientSession]) -> None:
        self._make = make
        self._entries: dict[asyncio.AbstractEventLoop, _Entry] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def current(self) -> aiohttp.ClientSession | None:
        """The running loop's session, if it has one (no new session is made)."""
        entry = self._entries.get(asyncio.get_running_loop())
        return None if entry is None else entry.session

    async def here(self) -> aiohttp.ClientSession:
        """The running loop's session, made on first use; sessions of closed loops are let go."""
        loop = asyncio.get_running_loop()
        entry = self._entries.get(loop)
        if entry is not None and entry.session is not None:
            return entry.session
        with self._lock:
            dead = [other for other in self._entries if other.is_closed()]
            abandoned = [self._entries.pop(other) for other in dead]
            entry = _Entry(self._make())
            self._entries[loop] = entry
        for old in abandoned:
            _abandon(old)
        keeper = _keep(entry)
        await keeper.__anext__()  # started on this loop: shutdown_asyncgens() will close it
        entry.keeper = keeper
        return entry.session  # type: ignore[return-value]

    async def close(self) -> None:
        """Close this loop's session and those of closed loops; other running loops keep theirs.

        A session in use by another live loop is never closed from here: that loop closes it when it
        shuts down.
        """
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:  # closed from trio: no session of ours lives there
            loop = None
        with self._lock:
            mine = self._entries.pop(loop, None) if loop is not None else None
            dead = [other for other in self._entries if other.is_closed()]
            abandoned = [self._entries.pop(other) for other in dead]
        for old in abandoned:
            _abandon(old)
        if mine is not None and mine.keeper is not None:
            keeper, mine.keeper = mine.keeper, None
            await keeper.aclose()
