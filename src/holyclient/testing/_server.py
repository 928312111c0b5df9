"""``LocalServer``: the application on its own event loop in a background thread.

A thread (rather than the caller's loop) is what lets one object serve sync tests, async tests and
scripts alike: the caller never has to run the server's loop, and a blocking client in the test
thread cannot starve it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Iterable, Mapping
from types import TracebackType
from typing import Any, TypeVar

from ._app import App
from ._config import RecordedRequest, ServerConfig
from ._faults import Fault, FaultMix
from ._http import HTTPConnection
from ._limits import RateLimits
from ._scripted_turns import Turn

T = TypeVar("T")


async def start_app_server(app: App, host: str, port: int) -> asyncio.Server:
    """Listen on ``host:port`` (0 picks a free port) with ``app`` answering every connection."""
    loop = asyncio.get_running_loop()
    # "localhost" may resolve to both ::1 and 127.0.0.1, and with port 0 each socket would get its own
    # port; one address keeps base_url unambiguous.
    host = "127.0.0.1" if host == "localhost" else host
    return await loop.create_server(
        lambda: HTTPConnection(app.handle, app.on_open, app.on_close, app.new_request_id),
        host,
        port,
        backlog=4096,
        reuse_address=True,
    )


async def close_app_server(app: App, server: asyncio.Server) -> None:
    """Stop listening, close every open connection and wait for the handlers to wind down."""
    server.close()
    for conn in list(app.connections):
        conn.abort()
    await server.wait_closed()


def base_url_of(server: asyncio.Server, host: str) -> str:
    address = server.sockets[0].getsockname()
    port = address[1]
    # A wildcard bind is reachable on loopback; show the address a local client should use.
    host = {"localhost": address[0], "": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/v1"


class LocalServer:
    """An OpenAI-compatible HTTP server on 127.0.0.1 for tests, demos and benchmarks.

    Example::

        with LocalServer(latency=0.05, faults=FaultMix(rate=0.2, seed=1)) as server:
            client = Client(base_url=server.base_url, api_key="test")
            server.enqueue(Fault.status(429, retry_after=1))  # the next request gets a 429

    Args:
        host: interface to bind; loopback unless you really mean otherwise.
        port: TCP port; 0 (default) picks a free one.
        latency: seconds before each answer (time to first byte).
        jitter: extra uniform random latency in ``[0, jitter)`` seconds, seeded by ``seed``.
        chunk_delay: seconds between SSE events of a stream (0 sends the stream at once).
        faults: a :class:`FaultMix`, or a fault or faults to enqueue at start (one per request, in order).
        hook: ``callable(RecordedRequest) -> Fault | None`` consulted for every request after the queue.
        rate_limits: :class:`RateLimits` to enforce (429 with ``Retry-After`` and ``x-ratelimit-*``).
        require_key: answer 401 when the ``Authorization: Bearer`` key is missing or empty.
        api_key: if set, only this key is accepted (401 ``invalid_api_key`` otherwise).
        models: model ids listed by ``/v1/models`` (default: the profile's; with ``profile="holysheep"``
            these are the only models served, any other is refused with 404 ``model_not_found``).
        seed: seeds the latency jitter.
        log_requests: keep a log of requests (``server.requests``); switch off for benchmarks.
        log_limit: the log keeps the most recent ``log_limit`` requests.
        max_hang: upper bound in seconds for ``hang`` faults.
        disabled_features: features to switch off, to play a relay that lacks them (see
            ``FEATURES`` in ``_variation``: ``"tools"``, ``"stream"``, ``"embeddings"`` ...).
        persona: ``"default"`` (the echo model) or ``"other"``, a different model behind the same API:
            other wording, other JSON keys, another tokenizer's prompt token counts.
        noise: probability that each word of a prose answer is swapped for a filler word, drawn from
            a generator seeded by ``seed``: the call-to-call variation of sampled text.
        billing: how chat ``usage.prompt_tokens`` is counted: ``"chars"`` (characters / 4 + 3 per
            message) or ``"foreign"``, a deterministic tokenizer unlike any holyclient has, that bills
            Claude-like counts (see :mod:`holyclient.testing._foreign`).
        profile: ``"default"`` (any model, each answered as OpenAI's API would) or ``"holysheep"``, the
            relay: the models of holyclient's price table, any other refused, and each model family
            answering as the dated, sourced capabilities table says (DeepSeek refuses ``json_schema``,
            Claude ignores ``response_format`` ...; see :mod:`holyclient.testing._relay`) and reporting
            usage in its family's shape (cache reads and writes, thinking tokens; see
            :mod:`holyclient.testing._usage_shapes`).
        report_cost: with ``profile="holysheep"``, report what the relay charged in ``usage.cost``: the
            usage at the price table's list prices times this factor (1.0: what holyclient prices it
            at; None, the default: no cost reported).
        script: exact answers (:class:`Turn`), one per chat or Responses request in order, before the
            server's own rules (its tool policy: :mod:`holyclient.testing._tool_policy`) apply again.
        faults_at: one fault each at the request of that number (1: the first request that passed
            routing, auth and validation), before the queue, hook and mix.
        answer_as: model id asked -> the model name its answers carry (chat, Responses, completions and
            embeddings, streamed or not), as a relay that passes its upstream's id through answers
            ``claude-sonnet-4.5`` as ``anthropic.claude-sonnet-4-5-20250929-v1:0``.
        canned: ``"METHOD /v1/path"`` -> a JSON object answered (200) to that route, for routes the fake
            API does not implement (``{"POST /v1/fine_tuning/jobs": {"id": "ftjob-1", ...}}``); the request
            is logged, authorized and faulted like any other.
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        latency: float = 0.0,
        jitter: float = 0.0,
        chunk_delay: float = 0.0,
        faults: FaultMix | Fault | Iterable[Fault] | None = None,
        hook: Callable[[RecordedRequest], Fault | None] | None = None,
        rate_limits: RateLimits | None = None,
        require_key: bool = True,
        api_key: str | None = None,
        models: Iterable[str] = (),
        seed: int | None = 0,
        log_requests: bool = True,
        log_limit: int = 10_000,
        max_hang: float = 60.0,
        disabled_features: Iterable[str] = (),
        persona: str = "default",
        noise: float = 0.0,
        billing: str = "chars",
        profile: str = "default",
        script: Iterable[Turn] = (),
        faults_at: Mapping[int, Fault] | None = None,
        report_cost: float | None = None,
        answer_as: Mapping[str, str] | None = None,
        canned: Mapping[str, Any] | None = None,
    ) -> None:
        if isinstance(faults, Fault):
            faults = [faults]
        mix = faults if isinstance(faults, FaultMix) else None
        self._app = App(
            ServerConfig(
                latency=latency,
                jitter=jitter,
                chunk_delay=chunk_delay,
                faults=mix,
                hook=hook,
                rate_limits=rate_limits,
                require_key=require_key,
                api_key=api_key,
                models=tuple(models),
                seed=seed,
                log_requests=log_requests,
                log_limit=log_limit,
                max_hang=max_hang,
                disabled_features=frozenset(disabled_features),
                persona=persona,
                noise=noise,
                billing=billing,
                profile=profile,
                script=tuple(script),
                faults_at=dict(faults_at or {}),
                report_cost=report_cost,
                answer_as=dict(answer_as or {}),
                canned=dict(canned or {}),
            )
        )
        if faults is not None and mix is None:
            self._app.queue.extend(faults)  # type: ignore[arg-type]
        self._host = host
        self._port = port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._base_url: str | None = None

    def __repr__(self) -> str:
        state = self._base_url or "stopped"
        return f"<LocalServer {state}>"

    # -- lifecycle --------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1`` -- pass it as the client's ``base_url``."""
        if self._base_url is None:
            raise RuntimeError("LocalServer is not running; call start() or use it as a context manager")
        return self._base_url

    @property
    def port(self) -> int:
        return int(self.base_url.rsplit(":", 1)[1].split("/", 1)[0])

    @property
    def running(self) -> bool:
        return self._base_url is not None

    def start(self) -> LocalServer:
        """Start serving in a background thread; returns once the port is listening."""
        if self._thread is not None:
            raise RuntimeError("LocalServer is already running")
        loop = asyncio.new_event_loop()
        started = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            asyncio.set_event_loop(loop)
            try:
                self._server = loop.run_until_complete(start_app_server(self._app, self._host, self._port))
            except BaseException as exc:
                failure.append(exc)
                started.set()
                loop.close()
                return
            started.set()
            try:
                loop.run_forever()
            finally:
                pending = asyncio.all_tasks(loop)
                for task in pending:
                    task.cancel()
                if pending:
                    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.close()

        thread = threading.Thread(target=run, name="holyclient-local-server", daemon=True)
        thread.start()
        started.wait()
        if failure:
            thread.join()
            raise failure[0]
        assert self._server is not None
        self._loop, self._thread = loop, thread
        self._base_url = base_url_of(self._server, self._host)
        return self

    def stop(self) -> None:
        """Close every connection, stop the loop and join the thread. Safe to call twice."""
        loop, thread, server = self._loop, self._thread, self._server
        if loop is None or thread is None or server is None:
            return
        asyncio.run_coroutine_threadsafe(close_app_server(self._app, server), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        self._loop = self._thread = self._server = None
        self._base_url = None

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    async def __aenter__(self) -> LocalServer:
        return self.start()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- programming and inspecting ---------------------------------------------------------------
    def _call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the server loop (where the state lives) and return its result."""
        loop = self._loop
        if loop is None:
            return fn()

        async def wrapper() -> T:
            return fn()

        coro: Coroutine[Any, Any, T] = wrapper()
        return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout=10)

    def enqueue(self, *faults: Fault) -> None:
        """Apply ``faults`` to the next requests, one each, in order (before any mix or hook)."""
        self._app.queue.extend(faults)

    def script(self, *turns: Turn) -> None:
        """Answer the next chat or Responses requests with ``turns``, one each, in order (after any turns
        already scripted)."""
        self._app.turns.extend(turns)

    @property
    def stats(self) -> dict[str, Any]:
        """Counters: ``requests``, ``by_status``, ``by_fault``, ``by_endpoint``, ``rate_limited``, ..."""
        return self._call(self._app.stats)

    @property
    def requests(self) -> list[RecordedRequest]:
        """The logged ``/v1`` requests, oldest first, without credential headers."""
        return self._call(self._app.request_log)

    def reset(self) -> None:
        """Clear stats, the request log, queued faults and rate-limit windows."""
        self._call(self._app.reset)
