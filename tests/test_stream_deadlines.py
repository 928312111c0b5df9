"""Issue 40, item 2: a stream's first-event deadline and its idle limit between events -- their defaults,
where they are set (client, call, router, target), what counts as an event, and what they never do
(count the caller's own time, cancel anything but the read, outlive the stream)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

from holyclient import (
    AsyncClient,
    Client,
    FirstEventTimeoutError,
    Router,
    StreamIdleTimeoutError,
    Target,
)
from holyclient._core import EventClock, stream_limits
from holyclient.testing import Fault, LocalServer

KEY = "sk-deadlines-0000aaaa"
MESSAGES = [{"role": "user", "content": "one two three four five six seven eight"}]
ANSWER = "Echo: one two three four five six seven eight"
#: Long enough for a loaded machine to deliver a healthy stream's first event within it.
LIMIT = 0.5


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with LocalServer(api_key=KEY, max_hang=10) as server:
        with Client(api_key=KEY, base_url=server.base_url) as client:  # imports and first-call set-up
            list(client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True))
        yield server


@pytest.fixture
def fresh(server: LocalServer) -> Iterator[LocalServer]:
    server.reset()
    yield server
    server.reset()


def _text(chunks: list[Any]) -> str:
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def _read(client: Any, owner: Any = None, **body: Any) -> tuple[str, BaseException | None, float]:
    """A streamed chat call on a sync or async client: its text, its error, its seconds. The client (or
    ``owner``, the client it was copied from) is closed after."""
    started = time.monotonic()
    owner = owner if owner is not None else client

    async def run_async() -> tuple[str, BaseException | None]:
        chunks: list[Any] = []
        try:
            stream = await client.chat.completions.create(
                model="gpt-4o-mini", messages=MESSAGES, stream=True, **body
            )
            async for chunk in stream:
                chunks.append(chunk)
        except Exception as exc:
            return _text(chunks), exc
        finally:
            await owner.close()
        return _text(chunks), None

    if isinstance(client, AsyncClient):
        text, error = asyncio.run(run_async())
        return text, error, time.monotonic() - started
    chunks: list[Any] = []
    try:
        for chunk in client.chat.completions.create(
            model="gpt-4o-mini", messages=MESSAGES, stream=True, **body
        ):
            chunks.append(chunk)
    except Exception as exc:
        return _text(chunks), exc, time.monotonic() - started
    finally:
        owner.close()
    return _text(chunks), None, time.monotonic() - started


def _client(kind: str, server: LocalServer, **options: Any) -> Any:
    cls = Client if kind == "sync" else AsyncClient
    return cls(api_key=KEY, base_url=server.base_url, max_retries=0, **options)


KINDS = ["sync", "async"]


def test_the_defaults_are_a_minute_and_ten_minutes_for_a_model_that_may_think_silently() -> None:
    assert stream_limits(Client.__init__.__kwdefaults__["first_event_timeout"], None, {}) == (60.0, None)
    not_given = Client.__init__.__kwdefaults__["stream_idle_timeout"]
    assert stream_limits(not_given, not_given, {"model": "gpt-4o-mini"}) == (60.0, 60.0)
    for body in (
        {"model": "o3-mini"},
        {"model": "openai/gpt-5"},
        {"model": "deepseek-reasoner"},
        {"model": "gpt-4o-mini", "reasoning_effort": "high"},
        {"model": "claude-sonnet-4-5", "thinking": {"type": "enabled", "budget_tokens": 2048}},
    ):
        assert stream_limits(not_given, not_given, body) == (600.0, 600.0), body
    assert stream_limits(5, None, {"model": "o3"}) == (5.0, None)  # given: as given, None is no limit


@pytest.mark.parametrize("bad", [0, -1, "10", True])
def test_a_limit_that_is_not_seconds_is_refused_when_the_client_is_built(bad: Any) -> None:
    with pytest.raises(ValueError, match="first_event_timeout"):
        Client(api_key=KEY, first_event_timeout=bad)
    with pytest.raises(ValueError, match="stream_idle_timeout"):
        Client(api_key=KEY).with_options(stream_idle_timeout=bad)


def test_the_clock_waits_only_while_a_read_waits_and_names_the_limit_that_passed() -> None:
    clock = EventClock(2.0, 0.5, started=10.0)
    assert clock.due(11.0) == 1.0 and isinstance(clock.error(), FirstEventTimeoutError)
    clock.seen, clock.since = True, None  # the first event came; the caller holds the stream
    assert clock.due(100.0) is None and clock.recheck() == 0.5
    clock.since = 100.0
    assert clock.due(100.75) == -0.25 and isinstance(clock.error(), StreamIdleTimeoutError)
    clock.stopped = True
    assert clock.due(200.0) is None and clock.recheck() is None


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("comments", [0.0, 0.05], ids=["silent", "keep-alive comments"])
def test_a_first_event_that_comes_too_late_is_a_first_event_timeout_whatever_comments_came(
    fresh: LocalServer, kind: str, comments: float
) -> None:
    fresh.enqueue(Fault.slow_first_event(3.0, comments_every=comments))
    text, error, seconds = _read(_client(kind, fresh, first_event_timeout=LIMIT))
    assert isinstance(error, FirstEventTimeoutError) and text == ""
    assert "first_event_timeout=0.5s" in str(error)
    assert seconds < 2.5  # not the 3 s the server took


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("comments", [0.0, 0.05], ids=["silent", "keep-alive comments"])
def test_a_stream_silent_past_its_idle_limit_raises_a_stream_idle_timeout(
    fresh: LocalServer, kind: str, comments: float
) -> None:
    fresh.enqueue(Fault.stall(after_chunks=3, seconds=3.0, comments_every=comments))
    text, error, seconds = _read(_client(kind, fresh, stream_idle_timeout=LIMIT))
    assert isinstance(error, StreamIdleTimeoutError) and text and ANSWER.startswith(text)
    assert seconds < 2.5


@pytest.mark.parametrize("kind", KINDS)
def test_an_idle_limit_shorter_than_the_first_event_s_ends_a_silence_on_time(
    fresh: LocalServer, kind: str
) -> None:
    """The watcher looked next when the first-event limit would pass: a shorter idle limit went unseen."""
    fresh.enqueue(Fault.stall(after_chunks=3, seconds=3.0))
    _, error, seconds = _read(_client(kind, fresh, first_event_timeout=30, stream_idle_timeout=LIMIT))
    assert isinstance(error, StreamIdleTimeoutError) and seconds < 2.5


@pytest.mark.parametrize("kind", KINDS)
def test_the_caller_s_own_time_between_reads_does_not_count(fresh: LocalServer, kind: str) -> None:
    pause = 3 * LIMIT

    async def slow_async() -> str:
        client = _client(kind, fresh, first_event_timeout=LIMIT, stream_idle_timeout=LIMIT)
        stream = await client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)
        await asyncio.sleep(pause)  # before the first read
        chunks = []
        async for chunk in stream:
            chunks.append(chunk)
            await asyncio.sleep(pause if len(chunks) == 2 else 0)
        await client.close()
        return _text(chunks)

    if kind == "async":
        assert asyncio.run(slow_async()) == ANSWER
        return
    client = _client(kind, fresh, first_event_timeout=LIMIT, stream_idle_timeout=LIMIT)
    stream = client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)
    time.sleep(pause)
    chunks = []
    for chunk in stream:
        chunks.append(chunk)
        time.sleep(pause if len(chunks) == 2 else 0)
    client.close()
    assert _text(chunks) == ANSWER


def test_an_async_stream_s_deadline_cancels_its_read_only(fresh: LocalServer) -> None:
    """The timer cancels the task waiting in the read; the task goes on afterwards, uncancelled, and a
    cancellation from outside is still a cancellation."""
    fresh.enqueue(Fault.stall(after_chunks=3, seconds=3.0))

    async def main() -> tuple[bool, int]:
        client = _client("async", fresh, stream_idle_timeout=LIMIT)
        stream = await client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)
        with pytest.raises(StreamIdleTimeoutError):
            async for _ in stream:
                pass
        await asyncio.sleep(0.01)  # not cancelled: the clock's cancellation was taken back
        task = asyncio.current_task()
        assert task is not None
        fresh.enqueue(Fault.stall(after_chunks=3, seconds=3.0))
        other = await client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)

        async def read() -> None:
            async for _ in other:
                pass

        reading = asyncio.create_task(read())
        await asyncio.sleep(0.05)
        reading.cancel()
        cancelled = False
        try:
            await reading
        except asyncio.CancelledError:
            cancelled = True
        await client.close()
        return cancelled, task.cancelling()

    assert asyncio.run(main()) == (True, 0)


@pytest.mark.parametrize("kind", KINDS)
def test_a_call_s_options_set_its_limits_and_none_lifts_them(fresh: LocalServer, kind: str) -> None:
    client = _client(kind, fresh)
    fresh.enqueue(Fault.slow_first_event(1.5))
    _, error, _ = _read(client.with_options(first_event_timeout=LIMIT), client)
    assert isinstance(error, FirstEventTimeoutError)
    limited = _client(kind, fresh, first_event_timeout=LIMIT)
    fresh.enqueue(Fault.slow_first_event(1.5))
    text, error, _ = _read(limited.with_options(first_event_timeout=None), limited)  # no limit for this call
    assert error is None and text == ANSWER
    assert (
        limited.first_event_timeout == LIMIT and limited.with_options(timeout=5).first_event_timeout == LIMIT
    )


def test_a_target_s_own_limit_wins_over_the_router_s(fresh: LocalServer) -> None:
    with LocalServer(api_key=KEY, max_hang=10) as backup:
        fallback = Target(backup.base_url, api_key=KEY, name="backup")
        primary = Target(
            fresh.base_url, api_key=KEY, name="primary", fallbacks=[fallback], first_event_timeout=LIMIT
        )
        with Router([primary], first_event_timeout=30, max_retries=0) as router:
            fresh.enqueue(Fault.slow_first_event(3.0))
            backup.enqueue(Fault.slow_first_event(1.0))  # within the router's 30 s
            started = time.monotonic()
            chunks = list(router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True))
            seconds = time.monotonic() - started
            assert _text(chunks) == ANSWER and seconds < 2.9
            stats = router.stats()
        assert (stats["primary"].failovers, stats["backup"].successes) == (1, 1)


@pytest.mark.parametrize("kind", KINDS)
def test_a_stream_read_as_bytes_keeps_the_same_deadlines(fresh: LocalServer, kind: str) -> None:
    """``with_streaming_response`` hands over the body as sent: a chunk with an event restarts the idle
    clock, and a silence past it ends the read with the same error."""
    fresh.enqueue(Fault.stall(after_chunks=3, seconds=3.0, comments_every=0.05))
    client = _client(kind, fresh, stream_idle_timeout=LIMIT)
    create = client.chat.completions.with_streaming_response.create
    request = {"model": "gpt-4o-mini", "messages": MESSAGES, "stream": True}
    started = time.monotonic()

    async def read_async() -> bytes:
        body = b""
        try:
            async with create(**request) as response:
                async for chunk in response.iter_bytes():
                    body += chunk
        finally:
            await client.close()
        return body

    with pytest.raises(StreamIdleTimeoutError):
        if kind == "async":
            asyncio.run(read_async())
        else:
            with client, create(**request) as response:
                for _ in response.iter_bytes():
                    pass
    assert time.monotonic() - started < 2.5


def test_a_sync_stream_without_a_socket_ends_at_its_next_bytes_once_its_limit_passed() -> None:
    """Through ``httpx2.MockTransport`` there is no socket to shut down: the limit is checked as the next
    keep-alive comment arrives, and the stream ends there instead of waiting for its first event."""
    import httpx2

    def keepalives() -> Iterator[bytes]:
        for _ in range(40):
            time.sleep(0.05)
            yield b": PROCESSING\n\n"
        yield b'data: {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": []}\n\n'

    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=keepalives())

    http = httpx2.Client(transport=httpx2.MockTransport(answer))
    client = Client(api_key=KEY, base_url="https://relay.test/v1", http_client=http, max_retries=0)
    started = time.monotonic()
    with pytest.raises(FirstEventTimeoutError):
        client.with_options(first_event_timeout=LIMIT).chat.completions.create(
            model="gpt-4o-mini", messages=MESSAGES, stream=True
        )
    assert time.monotonic() - started < 1.5  # not the 2 s of comments
    http.close()
