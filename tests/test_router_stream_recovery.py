"""Issue 40, item 1: a routed stream that breaks after it was handed over is taken over by the next
target -- continued as one stream where that target's model takes an assistant prefill, else restarted
with a typed signal (never two attempts' text spliced), or held until complete -- and every attempt is
counted once, on the target that served it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from failover_support import (
    ANSWER,
    KEY_BACKUP,
    KEY_PRIMARY,
    MESSAGES,
    MODEL,
    ROUTERS,
    ask,
    attempts,
)
from holyclient import APIConnectionError, AsyncRouter, BadRequestError, Router, StreamRestartError, Target
from holyclient.testing import Fault, LocalServer

#: Faults that break a stream after some of the answer reached the caller, all the target's fault.
BREAKS = {
    "cut": Fault.stream_cut(after_chunks=4),
    "error-event": Fault.stream_error(after_chunks=4),
    "ended-early": Fault.ends_early(after_chunks=4),
}


def _router(primary: LocalServer, backup: LocalServer, *, prefill: bool | None, **options: Any) -> Router:
    fallback = Target(backup.base_url, api_key=KEY_BACKUP, name="backup", prefill=prefill)
    target = Target(primary.base_url, api_key=KEY_PRIMARY, name="primary", fallbacks=[fallback])
    return Router([target], max_retries=0, **options)


def _text(chunks: list[Any]) -> str:
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


@pytest.mark.parametrize("fault", list(BREAKS.values()), ids=list(BREAKS))
@pytest.mark.parametrize("surface", ROUTERS)
def test_a_broken_stream_is_continued_as_one_stream_where_the_next_target_takes_a_prefill(
    pair: tuple[LocalServer, LocalServer], surface: str, fault: Fault
) -> None:
    primary, backup = pair
    primary.enqueue(fault)
    got = ask(surface, primary, backup, stream=True, backup_options={"prefill": True})
    assert got.whole, got.error  # the whole answer, read as one stream
    assert (attempts(primary), attempts(backup)) == (1, 1)
    prefill = backup.requests[0].body["messages"][-1]
    assert prefill["role"] == "assistant" and prefill["prefix"] is True
    assert ANSWER.startswith(prefill["content"]) and prefill["content"]  # what the caller already had
    keys = [server.requests[0].headers["idempotency-key"] for server in (primary, backup)]
    assert keys[0] != keys[1]  # another request (another body): never answered from the broken one
    assert got.stats["primary"].streams_broken == 1 and got.stats["primary"].failovers == 1
    # each attempt counted once, where it was served: the continuation's prompt holds the delivered text
    assert got.stats["backup"].prompt_tokens > 0 and got.stats["backup"].completion_tokens > 0
    total = got.usage.models[MODEL]
    assert total.prompt_tokens == got.stats["primary"].prompt_tokens + got.stats["backup"].prompt_tokens


def test_a_continued_stream_has_one_role_chunk_and_one_finish(pair: tuple[LocalServer, LocalServer]) -> None:
    primary, backup = pair
    primary.enqueue(Fault.stream_cut(after_chunks=4))
    with _router(primary, backup, prefill=True) as router:
        chunks = list(router.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True))
    roles = [c for c in chunks if c.choices and c.choices[0].delta.role]
    finishes = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert len(roles) == 1 and len(finishes) == 1 and _text(chunks) == ANSWER


@pytest.mark.parametrize("fault", list(BREAKS.values()), ids=list(BREAKS))
def test_where_the_next_target_takes_no_prefill_the_answer_restarts_with_a_typed_signal(
    pair: tuple[LocalServer, LocalServer], fault: Fault
) -> None:
    primary, backup = pair
    primary.enqueue(fault)
    shown: list[str] = []
    with _router(primary, backup, prefill=None) as router:  # gpt-4o-mini: no prefill in the table
        stream = router.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True)
        with pytest.raises(StreamRestartError) as restart:
            for chunk in stream:
                shown.append(_text([chunk]))
        assert restart.value.text == "".join(shown) and ANSWER.startswith(restart.value.text)
        assert restart.value.target == "backup" and restart.value.__cause__ is restart.value.cause
        assert _text(list(restart.value.stream)) == ANSWER  # the new stream: the answer from its start
    assert "prefix" not in str(backup.requests[0].body["messages"])  # never the delivered text


def test_a_caller_handles_the_restart_in_a_loop(pair: tuple[LocalServer, LocalServer]) -> None:
    """The loop the docs show: whatever breaks, the caller ends with one whole answer."""
    primary, backup = pair
    primary.enqueue(Fault.stream_cut(after_chunks=3))
    with _router(primary, backup, prefill=False) as router:
        stream = router.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True)
        while True:
            shown: list[str] = []
            try:
                for chunk in stream:
                    shown.append(_text([chunk]))
                break
            except StreamRestartError as restart:
                stream = restart.stream
    assert "".join(shown) == ANSWER


@pytest.mark.parametrize("surface", ROUTERS)
def test_hold_reads_the_stream_to_its_end_before_handing_it_over(
    pair: tuple[LocalServer, LocalServer], surface: str
) -> None:
    primary, backup = pair
    primary.enqueue(Fault.stream_cut(after_chunks=4))
    got = ask(surface, primary, backup, stream=True, router_options={"stream_recovery": "hold"})
    assert got.whole, got.error  # restarted unseen: nothing of the broken stream was handed over
    assert "prefix" not in str(backup.requests[0].body["messages"])
    assert got.stats["primary"].streams_broken == 1


def test_a_stream_broken_before_any_text_goes_on_as_one_stream_without_a_prefill(
    pair: tuple[LocalServer, LocalServer],
) -> None:
    primary, backup = pair
    primary.enqueue(Fault.stream_cut(after_chunks=1))  # the role chunk only
    with _router(primary, backup, prefill=False) as router:
        chunks = list(router.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True))
    assert _text(chunks) == ANSWER and sum(1 for c in chunks if c.choices and c.choices[0].delta.role) == 1
    assert backup.requests[0].body["messages"] == MESSAGES


def test_a_prefill_the_next_target_refuses_never_replaces_the_real_error(
    fault_servers: tuple[LocalServer, LocalServer],
) -> None:
    """The backup refuses prefills (400): the answer restarts there instead, and the 400 is no one's error."""
    primary, _ = fault_servers
    primary.reset()
    with LocalServer(api_key=KEY_BACKUP, disabled_features={"prefill"}) as refusing:
        primary.enqueue(Fault.stream_cut(after_chunks=4))
        with _router(primary, refusing, prefill=True) as router:
            stream = router.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True)
            with pytest.raises(StreamRestartError) as restart:
                list(stream)
            assert isinstance(restart.value.cause, APIConnectionError)
            assert _text(list(restart.value.stream)) == ANSWER
            assert [r.status for r in refusing.requests] == [400, 200]
            assert router.stats()["backup"].breaker == "closed"  # it answered: it is healthy


def test_when_no_target_can_take_over_the_error_that_broke_the_stream_is_raised(
    pair: tuple[LocalServer, LocalServer],
) -> None:
    primary, backup = pair
    primary.enqueue(Fault.stream_cut(after_chunks=4))
    backup.enqueue(Fault.status(401))  # the backup refuses too: its error is not the caller's answer
    with _router(primary, backup, prefill=True) as router, pytest.raises(APIConnectionError) as caught:
        list(router.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True))
    notes = " ".join(caught.value.__notes__)
    assert "peer closed connection" in notes  # the error that broke the stream, with its detail
    assert "recovering the stream on backup failed too: AuthenticationError" in notes


def test_an_error_event_that_is_the_request_s_is_raised_as_it_is(
    pair: tuple[LocalServer, LocalServer],
) -> None:
    primary, backup = pair
    primary.enqueue(Fault.stream_error(after_chunks=4, status=400, error_type="invalid_request_error"))
    with _router(primary, backup, prefill=True) as router, pytest.raises(BadRequestError):
        list(router.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True))
    assert attempts(backup) == 0


def test_a_tool_call_under_way_is_restarted_not_continued(pair: tuple[LocalServer, LocalServer]) -> None:
    primary, backup = pair
    primary.enqueue(Fault.stream_cut(after_chunks=3))
    tools = [
        {
            "type": "function",
            "function": {
                "name": "lookup",
                "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
            },
        }
    ]
    with _router(primary, backup, prefill=True) as router:
        stream = router.chat.completions.create(
            model=MODEL, messages=MESSAGES, tools=tools, tool_choice="required", stream=True
        )
        with pytest.raises(StreamRestartError) as restart:
            list(stream)
        chunks = list(restart.value.stream)
    calls = [c.choices[0].delta.tool_calls for c in chunks if c.choices and c.choices[0].delta.tool_calls]
    assert calls and calls[0][0].function.name == "lookup"


def test_an_async_router_restarts_with_the_same_signal(pair: tuple[LocalServer, LocalServer]) -> None:
    primary, backup = pair
    primary.enqueue(Fault.stream_cut(after_chunks=4))

    async def main() -> str:
        fallback = Target(backup.base_url, api_key=KEY_BACKUP, name="backup")
        async with AsyncRouter(
            [Target(primary.base_url, api_key=KEY_PRIMARY, name="primary", fallbacks=[fallback])],
            max_retries=0,
        ) as router:
            stream = await router.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True)
            try:
                [c async for c in stream]
            except StreamRestartError as restart:
                return _text([c async for c in restart.stream])
            return ""

    assert asyncio.run(main()) == ANSWER


def test_a_restart_is_counted_once_per_attempt(pair: tuple[LocalServer, LocalServer]) -> None:
    primary, backup = pair
    primary.enqueue(Fault.stream_cut(after_chunks=4))
    with _router(primary, backup, prefill=False) as router:
        with pytest.raises(StreamRestartError) as restart:
            list(router.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True))
        list(restart.value.stream)
        stats, total = router.stats(), router.usage.snapshot()
    assert total.uncertain_requests == 1  # the cut attempt: its outcome unknown, held as uncertain spend
    assert stats["backup"].completion_tokens > 0
    assert total.models[MODEL].prompt_tokens == stats["primary"].prompt_tokens + stats["backup"].prompt_tokens


def test_a_routed_stream_left_early_is_charged_to_its_target_and_the_router_s_total(
    pair: tuple[LocalServer, LocalServer],
) -> None:
    """A target's stream settled as "left early" (at what was read, a lower bound) reaches the total too."""
    primary, backup = pair
    with _router(primary, backup, prefill=True) as router:
        stream = router.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True)
        next(iter(stream))
        stream.close()
        own, total = router.target_usage("primary").snapshot(), router.usage.snapshot()
    assert own.models[MODEL].lower_bound_requests == total.models[MODEL].lower_bound_requests == 1
    assert own.models[MODEL].prompt_tokens == total.models[MODEL].prompt_tokens > 0
    assert total.total_cost_usd == pytest.approx(own.total_cost_usd)
