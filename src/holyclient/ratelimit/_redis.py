"""The shared limiter: one RPM/TPM budget per API key and model, kept in Redis for every worker.

Every decision is one round trip running :data:`~holyclient.ratelimit._script.SCRIPT` on the server
(why our own script, not ``pyrate-limiter``: see that module). This class only sends, sleeps and
falls back: when Redis cannot be reached it says so (``on_event``, stderr by default through the
``holyclient`` logger) and admits through a local limiter at ``limit / workers`` -- never open, never
silently -- and goes back to the shared budget as soon as Redis answers again, first charging it with
what the fallback admitted in the last window (else the window the outage ends in could admit the
fallback's share on top of the whole shared limit).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import time
import uuid
import weakref
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import Any

import anyio

from .._constants import LOGGER_NAME
from ._local import LocalLimiter
from ._protocol import Admission, Feedback
from ._script import SCRIPT
from ._url import check_url, key_hash, safe_url
from ._window import Clock, Sleep

logger = logging.getLogger(LOGGER_NAME)

#: Seconds between attempts to reach Redis again while admitting through the local fallback.
PROBE_INTERVAL = 1.0
#: Socket timeouts: a Redis that does not answer in this time counts as unreachable (not shorter: on a
#: loaded host a healthy Redis sometimes takes half a second to answer, and each miss is a fallback).
REDIS_TIMEOUT = 2.0
#: Longest single sleep while waiting for the shared budget (a pause set meanwhile is seen at the next poll).
MAX_POLL = 1.0


def redis_errors() -> tuple[type[BaseException], ...]:
    import redis.exceptions

    return (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError)


class RedisLimiter:
    """RPM/TPM limits shared through Redis by every process using the same API key and model.

    Args:
        url: ``redis://host:6379/0`` (``rediss://`` for TLS, ``unix:///path.sock``).
        rpm: requests per window for the whole fleet (``None``: no limit; 429 pauses are still shared).
        tpm: tokens per window for the whole fleet.
        window: the window in seconds (60 for "per minute").
        api_key: the key whose budget this is (only its hash reaches Redis); default ``HOLYSHEEP_API_KEY``.
        workers: how many processes share the limit; each one's fallback, while Redis is unreachable,
            is ``limit / workers``.
        burst_seconds: the pacing bucket holds this many seconds' worth of the limit.
        on_event: told, in one line, when Redis becomes unreachable and when it is back.
        sleep: async sleep while waiting for the shared budget (and the fallback's).
        clock: this process's monotonic time source: when to probe Redis again, and how long ago the
            fallback admitted what it owes the shared budget (the window itself runs on Redis's clock).
        client: an existing ``redis.Redis`` (sync) to use instead of connecting to ``url`` (tests).
        async_client: an existing ``redis.asyncio.Redis`` likewise.

    Raises:
        ValueError: a bad URL, or no limit and window that make sense.
        ImportError: the ``redis`` package is missing (``pip install 'holyclient[redis]'``).
    """

    def __init__(
        self,
        url: str,
        *,
        rpm: float | None = None,
        tpm: float | None = None,
        window: float = 60.0,
        api_key: str | None = None,
        workers: int = 1,
        burst_seconds: float = 1.0,
        on_event: Callable[[str], None] | None = None,
        sleep: Sleep = anyio.sleep,
        clock: Clock = time.monotonic,
        client: Any = None,
        async_client: Any = None,
    ) -> None:
        if (problem := check_url(url)) is not None:
            raise ValueError(f"limiter URL {safe_url(url)!r}: {problem}")
        if window <= 0 or workers < 1 or any(v is not None and v <= 0 for v in (rpm, tpm)):
            raise ValueError("rpm, tpm and window must be positive and workers at least 1")
        import redis  # noqa: F401 - fail now, not at the first request, when the extra is missing

        if api_key is None:
            from .._config import resolve_api_key

            api_key = resolve_api_key(None)
        self.url = url
        self.rpm = rpm
        self.tpm = tpm
        self.window = float(window)
        self.workers = workers
        self.burst_seconds = burst_seconds
        self.fallback = LocalLimiter(
            rpm / workers if rpm else None,
            tpm / workers if tpm else None,
            window=window,
            clock=clock,
            sleep=sleep,
        )
        self._prefix = f"holyclient:{{{key_hash(api_key)}"
        self._on_event = on_event or logger.warning
        self._sleep = sleep
        self._clock = clock
        self._client = client
        self._async_clients: dict[int, Any] = {}
        self._closers: dict[int, AsyncGenerator[None, None]] = {}  # held: the loop only keeps weak refs
        if async_client is not None:
            self._async_clients[-1] = async_client
        self._ids = itertools.count()
        self._instance = uuid.uuid4().hex[:12]
        self._down = False
        self._probe_at = 0.0
        #: Per model, what the fallback admitted while Redis was unreachable: (monotonic time, tokens).
        self._owed: dict[str, list[tuple[float, int]]] = {}
        #: Each event loop's probe lock: a lock serves one loop (another thread's loop waiting on it is
        #: woken from this thread, which never wakes it); a thread's loops come and go, and so do these.
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, anyio.Lock] = (
            weakref.WeakKeyDictionary()
        )
        self._thread_lock = threading.Lock()
        self.shared = True

    def __repr__(self) -> str:
        return f"RedisLimiter({safe_url(self.url)!r}, rpm={self.rpm}, tpm={self.tpm}, window={self.window})"

    # --- the pieces both twins use (no I/O) -------------------------------------------------------

    def keys(self, model: str) -> list[str]:
        base = f"{self._prefix}:{model}}}"
        return [f"{base}:req", f"{base}:tok", f"{base}:state", f"{base}:pause"]

    def _args(self, op: str, units: float = 0, id: str = "", arg8: float = 0, *more: Any) -> list[Any]:
        return [op, self.rpm or 0, self.tpm or 0, self.window, self.burst_seconds, units, id, arg8, *more]

    def _fell_back(self, admission: Admission) -> Admission:
        """Remember an admission of the fallback, to charge the shared budget with it once Redis is back."""
        self._owed.setdefault(admission.model, []).append((self._clock(), admission.tokens))
        return admission

    def _owed_calls(self) -> list[tuple[str, list[Any], int]]:
        """One ``charge`` per model for the fallback's admissions still inside the window: (model, args,
        how many admissions it settles). Stamped with the newest one's age, so they leave the shared
        window no earlier than they really would (a little later for the older ones: never more than
        the limit)."""
        now = self._clock()
        calls = []
        for model, owed in list(self._owed.items()):  # threads on the fallback may add a model
            recent = [(at, tokens) for at, tokens in owed if now - at < self.window]
            if recent:
                age = now - recent[-1][0]
                tokens = sum(tokens for _, tokens in recent)
                calls.append(
                    (model, self._args("charge", len(recent), self._next_id(), tokens, age), len(owed))
                )
            else:
                calls.append((model, [], len(owed)))
        return calls

    def _settled(self, model: str, count: int) -> None:
        """Forget the first ``count`` owed admissions of ``model`` (more may have been added meanwhile)."""
        owed = self._owed.get(model, [])
        del owed[:count]
        if not owed:
            self._owed.pop(model, None)

    def _next_id(self) -> str:
        return f"{self._instance}-{next(self._ids)}"

    def _use_fallback(self) -> bool:
        """Redis is known to be down and it is not yet time to try it again."""
        return self._down and self._clock() < self._probe_at

    def _went_down(self, exc: BaseException) -> None:
        self._probe_at = self._clock() + PROBE_INTERVAL
        if not self._down:
            self._down = True
            self.shared = False
            limits = " and ".join(
                f"{limit / self.workers:g} {name}"
                for name, limit in (("requests", self.rpm), ("tokens", self.tpm))
                if limit
            )
            self._on_event(
                f"shared limiter at {safe_url(self.url)} unreachable ({type(exc).__name__}); "
                f"falling back to a local limit of {f'{limits} per {self.window:g} s' if limits else 'no rate limit'} "
                f"(the shared limit / {self.workers} workers) until it is back"
            )

    def _came_back(self) -> None:
        if self._down:
            self._down = False
            self.shared = True
            self._on_event(
                f"shared limiter at {safe_url(self.url)} reachable again: back to the shared limit"
            )

    def _feedback_calls(self, admission: Admission, feedback: Feedback) -> list[list[Any]]:
        calls: list[list[Any]] = []
        if feedback.pause is not None:
            calls.append(self._args("pause", feedback.pause))
        extra = (feedback.total_tokens or 0) - admission.tokens
        if admission.shared and extra > 0 and self.tpm:
            calls.append(self._args("correct", extra, admission.id, admission.stamp))
        if (feedback.remaining_requests is not None and self.rpm) or (
            feedback.remaining_tokens is not None and self.tpm
        ):
            remaining = (feedback.remaining_requests, feedback.remaining_tokens)
            requests, tokens = (-1 if value is None else value for value in remaining)
            left = ("" if value is None else value for value in admission.left or (None, None))
            calls.append(self._args("sync", requests, self._next_id(), tokens, *left))
        return calls

    @staticmethod
    def _admitted(model: str, tokens: int, reply: Sequence[Any], admission_id: str) -> Admission:
        """The admission an ``acquire`` reply grants: its stamp on Redis's clock, and what had left the
        window by then (``sync`` compares an answer's remaining budget with the window as it stood)."""
        requests, tokens_left = (float(value) if value not in (b"", "") else None for value in reply[2:4])
        return Admission(model, tokens, float(reply[1]), None, True, admission_id, (requests, tokens_left))

    # --- async twin -------------------------------------------------------------------------------

    async def connection(self) -> Any:
        """This event loop's ``redis.asyncio.Redis`` (the shard lease shares it); closed with the loop."""
        return await self._async_client()

    async def _async_client(self) -> Any:
        key = -1 if -1 in self._async_clients else id(asyncio.get_running_loop())
        client = self._async_clients.get(key)
        if client is None:  # a connection pool belongs to one event loop
            import redis.asyncio
            from redis.asyncio.retry import Retry
            from redis.backoff import NoBackoff

            client = redis.asyncio.Redis.from_url(
                self.url,
                socket_timeout=REDIS_TIMEOUT,
                socket_connect_timeout=REDIS_TIMEOUT,
                retry=Retry(NoBackoff(), 0),  # no retry: unreachable means fall back now
            )
            self._async_clients[key] = client
            closer = self._close_with_loop(key, client)
            self._closers[key] = closer
            await closer.asend(None)
        return client

    async def _close_with_loop(self, key: int, client: Any) -> AsyncGenerator[None, None]:
        """Closes ``client`` when its event loop finishes.

        A client per loop is needed (a connection belongs to one loop), but a script that calls
        ``asyncio.run`` per job would leave one open connection per run, and a later loop could reuse
        a dead loop's ``id``. The loop closes every suspended async generator before it closes
        (``shutdown_asyncgens``, as ``asyncio.run`` and trio do), with the loop still running: this
        generator's ``finally`` is where the client is closed and forgotten -- unless :meth:`aclose`
        already closed it (from another loop) and this loop has opened a new one since: that one and
        its closer are left alone (this generator is then finalized because the new closer replaced it).
        """
        try:
            yield
        finally:
            if key in self._async_clients and self._async_clients[key] is client:
                del self._async_clients[key]
                self._closers.pop(key, None)
                await client.aclose()

    async def _eval(self, model: str, args: Sequence[Any]) -> Any:
        client = await self._async_client()
        return await client.eval(SCRIPT, 4, *self.keys(model), *args)

    def _loop_lock(self) -> anyio.Lock:
        loop = asyncio.get_running_loop()
        lock = self._locks.get(loop)
        if lock is None:
            lock = self._locks[loop] = anyio.Lock()
        return lock

    async def acquire(self, model: str, tokens: int) -> Admission:
        """Wait until the shared budget admits one request of ``tokens`` tokens, and charge it there."""
        lock = self._loop_lock()
        if not (self._down and lock.locked()):  # while Redis is down, nobody waits behind a probe
            async with lock:  # one waiter per event loop polls Redis; the others queue here in order
                while not self._use_fallback():
                    admission_id = self._next_id()
                    try:
                        for owed_model, args, count in self._owed_calls():  # the outage's admissions first
                            if args:
                                await self._eval(owed_model, args)
                            self._settled(owed_model, count)
                        reply = await self._eval(model, self._args("acquire", tokens, admission_id))
                    except redis_errors() as exc:
                        self._went_down(exc)
                        break
                    self._came_back()
                    if int(reply[0]):
                        return self._admitted(model, tokens, reply, admission_id)
                    await self._sleep(min(float(reply[1]), MAX_POLL))
        return self._fell_back(await self.fallback.acquire(model, tokens))

    async def observe(self, admission: Admission, feedback: Feedback) -> None:
        """Share a 429's pause, correct the charge with real usage, re-sync with the server's headers."""
        if not admission.shared or self._use_fallback():
            self.fallback.apply(admission, feedback)
            return
        try:
            for args in self._feedback_calls(admission, feedback):
                await self._eval(admission.model, args)
        except redis_errors() as exc:
            self._went_down(exc)
            self.fallback.apply(admission, feedback)

    # --- sync twin --------------------------------------------------------------------------------

    def _sync_client(self) -> Any:
        if self._client is None:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry

            self._client = redis.Redis.from_url(
                self.url,
                socket_timeout=REDIS_TIMEOUT,
                socket_connect_timeout=REDIS_TIMEOUT,
                retry=Retry(NoBackoff(), 0),  # no retry: unreachable means fall back now
            )
        return self._client

    def _eval_sync(self, model: str, args: Sequence[Any]) -> Any:
        return self._sync_client().eval(SCRIPT, 4, *self.keys(model), *args)

    def acquire_sync(self, model: str, tokens: int) -> Admission:
        """:meth:`acquire` for threads."""
        if self._down and self._thread_lock.locked():  # while Redis is down, nobody waits behind a probe
            return self._fell_back(self.fallback.acquire_sync(model, tokens))
        with self._thread_lock:
            while not self._use_fallback():
                admission_id = self._next_id()
                try:
                    for owed_model, args, count in self._owed_calls():  # the outage's admissions first
                        if args:
                            self._eval_sync(owed_model, args)
                        self._settled(owed_model, count)
                    reply = self._eval_sync(model, self._args("acquire", tokens, admission_id))
                except redis_errors() as exc:
                    self._went_down(exc)
                    break
                self._came_back()
                if int(reply[0]):
                    return self._admitted(model, tokens, reply, admission_id)
                time.sleep(min(float(reply[1]), MAX_POLL))
        return self._fell_back(self.fallback.acquire_sync(model, tokens))

    def observe_sync(self, admission: Admission, feedback: Feedback) -> None:
        """:meth:`observe` for threads."""
        if not admission.shared or self._use_fallback():
            self.fallback.observe_sync(admission, feedback)
            return
        try:
            for args in self._feedback_calls(admission, feedback):
                self._eval_sync(admission.model, args)
        except redis_errors() as exc:
            self._went_down(exc)
            self.fallback.observe_sync(admission, feedback)

    async def aclose(self) -> None:
        """Close the connections this limiter opened."""
        here = id(asyncio.get_running_loop())
        closer = self._closers.get(here)
        if closer is not None:
            await closer.aclose()  # closes this loop's client and forgets it
        for key, client in list(self._async_clients.items()):
            if key != -1:  # another loop's, still open: its closer finds it gone and does nothing
                await client.aclose()
                self._closers.pop(key, None)
        self._async_clients = {k: v for k, v in self._async_clients.items() if k == -1}
