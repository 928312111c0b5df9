"""Issue 40, item 7: a chat stream whose body ends cleanly without any ``finish_reason`` and without
``[DONE]`` is detected. A client keeps openai's behaviour (the iteration ends, no error) and says so:
``stream.truncated``, a warning, an uncertain charge; a Router recovers from it, or raises
``IncompleteStreamError`` when it may not."""

from __future__ import annotations

import asyncio
import logging

import httpx2
import pytest

from failover_support import ANSWER, CLIENTS, ROUTERS, ask, attempts
from holyclient import Client, IncompleteStreamError, Router, Target
from holyclient.testing import Fault, LocalServer


@pytest.mark.parametrize("surface", CLIENTS)
def test_a_client_ends_the_stream_as_openai_does_and_marks_it_truncated(
    pair: tuple[LocalServer, LocalServer], surface: str, caplog: pytest.LogCaptureFixture
) -> None:
    primary, backup = pair
    primary.enqueue(Fault.ends_early(after_chunks=4))
    with caplog.at_level(logging.WARNING, logger="holyclient"):
        got = ask(surface, primary, backup, stream=True)
    assert got.error is None and got.text and ANSWER.startswith(got.text) and got.text != ANSWER
    assert got.stream.truncated is True
    assert any("without a finish_reason or [DONE]" in r.getMessage() for r in caplog.records)
    assert got.usage.uncertain_requests == 1  # charged as a stream cut part-way: the rest may be billed


@pytest.mark.parametrize("surface", CLIENTS)
def test_a_whole_stream_is_not_truncated(pair: tuple[LocalServer, LocalServer], surface: str) -> None:
    primary, backup = pair
    got = ask(surface, primary, backup, stream=True)
    assert got.whole and got.stream.truncated is False and got.usage.uncertain_requests == 0


def _sse(*events: str) -> bytes:
    return "".join(f"data: {event}\n\n" for event in events).encode()


def _chunk(delta: str, finish: str | None = None, **extra: str) -> str:
    finish_json = "null" if finish is None else f'"{finish}"'
    fields = "".join(f', "{k}": {v}' for k, v in extra.items())
    return (
        '{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [{"index": 0, '
        f'"delta": {delta}, "finish_reason": {finish_json}}}]{fields}}}'
    )


@pytest.mark.parametrize(
    ("body", "truncated"),
    [
        (_sse(_chunk('{"content": "hi"}'), _chunk("{}", "stop")), False),  # a finish, no [DONE]: whole
        (
            _sse(
                _chunk('{"content": "hi"}'),
                _chunk("{}", "stop"),
                '{"id": "c", "object": "chat.completion.chunk", '
                '"created": 1, "model": "m", "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1, '
                '"total_tokens": 2}}',
            ),
            False,
        ),  # the usage chunk comes after the finish
        (_sse(_chunk('{"content": "hi"}')), True),
        (_sse(_chunk('{"content": "hi"}'), "[DONE]"), False),  # [DONE] says it ended
    ],
    ids=["finish", "usage", "cut", "done"],
)
def test_a_stream_is_truncated_only_when_nothing_said_it_ended(body: bytes, truncated: bool) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=body, headers={"content-type": "text/event-stream"})

    with Client(
        api_key="sk-k",
        base_url="https://h.test/v1",
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    ) as client:
        stream = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "x"}], stream=True
        )
        assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == "hi"
        assert stream.truncated is truncated


def test_openai_ends_the_same_stream_without_an_error_too(pair: tuple[LocalServer, LocalServer]) -> None:
    """The drop-in behaviour kept: openai's own client reads the stream to its end and raises nothing."""
    import openai

    primary, _ = pair
    primary.enqueue(Fault.ends_early(after_chunks=4))
    client = openai.OpenAI(api_key="sk-primary-0000aaaa", base_url=primary.base_url, max_retries=0)
    chunks = list(
        client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "a b c d e f"}], stream=True
        )
    )
    assert chunks and all(c.choices[0].finish_reason is None for c in chunks if c.choices)


@pytest.mark.parametrize("surface", ROUTERS)
def test_a_router_takes_over_a_stream_that_ended_early(
    pair: tuple[LocalServer, LocalServer], surface: str
) -> None:
    primary, backup = pair
    primary.enqueue(Fault.ends_early(after_chunks=4))
    got = ask(surface, primary, backup, stream=True, backup_options={"prefill": True})
    assert got.whole, got.error
    assert (attempts(primary), attempts(backup)) == (1, 1)
    assert got.stats["primary"].streams_broken == 1 and got.stats["primary"].failovers == 1


@pytest.mark.parametrize("surface", ["router", "async_router"])
def test_a_router_without_recovery_raises_incomplete_stream_error(
    pair: tuple[LocalServer, LocalServer], surface: str
) -> None:
    primary, backup = pair
    primary.enqueue(Fault.ends_early(after_chunks=4))
    got = ask(surface, primary, backup, stream=True, router_options={"stream_recovery": "off"})
    assert isinstance(got.error, IncompleteStreamError) and attempts(backup) == 0
    assert got.error.text == "" or ANSWER.startswith(got.error.text)


def test_the_async_client_marks_a_truncated_stream_too() -> None:
    """As the sync client: the flag is on the async stream once its iteration ended."""

    async def main() -> None:
        from holyclient import AsyncClient

        with LocalServer(faults=[Fault.ends_early(3)]) as server:
            async with AsyncClient(api_key="sk-k", base_url=server.base_url) as client:
                stream = await client.chat.completions.create(
                    model="gpt-4o-mini", messages=[{"role": "user", "content": "a b c d"}], stream=True
                )
                assert [c async for c in stream] and stream.truncated

    asyncio.run(main())


def test_a_target_declared_without_prefill_restarts_what_ended_early(
    pair: tuple[LocalServer, LocalServer],
) -> None:
    from holyclient import StreamRestartError

    primary, backup = pair
    primary.enqueue(Fault.ends_early(after_chunks=4))
    router = Router(
        [
            Target(
                primary.base_url,
                api_key="sk-primary-0000aaaa",
                name="primary",
                fallbacks=[
                    Target(backup.base_url, api_key="sk-backup-0000bbbb", name="backup", prefill=False)
                ],
            )
        ],
        max_retries=0,
    )
    with router, pytest.raises(StreamRestartError) as restart:
        list(
            router.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "a b c d e"}], stream=True
            )
        )
    assert isinstance(restart.value.cause, IncompleteStreamError) and restart.value.target == "backup"
    assert (
        "".join(c.choices[0].delta.content or "" for c in restart.value.stream if c.choices)
        == "Echo: a b c d e"
    )


@pytest.mark.parametrize("garbled", [True, False], ids=["garbled-then-ended", "ended"])
def test_a_stream_that_skipped_a_garbled_event_and_then_ended_early_raises(garbled: bool) -> None:
    """Its end may have been in the event that could not be read (openai raises at that event): the
    answer is incomplete, and the client says so with an error, not only ``stream.truncated``."""
    chunk = b'data: {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": '
    body = chunk + b'[{"index": 0, "delta": {"role": "assistant", "content": "Hi"}}]}\n\n'
    if garbled:
        body += b'data: {"id": "c", "choices": [{"index": 0, "finish_re\n\n'
    transport = httpx2.MockTransport(
        lambda request: httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)
    )
    with httpx2.Client(transport=transport) as http:
        client = Client(api_key="sk-k", base_url="https://relay.test/v1", http_client=http, max_retries=0)
        stream = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], stream=True
        )
        if not garbled:
            assert len(list(stream)) == 1 and stream.truncated  # as openai: no error
            return
        with pytest.raises(IncompleteStreamError, match="1 event\\(s\\) that were not valid JSON"):
            list(stream)
        assert stream.malformed_events == 1
